//! `erikko`: the simulator of the 7-term Java bot (EriKKo/tetris-ai, 2016), as `rules.md`
//! pins it. A 10 x 22 board whose top two rows are hidden; pieces from the "no triple"
//! generator on `java.util.Random`; five pieces of preview; a hold usable every turn.
//! A move is (hold, origin column 0..9, rotation 0..3): the piece must fit with its origin
//! at row 19, then falls straight down from there. The game ends when a cell is left in
//! rows 20-21, or when no move is valid (the policy then finds none).
//!
//! Two facts of the original simulator that decide exact replays live here too: the piece
//! order behind `nextInt(7)`, and that every move the bot tries on a copy of the game draws
//! one piece from the shared generator ([`RuleSet::draws_per_tried_move`]).

use super::{fixed_size, HoldRule, Outcome, RuleSet, RuleSetEntry};
use crate::board::Board;
use crate::piece::{DropShape, Piece, Shape};
use crate::placement::Placement;
use crate::randomizer::RandomizerKind;

pub const ENTRY: RuleSetEntry = RuleSetEntry {
    name: "erikko",
    summary: "the 7-term Java bot's game: 10x22 (2 hidden rows), no-triple java.util.Random pieces, preview 5, hold every turn",
    build: |size| {
        fixed_size("erikko", size, (WIDTH, HEIGHT))?;
        Ok(Box::new(Erikko::new()))
    },
};

const WIDTH: usize = 10;
const HEIGHT: usize = 22;
/// Rows 20 and 21 are hidden: a cell left there ends the game.
pub const HIDDEN_FROM_ROW: usize = 20;
/// A move's piece must fit with its origin on this row before it falls.
const ORIGIN_ROW: i32 = 19;
/// The original's piece table order: `nextInt(7)` = k deals `PIECE_ORDER[k]`.
pub const PIECE_ORDER: [Piece; 7] = [Piece::I, Piece::T, Piece::O, Piece::L, Piece::J, Piece::S, Piece::Z];

/// Rotation-0 cells as (row, column) offsets from the origin, rows up.
fn base_cells(piece: Piece) -> [(i8, i8); 4] {
    match piece {
        Piece::I => [(0, 0), (0, -1), (0, 1), (0, 2)],
        Piece::T => [(0, 0), (0, -1), (0, 1), (1, 0)],
        Piece::L => [(0, 0), (0, -1), (0, 1), (1, 1)],
        Piece::J => [(0, 0), (0, -1), (1, -1), (0, 1)],
        Piece::S => [(0, 0), (1, 0), (1, 1), (0, -1)],
        Piece::Z => [(0, 0), (1, 0), (1, -1), (0, 1)],
        Piece::O => [(0, 0), (0, 1), (-1, 1), (-1, 0)],
    }
}

/// The cells of `piece` in `rotation` (0..3), (row, column) offsets. Rotation turns the
/// offsets clockwise, (r, c) -> (-c, r), `rotation` times; the O never turns and the I has
/// its own table (it turns about a point between cells, so rotations 1 and 3 differ by a
/// column and rotation 2 is rotation 0).
pub fn cells(piece: Piece, rotation: usize) -> [(i8, i8); 4] {
    match (piece, rotation % 4) {
        (Piece::O, _) => base_cells(Piece::O),
        (Piece::I, 1) => [(0, 1), (-1, 1), (-2, 1), (1, 1)],
        (Piece::I, 3) => [(0, 0), (-1, 0), (-2, 0), (1, 0)],
        (Piece::I, _) => base_cells(Piece::I),
        (_, turns) => {
            let mut cells = base_cells(piece);
            for _ in 0..turns {
                for cell in cells.iter_mut() {
                    *cell = (-cell.1, cell.0);
                }
            }
            cells
        }
    }
}

/// One (column, rotation) move of a piece whose cells stay inside the columns.
#[derive(Clone, Copy, Debug)]
struct Move {
    column: i8,
    rotation: u8,
    shape: DropShape,
    /// Bounding-box left column.
    left: u8,
    /// Bounding-box bottom row with the origin on [`ORIGIN_ROW`].
    start_bottom: u8,
}

/// The `erikko` rule set. Its move table is built once: for every piece, in the original's
/// loop order (column 0..9, then rotation 0..3), the moves whose cells fit in the columns,
/// a rotation dropped when its cells equal an earlier rotation's at the same origin (the O's
/// 1-3, the I's 2: the same move, found later, can never win a first-best search).
pub struct Erikko {
    moves: [Vec<Move>; 7],
}

impl Erikko {
    pub fn new() -> Erikko {
        let mut moves: [Vec<Move>; 7] = Default::default();
        for piece in Piece::ALL {
            for column in 0..WIDTH as i8 {
                let mut seen: Vec<[(i8, i8); 4]> = Vec::new();
                for rotation in 0..4u8 {
                    let offsets = cells(piece, rotation as usize);
                    let mut sorted = offsets;
                    sorted.sort();
                    if seen.contains(&sorted) {
                        continue;
                    }
                    seen.push(sorted);
                    let shape = Shape::new(offsets.map(|(row, col)| (col, row)));
                    let left = column + shape.min_x();
                    let right = column + shape.max_x();
                    if left < 0 || right >= WIDTH as i8 {
                        continue;
                    }
                    moves[piece.index()].push(Move {
                        column,
                        rotation,
                        shape: shape.drop_shape(),
                        left: left as u8,
                        start_bottom: (ORIGIN_ROW + shape.min_y() as i32) as u8,
                    });
                }
            }
        }
        Erikko { moves }
    }
}

impl Default for Erikko {
    fn default() -> Self {
        Self::new()
    }
}

/// Whether the piece's row masks overlap the stack with the box bottom on row `bottom`.
#[inline]
fn collides(board: &Board, bottom: usize, masks: &[u16; 4], height: usize) -> bool {
    (0..height).any(|i| board.row(bottom + i) & masks[i] != 0)
}

impl RuleSet for Erikko {
    fn name(&self) -> &'static str {
        "erikko"
    }
    fn version(&self) -> &'static str {
        "erikko/1"
    }
    fn describe(&self) -> String {
        "erikko 10x22, 2 hidden rows (no-triple java.util.Random pieces, preview 5, hold every turn)".into()
    }
    fn new_board(&self) -> Board {
        Board::new(WIDTH, HEIGHT)
    }
    fn randomizer(&self) -> RandomizerKind {
        RandomizerKind::NoTriple { order: PIECE_ORDER }
    }
    fn preview(&self) -> usize {
        5
    }
    fn hold(&self) -> HoldRule {
        HoldRule::EveryTurn
    }
    /// The original's game copies share its piece generator, and trying a move on a copy
    /// shifts the copy's preview and refills it: one piece drawn and thrown away per move
    /// tried (`BoardState.doMove`, valid or not).
    fn draws_per_tried_move(&self) -> u32 {
        1
    }
    fn move_unit(&self) -> &'static str {
        "turns"
    }
    /// The valid moves of `piece` in loop order (column, then rotation): those whose cells
    /// fit on the board with the origin on row 19, each dropped from there to the lowest
    /// row it reaches.
    fn candidates(&self, board: &Board, piece: Piece, out: &mut Vec<Placement>) {
        out.clear();
        for m in &self.moves[piece.index()] {
            let masks = m.shape.masks_at(m.left as usize);
            let height = m.shape.height as usize;
            let start = m.start_bottom as usize;
            if collides(board, start, &masks, height) {
                continue;
            }
            // From above the stack the landing row follows from the column heights; a
            // piece that starts under an overhang falls from where it is instead.
            let mut bottom = m.shape.drop_row(board.heights(), m.left as usize);
            if bottom > start {
                bottom = start;
                while bottom > 0 && !collides(board, bottom - 1, &masks, height) {
                    bottom -= 1;
                }
            }
            out.push(Placement {
                piece,
                orientation: m.rotation,
                column: m.column,
                shift: 0,
                left: m.left,
                bottom: bottom as u8,
                shape: m.shape,
            });
        }
    }
    fn lock(&self, board: &mut Board, placement: &Placement) -> Outcome {
        let info = placement.apply(board);
        Outcome { info, score: 0, game_over: board.has_cells_from(HIDDEN_FROM_ROW) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placements(board: &Board, piece: Piece) -> Vec<Placement> {
        let mut out = Vec::new();
        Erikko::new().candidates(board, piece, &mut out);
        out
    }

    fn find(list: &[Placement], column: i8, rotation: u8) -> Option<Placement> {
        list.iter().copied().find(|p| p.column == column && p.orientation == rotation)
    }

    #[test]
    fn move_counts_on_an_empty_board() {
        let empty = Board::new(10, 22);
        let count = |p| placements(&empty, p).len();
        // I: flat at origins 1..7 (rotation 0; 2 is the same), vertical at 0..8 (1) and
        // 0..9 (3): 7 + 9 + 10.
        assert_eq!(count(Piece::I), 26);
        // O: origins 0..8, one rotation.
        assert_eq!(count(Piece::O), 9);
        // T: flat 1..8 twice, upright 0..8 and 1..9.
        assert_eq!(count(Piece::T), 8 + 9 + 8 + 9);
    }

    #[test]
    fn rotation_tables_follow_the_spec() {
        assert_eq!(cells(Piece::T, 1), [(0, 0), (1, 0), (-1, 0), (0, 1)]);
        assert_eq!(cells(Piece::J, 3), [(0, 0), (-1, 0), (-1, -1), (1, 0)]);
        assert_eq!(cells(Piece::I, 2), cells(Piece::I, 0));
        assert_eq!(cells(Piece::O, 3), cells(Piece::O, 0));
        assert_eq!(cells(Piece::S, 4), cells(Piece::S, 0));
    }

    #[test]
    fn drops_land_on_the_stack() {
        let board = Board::parse("#.........\n##........", Some(10), 22).unwrap();
        let list = placements(&board, Piece::I);
        // Vertical I (rotation 3) at origin column 0 stands on the two cells.
        let p = find(&list, 0, 3).unwrap();
        assert_eq!((p.left, p.bottom), (0, 2));
        // Flat I at origin 2 covers columns 1..4 and rests on column 1's cell.
        let p = find(&list, 2, 0).unwrap();
        assert_eq!((p.left, p.bottom), (1, 1));
    }

    #[test]
    fn a_piece_starting_under_an_overhang_falls_under_it() {
        // Column 0 has a cell on row 19 and nothing below: J rotation 3 at origin column 1
        // puts a cell in column 0 on row 18, so it starts under the overhang and falls.
        let mut board = Board::new(10, 22);
        board.set(0, 19);
        let list = placements(&board, Piece::J);
        let p = find(&list, 1, 3).unwrap();
        assert_eq!(p.bottom, 0, "{p:?}");
        // A piece whose column-0 cell would be on row 19 does not fit at all.
        assert!(find(&list, 1, 0).is_none());
    }

    #[test]
    fn blocked_start_is_invalid_and_hidden_rows_end_the_game() {
        let rules = Erikko::new();
        let mut board = Board::new(10, 22);
        for y in 0..19 {
            board.set(4, y);
        }
        // T upright at column 4 would need row 19 and 20 free above a column of height 19.
        let list = placements(&board, Piece::T);
        let p = find(&list, 4, 0).unwrap();
        assert_eq!(p.bottom, 19);
        let mut after = board;
        assert!(rules.lock(&mut after, &p).game_over);
        board.set(4, 19);
        assert!(find(&placements(&board, Piece::T), 4, 0).is_none());
    }

    #[test]
    fn loop_order_is_column_then_rotation() {
        let list = placements(&Board::new(10, 22), Piece::T);
        let keys: Vec<(i8, u8)> = list.iter().map(|p| (p.column, p.orientation)).collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted);
    }

    /// The original's move, cell by cell (`TetrisBoard.dropMino`): fit at origin row 19,
    /// then step the origin down while the piece fits; the cells where it rests.
    fn naive_drop(board: &Board, piece: Piece, column: i32, rotation: usize) -> Option<Vec<(usize, usize)>> {
        let offsets = cells(piece, rotation);
        let fits = |row: i32| {
            offsets.iter().all(|&(r, c)| {
                let (y, x) = (row + r as i32, column + c as i32);
                (0..HEIGHT as i32).contains(&y)
                    && (0..WIDTH as i32).contains(&x)
                    && !board.is_filled(x as usize, y as usize)
            })
        };
        if !fits(ORIGIN_ROW) {
            return None;
        }
        let mut row = ORIGIN_ROW;
        while fits(row - 1) {
            row -= 1;
        }
        let mut placed: Vec<(usize, usize)> =
            offsets.iter().map(|&(r, c)| ((column + c as i32) as usize, (row + r as i32) as usize)).collect();
        placed.sort();
        Some(placed)
    }

    fn placed_cells(p: &Placement) -> Vec<(usize, usize)> {
        let mut board = Board::new(WIDTH, HEIGHT);
        p.write(&mut board);
        let mut placed: Vec<(usize, usize)> =
            (0..HEIGHT).flat_map(|y| (0..WIDTH).map(move |x| (x, y))).filter(|&(x, y)| board.is_filled(x, y)).collect();
        placed.sort();
        placed
    }

    proptest::proptest! {
        /// Every (column, rotation) of every piece lands where the original's cell-by-cell
        /// drop puts it, overhangs included, on random ragged stacks reaching row 19; a
        /// rotation left out as a duplicate lands exactly like the one kept.
        #[test]
        fn moves_land_where_the_original_drops_them(
            columns in proptest::collection::vec((0usize..=20, proptest::collection::vec(proptest::bool::weighted(0.2), 20)), WIDTH)
        ) {
            let mut board = Board::new(WIDTH, HEIGHT);
            for (x, (height, gaps)) in columns.iter().enumerate() {
                for (y, &gap) in gaps.iter().enumerate().take(*height) {
                    if !gap {
                        board.set(x, y);
                    }
                }
            }
            board.clear_full_rows();
            let rules = Erikko::new();
            let mut out = Vec::new();
            for piece in Piece::ALL {
                rules.candidates(&board, piece, &mut out);
                for column in 0..WIDTH as i8 {
                    for rotation in 0..4u8 {
                        let expected = naive_drop(&board, piece, column as i32, rotation as usize);
                        // The kept rotation with the same cells at this origin.
                        let kept = (0..=rotation).find(|&k| {
                            let (mut a, mut b) = (cells(piece, k as usize), cells(piece, rotation as usize));
                            a.sort();
                            b.sort();
                            a == b
                        }).unwrap();
                        let ours = out.iter().find(|p| p.column == column && p.orientation == kept).map(placed_cells);
                        proptest::prop_assert_eq!(ours, expected, "{:?} column {} rotation {}\n{:?}", piece, column, rotation, board);
                    }
                }
            }
        }
    }
}
