//! `tetris-lab reproduce` through the binary, on a tiny plan (hidden `--games`, `--moves`
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
        "--moves",
        "3000",
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
    for column in ["preset", "board", "metric", "mean", "95% interval", "published", "inside", "seconds"] {
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
    // Full games first, then the estimates, every row on the overridden board.
    assert!(
        rows.iter().all(|r| r.starts_with(|c: char| c.is_ascii_digit()) && r.contains("bcts") && r.contains("10x6")),
        "{text}"
    );
    assert!(notes[0].starts_with("1  bcts (simplified rules, 3 games): full games"), "{text}");
    assert!(notes.iter().any(|r| r.contains("estimate (Fahey)")), "{text}");

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
    assert_eq!(&records[0][column("games_or_moves")], "3");
    let mean: f64 = records[0][column("mean")].parse().unwrap();
    let low: f64 = records[0][column("low_95")].parse().unwrap();
    let high: f64 = records[0][column("high_95")].parse().unwrap();
    assert!(low <= mean && mean <= high, "{low} {mean} {high}");
    // The per-game file agrees with the table's mean.
    let mut games = csv::Reader::from_path(dirs[0].join("games.csv")).unwrap();
    let lines: Vec<f64> = games.records().map(|r| r.unwrap()[3].parse().unwrap()).collect();
    assert_eq!(lines.len(), 3);
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
    assert_eq!(manifest["rule_set_versions"]["simplified 10x6"], "simplified/1");
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
fn dellacherie_is_measured_on_fahey_s_standard_rules() {
    let temp = tempfile::tempdir().unwrap();
    let out = temp.path().join("results");
    // `--quick` measures `dellacherie` by Fahey's estimate on the 10x20 `standard` game.
    let o = run(&["reproduce", "dellacherie", "--games", "1", "--moves", "500", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(!text.contains("not available"), "{text}");
    let dirs = run_dirs(&out);
    let mut table = csv::Reader::from_path(dirs[0].join("table.csv")).unwrap();
    let headers = table.headers().unwrap().clone();
    let column = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let records: Vec<csv::StringRecord> = table.records().map(Result::unwrap).collect();
    assert!(!records.is_empty(), "{text}");
    for r in &records {
        assert_eq!(&r[column("preset")], "dellacherie");
        assert_eq!(&r[column("rule_set")], "standard", "{text}");
        assert_eq!(&r[column("board")], "10x20", "{text}");
        assert_eq!(&r[column("games_or_moves")], "500 moves", "{text}");
        assert!(r[column("how_measured")].starts_with("estimate (Fahey)"), "{text}");
        // Fahey's figure is compared: the row names its source.
        assert!(r[column("published_source")].starts_with("Fahey 2003"), "{text}");
    }
}
