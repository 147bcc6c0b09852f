//! `standard`: Colin Fahey's Standard Tetris (2003-2007), the "original rules" of the
//! literature, as his C++ program plays it with an AI (read from `misakamm/StandardTetris`,
//! the first commit, which is Fahey's own code; later commits of that fork move the spawn).
//!
//! - 10 x 20, no hidden rows, pieces i.i.d. uniform, no hold (the preview is unused).
//! - A piece spawns in its first orientation with its origin at column 5 of the top row
//!   (Fahey's x = 1 + W/2 and y = H, counting from 1); if it overlaps the stack the game is
//!   over. It then falls one row, and only there (origin in row 18) does the AI act: if it
//!   cannot fall, it lands where it spawned with no decision.
//! - The AI tries rotations 0..n-1 (n = distinct orientations, each a counter-clockwise
//!   quarter turn of the previous about the origin); an orientation counts only if it fits
//!   at the decision position, and for it every shift reachable by single steps from there
//!   (scanning left, then right, until the first collision), in ascending order.
//! - The game then presses rotate k times and left/right |dx| times, each press applied
//!   only if the piece fits afterwards, so a rotation through a blocked orientation is lost
//!   even though the AI rated the move; then the piece drops as far as it can (a real drop,
//!   which can slide under an overhang the piece is already below).
//! - Rows are collapsed bottom-up over every row but the top one: the top row is removed
//!   only when a lower row is removed with it (it moves down and is then checked). A lone
//!   full top row stays, is not counted, and ends the game at the next spawn; only a piece
//!   that landed at spawn can complete it. Rated moves see that same board, with the top
//!   row counted among completed rows for eroded cells.

use super::{fixed_size, Outcome, RuleSet, RuleSetEntry};
use crate::board::Board;
use crate::piece::{DropShape, Piece, Shape};
use crate::placement::{Placement, PlacementInfo};
use crate::randomizer::RandomizerKind;

pub const ENTRY: RuleSetEntry = RuleSetEntry {
    name: "standard",
    summary: "Fahey's Standard Tetris: 10x20, spawn in the top rows, rotate/shift at spawn height, then drop",
    build: |size| {
        fixed_size("standard", size, (WIDTH, HEIGHT))?;
        Ok(Box::new(Standard::new()))
    },
};

const WIDTH: usize = 10;
const HEIGHT: usize = 20;
/// Origin column of a spawned piece: Fahey's x = 1 + W/2 counted from 1.
pub const SPAWN_COLUMN: i32 = (WIDTH / 2) as i32;
/// Origin row of a spawned piece: the top row (Fahey's y = H counted from 1).
pub const SPAWN_ROW: i32 = HEIGHT as i32 - 1;
/// Origin row where the AI decides: one row below the spawn.
pub const DECISION_ROW: i32 = SPAWN_ROW - 1;

/// Box bottom row where `shape`, its box at (`left`, `start`), comes to rest falling one row
/// at a time (the start is assumed free).
pub(super) fn drop_from(board: &Board, shape: &DropShape, left: usize, start: usize) -> usize {
    // Resting on the column tops is where a fall from above the stack ends; a piece that
    // starts lower (under an overhang) needs the row-by-row fall.
    let on_tops = shape.drop_row(board.heights(), left);
    if on_tops <= start {
        return on_tops;
    }
    let masks = shape.masks_at(left);
    let mut bottom = start;
    while bottom > 0 && (0..shape.height as usize).all(|i| board.row(bottom - 1 + i) & masks[i] == 0) {
        bottom -= 1;
    }
    bottom
}

/// Fahey's piece table: cells as (column, row) offsets from the origin, rows up, in his
/// orientation order (only the distinct orientations: his table repeats them for O, I, S
/// and Z, and his rotation cycles modulo the distinct count).
fn fahey_orientations(piece: Piece) -> &'static [[(i8, i8); 4]] {
    match piece {
        Piece::O => &[[(-1, -1), (0, -1), (0, 0), (-1, 0)]],
        Piece::I => &[[(-2, 0), (-1, 0), (0, 0), (1, 0)], [(0, -2), (0, -1), (0, 0), (0, 1)]],
        Piece::S => &[[(-1, -1), (0, -1), (0, 0), (1, 0)], [(1, -1), (0, 0), (1, 0), (0, 1)]],
        Piece::Z => &[[(0, -1), (1, -1), (-1, 0), (0, 0)], [(0, -1), (0, 0), (1, 0), (1, 1)]],
        Piece::L => &[
            [(-1, -1), (-1, 0), (0, 0), (1, 0)],
            [(0, -1), (1, -1), (0, 0), (0, 1)],
            [(-1, 0), (0, 0), (1, 0), (1, 1)],
            [(0, -1), (0, 0), (-1, 1), (0, 1)],
        ],
        Piece::J => &[
            [(1, -1), (-1, 0), (0, 0), (1, 0)],
            [(0, -1), (0, 0), (0, 1), (1, 1)],
            [(-1, 0), (0, 0), (1, 0), (-1, 1)],
            [(-1, -1), (0, -1), (0, 0), (0, 1)],
        ],
        Piece::T => &[
            [(0, -1), (-1, 0), (0, 0), (1, 0)],
            [(0, -1), (0, 0), (1, 0), (0, 1)],
            [(-1, 0), (0, 0), (1, 0), (0, 1)],
            [(0, -1), (-1, 0), (0, 0), (0, 1)],
        ],
    }
}

/// Fahey's Standard Tetris.
pub struct Standard {
    /// `orientations[piece][k]`: orientation `k` (Fahey's `k + 1`) packed for drops.
    orientations: [Vec<DropShape>; 7],
}

impl Default for Standard {
    fn default() -> Self {
        Self::new()
    }
}

impl Standard {
    pub fn new() -> Standard {
        let orientations = Piece::ALL
            .map(|piece| fahey_orientations(piece).iter().map(|&cells| Shape::new(cells).drop_shape()).collect());
        Standard { orientations }
    }

    /// Whether orientation `shape` with its origin at (`column`, `row`) lies on the board
    /// and overlaps nothing (Fahey's "goal acceptable").
    #[inline]
    fn fits(board: &Board, shape: &DropShape, column: i32, row: i32) -> bool {
        let left = column + shape.origin_to_left as i32;
        let bottom = row + shape.origin_to_bottom as i32;
        if left < 0
            || bottom < 0
            || left + shape.width as i32 > WIDTH as i32
            || bottom + shape.height as i32 > HEIGHT as i32
        {
            return false;
        }
        let masks = shape.masks_at(left as usize);
        (0..shape.height as usize).all(|i| board.row(bottom as usize + i) & masks[i] == 0)
    }

    /// The placement of orientation `k` with its origin at (`column`, `row`), dropped as far
    /// as it goes from there when `drop`.
    #[inline]
    fn placement(
        board: &Board,
        piece: Piece,
        k: usize,
        shape: &DropShape,
        column: i32,
        row: i32,
        drop: bool,
    ) -> Placement {
        let left = (column + shape.origin_to_left as i32) as usize;
        let start = (row + shape.origin_to_bottom as i32) as usize;
        let bottom = if drop { drop_from(board, shape, left, start) } else { start };
        Placement {
            piece,
            orientation: k as u8,
            column: column as i8,
            shift: (column - SPAWN_COLUMN) as i8,
            left: left as u8,
            bottom: bottom as u8,
            shape: *shape,
        }
    }

    /// The spawned piece locked where it spawned: what happens when it cannot fall a row.
    fn landed_at_spawn(board: &Board, piece: Piece, first: &DropShape) -> Placement {
        Self::placement(board, piece, 0, first, SPAWN_COLUMN, SPAWN_ROW, false)
    }

    /// What the game does with the AI's choice: the rotations and shifts pressed one at a
    /// time from the decision position (each applied only if the piece then fits), then the
    /// drop.
    fn executed(&self, board: &Board, chosen: &Placement) -> Placement {
        let piece = chosen.piece;
        let shapes = &self.orientations[piece.index()];
        if !Self::fits(board, &shapes[0], SPAWN_COLUMN, DECISION_ROW) {
            return Self::landed_at_spawn(board, piece, &shapes[0]);
        }
        let mut k = 0;
        for _ in 0..chosen.orientation {
            let next = (k + 1) % shapes.len();
            if Self::fits(board, &shapes[next], SPAWN_COLUMN, DECISION_ROW) {
                k = next;
            }
        }
        let step = chosen.shift.signum() as i32;
        let mut column = SPAWN_COLUMN;
        for _ in 0..chosen.shift.unsigned_abs() {
            if Self::fits(board, &shapes[k], column + step, DECISION_ROW) {
                column += step;
            }
        }
        Self::placement(board, piece, k, &shapes[k], column, DECISION_ROW, true)
    }

    /// Writes the placement and collapses rows as Fahey does. Returns what his AI sees
    /// (every full row counted, the top one included) and the number of rows removed.
    fn settle(board: &mut Board, placement: &Placement) -> (PlacementInfo, u8) {
        placement.write(board);
        let bottom = placement.bottom as usize;
        let height = placement.shape.height as usize;
        let full = board.full_rows_in(bottom, height);
        let masks = placement.shape.masks_at(placement.left as usize);
        let piece_cells_cleared: u32 =
            (0..height).filter(|&i| full >> (bottom + i) & 1 == 1).map(|i| masks[i].count_ones()).sum();
        let info = PlacementInfo {
            placed: true,
            lowest_row: placement.bottom,
            highest_row: placement.highest_row() as u8,
            rows_cleared: full.count_ones() as u8,
            piece_cells_cleared: piece_cells_cleared as u8,
        };
        // The collapse loop stops below the top row; a full top row is only reached after a
        // lower full row was removed and it moved down.
        if full == 1 << (HEIGHT - 1) {
            return (info, 0);
        }
        board.remove_rows(full);
        (info, full.count_ones() as u8)
    }
}

impl RuleSet for Standard {
    fn name(&self) -> &'static str {
        "standard"
    }
    fn version(&self) -> &'static str {
        "standard/1"
    }
    fn describe(&self) -> String {
        "standard 10x20 (Fahey: uniform pieces, spawn in the top rows, rotate/shift at spawn height, drop)".into()
    }
    fn new_board(&self) -> Board {
        Board::new(WIDTH, HEIGHT)
    }
    fn randomizer(&self) -> RandomizerKind {
        RandomizerKind::Uniform
    }
    fn can_spawn(&self, board: &Board, piece: Piece) -> bool {
        Self::fits(board, &self.orientations[piece.index()][0], SPAWN_COLUMN, SPAWN_ROW)
    }
    fn candidates(&self, board: &Board, piece: Piece, out: &mut Vec<Placement>) {
        out.clear();
        let shapes = &self.orientations[piece.index()];
        if !Self::fits(board, &shapes[0], SPAWN_COLUMN, DECISION_ROW) {
            if self.can_spawn(board, piece) {
                out.push(Self::landed_at_spawn(board, piece, &shapes[0]));
            }
            return;
        }
        for (k, shape) in shapes.iter().enumerate() {
            if !Self::fits(board, shape, SPAWN_COLUMN, DECISION_ROW) {
                continue;
            }
            let mut low = SPAWN_COLUMN;
            while Self::fits(board, shape, low - 1, DECISION_ROW) {
                low -= 1;
            }
            let mut high = SPAWN_COLUMN;
            while Self::fits(board, shape, high + 1, DECISION_ROW) {
                high += 1;
            }
            for column in low..=high {
                out.push(Self::placement(board, piece, k, shape, column, DECISION_ROW, true));
            }
        }
    }
    fn apply(&self, board: &mut Board, placement: &Placement) -> PlacementInfo {
        Self::settle(board, placement).0
    }
    fn lock(&self, board: &mut Board, placement: &Placement) -> Outcome {
        let executed = self.executed(board, placement);
        let (mut info, removed) = Self::settle(board, &executed);
        if removed == 0 {
            info.rows_cleared = 0;
            info.piece_cells_cleared = 0;
        }
        Outcome { info, score: 0, game_over: false }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    fn board(text: &str) -> Board {
        Board::parse(text, Some(WIDTH), HEIGHT).unwrap()
    }

    /// (orientation, shift, box left, box bottom) of every candidate, in loop order.
    fn listed(rules: &Standard, board: &Board, piece: Piece) -> Vec<(u8, i8, u8, u8)> {
        let mut out = Vec::new();
        rules.candidates(board, piece, &mut out);
        out.iter().map(|p| (p.orientation, p.shift, p.left, p.bottom)).collect()
    }

    #[test]
    fn orientations_turn_counter_clockwise_about_the_origin() {
        for piece in Piece::ALL {
            let table = fahey_orientations(piece);
            let expected = match piece {
                Piece::O => 1,
                Piece::I | Piece::S | Piece::Z => 2,
                _ => 4,
            };
            assert_eq!(table.len(), expected, "{piece}");
            // Each orientation is the previous one turned a quarter counter-clockwise about
            // the origin (the two-orientation pieces flip back instead of turning on).
            for k in 1..table.len() {
                let mut turned = Shape::new(table[k - 1]).rotated_clockwise(3).cells;
                let mut next = table[k];
                turned.sort();
                next.sort();
                assert_eq!(turned, next, "{piece} orientation {k}");
            }
            // Every orientation holds the origin cell, so a spawn needs (5, 19) empty.
            assert!(table.iter().all(|cells| cells.contains(&(0, 0))), "{piece}");
        }
    }

    #[test]
    fn spawn_shapes_fill_the_top_two_rows() {
        let rules = Standard::new();
        let empty = rules.new_board();
        let spawned = |piece: Piece| {
            let mut b = empty;
            Standard::landed_at_spawn(&empty, piece, &rules.orientations[piece.index()][0]).write(&mut b);
            b.to_text(Some(HEIGHT)).lines().take(2).collect::<Vec<_>>().join("/")
        };
        assert_eq!(spawned(Piece::I), "...####.../..........");
        assert_eq!(spawned(Piece::O), "....##..../....##....");
        assert_eq!(spawned(Piece::T), "....###.../.....#....");
        assert_eq!(spawned(Piece::S), ".....##.../....##....");
        assert_eq!(spawned(Piece::Z), "....##..../.....##...");
        assert_eq!(spawned(Piece::L), "....###.../....#.....");
        assert_eq!(spawned(Piece::J), "....###.../......#...");
    }

    #[test]
    fn empty_board_candidates_in_fahey_order() {
        let rules = Standard::new();
        let empty = rules.new_board();
        let counts = [
            (Piece::I, 17),
            (Piece::O, 9),
            (Piece::T, 34),
            (Piece::S, 17),
            (Piece::Z, 17),
            (Piece::J, 34),
            (Piece::L, 34),
        ];
        for (piece, count) in counts {
            assert_eq!(listed(&rules, &empty, piece).len(), count, "{piece}");
        }
        let t = listed(&rules, &empty, Piece::T);
        // Orientation 0 (pointing down) from shift -4 (origin column 1) to +3, on the floor.
        assert_eq!(t[0], (0, -4, 0, 0));
        assert_eq!(t[7], (0, 3, 7, 0));
        // Orientation 1 (stem right) reaches the left wall with its origin in column 0.
        assert_eq!(t[8], (1, -5, 0, 0));
        assert_eq!(t[16], (1, 3, 8, 0));
        let i = listed(&rules, &empty, Piece::I);
        assert_eq!(i[0], (0, -3, 0, 0));
        assert_eq!(i[7], (1, -5, 0, 0));
        assert_eq!(i[16], (1, 4, 9, 0));
        let mut out = Vec::new();
        rules.candidates(&empty, Piece::J, &mut out);
        assert!(out.iter().all(|p| p.column == SPAWN_COLUMN as i8 + p.shift));
    }

    #[test]
    fn the_stack_blocks_shifts_at_spawn_height() {
        let rules = Standard::new();
        // Column 2 stands 19 rows high: nothing passes it at the decision row (18).
        let mut wall = String::new();
        for _ in 0..19 {
            wall.push_str("..#.......\n");
        }
        let b = board(&wall);
        let i = listed(&rules, &b, Piece::I);
        // Flat I: origin 5..8 (cells from column 3); vertical I: origin 3..9.
        let flat: Vec<_> = i.iter().filter(|c| c.0 == 0).map(|c| c.1).collect();
        let upright: Vec<_> = i.iter().filter(|c| c.0 == 1).map(|c| c.1).collect();
        assert_eq!(flat, vec![0, 1, 2, 3]);
        assert_eq!(upright, (-2..=4).collect::<Vec<_>>());
        assert!(i.iter().all(|c| c.2 >= 3), "columns 0-1 are unreachable: {i:?}");
    }

    #[test]
    fn a_blocked_orientation_is_skipped_and_its_rotation_is_lost_when_played() {
        let rules = Standard::new();
        // Column 6 is 18 rows high: L orientation 1 at the decision position needs (6, 17).
        let mut text = String::new();
        for _ in 0..18 {
            text.push_str("......#...\n");
        }
        let b = board(&text);
        let l = listed(&rules, &b, Piece::L);
        let by_orientation = |k: u8| l.iter().filter(|c| c.0 == k).map(|c| c.1).collect::<Vec<_>>();
        assert_eq!(by_orientation(0), (-4..=1).collect::<Vec<_>>());
        assert!(by_orientation(1).is_empty());
        assert_eq!(by_orientation(2), (-4..=3).collect::<Vec<_>>());
        assert_eq!(by_orientation(3), (-4..=0).collect::<Vec<_>>());
        // Choosing orientation 2 presses rotate twice; both presses try the blocked
        // orientation 1, so the piece stays in orientation 0 and shifts 4 left.
        let mut out = Vec::new();
        rules.candidates(&b, Piece::L, &mut out);
        let chosen = out.iter().find(|p| p.orientation == 2 && p.shift == -4).unwrap();
        let played = rules.executed(&b, chosen);
        assert_eq!((played.orientation, played.shift, played.left, played.bottom), (0, -4, 0, 0));
        let mut after = b;
        rules.lock(&mut after, chosen);
        assert!(after.is_filled(0, 0) && after.is_filled(0, 1) && after.is_filled(2, 1));
    }

    #[test]
    fn the_drop_is_real_from_spawn_height() {
        let rules = Standard::new();
        // A lone cell in the top row over column 9: an O with its origin in column 9 is
        // already below it at the decision row, so it drops to the floor; a drop from above
        // the board would have found no room.
        let b = board(&format!(".........#\n{}", "..........\n".repeat(19)));
        let o = listed(&rules, &b, Piece::O);
        assert_eq!(o.last(), Some(&(0, 4, 8, 0)));
        assert_eq!(o.len(), 9);
        // The upright I cannot be in column 9 at the decision row (it reaches the top row).
        let i = listed(&rules, &b, Piece::I);
        assert_eq!(i.iter().filter(|c| c.0 == 1).map(|c| c.1).max(), Some(3));
    }

    #[test]
    fn game_over_when_the_spawned_piece_overlaps() {
        let rules = Standard::new();
        let mut centre = rules.new_board();
        centre.set(5, 19);
        for piece in Piece::ALL {
            assert!(!rules.can_spawn(&centre, piece), "{piece}");
            assert!(rules.can_spawn(&rules.new_board(), piece), "{piece}");
        }
        // A cell at (3, 19) stops only the flat I (columns 3-6 of the top row).
        let mut side = rules.new_board();
        side.set(3, 19);
        for piece in Piece::ALL {
            assert_eq!(rules.can_spawn(&side, piece), piece != Piece::I, "{piece}");
        }
    }

    #[test]
    fn a_piece_that_cannot_fall_lands_at_spawn() {
        let rules = Standard::new();
        // Column 5 is 18 high: a T spawns (its stem at (5, 18)) but cannot fall a row.
        let b = board(&".....#....\n".repeat(18));
        assert!(rules.can_spawn(&b, Piece::T));
        let t = listed(&rules, &b, Piece::T);
        assert_eq!(t, vec![(0, 0, 4, 18)]);
        // The flat I (top row only) can fall and is free to move.
        assert!(listed(&rules, &b, Piece::I).len() > 1);
    }

    /// Only a piece that lands at spawn can fill the top row (after a drop from the
    /// decision row at most two cells reach it, fewer than the spawn cells it had to find
    /// empty), so these boards block the fall.
    fn blocked_fall(row18: &str) -> Board {
        board(&format!("####..####\n{row18}\n{}", "....##....\n".repeat(18)))
    }

    #[test]
    fn a_lone_full_top_row_stays_uncounted_and_ends_the_game() {
        let rules = Standard::new();
        let b = blocked_fall("..........");
        let mut out = Vec::new();
        rules.candidates(&b, Piece::O, &mut out);
        assert_eq!(out.len(), 1);
        let landed = out[0];
        assert_eq!((landed.left, landed.bottom), (4, 18));
        let mut seen = b;
        let info = rules.apply(&mut seen, &landed);
        assert_eq!((info.rows_cleared, info.piece_cells_cleared), (1, 2));
        assert_eq!(seen.row(19), seen.full_row(), "the row is kept");
        let mut played = b;
        let outcome = rules.lock(&mut played, &landed);
        assert_eq!(outcome.info.rows_cleared, 0);
        assert_eq!(played, seen);
        assert!(Piece::ALL.iter().all(|&p| !rules.can_spawn(&played, p)));
    }

    #[test]
    fn a_full_top_row_goes_with_a_lower_full_row() {
        let rules = Standard::new();
        let b = blocked_fall("####..####");
        let mut out = Vec::new();
        rules.candidates(&b, Piece::O, &mut out);
        let mut played = b;
        let outcome = rules.lock(&mut played, &out[0]);
        assert_eq!((outcome.info.rows_cleared, outcome.info.piece_cells_cleared), (2, 4));
        assert_eq!(played, board(&"....##....\n".repeat(18)));
    }

    /// (orientation, shift) the `dellacherie` preset chooses for `piece` on `board`.
    fn dellacherie_choice(board: &Board, piece: Piece) -> (u8, i8) {
        let built = crate::presets::find("dellacherie").unwrap().build(None, None).unwrap();
        let view = crate::policy::GameView { board, current: piece, preview: &[], hold: None, can_hold: false };
        let d = built.policy.choose(&*built.rules, &view, &mut Default::default()).unwrap();
        (d.placement.orientation, d.placement.shift)
    }

    #[test]
    fn fahey_priority_decides_an_exact_tie() {
        // Mirror-image notches: the T pointing right into column 8 (orientation 1, shift +3,
        // priority 300 - 1) and pointing left into column 1 (orientation 3, shift -4,
        // priority 400 + 10 - 3) rate the same. The later one in loop order wins on priority;
        // Fahey's program (run on this board) plays rotation 3, translation -4.
        let b = board("..######..\n..######..\n#.######.#");
        let rules = Standard::new();
        let evaluator = crate::presets::find("dellacherie").unwrap().evaluator().unwrap();
        let mut out = Vec::new();
        rules.candidates(&b, Piece::T, &mut out);
        let rating = |k: u8, shift: i8| {
            let p = out.iter().find(|p| p.orientation == k && p.shift == shift).unwrap();
            let mut after = b;
            let info = rules.apply(&mut after, p);
            evaluator.utility(&crate::features::FeatureContext::new(&after, info))
        };
        assert_eq!(rating(1, 3), rating(3, -4));
        let best = out.iter().map(|p| rating(p.orientation, p.shift)).fold(f64::NEG_INFINITY, f64::max);
        assert_eq!(rating(1, 3), best);
        assert_eq!(dellacherie_choice(&b, Piece::T), (3, -4));
    }

    #[test]
    fn chooses_as_fahey_where_moves_slide_under_overhangs() {
        // Fahey's program plays rotation 1, translation 0 here (clearing a row); candidates
        // that end under an overhang must be rated on the real board, not from column tops.
        let b = board(
            "##........\n#.........\n#####.....\n#####..#.#\n#####..###\n.#####.###\n\
             ######.###\n#########.\n####.#####\n#######.##\n###.######\n.#########\n\
             #########.\n########.#\n#####.####\n###.######\n##.#######\n#####.####\n#########.",
        );
        assert_eq!(dellacherie_choice(&b, Piece::S), (1, 0));
    }

    /// Pieces from a fixed 64-bit LCG (Knuth's MMIX constants, bits 33.. modulo the alphabet),
    /// so the sequences given to Fahey's program are reproducible here.
    pub(in crate::rules) fn lcg_pieces(seed: u64, letters: &str, count: usize) -> Vec<Piece> {
        let letters: Vec<char> = letters.chars().collect();
        let mut x = seed;
        (0..count)
            .map(|_| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                Piece::from_letter(letters[((x >> 33) % letters.len() as u64) as usize]).unwrap()
            })
            .collect()
    }

    /// What happened to one piece, as the trace of Fahey's program reports it.
    #[derive(Debug, PartialEq)]
    enum Turn {
        /// The AI's (rotation, translation) choice.
        Move(u8, i8),
        /// The piece could not fall from spawn and landed there without a decision.
        Landed,
    }

    /// Plays `pieces` with the `dellacherie` preset from `board`; returns every turn, the
    /// rows cleared, and the index of the piece that could not spawn (if any).
    fn play(mut board: Board, pieces: &[Piece]) -> (Vec<Turn>, u64, Option<usize>, Board) {
        let built = crate::presets::find("dellacherie").unwrap().build(None, None).unwrap();
        let (rules, policy) = (&*built.rules, &*built.policy);
        let mut scratch = Default::default();
        let (mut turns, mut rows) = (Vec::new(), 0);
        for (i, &piece) in pieces.iter().enumerate() {
            if !rules.can_spawn(&board, piece) {
                return (turns, rows, Some(i), board);
            }
            let view =
                crate::policy::GameView { board: &board, current: piece, preview: &[], hold: None, can_hold: false };
            let p = policy.choose(rules, &view, &mut scratch).unwrap().placement;
            // Only the piece that could not fall keeps orientation 0 with its box at spawn.
            let landed = p.orientation == 0 && p.bottom as i32 == SPAWN_ROW + p.shape.origin_to_bottom as i32;
            turns.push(if landed { Turn::Landed } else { Turn::Move(p.orientation, p.shift) });
            rows += rules.lock(&mut board, &p).info.rows_cleared as u64;
        }
        (turns, rows, None, board)
    }

    // The expectations below come from Fahey's own code (his board, piece and Dellacherie
    // strategy classes, driven turn by turn as his game loop drives them) on the same
    // boards and piece sequences.

    #[test]
    fn matches_fahey_move_for_move_through_a_lost_rotation_and_a_landing() {
        let start = board(
            ".##.#.#.#.\n###..###.#\n##.#.##.##\n#.####.#.#\n##.##....#\n#..###....\n\
             ##.#####.#\n..########\n###..#.###\n...######.\n###..#.#.#\n#####.#.##\n##.####...",
        );
        let pieces: Vec<Piece> = "LJJZZZSILZZ".chars().map(|c| Piece::from_letter(c).unwrap()).collect();
        let (turns, rows, over, _) = play(start, &pieces);
        use Turn::*;
        let expected = [
            Move(0, -4),
            Move(1, -2),
            Move(2, -4),
            Move(1, 0),
            Move(0, -4),
            Move(1, 2),
            Move(1, 1),
            Move(1, 0),
            // Rated as orientation 2 at shift -4, but played otherwise: a press is refused.
            Move(2, -4),
            Landed,
        ];
        assert_eq!(turns, expected);
        assert_eq!((rows, over), (0, Some(10)));
    }

    #[test]
    fn matches_fahey_over_two_thousand_uniform_pieces() {
        let (_, rows, over, end) = play(Board::new(WIDTH, HEIGHT), &lcg_pieces(1, "IOTSZJL", 2000));
        assert_eq!((rows, over), (796, None));
        let expected = ".........#\n....###.##\n....######\n....######\n....######\n.#..######\n.#########";
        assert_eq!(end, board(expected));
    }

    #[test]
    fn matches_fahey_to_the_end_of_a_game_heavy_in_s_and_z() {
        let (turns, rows, over, _) = play(Board::new(WIDTH, HEIGHT), &lcg_pieces(1, "IOTSZJLSZSZSZSZS", 3000));
        assert_eq!((rows, over), (82, Some(245)));
        assert_eq!(turns[244], Turn::Landed);
        assert_eq!(turns.iter().filter(|t| **t == Turn::Landed).count(), 1);
    }
}
