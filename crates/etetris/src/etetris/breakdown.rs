//! What a record's points are made of (`tetris-lab etetris replay FILE --breakdown`): its clears by
//! size (how many, the rows and points, the cells on the board at each), by the shape that
//! made them, how high the stack stood and how many holes the board had before each, and the
//! I pieces that cleared nothing, with how many of those could have cleared four rows where
//! they were played (and, for those, how soon the next I came and what the wait bought).
//! A clear's points are `cells x k(k+1)/2`, so a better game either
//! clears fuller boards or clears more rows at a time; this says which.

use super::full;
use super::game::{orientations, Game, GAME_ORDER, HEIGHT, PIECE_LIMIT};
use super::record::{replay_game_observed, LockStep, Record};
use crate::piece::Piece;
use std::fmt::Write as _;

/// The tallies of one replay; [`Breakdown::report`] prints them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Breakdown {
    /// Pieces locked and the game's score, as the replay counts them.
    pub pieces: usize,
    pub score: u64,
    /// Scoring clears of 1, 2, 3 and 4 rows (index 0 to 3).
    pub clears: [u32; 4],
    /// Their points, per size.
    pub points: [u64; 4],
    /// The filled cells each counted (the piece and the full rows included), summed per size.
    pub cells_at_clears: [u64; 4],
    /// Scoring clears per shape (the game's order I L J T O S Z) and size.
    pub clears_by_shape: [[u32; 4]; 7],
    /// How many scoring clears found the stack's highest filled row at each row (0 = top;
    /// the board before the piece locked).
    pub stack_top_before_clears: [u32; HEIGHT],
    /// Holes of the board before each scoring clear, summed.
    pub holes_before_clears: u64,
    /// I pieces locked, those that cleared no row, and of those the ones for which some
    /// placement the game allows (the full move set) would have cleared four rows and scored.
    pub i_pieces: u32,
    pub idle_i_pieces: u32,
    pub idle_i_pieces_that_could_clear_four: u32,
    /// Of those (the I pieces that waited: four rows were there to clear), how many the next
    /// I piece followed within four pieces, and the cells each left on the board summed.
    pub waits_with_an_i_within_four: u32,
    pub cells_left_by_waits: u64,
    /// The waits a later four-row clear ended, and the cells on the board at that clear
    /// (the piece included) summed: what waiting bought.
    pub waits_ended_by_a_four: u32,
    pub cells_at_the_fours_after_waits: u64,
    /// The piece (numbered from 0) of the wait whose next I piece has not come yet (a wait
    /// is an I piece, so there is at most one), and the count of the waits whose four-row
    /// clear has not come yet.
    wait_before_the_next_i: Option<usize>,
    waits_before_the_next_four: u32,
}

impl Breakdown {
    /// The breakdown of a record of the contest's game (empty board, its 10,000 pieces).
    pub fn of(record: &Record) -> Breakdown {
        Breakdown::of_game(record, Game::default())
    }

    /// The breakdown of a record played from any game state (tests use small ones).
    pub fn of_game(record: &Record, game: Game) -> Breakdown {
        let mut breakdown = Breakdown::default();
        let replay = replay_game_observed(record, game, &mut |step| breakdown.add(step));
        breakdown.pieces = replay.pieces;
        breakdown.score = replay.score;
        breakdown
    }

    fn add(&mut self, step: &LockStep) {
        let (falling, lock) = (step.falling, step.lock);
        // A lock that ends the game (the top row touched, or the last piece) scores nothing.
        let scored = !step.game.is_over;
        if scored && lock.rows > 0 {
            let size = lock.rows as usize - 1;
            self.clears[size] += 1;
            self.points[size] += lock.points() as u64;
            self.cells_at_clears[size] += lock.cells as u64;
            self.clears_by_shape[falling.shape][size] += 1;
            self.stack_top_before_clears[step.before.stack_top().min(HEIGHT - 1)] += 1;
            self.holes_before_clears += step.before.features().holes as u64;
        }
        if scored && lock.rows == 4 {
            self.waits_ended_by_a_four += self.waits_before_the_next_four;
            self.cells_at_the_fours_after_waits += self.waits_before_the_next_four as u64 * lock.cells as u64;
            self.waits_before_the_next_four = 0;
        }
        if GAME_ORDER[falling.shape] == Piece::I {
            let piece = step.game.pieces - 1;
            self.i_pieces += 1;
            if let Some(wait) = self.wait_before_the_next_i.take() {
                self.waits_with_an_i_within_four += (piece - wait <= 4) as u32;
            }
            if lock.rows == 0 {
                self.idle_i_pieces += 1;
                let last = step.game.pieces >= PIECE_LIMIT;
                if !last && could_clear_four(step) {
                    self.idle_i_pieces_that_could_clear_four += 1;
                    self.cells_left_by_waits += lock.cells as u64;
                    self.wait_before_the_next_i = Some(piece);
                    self.waits_before_the_next_four += 1;
                }
            }
        }
    }

    /// Scoring clears in all.
    pub fn clear_count(&self) -> u32 {
        self.clears.iter().sum()
    }

    /// Rows removed by scoring clears.
    pub fn rows_cleared(&self) -> u64 {
        self.clears.iter().enumerate().map(|(size, &count)| (size as u64 + 1) * count as u64).sum()
    }

    /// The breakdown as lines of text, for people.
    pub fn report(&self) -> String {
        let mut text = String::new();
        let header = ["rows at a time", "clears", "rows cleared", "points", "mean cells"];
        let _ =
            writeln!(text, "{:>14} {:>7} {:>12} {:>9} {:>11}", header[0], header[1], header[2], header[3], header[4]);
        for size in (0..4).rev() {
            let count = self.clears[size];
            let mean = if count == 0 { 0.0 } else { self.cells_at_clears[size] as f64 / count as f64 };
            let rows = (size as u64 + 1) * count as u64;
            let _ = writeln!(text, "{:>14} {count:>7} {rows:>12} {:>9} {mean:>11.1}", size + 1, self.points[size]);
        }
        let total: u64 = self.points.iter().sum();
        let _ = writeln!(text, "{:>14} {:>7} {:>12} {total:>9}", "all", self.clear_count(), self.rows_cleared());
        let by_shape: Vec<String> = GAME_ORDER
            .iter()
            .zip(&self.clears_by_shape)
            .filter(|(_, counts)| counts.iter().any(|&c| c > 0))
            .map(|(piece, counts)| {
                format!("{} {}/{}/{}/{}", piece.letter(), counts[0], counts[1], counts[2], counts[3])
            })
            .collect();
        let _ = writeln!(text, "clears of 1/2/3/4 rows by shape: {}", by_shape.join(", "));
        let tops: Vec<String> = self
            .stack_top_before_clears
            .iter()
            .enumerate()
            .filter(|(_, &count)| count > 0)
            .map(|(row, count)| format!("row {row}: {count}"))
            .collect();
        let _ = writeln!(text, "the stack's top before a clear (row 0 is the top): {}", tops.join(", "));
        let clears = self.clear_count().max(1) as f64;
        let _ = writeln!(text, "holes before a clear: {:.2} on average", self.holes_before_clears as f64 / clears);
        let _ = write!(
            text,
            "I pieces: {}; {} cleared no row, {} of which could have cleared four rows where they were played",
            self.i_pieces, self.idle_i_pieces, self.idle_i_pieces_that_could_clear_four
        );
        let waits = self.idle_i_pieces_that_could_clear_four;
        if waits > 0 {
            let ended = self.waits_ended_by_a_four.max(1) as f64;
            let _ = write!(
                text,
                "\nthose {waits} waited: the next I came within 4 pieces for {}; they left {:.1} cells on the \
                 board on average, the four-row clears that ended the waits found {:.1} ({} waits)",
                self.waits_with_an_i_within_four,
                self.cells_left_by_waits as f64 / waits as f64,
                self.cells_at_the_fours_after_waits as f64 / ended,
                self.waits_ended_by_a_four
            );
        }
        text
    }
}

/// Whether some placement of the piece that just locked (from its spawn, by the game's
/// moves) would have cleared four rows without touching the top row.
fn could_clear_four(step: &LockStep) -> bool {
    let spawn = step.game.spawns()[step.game.pieces - 1];
    let table = orientations(spawn.shape);
    let mut found = false;
    full::placements(step.before, spawn, |placement| {
        let mut after = *step.before;
        let lock = after.lock(&table[placement.state as usize], placement.x as i32, placement.y as i32);
        found |= lock.rows == 4 && !lock.top_touched;
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::etetris::game::{Grid, Spawn};

    /// Shapes by the game's index.
    const I: usize = 0;
    const O: usize = 4;

    /// Four rows full but for column 0, at the bottom of the board (the rows above empty).
    const READY_WELL: &str = ".#########\n.#########\n.#########\n.#########";

    fn game(rows: &str, spawns: &[(usize, usize)]) -> Game {
        let grid = Grid::parse(rows).unwrap();
        Game::custom(grid, spawns.iter().map(|&(shape, state)| Spawn { shape, state }).collect())
    }

    #[test]
    fn counts_a_tetris_an_idle_i_and_an_o() {
        // The first I
        // (state 0, vertical) drops down column 0 and clears all four: 40 cells, 400 points.
        // The second I, vertical too, goes down column 9 onto the empty floor and clears
        // nothing; it could not have cleared four rows (the board is empty). The O clears
        // nothing either.
        let game = game(READY_WELL, &[(I, 0), (I, 0), (O, 0)]);
        let record = Record::parse("N,L4,D18,N,R5,D18,N,D18").unwrap();
        let breakdown = Breakdown::of_game(&record, game);
        assert_eq!(breakdown.pieces, 3);
        assert_eq!(breakdown.score, 400);
        assert_eq!(breakdown.clears, [0, 0, 0, 1]);
        assert_eq!(breakdown.points, [0, 0, 0, 400]);
        assert_eq!(breakdown.cells_at_clears, [0, 0, 0, 40]);
        assert_eq!(breakdown.clears_by_shape[I], [0, 0, 0, 1]);
        assert_eq!(breakdown.stack_top_before_clears[16], 1);
        assert_eq!(breakdown.holes_before_clears, 0);
        assert_eq!((breakdown.i_pieces, breakdown.idle_i_pieces), (2, 1));
        assert_eq!(breakdown.idle_i_pieces_that_could_clear_four, 0);
        assert_eq!(breakdown.rows_cleared(), 4);
    }

    #[test]
    fn an_i_played_beside_a_ready_well_could_have_cleared_four() {
        // The well in column 0 is ready; the I is laid flat on top instead.
        let game = game(READY_WELL, &[(I, 1)]);
        let record = Record::parse("N,D15").unwrap();
        let breakdown = Breakdown::of_game(&record, game);
        assert_eq!(breakdown.score, 0);
        assert_eq!(breakdown.clear_count(), 0);
        assert_eq!((breakdown.i_pieces, breakdown.idle_i_pieces), (1, 1));
        assert_eq!(breakdown.idle_i_pieces_that_could_clear_four, 1);
        assert!(breakdown.report().contains("1 cleared no row, 1 of which could have cleared four rows"));
        // No I came after it and no four-row clear ended the wait.
        assert_eq!((breakdown.waits_with_an_i_within_four, breakdown.waits_ended_by_a_four), (0, 0));
        assert_eq!(breakdown.cells_left_by_waits, 40);
    }

    #[test]
    fn a_wait_for_the_next_i_is_followed_to_the_clear_that_ends_it() {
        // The first I is laid flat on the ready well's rows (40 cells then), an O goes into
        // columns 8-9 on top of them, and the second I, two pieces after the first, drops
        // down the well: four rows at 48 cells.
        let game = game(READY_WELL, &[(I, 1), (O, 0), (I, 0)]);
        let record = Record::parse("N,D15,N,R4,D13,N,L4,D18").unwrap();
        let breakdown = Breakdown::of_game(&record, game);
        assert_eq!(breakdown.clears, [0, 0, 0, 1], "{breakdown:?}");
        assert_eq!(breakdown.idle_i_pieces_that_could_clear_four, 1);
        assert_eq!(breakdown.waits_with_an_i_within_four, 1);
        assert_eq!(breakdown.cells_left_by_waits, 40);
        assert_eq!((breakdown.waits_ended_by_a_four, breakdown.cells_at_the_fours_after_waits), (1, 48));
        assert_eq!(breakdown.score, 480);
        let report = breakdown.report();
        assert!(
            report.contains(
                "the next I came within 4 pieces for 1; they left 40.0 cells on the board on average, \
                             the four-row clears that ended the waits found 48.0 (1 waits)"
            ),
            "{report}"
        );
    }
}
