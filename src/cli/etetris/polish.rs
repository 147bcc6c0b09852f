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
use crate::etetris::checked::pieces_bar;
use crate::etetris::game::PIECE_LIMIT;
use crate::etetris::records::polish::{polish, Line, Windows};
use crate::etetris::runs::{
    checked_options, etetris_manifest, prepare_record_path, read_record, weights_json, write_record,
    write_record_with_manifest,
};
use crate::etetris::solver::MoveSet;
use crate::interrupt::stop_flag;
use crate::support::atomic_file::check_distinct;
use crate::support::run_dir::{manifest_beside, write_manifest_beside};
use crate::support::threads::thread_pool;
use anyhow::{anyhow, bail, ensure, Result};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Instant;

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

/// Parses a polish's own arguments back (`--resume` reads them from its manifest).
#[derive(clap::Parser)]
#[command(name = "polish")]
struct Stored {
    #[command(flatten)]
    args: Args,
}

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
    let score_before = before.score();
    let run = Run {
        input: file.display().to_string(),
        score_before,
        original,
        output: path,
        detours: 0,
        seconds: 0.0,
        weights: None,
    };
    polish_from(args, run, before, None)
}

/// A polish's fixed facts, carried from its start through every resume.
struct Run {
    /// The record first polished, its score, and the arguments the polish was started with.
    input: String,
    score_before: u32,
    original: Vec<String>,
    /// The record written (and continued by `--resume`).
    output: PathBuf,
    /// Detours taken and seconds spent before this process (by the runs it resumes).
    detours: usize,
    seconds: f64,
    /// On a resume, the weights the polish played (its manifest's): the weights file must
    /// still hold them.
    weights: Option<serde_json::Value>,
}

/// Polishes `line` with `args`' settings from `args.from` (or `resume_from`), writing the
/// record and its manifest after every window that gains and the manifest after every
/// window.
fn polish_from(args: Args, run: Run, line: Line, resume_from: Option<usize>) -> Result<Ended> {
    let mut options = checked_options(args.beam, PIECE_LIMIT, args.weights.as_deref(), args.moves)?;
    options.refinements = args.search.refinements()?;
    args.jitter.apply(&mut options.weights)?;
    let stride = args.stride.unwrap_or(args.window);
    ensure!((1..=PIECE_LIMIT).contains(&args.window), "--window must be in 1..={PIECE_LIMIT}, got {}", args.window);
    ensure!((1..=PIECE_LIMIT).contains(&stride), "--stride must be in 1..={PIECE_LIMIT}, got {stride}");
    ensure!(args.guide.is_finite() && args.guide >= 0.0, "--guide must be a number of at least 0, got {}", args.guide);
    ensure!(args.max_windows != Some(0), "--max-windows must be at least 1");
    ensure!(
        args.from < line.pieces(),
        "--from {} is past the record's last piece (it has {} pieces, numbered from 0)",
        args.from,
        line.pieces()
    );
    let weights = weights_json(&options.weights);
    if let Some(played) = &run.weights {
        let changed = match &args.weights {
            Some(file) => format!("the weights file {} no longer holds", file.display()),
            None => "this build's built-in weights are not".to_string(),
        };
        ensure!(
            *played == weights,
            "cannot resume {}: {changed} the weights the polish played (see its manifest)",
            run.output.display()
        );
    }
    let from = resume_from.unwrap_or(args.from);
    match resume_from {
        Some(first) if first < line.pieces() => eprintln!("resuming the polish of {} from piece {first}", run.input),
        Some(_) => eprintln!("the polish of {} had searched its last window; recording that it finished", run.input),
        None => {}
    }
    let path = run.output.clone();
    let pool = thread_pool(args.threads)?;
    prepare_record_path(&path)?;
    let manifest = |line: &Line, next: Option<usize>, seconds: f64, detours: usize| {
        etetris_manifest(serde_json::json!({
            "record": path.display().to_string(),
            "polished": run.input,
            "score_before": run.score_before,
            "polish_arguments": run.original,
            "moves": args.moves.name(),
            "beam": args.beam,
            "from": args.from,
            "window": args.window,
            "stride": stride,
            "guide": args.guide,
            "refinements": options.refinements,
            "weights_file": args.weights.as_ref().map(|p| p.display().to_string()),
            "weights": weights,
            "jitter_seed": args.jitter.jitter,
            "threads": pool.current_num_threads(),
            "seconds": seconds,
            "score": line.score(),
            "detours": detours,
            "pieces_played": line.pieces(),
            "finished": next.is_none(),
            "resume_from": next,
        }))
    };
    // The record and manifest as they stand before the first window: from here on the
    // two always describe a polish that `--resume` can continue (or one that has finished,
    // when a resume finds the last window done).
    let first = Some(from).filter(|&first| first < line.pieces());
    write_record_with_manifest(&path, &line.record(), "polish", manifest(&line, first, run.seconds, run.detours))?;
    install_ctrl_c();
    let bar = pieces_bar(line.pieces(), true);
    let started = Instant::now();
    let mut detours = run.detours;
    let mut windows_searched = 0;
    let mut failure = None;
    let windows = Windows { from, length: args.window, stride, guide: args.guide };
    let polished = pool.install(|| {
        polish(options, line, windows, &mut |window, line| {
            detours += (window.gain > 0) as usize;
            windows_searched += 1;
            bar.set_position((window.first + window.pieces) as u64);
            bar.set_message(format!(
                "score {} (+{}), {detours} detours",
                window.score,
                window.score - run.score_before
            ));
            // The record first, then the manifest: a kill between the two leaves a record
            // one window ahead of its manifest, which `--resume` recognises by the score.
            // After the last window (or the one --max-windows stops at) the two are final.
            let saved = (|| {
                if window.gain > 0 {
                    write_record(&path, &line.record())?;
                }
                let seconds = run.seconds + started.elapsed().as_secs_f64();
                write_manifest_beside(&path, "polish", manifest(line, window.next, seconds, detours))
            })();
            if let Err(e) = saved {
                failure = Some(e);
                return ControlFlow::Break(());
            }
            if args.max_windows == Some(windows_searched) || stop_flag().load(Ordering::SeqCst) {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
    })?;
    bar.finish_and_clear();
    if let Some(e) = failure {
        return Err(e);
    }
    let seconds = run.seconds + started.elapsed().as_secs_f64();
    let after = &polished.line;
    let interrupted = stop_flag().load(Ordering::SeqCst);
    if let Some(next) = polished.resume_from {
        eprintln!(
            "stopped after {windows_searched} windows ({}); the next starts at piece {next}: \
             `tetris-lab etetris polish --resume {}` continues",
            if interrupted { "Ctrl-C" } else { "--max-windows" },
            path.display()
        );
    }
    println!(
        "score={} before={} gain={} detours={detours} pieces={} seconds={seconds:.2} record={}",
        after.score(),
        run.score_before,
        after.score() - run.score_before,
        after.pieces(),
        path.display()
    );
    if interrupted && polished.resume_from.is_some() {
        // Stopped by Ctrl-C: exit non-zero like any interrupted command.
        return Ok(Ended::Interrupted);
    }
    Ok(Ended::Finished)
}

/// `polish --resume RECORD`: the polish that was writing RECORD, continued from its next
/// window with the settings its manifest records.
fn resume(file: &Path, args: Args) -> Result<Ended> {
    let manifest_path = manifest_beside(file);
    let fail = |cause: String| anyhow!("cannot resume {}: {cause}", file.display());
    let text = std::fs::read_to_string(&manifest_path)
        .map_err(|e| fail(format!("cannot read {}: {e}", manifest_path.display())))?;
    let manifest: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| fail(format!("{} is not JSON: {e}", manifest_path.display())))?;
    let field =
        |name: &str| manifest.get(name).ok_or_else(|| fail(format!("{} has no \"{name}\"", manifest_path.display())));
    ensure!(
        field("command")?.as_str() == Some("polish"),
        fail(format!("{} is not a polish's manifest", manifest_path.display()))
    );
    let original: Vec<String> = serde_json::from_value(field("polish_arguments")?.clone())
        .map_err(|e| fail(format!("\"polish_arguments\": {e}")))?;
    let stored = <Stored as clap::Parser>::try_parse_from(&original)
        .map_err(|e| fail(format!("its arguments no longer parse: {}", crate::cli::clap_error_line(&e))))?;
    let number =
        |name: &str| -> Result<u64> { field(name)?.as_u64().ok_or_else(|| fail(format!("\"{name}\" is not a count"))) };
    // A score beyond u32 is no game's (the contest's best are about 1.4 million): refused,
    // not wrapped.
    let score = |name: &str| -> Result<u32> {
        u32::try_from(number(name)?).map_err(|_| fail(format!("\"{name}\" is larger than any E-Tetris score")))
    };
    let (score_before, recorded_score) = (score("score_before")?, score("score")?);
    let input = field("polished")?.as_str().unwrap_or_default().to_string();
    let line = Line::new(&read_record(file)?);
    let windows = Windows {
        from: stored.args.from,
        length: stored.args.window,
        stride: stored.args.stride.unwrap_or(stored.args.window),
        guide: stored.args.guide,
    };
    let next = match field("resume_from")? {
        serde_json::Value::Null => {
            eprintln!("{}: its polish had finished; nothing to resume", file.display());
            println!(
                "score={} before={score_before} gain={} detours={} pieces={} seconds=0.00 record={}",
                line.score(),
                line.score().saturating_sub(score_before),
                number("detours")?,
                line.pieces(),
                file.display()
            );
            return Ok(Ended::Finished);
        }
        value => value.as_u64().ok_or_else(|| fail("\"resume_from\" is not a piece".into()))? as usize,
    };
    // Only the first piece of one of its windows can be where a polish stopped.
    let is_window_start =
        next >= windows.from && next < line.pieces() && (next - windows.from).checked_rem(windows.stride) == Some(0);
    ensure!(
        is_window_start,
        fail(format!(
            "\"resume_from\" {next} is not where one of its windows starts (from {} every {} pieces, before the record's {})",
            windows.from,
            windows.stride,
            line.pieces()
        ))
    );
    // A record ahead of its manifest (killed between the two writes) holds the detour of the
    // window the manifest names: that window is done, and its detour counts.
    let mut detours = number("detours")? as usize;
    let next = match line.score() {
        score if score == recorded_score => next,
        // (`None` after it: it was the last window, and the polish below, starting past
        // the end, searches nothing and records that it finished.)
        score if score > recorded_score => {
            detours += 1;
            windows.after(next, line.pieces()).unwrap_or(line.pieces())
        }
        score => bail!(fail(format!(
            "the record scores {score}, less than the {recorded_score} its manifest records: not the polish's output"
        ))),
    };
    let mut settings = stored.args;
    settings.threads = args.threads;
    settings.max_windows = args.max_windows;
    let seconds = field("seconds")?.as_f64().unwrap_or(0.0);
    let weights = Some(field("weights")?.clone());
    let run = Run { input, score_before, original, output: file.to_path_buf(), detours, seconds, weights };
    polish_from(settings, run, line, Some(next))
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
