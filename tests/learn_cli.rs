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
        // Refused before the run folder is made, not at the first iteration.
        (TINY.replace("states = 100", "states = 100\nbehaviour = \"lee\""), "behaviour"),
        (
            TINY.replace("states = 100", "states = 100\nclassifier_population = 1000000000000"),
            "classifier_population must be 2 to 100000",
        ),
        (
            TINY.replace("classifier_generations = 3", "classifier_generations = 1000000000000"),
            "classifier_generations must be 1 to 100000",
        ),
        (TINY.replace("states = 100", "states = 100000000"), "must be 1 to 1000000"),
        (TINY.replace("states = 100", "states = 100\npolicy_features = []"), "policy_features: the list is empty"),
        (
            TINY.replace("states = 100", "states = 100\nvalue_features = [\"column_height_9\"]"),
            "value_features: feature column_height_9 reads column 9 of a board 6 columns wide",
        ),
        (
            "learner = \"cross-entropy\"\nseed = 1\niterations = 1\n[options]\npopulation = 1000000000000\n".into(),
            "population must be 2 to 1000000",
        ),
        (
            "learner = \"lambda-pi\"\nseed = 1\niterations = 1\n[options]\nfeatures = [\"holes\"]\ninitial = [nan, 1]\n"
                .into(),
            "every weight must be a finite number",
        ),
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
    let mut folders = vec![root];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            check_learning_experiment(&path);
            count += 1;
        }
    }
    assert!(count >= 20, "{count}");
}

fn check_learning_experiment(path: &Path) {
    let text = std::fs::read_to_string(path).unwrap();
    tetris_lab::learn::Settings::parse(&text).unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
    assert!(text.contains("expected_time"), "{}", path.display());
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
    let child = spawn_in(dir.path(), &["learn", "killed.toml", "--out", "killed"], true);
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
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), code, "{signal}");
    if signal == "-TERM" {
        // The stop message names the signal that stopped the run.
        let err = stderr(&output);
        assert!(err.contains("SIGTERM again to quit now") && !err.contains("Ctrl-C"), "{err}");
    }
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

/// A finished tiny run's folder, made under `dir`.
fn tiny_run(dir: &Path, iterations: u64) -> std::path::PathBuf {
    let text = TINY.replace("iterations = 2", &format!("iterations = {iterations}"));
    let file = dir.join("tiny.toml");
    std::fs::write(&file, text).unwrap();
    let out = dir.join("results");
    let o = run(&["learn", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    only_folder(&out.join("tiny"))
}

/// Every file of a folder, by name, with its bytes.
fn contents(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    files.sort();
    files
}

#[test]
fn a_tampered_checkpoint_or_experiment_is_refused_and_nothing_changes() {
    let dir = tempfile::tempdir().unwrap();
    let run_dir = tiny_run(dir.path(), 2);
    // As a stopped run: the held-out score not yet written.
    std::fs::remove_file(run_dir.join("held_out.csv")).unwrap();
    let checkpoint = std::fs::read_to_string(run_dir.join("checkpoint.json")).unwrap();
    let experiment = std::fs::read_to_string(run_dir.join("experiment.toml")).unwrap();
    let value: serde_json::Value = serde_json::from_str(&checkpoint).unwrap();
    assert_eq!(value["format"], 2);
    assert!(value["checksum"].is_string() && value["experiment_text"] == experiment.as_str());
    let edited = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut c = value.clone();
        edit(&mut c);
        c.to_string()
    };
    // Format 1 (no checksum, no experiment) is read still: its contents are checked.
    let unsealed = |edit: &dyn Fn(&mut serde_json::Value)| {
        edited(&|c| {
            c["format"] = 1.into();
            c.as_object_mut().unwrap().remove("checksum");
            c.as_object_mut().unwrap().remove("experiment_text");
            edit(c);
        })
    };
    let cases: Vec<(String, String, &str)> = vec![
        (edited(&|c| c["rows"][0]["rows_mean"] = 1e6.into()), experiment.clone(), "the checksum does not match"),
        (
            edited(&|c| c.as_object_mut().unwrap().remove("checksum").map(drop).unwrap()),
            experiment.clone(),
            "no checksum",
        ),
        (checkpoint.clone(), experiment.replace("seed = 2", "seed = 3"), "made by another experiment"),
        (checkpoint.clone(), experiment.replace("6x8", "10x8"), "made by another experiment"),
        (
            unsealed(&|c| c["learner"]["policy_weights"] = serde_json::json!([1.0])),
            experiment.clone(),
            "policy_weights has 1 weights",
        ),
        (unsealed(&|c| c["learner"]["options"]["classifier_population"] = 0.into()), experiment.clone(), "options is"),
        (unsealed(&|c| c["learner"]["states"] = 0.into()), experiment.clone(), "states is 0"),
        (unsealed(&|c| c["rows"][1]["iteration"] = 7.into()), experiment.clone(), "rows[1] is not iteration 1"),
        (unsealed(&|c| c["names"][0] = "holes".into()), experiment.clone(), "are not the policy's features"),
        (checkpoint[..checkpoint.len() / 2].to_string(), experiment.clone(), "is not a learning checkpoint"),
    ];
    for (checkpoint_text, experiment_text, expected) in cases {
        std::fs::write(run_dir.join("checkpoint.json"), &checkpoint_text).unwrap();
        std::fs::write(run_dir.join("experiment.toml"), &experiment_text).unwrap();
        let before = contents(&run_dir);
        let o = run(&["learn", "--resume", run_dir.to_str().unwrap()]);
        assert_clean_error(&o, expected);
        assert_eq!(contents(&run_dir), before, "{expected}: nothing changed");
    }
    // The cross-entropy learner's optimizer state is checked as tune's is.
    let text = "learner = \"cross-entropy\"\nboard = \"6x8\"\nseed = 1\niterations = 2\nevaluation_games = 5\nheld_out_games = 5\n[options]\npopulation = 10\n";
    let file = dir.path().join("ce.toml");
    std::fs::write(&file, text).unwrap();
    let out = dir.path().join("ce-results");
    assert!(run(&["learn", file.to_str().unwrap(), "--out", out.to_str().unwrap()]).status.success());
    let ce = only_folder(&out.join("ce"));
    std::fs::remove_file(ce.join("held_out.csv")).unwrap();
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(ce.join("checkpoint.json")).unwrap()).unwrap();
    for (edit, expected) in [
        (serde_json::json!({"population": 0}), "cross-entropy options differ"),
        (serde_json::json!({"mean": [1.0]}), "cross-entropy mean is not 9 finite numbers"),
    ] {
        let mut c = value.clone();
        c["format"] = 1.into();
        c.as_object_mut().unwrap().remove("checksum");
        let (key, new) = edit.as_object().unwrap().iter().next().unwrap();
        match key.as_str() {
            "population" => c["learner"]["optimizer"]["options"]["population"] = new.clone(),
            _ => c["learner"]["optimizer"][key] = new.clone(),
        }
        std::fs::write(ce.join("checkpoint.json"), c.to_string()).unwrap();
        let o = run(&["learn", "--resume", ce.to_str().unwrap()]);
        assert_clean_error(&o, expected);
    }
}

#[test]
fn a_learning_study_file_is_checked_whole_and_settings_given_again_must_agree() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tiny.toml");
    std::fs::write(&file, TINY.replace("iterations = 2", "iterations = 1")).unwrap();
    let out = dir.path().join("results");
    let o = run(&["learn", file.to_str().unwrap(), "--runs", "1", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let study = only_folder(&out.join("learn-studies"));
    let path = study.join("learn-study.json");
    let sealed: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(sealed["format"], 2);
    let unsealed = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut s = sealed.clone();
        s["format"] = 1.into();
        s.as_object_mut().unwrap().remove("checksum");
        edit(&mut s);
        s.to_string()
    };
    let cases: Vec<(String, &str)> = vec![
        (
            {
                let mut s = sealed.clone();
                s["reach"] = 50.0.into();
                s.to_string()
            },
            "the checksum does not match",
        ),
        (unsealed(&|s| s["experiments"][0]["name"] = "../escaped".into()), "name \"../escaped\" must be"),
        (unsealed(&|s| s["experiments"][0]["runs"] = 0.into()), "runs must be in 1..="),
        (unsealed(&|s| s["experiments"][0]["runs"] = 1_000_000_000_000u64.into()), "runs must be in 1..="),
        (unsealed(&|s| s["experiments"] = serde_json::json!([])), "no experiments"),
        (unsealed(&|s| s["reach"] = (-1.0).into()), "--reach must be a number of rows above 0"),
    ];
    for (text, expected) in cases {
        std::fs::write(&path, &text).unwrap();
        let o = run(&["learn", "--resume", study.to_str().unwrap()]);
        assert_clean_error(&o, expected);
        assert!(!dir.path().join("results/learn-studies/escaped").exists() && !study.join("../escaped").exists());
    }
    // A setting given again must be the study's.
    std::fs::write(&path, sealed.to_string()).unwrap();
    let o = run(&["learn", "--resume", study.to_str().unwrap(), "--reach", "50"]);
    assert_clean_error(&o, "cannot resume");
    assert!(stderr(&o).contains("--reach 50") && stderr(&o).contains("3,000"), "{}", stderr(&o));
    let o = run(&["learn", "--resume", study.to_str().unwrap(), "--reach", "3000"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn an_experiment_name_cannot_lead_outside_the_output_folder() {
    let dir = tempfile::tempdir().unwrap();
    let nested = dir.path().join("inner");
    std::fs::create_dir(&nested).unwrap();
    // `...toml` is the experiment `..`.
    let file = nested.join("...toml");
    std::fs::write(&file, TINY).unwrap();
    let out = nested.join("results");
    let o = run(&["learn", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_clean_error(&o, "must be letters, digits");
    assert_eq!(std::fs::read_dir(&nested).unwrap().count(), 1, "nothing written beside the file");
}
