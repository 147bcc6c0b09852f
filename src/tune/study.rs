//! Studies: independent repetitions of experiments, and what they say together.
//!
//! `tune --runs N EXP...` (or `runs = N` in an experiment file) runs each experiment N
//! times, repetition r seeded from (its master seed, r), each in its usual run folder
//! under `results/studies/<stamp>/<experiment>/run-<r>/`. The study folder then holds
//! `runs.csv` (one row per repetition), `curves.csv` (across repetitions, on a common grid
//! of pieces simulated: median, quartiles, mean and 95% interval of the re-evaluated
//! incumbent and of the generation best so far), `summary.csv` (per experiment: median
//! [IQR] and mean [95% interval] of the held-out scores), `comparisons.csv` (every pair of
//! experiments: Mann-Whitney's two-sided test, Holm-corrected across pairs, with
//! Vargha-Delaney's effect size), `summary.md` (both tables) and `curves.png`/`curves.svg`
//! (median and interquartile band of each experiment against pieces simulated).
//!
//! Each repetition is a campaign exactly as `tune` runs it (so each is deterministic at
//! any thread or rank count, and so is the study). On one machine they run one after the
//! other (one campaign fills the thread pool); under MPI as many run side by side as
//! there are ranks ([`Executor::side_by_side`]), so that campaigns with small rounds keep
//! every rank busy. A stopped study resumes with `tune --resume <study folder>`: finished
//! repetitions are read back, those in progress resume from their checkpoints, the rest
//! start.

use super::driver::{self, Outcome, RunOptions};
use super::experiment::{check_runs, Experiment};
use super::objective::Executor;
use crate::randomizer::game_seed;
use crate::support::atomic_file::AtomicFile;
use crate::support::stats::{self, holm, mann_whitney, quantile, Quantity, Summary};
use anyhow::{bail, Context, Result};
use plotters::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The file that makes a folder a study.
pub const STUDY_FILE: &str = "study.json";

const STUDY_FORMAT: u32 = 1;

/// Points of the common grid of pieces simulated in `curves.csv`.
const GRID_POINTS: usize = 41;

/// Separates repetition seeds from every other use of the master seed.
const STREAM_REPETITION: u64 = 0x5354_5544_5900_0001;

/// The master seed of repetition `run` (from 0) of an experiment whose seed is `master`:
/// 63 bits, so that it is a TOML integer (the repetition's experiment text records it).
pub fn repetition_seed(master: u64, run: u64) -> u64 {
    game_seed(game_seed(master, STREAM_REPETITION), run) >> 1
}

/// What a study folder records of itself: everything needed to resume it.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StudyFile {
    format: u32,
    created: String,
    crate_version: String,
    git_hash: String,
    experiments: Vec<StudyExperiment>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StudyExperiment {
    name: String,
    /// The experiment file's text as given.
    text: String,
    master_seed: u64,
    runs: u64,
}

/// Whether `dir` is a study folder (it holds `study.json`).
pub fn is_study(dir: &Path) -> bool {
    dir.join(STUDY_FILE).is_file()
}

/// Starts a study of `experiments`, each repeated `runs` times (else its file's `runs`, else
/// once), in a new folder under `<results>/studies/`.
pub fn start(
    experiments: Vec<Experiment>,
    runs: Option<u64>,
    options: &RunOptions,
    executor: &dyn Executor,
) -> Result<Outcome> {
    if let Some(runs) = runs {
        check_runs(runs).context("--runs")?;
    }
    let mut names = Vec::new();
    for e in &experiments {
        if names.contains(&e.name) {
            bail!("experiment {:?} is given twice: a study compares different experiments", e.name);
        }
        names.push(e.name.clone());
    }
    let study = StudyFile {
        format: STUDY_FORMAT,
        created: crate::support::run_dir::stamp(std::time::SystemTime::now()),
        crate_version: env!("CARGO_PKG_VERSION").to_string(),
        git_hash: crate::support::run_dir::git_hash().unwrap_or_else(|| "unknown".into()),
        experiments: experiments
            .iter()
            .map(|e| StudyExperiment {
                name: e.name.clone(),
                text: e.text.clone(),
                master_seed: e.file.seed,
                runs: runs.or(e.file.runs).unwrap_or(1),
            })
            .collect(),
    };
    // Every repetition's experiment is checked before the first game.
    for e in &study.experiments {
        for run in 0..e.runs {
            repetition(e, run)?;
        }
    }
    let base = options.results.join("studies");
    std::fs::create_dir_all(&base).with_context(|| format!("cannot create {}", base.display()))?;
    let dir = crate::support::run_dir::create_unique(&base, &study.created)?;
    let mut file = AtomicFile::create(&dir.join(STUDY_FILE))?;
    serde_json::to_writer_pretty(file.writer(), &study)?;
    writeln!(file.writer())?;
    file.commit()?;
    let total: u64 = study.experiments.iter().map(|e| e.runs).sum();
    eprintln!("study folder {} ({total} runs)", dir.display());
    run(&dir, &study, options, executor)
}

/// The study file of `dir`, read and checked.
fn read_study(dir: &Path) -> Result<StudyFile> {
    let path = dir.join(STUDY_FILE);
    let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let study: StudyFile =
        serde_json::from_str(&text).with_context(|| format!("{} is not a tetris-lab study", path.display()))?;
    if study.format != STUDY_FORMAT {
        bail!("{}: study format {} is not {STUDY_FORMAT}", path.display(), study.format);
    }
    Ok(study)
}

/// Redraws the curves of the study in `dir` from its repetitions' logs: into `out` (`.png`
/// or `.svg`), else into the study's own `curves.png` and `curves.svg`. The files drawn.
pub fn redraw(dir: &Path, out: Option<&Path>) -> Result<Vec<PathBuf>> {
    let study = read_study(dir)?;
    let mut rows = Vec::new();
    for e in &study.experiments {
        check_runs(e.runs).with_context(|| format!("{}", dir.join(STUDY_FILE).display()))?;
        for run in 0..e.runs {
            let folder = dir.join(&e.name).join(run_name(run, e.runs));
            if driver::read_held_out(&folder)?.is_some() {
                rows.push(read_row(e, run, &folder)?);
            }
        }
    }
    let rows: Vec<&RunRow> = rows.iter().collect();
    let bands = bands(&study, &rows)?;
    if bands.iter().all(|b| b.points.is_empty()) {
        bail!("study {} has no finished run to draw yet", dir.display());
    }
    let label = fitness_label(&study)?;
    let outs = match out {
        Some(out) => vec![out.to_path_buf()],
        None => vec![dir.join("curves.png"), dir.join("curves.svg")],
    };
    for out in &outs {
        let file = AtomicFile::create(out)?;
        draw(&bands, &label, file.temporary_path())?;
        file.commit()?;
    }
    Ok(outs)
}

/// The y axis's words: the fitness the experiments measure, when they agree.
fn fitness_label(study: &StudyFile) -> Result<String> {
    let mut fitness: Vec<String> = Vec::new();
    for e in &study.experiments {
        let name = repetition(e, 0)?.fitness.as_str().to_string();
        if !fitness.contains(&name) {
            fitness.push(name);
        }
    }
    Ok(if fitness.len() == 1 { format!("{} per game", fitness[0]) } else { "fitness".into() })
}

/// Resumes the study in `dir`.
pub fn resume(dir: &Path, options: &RunOptions, executor: &dyn Executor) -> Result<Outcome> {
    let path = dir.join(STUDY_FILE);
    let study = read_study(dir)?;
    // Checked whole before any folder is made: an edited file could name folders outside
    // the study (`../x`) or ask for absurd repetition counts.
    if study.experiments.is_empty() {
        bail!("{}: no experiments: not a study this program wrote", path.display());
    }
    for e in &study.experiments {
        check_runs(e.runs).and_then(|_| repetition(e, 0).map(drop)).with_context(|| format!("{}", path.display()))?;
        crate::support::run_dir::check_repetitions(dir, &e.name, e.runs, &path)?;
    }
    eprintln!("resuming study {}", dir.display());
    run(dir, &study, options, executor)
}

/// Repetition `run` (from 0) of an experiment: its text with the repetition's seed, as a
/// single run.
fn repetition(e: &StudyExperiment, run: u64) -> Result<Experiment> {
    let mut table: toml::Table = toml::from_str(&e.text)
        .map_err(|error| crate::names::explain_toml_error(&e.text, &error))
        .with_context(|| format!("experiment {}: not a TOML table", e.name))?;
    table.insert("seed".into(), toml::Value::Integer(repetition_seed(e.master_seed, run) as i64));
    table.insert("name".into(), toml::Value::String(e.name.clone()));
    table.remove("runs");
    let text = toml::to_string(&table).context("cannot write the repetition's experiment")?;
    let experiment = Experiment::parse(&text, &e.name).with_context(|| format!("experiment {}", e.name))?;
    Ok(experiment)
}

fn run_name(run: u64, runs: u64) -> String {
    let width = runs.to_string().len().max(2);
    format!("run-{:0width$}", run + 1)
}

/// One repetition, finished or not.
struct RunRow {
    experiment: String,
    run: u64,
    seed: u64,
    folder: PathBuf,
    held_out: Option<Summary>,
    /// The preset's published weights on the same held-out games.
    published: Option<Summary>,
    pieces: u64,
    seconds: f64,
}

fn run(dir: &Path, study: &StudyFile, options: &RunOptions, executor: &dyn Executor) -> Result<Outcome> {
    // Every repetition, in the study's order: (experiment, run).
    let tasks: Vec<(usize, u64)> =
        study.experiments.iter().enumerate().flat_map(|(i, e)| (0..e.runs).map(move |r| (i, r))).collect();
    let total = tasks.len();
    let mut rows: BTreeMap<(usize, u64), RunRow> = BTreeMap::new();
    let mut pending = VecDeque::new();
    for &(i, r) in &tasks {
        let e = &study.experiments[i];
        let parent = dir.join(&e.name);
        std::fs::create_dir_all(&parent).with_context(|| format!("cannot create {}", parent.display()))?;
        let folder = parent.join(run_name(r, e.runs));
        if driver::read_held_out(&folder)?.is_some() {
            rows.insert((i, r), read_row(e, r, &folder)?);
        } else {
            pending.push_back((i, r));
        }
    }
    // Side by side when the executor has more workers than one campaign keeps busy (MPI
    // ranks): each repetition is deterministic, so the study's numbers are the same.
    let side_by_side = executor.side_by_side().clamp(1, pending.len().max(1));
    if side_by_side > 1 {
        eprintln!("study: {side_by_side} repetitions side by side");
    }
    let done = rows.len();
    let shared = Mutex::new(Shared { pending, rows, started: done, failed: None, stopped: false });
    std::thread::scope(|scope| {
        for _ in 0..side_by_side {
            scope.spawn(|| loop {
                let (i, r, number) = {
                    let mut shared = shared.lock().expect("no panics while holding the lock");
                    if shared.stopped || shared.failed.is_some() {
                        return;
                    }
                    let Some((i, r)) = shared.pending.pop_front() else { return };
                    shared.started += 1;
                    (i, r, shared.started)
                };
                let e = &study.experiments[i];
                eprintln!("study: {} run {} of {} ({number} of {total})", e.name, r + 1, e.runs);
                let ended = repeat(dir, e, r, options, executor);
                let mut shared = shared.lock().expect("no panics while holding the lock");
                match ended {
                    Ok(Some(row)) => {
                        eprintln!("study: {} run {} of {} finished", e.name, r + 1, e.runs);
                        shared.rows.insert((i, r), row);
                        let rows: Vec<&RunRow> = shared.rows.values().collect();
                        if let Err(error) = write_outputs(dir, study, &rows) {
                            shared.failed.get_or_insert(error);
                        }
                    }
                    Ok(None) => shared.stopped = true,
                    Err(error) => {
                        shared.failed.get_or_insert(error);
                    }
                }
            });
        }
    });
    let shared = shared.into_inner().expect("no panics while holding the lock");
    if let Some(error) = shared.failed {
        return Err(error);
    }
    let rows: Vec<&RunRow> = shared.rows.values().collect();
    if shared.stopped || rows.len() < total {
        write_outputs(dir, study, &rows)?;
        eprintln!("study stopped; resume with: tetris-lab tune --resume {}", dir.display());
        return Ok(Outcome::Interrupted(dir.to_path_buf()));
    }
    print_summary(dir, study, &rows)?;
    Ok(Outcome::Finished(dir.to_path_buf()))
}

/// What the repetitions running side by side share.
struct Shared {
    /// Repetitions not started yet, in the study's order.
    pending: VecDeque<(usize, u64)>,
    /// Finished repetitions, by (experiment, run).
    rows: BTreeMap<(usize, u64), RunRow>,
    /// Repetitions finished or started, for the "k of n" lines.
    started: usize,
    /// The first error: no repetition starts after it.
    failed: Option<anyhow::Error>,
    /// Ctrl-C stopped a repetition: no other starts.
    stopped: bool,
}

/// Runs (or resumes) repetition `run` of `e` in its folder: its row, or `None` if Ctrl-C
/// stopped it.
fn repeat(
    dir: &Path,
    e: &StudyExperiment,
    run: u64,
    options: &RunOptions,
    executor: &dyn Executor,
) -> Result<Option<RunRow>> {
    let parent = dir.join(&e.name);
    let name = run_name(run, e.runs);
    let folder = parent.join(&name);
    let outcome = if folder.join("checkpoint.json").is_file() {
        driver::resume(&folder, None, options, executor)?
    } else {
        if folder.exists() {
            // Killed between creating the folder and its first checkpoint: no work was
            // done in it yet.
            std::fs::remove_dir_all(&folder).with_context(|| format!("cannot clear {}", folder.display()))?;
        }
        driver::start_in(repetition(e, run)?, &parent, Some(&name), options, executor)?
    };
    let finished = matches!(outcome, Outcome::Finished(_)) && driver::read_held_out(&folder)?.is_some();
    Ok(if finished { Some(read_row(e, run, &folder)?) } else { None })
}

fn read_row(e: &StudyExperiment, run: u64, folder: &Path) -> Result<RunRow> {
    let held_out = driver::read_held_out(folder)?;
    let path = folder.join("checkpoint.json");
    let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let checkpoint: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{} is not JSON", path.display()))?;
    Ok(RunRow {
        experiment: e.name.clone(),
        run: run + 1,
        seed: repetition_seed(e.master_seed, run),
        folder: folder.to_path_buf(),
        held_out,
        published: driver::read_held_out_row(folder, "published")?,
        pieces: checkpoint.get("pieces").and_then(|v| v.as_u64()).unwrap_or(0),
        seconds: checkpoint.get("seconds").and_then(|v| v.as_f64()).unwrap_or(f64::NAN),
    })
}

/// One repetition's curve: pieces simulated, the incumbent's re-evaluation and the best
/// measured so far, after each generation.
struct Curve {
    pieces: Vec<f64>,
    incumbent: Vec<f64>,
    best_so_far: Vec<f64>,
}

fn read_curve(folder: &Path) -> Result<Curve> {
    let path = folder.join("generations.csv");
    let mut reader = csv::Reader::from_path(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let headers = reader.headers().with_context(|| format!("{}: bad CSV", path.display()))?.clone();
    let column = |names: &[&str]| -> Result<usize> {
        names
            .iter()
            .find_map(|n| headers.iter().position(|h| h == *n))
            .with_context(|| format!("{} has no column {:?}", path.display(), names[0]))
    };
    let (pieces, incumbent, best) =
        (column(&["pieces"])?, column(&["incumbent_mean"])?, column(&["generation_best_so_far", "best_so_far"])?);
    let mut curve = Curve { pieces: Vec::new(), incumbent: Vec::new(), best_so_far: Vec::new() };
    for record in reader.records() {
        let record = record.with_context(|| format!("{}: bad CSV", path.display()))?;
        let value = |i: usize| -> Result<f64> {
            let text = record.get(i).unwrap_or("");
            let v: f64 = text
                .parse()
                .with_context(|| format!("{}: {} is not a number", path.display(), crate::names::Quoted(text)))?;
            anyhow::ensure!(v.is_finite(), "{}: {text} is not a finite number", path.display());
            Ok(v)
        };
        curve.pieces.push(value(pieces)?);
        curve.incumbent.push(value(incumbent)?);
        curve.best_so_far.push(value(best)?);
    }
    Ok(curve)
}

/// A curve's value at `x` pieces: that of the last generation done by then (the last one
/// for any later `x`: a finished run keeps its final incumbent); `None` before its first.
fn value_at(pieces: &[f64], values: &[f64], x: f64) -> Option<f64> {
    let done = pieces.partition_point(|&p| p <= x);
    (done > 0).then(|| values[done - 1])
}

/// Median, quartiles, mean and the 95% interval of the mean of a sample.
struct Spread {
    count: usize,
    median: f64,
    q1: f64,
    q3: f64,
    summary: Summary,
}

impl Spread {
    /// The CSV columns `median, q1, q3, mean, low_95, high_95` (curves.csv and summary.csv
    /// write them in this order).
    fn columns(&self) -> [String; 6] {
        [self.median, self.q1, self.q3, self.summary.mean, self.summary.low_95(), self.summary.high_95()].map(number)
    }
}

fn spread(values: &[f64]) -> Spread {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    Spread {
        count: values.len(),
        median: quantile(&sorted, 0.5),
        q1: quantile(&sorted, 0.25),
        q3: quantile(&sorted, 0.75),
        summary: Summary::of(values, Quantity::NonNegative),
    }
}

fn number(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        String::new()
    }
}

/// Curves of every experiment across its finished repetitions on a common grid.
struct Band {
    experiment: String,
    /// Median over the runs of the published weights' held-out score.
    published: Option<f64>,
    /// (pieces, incumbent spread, best-so-far spread) per grid point with data.
    points: Vec<(f64, Spread, Spread)>,
}

fn bands(study: &StudyFile, rows: &[&RunRow]) -> Result<Vec<Band>> {
    let mut curves: Vec<(String, Curve)> = Vec::new();
    for row in rows.iter().filter(|r| r.held_out.is_some()) {
        curves.push((row.experiment.clone(), read_curve(&row.folder)?));
    }
    let ends: Vec<f64> = curves.iter().filter_map(|(_, c)| c.pieces.last().copied()).collect();
    let starts: Vec<f64> = curves.iter().filter_map(|(_, c)| c.pieces.first().copied()).collect();
    let (Some(low), Some(high)) = (starts.iter().copied().reduce(f64::min), ends.iter().copied().reduce(f64::max))
    else {
        return Ok(Vec::new());
    };
    let grid: Vec<f64> =
        (0..GRID_POINTS).map(|i| (low + (high - low) * i as f64 / (GRID_POINTS - 1) as f64).round()).collect();
    let mut bands = Vec::new();
    for e in &study.experiments {
        let mine: Vec<&Curve> = curves.iter().filter(|(n, _)| *n == e.name).map(|(_, c)| c).collect();
        let mut points = Vec::new();
        for &x in &grid {
            let incumbent: Vec<f64> = mine.iter().filter_map(|c| value_at(&c.pieces, &c.incumbent, x)).collect();
            let best: Vec<f64> = mine.iter().filter_map(|c| value_at(&c.pieces, &c.best_so_far, x)).collect();
            if !incumbent.is_empty() {
                points.push((x, spread(&incumbent), spread(&best)));
            }
        }
        let mut published: Vec<f64> =
            rows.iter().filter(|r| r.experiment == e.name).filter_map(|r| r.published.map(|s| s.mean)).collect();
        published.sort_by(f64::total_cmp);
        let published = (!published.is_empty()).then(|| quantile(&published, 0.5));
        bands.push(Band { experiment: e.name.clone(), published, points });
    }
    Ok(bands)
}

fn write_csv(path: &Path, header: &[&str], rows: &[Vec<String>]) -> Result<()> {
    let mut file = AtomicFile::create(path)?;
    {
        let mut writer = csv::Writer::from_writer(file.writer());
        writer.write_record(header)?;
        for row in rows {
            writer.write_record(row)?;
        }
        writer.flush().with_context(|| format!("cannot write {}", path.display()))?;
    }
    file.commit()
}

/// The held-out means of an experiment's finished repetitions.
fn scores(rows: &[&RunRow], experiment: &str) -> Vec<f64> {
    rows.iter().filter(|r| r.experiment == experiment).filter_map(|r| r.held_out.map(|s| s.mean)).collect()
}

/// The median over an experiment's runs of the published weights' held-out score.
fn published_median(rows: &[&RunRow], experiment: &str) -> f64 {
    let mut values: Vec<f64> =
        rows.iter().filter(|r| r.experiment == experiment).filter_map(|r| r.published.map(|s| s.mean)).collect();
    values.sort_by(f64::total_cmp);
    quantile(&values, 0.5)
}

/// Every pair of experiments: (a, b, test), p-values Holm-corrected in the second field.
fn comparisons(study: &StudyFile, rows: &[&RunRow]) -> Vec<(String, String, stats::Comparison, f64)> {
    let mut pairs = Vec::new();
    for (i, a) in study.experiments.iter().enumerate() {
        for b in &study.experiments[i + 1..] {
            pairs.push((a.name.clone(), b.name.clone(), mann_whitney(&scores(rows, &a.name), &scores(rows, &b.name))));
        }
    }
    let adjusted = holm(&pairs.iter().map(|p| p.2.p_value).collect::<Vec<_>>());
    pairs.into_iter().zip(adjusted).map(|((a, b, c), p)| (a, b, c, p)).collect()
}

fn write_outputs(dir: &Path, study: &StudyFile, rows: &[&RunRow]) -> Result<()> {
    let run_rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let s = r.held_out;
            vec![
                r.experiment.clone(),
                r.run.to_string(),
                r.seed.to_string(),
                r.folder.strip_prefix(dir).unwrap_or(&r.folder).display().to_string(),
                s.map(|s| number(s.mean)).unwrap_or_default(),
                s.map(|s| number(s.low_95())).unwrap_or_default(),
                s.map(|s| number(s.high_95())).unwrap_or_default(),
                s.map(|s| s.count.to_string()).unwrap_or_default(),
                r.published.map(|s| number(s.mean)).unwrap_or_default(),
                r.pieces.to_string(),
                format!("{:.3}", r.seconds),
            ]
        })
        .collect();
    write_csv(
        &dir.join("runs.csv"),
        &[
            "experiment",
            "run",
            "seed",
            "run_folder",
            "held_out_mean",
            "held_out_low_95",
            "held_out_high_95",
            "held_out_games",
            "published_held_out_mean",
            "pieces",
            "seconds",
        ],
        &run_rows,
    )?;

    let bands = bands(study, rows)?;
    let mut curve_rows = Vec::new();
    for band in &bands {
        for (x, incumbent, best) in &band.points {
            let mut row = vec![band.experiment.clone(), number(*x), incumbent.count.to_string()];
            for s in [incumbent, best] {
                row.extend(s.columns());
            }
            curve_rows.push(row);
        }
    }
    write_csv(
        &dir.join("curves.csv"),
        &[
            "experiment",
            "pieces",
            "runs",
            "incumbent_median",
            "incumbent_q1",
            "incumbent_q3",
            "incumbent_mean",
            "incumbent_low_95",
            "incumbent_high_95",
            "generation_best_so_far_median",
            "generation_best_so_far_q1",
            "generation_best_so_far_q3",
            "generation_best_so_far_mean",
            "generation_best_so_far_low_95",
            "generation_best_so_far_high_95",
        ],
        &curve_rows,
    )?;

    let mut summary_rows = Vec::new();
    for e in &study.experiments {
        let s = spread(&scores(rows, &e.name));
        let mut row = vec![e.name.clone(), s.count.to_string()];
        row.extend(s.columns());
        row.push(number(published_median(rows, &e.name)));
        summary_rows.push(row);
    }
    write_csv(
        &dir.join("summary.csv"),
        &["experiment", "runs", "median", "q1", "q3", "mean", "low_95", "high_95", "published_median"],
        &summary_rows,
    )?;
    let pairs = comparisons(study, rows);
    let pair_rows: Vec<Vec<String>> = pairs
        .iter()
        .map(|(a, b, c, holm)| {
            vec![
                a.clone(),
                b.clone(),
                scores(rows, a).len().to_string(),
                scores(rows, b).len().to_string(),
                number(c.u),
                number(c.p_value),
                number(*holm),
                number(c.effect_size),
                if *holm < 0.05 { "yes" } else { "no" }.to_string(),
            ]
        })
        .collect();
    write_csv(
        &dir.join("comparisons.csv"),
        &["experiment_a", "experiment_b", "runs_a", "runs_b", "u", "p_value", "p_holm", "effect_size", "significant"],
        &pair_rows,
    )?;
    let mut file = AtomicFile::create(&dir.join("summary.md"))?;
    file.writer().write_all(markdown(study, rows).as_bytes())?;
    file.commit()?;
    if !bands.is_empty() {
        let label = fitness_label(study)?;
        draw(&bands, &label, &dir.join("curves.png"))?;
        draw(&bands, &label, &dir.join("curves.svg"))?;
    }
    Ok(())
}

fn grouped(x: f64) -> String {
    if !x.is_finite() {
        return "-".into();
    }
    crate::support::text::group(x, 0)
}

fn markdown(study: &StudyFile, rows: &[&RunRow]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Held-out score of each run's best weights, across runs; the published weights on the same games.\n"
    );
    let _ = writeln!(
        out,
        "| experiment | runs | median [IQR] | mean [95% interval, {}] | published weights (median) |\n|---|---:|---|---|---:|",
        Quantity::NonNegative.interval_method()
    );
    for e in &study.experiments {
        let s = spread(&scores(rows, &e.name));
        let _ = writeln!(
            out,
            "| {} | {} | {} [{}, {}] | {} [{}, {}] | {} |",
            e.name,
            s.count,
            grouped(s.median),
            grouped(s.q1),
            grouped(s.q3),
            grouped(s.summary.mean),
            grouped(s.summary.low_95()),
            grouped(s.summary.high_95()),
            grouped(published_median(rows, &e.name))
        );
    }
    let pairs = comparisons(study, rows);
    if !pairs.is_empty() {
        let _ = writeln!(
            out,
            "\nMann-Whitney U, two-sided, {}; effect size A = P(a beats b).\n",
            if pairs.len() == 1 {
                "one pair (no correction needed)".to_string()
            } else {
                format!("Holm-corrected across the {} pairs", pairs.len())
            }
        );
        let _ = writeln!(out, "| a | b | p | p (Holm) | A | significant at 5% |\n|---|---|---:|---:|---:|---|");
        for (a, b, c, holm) in &pairs {
            let _ = writeln!(
                out,
                "| {a} | {b} | {:.4} | {:.4} | {:.2} | {} |",
                c.p_value,
                holm,
                c.effect_size,
                if *holm < 0.05 { "yes" } else { "no" }
            );
        }
    }
    out
}

fn print_summary(dir: &Path, study: &StudyFile, rows: &[&RunRow]) -> Result<()> {
    println!("{}", markdown(study, rows));
    println!("study results in {}", dir.display());
    Ok(())
}

fn draw(bands: &[Band], y_label: &str, out: &Path) -> Result<()> {
    super::plot::register_font();
    let svg = out.extension().is_some_and(|e| e == "svg");
    let size = (1200, 600);
    if svg {
        let root = SVGBackend::new(out, size).into_drawing_area();
        draw_on(&root, bands, y_label)?;
        root.present().with_context(|| format!("cannot write {}", out.display()))?;
    } else {
        let root = BitMapBackend::new(out, size).into_drawing_area();
        draw_on(&root, bands, y_label)?;
        root.present().with_context(|| format!("cannot write {}", out.display()))?;
    }
    Ok(())
}

/// The chart on the left, its legend in a panel of its own on the right, where it covers
/// no data.
fn draw_on<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    bands: &[Band],
    y_label: &str,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let fail = |e: &dyn std::fmt::Display| anyhow::anyhow!("{e}");
    root.fill(&WHITE).map_err(|e| fail(&e))?;
    let (plot_area, legend_area) = root.split_horizontally(860);
    let xs = bands.iter().flat_map(|b| b.points.iter().map(|p| p.0));
    let (x_low, x_high) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), x| (l.min(x), h.max(x)));
    let ys = bands.iter().flat_map(|b| b.points.iter().flat_map(|p| [p.1.q1, p.1.q3, p.1.median]));
    let ys = ys.chain(bands.iter().filter_map(|b| b.published));
    let (y_low, y_high) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), y| (l.min(y), h.max(y)));
    if !(x_low.is_finite() && x_high.is_finite() && y_low.is_finite() && y_high.is_finite()) {
        bail!("no finite values to plot");
    }
    let x_high = if x_high > x_low { x_high } else { x_low + 1.0 };
    let y_low = y_low.min(0.0);
    let y_high = if y_high > y_low { y_high } else { y_low + 1.0 };
    // A margin on both sides, so that a median on 0 is not hidden by the axis.
    let pad = (y_high - y_low) * 0.04;
    let (y_low, y_high) = (y_low - pad, y_high + pad);
    let (x_axis, x_step) = super::plot::Ticked::new(x_low, x_high, 8);
    let (y_axis, y_step) = super::plot::Ticked::new(y_low, y_high, 10);
    let largest = y_low.abs().max(y_high.abs());
    let mut chart = ChartBuilder::on(&plot_area)
        .caption("Re-evaluated incumbent across runs: median and interquartile band", ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(60)
        .y_label_area_size(90)
        .build_cartesian_2d(x_axis, y_axis)
        .map_err(|e| fail(&e))?;
    chart
        .configure_mesh()
        .x_desc("pieces simulated (a run ends with the generation that reaches its budget)")
        .y_desc(y_label)
        .x_label_formatter(&|x| super::plot::tick_label(*x, x_step, x_high, 1e6))
        .y_label_formatter(&|y| super::plot::tick_label(*y, y_step, largest, 1e7))
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 16))
        .light_line_style(WHITE.mix(0.0))
        .bold_line_style(BLACK.mix(0.08))
        .draw()
        .map_err(|e| fail(&e))?;
    // The legend's entries: a line sample and its words.
    let mut legend: Vec<(ShapeStyle, String)> = Vec::new();
    for (i, band) in bands.iter().enumerate() {
        let color = super::plot::COLORS[i % super::plot::COLORS.len()];
        let mut outline: Vec<(f64, f64)> = band.points.iter().map(|p| (p.0, p.1.q3)).collect();
        outline.extend(band.points.iter().rev().map(|p| (p.0, p.1.q1)));
        chart.draw_series(std::iter::once(Polygon::new(outline, color.mix(0.18)))).map_err(|e| fail(&e))?;
        let runs = band.points.iter().map(|p| p.1.count).max().unwrap_or(0);
        chart
            .draw_series(LineSeries::new(band.points.iter().map(|p| (p.0, p.1.median)), color.stroke_width(2)))
            .map_err(|e| fail(&e))?;
        legend.push((color.stroke_width(3), format!("{} ({runs} runs)", band.experiment)));
    }
    // The published weights' level, once per distinct value (experiments with the same
    // seed and preset share their held-out games, hence one line), dashed in gray.
    let mut levels: Vec<f64> = bands.iter().filter_map(|b| b.published).collect();
    levels.sort_by(f64::total_cmp);
    levels.dedup();
    let gray = RGBColor(90, 90, 90);
    for level in &levels {
        let step = (x_high - x_low) / 60.0;
        let dashes = (0..60).step_by(2).map(|i| {
            let x = x_low + i as f64 * step;
            PathElement::new([(x, *level), ((x + step).min(x_high), *level)], gray.stroke_width(2))
        });
        chart.draw_series(dashes).map_err(|e| fail(&e))?;
    }
    if !levels.is_empty() {
        legend.push((gray.stroke_width(2), "published weights on the".into()));
        legend.push((WHITE.stroke_width(0), "same held-out games (median)".into()));
    }
    for (k, (style, words)) in legend.iter().enumerate() {
        let y = 60 + 26 * k as i32;
        if style.stroke_width > 0 {
            legend_area.draw(&PathElement::new(vec![(10, y), (40, y)], *style)).map_err(|e| fail(&e))?;
        }
        legend_area.draw(&Text::new(words.as_str(), (48, y - 9), ("sans-serif", 15))).map_err(|e| fail(&e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tune::experiment::MAX_RUNS;

    #[test]
    fn repetition_seeds_differ_and_are_stable() {
        let seeds: Vec<u64> = (0..5).map(|r| repetition_seed(1, r)).collect();
        for (i, a) in seeds.iter().enumerate() {
            assert!(seeds[i + 1..].iter().all(|b| b != a), "{seeds:?}");
        }
        assert_eq!(repetition_seed(1, 3), repetition_seed(1, 3));
        assert_ne!(repetition_seed(1, 0), repetition_seed(2, 0));
    }

    #[test]
    fn curves_step_and_carry_forward() {
        let pieces = [10.0, 20.0, 30.0];
        let values = [1.0, 2.0, 3.0];
        assert_eq!(value_at(&pieces, &values, 5.0), None);
        assert_eq!(value_at(&pieces, &values, 10.0), Some(1.0));
        assert_eq!(value_at(&pieces, &values, 29.0), Some(2.0));
        assert_eq!(value_at(&pieces, &values, 1e9), Some(3.0));
    }

    #[test]
    fn run_names_sort_as_numbers() {
        assert_eq!(run_name(0, 10), "run-01");
        assert_eq!(run_name(9, 10), "run-10");
        assert_eq!(run_name(4, 100), "run-005");
        assert!(check_runs(0).is_err() && check_runs(MAX_RUNS + 1).is_err() && check_runs(10).is_ok());
    }

    #[test]
    fn grouped_thousands() {
        assert_eq!(grouped(1234567.4), "1,234,567");
        assert_eq!(grouped(999.0), "999");
        assert_eq!(grouped(-1234.0), "-1,234");
    }
}
