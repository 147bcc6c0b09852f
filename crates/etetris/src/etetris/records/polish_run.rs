//! A polish as a run (`tetris-lab etetris polish`): [`super::polish`] over a record, with
//! the record and its manifest rewritten as the windows go, so that a polish killed at any
//! moment (or stopped after a window) continues from its manifest ([`resume`]) and ends as
//! one never stopped.

use super::polish::{polish, Line, Windows};
use crate::etetris::checked::pieces_bar;
use crate::etetris::game::PIECE_LIMIT;
use crate::etetris::runs::{
    etetris_manifest, prepare_record_path, read_record, weights_json, write_record, write_record_with_manifest,
};
use crate::etetris::solver::Options;
use crate::interrupt::stop_flag;
use crate::support::run_dir::{manifest_beside, write_manifest_beside};
use crate::support::threads::thread_pool;
use anyhow::{anyhow, bail, ensure, Result};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Instant;

/// How a polish searches, as its command gave it.
#[derive(Clone, Debug)]
pub struct PolishSettings {
    /// The windows' search: beam, move set, weights (jittered) and refinements.
    pub options: Options,
    /// The windows (their `length` and `stride` are checked here, named by their flags).
    pub windows: Windows,
    /// The weights file given (`None`: the built-in weights) and the jitter seed (0: off),
    /// for the manifest.
    pub weights_file: Option<PathBuf>,
    pub jitter_seed: u64,
    /// Worker threads (`None`: all cores); the result is the same at any count.
    pub threads: Option<usize>,
    /// Stop after this many windows (`None`: search them all).
    pub max_windows: Option<usize>,
}

/// A polish's fixed facts, carried from its start through every resume.
#[derive(Clone, Debug)]
pub struct Run {
    /// The record first polished, its score, and the arguments the polish was started with.
    pub input: String,
    pub score_before: u32,
    pub original: Vec<String>,
    /// The record written (and continued by `--resume`).
    pub output: PathBuf,
    /// Detours taken and seconds spent before this process (by the runs it resumes).
    pub detours: usize,
    pub seconds: f64,
    /// On a resume, the weights the polish played (its manifest's): the weights file must
    /// still hold them.
    pub weights: Option<serde_json::Value>,
}

impl Run {
    /// A new polish of the record `input` scoring `score_before`, started with the
    /// arguments `original`, writing `output`.
    pub fn new(input: &Path, score_before: u32, original: Vec<String>, output: PathBuf) -> Run {
        Run {
            input: input.display().to_string(),
            score_before,
            original,
            output,
            detours: 0,
            seconds: 0.0,
            weights: None,
        }
    }
}

/// How a polish run ended.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The game written.
    pub line: Line,
    /// Where the next window starts when stopped early (`None`: every window was searched).
    pub resume_from: Option<usize>,
    /// Windows searched by this process, detours taken over the whole polish, and its
    /// seconds (the runs it resumes included).
    pub windows_searched: usize,
    pub detours: usize,
    pub seconds: f64,
    /// Stopped by Ctrl-C (the stop flag) rather than by `max_windows`.
    pub interrupted: bool,
}

/// Polishes `line` with `settings` from `settings.windows.from` (or `resume_from`),
/// writing the record and its manifest after every window that gains and the manifest
/// after every window; a progress bar on stderr. Stops after the window being searched
/// when the stop flag is raised ([`crate::interrupt::stop_flag`]).
pub fn polish_run(settings: &PolishSettings, run: Run, line: Line, resume_from: Option<usize>) -> Result<Outcome> {
    let options = settings.options;
    let Windows { from: first_piece, length, stride, guide } = settings.windows;
    ensure!((1..=PIECE_LIMIT).contains(&length), "--window must be in 1..={PIECE_LIMIT}, got {length}");
    ensure!((1..=PIECE_LIMIT).contains(&stride), "--stride must be in 1..={PIECE_LIMIT}, got {stride}");
    ensure!(guide.is_finite() && guide >= 0.0, "--guide must be a number of at least 0, got {guide}");
    ensure!(settings.max_windows != Some(0), "--max-windows must be at least 1");
    ensure!(
        first_piece < line.pieces(),
        "--from {first_piece} is past the record's last piece (it has {} pieces, numbered from 0)",
        line.pieces()
    );
    let weights = weights_json(&options.weights);
    if let Some(played) = &run.weights {
        let changed = match &settings.weights_file {
            Some(file) => format!("the weights file {} no longer holds", file.display()),
            None => "this build's built-in weights are not".to_string(),
        };
        ensure!(
            *played == weights,
            "cannot resume {}: {changed} the weights the polish played (see its manifest)",
            run.output.display()
        );
    }
    let from = resume_from.unwrap_or(first_piece);
    match resume_from {
        Some(first) if first < line.pieces() => eprintln!("resuming the polish of {} from piece {first}", run.input),
        Some(_) => eprintln!("the polish of {} had searched its last window; recording that it finished", run.input),
        None => {}
    }
    let path = run.output.clone();
    let pool = thread_pool(settings.threads)?;
    prepare_record_path(&path)?;
    let manifest = |line: &Line, next: Option<usize>, seconds: f64, detours: usize| {
        etetris_manifest(serde_json::json!({
            "record": path.display().to_string(),
            "polished": run.input,
            "score_before": run.score_before,
            "polish_arguments": run.original,
            "moves": options.moves.name(),
            "beam": options.beam,
            "from": first_piece,
            "window": length,
            "stride": stride,
            "guide": guide,
            "refinements": options.refinements,
            "weights_file": settings.weights_file.as_ref().map(|p| p.display().to_string()),
            "weights": weights,
            "jitter_seed": settings.jitter_seed,
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
    // two always describe a polish that `resume` can continue (or one that has finished,
    // when a resume finds the last window done).
    let first = Some(from).filter(|&first| first < line.pieces());
    write_record_with_manifest(&path, &line.record(), "polish", manifest(&line, first, run.seconds, run.detours))?;
    let bar = pieces_bar(line.pieces(), true);
    let started = Instant::now();
    let mut detours = run.detours;
    let mut windows_searched = 0;
    let mut failure = None;
    let windows = Windows { from, ..settings.windows };
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
            // one window ahead of its manifest, which `resume` recognises by the score.
            // After the last window (or the one `max_windows` stops at) the two are final.
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
            if settings.max_windows == Some(windows_searched) || stop_flag().load(Ordering::SeqCst) {
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
    Ok(Outcome {
        line: polished.line,
        resume_from: polished.resume_from,
        windows_searched,
        detours,
        seconds: run.seconds + started.elapsed().as_secs_f64(),
        interrupted: stop_flag().load(Ordering::SeqCst),
    })
}

/// What [`resume`] found beside a record.
#[derive(Clone, Debug)]
pub enum Resumed<S> {
    /// The polish had finished: its record, score before and detours.
    Finished { line: Line, score_before: u32, detours: u64 },
    /// The polish goes on from piece `next` of `line` with `settings` (as its arguments
    /// parsed back) and `run`.
    From { settings: S, run: Run, line: Line, next: usize },
}

/// The polish that was writing `file` (stopped after a window, or killed), read back from
/// the manifest beside it: `parse` turns the arguments the polish was started with into
/// its settings and windows (an error: they no longer parse). Every error names `file`
/// and the manifest's field.
pub fn resume<S>(file: &Path, parse: impl FnOnce(&[String]) -> Result<(S, Windows), String>) -> Result<Resumed<S>> {
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
    let (settings, windows) = parse(&original).map_err(|e| fail(format!("its arguments no longer parse: {e}")))?;
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
    let next = match field("resume_from")? {
        serde_json::Value::Null => return Ok(Resumed::Finished { line, score_before, detours: number("detours")? }),
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
        // (`None` after it: it was the last window, and the polish from there, starting
        // past the end, searches nothing and records that it finished.)
        score if score > recorded_score => {
            detours += 1;
            windows.after(next, line.pieces()).unwrap_or(line.pieces())
        }
        score => bail!(fail(format!(
            "the record scores {score}, less than the {recorded_score} its manifest records: not the polish's output"
        ))),
    };
    let seconds = field("seconds")?.as_f64().unwrap_or(0.0);
    let weights = Some(field("weights")?.clone());
    let run = Run { input, score_before, original, output: file.to_path_buf(), detours, seconds, weights };
    Ok(Resumed::From { settings, run, line, next })
}
