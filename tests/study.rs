//! Studies (`tune --runs N`): their tables, the same numbers at any thread count, resume
//! after `kill -9` ending as an uninterrupted study, and bad input in one line.

mod common;

use common::{assert_clean_error, spawn_in, without_seconds};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const BINARY: &str = env!("CARGO_BIN_EXE_tetris-lab");

/// A small cross-entropy campaign on a 10x8 board (a second or two).
fn experiment(name: &str, population: u64) -> String {
    format!(
        r#"
name = "{name}"
preset = "dellacherie-simplified"
board = "10x8"
games = 3
seed = 5
reevaluation_games = 4
held_out_games = 8
[weights]
landing_height = {{}}
row_transitions = {{}}
holes = {{}}
[optimizer]
kind = "cross-entropy"
population = {population}
[budget]
generations = 3
"#
    )
}

fn setup() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("wide.toml"), experiment("wide", 12)).unwrap();
    std::fs::write(dir.path().join("narrow.toml"), experiment("narrow", 4)).unwrap();
    dir
}

fn tune(dir: &Path, args: &[&str]) -> Output {
    Command::new(BINARY).arg("tune").args(args).current_dir(dir).output().expect("binary runs")
}

/// The one study folder under `results`.
fn only_study(results: &Path) -> PathBuf {
    let studies: Vec<PathBuf> =
        std::fs::read_dir(results.join("studies")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(studies.len(), 1, "{studies:?}");
    studies[0].clone()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Two studies gave the same numbers (wall-clock seconds aside).
fn assert_same_study(a: &Path, b: &Path) {
    assert_eq!(without_seconds(&a.join("runs.csv")), without_seconds(&b.join("runs.csv")), "runs.csv differs");
    for file in ["curves.csv", "summary.csv", "comparisons.csv", "summary.md"] {
        assert_eq!(read(&a.join(file)), read(&b.join(file)), "{file} differs");
    }
}

#[test]
fn a_study_writes_its_tables_and_does_not_depend_on_threads() {
    let dir = setup();
    let args = ["wide.toml", "narrow.toml", "--runs", "3"];
    let one = tune(dir.path(), &[&args[..], &["--out", "one", "--threads", "1"]].concat());
    assert!(one.status.success(), "{}", String::from_utf8_lossy(&one.stderr));
    let two = tune(dir.path(), &[&args[..], &["--out", "two", "--threads", "2"]].concat());
    assert!(two.status.success(), "{}", String::from_utf8_lossy(&two.stderr));
    let (a, b) = (only_study(&dir.path().join("one")), only_study(&dir.path().join("two")));
    assert_same_study(&a, &b);

    // One row per repetition, each a complete run folder with its own seed.
    let mut runs = csv::Reader::from_path(a.join("runs.csv")).unwrap();
    let headers = runs.headers().unwrap().clone();
    let column = |name: &str| headers.iter().position(|h| h == name).unwrap_or_else(|| panic!("no {name}"));
    let rows: Vec<csv::StringRecord> = runs.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 6);
    let seeds: Vec<&str> = rows.iter().take(3).map(|r| &r[column("seed")]).collect();
    assert!(seeds[0] != seeds[1] && seeds[1] != seeds[2], "{seeds:?}");
    for row in &rows {
        let folder = a.join(&row[column("run_folder")]);
        for file in ["generations.csv", "best.toml", "held_out.csv", "fitness.png"] {
            assert!(folder.join(file).is_file(), "{} has no {file}", folder.display());
        }
        let mean: f64 = row[column("held_out_mean")].parse().unwrap();
        let low: f64 = row[column("held_out_low_95")].parse().unwrap();
        assert!(low <= mean && mean > 0.0, "{row:?}");
    }
    // The summary's median is the median of the three held-out means.
    let mut wide: Vec<f64> =
        rows.iter().filter(|r| &r[0] == "wide").map(|r| r[column("held_out_mean")].parse().unwrap()).collect();
    wide.sort_by(f64::total_cmp);
    let summary = read(&a.join("summary.csv"));
    let line = summary.lines().find(|l| l.starts_with("wide,")).unwrap();
    assert_eq!(line.split(',').nth(2).unwrap().parse::<f64>().unwrap(), wide[1], "{summary}");
    // One pair, with a p-value in [0, 1] and its Holm correction (equal for one pair).
    let comparisons = read(&a.join("comparisons.csv"));
    let lines: Vec<&str> = comparisons.lines().collect();
    assert_eq!(lines.len(), 2, "{comparisons}");
    assert!(lines[0].contains("p_value") && lines[0].contains("effect_size"), "{comparisons}");
    let fields: Vec<&str> = lines[1].split(',').collect();
    let p: f64 = fields[5].parse().unwrap();
    assert!((0.0..=1.0).contains(&p) && fields[5] == fields[6], "{comparisons}");
    // Curves on one grid of pieces, for both experiments.
    let curves = read(&a.join("curves.csv"));
    assert!(curves.lines().any(|l| l.starts_with("wide,")) && curves.lines().any(|l| l.starts_with("narrow,")));
    assert!(std::fs::metadata(a.join("curves.png")).unwrap().len() > 10_000);
    assert!(read(&a.join("curves.svg")).contains("<svg"));
}

/// `plot` redraws a study's curves exactly as the study drew them, overlays runs into the
/// folder that holds them (never the current one), and refuses what it cannot draw.
#[test]
fn plot_redraws_a_study_and_writes_beside_what_it_draws() {
    let dir = setup();
    let made = tune(dir.path(), &["wide.toml", "narrow.toml", "--runs", "2", "--threads", "2"]);
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let study = only_study(&dir.path().join("results"));
    let drawn = std::fs::read(study.join("curves.png")).unwrap();
    std::fs::remove_file(study.join("curves.png")).unwrap();
    let plot = |args: &[&str]| Command::new(BINARY).arg("plot").args(args).current_dir(dir.path()).output().unwrap();
    let study_arg = study.strip_prefix(dir.path()).unwrap().to_str().unwrap().to_string();
    let out = plot(&[&study_arg]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read(study.join("curves.png")).unwrap(), drawn, "the redrawn curves differ");
    assert!(String::from_utf8_lossy(&out.stdout).contains("curves.svg"));
    // Two runs of the study: the comparison goes into the folder holding both.
    let (a, b) = (format!("{study_arg}/wide/run-01"), format!("{study_arg}/narrow/run-02"));
    let out = plot(&[&a, &b]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(study.join("comparison.png").is_file());
    assert!(!dir.path().join("comparison.png").exists() && !dir.path().join("fitness-comparison.png").exists());
    // Runs that share no folder below the current one: --image is needed, nothing written.
    std::fs::create_dir(dir.path().join("elsewhere")).unwrap();
    let moved = dir.path().join("elsewhere/run");
    common::copy_tree(&study.join("wide/run-02"), &moved);
    let out = plot(&[&a, "elsewhere/run"]);
    assert_clean_error(&out, "--image");
    // A study with other folders, or a study's curves with run-only flags.
    assert_clean_error(&plot(&[&study_arg, &a]), "a study folder");
    assert_clean_error(&plot(&[&study_arg, "--log-scale"]), "--log-scale");
}

#[test]
fn a_study_killed_midway_resumes_to_the_same_numbers() {
    let dir = setup();
    let args = ["wide.toml", "narrow.toml", "--runs", "2"];
    let reference = tune(dir.path(), &[&args[..], &["--out", "reference", "--threads", "2"]].concat());
    assert!(reference.status.success(), "{}", String::from_utf8_lossy(&reference.stderr));

    let mut child =
        spawn_in(dir.path(), &[&["tune"][..], &args, &["--out", "killed", "--threads", "1"]].concat(), false);
    // Kill -9 once the second repetition of the first experiment has started.
    let start = Instant::now();
    loop {
        let started = std::fs::read_dir(dir.path().join("killed/studies"))
            .ok()
            .and_then(|mut studies| studies.next())
            .map(|study| study.unwrap().path().join("wide/run-02/checkpoint.json").is_file())
            .unwrap_or(false);
        if started {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(120), "the study did not reach its second run");
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let study = only_study(&dir.path().join("killed"));
    assert!(!study.join("narrow").join("run-02").join("held_out.csv").exists(), "it had finished");

    let resumed = tune(dir.path(), &["--resume", study.to_str().unwrap(), "--threads", "2"]);
    assert!(resumed.status.success(), "{}", String::from_utf8_lossy(&resumed.stderr));
    assert_same_study(&only_study(&dir.path().join("reference")), &study);
    // Resuming a finished study changes nothing.
    let again = tune(dir.path(), &["--resume", study.to_str().unwrap()]);
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    assert_same_study(&only_study(&dir.path().join("reference")), &study);
}

#[test]
fn bad_study_input_fails_in_one_line() {
    let dir = setup();
    assert_clean_error(&tune(dir.path(), &["wide.toml", "--runs", "0"]), "--runs");
    assert_clean_error(&tune(dir.path(), &["wide.toml", "--runs", "1001"]), "1..=1000");
    assert_clean_error(&tune(dir.path(), &["wide.toml", "wide.toml", "--runs", "2"]), "given twice");
    std::fs::write(dir.path().join("zero.toml"), format!("runs = 0\n{}", experiment("zero", 4))).unwrap();
    assert_clean_error(&tune(dir.path(), &["zero.toml"]), "runs");
    // --runs with --resume of a single run.
    let single = tune(dir.path(), &["narrow.toml", "--out", "single"]);
    assert!(single.status.success(), "{}", String::from_utf8_lossy(&single.stderr));
    let run = common::only_run_of(&dir.path().join("single"), "narrow");
    assert_clean_error(&tune(dir.path(), &["--resume", run.to_str().unwrap(), "--runs", "3"]), "--runs");
    assert!(!dir.path().join("results").exists(), "a failed command wrote results");
}
