//! The E-Tetris subcommands run as a user would: `sequence`, `replay`, `solve`, `polish`, and their
//! errors on bad input.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn binary() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tetris-lab"))
}

fn run(args: &[&str], dir: &Path) -> Output {
    binary().args(args).current_dir(dir).output().expect("the binary runs")
}

fn stdout(output: &Output) -> String {
    assert!(output.status.success(), "failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A file of the repository (the contest sequence and the published record are copied
/// into it, so a fresh clone tests on its own).
fn repository_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(name)
}

/// `key=value` fields of one output line.
fn field(line: &str, key: &str) -> u64 {
    line.split_whitespace()
        .find_map(|f| f.strip_prefix(&format!("{key}=")))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {key}= in {line:?}"))
}

fn expect_error(args: &[&str], dir: &Path, needle: &str) {
    let output = run(args, dir);
    assert!(!output.status.success(), "{args:?} should fail");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let first = stderr.lines().next().unwrap_or("");
    assert!(first.starts_with("error:") && first.contains(needle), "{args:?}: {stderr}");
}

#[test]
fn sequence_equals_the_published_sequence() {
    let dir = tempfile::tempdir().unwrap();
    let expected = std::fs::read_to_string(repository_file("tests/data/etetris/sequence.txt")).unwrap();
    assert_eq!(stdout(&run(&["etetris", "sequence"], dir.path())), expected);
    let first = stdout(&run(&["etetris", "sequence", "--max-pieces", "3"], dir.path()));
    assert_eq!(first, "Z 0\nI 1\nO 2\n");
}

#[test]
fn the_published_record_replays_to_its_score() {
    let dir = tempfile::tempdir().unwrap();
    let path = repository_file("data/etetris/published_1378178.txt");
    let line = stdout(&run(&["etetris", "replay", path.to_str().unwrap()], dir.path()));
    assert_eq!(line.trim(), "pieces=10000 score=1378178");
    // Pieces after the game's end are not played, and a note says so.
    let best = repository_file("data/etetris/k10000-1427634.txt");
    let longer = format!("{},N,D5,N,D7", std::fs::read_to_string(best).unwrap().trim_end());
    std::fs::write(dir.path().join("longer.txt"), longer).unwrap();
    let output = run(&["etetris", "replay", "longer.txt"], dir.path());
    assert_eq!(stdout(&output).trim(), "pieces=10000 score=1427634");
    let note = String::from_utf8_lossy(&output.stderr);
    assert!(note.contains("the game ended at piece 10000; the record's 2 piece(s) after it were not played"), "{note}");
}

#[test]
fn solve_writes_records_that_replay_to_the_printed_score() {
    let dir = tempfile::tempdir().unwrap();
    // Narrow beams: the games end early (no board can take a piece), which the record
    // must reproduce too.
    for moves in ["seed", "full"] {
        let record = format!("{moves}.txt");
        let line = stdout(&run(
            &[
                "etetris",
                "solve",
                "--beam",
                "30",
                "--threads",
                "2",
                "--moves",
                moves,
                "--max-pieces",
                "3000",
                "--record",
                &record,
            ],
            dir.path(),
        ));
        let score = field(&line, "score");
        assert!(score > 0, "{line}");
        let replayed = stdout(&run(&["etetris", "replay", &record], dir.path()));
        assert_eq!(field(&replayed, "score"), score, "{moves}: {line} vs {replayed}");
        assert_eq!(field(&replayed, "pieces"), field(&line, "pieces"), "{moves}: {line} vs {replayed}");
        // Beside the record, what the run was: the record's format has no room for it.
        let manifest = read_manifest(&dir.path().join(format!("{moves}.manifest.json")));
        assert_eq!(manifest["command"], "solve");
        assert_eq!(manifest["rule_set_version"], "etetris/1");
        assert_eq!(manifest["moves"], moves);
        assert_eq!(manifest["beam"], 30);
        assert_eq!(manifest["score"], score);
        assert_eq!(manifest["crate_version"], env!("CARGO_PKG_VERSION"));
        assert!(manifest["git_hash"].is_string());
        assert_eq!(manifest["weights"]["score_divisor"], 38.0, "the seed's weights, as played");
        assert_eq!(manifest["refinements"]["lookahead"], 0);
    }
}

/// The JSON a run wrote beside its output.
fn read_manifest(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

#[test]
fn polish_improves_a_record_and_writes_one_that_replays_to_the_printed_score() {
    let dir = tempfile::tempdir().unwrap();
    stdout(&run(&["etetris", "solve", "--beam", "15", "--max-pieces", "400", "--record", "weak.txt"], dir.path()));
    let before = field(&stdout(&run(&["etetris", "replay", "weak.txt"], dir.path())), "score");
    let polish = |threads: &str, out: &str| {
        let args =
            ["etetris", "polish", "weak.txt", "--moves", "full", "--beam", "50", "--window", "60", "--stride", "30"];
        stdout(&run(&args.into_iter().chain(["--threads", threads, "--record", out]).collect::<Vec<_>>(), dir.path()))
    };
    let line = polish("1", "one.txt");
    let score = field(&line, "score");
    assert_eq!(field(&line, "before"), before, "{line}");
    assert!(score > before, "{line}");
    assert_eq!(field(&line, "gain"), score - before, "{line}");
    assert!(field(&line, "detours") > 0, "{line}");
    let replayed = stdout(&run(&["etetris", "replay", "one.txt"], dir.path()));
    assert_eq!((field(&replayed, "score"), field(&replayed, "pieces")), (score, 400), "{replayed}");
    polish("2", "two.txt");
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
    assert_eq!(read("one.txt"), read("two.txt"), "the same game at any thread count");
    let manifest = read_manifest(&dir.path().join("one.manifest.json"));
    assert_eq!((&manifest["command"], &manifest["polished"]), (&"polish".into(), &"weak.txt".into()));
    assert_eq!((&manifest["score"], &manifest["score_before"]), (&score.into(), &before.into()));
    assert_eq!((&manifest["window"], &manifest["stride"], &manifest["threads"]), (&60.into(), &30.into(), &1.into()));
    // The default output is beside the other results, named after the record.
    let line = stdout(&run(&["etetris", "polish", "weak.txt", "--beam", "5", "--window", "50"], dir.path()));
    assert!(line.ends_with("record=results/weak-polished.txt\n"), "{line}");
    assert!(field(&line, "score") >= before);
    expect_error(&["etetris", "polish", "weak.txt", "--record", "weak.txt"], dir.path(), "the record being polished");
    assert_eq!(
        field(&stdout(&run(&["etetris", "replay", "weak.txt"], dir.path())), "score"),
        before,
        "the input is kept"
    );
}

#[test]
fn jittered_searches_are_seeded_and_say_their_weights() {
    let dir = tempfile::tempdir().unwrap();
    let solve = |seed: &str, record: &str| {
        run(
            &[
                "etetris",
                "solve",
                "--beam",
                "20",
                "--moves",
                "full",
                "--max-pieces",
                "400",
                "--jitter",
                seed,
                "--jitter-percent",
                "30",
            ]
            .into_iter()
            .chain(["--record", record])
            .collect::<Vec<_>>(),
            dir.path(),
        )
    };
    let first = solve("5", "a.txt");
    let again = solve("5", "b.txt");
    let stderr = String::from_utf8_lossy(&first.stderr).to_string();
    assert!(stderr.contains("weights jittered (seed 5, up to 30%): cells = -1.0, row_transitions = "), "{stderr}");
    assert_eq!(stderr, String::from_utf8_lossy(&again.stderr), "the same seed gives the same weights");
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
    assert_eq!(read("a.txt"), read("b.txt"), "the same seed gives the same game");
    let plain = stdout(&run(
        &["etetris", "solve", "--beam", "20", "--moves", "full", "--max-pieces", "400", "--record", "c.txt"],
        dir.path(),
    ));
    let replayed = stdout(&run(&["etetris", "replay", "a.txt"], dir.path()));
    assert_eq!(field(&replayed, "score"), field(&stdout(&first), "score"));
    assert_ne!(read("a.txt"), read("c.txt"), "30% moves the game ({plain})");
}

#[test]
fn weights_files_are_read_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    let good = "cells = -1.0\nrow_transitions = 3.2\ncolumn_transitions = 9.3\nholes = 7.9\nscore_divisor = 38\n";
    std::fs::write(dir.path().join("w.toml"), good).unwrap();
    let line = stdout(&run(
        &["etetris", "solve", "--beam", "5", "--max-pieces", "300", "--weights", "w.toml", "--record", "r.txt"],
        dir.path(),
    ));
    assert!(field(&line, "score") > 0);
    std::fs::write(dir.path().join("typo.toml"), good.replace("holes", "hole")).unwrap();
    expect_error(
        &["etetris", "solve", "--beam", "5", "--max-pieces", "10", "--weights", "typo.toml"],
        dir.path(),
        "typo.toml",
    );
    expect_error(
        &["etetris", "solve", "--beam", "5", "--max-pieces", "10", "--weights", "typo.toml"],
        dir.path(),
        "\"hole\"",
    );
    std::fs::write(dir.path().join("nan.toml"), good.replace("= 7.9", "= nan")).unwrap();
    expect_error(
        &["etetris", "solve", "--beam", "5", "--max-pieces", "10", "--weights", "nan.toml"],
        dir.path(),
        "\"holes\"",
    );
    std::fs::write(dir.path().join("short.toml"), good.replace("cells = -1.0\n", "")).unwrap();
    expect_error(
        &["etetris", "solve", "--beam", "5", "--max-pieces", "10", "--weights", "short.toml"],
        dir.path(),
        "missing key \"cells\"",
    );
}

#[test]
fn bad_input_gives_a_one_line_error() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text, needle) in [
        ("token.txt", "N,D5,Q2", "unknown op"),
        ("zero.txt", "N,N,D5", "0 steps"),
        ("many.txt", "N,D99,L2", "101 steps"),
        ("start.txt", "D5,N,D5", "must start with N"),
    ] {
        std::fs::write(dir.path().join(name), text).unwrap();
        expect_error(&["etetris", "replay", name], dir.path(), needle);
        expect_error(&["etetris", "replay", name], dir.path(), name);
    }
    expect_error(&["etetris", "replay", "missing.txt"], dir.path(), "missing.txt");
    expect_error(&["etetris", "solve", "--beam", "0"], dir.path(), "--beam");
}

#[test]
fn output_into_a_closed_pipe_ends_quietly() {
    use std::io::Read;
    use std::process::Stdio;
    // Every move's picture of a whole game: megabytes, far more than a pipe holds.
    let record = repository_file("data/etetris/published_1378178.txt");
    let mut child = binary()
        .args(["etetris", "replay", record.to_str().unwrap(), "--watch", "--delay-ms", "0", "--all-frames"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut start = [0u8; 64];
    child.stdout.take().unwrap().read_exact(&mut start).unwrap(); // then the reader goes, as `head` does
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.is_empty(), "nothing to say on a closed pipe: {stderr}");
}

/// A polish stopped by `--max-windows`, or killed between writing its record and its
/// manifest, continues with `--resume` and ends with the record of a polish never stopped.
#[test]
fn a_stopped_polish_resumes_to_the_same_record() {
    let dir = tempfile::tempdir().unwrap();
    stdout(&run(&["etetris", "solve", "--beam", "15", "--max-pieces", "400", "--record", "weak.txt"], dir.path()));
    let settings = ["--moves", "full", "--beam", "50", "--window", "60", "--stride", "30", "--guide", "10"];
    let polish = |extra: &[&str]| {
        let args: Vec<&str> =
            ["etetris", "polish", "weak.txt"].into_iter().chain(settings).chain(extra.iter().copied()).collect();
        stdout(&run(&args, dir.path()))
    };
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
    let whole = polish(&["--record", "whole.txt"]);
    assert!(field(&whole, "detours") > 0, "{whole}");
    // Stopped after 4 windows, then 3 more, then to the end.
    let line = polish(&["--record", "part.txt", "--max-windows", "4"]);
    let manifest = read_manifest(&dir.path().join("part.manifest.json"));
    assert_eq!((&manifest["finished"], &manifest["resume_from"]), (&false.into(), &120.into()), "{line}");
    let replayed = stdout(&run(&["etetris", "replay", "part.txt"], dir.path()));
    assert_eq!((field(&replayed, "pieces"), field(&replayed, "score")), (400, manifest["score"].as_u64().unwrap()));
    stdout(&run(&["etetris", "polish", "--resume", "part.txt", "--max-windows", "3"], dir.path()));
    assert_eq!(read_manifest(&dir.path().join("part.manifest.json"))["resume_from"], 210);
    let resumed = stdout(&run(&["etetris", "polish", "--resume", "part.txt", "--threads", "1"], dir.path()));
    assert_eq!(read("part.txt"), read("whole.txt"));
    for key in ["score", "before", "gain", "detours", "pieces"] {
        assert_eq!(field(&resumed, key), field(&whole, key), "{key}: {resumed} against {whole}");
    }
    let manifest = read_manifest(&dir.path().join("part.manifest.json"));
    assert_eq!((&manifest["finished"], &manifest["resume_from"]), (&true.into(), &serde_json::Value::Null));
    assert_eq!(manifest["polish_arguments"][1], "weak.txt", "the first run's arguments are kept");
    // Killed between the record and the manifest: the record holds the detour of the
    // window its manifest still names (the window from piece 240 gains here).
    polish(&["--record", "ahead.txt", "--max-windows", "8"]);
    let behind = read("ahead.manifest.json");
    let line = polish(&["--record", "ahead.txt", "--max-windows", "9"]);
    assert!(field(&line, "gain") > 0, "the ninth window gains: {line}");
    std::fs::write(dir.path().join("ahead.manifest.json"), behind).unwrap();
    stdout(&run(&["etetris", "polish", "--resume", "ahead.txt"], dir.path()));
    assert_eq!(read("ahead.txt"), read("whole.txt"));
    // The same after the last window (from piece 360, which reaches the end and gains here):
    // nothing is left to search, and the polish is recorded as finished.
    polish(&["--record", "last.txt", "--max-windows", "12"]);
    let behind = read("last.manifest.json");
    let line = polish(&["--record", "last.txt", "--max-windows", "13"]);
    let before_last: serde_json::Value = serde_json::from_str(&behind).unwrap();
    assert_eq!(before_last["resume_from"], 360);
    assert!(field(&line, "score") > before_last["score"].as_u64().unwrap(), "the last window gains: {line}");
    std::fs::write(dir.path().join("last.manifest.json"), behind).unwrap();
    let resumed = stdout(&run(&["etetris", "polish", "--resume", "last.txt"], dir.path()));
    assert_eq!(read("last.txt"), read("whole.txt"));
    assert_eq!(field(&resumed, "detours"), field(&whole, "detours"), "{resumed}");
    let manifest = read_manifest(&dir.path().join("last.manifest.json"));
    assert_eq!((&manifest["finished"], &manifest["detours"]), (&true.into(), &field(&whole, "detours").into()));
    // Resuming needs a polish's output, and takes no other settings.
    expect_error(
        &["etetris", "polish", "--resume", "weak.txt"],
        dir.path(),
        "weak.manifest.json is not a polish's manifest",
    );
    expect_error(
        &["etetris", "polish", "--resume", "part.txt", "--beam", "3"],
        dir.path(),
        "'--resume <RECORD>' cannot be used with",
    );
    expect_error(&["etetris", "polish", "--resume", "nothing.txt"], dir.path(), "cannot resume nothing.txt");
    expect_error(
        &["etetris", "polish", "weak.txt", "--max-windows", "0"],
        dir.path(),
        "--max-windows must be at least 1",
    );
    // A manifest edited to a piece where no window starts (windows from 0 every 30 pieces).
    polish(&["--record", "edited.txt", "--max-windows", "2"]);
    for piece in ["99999", "45", "400"] {
        let edited = read("edited.manifest.json").replace("\"resume_from\": 60", &format!("\"resume_from\": {piece}"));
        assert!(edited.contains(&format!("\"resume_from\": {piece}")), "{edited}");
        std::fs::write(dir.path().join("edited.manifest.json"), &edited).unwrap();
        expect_error(
            &["etetris", "polish", "--resume", "edited.txt"],
            dir.path(),
            "is not where one of its windows starts",
        );
        assert_eq!(read("edited.manifest.json"), edited, "nothing written");
        std::fs::write(
            dir.path().join("edited.manifest.json"),
            edited.replace(&format!("\"resume_from\": {piece}"), "\"resume_from\": 60"),
        )
        .unwrap();
    }
    // A score edited past 2^32 is refused, not wrapped to a small one.
    let manifest = read("edited.manifest.json");
    let score = read_manifest(&dir.path().join("edited.manifest.json"))["score"].as_u64().unwrap();
    let wrapped = manifest.replace(&format!("\"score\": {score}"), &format!("\"score\": {}", score + (1u64 << 32)));
    assert_ne!(wrapped, manifest);
    std::fs::write(dir.path().join("edited.manifest.json"), &wrapped).unwrap();
    expect_error(
        &["etetris", "polish", "--resume", "edited.txt"],
        dir.path(),
        "\"score\" is larger than any E-Tetris score",
    );
    std::fs::write(dir.path().join("edited.manifest.json"), &manifest).unwrap();
    // The weights file it read must still hold the weights it played.
    std::fs::copy(repository_file("weights/etetris-full.toml"), dir.path().join("w.toml")).unwrap();
    polish(&["--weights", "w.toml", "--record", "w.txt", "--max-windows", "1"]);
    std::fs::write(dir.path().join("w.toml"), read("w.toml").replace("holes = ", "holes = 1")).unwrap();
    let kept = read("w.txt");
    expect_error(
        &["etetris", "polish", "--resume", "w.txt"],
        dir.path(),
        "no longer holds the weights the polish played",
    );
    assert_eq!(read("w.txt"), kept, "nothing written");
}

/// `polish --jitter` plays jittered weights, as `solve --jitter` does, and records them.
#[test]
fn a_jittered_polish_says_and_records_its_weights() {
    let dir = tempfile::tempdir().unwrap();
    stdout(&run(&["etetris", "solve", "--beam", "15", "--max-pieces", "400", "--record", "weak.txt"], dir.path()));
    let solve = run(
        &["etetris", "solve", "--beam", "5", "--max-pieces", "5", "--jitter", "2", "--jitter-percent", "5"],
        dir.path(),
    );
    let said = |output: &Output| {
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        stderr.lines().find(|l| l.starts_with("weights jittered (seed 2, up to 5%)")).map(str::to_string)
    };
    let args = [
        "etetris",
        "polish",
        "weak.txt",
        "--beam",
        "30",
        "--jitter",
        "2",
        "--jitter-percent",
        "5",
        "--record",
        "j.txt",
    ];
    let polish = run(&args, dir.path());
    stdout(&polish);
    assert_eq!(said(&polish), said(&solve), "the same jittered weights as solve's");
    assert!(said(&polish).is_some());
    let manifest = read_manifest(&dir.path().join("j.manifest.json"));
    assert_eq!(manifest["jitter_seed"], 2);
    assert_ne!(manifest["weights"]["score_divisor"], 38.0, "the seed's weights, jittered");
    expect_error(&["etetris", "polish", "weak.txt", "--jitter-percent", "5"], dir.path(), "give --jitter SEED too");
}

/// A polish killed at any moment (`kill -9`), or stopped by Ctrl-C (after the window being
/// searched, exit 130), continues with `--resume` and loses no window.
#[test]
fn a_killed_or_interrupted_polish_resumes_to_the_same_record() {
    let dir = tempfile::tempdir().unwrap();
    stdout(&run(&["etetris", "solve", "--beam", "30", "--max-pieces", "2000", "--record", "weak.txt"], dir.path()));
    let settings =
        ["etetris", "polish", "weak.txt", "--moves", "full", "--beam", "400", "--window", "100", "--stride", "50"];
    let whole = stdout(&run(&[&settings[..], &["--threads", "1", "--record", "whole.txt"]].concat(), dir.path()));
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
    for (name, signal) in [("killed", "-KILL"), ("interrupted", "-INT"), ("terminated", "-TERM")] {
        let manifest = dir.path().join(format!("{name}.manifest.json"));
        let record = format!("{name}.txt");
        // Stop it once a few windows are done.
        let ready = || {
            std::fs::read_to_string(&manifest)
                .ok()
                .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
                .and_then(|m| m["resume_from"].as_u64())
                .is_some_and(|next| next >= 300)
        };
        let exit =
            stop_when(&[&settings[..], &["--threads", "1", "--record", &record]].concat(), dir.path(), signal, ready);
        if signal != "-KILL" {
            assert_eq!(exit.code(), Some(130), "Ctrl-C ends the window, then exits as interrupted");
        }
        let left: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
        assert_eq!(left["finished"], false, "{name}: stopped before its end");
        let resumed = stdout(&run(&["etetris", "polish", "--resume", &record, "--threads", "2"], dir.path()));
        assert_eq!(read(&record), read("whole.txt"), "{name}");
        assert_eq!(field(&resumed, "score"), field(&whole, "score"), "{name}");
    }
}

#[test]
fn versus_pairs_solves_jittered_searches_and_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let weights = repository_file("weights/etetris-full.toml");
    let weights = weights.to_str().unwrap();
    let with_lookahead = format!("{weights} --lookahead 2");
    let common = ["--moves", "full", "--beam", "30", "--max-pieces", "300", "--jitters", "3", "--jitter-percent", "5"];
    let args: Vec<&str> = ["etetris", "versus", weights, &with_lookahead]
        .into_iter()
        .chain(common)
        .chain(["--csv", "pairs.csv"])
        .collect();
    let out = stdout(&run(&args, dir.path()));
    // Each pair is what solve plays with the same jitter: A's weights, then B's flags too.
    let csv = std::fs::read_to_string(dir.path().join("pairs.csv")).unwrap();
    let rows: Vec<Vec<u64>> =
        csv.lines().skip(1).map(|line| line.split(',').map(|v| v.parse::<i64>().unwrap() as u64).collect()).collect();
    assert_eq!(rows.len(), 3, "{csv}");
    for (i, row) in rows.iter().enumerate() {
        let seed = (i + 1).to_string();
        let solve = |extra: &[&str], record: &str| {
            let base = [
                "etetris",
                "solve",
                "--weights",
                weights,
                "--jitter",
                &seed,
                "--jitter-percent",
                "5",
                "--record",
                record,
            ];
            let args: Vec<&str> = base
                .into_iter()
                .chain(["--moves", "full", "--beam", "30", "--max-pieces", "300"])
                .chain(extra.iter().copied())
                .collect();
            field(&stdout(&run(&args, dir.path())), "score")
        };
        assert_eq!(row[0], i as u64 + 1);
        assert_eq!(row[1], solve(&[], "a.txt"), "A at seed {seed}");
        assert_eq!(row[2], solve(&["--lookahead", "2"], "b.txt"), "B at seed {seed}");
        assert_eq!(row[3] as i64, row[2] as i64 - row[1] as i64);
        // The table prints the same pair.
        let grouped = |x: u64| {
            let digits = x.to_string();
            let mut out = String::new();
            for (j, c) in digits.chars().enumerate() {
                if j > 0 && (digits.len() - j).is_multiple_of(3) {
                    out.push(',');
                }
                out.push(c);
            }
            out
        };
        assert!(
            out.lines().any(|l| l.split_whitespace().take(3).eq([seed.clone(), grouped(row[1]), grouped(row[2])])),
            "{out}"
        );
    }
    assert!(out.contains("gain B - A: mean ") && out.contains("(Student's t, 2 degrees of freedom)"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("verdict: ")), "{out}");
    let manifest = read_manifest(&dir.path().join("pairs.manifest.json"));
    assert_eq!((&manifest["command"], &manifest["b"]), (&"versus".into(), &with_lookahead.as_str().into()));
    assert_eq!(manifest["jitter_seeds"], serde_json::json!([1, 2, 3]));
    // Bad sides name the side and the cause; nothing is written.
    expect_error(
        &["etetris", "versus", weights, "seed --lookahed 2", "--max-pieces", "50"],
        dir.path(),
        "side B (\"seed --lookahed 2\")",
    );
    expect_error(
        &["etetris", "versus", weights, "seed --lookahed 2", "--max-pieces", "50"],
        dir.path(),
        "'--lookahead'",
    );
    expect_error(
        &["etetris", "versus", "missing.toml", "seed", "--max-pieces", "50"],
        dir.path(),
        "side A (\"missing.toml\"): cannot read",
    );
    expect_error(
        &["etetris", "versus", "seed", "sed", "--max-pieces", "50"],
        dir.path(),
        "side B (\"sed\"): no weights file \"sed\" (did you mean \"seed\", the contest solver's published weights?)",
    );
    expect_error(&["etetris", "versus", "seed", "seed", "--jitters", "0"], dir.path(), "--jitters must be in 1..=1000");
    expect_error(
        &["etetris", "versus", "seed", "seed --second-ply 2", "--max-pieces", "50", "--csv", "pairs.csv"],
        dir.path(),
        "give --lookahead too",
    );
    assert_eq!(std::fs::read_to_string(dir.path().join("pairs.csv")).unwrap(), csv, "a failed run keeps the CSV");
}

/// Runs the binary with `args` in `dir` and, once `ready` says so (or after a minute, or
/// when it has ended on its own), sends it `signal` (`-KILL`, or `-INT` as Ctrl-C does);
/// returns how it ended.
fn stop_when(args: &[&str], dir: &Path, signal: &str, ready: impl Fn() -> bool) -> std::process::ExitStatus {
    let mut child = common::spawn_in(dir, args, false);
    let started = std::time::Instant::now();
    while started.elapsed() < std::time::Duration::from_secs(60) && !ready() {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    common::send_signal(&child, signal);
    let status = child.wait().unwrap();
    if signal != "-KILL" {
        // Ctrl-C, SIGTERM and SIGHUP stop at a safe point: no temporary is left.
        let temporaries: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.contains(".partial-"))
            .collect();
        assert!(temporaries.is_empty(), "{signal} left {temporaries:?}");
    }
    status
}

/// The pieces a solve's checkpoint has placed, read from its bytes (name and layout, the
/// note after its length, then the pieces), or `None` while there is no whole checkpoint.
fn checkpoint_pieces(path: &Path) -> Option<u64> {
    let bytes = std::fs::read(path).ok()?;
    let word = |at: usize| Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?));
    let note = word(8)? as usize;
    word(16 + note)
}

/// A solve stopped by `--stop-after` continues with `--resume`, with the settings and
/// weights its checkpoint holds, and writes the record of a solve never stopped.
#[test]
fn a_stopped_solve_resumes_to_the_same_record() {
    let dir = tempfile::tempdir().unwrap();
    let read = |name: &str| std::fs::read(dir.path().join(name)).unwrap();
    let exists = |name: &str| dir.path().join(name).exists();
    std::fs::copy(repository_file("weights/etetris-full.toml"), dir.path().join("w.toml")).unwrap();
    let settings = [
        "etetris",
        "solve",
        "--moves",
        "full",
        "--beam",
        "40",
        "--max-pieces",
        "600",
        "--lookahead",
        "2",
        "--weights",
        "w.toml",
        "--jitter",
        "3",
    ];
    let solve = |extra: &[&str]| stdout(&run(&[&settings[..], extra].concat(), dir.path()));
    let whole = solve(&["--record", "whole.txt"]);
    assert!(!exists("whole.txt.checkpoint"), "a finished solve leaves no checkpoint");
    let line = solve(&["--record", "part.txt", "--stop-after", "150"]);
    assert_eq!(field(&line, "stopped"), 150, "{line}");
    assert!(!exists("part.txt") && !exists("part.manifest.json"), "no record before the end");
    assert_eq!(checkpoint_pieces(&dir.path().join("part.txt.checkpoint")), Some(150));
    // A new solve of the same record would lose the stopped one: refused.
    let kept = read("part.txt.checkpoint");
    expect_error(&[&settings[..], &["--record", "part.txt"]].concat(), dir.path(), "holds a stopped solve");
    // The weights file changes: the resume plays the weights the solve played (jittered).
    std::fs::write(dir.path().join("w.toml"), "this is not TOML").unwrap();
    let resume = |extra: &[&str]| run(&[&["etetris", "solve", "--resume", "part.txt"][..], extra].concat(), dir.path());
    expect_error(&["etetris", "solve", "--resume", "part.txt", "--beam", "3"], dir.path(), "cannot be used with");
    expect_error(&["etetris", "solve", "--resume", "part.txt", "--stop-after", "100"], dir.path(), "--stop-after");
    assert_eq!(read("part.txt.checkpoint"), kept, "a refused resume changes nothing");
    stdout(&resume(&["--stop-after", "400", "--threads", "1", "--checkpoint-every", "0"]));
    assert_eq!(checkpoint_pieces(&dir.path().join("part.txt.checkpoint")), Some(400));
    let resumed = stdout(&resume(&["--threads", "2"]));
    assert_eq!(read("part.txt"), read("whole.txt"));
    assert_eq!(
        (field(&resumed, "score"), field(&resumed, "pieces")),
        (field(&whole, "score"), field(&whole, "pieces"))
    );
    assert!(!exists("part.txt.checkpoint"), "the checkpoint goes once the record is written");
    let (manifest, first) =
        (read_manifest(&dir.path().join("part.manifest.json")), read_manifest(&dir.path().join("whole.manifest.json")));
    assert_eq!(manifest["resumes"], 2);
    assert_eq!(manifest["weights"], first["weights"], "the weights played, from the checkpoint");
    assert_eq!(manifest["solve_arguments"][15], "--stop-after", "the first run's arguments");
    assert_eq!(manifest["score"], first["score"]);
    // Bad checkpoints and names.
    expect_error(
        &["etetris", "solve", "--resume", "nothing.txt"],
        dir.path(),
        "cannot resume nothing.txt: no nothing.txt.checkpoint",
    );
    std::fs::write(dir.path().join("w.toml"), std::fs::read(repository_file("weights/etetris-full.toml")).unwrap())
        .unwrap();
    solve(&["--record", "bad.txt", "--stop-after", "20"]);
    let mut damaged = read("bad.txt.checkpoint");
    let middle = damaged.len() / 2;
    damaged[middle] ^= 1;
    std::fs::write(dir.path().join("bad.txt.checkpoint"), &damaged).unwrap();
    expect_error(&["etetris", "solve", "--resume", "bad.txt"], dir.path(), "is damaged (its checksum does not match)");
    std::fs::copy(dir.path().join("whole.txt"), dir.path().join("record.txt")).unwrap();
    expect_error(&["etetris", "solve", "--resume", "record.txt"], dir.path(), "no record.txt.checkpoint");
    std::fs::copy(dir.path().join("whole.txt"), dir.path().join("x.txt.checkpoint")).unwrap();
    expect_error(&["etetris", "solve", "--resume", "x.txt"], dir.path(), "not a search state");
    expect_error(&["etetris", "solve", "--max-pieces", "50", "--stop-after", "50"], dir.path(), "--stop-after must be");
    expect_error(
        &["etetris", "solve", "--max-pieces", "50", "--checkpoint-every", "NaN"],
        dir.path(),
        "--checkpoint-every must be",
    );
    let never = stdout(&run(
        &["etetris", "solve", "--max-pieces", "50", "--checkpoint-every", "1e30", "--record", "n.txt"],
        dir.path(),
    ));
    assert_eq!(field(&never, "pieces"), 50, "a cadence past what a duration holds: no save by time");
    assert!(!exists("bad.txt"), "nothing written by a failed resume");
}

/// A solve killed at any moment (`kill -9`) or stopped by Ctrl-C continues with `--resume`
/// from its last checkpoint and writes the record of a solve never stopped.
#[test]
fn a_killed_or_interrupted_solve_resumes_to_the_same_record() {
    let dir = tempfile::tempdir().unwrap();
    let settings = ["etetris", "solve", "--moves", "full", "--beam", "500", "--max-pieces", "1500", "--threads", "1"];
    let whole = stdout(&run(&[&settings[..], &["--record", "whole.txt"]].concat(), dir.path()));
    let read = |name: &str| std::fs::read(dir.path().join(name)).unwrap();
    for (name, signal) in [("killed.txt", "-KILL"), ("interrupted.txt", "-INT"), ("terminated.txt", "-TERM")] {
        let checkpoint = dir.path().join(format!("{name}.checkpoint"));
        // Stop it a few hundred pieces in.
        let ready = || checkpoint_pieces(&checkpoint).is_some_and(|pieces| pieces >= 300);
        let args = [&settings[..], &["--record", name, "--checkpoint-every", "0"]].concat();
        let exit = stop_when(&args, dir.path(), signal, ready);
        if signal != "-KILL" {
            assert_eq!(exit.code(), Some(130), "Ctrl-C saves, then exits as interrupted");
        }
        let left = checkpoint_pieces(&checkpoint).expect("a checkpoint is left");
        assert!((300..1500).contains(&left), "{name}: stopped after {left} pieces");
        assert!(!dir.path().join(name).exists(), "{name}: stopped before its end");
        let resumed = stdout(&run(&["etetris", "solve", "--resume", name, "--threads", "2"], dir.path()));
        assert_eq!(read(name), read("whole.txt"), "{name}");
        assert_eq!(field(&resumed, "score"), field(&whole, "score"));
    }
}

/// Ctrl-C twice: the first asks `polish` to stop after the window being searched, the
/// second, pressed long before that window is done, exits at once (130).
#[test]
fn a_second_ctrl_c_exits_at_once() {
    let dir = tempfile::tempdir().unwrap();
    stdout(&run(&["etetris", "solve", "--beam", "30", "--max-pieces", "2000", "--record", "weak.txt"], dir.path()));
    // A wide beam, so that a window takes far longer than the wait for the presses.
    let args =
        ["etetris", "polish", "weak.txt", "--moves", "full", "--beam", "100000", "--window", "200", "--threads", "1"];
    let child = common::spawn_in(dir.path(), &[&args[..], &["--record", "twice.txt"]].concat(), true);
    let started = std::time::Instant::now();
    // Past reading the record (where the handler is installed), inside the first window.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    for _ in 0..2 {
        common::send_signal(&child, "-INT");
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("Ctrl-C: stopping where the same command can continue"), "{stderr}");
    assert!(stderr.contains("second Ctrl-C: exiting now"), "{stderr}");
    assert!(started.elapsed() < std::time::Duration::from_secs(10), "not after the window");
    // Its output holds the best record so far: still the game it was given.
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
    assert_eq!(read("twice.txt"), read("weak.txt"), "no window finished");
}

/// `versus --csv` keeps each search as it ends, and the state of each search in progress:
/// killed at any moment, or stopped by Ctrl-C (exit 130), the same command run again
/// searches only what is missing (more jitters may be asked for), going on from the saved
/// states, and writes the pairs an uninterrupted run writes; a file of another comparison
/// is refused.
#[test]
fn a_killed_versus_continues_from_its_finished_searches() {
    let dir = tempfile::tempdir().unwrap();
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
    // Saving often (a save is a few ms, synced to disk) only in the runs that are stopped.
    let versus = |jitters: &str, csv: &str, every: &str| -> Vec<String> {
        ["etetris", "versus", "seed", "seed --lookahead 2", "--beam", "150", "--max-pieces", "1500", "--threads", "1"]
            .into_iter()
            .chain(["--jitters", jitters, "--csv", csv, "--checkpoint-every", every])
            .map(String::from)
            .collect()
    };
    fn args(v: &[String]) -> Vec<&str> {
        v.iter().map(String::as_str).collect()
    }
    stdout(&run(&args(&versus("4", "whole.csv", "60")), dir.path()));
    let left_beside = |csv: &str| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with(&format!("{csv}.")))
            .collect();
        names.sort();
        names
    };
    assert!(left_beside("whole.csv").is_empty(), "all removed once the CSV is written");
    for (csv, signal) in [("killed.csv", "-KILL"), ("interrupted.csv", "-INT"), ("terminated.csv", "-TERM")] {
        let searches = dir.path().join(format!("{csv}.searches"));
        let finished = || std::fs::read_to_string(&searches).map_or(0, |text| text.lines().count().saturating_sub(2));
        // Stop it in the third search, some way in.
        let third = dir.path().join(format!("{csv}.searches.2-A.checkpoint"));
        let ready = || finished() == 2 && checkpoint_pieces(&third).is_some_and(|pieces| pieces >= 300);
        let exit = stop_when(&args(&versus("3", csv, "0.05")), dir.path(), signal, ready);
        if signal != "-KILL" {
            assert_eq!(exit.code(), Some(130), "Ctrl-C saves the searches in progress, then exits as interrupted");
        }
        let kept = finished();
        assert_eq!(kept, 2, "{csv}: stopped in the third of 6 searches");
        let saved = checkpoint_pieces(&third).expect("the third search's state is kept");
        assert!((300..1500).contains(&saved), "{csv}: saved after {saved} pieces");
        assert!(!dir.path().join(csv).exists());
        // A line cut short by a kill is dropped, that search made again.
        let mut file = std::fs::OpenOptions::new().append(true).open(&searches).unwrap();
        std::io::Write::write_all(&mut file, b"3,B,1").unwrap();
        // Another comparison's file is refused, and left as it is.
        let before = read(&format!("{csv}.searches"));
        let other =
            ["etetris", "versus", "seed", "seed --lookahead 3", "--beam", "150", "--max-pieces", "1500", "--csv", csv];
        expect_error(&other, dir.path(), "keeps the searches of another comparison");
        assert_eq!(read(&format!("{csv}.searches")), before);
        // Asking for four jitters now: the kept searches of seeds 1 to 3 count.
        let output = run(&args(&versus("4", csv, "60")), dir.path());
        let printed = stdout(&output);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(&format!("2 of the 8 searches read from {csv}.searches")), "{stderr}");
        assert_eq!(read(csv), read("whole.csv"), "{csv}");
        assert!(printed.contains("verdict: "), "{printed}");
        assert!(left_beside(csv).is_empty(), "{:?}", left_beside(csv));
    }
}

/// `splice` recombines records at the boards they share: the game it writes replays to the
/// score it prints, beats every record given, and its manifest names each record and the
/// pieces it gave; it refuses to write over a record it reads.
#[test]
fn splice_recombines_records_where_their_boards_meet() {
    let dir = tempfile::tempdir().unwrap();
    let mut scores = Vec::new();
    for jitter in ["1", "2", "3", "4"] {
        let record = format!("j{jitter}.txt");
        let args = ["etetris", "solve", "--moves", "full", "--beam", "100", "--max-pieces", "2000", "--threads", "1"];
        let extra = ["--jitter", jitter, "--jitter-percent", "3", "--record", &record];
        scores.push(field(&stdout(&run(&[&args[..], &extra[..]].concat(), dir.path())), "score"));
    }
    let records = ["j1.txt", "j2.txt", "j3.txt", "j4.txt"];
    let out =
        stdout(&run(&[&["etetris", "splice"][..], &records[..], &["--record", "spliced.txt"]].concat(), dir.path()));
    let best = *scores.iter().max().unwrap();
    assert_eq!(field(&out, "before"), best, "{out}");
    // These four searches part and meet again: the splice gains (36 points, 10 switches).
    assert!(field(&out, "score") > best && field(&out, "switches") > 0, "{out}");
    assert_eq!(field(&out, "gain"), field(&out, "score") - best);
    let replayed = stdout(&run(&["etetris", "replay", "spliced.txt"], dir.path()));
    assert_eq!(replayed.trim(), format!("pieces=2000 score={}", field(&out, "score")));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("spliced.manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["command"], "splice");
    assert_eq!(manifest["score"].as_u64(), Some(field(&out, "score")));
    let given: Vec<u64> =
        manifest["spliced"].as_array().unwrap().iter().map(|s| s["pieces_given"].as_u64().unwrap()).collect();
    assert_eq!(given.len(), 4);
    assert_eq!(given.iter().sum::<u64>(), 2000);
    let (met, stretches) = (manifest["pieces_met"].as_u64().unwrap(), manifest["meeting_stretches"].as_u64().unwrap());
    assert!(stretches > 0 && stretches <= met && met < 2000, "{met} pieces met in {stretches} stretches");
    // Splicing the result with its records again finds nothing more.
    let again =
        stdout(&run(&["etetris", "splice", "spliced.txt", "j1.txt", "j4.txt", "--record", "again.txt"], dir.path()));
    assert_eq!(field(&again, "gain"), 0, "{again}");
    // Bad input: an output over an input, a missing record, a single record.
    let kept = std::fs::read(dir.path().join("j1.txt")).unwrap();
    expect_error(&["etetris", "splice", "j1.txt", "j2.txt", "--record", "j1.txt"], dir.path(), "j1.txt");
    assert_eq!(std::fs::read(dir.path().join("j1.txt")).unwrap(), kept);
    expect_error(&["etetris", "splice", "j1.txt", "missing.txt", "--record", "x.txt"], dir.path(), "missing.txt");
    expect_error(&["etetris", "splice", "j1.txt", "--record", "x.txt"], dir.path(), "2 values required");
    assert!(!dir.path().join("x.txt").exists());

    // With bridges: searched where the records never meet, spliced in, never worse than the
    // splice alone, the same at one thread and two.
    let bridged = |threads: &str, record: &str| {
        let args =
            [&["etetris", "splice"][..], &records[..], &["--bridge", "--beam", "100", "--window", "80"]].concat();
        let more = ["--moves", "full", "--threads", threads, "--record", record];
        stdout(&run(&[&args[..], &more[..]].concat(), dir.path()))
    };
    let spliced = field(&out, "score");
    let out = bridged("1", "bridged.txt");
    assert_eq!(field(&out, "without"), spliced, "{out}");
    // These records have bridges between them that gain (28 of 57 jumps, 626 points).
    assert!(field(&out, "score") > spliced, "{out}");
    assert!(field(&out, "plan") >= spliced, "the plan is never below the splice: {out}");
    let replayed = stdout(&run(&["etetris", "replay", "bridged.txt"], dir.path()));
    assert_eq!(replayed.trim(), format!("pieces=2000 score={}", field(&out, "score")));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("bridged.manifest.json")).unwrap()).unwrap();
    let bridges = &manifest["bridges"];
    assert_eq!(bridges["finished"], true);
    assert_eq!(bridges["jumps_searched"], bridges["jumps"]);
    assert_eq!(bridges["score_without"].as_u64(), Some(spliced));
    assert!(bridges["found"].as_u64().unwrap() > 0 && bridges["pieces_given"].as_u64().unwrap() > 0, "{bridges}");
    assert_eq!(bridges["refinements"]["lookahead"], 0);
    // The plan's detours from the splice: its points over the splice, piece by piece.
    let detours = bridges["plan_detours"].as_array().unwrap();
    assert!(!detours.is_empty());
    let gains: i64 = detours.iter().map(|detour| detour["gain"].as_i64().unwrap()).sum();
    assert_eq!(gains, field(&out, "plan") as i64 - spliced as i64);
    for detour in detours {
        assert!(detour["first"].as_u64() <= detour["back"].as_u64(), "{detour}");
        assert!(detour["records"].as_array().is_some_and(|records| !records.is_empty()), "{detour}");
    }
    // The bridges' search takes solve's refinements: a real game, never below the splice.
    let args = [
        &["etetris", "splice"][..],
        &records[..],
        &["--bridge", "--beam", "100", "--lookahead", "2", "--moves", "full"],
    ];
    let ahead = stdout(&run(&[&args.concat()[..], &["--record", "ahead.txt"]].concat(), dir.path()));
    assert!(field(&ahead, "score") >= spliced, "{ahead}");
    let replayed = stdout(&run(&["etetris", "replay", "ahead.txt"], dir.path()));
    assert_eq!(replayed.trim(), format!("pieces=2000 score={}", field(&ahead, "score")));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("ahead.manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["bridges"]["refinements"]["lookahead"], 2);
    // Bridges every 500 pieces along the splice's game: a real game, never below the splice.
    let args =
        [&["etetris", "splice"][..], &records[..], &["--bridge", "--beam", "100", "--window", "40", "--every", "500"]];
    let every = stdout(&run(&[&args.concat()[..], &["--record", "every.txt"]].concat(), dir.path()));
    assert!(field(&every, "score") >= spliced, "{every}");
    let replayed = stdout(&run(&["etetris", "replay", "every.txt"], dir.path()));
    assert_eq!(replayed.trim(), format!("pieces=2000 score={}", field(&every, "score")));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("every.manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["bridges"]["every"], 500);
    assert_eq!(manifest["bridges"]["jumps"], 3, "pieces 500, 1000 and 1500");
    // Bridges with jittered weights: solve's jitter (the weights of `solve --jitter 3`, which
    // played j3.txt), a real game never below the splice, the seed in the manifest.
    let args =
        [&["etetris", "splice"][..], &records[..], &["--bridge", "--beam", "100", "--window", "40", "--every", "500"]];
    let jitter = ["--jitter", "3", "--jitter-percent", "3", "--record", "jittered.txt"];
    let jittered = stdout(&run(&[&args.concat()[..], &jitter[..]].concat(), dir.path()));
    assert!(field(&jittered, "score") >= spliced, "{jittered}");
    let replayed = stdout(&run(&["etetris", "replay", "jittered.txt"], dir.path()));
    assert_eq!(replayed.trim(), format!("pieces=2000 score={}", field(&jittered, "score")));
    let read = |name: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(dir.path().join(name)).unwrap()).unwrap()
    };
    let (jittered, solved) = (read("jittered.manifest.json"), read("j3.manifest.json"));
    assert_eq!(jittered["bridges"]["jitter"], 3);
    assert_eq!(jittered["bridges"]["weights"], solved["weights"]);
    assert_ne!(jittered["bridges"]["weights"], manifest["bridges"]["weights"]);
    // Bridges along the plan's detours, chained: a real game, never below the splice, the
    // settings in the manifest, the same at one thread and two.
    let detours = |threads: &str, record: &str| {
        let args = [
            &["etetris", "splice"][..],
            &records[..],
            &["--bridge", "--beam", "100", "--window", "40", "--detours", "25"],
        ];
        let more = ["--within", "0..1900", "--chain", "--moves", "full", "--threads", threads, "--record", record];
        stdout(&run(&[&args.concat()[..], &more[..]].concat(), dir.path()))
    };
    let along = detours("1", "detours.txt");
    assert!(field(&along, "score") >= spliced, "{along}");
    let replayed = stdout(&run(&["etetris", "replay", "detours.txt"], dir.path()));
    assert_eq!(replayed.trim(), format!("pieces=2000 score={}", field(&along, "score")));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("detours.manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["bridges"]["detours"], 25);
    assert_eq!(manifest["bridges"]["within"], serde_json::json!([0, 1900]));
    assert_eq!(manifest["bridges"]["chain"], true);
    assert!(manifest["bridges"]["jumps"].as_u64().unwrap() > 0, "the plan has detours: {manifest}");
    assert_eq!(detours("2", "detours2.txt").replace("detours2.txt", "detours.txt"), along);
    // Aimed at the game, with starts on the game 30 pieces before each detour: the manifest says so, a real game never below the splice.
    let args =
        [&["etetris", "splice"][..], &records[..], &["--bridge", "--beam", "100", "--window", "40", "--detours", "25"]];
    let more = ["--aim", "game", "--lead", "30", "--record", "aimed.txt"];
    let aimed = stdout(&run(&[&args.concat()[..], &more[..]].concat(), dir.path()));
    assert!(field(&aimed, "score") >= spliced, "{aimed}");
    let replayed = stdout(&run(&["etetris", "replay", "aimed.txt"], dir.path()));
    assert_eq!(replayed.trim(), format!("pieces=2000 score={}", field(&aimed, "score")));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("aimed.manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["bridges"]["aim"], "game");
    assert_eq!(manifest["bridges"]["lead"], 30);
    // Carried: one search over the whole game, the records' boards carried along.
    let args = [&["etetris", "splice"][..], &records[..], &["--bridge", "--beam", "100", "--carry", "--guide", "0"]];
    let carried = stdout(&run(&[&args.concat()[..], &["--record", "carried.txt"][..]].concat(), dir.path()));
    assert!(field(&carried, "score") >= spliced, "{carried}");
    assert!(carried.contains(" bridges=1/1 "), "{carried}");
    let replayed = stdout(&run(&["etetris", "replay", "carried.txt"], dir.path()));
    assert_eq!(replayed.trim(), format!("pieces=2000 score={}", field(&carried, "score")));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("carried.manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["bridges"]["carry"], true);
    assert_eq!(manifest["bridges"]["jumps"], 1);
    assert_eq!(
        std::fs::read(dir.path().join("detours2.txt")).unwrap(),
        std::fs::read(dir.path().join("detours.txt")).unwrap()
    );
    assert_eq!(bridged("2", "bridged2.txt").replace("bridged2.txt", "bridged.txt"), out);
    assert_eq!(
        std::fs::read(dir.path().join("bridged2.txt")).unwrap(),
        std::fs::read(dir.path().join("bridged.txt")).unwrap()
    );
    // Stopped after its second bridge, by a kill or by Ctrl-C (exit 130): the record left is
    // whole, the best game found so far, never below the splice without bridges; the same
    // command run again searches only the jumps left and writes what an uninterrupted run
    // writes.
    let wide =
        [&["etetris", "splice"][..], &records[..], &["--bridge", "--beam", "300", "--window", "80", "--moves", "full"]];
    let whole = stdout(&run(&[&wide.concat()[..], &["--threads", "1", "--record", "whole.txt"]].concat(), dir.path()));
    assert!(!dir.path().join("whole.txt.bridges").exists(), "the searches kept are removed once the run ends");
    for (name, signal) in [("killed", "-KILL"), ("interrupted", "-INT"), ("terminated", "-TERM")] {
        let (record, manifest) = (format!("{name}.txt"), dir.path().join(format!("{name}.manifest.json")));
        let ready = || {
            std::fs::read_to_string(&manifest)
                .ok()
                .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
                .and_then(|m| m["bridges"]["found"].as_u64())
                .is_some_and(|found| found >= 2)
        };
        let exit = stop_when(
            &[&wide.concat()[..], &["--threads", "1", "--record", &record]].concat(),
            dir.path(),
            signal,
            ready,
        );
        let left: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
        let replayed = field(&stdout(&run(&["etetris", "replay", &record], dir.path())), "score");
        assert!(replayed >= left["score"].as_u64().unwrap() && replayed >= spliced, "{name}: {replayed}");
        if signal != "-KILL" {
            assert_eq!(exit.code(), Some(130), "Ctrl-C stops after the jump being searched");
            assert_eq!(left["bridges"]["finished"], false);
            assert_eq!(left["score"].as_u64(), Some(replayed));
        }
        let kept = dir.path().join(format!("{record}.bridges"));
        let searched = std::fs::read_to_string(&kept).unwrap().lines().count() - 2;
        assert!(searched >= 2, "{name}: {searched} jumps kept");
        // Other settings with the same record: refused, the searches kept left as they are.
        let before = std::fs::read(&kept).unwrap();
        let other = [&records[..], &["--bridge", "--beam", "301", "--moves", "full", "--record", &record]].concat();
        expect_error(
            &[&["etetris", "splice"][..], &other[..]].concat(),
            dir.path(),
            "keeps the bridges of another run",
        );
        assert_eq!(std::fs::read(&kept).unwrap(), before);
        let output = run(&[&wide.concat()[..], &["--threads", "2", "--record", &record]].concat(), dir.path());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("jumps' searches read from"), "{name}: {stderr}");
        assert_eq!(stdout(&output).replace(&record, "whole.txt"), whole, "{name}");
        assert_eq!(
            std::fs::read(dir.path().join(&record)).unwrap(),
            std::fs::read(dir.path().join("whole.txt")).unwrap()
        );
        assert!(!kept.exists(), "{name}: the searches kept are removed once the run ends");
    }
    // The search's settings need --bridge; bad settings are refused before anything is written.
    for (flags, cause) in [
        (&["--beam", "50"][..], "--bridge"),
        (&["--lookahead", "2"][..], "--bridge"),
        (&["--every", "20"][..], "--bridge"),
        (&["--detours", "20"][..], "--bridge"),
        (&["--chain"][..], "--bridge"),
        (&["--jitter", "3"][..], "--bridge"),
        (&["--aim", "game"][..], "--bridge"),
        (&["--bridge", "--lead", "30"][..], "--detours"),
        (&["--bridge", "--detours", "5", "--lead", "10000"][..], "--lead must be below"),
        (&["--bridge", "--every", "20", "--aim", "game"][..], "--every"),
        (&["--bridge", "--aim", "gam"][..], "game"),
        (&["--bridge", "--aim", "eitehr"][..], "either"),
        (&["--carry"][..], "--bridge"),
        (&["--bridge", "--carry", "--every", "20"][..], "--every"),
        (&["--bridge", "--carry", "--detours", "20"][..], "--detours"),
        (&["--bridge", "--carry", "--window", "40"][..], "--window"),
        (&["--bridge", "--jitter-percent", "3"][..], "--jitter SEED"),
        (&["--bridge", "--every", "20", "--detours", "20"][..], "--detours"),
        (&["--bridge", "--second-ply", "2"][..], "--second-ply"),
        (&["--bridge", "--window", "0"][..], "--window"),
        (&["--bridge", "--guide", "NaN"][..], "--guide"),
        (&["--bridge", "--beam", "0"][..], "beam"),
        (&["--bridge", "--every", "10000"][..], "--every"),
        (&["--bridge", "--detours", "10000"][..], "--detours"),
        (&["--bridge", "--jitter-percent", "80"][..], "--jitter-percent"),
        (&["--bridge", "--lead", "x"][..], "--lead"),
        (&["--bridge", "--within", "100"][..], "a range A..B"),
        (&["--bridge", "--within", "10..x"][..], "\"x\" in \"10..x\" is not a whole number"),
        (&["--bridge", "--within", "30..20"][..], "A < B"),
        (&["--bridge", "--carry", "--within", "1999..2100"][..], "the records have 2000 pieces"),
        (&["--bridge", "--within", "5000..6000"][..], "the records have 2000 pieces"),
    ] {
        let args = [&["etetris", "splice", "j1.txt", "j2.txt"][..], flags, &["--record", "x.txt"]].concat();
        expect_error(&args, dir.path(), cause);
    }
    assert!(!dir.path().join("x.txt").exists());
}
