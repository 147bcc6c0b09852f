//! One checked solve: the beam search, then its record written move by move and replayed
//! by the game, and the game's score compared with the solver's. `solve`, `reproduce` and
//! the E-Tetris tuning objective all report the replayed score through here.

use super::game::{sequence, Grid, Spawn};
use super::record::{replay, Record, Replay};
use super::solver::{write_record, BeamSearch, MoveSet, Options, Solution};
use anyhow::{ensure, Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

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
    let bar = if show {
        ProgressBar::new(pieces as u64)
    } else {
        ProgressBar::with_draw_target(Some(pieces as u64), ProgressDrawTarget::hidden())
    };
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} pieces, {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar
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
