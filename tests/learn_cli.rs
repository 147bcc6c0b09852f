//! The CLI contracts of `learn`: a run's files, a study's table and plot, bad input (one
//! line naming the file and field, nothing written), and every shipped experiment checks.

mod common;
use common::*;
use std::path::Path;

const TINY: &str = "learner = \"cbmpi\"\nboard = \"6x8\"\nseed = 2\niterations = 2\nevaluation_games = 10\nheld_out_games = 10\n\n[[published]]\nsamples = 50000\nrows = 40\nsource = \"a test\"\n\n[options]\nrollout_length = 2\nstates = 100\nclassifier_generations = 3\n";

fn only_folder(dir: &Path) -> std::path::PathBuf {
    let entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    entries[0].clone()
}

#[test]
fn a_run_writes_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tiny.toml");
    std::fs::write(&file, TINY).unwrap();
    let out = dir.path().join("results");
    let o = run(&["learn", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--threads", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stderr(&o);
    assert!(text.contains("iteration 2/2: ") && text.contains("final policy: "), "{text}");
    let run_dir = only_folder(&out.join("tiny"));
    for name in ["experiment.toml", "manifest.json", "iterations.csv", "checkpoint.json", "held_out.csv", "curve.png"] {
        assert!(run_dir.join(name).is_file(), "{name}");
    }
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run_dir.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["seed"], 2);
    assert_eq!(manifest["rule_set_version"], "simplified/2");
    assert!(manifest["git_hash"].is_string() && manifest["crate_version"].is_string());
    let csv = std::fs::read_to_string(run_dir.join("iterations.csv")).unwrap();
    assert!(csv.starts_with("iteration,samples,rows_mean,rows_low,rows_high,seconds,landing_height,"), "{csv}");
    assert_eq!(csv.lines().count(), 4);
    // Resuming a finished run is refused and changes nothing.
    let o = run(&["learn", "--resume", run_dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("has finished"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(run_dir.join("iterations.csv")).unwrap(), csv);
}

#[test]
fn a_study_prints_its_table_and_draws_its_curves() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.toml");
    let b = dir.path().join("b.toml");
    std::fs::write(&a, TINY).unwrap();
    std::fs::write(&b, TINY.replace("\"cbmpi\"", "\"dpi\"")).unwrap();
    let out = dir.path().join("results");
    let o = run(&[
        "learn",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--runs",
        "2",
        "--reach",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let table = stdout(&o);
    assert!(table.lines().next().unwrap().starts_with("experiment"), "{table}");
    assert!(table.lines().any(|l| l.starts_with("a ") && l.contains(" 2 ")), "{table}");
    assert!(table.lines().any(|l| l.starts_with("b ")), "{table}");
    let study = only_folder(&out.join("learn-studies"));
    for name in ["curves.csv", "curves.png", "a/run-01/held_out.csv", "b/run-02/curve.png"] {
        assert!(study.join(name).is_file(), "{name}");
    }
    let curves = std::fs::read_to_string(study.join("curves.csv")).unwrap();
    assert_eq!(curves.lines().count(), 1 + 2 * 3, "{curves}");
}

#[test]
fn bad_experiments_are_one_line_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results");
    let cases = [
        (TINY.replace("cbmpi", "cbmpx"), "learner: unknown learner"),
        (TINY.replace("seed = 2", "seed = 2\nsed = 3"), "line 4, column 1: unknown field `sed`"),
        (TINY.replace("iterations = 2", "iterations = 0"), "iterations must be 1"),
        (TINY.replace("rollout_length", "rollout_lenght"), "unknown field `rollout_lenght`"),
        (TINY.replace("states = 100", "states = 100\nbudget = 5"), "either budget"),
        (
            TINY.replace("states = 100", "states = 100\npolicy_features = [\"dt\", \"hole\"]"),
            "policy_features: unknown feature",
        ),
        (
            TINY.replace("\"cbmpi\"", "\"dpi\"").replace("states = 100", "states = 100\nvalue_features = [\"dt\"]"),
            "dpi has no value function",
        ),
        (TINY.replace("board = \"6x8\"", "board = \"6x99\""), "board"),
    ];
    for (text, expected) in cases {
        let file = dir.path().join("bad.toml");
        std::fs::write(&file, &text).unwrap();
        let o = run(&["learn", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1), "{expected}");
        let error = stderr(&o);
        assert_eq!(error.trim().lines().count(), 1, "{error}");
        assert!(error.contains("bad.toml") && error.contains(expected), "{expected}: {error}");
        assert!(!out.exists(), "{expected}: nothing written");
    }
    let o = run(&["learn", "--resume", dir.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("not a learning run or study folder"), "{}", stderr(&o));
    let o = run(&["learn"]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn every_shipped_learning_experiment_checks() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/learn");
    let mut count = 0;
    for entry in std::fs::read_dir(&root).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        tetris_lab::learn::Settings::parse(&text).unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
        assert!(text.contains("expected_time"), "{}", path.display());
        count += 1;
    }
    assert!(count >= 8);
}

/// A CSV without its `seconds` column (the sixth), the only field allowed to differ.
fn without_seconds_column(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .map(|line| line.split(',').enumerate().filter(|(i, _)| *i != 5).map(|(_, f)| f).collect::<Vec<_>>().join(","))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_killed_run_resumes_to_the_same_results() {
    stopped_run_resumes_to_the_same_results("-KILL", None);
}

#[test]
fn a_run_stopped_by_sigterm_exits_130_and_resumes_to_the_same_results() {
    stopped_run_resumes_to_the_same_results("-TERM", Some(130));
}

fn stopped_run_resumes_to_the_same_results(signal: &str, code: Option<i32>) {
    let dir = tempfile::tempdir().unwrap();
    let text = "learner = \"lambda-pi\"\nseed = 5\niterations = 40\nevaluation_games = 50\nheld_out_games = 50\n[options]\ngames = 50\n";
    std::fs::write(dir.path().join("killed.toml"), text).unwrap();
    let straight = run_in(dir.path(), &["learn", "killed.toml", "--out", "straight"]);
    assert!(straight.status.success(), "{}", stderr(&straight));
    let mut child = spawn_in(dir.path(), &["learn", "killed.toml", "--out", "killed"], false);
    // Killed (no chance to clean up) once a few iterations are in.
    let started = std::time::Instant::now();
    loop {
        let csv = std::fs::read_dir(dir.path().join("killed/killed"))
            .ok()
            .and_then(|mut runs| runs.next())
            .and_then(|run| std::fs::read_to_string(run.unwrap().path().join("iterations.csv")).ok());
        if csv.is_some_and(|csv| csv.lines().count() > 4) {
            break;
        }
        assert!(started.elapsed().as_secs() < 60, "the run did not start");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    send_signal(&child, signal);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), code, "{signal}");
    let killed = only_run_of(&dir.path().join("killed"), "killed");
    assert!(!killed.join("held_out.csv").exists(), "killed before the end");
    let o = run_in(dir.path(), &["learn", "--resume", killed.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let straight = only_run_of(&dir.path().join("straight"), "killed");
    for file in ["iterations.csv", "held_out.csv"] {
        assert_eq!(without_seconds_column(&killed.join(file)), without_seconds_column(&straight.join(file)), "{file}");
    }
    let leftovers: Vec<_> = std::fs::read_dir(&killed)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains(".tmp") || name.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}
