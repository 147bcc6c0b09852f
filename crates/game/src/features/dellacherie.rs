//! The Dellacherie family as Fahey implemented it, with El-Tetris' variants
//! (`landing_height_0`, `rows_cleared`, `column_transitions_nosky`). Rows from the floor.

use super::Feature;
use crate::board::Board;

/// Mean of the piece's lowest and highest row, floor row = 1, before rows are removed.
pub const LANDING_HEIGHT: Feature = Feature {
    name: "landing_height",
    summary: "Dellacherie: mean of the placed piece's lowest and highest row, floor = 1, before clearing",
    compute: |ctx| {
        if !ctx.placement.placed {
            return 0.0;
        }
        (ctx.placement.lowest_row as f64 + ctx.placement.highest_row as f64) / 2.0 + 1.0
    },
};

/// El-Tetris: the same counted from 0.
pub const LANDING_HEIGHT_0: Feature = Feature {
    name: "landing_height_0",
    summary: "El-Tetris: landing_height counted from 0 (landing_height - 1)",
    compute: |ctx| (ctx.placement.lowest_row as f64 + ctx.placement.highest_row as f64) / 2.0,
};

pub const ERODED_CELLS: Feature = Feature {
    name: "eroded_cells",
    summary: "Dellacherie/BCTS: rows removed x the placed piece's cells in them",
    compute: |ctx| ctx.placement.rows_cleared as f64 * ctx.placement.piece_cells_cleared as f64,
};

pub const ROWS_CLEARED: Feature = Feature {
    name: "rows_cleared",
    summary: "El-Tetris 'rows eliminated': rows removed by this placement",
    compute: |ctx| ctx.placement.rows_cleared as f64,
};

pub const ROW_TRANSITIONS: Feature = Feature {
    name: "row_transitions",
    summary: "filled/empty changes along every row, walls filled (an empty row counts 2)",
    compute: |ctx| ctx.scan().row_transitions as f64,
};

pub const COLUMN_TRANSITIONS: Feature = Feature {
    name: "column_transitions",
    summary: "Fahey: filled/empty changes down every column, floor filled, empty sky above the top",
    compute: |ctx| ctx.scan().column_transitions as f64,
};

pub const COLUMN_TRANSITIONS_NOSKY: Feature = Feature {
    name: "column_transitions_nosky",
    summary: "El-Tetris: column_transitions without the sky term",
    compute: |ctx| (ctx.scan().column_transitions - ctx.scan().top_row_cells) as f64,
};

pub const HOLES: Feature = Feature {
    name: "holes",
    summary: "empty cells with a filled cell anywhere above in the same column",
    // Every empty cell below a column's top is a hole: heights minus cells, no scan needed
    // (Lee's evaluator uses this feature without the Dellacherie ones).
    compute: |ctx| holes(ctx.board) as f64,
};

pub const CUMULATIVE_WELLS: Feature = Feature {
    name: "cumulative_wells",
    summary: "for every empty cell with both neighbours filled (walls filled), the empty run from it down",
    compute: |ctx| ctx.scan().cumulative_wells as f64,
};

/// Direct definition, kept as the test oracle of the shared row scan (`scan.rs`),
/// which is what the feature computes.
/// Rows are only examined up to the stack (and never past the board's top): every empty
/// row above contributes exactly 2.
#[cfg(test)]
pub fn row_transitions(board: &Board) -> u32 {
    let width = board.width();
    let height = board.height();
    let top = board.stack_top().min(height);
    let walls = 1u32 | 1 << (width + 1);
    let mask = (1u32 << (width + 1)) - 1;
    let mut total = 0;
    for &row in &board.rows()[..top] {
        let x = (row as u32) << 1 | walls;
        total += ((x ^ (x >> 1)) & mask).count_ones();
    }
    total + 2 * (height - top) as u32
}

/// Direct definition, kept as the test oracle of the shared row scan (`scan.rs`),
/// which is what the feature computes.
/// Changes between each row and the one below (floor filled). Rows above the stack are
/// empty, so the sum can stop one row above it; with `sky`, the top row's filled cells
/// change into the empty sky (that is the same sum taken one row past the top).
#[cfg(test)]
pub fn column_transitions(board: &Board, sky: bool) -> u32 {
    let height = board.height();
    let top = board.stack_top().min(height);
    let rows = board.rows();
    let mut below = board.full_row();
    let mut total = 0;
    for &row in &rows[..top] {
        total += (row ^ below).count_ones();
        below = row;
    }
    // The change from the highest non-empty row into the empty row above it (or the sky).
    total += below.count_ones() * (top > 0) as u32;
    if top == 0 {
        total += board.full_row().count_ones();
    }
    if !sky && top == height {
        total -= rows[height - 1].count_ones();
    }
    total
}

pub fn holes(board: &Board) -> u32 {
    let heights: u32 = board.heights()[..board.width()].iter().map(|&h| h as u32).sum();
    let top = board.stack_top();
    let cells: u32 = board.rows()[..top].iter().map(|r| r.count_ones()).sum();
    heights - cells
}

/// Direct definition, kept as the test oracle of the shared row scan (`scan.rs`),
/// which is what the feature computes.
/// Well cells are rare, so rows are screened with bit operations and only a well cell's
/// own column is walked down to measure its empty run.
#[cfg(test)]
pub fn cumulative_wells(board: &Board) -> u32 {
    let width = board.width();
    let top = board.stack_top().min(board.height());
    let full = board.full_row();
    let rows = board.rows();
    let mut total = 0;
    for y in 0..top {
        let row = rows[y];
        let left_filled = (row << 1) | 1;
        let right_filled = (row >> 1) | 1 << (width - 1);
        let mut wells = !row & left_filled & right_filled & full;
        while wells != 0 {
            let bit = wells & wells.wrapping_neg();
            wells ^= bit;
            let mut below = y;
            while below > 0 && rows[below - 1] & bit == 0 {
                below -= 1;
            }
            total += (y - below + 1) as u32;
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::test_boards::*;
    use crate::features::FeatureContext;
    use crate::placement::PlacementInfo;

    #[test]
    fn el_tetris_golden_values() {
        // golden.md: row_transitions, column_transitions_nosky, holes, cumulative_wells.
        let expect = [(40, 10, 0, 0), (48, 10, 0, 7), (50, 12, 1, 4), (50, 10, 0, 15), (48, 10, 0, 2)];
        for (board, want) in golden(20).iter().zip(expect) {
            let got = (row_transitions(board), column_transitions(board, false), holes(board), cumulative_wells(board));
            assert_eq!(got, want, "{board:?}");
            assert_eq!(column_transitions(board, true), want.1, "no top cell filled, so no sky term");
        }
    }

    #[test]
    fn hand_computed_small_board() {
        // 4 x 4, top row first.
        let b = Board::parse("#...\n#.#.\n..#.\n##.#", None, 4).unwrap();
        // rows from the bottom: "##.#" -> |##.#| = 2 ; "..#." -> 4 ; "#.#." -> 4; "#..." -> 2.
        assert_eq!(row_transitions(&b), 12);
        // columns (bottom to top, floor filled, sky empty):
        // c0: F,#,.,#,# -> 2 + sky 1 = 3; c1: F,#,.,.,. -> 1; c2: F,.,#,#,. -> 3; c3: F,#,.,.,. -> 1.
        assert_eq!(column_transitions(&b, true), 8);
        assert_eq!(column_transitions(&b, false), 7);
        // c0 row 1 is covered; c2 row 0 is covered.
        assert_eq!(holes(&b), 2);
        // well cells (column, row): (2,0) run 1; (3,1) run 1; (1,2) run 2 (rows 2, 1);
        // (3,2) run 2. (1,1) is not one: its left neighbour is empty.
        assert_eq!(cumulative_wells(&b), 1 + 1 + 2 + 2);
    }

    #[test]
    fn landing_height_examples_from_the_spec() {
        let b = Board::new(10, 20);
        let flat = FeatureContext::new(
            &b,
            PlacementInfo { placed: true, lowest_row: 0, highest_row: 0, ..Default::default() },
        );
        let upright = FeatureContext::new(
            &b,
            PlacementInfo { placed: true, lowest_row: 0, highest_row: 3, ..Default::default() },
        );
        assert_eq!((LANDING_HEIGHT.compute)(&flat), 1.0);
        assert_eq!((LANDING_HEIGHT.compute)(&upright), 2.5);
        assert_eq!((LANDING_HEIGHT_0.compute)(&upright), 1.5);
        let eroded =
            FeatureContext::new(&b, PlacementInfo { rows_cleared: 2, piece_cells_cleared: 3, ..Default::default() });
        assert_eq!((ERODED_CELLS.compute)(&eroded), 6.0);
        assert_eq!((LANDING_HEIGHT.compute)(&FeatureContext::board(&b)), 0.0, "no placement, no landing height");
        assert_eq!((ROWS_CLEARED.compute)(&eroded), 2.0);
    }

    #[test]
    fn the_shared_scan_agrees_with_the_direct_definitions() {
        let mut boards = golden(20).to_vec();
        boards.push(Board::parse("#...\n#.#.\n..#.\n##.#", None, 4).unwrap());
        boards.push(Board::parse("#.#.\n#..#\n.#..", None, 3).unwrap());
        for b in &boards {
            let s = crate::features::scan::scan(b);
            assert_eq!(s.row_transitions, row_transitions(b), "{b:?}");
            assert_eq!(s.column_transitions, column_transitions(b, true), "{b:?}");
            assert_eq!(s.column_transitions - s.top_row_cells, column_transitions(b, false), "{b:?}");
            assert_eq!(s.holes, holes(b), "{b:?}");
            assert_eq!(s.cumulative_wells, cumulative_wells(b), "{b:?}");
            assert_eq!(s.rows_with_holes, crate::features::bcts::rows_with_holes(b), "{b:?}");
        }
    }

    #[test]
    fn empty_and_full_top_row() {
        let empty = Board::new(10, 20);
        assert_eq!(column_transitions(&empty, true), 10);
        let tall = Board::parse("#.........\n#.........\n#.........\n#.........", None, 4).unwrap();
        assert_eq!(column_transitions(&tall, true), 9 + 1);
        assert_eq!(column_transitions(&tall, false), 9);
    }
}
