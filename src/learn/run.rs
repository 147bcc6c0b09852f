//! The learning driver: one run folder per run (`experiment.toml`, `iterations.csv`,
//! `checkpoint.json`, `held_out.csv`, `curve.png`, `manifest.json`), a checkpoint after
//! every iteration, resume from it, and studies of repeated runs.
//!
//! Iteration k of a run seeded s is seeded `game_seed(s, k)` and its policy is scored on
//! the same `evaluation_games` games every iteration (seeded from s alone): a run is a
//! function of its file, whatever the thread count, and a resumed run continues exactly
//! as the run would have gone on.

use super::plot::{self, Curve};
use super::spread::{self, RunStart};
use super::{find, greedy, Learner, Settings, Stopped, World};
use crate::randomizer::game_seed;
use crate::sim::{play_game_of_batch, GameDriver, GameLimits};
use crate::support::atomic_file::AtomicFile;
use crate::support::stats::{Quantity, Summary};
use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Instant;

const CHECKPOINT: &str = "checkpoint.json";
const EXPERIMENT: &str = "experiment.toml";
const ITERATIONS: &str = "iterations.csv";
const HELD_OUT: &str = "held_out.csv";
/// Checkpoint format: 2 carries the experiment's text and a checksum.
const CHECKPOINT_FORMAT: u32 = 2;
/// Checkpoints written before the checksum: read still, their contents checked.
const CHECKPOINT_FORMAT_UNSEALED: u32 = 1;
/// Seeds of the scoring games, apart from every iteration's.
const STREAM_EVALUATION: u64 = 0x4556_414C;
const STREAM_HELD_OUT: u64 = 0x484F_4C44;

/// How a run ended.
#[derive(Debug)]
pub enum Outcome {
    Finished(PathBuf),
    /// Stopped by Ctrl-C; `--resume` continues it.
    Interrupted(PathBuf),
}

/// One line of `iterations.csv`: the policy after an iteration (0: the initial policy).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub iteration: u64,
    pub samples: u64,
    pub rows_mean: f64,
    pub rows_low: f64,
    pub rows_high: f64,
    pub seconds: f64,
    pub weights: Vec<f64>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Checkpoint {
    format: u32,
    /// The text of the experiment file the run was made by (from format 2 on), under the
    /// key tune's checkpoints give it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    experiment_text: Option<String>,
    names: Vec<String>,
    rows: Vec<Row>,
    learner: serde_json::Value,
    /// [`crate::checksum::seal`]'s, from format 2 on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    checksum: Option<String>,
}

/// A run's state as a checkpoint left it: the learner and the rows so far.
struct Restored {
    learner: Box<dyn Learner>,
    rows: Vec<Row>,
}

/// The mean rows of `weights`' greedy policy on `games` games seeded from `master` (the
/// games of `play_batch` with that seed).
pub fn score(world: &World, weights: &[(String, f64)], master: u64, games: u64, cap: Option<u64>) -> Result<Summary> {
    let policy = greedy(weights)?;
    let driver = GameDriver::Placement { rules: world.rules.as_ref(), policy: policy.as_ref() };
    let limits = GameLimits { max_pieces: cap };
    let lines =
        world.map(games as usize, |game| play_game_of_batch(driver, master, game as u64, limits, None).lines)?;
    let rows: Vec<f64> = lines.iter().map(|&l| l as f64).collect();
    Ok(Summary::of(&rows, Quantity::length(true)))
}

/// Starts a run of `settings` (whose file text is `text`) in a new folder under `out`.
pub fn start(settings: &Settings, text: &str, out: &Path) -> Result<Outcome> {
    // Whatever can be refused is refused before the folder is made.
    let learner = (find(&settings.learner)?.start)(settings)?;
    let dir = crate::support::run_dir::create_run_folder(out, std::time::SystemTime::now(), settings.seed)?;
    begin(&dir, settings, text, learner)
}

/// Starts a run in the existing empty folder `dir`.
pub fn start_in(dir: &Path, settings: &Settings, text: &str) -> Result<Outcome> {
    let learner = (find(&settings.learner)?.start)(settings)?;
    begin(dir, settings, text, learner)
}

fn begin(dir: &Path, settings: &Settings, text: &str, learner: Box<dyn Learner>) -> Result<Outcome> {
    let mut file = AtomicFile::create(&dir.join(EXPERIMENT))?;
    std::io::Write::write_all(file.writer(), text.as_bytes())?;
    file.commit()?;
    eprintln!("run folder {}", dir.display());
    run_in(dir, settings, text, Restored { learner, rows: Vec::new() }, settings.iterations)
}

/// Whether the run in `dir` has finished (its held-out score is written).
pub fn is_finished(dir: &Path) -> bool {
    dir.join(HELD_OUT).is_file()
}

/// Continues the run in `dir` from its checkpoint (from its start if it has none yet).
/// Everything is read and checked before anything is written: the experiment file, the
/// checkpoint's checksum, that the checkpoint was made by that file, and its learner's
/// state and rows against what the file makes.
pub fn resume(dir: &Path) -> Result<Outcome> {
    let experiment = dir.join(EXPERIMENT);
    let text = std::fs::read_to_string(&experiment).with_context(|| format!("cannot read {}", experiment.display()))?;
    let settings = Settings::parse(&text).with_context(|| format!("{}", experiment.display()))?;
    if is_finished(dir) {
        bail!("the run in {} has finished: there is nothing to resume", dir.display());
    }
    let path = dir.join(CHECKPOINT);
    let restored = if path.is_file() {
        read_checkpoint(&path, &settings, &text)?
    } else {
        Restored { learner: (find(&settings.learner)?.start)(&settings)?, rows: Vec::new() }
    };
    run_in(dir, &settings, &text, restored, settings.iterations)
}

/// Reads the checkpoint at `path` of a run of `settings` (file text `text`), checked whole.
fn read_checkpoint(path: &Path, settings: &Settings, text: &str) -> Result<Restored> {
    let place = || format!("{}", path.display());
    let bytes = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let value: serde_json::Value =
        serde_json::from_str(&bytes).with_context(|| format!("{} is not a learning checkpoint", path.display()))?;
    let sealed = crate::checksum::seal_matches(&value);
    let checkpoint: Checkpoint =
        serde_json::from_value(value).with_context(|| format!("{} is not a learning checkpoint", path.display()))?;
    match (checkpoint.format, sealed) {
        (CHECKPOINT_FORMAT, Some(true)) | (CHECKPOINT_FORMAT_UNSEALED, None) => {}
        (CHECKPOINT_FORMAT, Some(false)) => {
            bail!("{}: the checksum does not match: the checkpoint is damaged or was edited", path.display())
        }
        (CHECKPOINT_FORMAT, None) => {
            bail!("{}: no checksum (a format {CHECKPOINT_FORMAT} checkpoint has one)", path.display())
        }
        (format, _) => bail!("{}: checkpoint format {format} is not {CHECKPOINT_FORMAT}", path.display()),
    }
    if checkpoint.experiment_text.as_deref().is_some_and(|made_by| made_by != text) {
        bail!(
            "{}: the run was made by another experiment than its {EXPERIMENT}: the run folder was altered",
            path.display()
        );
    }
    let learner = (find(&settings.learner)?.restore)(settings, checkpoint.learner)
        .with_context(|| format!("{}: the learner's state does not fit the experiment", place()))?;
    let names: Vec<String> = learner.policy().into_iter().map(|(n, _)| n).collect();
    if checkpoint.names != names {
        bail!("{}: names {:?} are not the policy's features {:?}", place(), checkpoint.names, names);
    }
    check_rows(&checkpoint.rows, names.len(), settings.iterations).with_context(place)?;
    Ok(Restored { learner, rows: checkpoint.rows })
}

/// Refuses rows that are not iterations 0, 1, ... (at most `iterations`) with growing
/// samples, finite scores and times, and a weight per feature.
fn check_rows(rows: &[Row], features: usize, iterations: u64) -> Result<()> {
    if rows.is_empty() || rows.len() as u64 > iterations + 1 {
        bail!("rows: {} where a run of {iterations} iterations has 1 to {}", rows.len(), iterations + 1);
    }
    for (i, row) in rows.iter().enumerate() {
        let numbers = [row.rows_mean, row.rows_low, row.rows_high, row.seconds];
        if row.iteration != i as u64
            || i > 0 && row.samples < rows[i - 1].samples
            || !numbers.iter().all(|x| x.is_finite())
            || row.rows_mean < 0.0
            || row.seconds < 0.0
            || row.weights.len() != features
            || !row.weights.iter().all(|w| w.is_finite())
        {
            bail!("rows[{i}] is not iteration {i} of this run (its numbers, samples or weights are wrong)");
        }
    }
    Ok(())
}

/// Runs iterations up to `until` (the settings' last, unless a test stops earlier: the run
/// is then left as a stopped one). Under `mpirun` the other ranks follow the run.
fn run_in(dir: &Path, settings: &Settings, text: &str, restored: Restored, until: u64) -> Result<Outcome> {
    let spread = spread::current();
    if let Some(spread) = &spread {
        let start = RunStart { text: text.to_string(), learner: restored.learner.save()?, rows: restored.rows.clone() };
        spread.begin(&start)?;
    }
    let finished = drive(Some(dir), settings, text, restored, until);
    if let Some(spread) = &spread {
        spread.end();
    }
    Ok(if finished? { Outcome::Finished(dir.to_path_buf()) } else { Outcome::Interrupted(dir.to_path_buf()) })
}

/// Follows a run rank 0 drives (another MPI rank's part): the same iterations and scoring
/// games, in lockstep, writing nothing.
pub fn follow(start: &RunStart) -> Result<()> {
    let settings = Settings::parse(&start.text).context("the experiment rank 0 sent")?;
    let learner = (find(&settings.learner)?.restore)(&settings, start.learner.clone())
        .context("the learner's state rank 0 sent")?;
    let restored = Restored { learner, rows: start.rows.clone() };
    drive(None, &settings, &start.text, restored, settings.iterations).map(drop)
}

/// The run's loop: iterations up to `until`, each policy scored. With a folder, every
/// iteration is saved and printed and the end written; without (a rank that follows),
/// nothing is. Returns whether the run finished.
fn drive(dir: Option<&Path>, settings: &Settings, text: &str, restored: Restored, until: u64) -> Result<bool> {
    let world = settings.world()?;
    let evaluation_seed = game_seed(settings.seed, STREAM_EVALUATION);
    let Restored { mut learner, mut rows } = restored;
    let names: Vec<String> = learner.policy().into_iter().map(|(n, _)| n).collect();
    let seconds_before = rows.last().map_or(0.0, |r| r.seconds);
    let started = Instant::now();
    let elapsed = || seconds_before + started.elapsed().as_secs_f64();
    let scored = |learner: &dyn Learner, iteration: u64, samples: u64, rows: &mut Vec<Row>| -> Result<()> {
        let policy = learner.policy();
        let summary = score(&world, &policy, evaluation_seed, settings.evaluation_games, settings.max_pieces)?;
        rows.push(Row {
            iteration,
            samples,
            rows_mean: summary.mean,
            rows_low: summary.low_95,
            rows_high: summary.high_95,
            seconds: elapsed(),
            weights: policy.iter().map(|(_, w)| *w).collect(),
        });
        match dir {
            Some(dir) => save(dir, text, &names, rows, learner),
            None => Ok(()),
        }
    };
    if rows.is_empty() {
        if let Some(dir) = dir {
            manifest(dir, settings, &world, None)?;
        }
        match scored(learner.as_ref(), 0, 0, &mut rows) {
            Err(e) if e.is::<Stopped>() => return Ok(false),
            other => other?,
        }
    }
    world.set_samples(rows.last().map_or(0, |r| r.samples));
    let Some(dir) = dir else {
        // A rank that follows: the same work, nothing written.
        while let Some(last) = rows.last().filter(|r| r.iteration < settings.iterations) {
            let iteration = last.iteration + 1;
            learner.iterate(&world, game_seed(settings.seed, iteration))?;
            scored(learner.as_ref(), iteration, world.samples(), &mut rows)?;
        }
        score(
            &world,
            &learner.policy(),
            game_seed(settings.seed, STREAM_HELD_OUT),
            settings.held_out_games,
            settings.max_pieces,
        )?;
        return Ok(true);
    };
    crate::interrupt::stop_on_ctrl_c(
        "stopping within seconds: the iteration in progress is dropped, the last checkpoint stays; Ctrl-C again to quit now",
        Some("quit: the run resumes from its last checkpoint"),
    );
    while let Some(last) = rows.last().filter(|r| r.iteration < settings.iterations) {
        let iteration = last.iteration + 1;
        if super::stopping() || iteration > until {
            return Ok(false);
        }
        let stopped = |e: &anyhow::Error| e.is::<Stopped>();
        let note = match learner.iterate(&world, game_seed(settings.seed, iteration)) {
            Ok(note) => note,
            Err(e) if stopped(&e) => return Ok(false),
            Err(e) => return Err(e.context(format!("iteration {iteration}"))),
        };
        match scored(learner.as_ref(), iteration, world.samples(), &mut rows) {
            Err(e) if stopped(&e) => return Ok(false),
            other => other?,
        }
        let row = rows.last().expect("scored");
        eprintln!(
            "iteration {iteration}/{}: {} samples, {} rows [{}, {}] on {} games; {note}",
            settings.iterations,
            crate::support::text::figure_text(row.samples as f64),
            crate::support::text::group(row.rows_mean, 1),
            crate::support::text::group(row.rows_low, 1),
            crate::support::text::group(row.rows_high, 1),
            settings.evaluation_games,
        );
    }
    let policy = learner.policy();
    let held_out_seed = game_seed(settings.seed, STREAM_HELD_OUT);
    let held_out = match score(&world, &policy, held_out_seed, settings.held_out_games, settings.max_pieces) {
        Err(e) if e.is::<Stopped>() => return Ok(false),
        other => other?,
    };
    let mut file = AtomicFile::create(&dir.join(HELD_OUT))?;
    {
        let mut csv = csv::Writer::from_writer(file.writer());
        csv.write_record(["games", "rows_mean", "rows_low", "rows_high"])?;
        csv.write_record([
            settings.held_out_games.to_string(),
            format!("{:.3}", held_out.mean),
            format!("{:.3}", held_out.low_95),
            format!("{:.3}", held_out.high_95),
        ])?;
        csv.flush()?;
    }
    file.commit()?;
    let label = format!("{} (seed {})", settings.learner, settings.seed);
    plot::draw(&[Curve::of_run(&label, &rows)], &settings.published, &label, &dir.join("curve.png"))?;
    manifest(dir, settings, &world, Some((world.samples(), held_out.mean)))?;
    eprintln!(
        "final policy: {} rows [{}, {}] on {} unseen games; {} samples, {:.0} s",
        crate::support::text::group(held_out.mean, 1),
        crate::support::text::group(held_out.low_95, 1),
        crate::support::text::group(held_out.high_95, 1),
        settings.held_out_games,
        crate::support::text::figure_text(world.samples() as f64),
        elapsed()
    );
    Ok(true)
}

/// Writes `manifest.json`: what made the run (seed, learner, rule set and its version, the
/// crate and commit) and, once it has finished, its samples and held-out score.
fn manifest(dir: &Path, settings: &Settings, world: &World, finished: Option<(u64, f64)>) -> Result<()> {
    let mut fields = serde_json::json!({
        "learner": settings.learner,
        "seed": settings.seed,
        "board": settings.board,
        "rule_set": world.rules.name(),
        "rule_set_version": world.rules.version(),
    });
    if let Some((samples, held_out)) = finished {
        fields["samples"] = samples.into();
        fields["held_out_rows"] = held_out.into();
    }
    let manifest = crate::support::run_dir::provenance("learn", fields);
    let mut file = AtomicFile::create(&dir.join("manifest.json"))?;
    serde_json::to_writer_pretty(file.writer(), &manifest)?;
    file.commit()
}

/// Writes the checkpoint, then the CSV (both whole or not at all).
fn save(dir: &Path, text: &str, names: &[String], rows: &[Row], learner: &dyn Learner) -> Result<()> {
    let checkpoint = Checkpoint {
        format: CHECKPOINT_FORMAT,
        experiment_text: Some(text.to_string()),
        names: names.to_vec(),
        rows: rows.to_vec(),
        learner: learner.save()?,
        checksum: None,
    };
    let sealed = crate::checksum::seal(serde_json::to_value(&checkpoint)?);
    let mut file = AtomicFile::create(&dir.join(CHECKPOINT))?;
    serde_json::to_writer(file.writer(), &sealed)?;
    file.commit()?;
    let mut file = AtomicFile::create(&dir.join(ITERATIONS))?;
    {
        let mut csv = csv::Writer::from_writer(file.writer());
        let mut header: Vec<String> =
            ["iteration", "samples", "rows_mean", "rows_low", "rows_high", "seconds"].map(String::from).to_vec();
        header.extend(names.iter().cloned());
        csv.write_record(&header)?;
        for row in rows {
            let mut record = vec![
                row.iteration.to_string(),
                row.samples.to_string(),
                format!("{:.3}", row.rows_mean),
                format!("{:.3}", row.rows_low),
                format!("{:.3}", row.rows_high),
                format!("{:.1}", row.seconds),
            ];
            record.extend(row.weights.iter().map(|w| w.to_string()));
            csv.write_record(&record)?;
        }
        csv.flush()?;
    }
    file.commit()
}

/// The rows of a run's `iterations.csv`.
pub fn read_rows(dir: &Path) -> Result<Vec<Row>> {
    let path = dir.join(ITERATIONS);
    let mut reader = csv::Reader::from_path(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.with_context(|| format!("{}", path.display()))?;
        let number = |i: usize| -> Result<f64> {
            record.get(i).and_then(|v| v.parse().ok()).with_context(|| format!("{}: a bad number", path.display()))
        };
        rows.push(Row {
            iteration: number(0)? as u64,
            samples: number(1)? as u64,
            rows_mean: number(2)?,
            rows_low: number(3)?,
            rows_high: number(4)?,
            seconds: number(5)?,
            weights: (6..record.len()).map(number).collect::<Result<_>>()?,
        });
    }
    Ok(rows)
}

/// The held-out mean rows of a finished run.
pub fn read_held_out(dir: &Path) -> Result<f64> {
    let path = dir.join(HELD_OUT);
    let mut reader = csv::Reader::from_path(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let record = reader.records().next().with_context(|| format!("{} is empty", path.display()))??;
    record.get(1).and_then(|v| v.parse().ok()).with_context(|| format!("{}: no rows_mean", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TINY: &str = "learner = \"cbmpi\"\nboard = \"6x8\"\nseed = 3\niterations = 3\nevaluation_games = 20\nheld_out_games = 20\n[options]\nrollout_length = 2\nstates = 150\nclassifier_generations = 5\n";

    /// A run's iterations without the seconds column, and its held-out line.
    fn results(dir: &Path) -> (Vec<Row>, String) {
        let rows = read_rows(dir).unwrap().into_iter().map(|r| Row { seconds: 0.0, ..r }).collect();
        (rows, std::fs::read_to_string(dir.join(HELD_OUT)).unwrap())
    }

    fn run_with_threads(threads: usize, text: &str, dir: &Path) -> Outcome {
        let settings = Settings::parse(text).unwrap();
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| start_in(dir, &settings, text)).unwrap()
    }

    #[test]
    fn runs_are_the_same_at_any_thread_count_and_when_resumed() {
        for learner in ["cbmpi", "dpi", "lambda-pi", "lspi", "cross-entropy"] {
            let text = match learner {
                "cbmpi" => TINY.to_string(),
                "dpi" => TINY.replace("\"cbmpi\"", "\"dpi\""),
                "lambda-pi" => {
                    TINY.replace("\"cbmpi\"", "\"lambda-pi\"").split("[options]").next().unwrap().to_string()
                        + "[options]\ngames = 20\n"
                }
                "lspi" => {
                    TINY.replace("\"cbmpi\"", "\"lspi\"").split("[options]").next().unwrap().to_string()
                        + "[options]\nsamples = 500\n"
                }
                _ => {
                    TINY.replace("\"cbmpi\"", "\"cross-entropy\"").split("[options]").next().unwrap().to_string()
                        + "[options]\npopulation = 20\ngames = 2\n"
                }
            };
            let root = tempfile::tempdir().unwrap();
            let (one, two, stopped) = (root.path().join("one"), root.path().join("two"), root.path().join("stopped"));
            for dir in [&one, &two, &stopped] {
                std::fs::create_dir(dir).unwrap();
            }
            assert!(matches!(run_with_threads(1, &text, &one), Outcome::Finished(_)));
            assert!(matches!(run_with_threads(2, &text, &two), Outcome::Finished(_)));
            let expected = results(&one);
            assert_eq!(expected.0.len(), 4, "{learner}: iterations 0 to 3");
            assert!(expected.0.windows(2).all(|w| w[1].samples > w[0].samples), "{learner}: samples grow");
            assert_eq!(results(&two), expected, "{learner}: 2 threads");
            // Stopped after iteration 1, then resumed.
            let settings = Settings::parse(&text).unwrap();
            std::fs::write(stopped.join(EXPERIMENT), &text).unwrap();
            let fresh =
                Restored { learner: (find(&settings.learner).unwrap().start)(&settings).unwrap(), rows: vec![] };
            assert!(matches!(run_in(&stopped, &settings, &text, fresh, 1).unwrap(), Outcome::Interrupted(_)));
            assert_eq!(read_rows(&stopped).unwrap().len(), 2);
            assert!(!is_finished(&stopped));
            assert!(matches!(resume(&stopped).unwrap(), Outcome::Finished(_)));
            assert_eq!(results(&stopped), expected, "{learner}: resumed");
            assert!(resume(&stopped).unwrap_err().to_string().contains("has finished"));
        }
    }
}
