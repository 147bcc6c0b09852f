//! The second stage of a two-stage search: a finished game improved window by window.
//! From the game's board before a window, a beam search as wide as the first stage's, but
//! spent on that one board's descendants alone, looks for a better-scoring way to one of
//! the game's own later boards ([`BeamSearch::find_detour`]). Ending on the game's board,
//! the detour leaves the rest of the game as it was, so its gain is the game's and the
//! game never gets worse. The window that reaches the end of the game may end anywhere.
//! Pieces outside the detours keep their record's key presses, so any record can be
//! polished, whatever wrote it.

use crate::etetris::game::{orientations, sequence, Game, Grid, Placement, Spawn, PIECE_LIMIT};
use crate::etetris::record::{replay, replay_game_observed, Op, Record};
use crate::etetris::solver::{placement_steps, BeamSearch, MoveSet, Options};
use anyhow::{ensure, Context, Result};
use std::ops::ControlFlow;

/// How the game is cut into windows, and how their searches keep near it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Windows {
    /// The first window's first piece (0-based): the pieces before it are kept as they are.
    pub from: usize,
    /// Pieces in a window.
    pub length: usize,
    /// Pieces from one window's start to the next one's.
    pub stride: usize,
    /// Added to the key per cell a board differs from the game's board after the same
    /// piece (0: off), keeping the search near the game (see [`BeamSearch::find_detour`]).
    pub guide: f64,
}

impl Windows {
    /// The first piece of the window after the one starting at `first`, in a game of
    /// `pieces` pieces (`None`: that window reaches the game's end, or the next would
    /// start past it).
    pub fn after(&self, first: usize, pieces: usize) -> Option<usize> {
        let next = first + self.stride;
        (first + self.length < pieces && next < pieces).then_some(next)
    }
}

/// A game of the contest: each piece's key presses, with the board and score after it.
#[derive(Clone, Debug)]
pub struct Line {
    /// The key presses of each piece (after its `N`).
    pub ops: Vec<Vec<Op>>,
    /// `boards[i]`: the board after `i` pieces (`boards[0]` is the empty start).
    pub boards: Vec<Grid>,
    /// `scores[i]`: the score after `i` pieces.
    pub scores: Vec<u32>,
}

impl Line {
    /// Replays a record from the contest's start. Pieces that never lock (the game ended
    /// at a spawn) are dropped.
    pub fn new(record: &Record) -> Line {
        let mut line = Line::empty();
        replay_game_observed(record, Game::default(), &mut |step| {
            line.ops.push(step.ops.to_vec());
            line.boards.push(step.game.grid);
            line.scores.push(step.game.score as u32);
        });
        line
    }

    /// The contest's start: no piece, the empty board, no points.
    pub fn empty() -> Line {
        Line { ops: Vec::new(), boards: vec![Grid::default()], scores: vec![0] }
    }

    /// Pieces locked.
    pub fn pieces(&self) -> usize {
        self.ops.len()
    }

    /// The score at the end.
    pub fn score(&self) -> u32 {
        *self.scores.last().unwrap_or(&0)
    }

    /// The record: each piece's key presses after an `N`.
    pub fn record(&self) -> Record {
        let mut record = Record::default();
        for ops in &self.ops {
            record.push_piece(ops);
        }
        record
    }
}

/// One window searched.
#[derive(Clone, Copy, Debug)]
pub struct WindowReport {
    /// The window's first piece (0-based) and its number of pieces.
    pub first: usize,
    pub pieces: usize,
    /// Points this window's detour gained (0: none found).
    pub gain: u32,
    /// The game's score after it.
    pub score: u32,
    /// The next window's first piece (`None`: this window was the last).
    pub next: Option<usize>,
}

/// A polish's result: the game, and where the next window would start when `on_window`
/// stopped it early (`None`: every window was searched).
#[derive(Clone, Debug)]
pub struct Polished {
    pub line: Line,
    pub resume_from: Option<usize>,
}

/// Improves `line`, a game of the contest ([`Line::new`] of its record), window by window
/// with `options`' search; `on_window` hears of each window with the game as it now is,
/// and may stop the polish there ([`ControlFlow::Break`]). The windows start at piece
/// `from`, then every `stride` pieces; a detour is taken as soon as it is found, so later
/// windows search the improved game. A window's search depends on nothing but the game
/// and the window, so a polish stopped after a window and started again from the next
/// one (`from` = [`Polished::resume_from`]) on the game it left ends as one never stopped.
/// The result never scores less than `line`; its record is replayed and checked, and so
/// is the game `on_window` sees after every window that gains (before it sees it).
pub fn polish(
    options: Options,
    mut line: Line,
    windows: Windows,
    on_window: &mut dyn FnMut(&WindowReport, &Line) -> ControlFlow<()>,
) -> Result<Polished> {
    ensure!(windows.length >= 1 && windows.stride >= 1, "a window has at least one piece");
    ensure!(windows.guide.is_finite() && windows.guide >= 0.0, "the guide must be at least 0, got {}", windows.guide);
    let pieces = line.pieces();
    let spawns: Vec<Spawn> = sequence(PIECE_LIMIT);
    let mut search = BeamSearch::new(options);
    let mut next = Some(windows.from).filter(|&first| first < pieces);
    let mut resume_from = None;
    while let Some(first) = next {
        let end = (first + windows.length).min(pieces);
        let base = line.scores[first];
        let targets: Vec<(Grid, u32)> =
            (first + 1..=end).map(|i| (line.boards[i], line.scores[i].saturating_sub(base))).collect();
        let detour = search.find_detour(line.boards[first], &spawns[first..], (first, pieces), &targets, windows.guide);
        let mut gain = 0;
        if let Some(detour) = detour {
            let rejoined = first + detour.placements.len();
            let (target, old_score) = (line.boards[rejoined], line.scores[rejoined]);
            let (mut grid, mut score) = (line.boards[first], base);
            for (offset, &placement) in detour.placements.iter().enumerate() {
                let i = first + offset;
                let (ops, points) = place(&mut grid, i, spawns[i], placement, options.moves)?;
                line.ops[i] = ops;
                score += points;
                line.boards[i + 1] = grid;
                line.scores[i + 1] = score;
            }
            ensure!(
                rejoined == pieces || grid == target,
                "internal error: a detour ends off the game's board at piece {rejoined}"
            );
            ensure!(
                score == old_score + detour.gain,
                "internal error: a detour of {} points scored {score} where the game had {old_score}",
                detour.gain
            );
            for later in &mut line.scores[rejoined + 1..] {
                *later += detour.gain;
            }
            gain = detour.gain;
            // Checked before `on_window` sees it: the caller may write it out at once.
            check_replays(&line, pieces)?;
        }
        next = windows.after(first, pieces);
        let report = WindowReport { first, pieces: end - first, gain, score: line.score(), next };
        if on_window(&report, &line).is_break() {
            resume_from = next;
            break;
        }
    }
    check_replays(&line, pieces)?;
    Ok(Polished { line, resume_from })
}

/// Locks piece `index` (`spawn`) at `placement` on `grid`: its key presses in the move set
/// `moves`, and the points it scores (none for the game's last piece or a lock that ends it).
pub(super) fn place(
    grid: &mut Grid,
    index: usize,
    spawn: Spawn,
    placement: Placement,
    moves: MoveSet,
) -> Result<(Vec<Op>, u32)> {
    let ops = placement_steps(grid, spawn, placement, moves)
        .context("internal error: a searched placement cannot be written as key presses")?;
    let orientation = &orientations(spawn.shape)[placement.state as usize];
    let lock = grid.lock(orientation, placement.x as i32, placement.y as i32);
    let points = if index + 1 < PIECE_LIMIT && !lock.top_touched { lock.points() } else { 0 };
    Ok((ops, points))
}

/// Replays `line`'s record and checks the game counts its score over its `pieces`.
fn check_replays(line: &Line, pieces: usize) -> Result<()> {
    let replayed = replay(&line.record());
    ensure!(
        replayed.score == line.score() as u64 && replayed.pieces == pieces,
        "internal error: the polished record replays to {} points over {} pieces, not {} over {pieces}",
        replayed.score,
        replayed.pieces,
        line.score()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::etetris::solver::{write_record, MoveSet};
    use crate::etetris::weights::Weights;

    fn options(beam: usize, moves: MoveSet) -> Options {
        Options::new(beam, moves, Weights::default())
    }

    /// A weak game to improve: the seed's search at beam 15 over the first `pieces` pieces.
    fn weak_record(pieces: usize) -> Record {
        let spawns = sequence(pieces);
        let solution = BeamSearch::new(options(15, MoveSet::Seed)).solve(Grid::default(), &spawns, &mut |_| {});
        write_record(Grid::default(), &spawns, &solution.placements, MoveSet::Seed).unwrap()
    }

    #[test]
    fn a_detour_ends_on_the_games_board_and_gains_what_it_says() {
        let line = Line::new(&weak_record(300));
        let spawns = sequence(300);
        let mut search = BeamSearch::new(options(200, MoveSet::Full));
        let mut found = 0;
        for (first, guide) in (0..250).step_by(25).flat_map(|first| [(first, 0.0), (first, 10.0)]) {
            let end = first + 40;
            let targets: Vec<(Grid, u32)> =
                (first + 1..=end).map(|i| (line.boards[i], line.scores[i] - line.scores[first])).collect();
            let Some(detour) =
                search.find_detour(line.boards[first], &spawns[first..end], (first, 300), &targets, guide)
            else {
                continue;
            };
            found += 1;
            assert!(detour.gain > 0 && !detour.placements.is_empty());
            let (mut grid, mut points) = (line.boards[first], 0);
            for (p, spawn) in detour.placements.iter().zip(&spawns[first..]) {
                let orientation = &orientations(spawn.shape)[p.state as usize];
                assert!(grid.fits(orientation, p.x as i32, p.y as i32));
                points += grid.lock(orientation, p.x as i32, p.y as i32).points();
            }
            let rejoined = first + detour.placements.len();
            assert_eq!(grid, line.boards[rejoined], "window at {first}");
            assert_eq!(points, line.scores[rejoined] - line.scores[first] + detour.gain, "window at {first}");
        }
        assert!(found >= 4, "a beam of 15 leaves room for detours; found {found}");
    }

    #[test]
    fn polishing_gains_replays_and_does_not_depend_on_the_thread_count() {
        let record = weak_record(400);
        let before = Line::new(&record);
        let windows = Windows { from: 0, length: 60, stride: 30, guide: 0.0 };
        let run = |threads: usize, guide: f64| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let mut reports = Vec::new();
            let windows = Windows { guide, ..windows };
            let polished = pool
                .install(|| {
                    polish(options(50, MoveSet::Full), before.clone(), windows, &mut |w, _| {
                        reports.push(*w);
                        ControlFlow::Continue(())
                    })
                })
                .unwrap();
            assert_eq!(polished.resume_from, None, "every window searched");
            (polished.line, reports)
        };
        let ((one, reports), (two, _)) = (run(1, 0.0), run(2, 0.0));
        assert_eq!(one.record(), two.record());
        assert!(one.score() > before.score(), "{} against {}", one.score(), before.score());
        assert_eq!(replay(&one.record()).score, one.score() as u64);
        // Windows at 0, 30, ..., 360 (the last reaches the end), each reporting the score so far.
        assert_eq!(reports.iter().map(|w| w.first).collect::<Vec<_>>(), (0..=360).step_by(30).collect::<Vec<_>>());
        assert_eq!(reports.last().unwrap().score, one.score());
        let gains: u32 = reports.iter().map(|w| w.gain).sum();
        assert_eq!(before.score() + gains, one.score());
        // The guide changes the search, and it too never loses.
        let ((guided, _), (guided_two, _)) = (run(1, 10.0), run(2, 10.0));
        assert_eq!(guided.record(), guided_two.record());
        assert_ne!(guided.record(), one.record());
        assert!(guided.score() > before.score() && replay(&guided.record()).score == guided.score() as u64);
        // Pieces outside the windows that gained keep their key presses.
        for i in 0..400 {
            let in_a_detour = reports.iter().any(|w| w.gain > 0 && (w.first..w.first + w.pieces).contains(&i));
            if !in_a_detour {
                assert_eq!(one.ops[i], before.ops[i], "piece {i}");
            }
        }
    }

    #[test]
    fn the_window_at_the_end_may_end_anywhere() {
        // One window over the whole game is a fresh search whose end is free: the result
        // is at least that search's own game.
        let record = weak_record(200);
        let before = Line::new(&record).score();
        let fresh = BeamSearch::new(options(100, MoveSet::Full)).solve(Grid::default(), &sequence(200), &mut |_| {});
        assert!(fresh.score > before);
        let polished = polish(
            options(100, MoveSet::Full),
            Line::new(&record),
            Windows { from: 0, length: 200, stride: 200, guide: 0.0 },
            &mut |_, _| ControlFlow::Continue(()),
        )
        .unwrap()
        .line;
        assert!(polished.score() >= fresh.score, "{} against {}", polished.score(), fresh.score);
    }

    #[test]
    fn a_game_that_ended_on_the_top_row_is_polished_too() {
        let spawns = sequence(300);
        let dying = BeamSearch::new(options(3, MoveSet::Seed)).solve(Grid::default(), &spawns, &mut |_| {});
        let mut record = write_record(Grid::default(), &spawns, &dying.placements, MoveSet::Seed).unwrap();
        // The search stopped where no board could take the next piece; that piece, locked
        // one step down, ends the game on the top row.
        record.push_piece(&[Op::Down(1)]);
        let before = replay(&record);
        assert!(
            before.is_over && before.pieces < 300,
            "beam 3 dies early ({} pieces, over: {})",
            before.pieces,
            before.is_over
        );
        let polished = polish(
            options(50, MoveSet::Full),
            Line::new(&record),
            Windows { from: 0, length: 30, stride: 30, guide: 0.0 },
            &mut |_, _| ControlFlow::Continue(()),
        )
        .unwrap()
        .line;
        let after = replay(&polished.record());
        assert_eq!((after.pieces, after.score), (before.pieces, polished.score() as u64));
        assert!(after.score > before.score);
    }

    #[test]
    fn polishing_from_a_piece_keeps_the_pieces_before_it() {
        let record = weak_record(400);
        let before = Line::new(&record);
        let mut firsts = Vec::new();
        let windows = Windows { from: 250, length: 60, stride: 60, guide: 10.0 };
        let after = polish(options(50, MoveSet::Full), before.clone(), windows, &mut |w, _| {
            firsts.push(w.first);
            ControlFlow::Continue(())
        })
        .unwrap()
        .line;
        assert_eq!(firsts, [250, 310, 370]);
        assert_eq!(after.ops[..250], before.ops[..250]);
        assert_eq!(after.scores[..=250], before.scores[..=250]);
        assert!(after.score() > before.score(), "{} against {}", after.score(), before.score());
        assert_eq!(replay(&after.record()).score, after.score() as u64);
    }

    #[test]
    fn a_polish_stopped_after_any_window_and_resumed_ends_as_one_never_stopped() {
        let record = weak_record(400);
        let windows = Windows { from: 10, length: 60, stride: 40, guide: 10.0 };
        let polish_all = |line: Line, windows: Windows, stop_after: Option<usize>| {
            let mut seen = 0;
            polish(options(50, MoveSet::Full), line, windows, &mut |_, _| {
                seen += 1;
                if Some(seen) == stop_after {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            })
            .unwrap()
        };
        let whole = polish_all(Line::new(&record), windows, None);
        assert!(whole.line.score() > Line::new(&record).score());
        // Windows start at 10, 50, ..., 330 (the last reaches the end): ten of them.
        for stop_after in [1, 4, 9] {
            let first = polish_all(Line::new(&record), windows, Some(stop_after));
            assert_eq!(first.resume_from, Some(10 + 40 * stop_after));
            // Resumed from the record it left, as a fresh process would.
            let line = Line::new(&first.line.record());
            let rest = polish_all(line, Windows { from: first.resume_from.unwrap(), ..windows }, None);
            assert_eq!(rest.resume_from, None);
            assert_eq!(rest.line.record(), whole.line.record(), "stopped after {stop_after} windows");
        }
        // Stopped after the last window: nothing is left.
        assert_eq!(polish_all(Line::new(&record), windows, Some(10)).resume_from, None);
    }
}
