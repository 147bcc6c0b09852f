//! One checked solve: the beam search, then its record written move by move and replayed
//! by the game, and the game's score compared with the solver's. `solve`, `reproduce` and
//! the E-Tetris tuning objective all report the replayed score through here; `solve`
//! runs its search through [`solve_saving`], which saves the search's state as it goes.

use super::game::{sequence, Grid, Spawn};
use super::record::{replay, Record, Replay};
use super::search_state::SearchState;
use super::solver::{write_record, BeamSearch, MoveSet, Options, Progress, Solution};
use anyhow::{ensure, Context, Result};
use indicatif::ProgressBar;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Writes the record of `solution` over `spawns` (from the empty grid) with `moves`, replays
/// it, and checks the game counts the score the solver counted.
pub fn check(spawns: &[Spawn], solution: &Solution, moves: MoveSet) -> Result<(Record, Replay)> {
    let record = write_record(Grid::default(), spawns, &solution.placements, moves)
        .context("internal error: the solver's placements cannot be written as key presses")?;
    let replayed = replay(&record);
    ensure!(
        replayed.score == solution.score as u64,
        "internal error: the record replays to {} points but the solver counted {}",
        replayed.score,
        solution.score
    );
    Ok((record, replayed))
}

/// Solves the first `pieces` of the contest sequence with a progress bar on stderr (hidden
/// unless `show`), then [`check`]s the solution.
pub fn solve_checked(options: Options, pieces: usize, show: bool) -> Result<(Solution, Record, Replay)> {
    let moves = options.moves;
    let solution = solve_with_progress(options, pieces, show);
    let (record, replayed) = check(&sequence(pieces), &solution, moves)?;
    Ok((solution, record, replayed))
}

/// A progress bar over a game's pieces on stderr (hidden unless `show`), with a message.
pub fn pieces_bar(pieces: usize, show: bool) -> ProgressBar {
    crate::support::progress::counting_bar(pieces as u64, "pieces", show)
}

/// Solves with a progress bar on stderr (hidden unless `show`), refinements included.
pub fn solve_with_progress(options: Options, pieces: usize, show: bool) -> Solution {
    let bar = pieces_bar(pieces, show);
    let spawns = sequence(pieces);
    let mut candidates = 0usize;
    let solution = BeamSearch::new(options).solve(Grid::default(), &spawns, &mut |progress| {
        candidates += progress.candidates;
        if progress.pieces % 32 == 0 || progress.pieces == pieces {
            bar.set_position(progress.pieces as u64);
            bar.set_message(format!("best score {}, {} boards", progress.best_score, progress.boards));
        }
    });
    bar.finish_and_clear();
    if std::env::var_os("TETRIS_LAB_STATS").is_some() {
        let boards: usize = solution.distinct_boards.iter().sum();
        eprintln!("candidates={candidates} distinct_boards={boards}");
    }
    solution
}

/// When [`solve_saving`] saves the search's state, and when it stops.
pub struct Saving<'a> {
    /// Save once this long has passed since the last save (or the start).
    pub every: Duration,
    /// Save and stop once this many pieces are placed.
    pub stop_after: Option<usize>,
    /// Set from elsewhere (Ctrl-C): save after the piece being placed, then stop.
    pub stop: &'a AtomicBool,
    /// Hears of a save that failed on the way (the search goes on).
    pub warn: &'a (dyn Fn(&str) + Sync),
}

/// How [`solve_saving`] ended.
pub enum Saved {
    /// The search placed every piece (or every kept board died).
    Finished(Solution),
    /// It stopped, its state saved, after this many pieces.
    Stopped(usize),
}

/// Solves `spawns` from `resume` (a state saved by an earlier call with the same options
/// and pieces) or afresh, telling `on_step` of each piece, and handing the search's state
/// to `save` as `saving` says, but never after the last piece (the search is over then). A
/// save that fails on the way is a warning and the search goes on (a full disk should not
/// end a long search that can still finish); one that fails when stopping is the error. A
/// search resumed from any saved state ends as one never stopped.
pub fn solve_saving(
    options: Options,
    spawns: &[Spawn],
    resume: Option<SearchState>,
    saving: Saving,
    on_step: &mut dyn FnMut(&Progress),
    save: &mut dyn FnMut(&SearchState) -> Result<()>,
) -> Result<Saved> {
    let pieces = spawns.len();
    let mut last_save = Instant::now();
    let mut stopped: Option<Result<usize>> = None;
    let mut on_step = |progress: &Progress, state: &dyn Fn() -> SearchState| {
        on_step(progress);
        if progress.pieces == pieces {
            return ControlFlow::Continue(());
        }
        let stop = saving.stop_after == Some(progress.pieces) || saving.stop.load(Ordering::SeqCst);
        if stop || last_save.elapsed() >= saving.every {
            match save(&state()) {
                Ok(()) => {}
                Err(e) if stop => {
                    stopped = Some(Err(e.context("cannot stop: the search's state could not be saved")));
                    return ControlFlow::Break(());
                }
                Err(e) => (saving.warn)(&format!("warning: {e:#}; the search goes on")),
            }
            last_save = Instant::now();
        }
        if stop {
            stopped = Some(Ok(progress.pieces));
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    };
    let solution = BeamSearch::new(options).solve_resumable(Grid::default(), spawns, resume, &mut on_step)?;
    match solution {
        Some(solution) => Ok(Saved::Finished(solution)),
        None => Ok(Saved::Stopped(stopped.expect("the search stops only through its callback")?)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saving_solves_save_as_told_stop_and_resume_to_the_same_game() {
        let spawns = sequence(120);
        let options = Options::new(20, MoveSet::Full, super::super::weights::Weights::default());
        let never = AtomicBool::new(false);
        let whole = BeamSearch::new(options).solve(Grid::default(), &spawns, &mut |_| {});
        // Every piece but the last is saved at a zero cadence.
        let mut saved = Vec::new();
        let every_piece = Saving { every: Duration::ZERO, stop_after: None, stop: &never, warn: &|_| {} };
        let mut keep = |state: &SearchState| {
            saved.push(state.clone());
            Ok(())
        };
        let Saved::Finished(solution) =
            solve_saving(options, &spawns, None, every_piece, &mut |_| {}, &mut keep).unwrap()
        else {
            panic!("not stopped")
        };
        assert_eq!((solution.score, &solution.placements), (whole.score, &whole.placements));
        assert_eq!(saved.iter().map(SearchState::pieces).collect::<Vec<_>>(), (1..120).collect::<Vec<_>>());
        // Stopped at 70 (saved then), resumed, it ends as the whole game.
        let mut last = None;
        let at_70 = Saving { every: Duration::MAX, stop_after: Some(70), stop: &never, warn: &|_| {} };
        let stopped = solve_saving(options, &spawns, None, at_70, &mut |_| {}, &mut |s| {
            last = Some(s.clone());
            Ok(())
        });
        assert!(matches!(stopped, Ok(Saved::Stopped(70))));
        let resumed = solve_saving(
            options,
            &spawns,
            last,
            Saving { every: Duration::MAX, stop_after: None, stop: &never, warn: &|_| {} },
            &mut |_| {},
            &mut |_| Ok(()),
        );
        let Ok(Saved::Finished(resumed)) = resumed else { panic!("finished") };
        assert_eq!((resumed.score, &resumed.placements), (whole.score, &whole.placements));
        // A save failing on the way is a warning; failing when stopping, the error.
        let failing = |_: &SearchState| -> Result<()> { anyhow::bail!("disk full") };
        let warned = std::sync::atomic::AtomicUsize::new(0);
        let count = |_: &str| _ = warned.fetch_add(1, Ordering::Relaxed);
        let going = Saving { every: Duration::ZERO, stop_after: None, stop: &never, warn: &count };
        let going = solve_saving(options, &spawns, None, going, &mut |_| {}, &mut { failing });
        assert!(matches!(going, Ok(Saved::Finished(_))));
        assert_eq!(warned.load(Ordering::Relaxed), 119, "one warning a failed save");
        let stop_now = AtomicBool::new(true);
        let interrupted = Saving { every: Duration::MAX, stop_after: None, stop: &stop_now, warn: &|_| {} };
        let error =
            solve_saving(options, &spawns, None, interrupted, &mut |_| {}, &mut { failing }).err().expect("fails");
        assert!(format!("{error:#}").contains("cannot stop: the search's state could not be saved: disk full"));
    }
}
