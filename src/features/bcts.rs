//! The two features BCTS (Thiery-Scherrer) adds to Dellacherie's six.

use super::{Feature, FeatureContext};
use crate::board::Board;

pub const HOLE_DEPTH: Feature = Feature {
    name: "hole_depth",
    summary: "BCTS: for every hole, the filled cells above it in its column; summed",
    compute: |ctx: &FeatureContext| hole_depth(ctx.board) as f64,
};

pub const ROWS_WITH_HOLES: Feature = Feature {
    name: "rows_with_holes",
    summary: "BCTS: rows containing at least one hole",
    compute: |ctx: &FeatureContext| ctx.scan().rows_with_holes as f64,
};

pub fn hole_depth(board: &Board) -> u32 {
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
        // rows with holes: 3 (c0), 2 (c1), 1 (c0, c1), 0 (c1, c2).
        assert_eq!(rows_with_holes(&b), 4);
        assert_eq!(crate::features::dellacherie::holes(&b), 6);
    }
}
