//! `tetris-lab etetris polish RECORD`: the second stage of a two-stage search
//! ([`crate::etetris::records::polish`]). Searches the record's game window by window for better
//! ways back to its own boards, writes the improved record (never worse; replayed and
//! checked) and prints the score before and after; shows a progress bar on stderr. The
//! record and its manifest are rewritten as the windows go, so a polish killed at any
//! moment (or stopped by `--max-windows`, or by Ctrl-C after the window being searched)
//! continues with `--resume RECORD` (the record it was writing) and ends as one never
//! stopped.

use super::{install_ctrl_c, moves_parser, resume_conflicts, JitterArgs, SearchArgs};
use crate::cli::Ended;
use crate::etetris::game::PIECE_LIMIT;
use crate::etetris::records::polish::{Line, Windows};
use crate::etetris::records::polish_run::{polish_run, resume as resume_polish, PolishSettings, Resumed, Run};
use crate::etetris::runs::{checked_options, read_record};
use crate::etetris::solver::MoveSet;
use crate::support::atomic_file::check_distinct;
use crate::support::run_dir::manifest_beside;
use anyhow::{ensure, Result};
use std::path::{Path, PathBuf};

/// The settings of its own `--resume` reads back (and those of the search).
const SETTINGS: [&str; 9] = ["file", "beam", "from", "window", "stride", "guide", "record", "weights", "moves"];

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The record to improve (bare, or the contest's JavaScript line).
    #[arg(required_unless_present = "resume")]
    pub file: Option<PathBuf>,
    /// Boards kept after each piece of a window's search.
    #[arg(long, default_value_t = 1000)]
    pub beam: usize,
    /// The first window's first piece (0-based; the pieces before it stay as they are):
    /// e.g. the game's last stretch alone, whose window may end on any board.
    #[arg(long, default_value_t = 0)]
    pub from: usize,
    /// Pieces in a window.
    #[arg(long, default_value_t = 100)]
    pub window: usize,
    /// Pieces from one window's start to the next one's [default: the window].
    #[arg(long)]
    pub stride: Option<usize>,
    /// Add this to a window board's key for each cell it differs from the record's board
    /// after the same piece (0: off): keeps the search near the record, where the ways back
    /// to its boards are.
    #[arg(long, default_value_t = 10.0)]
    pub guide: f64,
    /// Worker threads (default: all cores). The result is the same at any count.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Where to write the improved record [default: results/<the record's name>-polished.txt].
    #[arg(long)]
    pub record: Option<PathBuf>,
    /// Evaluator weights of the windows' search (as `solve --weights`) [default: the contest solver's published weights].
    #[arg(long)]
    pub weights: Option<PathBuf>,
    /// Move set of the detours (the record's own pieces keep their key presses).
    #[arg(long, value_parser = moves_parser(), default_value = "seed")]
    pub moves: MoveSet,
    #[command(flatten)]
    pub search: SearchArgs,
    #[command(flatten)]
    pub jitter: JitterArgs,
    /// Stop after this many windows: the record written is whole (it replays), and
    /// `--resume` continues from the next window.
    #[arg(long)]
    pub max_windows: Option<usize>,
    /// Continue the polish that was writing RECORD (stopped by --max-windows or Ctrl-C, or
    /// killed), in place: its settings are read from the manifest beside RECORD; only
    /// --threads and --max-windows may be given again.
    #[arg(long, value_name = "RECORD", conflicts_with_all = resume_conflicts(&SETTINGS))]
    pub resume: Option<PathBuf>,
}

/// Its own arguments parsed back (what `--resume` reads).
type Stored = crate::cli::Stored<Args>;

pub fn run(args: Args) -> Result<Ended> {
    if let Some(record) = args.resume.clone() {
        return resume(&record, args);
    }
    // From the command's name on (`polish FILE ...`), as `--resume` parses them back.
    let original: Vec<String> = std::env::args().skip(2).collect();
    let file = args.file.clone().expect("clap requires FILE without --resume");
    let before = Line::new(&read_record(&file)?);
    ensure!(before.pieces() > 0, "record file {}: no piece locks", file.display());
    let path = args.record.clone().unwrap_or_else(|| {
        let stem = file.file_stem().map_or("record".into(), |s| s.to_string_lossy().into_owned());
        PathBuf::from(format!("results/{stem}-polished.txt"))
    });
    let manifest = manifest_beside(&path);
    check_distinct(
        &[("--record", Some(&path)), ("the manifest beside --record", Some(&manifest))],
        &[("the record being polished", Some(&file)), ("the --weights file", args.weights.as_deref())],
    )?;
    let run = Run::new(&file, before.score(), original, path);
    polish_and_print(&args, run, before, None)
}

impl Args {
    /// The windows these arguments ask for.
    fn windows(&self) -> Windows {
        Windows { from: self.from, length: self.window, stride: self.stride.unwrap_or(self.window), guide: self.guide }
    }

    /// The library's settings (the weights read and jittered, the refinements checked).
    fn settings(&self) -> Result<PolishSettings> {
        let mut options = checked_options(self.beam, PIECE_LIMIT, self.weights.as_deref(), self.moves)?;
        options.refinements = self.search.refinements()?;
        self.jitter.apply(&mut options.weights)?;
        Ok(PolishSettings {
            options,
            windows: self.windows(),
            weights_file: self.weights.clone(),
            jitter_seed: self.jitter.jitter,
            threads: self.threads,
            max_windows: self.max_windows,
        })
    }
}

/// Runs the polish ([`polish_run`]) and prints how it ended.
fn polish_and_print(args: &Args, run: Run, line: Line, resume_from: Option<usize>) -> Result<Ended> {
    let settings = args.settings()?;
    let score_before = run.score_before;
    let path = run.output.clone();
    install_ctrl_c();
    let outcome = polish_run(&settings, run, line, resume_from)?;
    let after = &outcome.line;
    if let Some(next) = outcome.resume_from {
        eprintln!(
            "stopped after {} windows ({}); the next starts at piece {next}: \
             `tetris-lab etetris polish --resume {}` continues",
            outcome.windows_searched,
            if outcome.interrupted { crate::interrupt::signal_name() } else { "--max-windows" },
            path.display()
        );
    }
    println!(
        "score={} before={score_before} gain={} detours={} pieces={} seconds={:.2} record={}",
        after.score(),
        after.score() - score_before,
        outcome.detours,
        after.pieces(),
        outcome.seconds,
        path.display()
    );
    if outcome.interrupted && outcome.resume_from.is_some() {
        // Stopped by Ctrl-C: exit non-zero like any interrupted command.
        return Ok(Ended::Interrupted);
    }
    Ok(Ended::Finished)
}

/// `polish --resume RECORD`: the polish that was writing RECORD, continued from its next
/// window with the settings its manifest records ([`resume_polish`]).
fn resume(file: &Path, args: Args) -> Result<Ended> {
    let parse = |original: &[String]| {
        let stored = <Stored as clap::Parser>::try_parse_from(original).map_err(|e| crate::cli::clap_error_line(&e))?;
        let windows = stored.args.windows();
        Ok((stored.args, windows))
    };
    match resume_polish(file, parse)? {
        Resumed::Finished { line, score_before, detours } => {
            eprintln!("{}: its polish had finished; nothing to resume", file.display());
            println!(
                "score={} before={score_before} gain={} detours={detours} pieces={} seconds=0.00 record={}",
                line.score(),
                line.score().saturating_sub(score_before),
                line.pieces(),
                file.display()
            );
            Ok(Ended::Finished)
        }
        Resumed::From { settings, run, line, next } => {
            let mut settings = settings;
            settings.threads = args.threads;
            settings.max_windows = args.max_windows;
            polish_and_print(&settings, run, line, Some(next))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resume_refuses_every_setting_it_reads_back() {
        let command = <Stored as clap::CommandFactory>::command();
        let allowed = ["threads", "max_windows", "resume", "help"];
        super::super::tests::assert_resume_refuses_all(command, &allowed, &resume_conflicts(&SETTINGS));
    }
}
