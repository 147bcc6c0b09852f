//! `tetris-lab reproduce` through the binary, on a tiny plan (hidden `--games`, `--heights`
//! and `--board` overrides) so that it runs in well under a second.

mod common;

use common::{assert_clean_error, run, stderr, stdout};
use std::path::{Path, PathBuf};

/// A tiny `reproduce` of `bcts` on a 10x6 board writing under `out`.
fn tiny(out: &Path, threads: &str) -> std::process::Output {
    let out = out.to_str().unwrap();
    run(&[
        "reproduce",
        "bcts",
        "--games",
        "3",
        "--heights",
        "4..6",
        "--board",
        "10x6",
        "--threads",
        threads,
        "--out",
        out,
    ])
}

fn run_dirs(out: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(out).unwrap().map(|e| e.unwrap().path()).collect();
    dirs.sort();
    dirs
}

#[test]
fn prints_the_table_and_writes_csv_markdown_and_manifest_without_overwriting() {
    let temp = tempfile::tempdir().unwrap();
    let out = temp.path().join("results");
    let first = tiny(&out, "2");
    assert!(first.status.success(), "{}", stderr(&first));
    let text = stdout(&first);
    let header = text.lines().next().unwrap();
    for column in ["preset", "board", "kind", "mean", "95% interval", "published", "inside", "seconds"] {
        assert!(header.contains(column), "{column} missing from {header}");
    }
    // The figures, then how each row was measured, numbered alike.
    let (table, notes) = text.split_once("\nhow measured:\n").expect("a 'how measured' list");
    let rows: Vec<&str> = table.lines().skip(1).collect();
    let notes: Vec<&str> = notes.lines().collect();
    assert!(rows.len() >= 2, "{text}");
    assert_eq!(notes.len(), rows.len(), "{text}");
    // A terminal need not wrap the figures.
    assert!(table.lines().all(|l| l.len() <= 120), "{text}");
    // Full games first, then the extrapolation, every row on the overridden board.
    assert!(
        rows.iter().all(|r| r.starts_with(|c: char| c.is_ascii_digit()) && r.contains("bcts") && r.contains("10x6")),
        "{text}"
    );
    assert!(notes[0].starts_with("1  bcts (simplified rules, 3 games): full games"), "{text}");
    assert!(notes.iter().any(|r| r.contains("estimate from full games on 10x4..10x6")), "{text}");

    let dirs = run_dirs(&out);
    assert_eq!(dirs.len(), 1);
    let name = dirs[0].file_name().unwrap().to_string_lossy().into_owned();
    // The one run-folder stamp: YYYYMMDD-HHMMSS, then the seed.
    let stamp = name.strip_suffix("-seed1").expect("ends with the seed");
    assert!(stamp.len() == 15 && stamp.as_bytes()[8] == b'-', "{name}");
    let mut table = csv::Reader::from_path(dirs[0].join("table.csv")).unwrap();
    let headers = table.headers().unwrap().clone();
    let records: Vec<csv::StringRecord> = table.records().map(Result::unwrap).collect();
    assert_eq!(records.len(), rows.len());
    let column = |name: &str| headers.iter().position(|h| h == name).unwrap();
    assert_eq!(&records[0][column("games")], "3");
    let mean: f64 = records[0][column("mean")].parse().unwrap();
    let low: f64 = records[0][column("low_95")].parse().unwrap();
    let high: f64 = records[0][column("high_95")].parse().unwrap();
    assert!(low <= mean && mean <= high, "{low} {mean} {high}");
    // The per-game file agrees with the table's mean.
    let mut games = csv::Reader::from_path(dirs[0].join("games.csv")).unwrap();
    let games: Vec<csv::StringRecord> = games.records().map(Result::unwrap).collect();
    let lines: Vec<f64> = games.iter().filter(|r| &r[0] == "1").map(|r| r[4].parse().unwrap()).collect();
    assert_eq!(lines.len(), 3);
    // The extrapolation's games: three at each of its heights.
    for height in ["10x4", "10x5", "10x6"] {
        assert_eq!(games.iter().filter(|r| &r[0] == "2" && &r[2] == height).count(), 3, "{height}");
    }
    assert!((lines.iter().sum::<f64>() / 3.0 - mean).abs() < 1e-9);

    let markdown = std::fs::read_to_string(dirs[0].join("table.md")).unwrap();
    assert!(
        markdown.contains("| preset | rule set |") && markdown.contains("| bcts | simplified | 10x6 |"),
        "{markdown}"
    );
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dirs[0].join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["seed"], 1);
    assert_eq!(manifest["threads"], 2);
    assert_eq!(manifest["crate_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(manifest["rule_set_versions"]["simplified 10x6"], "simplified/2");
    assert_eq!(manifest["measurements_done"], manifest["measurements_planned"]);
    assert_eq!(manifest["measurements_done"], rows.len());

    // A second run in the same second gets its own directory; the first is untouched.
    let before = std::fs::read(dirs[0].join("table.csv")).unwrap();
    let second = tiny(&out, "1");
    assert!(second.status.success(), "{}", stderr(&second));
    let dirs_after = run_dirs(&out);
    assert_eq!(dirs_after.len(), 2, "{dirs_after:?}");
    assert_eq!(std::fs::read(dirs[0].join("table.csv")).unwrap(), before);
    // Same seed, other thread count: the same games.
    let games_of = |dir: &Path| std::fs::read_to_string(dir.join("games.csv")).unwrap();
    assert_eq!(games_of(&dirs_after[0]), games_of(&dirs_after[1]));
}

#[test]
fn unknown_preset_is_one_line_with_a_suggestion_and_writes_nothing() {
    let temp = tempfile::tempdir().unwrap();
    let out = temp.path().join("results");
    let o = run(&["reproduce", "bctss", "--out", out.to_str().unwrap()]);
    assert_clean_error(&o, "did you mean \"bcts\"");
    assert!(!out.exists() || run_dirs(&out).is_empty());
}

#[test]
fn dellacherie_plays_full_games_on_the_published_board_of_fahey_standard_rules() {
    let temp = tempfile::tempdir().unwrap();
    let out = temp.path().join("results");
    let o = run(&["reproduce", "dellacherie", "--games", "1", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let (table, notes) = text.split_once("\nhow measured:\n").expect("a 'how measured' list");
    let rows: Vec<&str> = table.lines().skip(1).collect();
    assert_eq!(rows.len(), 1, "{text}");
    // Measured, not "not available": a mean in rows of one full game on the 10x20 board.
    let cells: Vec<&str> = rows[0].split_whitespace().collect();
    assert_eq!(&cells[..4], ["1", "dellacherie", "10x20", "full"], "{text}");
    assert_eq!(cells[5], "rows", "{text}");
    let mean: f64 = cells[4].replace(',', "").parse().unwrap_or_else(|_| panic!("no mean in {text}"));
    assert!(mean > 1_000.0, "{text}");
    assert!(
        notes.trim_end().ends_with("dellacherie (standard rules, 1 game): full games, exponential interval"),
        "{text}"
    );
}

#[test]
fn a_stopped_run_resumes_from_its_ledger_and_ends_as_an_uninterrupted_one() {
    let temp = tempfile::tempdir().unwrap();
    let out = temp.path().join("results");
    let args = |out: &Path| {
        run(&[
            "reproduce",
            "bcts",
            "--games",
            "6",
            "--heights",
            "4..7",
            "--board",
            "10x8",
            "--threads",
            "2",
            "--out",
            out.to_str().unwrap(),
        ])
    };
    let whole = args(&out);
    assert!(whole.status.success(), "{}", stderr(&whole));
    let whole_dir = run_dirs(&out).remove(0);

    // The same run stopped after a few games (a kill in the middle of a line included):
    // its folder holds the manifest and the first lines of the ledger.
    let stopped = temp.path().join("stopped");
    std::fs::create_dir(&stopped).unwrap();
    std::fs::copy(whole_dir.join("manifest.json"), stopped.join("manifest.json")).unwrap();
    let ledger = std::fs::read_to_string(whole_dir.join("ledger.csv")).unwrap();
    let kept: Vec<&str> = ledger.lines().take(9).collect();
    std::fs::write(stopped.join("ledger.csv"), format!("{}\nx,3,", kept.join("\n"))).unwrap();

    let resumed = run(&["reproduce", "--resume", stopped.to_str().unwrap(), "--threads", "1"]);
    assert!(resumed.status.success(), "{}", stderr(&resumed));
    assert!(stderr(&resumed).contains("resumed, 8 finished game(s) kept"), "{}", stderr(&resumed));
    // The same games and the same table (seconds aside) as the uninterrupted run.
    let read = |dir: &Path, name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
    assert_eq!(read(&stopped, "games.csv"), read(&whole_dir, "games.csv"));
    let without_seconds = |text: String| -> Vec<String> {
        text.lines().map(|l| l.rsplit_once(',').map_or(l, |(head, _)| head).to_string()).collect()
    };
    assert_eq!(without_seconds(read(&stopped, "table.csv")), without_seconds(read(&whole_dir, "table.csv")));
    // Every game is in the ledger once: 6 full games and 6 at each of 4 heights.
    assert_eq!(read(&stopped, "ledger.csv").lines().count(), 1 + 6 + 4 * 6);
}

/// A run killed (`kill -9`) or stopped by Ctrl-C (which exits at once with code 130, saying
/// where the finished games are and how to go on) after some games resumes to the
/// uninterrupted run's games.
#[test]
fn a_killed_or_interrupted_run_resumes() {
    let temp = tempfile::tempdir().unwrap();
    let args = ["reproduce", "bcts", "--games", "300", "--heights", "4..8", "--board", "10x8", "--threads", "1"];
    let again = temp.path().join("again");
    let whole = run(&[&args[..], &["--out", again.to_str().unwrap()]].concat());
    assert!(whole.status.success(), "{}", stderr(&whole));
    let read = |dir: &Path, name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
    for signal in ["-KILL", "-INT", "-TERM"] {
        let out = temp.path().join(signal);
        let child = common::spawn_in(temp.path(), &[&args[..], &["--out", out.to_str().unwrap()]].concat(), true);
        // Stop it once it has finished some games (or let it finish if it is faster).
        let started = std::time::Instant::now();
        loop {
            let lines = std::fs::read_dir(&out)
                .ok()
                .and_then(|mut dirs| dirs.next())
                .and_then(|dir| std::fs::read_to_string(dir.unwrap().path().join("ledger.csv")).ok())
                .map_or(0, |text| text.lines().count());
            if lines > 50 || started.elapsed().as_secs() > 60 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        common::send_signal(&child, signal);
        let stopped = child.wait_with_output().unwrap();
        let dir = run_dirs(&out).remove(0);
        if signal != "-KILL" {
            assert_eq!(stopped.status.code(), Some(130), "{}", stderr(&stopped));
            let said = stderr(&stopped);
            let last = said.lines().last().unwrap_or_default();
            assert!(
                last.starts_with("stopped: every finished game is in ")
                    && last.ends_with(&format!("`tetris-lab reproduce --resume {}` plays the rest", dir.display())),
                "{said}"
            );
        }
        let resumed = run(&["reproduce", "--resume", dir.to_str().unwrap()]);
        assert!(resumed.status.success(), "{}", stderr(&resumed));
        assert!(stderr(&resumed).contains("resumed,"), "{signal}: {}", stderr(&resumed));
        assert_eq!(read(&dir, "games.csv"), read(&run_dirs(&again)[0], "games.csv"), "{signal}");
    }
}

#[test]
fn extrapolate_recomputes_the_reproduce_estimate_from_its_games_and_reads_play_files() {
    let temp = tempfile::tempdir().unwrap();
    let out = temp.path().join("results");
    let out_text = out.to_str().unwrap();
    let args = ["reproduce", "bcts", "--games", "30", "--heights", "4..7", "--board", "10x8", "--threads", "2"];
    let reproduced = run(&[&args[..], &["--out", out_text]].concat());
    assert!(reproduced.status.success(), "{}", stderr(&reproduced));
    let dir = &run_dirs(&out)[0];
    // Row 2 of the table is the estimate of 10x8 from 10x4..10x7.
    let markdown = std::fs::read_to_string(dir.join("table.md")).unwrap();
    let estimate = markdown.lines().find(|l| l.contains("| estimate |")).expect("an estimate row");
    let cells: Vec<&str> = estimate.split('|').map(str::trim).collect();
    let (mean, interval) = (cells[7], cells[8]);
    let games = dir.join("games.csv");
    let extrapolated = run(&["extrapolate", games.to_str().unwrap(), "--row", "2", "--to", "8"]);
    assert!(extrapolated.status.success(), "{}", stderr(&extrapolated));
    let text = stdout(&extrapolated);
    assert!(text.contains("fit over 10x4..10x7"), "{text}");
    assert!(text.contains(&format!("predicted 10x8: {mean} rows {interval}")), "{mean} {interval} in:\n{text}");
    assert!(!text.contains("measured  10x8"), "no games at 10x8 in row 2: {text}");

    // `play --csv` files name no board: the source does. The top height's games are compared.
    let mut sources = Vec::new();
    for height in 4..=7 {
        let csv = temp.path().join(format!("10x{height}.csv"));
        let board = format!("10x{height}");
        let played = run(&[
            "play",
            "--preset",
            "bcts",
            "--board",
            &board,
            "--games",
            "40",
            "--seed",
            "5",
            "--threads",
            "1",
            "--csv",
            csv.to_str().unwrap(),
        ]);
        assert!(played.status.success(), "{}", stderr(&played));
        sources.push(format!("{board}={}", csv.display()));
    }
    let mut args: Vec<&str> = vec!["extrapolate", "--to", "7"];
    args.extend(sources.iter().map(String::as_str));
    let checked = run(&args);
    assert!(checked.status.success(), "{}", stderr(&checked));
    let text = stdout(&checked);
    assert!(text.contains("fit over 10x4..10x6"), "{text}");
    assert!(text.contains("measured  10x7:") && text.contains("(40 full games)"), "{text}");
    let growth: f64 = text.split("fit over 10x4..10x6: x").nth(1).unwrap()[..5].parse().unwrap();
    assert!((1.5..5.0).contains(&growth), "a row multiplies BCTS's game by about 2.5: {text}");
}
