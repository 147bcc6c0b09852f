//! The row-scan features checked against their definitions written cell by cell, with no
//! bit operations, so that an oracle cannot share a mistake with the fast scan it checks
//! (`crates/game/src/features/scan.rs`, and the bit-level oracles kept beside it). The definitions
//! are those `tetris-lab list` prints (Fahey's and Dellacherie's, see `features.md`).

use proptest::prelude::*;
use tetris_lab::board::Board;
use tetris_lab::features::{self, FeatureContext};

/// A random board: each column filled up to a random height with random holes, sometimes
/// up to the top row (where the sky terms matter).
fn arbitrary_board() -> impl Strategy<Value = Board> {
    (4usize..=12, 4usize..=22).prop_flat_map(|(w, h)| {
        (proptest::collection::vec(proptest::collection::vec(any::<bool>(), h), w), 0usize..=h).prop_map(
            move |(cols, top)| {
                let mut b = Board::new(w, h);
                for (x, col) in cols.iter().enumerate() {
                    for (y, &filled) in col.iter().enumerate().take(top) {
                        if filled {
                            b.set(x, y);
                        }
                    }
                }
                b
            },
        )
    })
}

/// Filled, with the walls (columns -1 and `width`) filled.
fn filled_or_wall(board: &Board, x: i64, y: usize) -> bool {
    x < 0 || x >= board.width() as i64 || board.is_filled(x as usize, y)
}

/// Along every row, walls included: each pair of neighbouring cells that differ.
fn row_transitions(board: &Board) -> u32 {
    let mut total = 0;
    for y in 0..board.height() {
        for x in -1..board.width() as i64 {
            if filled_or_wall(board, x, y) != filled_or_wall(board, x + 1, y) {
                total += 1;
            }
        }
    }
    total
}

/// Down every column: each pair of vertically neighbouring cells that differ, the floor
/// filled; with `sky`, the row above the board is empty sky.
fn column_transitions(board: &Board, sky: bool) -> u32 {
    let mut total = 0;
    for x in 0..board.width() {
        let mut below = true;
        for y in 0..board.height() {
            let cell = board.is_filled(x, y);
            if cell != below {
                total += 1;
            }
            below = cell;
        }
        if sky && below {
            total += 1;
        }
    }
    total
}

/// For every empty cell whose left and right neighbours are filled (walls filled), the
/// empty cells from it downwards in its column, itself included.
fn cumulative_wells(board: &Board) -> u32 {
    let mut total = 0;
    for x in 0..board.width() {
        for y in 0..board.height() {
            let xi = x as i64;
            if board.is_filled(x, y) || !filled_or_wall(board, xi - 1, y) || !filled_or_wall(board, xi + 1, y) {
                continue;
            }
            let mut depth = 0;
            let mut row = y as i64;
            while row >= 0 && !board.is_filled(x, row as usize) {
                depth += 1;
                row -= 1;
            }
            total += depth;
        }
    }
    total
}

fn feature(name: &str, board: &Board) -> f64 {
    (features::find(name).unwrap().compute)(&FeatureContext::board(board))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn row_transitions_is_its_definition(board in arbitrary_board()) {
        prop_assert_eq!(feature("row_transitions", &board), row_transitions(&board) as f64);
    }

    #[test]
    fn column_transitions_are_their_definition(board in arbitrary_board()) {
        prop_assert_eq!(feature("column_transitions", &board), column_transitions(&board, true) as f64);
        prop_assert_eq!(feature("column_transitions_nosky", &board), column_transitions(&board, false) as f64);
    }

    #[test]
    fn cumulative_wells_is_its_definition(board in arbitrary_board()) {
        prop_assert_eq!(feature("cumulative_wells", &board), cumulative_wells(&board) as f64);
    }
}

#[test]
fn the_oracles_on_a_board_worked_by_hand() {
    // Width 4, height 3 (top row first):
    //   . . . .
    //   X . X .
    //   X . X X
    let mut board = Board::new(4, 3);
    for (x, y) in [(0, 0), (2, 0), (3, 0), (0, 1), (2, 1)] {
        board.set(x, y);
    }
    // Rows (walls filled): "X X.XX X" 2, "X X.X. X" 4, "X .... X" 2.
    assert_eq!(row_transitions(&board), 8);
    // Columns (floor filled): 0: X X . -> 1, sky 0; 1: . . . -> 1; 2: like 0 -> 1; 3: X . . -> 1.
    assert_eq!(column_transitions(&board, true), 4);
    // Wells: (1, 0) depth 1; (1, 1) depth 2; (3, 1): left filled, wall right, depth 1.
    assert_eq!(cumulative_wells(&board), 4);
}
