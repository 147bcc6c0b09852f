//! End-to-end tests of `tetris-lab tune` and `plot`: outputs, determinism at 1 and 2
//! threads, resume after `kill -9`, and bad input failing in one line before any game.

mod common;

use common::{assert_same_run, only_run_of, send_signal, spawn_in};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const BINARY: &str = env!("CARGO_BIN_EXE_tetris-lab");

/// A small cross-entropy campaign on a 10x8 board: a few seconds, and it improves.
fn experiment(generations: u64) -> String {
    format!(
        r#"
name = "small"
preset = "dellacherie-simplified"
board = "10x8"
games = 4
seed = 5
reevaluation_games = 6
held_out_games = 10
[weights]
landing_height = {{}}
eroded_cells = {{}}
row_transitions = {{}}
holes = {{ start = 0 }}
[fixed]
cumulative_wells = -1
[optimizer]
kind = "cross-entropy"
population = 12
[budget]
generations = {generations}
"#
    )
}

fn tune(dir: &Path, args: &[&str]) -> Output {
    Command::new(BINARY).arg("tune").args(args).current_dir(dir).output().expect("binary runs")
}

fn only_run(results: &Path) -> PathBuf {
    only_run_of(results, "small")
}

#[test]
fn a_run_writes_every_output_and_does_not_depend_on_threads() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("small.toml"), experiment(4)).unwrap();
    let one = tune(dir.path(), &["small.toml", "--out", "one", "--threads", "1"]);
    assert!(one.status.success(), "{}", String::from_utf8_lossy(&one.stderr));
    let two = tune(dir.path(), &["small.toml", "--out", "two", "--threads", "2"]);
    assert!(two.status.success(), "{}", String::from_utf8_lossy(&two.stderr));
    let (a, b) = (only_run(&dir.path().join("one")), only_run(&dir.path().join("two")));
    for file in [
        "manifest.json",
        "evaluations.csv",
        "generations.csv",
        "best.toml",
        "held_out.csv",
        "fitness.png",
        "fitness.svg",
        "checkpoint.json",
    ] {
        assert!(a.join(file).is_file(), "missing {file}");
    }
    assert_same_run(&a, &b);
    // 4 generations of 12 candidates, then the re-evaluations: the challenger alone in
    // generation 0, the incumbent and the challenger (the moving mean) after.
    let generations = std::fs::read_to_string(a.join("generations.csv")).unwrap();
    assert_eq!(generations.lines().count(), 5);
    // It improves: the candidates' mean fitness rises from the random first generation to
    // the last, the best so far never falls, and the final best plays far better on unseen
    // games than the first generation's candidates did (seeded, so the same figures every
    // run: 1.6 rows, then 38.5; 105.2 held out).
    let mut table = csv::Reader::from_path(a.join("generations.csv")).unwrap();
    let headers = table.headers().unwrap().clone();
    let column = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = table.records().map(Result::unwrap).collect();
    let value = |row: &csv::StringRecord, name: &str| -> f64 { row[column(name)].parse().unwrap() };
    let (first, last) = (&rows[0], &rows[rows.len() - 1]);
    assert!(value(last, "generation_mean") > 4.0 * value(first, "generation_mean"), "{generations}");
    assert!(rows.windows(2).all(|w| value(&w[1], "generation_best_so_far") >= value(&w[0], "generation_best_so_far")));
    let mut held_out = csv::Reader::from_path(a.join("held_out.csv")).unwrap();
    let tuned = held_out.records().map(Result::unwrap).find(|r| &r[0] == "tuned").expect("a tuned row");
    let tuned_mean: f64 = tuned[2].parse().unwrap();
    assert!(tuned_mean > 10.0 * value(first, "generation_mean"), "held out {tuned_mean}, {generations}");
    let evaluations = std::fs::read_to_string(a.join("evaluations.csv")).unwrap();
    assert_eq!(evaluations.lines().count(), 1 + 4 * 12 + 1 + 3 * 2);
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(a.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["master_seed"], 5);
    assert_eq!(manifest["threads"], 1);
    assert_eq!(manifest["rule_set_version"], "simplified/2");
    // best.toml plays: `play --weights` accepts it.
    let play = Command::new(BINARY)
        .args(["play", "--preset", "dellacherie-simplified", "--board", "10x8", "--games", "3", "--weights"])
        .arg(a.join("best.toml"))
        .output()
        .unwrap();
    assert!(play.status.success(), "{}", String::from_utf8_lossy(&play.stderr));
    // A second run of the same experiment gets a new folder.
    let again = tune(dir.path(), &["small.toml", "--out", "one", "--threads", "2"]);
    assert!(again.status.success());
    assert_eq!(std::fs::read_dir(dir.path().join("one/small")).unwrap().count(), 2);
    // Two runs overlaid.
    let out = dir.path().join("both.png");
    let plot = Command::new(BINARY).arg("plot").arg(&a).arg(&b).arg("--image").arg(&out).output().unwrap();
    assert!(plot.status.success(), "{}", String::from_utf8_lossy(&plot.stderr));
    assert!(std::fs::metadata(&out).unwrap().len() > 10_000);
    // The experiment's folder (a parent of runs) is named with its newest run.
    let parent = Command::new(BINARY).arg("plot").arg(dir.path().join("one/small")).output().unwrap();
    let said = String::from_utf8_lossy(&parent.stderr);
    assert_eq!(parent.status.code(), Some(1), "{said}");
    assert!(said.contains("is not a run folder but holds 2 run folder(s): the newest is "), "{said}");
}

/// A campaign killed with `kill -9`, or stopped by Ctrl-C (after the games in progress,
/// exit 130), a few generations in resumes with `--resume` and ends bit for bit as a run
/// never stopped.
#[test]
fn a_run_killed_mid_campaign_resumes_bit_identically() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("small.toml"), experiment(14)).unwrap();
    let reference = tune(dir.path(), &["small.toml", "--out", "reference", "--threads", "1"]);
    assert!(reference.status.success(), "{}", String::from_utf8_lossy(&reference.stderr));

    for (folder, signal) in [("killed", "-KILL"), ("interrupted", "-INT"), ("terminated", "-TERM")] {
        let child = spawn_in(dir.path(), &["tune", "small.toml", "--out", folder, "--threads", "2"], true);
        // Stop it once a few generations are logged (and long before the last).
        let start = Instant::now();
        let generations = loop {
            let rows = std::fs::read_dir(dir.path().join(folder).join("small"))
                .ok()
                .and_then(|mut runs| runs.next())
                .and_then(|run| std::fs::read_to_string(run.unwrap().path().join("generations.csv")).ok())
                .map_or(0, |t| t.lines().count().saturating_sub(1));
            if rows >= 3 {
                break rows;
            }
            assert!(start.elapsed() < Duration::from_secs(120), "the campaign did not start");
            std::thread::sleep(Duration::from_millis(5));
        };
        send_signal(&child, signal);
        let output = child.wait_with_output().unwrap();
        let status = output.status;
        let run = only_run(&dir.path().join(folder));
        if signal != "-KILL" {
            assert_eq!(status.code(), Some(130), "{signal}: the checkpoint written, then exit as interrupted");
            // The messages docs/errors.md shows.
            let said = String::from_utf8_lossy(&output.stderr);
            // In the words of the signal that stopped it.
            let name = if signal == "-TERM" { "SIGTERM" } else { "Ctrl-C" };
            let first = format!("{name}: stopping after the games in progress (press again to exit at once)\n");
            assert!(said.contains(&first), "{said}");
            assert!(said.contains("checkpoint written. Resume with: tetris-lab tune --resume "), "{said}");
            let temporaries: Vec<_> = std::fs::read_dir(&run)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|name| name.contains(".partial-"))
                .collect();
            assert!(temporaries.is_empty(), "{signal} left {temporaries:?}");
        }
        assert!(!run.join("best.toml").exists(), "{folder} after {generations} generations, but it had finished");

        let resumed = tune(dir.path(), &["--resume", run.to_str().unwrap(), "--threads", "1"]);
        assert!(resumed.status.success(), "{}", String::from_utf8_lossy(&resumed.stderr));
        assert_same_run(&only_run(&dir.path().join("reference")), &run);
        let manifest: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(run.join("manifest.json")).unwrap()).unwrap();
        assert_eq!(manifest["resumed"].as_array().unwrap().len(), 1, "{folder}");
    }
}

/// A checkpoint of format 1 (before checkpoints carried a checksum) still resumes: here a
/// finished 2-generation run, made into a 3-generation one, ends as a 3-generation run
/// made at once, and its checkpoint is written sealed.
#[test]
fn a_checkpoint_from_before_the_checksum_still_resumes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("three.toml"), experiment(3)).unwrap();
    std::fs::write(dir.path().join("two.toml"), experiment(2)).unwrap();
    for (file, folder) in [("three.toml", "reference"), ("two.toml", "old")] {
        let o = tune(dir.path(), &[file, "--out", folder, "--threads", "1"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let run = only_run(&dir.path().join("old"));
    let path = run.join("checkpoint.json");
    let mut checkpoint: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(checkpoint["format"], 2);
    assert!(checkpoint["checksum"].is_string());
    checkpoint.as_object_mut().unwrap().remove("checksum");
    checkpoint["format"] = 1.into();
    checkpoint["tuning_done"] = false.into();
    checkpoint["experiment_text"] = experiment(3).into();
    std::fs::write(&path, serde_json::to_vec_pretty(&checkpoint).unwrap()).unwrap();
    let resumed = tune(dir.path(), &["--resume", run.to_str().unwrap(), "--threads", "1"]);
    assert!(resumed.status.success(), "{}", String::from_utf8_lossy(&resumed.stderr));
    assert_same_run(&only_run(&dir.path().join("reference")), &run);
    let checkpoint: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!((checkpoint["format"].as_u64(), checkpoint["generation"].as_u64()), (Some(2), Some(3)));
    assert!(checkpoint["checksum"].is_string());
}

/// Runs `tune` expecting failure: one `error:` line, exit code 1, no results folder.
fn fails(dir: &Path, args: &[&str], expected: &str) {
    let out = tune(dir, args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("error: ") && stderr.contains(expected), "{stderr}");
}

#[test]
fn bad_input_fails_in_one_line_before_any_game() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let write = |name: &str, text: String| std::fs::write(d.join(name), text).unwrap();
    write("malformed.toml", experiment(2).replace("games = 4", "games = = 4"));
    fails(d, &["malformed.toml"], "line 5, column");
    write("optimizer.toml", experiment(2).replace("\"cross-entropy\"", "\"cmaess\""));
    fails(d, &["optimizer.toml"], "did you mean `cmaes`");
    write("option.toml", experiment(2).replace("population = 12", "populaton = 12"));
    fails(d, &["option.toml"], "did you mean `population`");
    write("range.toml", experiment(2).replace("holes = { start = 0 }", "holes = { min = 3, max = -3 }"));
    fails(d, &["range.toml"], "range min 3 > max -3");
    write("both.toml", experiment(2).replace("cumulative_wells = -1", "holes = -1"));
    fails(d, &["both.toml"], "both fixed");
    write("budget.toml", experiment(0));
    fails(d, &["budget.toml"], "generations = 0");
    write("etetris.toml", ETETRIS.replace("games = 1", "games = 3"));
    fails(d, &["etetris.toml"], "set games = 1");
    write("etetris-key.toml", ETETRIS.replace("beam = 20", "bean = 20"));
    fails(d, &["etetris-key.toml"], "did you mean `beam`");
    fails(d, &["missing.toml"], "cannot read experiment file missing.toml");
    assert!(!d.join("results").exists(), "a results folder was created for bad input");
    // A folder that is not a run, and a run resumed with another experiment.
    fails(d, &["--resume", "."], "not a run folder");
    write("good.toml", experiment(1));
    let good = tune(d, &["good.toml", "--out", "out"]);
    assert!(good.status.success(), "{}", String::from_utf8_lossy(&good.stderr));
    let run = only_run(&d.join("out"));
    write("other.toml", experiment(2));
    fails(d, &["other.toml", "--resume", run.to_str().unwrap()], "made by another experiment");
    // An output folder that cannot be created.
    write("file", String::new());
    fails(d, &["good.toml", "--out", "file"], "cannot create results folder");
}

/// A tiny E-Tetris campaign: Nelder-Mead on three weights, a 20-board beam over the first
/// 300 pieces while tuning, 40 boards in the final scoring. Milliseconds per search.
const ETETRIS: &str = r#"
name = "tiny-etetris"
preset = "etetris"
games = 1
seed = 3
max_pieces = 300
[etetris]
beam = 20
held_out_beam = 40
[weights]
row_transitions = {}
holes = {}
score_divisor = {}
[fixed]
cells = -1
[optimizer]
kind = "nelder-mead"
[budget]
generations = 8
"#;

fn solve_score(dir: &Path, args: &[&str]) -> u64 {
    let out = Command::new(BINARY).args(["etetris", "solve"]).args(args).current_dir(dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let score = stdout.split_whitespace().find_map(|f| f.strip_prefix("score=")).expect("score=");
    score.parse().unwrap()
}

#[test]
fn an_etetris_campaign_writes_every_output_and_its_best_toml_solves() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("tiny.toml"), ETETRIS).unwrap();
    // The beam search is parallel inside the driver's parallel rounds: still the same run
    // at any thread count.
    let one = tune(d, &["tiny.toml", "--out", "one", "--threads", "1"]);
    assert!(one.status.success(), "{}", String::from_utf8_lossy(&one.stderr));
    let two = tune(d, &["tiny.toml", "--out", "two", "--threads", "2"]);
    assert!(two.status.success(), "{}", String::from_utf8_lossy(&two.stderr));
    let (a, b) = (only_run_of(&d.join("one"), "tiny-etetris"), only_run_of(&d.join("two"), "tiny-etetris"));
    for file in [
        "manifest.json",
        "evaluations.csv",
        "generations.csv",
        "best.toml",
        "held_out.csv",
        "fitness.png",
        "checkpoint.json",
    ] {
        assert!(a.join(file).is_file(), "missing {file}");
    }
    assert_same_run(&a, &b);
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(a.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(
        (&manifest["preset"], &manifest["rule_set_version"], &manifest["fitness"]),
        (&"etetris".into(), &"etetris/1".into(), &"score".into())
    );
    // One deterministic search per candidate: 1 game, no spread, no re-evaluation rows.
    let evaluations = std::fs::read_to_string(a.join("evaluations.csv")).unwrap();
    let mut rows = evaluations.lines();
    // A column per key of a weights file, in its order (the unit tests of weights.rs pin it).
    use tetris_lab::etetris::weights::{key_names, EXTRA_FEATURE_NAMES};
    let keys = key_names().join(",");
    let header = format!("generation,candidate,{keys},games,mean,standard_deviation,pieces,seconds");
    assert_eq!(rows.next(), Some(header.as_str()));
    let column = |name: &str| header.split(',').position(|c| c == name).unwrap_or_else(|| panic!("no {name}"));
    let mut searches = 0;
    for row in rows {
        let fields: Vec<&str> = row.split(',').collect();
        assert!(fields[1].parse::<u32>().is_ok(), "a re-evaluation row: {row}");
        // cells fixed at -1, the extra terms and the overflow pair left at 0, 1 game, no spread.
        assert_eq!(fields[column("cells")], "-1", "{row}");
        for name in EXTRA_FEATURE_NAMES.into_iter().chain(["overflow", "overflow_capacity"]) {
            assert_eq!(fields[column(name)], "0", "{name}: {row}");
        }
        assert_eq!((fields[column("games")], fields[column("standard_deviation")]), ("1", "0"), "{row}");
        searches += 1;
    }
    assert!(searches >= 4 + 7, "the initial simplex and a point per generation at least: {searches}");
    assert_eq!(std::fs::read_to_string(a.join("generations.csv")).unwrap().lines().count(), 1 + 8);
    // The summary states the held-out width; best.toml is what `solve --weights` reads,
    // and it scores what the campaign reported, as the published weights do.
    let stdout = String::from_utf8_lossy(&one.stdout);
    let reported = |prefix: &str| -> u64 {
        let line = stdout.lines().find(|l| l.starts_with(prefix)).unwrap_or_else(|| panic!("no {prefix:?}: {stdout}"));
        line.rsplit_once("score ").unwrap().1.parse().unwrap()
    };
    let best = std::fs::read_to_string(a.join("best.toml")).unwrap();
    assert!(
        best.contains("# Play it: tetris-lab etetris solve --beam 40 --max-pieces 300 --weights best.toml"),
        "{best}"
    );
    assert!(!best.contains("overflow"), "the overflow term is off, so its pair is left out: {best}");
    let path = a.join("best.toml");
    let tuned = solve_score(d, &["--beam", "40", "--max-pieces", "300", "--weights", path.to_str().unwrap()]);
    assert_eq!(tuned, reported("held-out (beam 40): best score "));
    let published = solve_score(d, &["--beam", "40", "--max-pieces", "300"]);
    assert_eq!(published, reported("published etetris weights measured the same way: score "));
    assert_ne!(tuned, published, "the tuned weights should play another game than the published ones");
}

/// The plain build refuses to run as one of several MPI ranks (each would run the whole
/// campaign and write its own results).
#[cfg(not(feature = "mpi"))]
#[test]
fn the_plain_build_refuses_to_run_under_mpirun() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("small.toml"), experiment(1)).unwrap();
    let output = Command::new(BINARY)
        .args(["tune", "small.toml"])
        .env("OMPI_COMM_WORLD_SIZE", "3")
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("built without MPI") && stderr.contains("--features mpi"), "{stderr}");
    assert!(!dir.path().join("results").exists(), "nothing written");
}

#[test]
fn an_etetris_campaign_tunes_the_overflow_term_and_its_best_toml_solves() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // The tiny campaign tuning the overflow weight at a fixed capacity low enough for
    // this short game's boards.
    let experiment = ETETRIS
        .replace("name = \"tiny-etetris\"", "name = \"tiny-overflow\"")
        .replace("row_transitions = {}\nholes = {}\n", "overflow = { start = 0.3 }\n")
        .replace("cells = -1\n", "cells = -1\noverflow_capacity = 100\n");
    std::fs::write(d.join("overflow.toml"), experiment).unwrap();
    let run = tune(d, &["overflow.toml", "--out", "out", "--threads", "2"]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let folder = only_run_of(&d.join("out"), "tiny-overflow");
    let evaluations = std::fs::read_to_string(folder.join("evaluations.csv")).unwrap();
    let header: Vec<&str> = evaluations.lines().next().unwrap().split(',').collect();
    let column = |name: &str| header.iter().position(|c| *c == name).unwrap_or_else(|| panic!("no {name}"));
    let (weight, capacity) = (column("overflow"), column("overflow_capacity"));
    let tuned: Vec<f64> =
        evaluations.lines().skip(1).map(|row| row.split(',').nth(weight).unwrap().parse().unwrap()).collect();
    assert!(tuned.iter().any(|&w| w != 0.3), "the overflow weight is tuned: {tuned:?}");
    assert!(
        evaluations.lines().skip(1).all(|row| row.split(',').nth(capacity) == Some("100")),
        "the capacity is fixed"
    );
    // best.toml carries the pair, and solve plays it to the reported score.
    let best = std::fs::read_to_string(folder.join("best.toml")).unwrap();
    assert!(best.contains("overflow = ") && best.contains("overflow_capacity = 100"), "{best}");
    let path = folder.join("best.toml");
    let solved = solve_score(d, &["--beam", "40", "--max-pieces", "300", "--weights", path.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    let line = stdout.lines().find(|l| l.starts_with("held-out (beam 40): best score ")).expect("the held-out line");
    assert_eq!(solved, line.rsplit_once("score ").unwrap().1.parse::<u64>().unwrap());
}
