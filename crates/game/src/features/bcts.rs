//! The two features BCTS (Thiery-Scherrer) adds to Dellacherie's six, and MdpTetris' own
//! count of the first (the program BCTS was tuned and measured with).

use super::{Feature, FeatureContext};
use crate::board::Board;

pub const HOLE_DEPTH: Feature = Feature {
    name: "hole_depth",
    summary: "BCTS: for every hole, the filled cells above it in its column; summed",
    compute: |ctx: &FeatureContext| hole_depth(ctx.board) as f64,
};

pub const CELLS_ABOVE_HOLES: Feature = Feature {
    name: "cells_above_holes",
    summary: "MdpTetris' hole depth: filled cells with a hole anywhere below them, each once",
    compute: |ctx: &FeatureContext| cells_above_holes(ctx.board) as f64,
};

pub const ROWS_WITH_HOLES: Feature = Feature {
    name: "rows_with_holes",
    summary: "BCTS: rows containing at least one hole",
    compute: |ctx: &FeatureContext| ctx.scan().rows_with_holes as f64,
};

/// Every filled cell is above as many holes as there are empty cells below it in its
/// column, and the k-th filled cell of a column from the floor has k filled cells below
/// it, so the sum is `sum of the filled cells' rows - sum over columns of C(c, 2)` with `c`
/// the column's filled cells. The column counts are kept as bit-sliced counters (plane k
/// holds bit k of every column's count) filled row by row, and `sum c^2` is read from
/// them as `sum over planes j, k of 2^(j+k) * |plane j & plane k|`: no per-cell work.
pub fn hole_depth(board: &Board) -> u32 {
    // Counts reach the stored rows (48 < 64): six planes. Rows above the board's top are
    // counted as the cell-by-cell definition counts them.
    let mut planes = [0u16; 6];
    let mut cells = 0;
    let mut row_sum = 0;
    let top = board.stack_top();
    for (y, &row) in board.rows()[..top].iter().enumerate() {
        let count = row.count_ones();
        cells += count;
        row_sum += y as u32 * count;
        let mut carry = row;
        for plane in planes.iter_mut() {
            if carry == 0 {
                break;
            }
            let sum = *plane ^ carry;
            carry &= *plane;
            *plane = sum;
        }
    }
    let mut squares = 0;
    for j in 0..planes.len() {
        squares += (planes[j].count_ones()) << (2 * j);
        for k in j + 1..planes.len() {
            squares += (planes[j] & planes[k]).count_ones() << (j + k + 1);
        }
    }
    row_sum - (squares - cells) / 2
}

/// MdpTetris' `get_hole_depths` (feature -1, its BCTS hole depth): each filled cell with
/// at least one empty cell below it in its column counts once, however many holes lie
/// below. A column of two holes under two filled cells gives 2 here and 4 in
/// [`hole_depth`]. Row by row from the floor: a cell is above a hole when it is filled and
/// the cell under it is empty or itself above a hole.
pub fn cells_above_holes(board: &Board) -> u32 {
    let rows = &board.rows()[..board.stack_top()];
    let mut above_holes = 0u16;
    let mut total = 0;
    for pair in rows.windows(2) {
        above_holes = pair[1] & (!pair[0] | above_holes);
        total += above_holes.count_ones();
    }
    total
}

/// Direct definition, kept as the test oracle of [`cells_above_holes`].
#[cfg(test)]
pub fn cells_above_holes_by_cells(board: &Board) -> u32 {
    let mut total = 0;
    for x in 0..board.width() {
        let mut empty_below = false;
        for y in 0..board.column_height(x) {
            if board.is_filled(x, y) {
                total += empty_below as u32;
            } else {
                empty_below = true;
            }
        }
    }
    total
}

/// Direct definition, kept as the test oracle of [`hole_depth`].
#[cfg(test)]
pub fn hole_depth_by_cells(board: &Board) -> u32 {
    let mut total = 0;
    for x in 0..board.width() {
        let mut filled_above = 0;
        for y in (0..board.column_height(x)).rev() {
            if board.is_filled(x, y) {
                filled_above += 1;
            } else {
                total += filled_above;
            }
        }
    }
    total
}

/// Direct definition, kept as the test oracle of the shared row scan (`scan.rs`).
#[cfg(test)]
pub fn rows_with_holes(board: &Board) -> u32 {
    let top = board.stack_top().min(board.height());
    let mut covered = 0u16;
    let mut total = 0;
    for &row in board.rows()[..top].iter().rev() {
        total += (covered & !row != 0) as u32;
        covered |= row;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_computed() {
        // Column 0: two filled above a hole, then a hole under three; column 2: one hole under one.
        let b = Board::parse("#...\n#...\n.#..\n#.#.\n..#.\n#...", None, 8).unwrap();
        // c0 rows bottom-up: #,.,#,.,#,# : hole at row 3 (2 above), hole at row 1 (3 above) -> 5.
        // c1: filled at row 3 only -> holes at rows 2, 1, 0 with 1 above each -> 3.
        // c2: rows 2,1 filled, row 0 empty -> hole with 2 above.
        assert_eq!(hole_depth(&b), 5 + 3 + 2);
        assert_eq!(hole_depth_by_cells(&b), 5 + 3 + 2);
        // rows with holes: 3 (c0), 2 (c1), 1 (c0, c1), 0 (c1, c2).
        assert_eq!(rows_with_holes(&b), 4);
        assert_eq!(crate::features::dellacherie::holes(&b), 6);
        // MdpTetris' count: c0's three filled cells above its lowest hole, c1's one, c2's two.
        assert_eq!(cells_above_holes(&b), 3 + 1 + 2);
        assert_eq!(cells_above_holes_by_cells(&b), 3 + 1 + 2);
    }

    /// The case where the two counts part (README "Move for move against MdpTetris"):
    /// two holes under two filled cells.
    #[test]
    fn two_holes_under_two_cells() {
        let b = Board::parse("#...\n#...\n....\n.###", None, 4).unwrap();
        assert_eq!(hole_depth(&b), 4);
        assert_eq!(cells_above_holes(&b), 2);
        // Column 0 from the floor: hole, cell, hole, cell. Each cell has a hole below it
        // (2); the lower hole has two cells above it, the upper one (3).
        let b = Board::parse("#...\n.###\n####\n.###", None, 4).unwrap();
        assert_eq!(cells_above_holes(&b), 2);
        assert_eq!(hole_depth(&b), 2 + 1);
        assert_eq!(cells_above_holes(&Board::parse("....\n##..\n####", None, 4).unwrap()), 0);
    }

    /// The counter form equals the cell-by-cell definition on random boards up to the
    /// tallest and widest, full columns included.
    #[test]
    fn hole_depth_matches_the_cell_definition() {
        use rand::{Rng, SeedableRng};
        let mut random = rand_chacha::ChaCha8Rng::seed_from_u64(13);
        for _ in 0..2000 {
            let width = random.random_range(4..=crate::board::MAX_WIDTH);
            let height = random.random_range(4..=crate::board::MAX_HEIGHT);
            let density = random.random_range(0.0..1.0);
            let mut board = Board::new(width, height);
            for x in 0..width {
                for y in 0..height {
                    if random.random_bool(density) {
                        board.set(x, y);
                    }
                }
            }
            assert_eq!(hole_depth(&board), hole_depth_by_cells(&board), "{board:?}");
            assert_eq!(cells_above_holes(&board), cells_above_holes_by_cells(&board), "{board:?}");
        }
    }
}
