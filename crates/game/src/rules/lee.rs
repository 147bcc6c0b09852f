//! `lee`: Yiyuan Lee's JavaScript game (`LeeYiyuan/tetrisai`, branch gh-pages), reproduced
//! move for move, since his AI's choices depend on exactly which placements his sweep
//! reaches and in which order.
//!
//! His grid is 22 rows x 10 with row 0 at the top; rows 0 and 1 are hidden. Here the board
//! is the usual one with row 0 at the floor, so his row `r` is our row `21 - r` and the
//! hidden rows are 20 and 21. Facts pinned from his sources (file names in his repository):
//! - `piece.js`: each piece is a square matrix (O 2x2, J L Z S T 3x3, I 4x4 with its cells
//!   in the second row); it spawns with the matrix top in grid row 0 at column
//!   `floor((10 - size) / 2)`. Rotation turns the matrix clockwise; when the turned matrix
//!   does not fit in place, his own kick search tries, in order, column offsets
//!   0, +1, .., +(size-2), then 0, -1, .., -(size-2), and for each column offset the row
//!   offsets 0, 1 up, .., size-2 up; the first fit wins, and with no fit the piece stays
//!   unrotated. Moving left checks only the cells the piece would move into.
//! - `ai.js`: for rotation 0..3 a fresh spawned piece is rotated that many times, pushed
//!   left while it can move, then swept right one column at a time while it fits, each
//!   stop dropped straight down (`moveDown` until blocked) and evaluated. Nothing is
//!   deduplicated: the O is evaluated four times, S, Z and I placements twice.
//! - `grid.js` / `game_manager.js`: after a placement the full rows are removed, then the
//!   game is over if either hidden row holds a cell. There is no spawn check (a spawn
//!   lies in the hidden rows, which are empty whenever the game goes on).
//! - `random_piece_generator.js`: a 7-bag shuffled with `Math.random` (unseeded); ours is
//!   the seeded 7-bag of [`crate::randomizer`], the same distribution.

use super::{fixed_size, Outcome, RuleSet, RuleSetEntry};
use crate::board::Board;
use crate::piece::{DropShape, Piece, Shape};
use crate::placement::Placement;
use crate::randomizer::RandomizerKind;

/// Grid width.
pub const WIDTH: usize = 10;
/// Grid height, hidden rows included.
pub const HEIGHT: usize = 22;
/// The first hidden row (counted from the floor): rows 20 and 21 are his rows 1 and 0.
pub const HIDDEN_FROM_ROW: usize = 20;

pub const ENTRY: RuleSetEntry = RuleSetEntry {
    name: "lee",
    summary: "Yiyuan Lee's game: 10x22 with 2 hidden rows, 7-bag, one preview, his rotation and left-then-right sweep",
    build: |size| {
        fixed_size("lee", size, (WIDTH, HEIGHT))?;
        Ok(Box::new(Lee::new()))
    },
};

/// His spawn matrices, top row first (`piece.js`; they are the SRS spawn states).
const SPAWN_MATRICES: [(Piece, &[&str]); 7] = [
    (Piece::O, &["XX", "XX"]),
    (Piece::J, &["X..", "XXX", "..."]),
    (Piece::L, &["..X", "XXX", "..."]),
    (Piece::Z, &["XX.", ".XX", "..."]),
    (Piece::S, &[".XX", "XX.", "..."]),
    (Piece::T, &[".X.", "XXX", "..."]),
    (Piece::I, &["....", "XXXX", "....", "...."]),
];

/// One rotation state of one of his piece matrices.
#[derive(Clone, Copy, Debug)]
struct Matrix {
    /// Matrix rows, top first; bit `c` = matrix column `c` filled.
    rows: [u16; 4],
    /// Side of the square matrix (2, 3 or 4).
    size: i8,
    /// Leftmost and rightmost filled matrix columns.
    first_column: i8,
    last_column: i8,
    /// Lowest filled matrix row, counted from the matrix top.
    last_row: i8,
    /// The same cells packed for our board (rows up).
    shape: DropShape,
}

impl Matrix {
    fn parse(text: &[&str]) -> Matrix {
        let mut rows = [0u16; 4];
        for (r, line) in text.iter().enumerate() {
            for (c, ch) in line.chars().enumerate() {
                if ch == 'X' {
                    rows[r] |= 1 << c;
                }
            }
        }
        Matrix::from_rows(rows, text.len() as i8)
    }

    fn from_rows(rows: [u16; 4], size: i8) -> Matrix {
        let mut cells = Vec::with_capacity(4);
        for (r, &mask) in rows.iter().enumerate() {
            for c in 0..size {
                if mask >> c & 1 == 1 {
                    // Rows go up on our board, down in his matrix.
                    cells.push((c, -(r as i8)));
                }
            }
        }
        let cells: [(i8, i8); 4] = cells.try_into().expect("a tetromino has four cells");
        let shape = Shape::new(cells);
        Matrix {
            rows,
            size,
            first_column: shape.min_x(),
            last_column: shape.max_x(),
            last_row: -shape.min_y(),
            shape: shape.drop_shape(),
        }
    }

    /// The matrix turned a quarter clockwise: new cell (r, c) = old cell (size-1-c, r).
    fn rotated_clockwise(&self) -> Matrix {
        let n = self.size as usize;
        let mut rows = [0u16; 4];
        for (r, row) in rows.iter_mut().enumerate().take(n) {
            for c in 0..n {
                if self.rows[n - 1 - c] >> r & 1 == 1 {
                    *row |= 1 << c;
                }
            }
        }
        Matrix::from_rows(rows, self.size)
    }

    /// Whether the matrix with its top-left corner at his `row` (from the top) and
    /// `column` lies inside the grid on empty cells (his `Grid.valid`).
    #[inline]
    fn fits(&self, board: &Board, row: i8, column: i8) -> bool {
        if column + self.first_column < 0 || column + self.last_column >= WIDTH as i8 {
            return false;
        }
        for r in 0..self.size {
            let mask = self.rows[r as usize];
            if mask == 0 {
                continue;
            }
            let grid_row = row + r;
            if grid_row < 0 || grid_row >= HEIGHT as i8 {
                return false;
            }
            let shifted = if column >= 0 { mask << column } else { mask >> -column };
            if board.row(HEIGHT - 1 - grid_row as usize) & shifted != 0 {
                return false;
            }
        }
        true
    }

    /// Our box bottom row after dropping from his `row` at `column` (his `moveDown` until
    /// blocked). The position fits.
    #[inline]
    fn landing_row(&self, board: &Board, row: i8, column: i8) -> usize {
        let left = (column + self.first_column) as usize;
        let start = HEIGHT as isize - 1 - (row + self.last_row) as isize;
        let resting = self.shape.drop_row(board.heights(), left) as isize;
        // From above every covered column's top the fall ends where the column heights say;
        // a piece starting lower (interlocked with a stack reaching the top rows) falls
        // step by step.
        if resting <= start {
            return resting as usize;
        }
        let masks = self.shape.masks_at(left);
        let collides = |y: isize| (0..self.shape.height as usize).any(|i| board.collides_row(y + i as isize, masks[i]));
        let mut y = start;
        while !collides(y - 1) {
            y -= 1;
        }
        y as usize
    }
}

/// Where his piece is: which rotation state of its matrix, and the matrix's top-left
/// corner as his row (from the top, may be negative after an upward kick) and column
/// (may be negative when the matrix's left columns are empty).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Position {
    state: u8,
    row: i8,
    column: i8,
}

/// Yiyuan Lee's rule set.
pub struct Lee {
    /// `matrices[piece][k]` = the spawn matrix turned `k` quarters clockwise.
    matrices: [[Matrix; 4]; 7],
}

impl Lee {
    pub fn new() -> Lee {
        let matrices = Piece::ALL.map(|piece| {
            let (_, text) = SPAWN_MATRICES.iter().find(|(p, _)| *p == piece).expect("every piece has a matrix");
            let spawn = Matrix::parse(text);
            let one = spawn.rotated_clockwise();
            let two = one.rotated_clockwise();
            let three = two.rotated_clockwise();
            [spawn, one, two, three]
        });
        Lee { matrices }
    }

    #[inline]
    fn matrix(&self, piece: Piece, state: u8) -> &Matrix {
        &self.matrices[piece.index()][state as usize]
    }

    /// His spawn position: matrix top in grid row 0, column `floor((10 - size) / 2)`.
    fn spawn(&self, piece: Piece) -> Position {
        let size = self.matrix(piece, 0).size;
        Position { state: 0, row: 0, column: (WIDTH as i8 - size) / 2 }
    }

    /// One clockwise turn with his kick search; unchanged when nothing fits.
    fn rotate(&self, board: &Board, piece: Piece, from: Position) -> Position {
        let state = (from.state + 1) % 4;
        let turned = self.matrix(piece, state);
        let reach = turned.size - 1;
        // Column offsets to the right first, then to the left (0 comes twice in his search,
        // harmlessly); for each, row offsets 0 then upwards.
        let columns = (0..reach).chain((0..reach).map(|i| -i));
        for dc in columns {
            for up in 0..reach {
                let (row, column) = (from.row - up, from.column + dc);
                if turned.fits(board, row, column) {
                    return Position { state, row, column };
                }
            }
        }
        from
    }
}

impl Default for Lee {
    fn default() -> Self {
        Self::new()
    }
}

impl RuleSet for Lee {
    fn name(&self) -> &'static str {
        "lee"
    }
    fn version(&self) -> &'static str {
        "lee/1"
    }
    fn describe(&self) -> String {
        "lee 10x22 (2 hidden rows, 7-bag, one preview, his rotation and left-then-right sweep, \
         game over when a hidden row holds a cell after clearing)"
            .into()
    }
    fn new_board(&self) -> Board {
        Board::new(WIDTH, HEIGHT)
    }
    fn randomizer(&self) -> RandomizerKind {
        RandomizerKind::SevenBag
    }
    fn preview(&self) -> usize {
        1
    }
    /// His loop order: rotation 0..3 from spawn, then columns from the leftmost reachable
    /// rightwards; duplicates kept (the O four times).
    fn candidates(&self, board: &Board, piece: Piece, out: &mut Vec<Placement>) {
        out.clear();
        let spawn = self.spawn(piece);
        let mut position = spawn;
        for rotation in 0..4u8 {
            if rotation > 0 {
                position = self.rotate(board, piece, position);
            }
            let matrix = self.matrix(piece, position.state);
            let row = position.row;
            let mut column = position.column;
            // Moving left checks only the cells moved into (his `canMoveLeft`), so a piece
            // spawned onto cells can still slide out of them.
            while matrix.fits(board, row, column - 1) {
                column -= 1;
            }
            while matrix.fits(board, row, column) {
                let bottom = matrix.landing_row(board, row, column);
                out.push(Placement {
                    piece,
                    orientation: rotation,
                    column,
                    shift: column - spawn.column,
                    left: (column + matrix.first_column) as u8,
                    bottom: bottom as u8,
                    shape: matrix.shape,
                });
                column += 1;
            }
        }
    }
    /// Full rows are removed before the hidden rows are checked (`game_manager.js`).
    fn lock(&self, board: &mut Board, placement: &Placement) -> Outcome {
        let info = placement.apply(board);
        Outcome { info, score: 0, game_over: board.has_cells_from(HIDDEN_FROM_ROW) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(text: &str) -> Board {
        Board::parse(text, Some(WIDTH), HEIGHT).unwrap()
    }

    fn labels(out: &[Placement]) -> Vec<(u8, i8)> {
        out.iter().map(|p| (p.orientation, p.column)).collect()
    }

    #[test]
    fn matrices_turn_clockwise() {
        let rules = Lee::new();
        // T: spawn points up; one turn points right (cells in matrix column 1 and (1, 2)).
        let t1 = rules.matrix(Piece::T, 1);
        assert_eq!(&t1.rows[..3], &[0b010, 0b110, 0b010]);
        // I: second row, then third column, third row, second column.
        let i = |k| rules.matrix(Piece::I, k).rows;
        assert_eq!(i(0), [0, 0b1111, 0, 0]);
        assert_eq!(i(1), [0b100; 4]);
        assert_eq!(i(2), [0, 0, 0b1111, 0]);
        assert_eq!(i(3), [0b010; 4]);
        assert_eq!(rules.spawn(Piece::O).column, 4);
        assert_eq!(rules.spawn(Piece::T).column, 3);
        assert_eq!(rules.spawn(Piece::I).column, 3);
    }

    #[test]
    fn candidate_order_on_an_empty_board() {
        let rules = Lee::new();
        let empty = rules.new_board();
        let mut out = Vec::new();
        rules.candidates(&empty, Piece::T, &mut out);
        // Rotation 0: columns 0..7; rotation 1 (cells in matrix columns 1-2): -1..7;
        // rotation 2: 0..7; rotation 3 (matrix columns 0-1): 0..8.
        let mut want: Vec<(u8, i8)> = (0..=7).map(|c| (0, c)).collect();
        want.extend((-1..=7).map(|c| (1, c)));
        want.extend((0..=7).map(|c| (2, c)));
        want.extend((0..=8).map(|c| (3, c)));
        assert_eq!(labels(&out), want);
        // Straight drops onto the floor; the upright T at column -1 has its stem in column 0.
        assert!(out.iter().all(|p| p.bottom == 0));
        assert_eq!((out[8].left, out[8].shape.width, out[8].shape.height), (0, 2, 3));
        // The O is evaluated four times over its nine columns.
        rules.candidates(&empty, Piece::O, &mut out);
        assert_eq!(out.len(), 36);
        assert_eq!(labels(&out[9..11]), vec![(1, 0), (1, 1)]);
        // The I: flat 0..6, upright -2..7, flat 0..6, upright -1..8.
        rules.candidates(&empty, Piece::I, &mut out);
        assert_eq!(out.len(), 7 + 10 + 7 + 10);
        assert_eq!(labels(&out[7..8]), vec![(1, -2)]);
        assert_eq!(out[7].left, 0);
        assert_eq!(labels(&out[24..25]), vec![(3, -1)]);
        for piece in [Piece::S, Piece::Z, Piece::J, Piece::L] {
            rules.candidates(&empty, piece, &mut out);
            assert_eq!(out.len(), 34, "{piece}");
        }
    }

    #[test]
    fn kicks_and_blocked_slides_follow_his_search() {
        let rules = Lee::new();
        // One cell in the top visible row (his row 2), column 4: the T turned in place at
        // column 3 would overlap it, lifting it is impossible (its top cell would leave the
        // grid), so his search kicks it one column right, and nothing lets it slide back.
        let mut b = rules.new_board();
        b.set(4, 19);
        let mut out = Vec::new();
        rules.candidates(&b, Piece::T, &mut out);
        let by_rotation = |k: u8| -> Vec<i8> { out.iter().filter(|p| p.orientation == k).map(|p| p.column).collect() };
        assert_eq!(by_rotation(0), (0..=7).collect::<Vec<_>>());
        assert_eq!(by_rotation(1), (4..=7).collect::<Vec<_>>());
        assert_eq!(by_rotation(2), (4..=7).collect::<Vec<_>>());
        assert_eq!(by_rotation(3), (4..=8).collect::<Vec<_>>());
        // The flat T over column 4 rests on the floating cell.
        let over = out.iter().find(|p| p.orientation == 0 && p.column == 3).unwrap();
        assert_eq!(over.bottom, 20);
    }

    #[test]
    fn rotation_that_cannot_fit_keeps_the_previous_state() {
        let rules = Lee::new();
        // Cells in the top visible row at columns 3..=7: the upright I (our rows 18..21)
        // fits at none of the columns its kicks reach (5 +0, +1, +2, -1, -2), and lifting it
        // would push its top cell out of the grid. Every rotate fails, so rotations 1, 2
        // and 3 are the flat spawn I again, labelled with their rotation count.
        let mut b = rules.new_board();
        for x in 3..=7 {
            b.set(x, 19);
        }
        let mut out = Vec::new();
        rules.candidates(&b, Piece::I, &mut out);
        let mut want = Vec::new();
        for rotation in 0..4 {
            want.extend((0..=6).map(|c| (rotation, c)));
        }
        assert_eq!(labels(&out), want);
        assert!(out.iter().all(|p| p.shape.width == 4 && p.bottom == 20), "{out:?}");
    }

    #[test]
    fn a_piece_spawned_onto_cells_slides_out_left() {
        let rules = Lee::new();
        // A cell in hidden row 20 at column 5 overlaps the spawned T's flat row (his row 1).
        // Only the second-piece search meets such boards.
        let mut b = rules.new_board();
        b.set(5, 20);
        let mut out = Vec::new();
        rules.candidates(&b, Piece::T, &mut out);
        let columns = |k: u8| -> Vec<i8> { out.iter().filter(|p| p.orientation == k).map(|p| p.column).collect() };
        // Moving left checks only the cells moved into, so the overlapping T slides to the
        // wall, then sweeps right until it meets the cell again.
        assert_eq!(columns(0), vec![0, 1, 2]);
        // Turned in place, or one column right, it still overlaps; the first kick that fits
        // is one column left (column 2), from where it slides to -1 and sweeps to 2.
        assert_eq!(columns(1), vec![-1, 0, 1, 2]);
    }

    #[test]
    fn a_piece_starting_under_a_column_top_falls_past_it() {
        let rules = Lee::new();
        // A cell in hidden row 21, column 0 (a board only the second-piece search sees). The
        // T pointing down at his column 0 spans our rows 19-20 under that cell, so it falls
        // from there to the floor; a drop from above the stack would stop it on the cell.
        let mut b = rules.new_board();
        b.set(0, 21);
        let mut out = Vec::new();
        rules.candidates(&b, Piece::T, &mut out);
        let down = out.iter().find(|p| p.orientation == 2 && p.column == 0).unwrap();
        assert_eq!((down.left, down.bottom), (0, 0));
    }

    #[test]
    fn game_over_is_judged_after_clearing() {
        let rules = Lee::new();
        let mut out = Vec::new();
        // An O landing in the two hidden rows ends the game.
        let mut b = rules.new_board();
        b.set(4, 19);
        b.set(5, 19);
        rules.candidates(&b, Piece::O, &mut out);
        let o = *out.iter().find(|p| p.left == 4).unwrap();
        assert_eq!(o.bottom, 20);
        let outcome = rules.lock(&mut b, &o);
        assert_eq!(outcome.info.rows_cleared, 0);
        assert!(outcome.game_over);
        // An upright I whose top cell lands in hidden row 20 but which completes rows
        // 17..=20 leaves no hidden cell once they are removed: the game goes on.
        let mut text = String::new();
        for _ in 17..=20 {
            text.push_str(".XXXXXXXXX\n");
        }
        for _ in 0..17 {
            text.push_str("XXXXXXXXX.\n");
        }
        let mut b = board(&text);
        rules.candidates(&rules.new_board(), Piece::I, &mut out);
        let mut upright = *out.iter().find(|p| p.orientation == 1 && p.left == 0).unwrap();
        upright.bottom = 17;
        let outcome = rules.lock(&mut b, &upright);
        assert_eq!(outcome.info.rows_cleared, 4);
        assert!(!outcome.game_over);
        assert_eq!(b.max_height(), 17);
    }

    /// The `lee` preset's choice (current piece, one preview piece) on `board`.
    fn lee_choice(board: &Board, current: Piece, preview: &[Piece]) -> crate::policy::Decision {
        let built = crate::presets::find("lee").unwrap().build(None, None).unwrap();
        let view = crate::policy::GameView { board, current, preview, hold: None, can_hold: false };
        let mut scratch = crate::policy::Scratch::default();
        built.policy.choose(built.rules.as_ref(), &view, &mut scratch).unwrap()
    }

    #[test]
    fn golden_two_piece_leaf_scores() {
        // golden.md: best T placement with I as the preview piece, B0..B4; the labels are
        // what his `ai.js` chooses (rotation count, his column).
        let want = [(0, 0, -4.633977), (2, 1, -18.241925), (2, 7, -14.518027), (2, 0, -17.275574), (3, 1, -13.945314)];
        for (board, (orientation, column, value)) in crate::features::test_boards::golden(HEIGHT).iter().zip(want) {
            let decision = lee_choice(board, Piece::T, &[Piece::I]);
            assert!((decision.value - value).abs() < 5e-7, "{board:?} {} != {value}", decision.value);
            let label = (decision.placement.orientation, decision.placement.column);
            assert_eq!(label, (orientation, column), "{board:?}");
        }
    }

    #[test]
    fn complete_lines_are_counted_on_the_uncleared_leaf() {
        // Four rows full but column 9; current I, preview I. The best leaves hold four full
        // rows, still on the board: 44 cells without holes (aggregate height 44), 4 complete
        // lines, bumpiness 1 (heights 5,5,5,5,4,...). The first such first placement in his
        // loop is the flat I at column 0, the second I upright in column 9. Clearing between
        // or at the leaf would score far higher (about -2.2 or 0).
        let b = board("XXXXXXXXX.\nXXXXXXXXX.\nXXXXXXXXX.\nXXXXXXXXX.");
        let decision = lee_choice(&b, Piece::I, &[Piece::I]);
        let want = -0.510066 * 44.0 + 0.760666 * 4.0 - 0.184483 * 1.0;
        assert!((decision.value - want).abs() < 1e-9, "{} != {want}", decision.value);
        assert_eq!((decision.placement.orientation, decision.placement.column), (0, 0));
    }
}
