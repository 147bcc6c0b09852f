//! The campaign driver: everything around the optimizer. It owns
//! - the budget (games and/or pieces simulated, and/or generations; a generation is never
//!   cut short, the limits are checked between generations);
//! - the seeds: every random number comes from the master seed. All candidates of a
//!   generation play the same games (common random numbers); the incumbent and its
//!   challenger are re-evaluated on fresh seeds each generation; the final best is scored
//!   on held-out seeds that tuning never saw;
//! - parallel evaluation: all (candidate, game) pairs of a generation run on the rayon
//!   pool and are collected in order, so results do not depend on the thread count;
//! - the logs (`evaluations.csv`, `generations.csv`, flushed every generation), the
//!   checkpoint (written atomically after the logs, recording their lengths), resume
//!   (logs cut back to the checkpoint's lengths, the generation replayed), the plots,
//!   `held_out.csv`, `best.toml`, the progress bar and Ctrl-C.

use super::experiment::{build_objective, Experiment};
use super::objective::{CampaignId, Executor, Objective, Played, Players, Round};
use super::target::About;
use super::{Maximize, Optimizer};
use crate::interrupt::{stop_flag, stop_on_ctrl_c};
use crate::randomizer::game_seed;
use crate::support::atomic_file::AtomicFile;
use crate::support::run_dir::utc_iso;
use crate::support::stats::{Quantity, Summary};
use crate::support::threads::thread_pool;
use anyhow::{anyhow, bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Independent seed streams derived from the master seed.
const STREAM_OPTIMIZER: u64 = 1;
const STREAM_GENERATION: u64 = 2;
const STREAM_REEVALUATION: u64 = 3;
const STREAM_HELD_OUT: u64 = 4;

fn stream(master: u64, label: u64, index: u64) -> u64 {
    game_seed(game_seed(master, label), index)
}

/// Checkpoint format; bump when the layout changes.
const CHECKPOINT_FORMAT: u32 = 2;
/// Checkpoints written before the checksum (read still, checked against the logs only).
const CHECKPOINT_FORMAT_UNSEALED: u32 = 1;

/// How to run a campaign.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub threads: Option<usize>,
    /// Runs go to `<results>/<experiment>/<run-id>/`.
    pub results: PathBuf,
}

/// The incumbent: the best point so far as its last re-evaluation measured it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Incumbent {
    pub point: Vec<f64>,
    pub mean: f64,
    pub low: f64,
    pub high: f64,
    pub games: u64,
}

/// What `--resume` needs, written after every generation.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Checkpoint {
    pub format: u32,
    pub experiment_name: String,
    pub experiment_text: String,
    /// Generations completed.
    pub generation: u64,
    pub evaluations: u64,
    pub games: u64,
    pub pieces: u64,
    /// Wall-clock seconds of tuning so far (informative only).
    pub seconds: f64,
    /// The highest fitness measured on a generation's games (optimistic: selected on the
    /// same games it was measured on); `generation_best_so_far` in `generations.csv`.
    pub best_measured: Option<f64>,
    pub incumbent: Option<Incumbent>,
    pub optimizer: serde_json::Value,
    pub evaluations_csv_bytes: u64,
    pub generations_csv_bytes: u64,
    /// Tuning is over (the held-out evaluation and `best.toml` may still be missing).
    pub tuning_done: bool,
}

/// The checksum of a checkpoint read as JSON: FNV-1a of its compact JSON (keys sorted)
/// without the `checksum` key, in hex. From format 2 on, `checkpoint.json` holds it under
/// that key, so that a damaged or edited checkpoint is refused rather than resumed from.
pub fn checkpoint_checksum(checkpoint: &serde_json::Value) -> String {
    crate::checksum::json_checksum(checkpoint)
}

/// The unit a campaign's budget (and its progress bar) counts in: the first of pieces,
/// games and generations the experiment's `[budget]` gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BudgetUnit {
    Pieces,
    Games,
    Generations,
}

impl BudgetUnit {
    fn name(self) -> &'static str {
        match self {
            BudgetUnit::Pieces => "pieces",
            BudgetUnit::Games => "games",
            BudgetUnit::Generations => "generations",
        }
    }
    /// How much of the budget a checkpoint has used, in this unit.
    fn of(self, c: &Checkpoint) -> u64 {
        match self {
            BudgetUnit::Pieces => c.pieces,
            BudgetUnit::Games => c.games,
            BudgetUnit::Generations => c.generation,
        }
    }
}

/// Work done by a step of a generation, added to the checkpoint's totals.
#[derive(Clone, Copy, Debug, Default)]
struct Work {
    games: u64,
    pieces: u64,
    evaluations: u64,
}

/// One generation's candidates and what they measured.
struct Generation {
    index: u64,
    candidates: Vec<Vec<f64>>,
    evaluations: Vec<Evaluation>,
    best_index: usize,
    /// Best and mean fitness over the candidates.
    best: f64,
    mean: f64,
    /// The optimizer's recommendation, else the best candidate.
    challenger: Vec<f64>,
    /// Its lines of `evaluations.csv`.
    rows: String,
    work: Work,
}

/// The incumbent after a generation, with the re-evaluation's log lines and work.
struct Measured {
    incumbent: Incumbent,
    rows: String,
    work: Work,
}

/// Tuning time: this session's wall clock plus the seconds of earlier sessions.
struct Clock {
    started: Instant,
    seconds_before: f64,
}

impl Clock {
    fn seconds(&self) -> f64 {
        self.seconds_before + self.started.elapsed().as_secs_f64()
    }
}

/// Makes Ctrl-C set [`stop_flag`]: the campaign finishes nothing new, keeps its last
/// checkpoint and exits.
fn install_ctrl_c() {
    stop_on_ctrl_c(
        "Ctrl-C: stopping after the games in progress (press again to exit at once)",
        Some("second Ctrl-C: exiting now (the last checkpoint stays)"),
    );
}

/// The result of one candidate evaluation.
#[derive(Clone, Debug)]
struct Evaluation {
    summary: Summary,
    pieces: u64,
    /// CPU seconds summed over the games.
    seconds: f64,
}

impl Evaluation {
    /// Per-candidate evaluations from a round's results (`games` consecutive jobs each).
    fn from_jobs(results: &[Played], games: u64, quantity: Quantity) -> Vec<Evaluation> {
        results
            .chunks(games as usize)
            .map(|chunk| Evaluation {
                summary: Summary::of(&chunk.iter().map(|r| r.fitness).collect::<Vec<_>>(), quantity),
                pieces: chunk.iter().map(|r| r.pieces).sum(),
                seconds: chunk.iter().map(|r| r.seconds).sum(),
            })
            .collect()
    }
}

/// A campaign ready to run: the experiment, its game, the output files.
struct Campaign<'e> {
    experiment: Experiment,
    run_dir: PathBuf,
    /// The rule set, board and policy, for the manifest and the logs.
    about: About,
    objective: Box<dyn Objective>,
    executor: &'e dyn Executor,
    /// The executor's number for this campaign, once it has begun.
    id: Option<CampaignId>,
    pool: rayon::ThreadPool,
    pieces_live: Arc<AtomicU64>,
}

impl Drop for Campaign<'_> {
    fn drop(&mut self) {
        if let Some(id) = self.id {
            self.executor.end(id);
        }
    }
}

/// How a campaign ended.
pub enum Outcome {
    Finished(PathBuf),
    Interrupted(PathBuf),
}

/// Starts a new run of an experiment (read from a file, or the built-in quick start) in a
/// new folder `<results>/<experiment>/<run-id>/`.
pub fn start(experiment: Experiment, options: &RunOptions, executor: &dyn Executor) -> Result<Outcome> {
    let base = options.results.join(&experiment.name);
    std::fs::create_dir_all(&base).with_context(|| format!("cannot create results folder {}", base.display()))?;
    start_in(experiment, &base, None, options, executor)
}

/// Starts a new run in a new folder under `parent`: `name` (a study's repetitions use
/// fixed names, so that a resumed study finds them), else a UTC stamp.
pub fn start_in(
    experiment: Experiment,
    parent: &Path,
    name: Option<&str>,
    options: &RunOptions,
    executor: &dyn Executor,
) -> Result<Outcome> {
    let mut campaign = Campaign::new(experiment, options.threads, PathBuf::new(), executor)?;
    campaign.run_dir = match name {
        Some(name) => {
            let dir = parent.join(name);
            std::fs::create_dir(&dir).with_context(|| format!("cannot create run folder {}", dir.display()))?;
            dir
        }
        None => new_run_dir(parent)?,
    };
    campaign.write_manifest(None)?;
    campaign.id = Some(executor.begin(&campaign.experiment.as_text(), &campaign.run_dir)?);
    let optimizer = campaign
        .experiment
        .file
        .optimizer
        .build(&campaign.experiment.space, stream(campaign.experiment.file.seed, STREAM_OPTIMIZER, 0))?;
    let mut names: Vec<String> = vec!["generation".into(), "candidate".into()];
    names.extend(campaign.experiment.feature_names.iter().map(|s| s.to_string()));
    names.extend(["games", "mean", "standard_deviation", "pieces", "seconds"].map(String::from));
    let evaluations_header = csv_line(&names);
    let generations_header = csv_line(&GENERATION_COLUMNS.map(String::from));
    let path = |name: &str| campaign.run_dir.join(name);
    std::fs::write(path("evaluations.csv"), &evaluations_header)
        .with_context(|| format!("cannot write {}", path("evaluations.csv").display()))?;
    std::fs::write(path("generations.csv"), &generations_header)
        .with_context(|| format!("cannot write {}", path("generations.csv").display()))?;
    let checkpoint = Checkpoint {
        format: CHECKPOINT_FORMAT,
        experiment_name: campaign.experiment.name.clone(),
        experiment_text: campaign.experiment.text.clone(),
        generation: 0,
        evaluations: 0,
        games: 0,
        pieces: 0,
        seconds: 0.0,
        best_measured: None,
        incumbent: None,
        optimizer: optimizer.save()?,
        evaluations_csv_bytes: evaluations_header.len() as u64,
        generations_csv_bytes: generations_header.len() as u64,
        tuning_done: false,
    };
    write_checkpoint(&campaign.run_dir, &checkpoint)?;
    eprintln!("run folder {}", campaign.run_dir.display());
    campaign.run(checkpoint, optimizer)
}

/// Continues a run from its checkpoint. With `experiment_path`, the run must have been
/// made by that experiment file.
pub fn resume(
    run_dir: &Path,
    experiment_path: Option<&Path>,
    options: &RunOptions,
    executor: &dyn Executor,
) -> Result<Outcome> {
    let path = run_dir.join("checkpoint.json");
    if !run_dir.is_dir() {
        bail!("cannot resume {}: not a folder", run_dir.display());
    }
    if !path.exists() && stopped_before_its_first_checkpoint(run_dir) {
        bail!(
            "cannot resume {}: its run stopped before its first checkpoint was written, so there is nothing to \
             resume: start it again (and delete the folder)",
            run_dir.display()
        );
    }
    let text = std::fs::read_to_string(&path).with_context(|| {
        format!("cannot resume {}: it is not a run folder (no readable checkpoint.json)", run_dir.display())
    })?;
    let not_a_checkpoint = || format!("{} is not a tetris-lab checkpoint", path.display());
    let value: serde_json::Value = serde_json::from_str(&text).with_context(not_a_checkpoint)?;
    let checkpoint: Checkpoint = serde_json::from_value(value.clone()).with_context(not_a_checkpoint)?;
    crate::checksum::check_seal(&value, CHECKPOINT_FORMAT, CHECKPOINT_FORMAT_UNSEALED, "checkpoint", &path)?;
    let experiment = Experiment::parse(&checkpoint.experiment_text, &checkpoint.experiment_name)
        .with_context(|| format!("the experiment recorded in {}", path.display()))?;
    if let Some(given) = experiment_path {
        let other = Experiment::load(given)?;
        if other.text != experiment.text || other.name != experiment.name {
            bail!(
                "cannot resume {} with {}: the run was made by another experiment ({:?})",
                run_dir.display(),
                given.display(),
                checkpoint.experiment_name
            );
        }
    }
    let optimizer =
        experiment.restore_optimizer(checkpoint.optimizer.clone()).with_context(|| format!("{}", path.display()))?;
    if let Some(incumbent) = checkpoint.incumbent.as_ref().filter(|i| i.point.len() != experiment.space.names.len()) {
        bail!(
            "{}: the incumbent has {} weights where the experiment tunes {}",
            path.display(),
            incumbent.point.len(),
            experiment.space.names.len()
        );
    }
    let mut campaign = Campaign::new(experiment, options.threads, run_dir.to_path_buf(), executor)?;
    // Cut the logs back to what the checkpoint covers: a run killed after flushing a
    // generation's rows but before its checkpoint replays that generation. Every file is
    // opened and checked (the manifest read too) before the first is cut.
    let mut logs = Vec::new();
    for (name, bytes) in
        [("evaluations.csv", checkpoint.evaluations_csv_bytes), ("generations.csv", checkpoint.generations_csv_bytes)]
    {
        let file = OpenOptions::new()
            .write(true)
            .open(run_dir.join(name))
            .with_context(|| format!("cannot open {} to resume", run_dir.join(name).display()))?;
        let length = file.metadata()?.len();
        if length < bytes {
            bail!("{} is shorter than its checkpoint says: the run folder was altered", run_dir.join(name).display());
        }
        logs.push((name, file, bytes));
    }
    check_generation_log(&run_dir.join("generations.csv"), &checkpoint)?;
    let manifest_path = run_dir.join("manifest.json");
    let manifest_text =
        std::fs::read_to_string(&manifest_path).with_context(|| format!("cannot read {}", manifest_path.display()))?;
    serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&manifest_text)
        .with_context(|| format!("{} is not a run's manifest (not a JSON object)", manifest_path.display()))?;
    for (name, file, bytes) in logs {
        file.set_len(bytes).with_context(|| format!("cannot write {}", run_dir.join(name).display()))?;
    }
    campaign.write_manifest(Some(&campaign.run_dir.join("manifest.json")))?;
    campaign.id = Some(executor.begin(&campaign.experiment.as_text(), &campaign.run_dir)?);
    eprintln!("resuming {} {}", run_dir.display(), generations_done(checkpoint.generation));
    campaign.run(checkpoint, optimizer)
}

/// Whether `dir` is what a run or a study killed in its first moments leaves: empty, or
/// only the files written before the first checkpoint (the manifest, the logs' headers)
/// and temporaries.
fn stopped_before_its_first_checkpoint(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else { return false };
    entries.flatten().all(|entry| {
        let name = entry.file_name().to_string_lossy().into_owned();
        ["manifest.json", "evaluations.csv", "generations.csv"].contains(&name.as_str())
            || (name.starts_with('.') && name.contains(".partial-"))
    })
}

/// Refuses a checkpoint that does not describe the generations logged before it (read as
/// far as it covers): one row a generation, the last with its counts.
fn check_generation_log(path: &Path, checkpoint: &Checkpoint) -> Result<()> {
    let altered = |what: String| anyhow!("{}: {what}: the run folder was altered", path.display());
    let mut bytes = Vec::new();
    File::open(path)
        .and_then(|file| file.take(checkpoint.generations_csv_bytes).read_to_end(&mut bytes))
        .with_context(|| format!("cannot read {}", path.display()))?;
    let mut reader = csv::Reader::from_reader(bytes.as_slice());
    let header = reader.headers().with_context(|| format!("cannot read {}", path.display()))?.clone();
    let mut rows = 0u64;
    let mut last = None;
    for row in reader.records() {
        last = Some(row.with_context(|| format!("cannot read {}", path.display()))?);
        rows += 1;
    }
    if rows != checkpoint.generation {
        return Err(altered(format!("{rows} generations logged, the checkpoint says {}", checkpoint.generation)));
    }
    if let Some(row) = last {
        let expected = [
            ("generation", checkpoint.generation - 1),
            ("evaluations", checkpoint.evaluations),
            ("games", checkpoint.games),
            ("pieces", checkpoint.pieces),
        ];
        for (column, value) in expected {
            let logged = header.iter().position(|h| h == column).and_then(|i| row.get(i));
            if logged != Some(value.to_string().as_str()) {
                return Err(altered(format!(
                    "its last row's {column} is {}, the checkpoint says {value}",
                    logged.unwrap_or("missing")
                )));
            }
        }
    }
    Ok(())
}

/// Where a run stands, in the numbering the log lines and CSV files use (generations are
/// numbered from 0, so after 5 generations the last one is generation 4).
fn generations_done(count: u64) -> String {
    match count {
        0 => "before generation 0".to_string(),
        1 => "after generation 0 (1 generation done)".to_string(),
        n => format!("after generation {} ({n} generations done)", n - 1),
    }
}

/// The columns of `generations.csv`. The curve names of the fitness plot and the README
/// use the same words, so a reader can match a line to its column; `plot` also reads the
/// names of older runs (`best`, `mean`, `best_so_far`).
pub(crate) const GENERATION_COLUMNS: [&str; 14] = [
    "generation",
    "candidates",
    "generation_best",
    "generation_mean",
    "generation_best_so_far",
    "incumbent_mean",
    "incumbent_low",
    "incumbent_high",
    "incumbent_games",
    "evaluations",
    "games",
    "pieces",
    "fitness",
    "seconds",
];

/// The columns of `held_out.csv`: one row for the tuned weights, one for the published
/// ones, scored on the same held-out games. `plot` marks the tuned row on the fitness plot.
pub(crate) const HELD_OUT_COLUMNS: [&str; 7] = ["weights", "games", "mean", "low", "high", "measured_on", "interval"];

fn csv_line(fields: &[String]) -> String {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(fields).expect("writing to memory");
    String::from_utf8(writer.into_inner().expect("writing to memory")).expect("CSV of UTF-8")
}

/// Numbers as Rust prints them: the shortest text that reads back to the same f64.
fn number(x: f64) -> String {
    format!("{x}")
}

fn new_run_dir(base: &Path) -> Result<PathBuf> {
    crate::support::run_dir::create_unique(base, &crate::support::run_dir::stamp(std::time::SystemTime::now()))
}

fn git_hash() -> String {
    crate::support::run_dir::git_hash().unwrap_or_else(|| "unknown".into())
}

fn write_checkpoint(run_dir: &Path, checkpoint: &Checkpoint) -> Result<()> {
    // Written in the current format whatever it was read in, and sealed.
    let mut state = serde_json::to_value(checkpoint)?;
    state["format"] = CHECKPOINT_FORMAT.into();
    let sealed = crate::checksum::seal(state);
    let mut file = AtomicFile::create(&run_dir.join("checkpoint.json"))?;
    serde_json::to_writer_pretty(file.writer(), &sealed)
        .with_context(|| format!("cannot write {}", run_dir.join("checkpoint.json").display()))?;
    file.commit()
}

fn append(path: &Path, text: &str) -> Result<u64> {
    let mut file: File =
        OpenOptions::new().append(true).open(path).with_context(|| format!("cannot write {}", path.display()))?;
    file.write_all(text.as_bytes())
        .and_then(|_| file.sync_data())
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(file.metadata()?.len())
}

impl<'e> Campaign<'e> {
    fn new(
        experiment: Experiment,
        threads: Option<usize>,
        run_dir: PathBuf,
        executor: &'e dyn Executor,
    ) -> Result<Campaign<'e>> {
        let about = experiment.target.about()?;
        let objective = build_objective(&experiment)?;
        Ok(Campaign {
            experiment,
            run_dir,
            about,
            objective,
            executor,
            id: None,
            pool: thread_pool(threads)?,
            pieces_live: Arc::new(AtomicU64::new(0)),
        })
    }

    /// Writes `manifest.json`; on resume (`previous` given) keeps the original and adds
    /// the resume to its list.
    fn write_manifest(&self, previous: Option<&Path>) -> Result<()> {
        let now = utc_iso(std::time::SystemTime::now());
        let threads = self.pool.current_num_threads();
        let manifest = match previous {
            Some(path) => {
                let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
                let mut manifest: serde_json::Value =
                    serde_json::from_str(&text).with_context(|| format!("{} is not JSON", path.display()))?;
                let entry = serde_json::json!({
                    "time": now,
                    "threads": threads,
                    "executor": self.executor.describe(),
                    "git_hash": git_hash(),
                });
                let Some(fields) = manifest.as_object_mut() else {
                    bail!("{} is not a run's manifest (not a JSON object)", path.display());
                };
                match fields.get_mut("resumed").and_then(|r| r.as_array_mut()) {
                    Some(list) => list.push(entry),
                    None => {
                        fields.insert("resumed".into(), serde_json::json!([entry]));
                    }
                }
                manifest
            }
            None => {
                let e = &self.experiment;
                serde_json::json!({
                    "experiment": e.name,
                    "experiment_file": e.text,
                    "master_seed": e.file.seed,
                    "preset": e.target.name(),
                    "rule_set": self.about.rule_set,
                    "rule_set_version": self.about.rule_set_version,
                    "board": self.about.board,
                    "policy": self.about.policy,
                    "optimizer": e.file.optimizer.name(),
                    "fitness": e.fitness.as_str(),
                    "crate_version": env!("CARGO_PKG_VERSION"),
                    "git_hash": git_hash(),
                    "start_time": now,
                    "threads": threads,
                    "executor": self.executor.describe(),
                    "resumed": [],
                })
            }
        };
        let mut file = AtomicFile::create(&self.run_dir.join("manifest.json"))?;
        serde_json::to_writer_pretty(file.writer(), &manifest)?;
        file.commit()
    }

    /// Plays `games` games (seeds from `master`) for every point, all in parallel; the
    /// same games for every point. `None` if Ctrl-C stopped it.
    fn evaluate(&self, points: &[Vec<f64>], master: u64, games: u64) -> Result<Option<Vec<Evaluation>>> {
        let weights = points.iter().map(|p| self.experiment.full_weights(p)).collect();
        self.evaluate_round(&Round { weights, master, games, held_out: false })
    }

    fn evaluate_round(&self, round: &Round) -> Result<Option<Vec<Evaluation>>> {
        let e = &self.experiment;
        let id = self.id.expect("rounds are played after the campaign has begun");
        let results = self.executor.run(
            id,
            round,
            &Players {
                objective: self.objective.as_ref(),
                pool: &self.pool,
                stop: stop_flag(),
                live: &self.pieces_live,
            },
        )?;
        Ok(results
            .map(|results| Evaluation::from_jobs(&results, round.games, e.fitness.quantity(e.target.memoryless()))))
    }

    fn evaluation_row(&self, generation: u64, candidate: &str, point: &[f64], games: u64, e: &Evaluation) -> String {
        let mut fields = vec![generation.to_string(), candidate.to_string()];
        fields.extend(self.experiment.full_weights(point).into_iter().map(number));
        fields.extend([
            games.to_string(),
            number(e.summary.mean),
            number(e.summary.standard_deviation),
            e.pieces.to_string(),
            format!("{:.3}", e.seconds),
        ]);
        csv_line(&fields)
    }

    fn budget_reached(&self, c: &Checkpoint) -> bool {
        let b = &self.experiment.file.budget;
        b.generations.is_some_and(|g| c.generation >= g)
            || b.games.is_some_and(|g| c.games >= g)
            || b.pieces.is_some_and(|p| c.pieces >= p)
    }

    /// The progress bar: in the budget's own unit, with the incumbent and an ETA.
    fn progress_bar(&self, c: &Checkpoint) -> (indicatif::ProgressBar, BudgetUnit) {
        let b = &self.experiment.file.budget;
        let (length, unit) = if let Some(p) = b.pieces {
            (p, BudgetUnit::Pieces)
        } else if let Some(g) = b.games {
            (g, BudgetUnit::Games)
        } else {
            (b.generations.unwrap_or(1), BudgetUnit::Generations)
        };
        let bar = crate::support::progress::budget_bar(length, unit.name());
        bar.set_position(unit.of(c).min(length));
        (bar, unit)
    }

    /// The campaign's loop: one generation after another until the budget is used or
    /// Ctrl-C, then the held-out scoring (or the checkpoint to resume from).
    fn run(&self, mut c: Checkpoint, mut optimizer: Box<dyn Optimizer>) -> Result<Outcome> {
        install_ctrl_c();
        let e = &self.experiment;
        let (bar, unit) = self.progress_bar(&c);
        let say = |line: String| {
            if bar.is_hidden() {
                eprintln!("{line}");
            } else {
                bar.println(line);
            }
        };
        say(format!(
            "{} | preset {} | {} | {} | fitness {} {}",
            e.name,
            e.target.name(),
            self.about.board,
            e.file.optimizer.name(),
            e.fitness.as_str(),
            e.target.measured_on(e.file.games, e.file.max_pieces)
        ));
        // The ticker moves the bar while a generation's games run.
        let done = Arc::new(AtomicBool::new(false));
        let pieces_base = Arc::new(AtomicU64::new(c.pieces));
        let ticker = (unit == BudgetUnit::Pieces).then(|| {
            let (bar, live, base, done) = (bar.clone(), self.pieces_live.clone(), pieces_base.clone(), done.clone());
            std::thread::spawn(move || {
                while !done.load(Ordering::Relaxed) {
                    bar.set_position(base.load(Ordering::Relaxed) + live.load(Ordering::Relaxed));
                    std::thread::sleep(Duration::from_millis(200));
                }
            })
        });
        let clock = Clock { started: Instant::now(), seconds_before: c.seconds };
        let mut last_plot: Option<Instant> = None;
        let interrupted = loop {
            if c.tuning_done || self.budget_reached(&c) {
                break false;
            }
            if stop_flag().load(Ordering::Relaxed) {
                break true;
            }
            self.pieces_live.store(0, Ordering::Relaxed);
            let Some(generation) = self.play_generation(&c, optimizer.as_mut())? else {
                break true;
            };
            let Some(incumbent) = self.measure_incumbent(&c, &generation)? else {
                break true;
            };
            let line = self.record_generation(&mut c, optimizer.as_ref(), generation, incumbent, &clock)?;
            pieces_base.store(c.pieces, Ordering::Relaxed);
            self.pieces_live.store(0, Ordering::Relaxed);
            bar.set_position(unit.of(&c));
            crate::support::progress::show_eta(&bar);
            let best = c.incumbent.as_ref().expect("recorded above");
            bar.set_message(format!("| gen {} | incumbent {:.1}", c.generation, best.mean));
            say(line);
            // Plots during the run so a long campaign can be watched, at most every 10 s
            // (campaigns of thousands of tiny generations would otherwise mostly draw).
            if last_plot.is_none_or(|t: Instant| t.elapsed() > Duration::from_secs(10)) {
                if let Err(error) = self.draw_plots() {
                    say(format!("warning: plot not drawn: {error:#}"));
                }
                last_plot = Some(Instant::now());
            }
        };
        done.store(true, Ordering::Relaxed);
        if let Some(t) = ticker {
            let _ = t.join();
        }
        bar.finish_and_clear();
        if interrupted {
            return self.stop_interrupted(&mut c, &clock);
        }
        if !c.tuning_done {
            c.tuning_done = true;
            write_checkpoint(&self.run_dir, &c)?;
        }
        self.finish(&c)?;
        Ok(Outcome::Finished(self.run_dir.clone()))
    }

    /// Generation `c.generation`: the optimizer's candidates, each played on the
    /// generation's games, and their fitnesses told back. `None` if Ctrl-C stopped it.
    fn play_generation(&self, c: &Checkpoint, optimizer: &mut dyn Optimizer) -> Result<Option<Generation>> {
        let e = &self.experiment;
        let index = c.generation;
        let candidates = optimizer.ask()?;
        let Some(evaluations) =
            self.evaluate(&candidates, stream(e.file.seed, STREAM_GENERATION, index), e.file.games)?
        else {
            return Ok(None);
        };
        let fitness: Vec<Maximize> = evaluations.iter().map(|v| Maximize(v.summary.mean)).collect();
        optimizer.tell(&fitness)?;
        let mut rows = String::new();
        for (k, (point, v)) in candidates.iter().zip(&evaluations).enumerate() {
            rows.push_str(&self.evaluation_row(index, &k.to_string(), point, e.file.games, v));
        }
        let best_index = (0..fitness.len())
            .max_by(|&a, &b| fitness[a].0.total_cmp(&fitness[b].0).then(b.cmp(&a)))
            .expect("a generation has candidates");
        let challenger = optimizer.recommendation().unwrap_or_else(|| candidates[best_index].clone());
        Ok(Some(Generation {
            index,
            best: fitness[best_index].0,
            mean: fitness.iter().map(|f| f.0).sum::<f64>() / fitness.len() as f64,
            best_index,
            work: Work {
                games: e.file.games * candidates.len() as u64,
                pieces: evaluations.iter().map(|v| v.pieces).sum(),
                evaluations: candidates.len() as u64,
            },
            candidates,
            evaluations,
            challenger,
            rows,
        }))
    }

    /// The incumbent after a generation: re-measured on fresh seeds together with the
    /// challenger (the optimizer's recommendation, else the generation's best candidate),
    /// or without re-evaluation the better of the old incumbent and the generation's best.
    /// `None` if Ctrl-C stopped the re-evaluation.
    fn measure_incumbent(&self, c: &Checkpoint, generation: &Generation) -> Result<Option<Measured>> {
        let e = &self.experiment;
        if e.reevaluation_games == 0 {
            let measured = &generation.evaluations[generation.best_index].summary;
            let incumbent = match &c.incumbent {
                Some(old) if old.mean >= generation.best => old.clone(),
                _ => Incumbent {
                    point: generation.candidates[generation.best_index].clone(),
                    mean: measured.mean,
                    low: measured.low_95(),
                    high: measured.high_95(),
                    games: e.file.games,
                },
            };
            return Ok(Some(Measured { incumbent, rows: String::new(), work: Work::default() }));
        }
        let mut points = vec![generation.challenger.clone()];
        let mut labels = vec!["challenger"];
        if let Some(old) = &c.incumbent {
            if !same_point(&old.point, &points[0]) {
                points.insert(0, old.point.clone());
                labels.insert(0, "incumbent");
            } else {
                labels[0] = "incumbent";
            }
        }
        let n = e.reevaluation_games;
        let Some(measured) = self.evaluate(&points, stream(e.file.seed, STREAM_REEVALUATION, generation.index), n)?
        else {
            return Ok(None);
        };
        let mut rows = String::new();
        let mut work = Work::default();
        for ((label, point), v) in labels.iter().zip(&points).zip(&measured) {
            rows.push_str(&self.evaluation_row(generation.index, label, point, n, v));
            work.games += n;
            work.pieces += v.pieces;
            work.evaluations += 1;
        }
        // The challenger must beat the incumbent on the same fresh games.
        let winner = if measured.len() == 2 && measured[1].summary.mean > measured[0].summary.mean { 1 } else { 0 };
        let s = &measured[winner].summary;
        let incumbent =
            Incumbent { point: points[winner].clone(), mean: s.mean, low: s.low_95(), high: s.high_95(), games: n };
        Ok(Some(Measured { incumbent, rows, work }))
    }

    /// Counts a finished generation into the checkpoint, appends its log lines, then
    /// writes the checkpoint that covers them; returns the generation's line to print.
    fn record_generation(
        &self,
        c: &mut Checkpoint,
        optimizer: &dyn Optimizer,
        generation: Generation,
        measured: Measured,
        clock: &Clock,
    ) -> Result<String> {
        let e = &self.experiment;
        let Measured { incumbent, rows: reevaluation_rows, work: reevaluation } = measured;
        c.generation += 1;
        c.evaluations += generation.work.evaluations + reevaluation.evaluations;
        c.games += generation.work.games + reevaluation.games;
        c.pieces += generation.work.pieces + reevaluation.pieces;
        c.best_measured = Some(c.best_measured.map_or(generation.best, |b| b.max(generation.best)));
        c.seconds = clock.seconds();
        let generation_row = csv_line(&[
            generation.index.to_string(),
            generation.candidates.len().to_string(),
            number(generation.best),
            number(generation.mean),
            number(c.best_measured.expect("set above")),
            number(incumbent.mean),
            number(incumbent.low),
            number(incumbent.high),
            incumbent.games.to_string(),
            c.evaluations.to_string(),
            c.games.to_string(),
            c.pieces.to_string(),
            e.fitness.as_str().to_string(),
            format!("{:.3}", c.seconds),
        ]);
        let line = format!(
            "generation {:>4}: best {:>10.1}  mean {:>10.1}  incumbent {:.1} [{:.1}, {:.1}] ({} games)  {} pieces so far",
            generation.index, generation.best, generation.mean, incumbent.mean, incumbent.low, incumbent.high,
            incumbent.games, c.pieces
        );
        c.incumbent = Some(incumbent);
        c.optimizer = optimizer.save()?;
        // Logs first, then the checkpoint that covers them.
        let dir = &self.run_dir;
        c.evaluations_csv_bytes = append(&dir.join("evaluations.csv"), &(generation.rows + &reevaluation_rows))?;
        c.generations_csv_bytes = append(&dir.join("generations.csv"), &generation_row)?;
        write_checkpoint(dir, c)?;
        Ok(line)
    }

    /// After Ctrl-C: the checkpoint rewritten with the time spent, the plots drawn, and
    /// how to resume.
    fn stop_interrupted(&self, c: &mut Checkpoint, clock: &Clock) -> Result<Outcome> {
        let dir = &self.run_dir;
        c.seconds = clock.seconds();
        // The logs already match the last checkpoint; rewrite it with the time spent.
        write_checkpoint(dir, c)?;
        if c.generation > 0 {
            self.draw_plots()?;
        }
        eprintln!(
            "stopped {}; checkpoint written. Resume with: tetris-lab tune --resume {}",
            generations_done(c.generation),
            dir.display()
        );
        Ok(Outcome::Interrupted(dir.clone()))
    }

    fn draw_plots(&self) -> Result<()> {
        let series = super::plot::read_run(&self.run_dir)?;
        let title = format!("{} ({})", self.experiment.name, self.experiment.file.optimizer.name());
        super::plot::draw(
            std::slice::from_ref(&series),
            &title,
            &self.run_dir.join("fitness.png"),
            super::plot::Scale::Linear,
        )?;
        super::plot::draw(
            std::slice::from_ref(&series),
            &title,
            &self.run_dir.join("fitness.svg"),
            super::plot::Scale::Linear,
        )
    }

    /// Scores the incumbent and the preset's published weights on held-out seeds (for
    /// E-Tetris: with the wider held-out beam) and writes `best.toml`.
    fn finish(&self, c: &Checkpoint) -> Result<()> {
        let e = &self.experiment;
        let Some(best) = &c.incumbent else {
            bail!("the campaign ended before its first generation: no best to report");
        };
        let n = e.held_out_games;
        let held_out_on = e.target.held_out_on(n);
        eprintln!("scoring the best on {held_out_on} (and the published weights the same way)");
        let (_, published_weights) = e.target.published()?;
        let tuned_weights = e.full_weights(&best.point);
        let round = Round {
            weights: vec![tuned_weights.clone(), published_weights.clone()],
            master: stream(e.file.seed, STREAM_HELD_OUT, 0),
            games: n,
            held_out: true,
        };
        let Some(held_out) = self.evaluate_round(&round)? else {
            eprintln!(
                "stopped during the held-out scoring; resume with: tetris-lab tune --resume {}",
                self.run_dir.display()
            );
            return Ok(());
        };
        let cosine = cosine(&e.target.direction(&tuned_weights), &e.target.direction(&published_weights));
        let (t, p) = (&held_out[0].summary, &held_out[1].summary);
        let fitness = e.fitness.as_str();
        let board = &self.about.board;
        // One game (a deterministic objective) has no interval to show.
        let describe = |s: &Summary| {
            if s.count == 1 {
                format!("{fitness} {}", number(s.mean))
            } else {
                let method = s.quantity.interval_method();
                format!("mean {fitness} {:.1} [{:.1}, {:.1}] (95% interval, {method})", s.mean, s.low_95(), s.high_95())
            }
        };
        // Machine-readable for `plot`, before best.toml, which marks the run finished.
        let mut rows = csv_line(&HELD_OUT_COLUMNS.map(String::from));
        for (weights, s) in [("tuned", t), ("published", p)] {
            rows.push_str(&csv_line(&[
                weights.to_string(),
                s.count.to_string(),
                number(s.mean),
                number(s.low_95()),
                number(s.high_95()),
                held_out_on.clone(),
                s.quantity.interval_method().to_string(),
            ]));
        }
        let mut file = AtomicFile::create(&self.run_dir.join("held_out.csv"))?;
        file.writer().write_all(rows.as_bytes())?;
        file.commit()?;
        let mut text = String::new();
        text.push_str(&format!(
            "# Best weights of experiment {} (run {}), tuned by {} in {} generations ({} games, {} pieces).\n",
            e.name,
            self.run_dir.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default(),
            e.file.optimizer.name(),
            c.generation,
            c.games,
            c.pieces
        ));
        text.push_str(&format!(
            "# Held-out ({held_out_on}, {board}): {};\n# the published {} weights measured the same way: {}.\n# Cosine similarity with the published weights: {cosine:.4}.\n",
            describe(t),
            e.target.name(),
            describe(p)
        ));
        text.push_str(&format!("# Play it: {}\n", e.target.play_command()));
        let value = |s: &Summary| if s.count == 1 { number(s.mean) } else { format!("{:.1}", s.mean) };
        let note = format!(
            "{}{fitness} {} held out ({held_out_on}); published weights {}",
            if n == 1 { "" } else { "mean " },
            value(t),
            value(p)
        );
        text.push_str(&e.target.best_toml(&e.feature_names, &tuned_weights, &note));
        let mut file = AtomicFile::create(&self.run_dir.join("best.toml"))?;
        file.writer().write_all(text.as_bytes())?;
        file.commit()?;
        self.draw_plots()?;
        println!(
            "{}: {} generations, {} games, {} pieces, {:.0} s",
            e.name, c.generation, c.games, c.pieces, c.seconds
        );
        println!("held-out ({held_out_on}): best {}", describe(t));
        println!("published {} weights measured the same way: {}", e.target.name(), describe(p));
        println!("cosine similarity with the published weights: {cosine:.4}");
        for (name, w) in e.feature_names.iter().zip(&tuned_weights) {
            println!("  {name:<26} {w:.6}");
        }
        println!("results in {}", self.run_dir.display());
        Ok(())
    }
}

/// A finished run's held-out score of its tuned weights (`None` while it is unfinished).
pub fn read_held_out(run_dir: &Path) -> Result<Option<Summary>> {
    read_held_out_row(run_dir, "tuned")
}

/// A finished run's held-out score of the `weights` row (`tuned` or `published`) of its
/// `held_out.csv`; `None` until the run has finished (its `best.toml`, written last,
/// exists). Only the count, mean and interval are known; the other fields are NaN.
pub fn read_held_out_row(run_dir: &Path, weights: &str) -> Result<Option<Summary>> {
    if !run_dir.join("best.toml").exists() {
        return Ok(None);
    }
    Ok(super::plot::read_held_out_row(run_dir, weights)?.map(|h| Summary {
        count: h.games as usize,
        mean: h.mean,
        median: f64::NAN,
        standard_deviation: f64::NAN,
        low_95: h.low,
        high_95: h.high,
        quantity: Quantity::NonNegative,
        min: f64::NAN,
        max: f64::NAN,
    }))
}

fn same_point(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// Cosine similarity of two weight vectors (1 = same direction, which is all a linear
/// evaluator's choices depend on).
pub fn cosine(a: &[f64], b: &[f64]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
    dot / (norm(a) * norm(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_dates() {
        let t = std::time::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        assert_eq!(utc_iso(t), "2023-11-14T22:13:20Z");
    }

    #[test]
    fn generations_are_counted_as_the_log_numbers_them() {
        assert_eq!(generations_done(0), "before generation 0");
        assert_eq!(generations_done(5), "after generation 4 (5 generations done)");
    }

    #[test]
    fn seed_streams_differ() {
        assert_ne!(stream(1, STREAM_GENERATION, 0), stream(1, STREAM_REEVALUATION, 0));
        assert_ne!(stream(1, STREAM_GENERATION, 0), stream(1, STREAM_GENERATION, 1));
        assert_ne!(stream(1, STREAM_GENERATION, 0), stream(2, STREAM_GENERATION, 0));
    }

    #[test]
    fn cosine_of_scaled_vectors_is_one() {
        assert!((cosine(&[1.0, -2.0], &[2.0, -4.0]) - 1.0).abs() < 1e-12);
        assert!(cosine(&[1.0, 0.0], &[0.0, 1.0]).abs() < 1e-12);
    }
}
