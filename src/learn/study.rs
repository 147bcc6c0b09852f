//! Studies of learners: each experiment run N times (run r seeded from the file's seed and
//! r, as `tune` studies are), in `<out>/learn-studies/<stamp>/<experiment>/run-<r>/`, then
//! the mean curve over runs against mean samples, with +-1 standard deviation across runs,
//! in `curves.csv` and `curves.png`, and a table: the last iteration's rows, the held-out
//! rows, and the samples the mean curve needs to reach a score.

use super::plot::{self, Curve};
use super::run::{self, Outcome};
use super::Settings;
use crate::support::atomic_file::AtomicFile;
use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

const STUDY_FILE: &str = "learn-study.json";

/// A study's experiment: its name and file text (the runs' seeds derive from its seed).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StudyExperiment {
    pub name: String,
    pub text: String,
    pub runs: u64,
}

/// The study file's format: 2 carries a checksum (1, without, is read still).
const STUDY_FORMAT: u32 = 2;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StudyFile {
    /// Missing in files written before the checksum.
    #[serde(default = "unsealed")]
    format: u32,
    experiments: Vec<StudyExperiment>,
    /// The score whose samples the table reports.
    reach: f64,
    /// [`crate::checksum::seal`]'s, from format 2 on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    checksum: Option<String>,
}

fn unsealed() -> u32 {
    1
}

/// The score a study's table reports the samples to reach, unless `--reach` says.
pub const DEFAULT_REACH: f64 = 3000.0;

/// Refuses a `--reach` that is not a number of rows above 0.
pub fn check_reach(reach: f64) -> Result<()> {
    if !(reach.is_finite() && reach > 0.0) {
        bail!("--reach must be a number of rows above 0, found {reach}");
    }
    Ok(())
}

/// Whether `dir` is a learning study's folder.
pub fn is_study(dir: &Path) -> bool {
    dir.join(STUDY_FILE).is_file()
}

/// The text of repetition `run` of an experiment: its own with the repetition's seed.
fn repetition(experiment: &StudyExperiment, run: u64) -> Result<(Settings, String)> {
    let settings = Settings::parse(&experiment.text)?;
    let mut document: toml_edit::DocumentMut = experiment.text.parse()?;
    let seed = crate::tune::study::repetition_seed(settings.seed, run);
    document["seed"] = toml_edit::value(seed as i64);
    let text = document.to_string();
    Ok((Settings::parse(&text)?, text))
}

/// Refuses a study that is not one this program would run: no experiments, a name that is
/// not a plain folder name or is given twice, a repetition count out of range, a
/// repetition whose experiment is refused, a reach that is not a number of rows.
fn check_study(experiments: &[StudyExperiment], reach: f64) -> Result<()> {
    if experiments.is_empty() {
        bail!("no experiments");
    }
    check_reach(reach).context("reach")?;
    for (i, e) in experiments.iter().enumerate() {
        crate::support::run_dir::check_folder_name(&e.name).context("experiment")?;
        if experiments[..i].iter().any(|other| other.name == e.name) {
            bail!("experiment {:?} is given twice: a study compares different experiments", e.name);
        }
        crate::tune::experiment::check_runs(e.runs).with_context(|| format!("experiment {}", e.name))?;
        for run in 0..e.runs {
            repetition(e, run).with_context(|| format!("experiment {}", e.name))?;
        }
    }
    Ok(())
}

/// Starts a study in a new folder under `<out>/learn-studies/`.
pub fn start(experiments: Vec<StudyExperiment>, reach: f64, out: &Path) -> Result<Outcome> {
    check_study(&experiments, reach)?;
    let base = out.join("learn-studies");
    std::fs::create_dir_all(&base).with_context(|| format!("cannot create {}", base.display()))?;
    let stamp = crate::support::run_dir::stamp(std::time::SystemTime::now());
    let dir = crate::support::run_dir::create_unique(&base, &stamp)?;
    let study = StudyFile { format: STUDY_FORMAT, experiments, reach, checksum: None };
    let sealed = crate::checksum::seal(serde_json::to_value(&study)?);
    let mut file = AtomicFile::create(&dir.join(STUDY_FILE))?;
    serde_json::to_writer_pretty(file.writer(), &sealed)?;
    file.commit()?;
    eprintln!("study folder {}", dir.display());
    run_study(&dir, &study)
}

/// Continues the study in `dir`: finished runs are kept, stopped ones resumed. `reach`,
/// when given again, must be the study's. The study file is checked whole (its checksum,
/// then every experiment) before anything is written.
pub fn resume(dir: &Path, reach: Option<f64>) -> Result<Outcome> {
    let path = dir.join(STUDY_FILE);
    let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let not_a_study = || format!("{} is not a learning study", path.display());
    let value: serde_json::Value = serde_json::from_str(&text).with_context(not_a_study)?;
    let study: StudyFile = serde_json::from_value(value.clone()).with_context(not_a_study)?;
    // Files written before the checksum have no `format`: they are format 1.
    let mut value = value;
    if value.get("format").is_none() {
        value["format"] = 1.into();
    }
    crate::checksum::check_seal(&value, STUDY_FORMAT, 1, "study file", &path)?;
    check_study(&study.experiments, study.reach).with_context(|| format!("{}", path.display()))?;
    if let Some(given) = reach.filter(|&given| given != study.reach) {
        bail!(
            "cannot resume {} with --reach {}: the study reports the samples to reach {} (a study's settings \
             cannot change when it resumes)",
            dir.display(),
            crate::support::text::group(given, 0),
            crate::support::text::group(study.reach, 0)
        );
    }
    for e in &study.experiments {
        crate::support::run_dir::check_repetitions(dir, &e.name, e.runs, &path)?;
    }
    run_study(dir, &study)
}

fn run_study(dir: &Path, study: &StudyFile) -> Result<Outcome> {
    for e in &study.experiments {
        for r in 0..e.runs {
            let run_dir = dir.join(&e.name).join(format!("run-{:02}", r + 1));
            if run::is_finished(&run_dir) {
                continue;
            }
            eprintln!("{} run {} of {}", e.name, r + 1, e.runs);
            let outcome = if run_dir.join("experiment.toml").is_file() {
                run::resume(&run_dir)?
            } else {
                std::fs::create_dir_all(&run_dir).with_context(|| format!("cannot create {}", run_dir.display()))?;
                let (settings, text) = repetition(e, r)?;
                run::start_in(&run_dir, &settings, &text)?
            };
            if let Outcome::Interrupted(_) = outcome {
                return Ok(Outcome::Interrupted(dir.to_path_buf()));
            }
        }
    }
    summarize(dir, study)?;
    Ok(Outcome::Finished(dir.to_path_buf()))
}

/// The first number of samples at which `curve`'s mean reaches `score` (interpolated
/// between iterations), if it does.
pub fn samples_to_reach(curve: &Curve, score: f64) -> Option<f64> {
    let points: Vec<(f64, f64)> = curve.samples.iter().copied().zip(curve.mean.iter().copied()).collect();
    if points.first().is_some_and(|p| p.1 >= score) {
        return Some(points[0].0);
    }
    points.windows(2).find(|w| w[0].1 < score && w[1].1 >= score).map(|w| {
        let share = (score - w[0].1) / (w[1].1 - w[0].1);
        w[0].0 + share * (w[1].0 - w[0].0)
    })
}

/// The mean curve of runs (+-1 standard deviation across them), iterations all runs have.
pub fn mean_curve(label: &str, runs: &[Vec<run::Row>]) -> Curve {
    let length = runs.iter().map(Vec::len).min().unwrap_or(0);
    let mut curve = Curve { label: label.to_string(), samples: vec![], mean: vec![], low: vec![], high: vec![] };
    for i in 0..length {
        let n = runs.len() as f64;
        let samples = runs.iter().map(|r| r[i].samples as f64).sum::<f64>() / n;
        let mean = runs.iter().map(|r| r[i].rows_mean).sum::<f64>() / n;
        let variance = if runs.len() > 1 {
            runs.iter().map(|r| (r[i].rows_mean - mean).powi(2)).sum::<f64>() / (n - 1.0)
        } else {
            0.0
        };
        curve.samples.push(samples);
        curve.mean.push(mean);
        curve.low.push((mean - variance.sqrt()).max(0.0));
        curve.high.push(mean + variance.sqrt());
    }
    curve
}

fn summarize(dir: &Path, study: &StudyFile) -> Result<()> {
    let mut curves = Vec::new();
    let mut published = Vec::new();
    let mut table = Vec::new();
    let mut file = AtomicFile::create(&dir.join("curves.csv"))?;
    {
        let mut csv = csv::Writer::from_writer(file.writer());
        csv.write_record(["experiment", "iteration", "runs", "samples_mean", "rows_mean", "rows_sd"])?;
        for e in &study.experiments {
            let run_dirs: Vec<PathBuf> =
                (0..e.runs).map(|r| dir.join(&e.name).join(format!("run-{:02}", r + 1))).collect();
            let rows: Vec<Vec<run::Row>> = run_dirs.iter().map(|d| run::read_rows(d)).collect::<Result<_>>()?;
            let held_out: Vec<f64> = run_dirs.iter().map(|d| run::read_held_out(d)).collect::<Result<_>>()?;
            let curve = mean_curve(&e.name, &rows);
            for i in 0..curve.mean.len() {
                csv.write_record([
                    e.name.clone(),
                    i.to_string(),
                    e.runs.to_string(),
                    format!("{:.0}", curve.samples[i]),
                    format!("{:.3}", curve.mean[i]),
                    format!("{:.3}", curve.high[i] - curve.mean[i]),
                ])?;
            }
            let last = curve.mean.len() - 1;
            let held = held_out.iter().sum::<f64>() / held_out.len() as f64;
            table.push(format!(
                "{:<28} {:>4} {:>10} {:>10} {:>10} {:>14}",
                e.name,
                e.runs,
                crate::support::text::figure_text(curve.samples[last]),
                crate::support::text::group(curve.mean[last], 0),
                crate::support::text::group(held, 0),
                samples_to_reach(&curve, study.reach).map_or("not reached".into(), crate::support::text::figure_text),
            ));
            published.extend(Settings::parse(&e.text)?.published);
            curves.push(curve);
        }
        csv.flush()?;
    }
    file.commit()?;
    plot::draw(&curves, &published, "learning curves (mean of runs, +-1 sd)", &dir.join("curves.png"))?;
    println!(
        "{:<28} {:>4} {:>10} {:>10} {:>10} {:>14}",
        "experiment",
        "runs",
        "samples",
        "rows",
        "held-out",
        format!("to {}", crate::support::text::group(study.reach, 0))
    );
    for line in table {
        println!("{line}");
    }
    println!("curves: {}", dir.join("curves.png").display());
    Ok(())
}
