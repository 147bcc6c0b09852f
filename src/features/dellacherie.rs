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

/// The cell-by-cell definitions below are the test oracles of the shared row scan
/// (`scan.rs`), which computes these features with bit operations over whole rows: written
/// independently of it, from the definitions, so that the two can disagree.
///
/// Row transitions: along every row of the board, the changes between neighbouring cells,
/// the walls counted as filled (an empty row has 2).
#[cfg(test)]
pub fn row_transitions(board: &Board) -> u32 {
    let width = board.width() as isize;
    let filled = |x: isize, y: usize| x < 0 || x >= width || board.is_filled(x as usize, y);
    let mut total = 0;
    for y in 0..board.height() {
        total += (0..=width).filter(|&x| filled(x - 1, y) != filled(x, y)).count() as u32;
    }
    total
}

/// Column transitions: up every column, the changes between a cell and the one below it,
/// the floor counted as filled; with `sky`, a filled top-row cell also changes into the
/// empty sky above the board.
#[cfg(test)]
pub fn column_transitions(board: &Board, sky: bool) -> u32 {
    let height = board.height();
    let mut total = 0;
    for x in 0..board.width() {
        let filled = |y: usize| board.is_filled(x, y);
        total += (!filled(0)) as u32;
        total += (1..height).filter(|&y| filled(y - 1) != filled(y)).count() as u32;
        total += (sky && filled(height - 1)) as u32;
    }
    total
}

pub fn holes(board: &Board) -> u32 {
    let heights: u32 = board.heights()[..board.width()].iter().map(|&h| h as u32).sum();
    let top = board.stack_top();
    let cells: u32 = board.rows()[..top].iter().map(|r| r.count_ones()).sum();
    heights - cells
}

/// Cumulative wells (Dellacherie, as MdpTetris counts it): every empty cell whose left and
/// right neighbours are filled (a wall counts as filled) adds the run of empty cells from it
/// down its column, itself included.
#[cfg(test)]
pub fn cumulative_wells(board: &Board) -> u32 {
    let width = board.width() as isize;
    let filled = |x: isize, y: usize| x < 0 || x >= width || board.is_filled(x as usize, y);
    let mut total = 0;
    for x in 0..width {
        for y in 0..board.height() {
            if !filled(x, y) && filled(x - 1, y) && filled(x + 1, y) {
                total += (0..=y).rev().take_while(|&below| !filled(x, below)).count() as u32;
            }
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

    proptest::proptest! {
        /// Random boards of every width and height the features take, holes and wells
        /// included: the scan and the cell-by-cell definitions agree on each.
        #[test]
        fn the_shared_scan_agrees_with_the_definitions_on_random_boards(
            width in 4usize..=crate::board::MAX_WIDTH,
            height in 4usize..=20,
            cells in proptest::collection::vec(proptest::bool::weighted(0.55), 20 * crate::board::MAX_WIDTH),
            empty_above in 0usize..=20,
        ) {
            let mut b = Board::new(width, height);
            for y in 0..height.saturating_sub(empty_above) {
                for x in 0..width {
                    if cells[y * crate::board::MAX_WIDTH + x] {
                        b.set(x, y);
                    }
                }
            }
            let s = crate::features::scan::scan(&b);
            proptest::prop_assert_eq!(s.row_transitions, row_transitions(&b), "{:?}", b);
            proptest::prop_assert_eq!(s.column_transitions, column_transitions(&b, true), "{:?}", b);
            proptest::prop_assert_eq!(s.column_transitions - s.top_row_cells, column_transitions(&b, false));
            proptest::prop_assert_eq!(s.holes, holes(&b));
            proptest::prop_assert_eq!(s.cumulative_wells, cumulative_wells(&b), "{:?}", b);
            proptest::prop_assert_eq!(s.rows_with_holes, crate::features::bcts::rows_with_holes(&b));
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
