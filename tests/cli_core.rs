//! The CLI contracts of the core: `play`, `features`, `best`, `list`, and bad input.

mod common;
use common::*;

#[test]
fn play_writes_one_csv_row_per_game_and_summarises() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("games.csv");
    let o = run(&[
        "play",
        "--preset",
        "dellacherie-simplified",
        "--board",
        "10x8",
        "--games",
        "6",
        "--seed",
        "7",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("lines") && out.contains("95% interval") && out.contains("median") && out.contains("pieces/s"),
        "{out}"
    );
    let mut reader = csv::Reader::from_path(&csv).unwrap();
    let headers = reader.headers().unwrap().clone();
    assert_eq!(&headers.iter().take(5).collect::<Vec<_>>(), &["game", "seed", "lines", "pieces", "score"]);
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
    assert_eq!(rows.len(), 6);
    // Every game ended (8 rows is small) and placed at least a few pieces.
    for r in &rows {
        assert!(r[3].parse::<u64>().unwrap() >= 3);
    }
    // Beside the CSV, what the run was: its master seed, preset, rule set version, crate
    // version and commit.
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("games.manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["command"], "play");
    assert_eq!(manifest["master_seed"], 7);
    assert_eq!(manifest["games"], 6);
    assert_eq!(manifest["preset"], "dellacherie-simplified");
    assert_eq!(manifest["rule_set"], "simplified");
    assert!(manifest["rule_set_version"].as_str().unwrap().starts_with("simplified/"), "{manifest}");
    assert_eq!(manifest["crate_version"], env!("CARGO_PKG_VERSION"));
    assert!(manifest["git_hash"].is_string() && manifest["finished_utc"].is_string(), "{manifest}");
}

#[test]
fn play_is_the_same_at_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.csv");
    let b = dir.path().join("b.csv");
    for (threads, path) in [("1", &a), ("2", &b)] {
        let o = run(&[
            "play",
            "--preset",
            "bcts",
            "--board",
            "10x8",
            "--games",
            "8",
            "--seed",
            "3",
            "--threads",
            threads,
            "--csv",
            path.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    assert_eq!(std::fs::read_to_string(&a).unwrap(), std::fs::read_to_string(&b).unwrap());
}

#[test]
fn the_lines_after_overflow_variant_is_a_named_rule_set() {
    let o = run(&[
        "play",
        "--preset",
        "dellacherie-simplified",
        "--rules",
        "simplified-lines-after-overflow",
        "--board",
        "10x8",
        "--games",
        "3",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("rows cleared before the overflow check"), "{}", stderr(&o));
}

#[test]
fn features_prints_the_preset_columns() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "boards.txt", GOLDEN_FILE);
    let o = run(&["features", "--preset", "el-tetris", file.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "board,landing_height_0,rows_cleared,row_transitions,column_transitions_nosky,holes,cumulative_wells,score"
    );
    // golden.md, El-Tetris: row_transitions, column_transitions_nosky, holes, cumulative_wells.
    assert!(lines[1].starts_with("B0_empty,0,0,40,10,0,0,"), "{}", lines[1]);
    assert!(lines[3].starts_with("B2_holes,0,0,50,12,1,4,"), "{}", lines[3]);
    assert!(lines[4].starts_with("B3_wells,0,0,50,10,0,15,"), "{}", lines[4]);
    assert_eq!(lines.len(), 6);
    // The score is the weighted sum of the columns.
    let fields: Vec<f64> = lines[2].split(',').skip(1).map(|f| f.parse().unwrap()).collect();
    let weights = [
        -4.500158825082766,
        3.4181268101392694,
        -3.2178882868487753,
        -9.348695305445199,
        -7.899265427351652,
        -3.3855972247263626,
    ];
    let sum: f64 = fields[..6].iter().zip(weights).map(|(v, w)| v * w).sum();
    assert!((sum - fields[6]).abs() < 1e-9);
}

#[test]
fn unnamed_boards_are_numbered() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "boards.txt", "X.........\n\n.X........\n");
    let o = run(&["features", "--preset", "bcts", file.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.lines().nth(1).unwrap().starts_with("1,"));
    assert!(out.lines().nth(2).unwrap().starts_with("2,"));
}

#[test]
fn best_prints_a_placement_and_the_board() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "boards.txt", "; well\n#########.\n#########.\n#########.\n#########.\n");
    let o = run(&["best", "--preset", "dellacherie-simplified", "--piece", "I", file.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    // A vertical I is MdpTetris' orientation 0 of I.
    assert!(out.contains("board well: piece I hold no orientation 0 column 9"), "{out}");
    assert!(out.contains("(4 rows cleared)"), "{out}");
    let o =
        run(&["best", "--preset", "dellacherie-simplified", "--piece", "I", "--format", "csv", file.to_str().unwrap()]);
    let out = stdout(&o);
    let mut lines = out.lines();
    assert_eq!(lines.next().unwrap(), "board,piece,hold,orientation,column,score");
    assert!(lines.next().unwrap().starts_with("well,I,no,0,9,"), "{out}");
}

#[test]
fn list_names_everything() {
    let o = run(&["list"]);
    assert!(o.status.success());
    let out = stdout(&o);
    for name in ["simplified", "landing_height", "cumulative_wells", "dellacherie-simplified", "bcts", "one-piece"] {
        assert!(out.contains(name), "{name} missing");
    }
}

#[test]
fn bad_input_gives_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    let good = write(dir.path(), "good.txt", "X.........\n");
    assert_clean_error(&run(&["play", "--preset", "delacherie", "--games", "1"]), "did you mean \"dellacherie\"");
    assert_clean_error(&run(&["play", "--preset", "bcts", "--games", "0"]), "--games must be at least 1");
    assert_clean_error(&run(&["play", "--preset", "bcts", "--rules", "simplifed"]), "did you mean \"simplified\"");
    assert_clean_error(&run(&["play", "--preset", "bcts", "--board", "3x10"]), "board width 3");
    let wide = write(dir.path(), "wide.txt", "X..........\n");
    assert_clean_error(&run(&["features", "--preset", "bcts", wide.to_str().unwrap()]), "has 11 cells, expected 10");
    let odd = write(dir.path(), "odd.txt", "X...o.....\n");
    assert_clean_error(&run(&["features", "--preset", "bcts", odd.to_str().unwrap()]), "'o'");
    let missing = write(dir.path(), "w1.toml", "holes = -1\n");
    assert_clean_error(
        &run(&["features", "--preset", "lee", "--weights", missing.to_str().unwrap(), good.to_str().unwrap()]),
        "missing weight(s) for aggregate_height",
    );
    let unknown = write(
        dir.path(),
        "w2.toml",
        "aggregate_height = -1\ncomplete_lines = 1\nholes = -1\nbumpiness = -1\nbumpy = 2\n",
    );
    assert_clean_error(
        &run(&["features", "--preset", "lee", "--weights", unknown.to_str().unwrap(), good.to_str().unwrap()]),
        "w2.toml",
    );
    let nan = write(dir.path(), "w3.toml", "aggregate_height = nan\ncomplete_lines = 1\nholes = -1\nbumpiness = -1\n");
    assert_clean_error(&run(&["play", "--preset", "lee", "--weights", nan.to_str().unwrap()]), "finite");
    let inf = write(dir.path(), "w4.toml", "aggregate_height = inf\ncomplete_lines = 1\nholes = -1\nbumpiness = -1\n");
    assert_clean_error(&run(&["play", "--preset", "lee", "--weights", inf.to_str().unwrap()]), "finite");
    let nowhere = dir.path().join("no/such/dir/out.csv");
    assert_clean_error(
        &run(&["play", "--preset", "bcts", "--board", "10x6", "--games", "1", "--csv", nowhere.to_str().unwrap()]),
        "cannot write",
    );
    assert_clean_error(&run(&["features", "--preset", "bcts", "/no/such/file"]), "cannot read board file");
    assert_clean_error(&run(&["best", "--preset", "bcts", "--piece", "Q", good.to_str().unwrap()]), "unknown piece");
}

/// A run that fails before its games (here on a weights file) writes nothing: the CSV is
/// checked writable, never opened for writing. A writer failing halfway is checked where
/// the CSV is written (`support::atomic_file`'s unit tests, through `write_with`).
#[test]
fn a_run_that_fails_before_its_games_leaves_an_existing_csv_alone() {
    let dir = tempfile::tempdir().unwrap();
    let csv = write(dir.path(), "keep.csv", "precious\n");
    let bad = write(dir.path(), "bad.toml", "landing_height = 1\n");
    let o = run(&[
        "play",
        "--preset",
        "bcts",
        "--games",
        "1",
        "--weights",
        bad.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
    ]);
    // It failed where it says: on the weights file (weights missing), before any game.
    assert_clean_error(&o, "bad.toml");
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), "precious\n");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2, "no temporary file left behind");
}

/// A command with no point to go on from (here `play`) ends at once on Ctrl-C, SIGTERM or
/// SIGHUP: exit 130, one line saying nothing was written, an earlier output of the same name
/// as it was, and no temporary beside it.
#[test]
fn play_stopped_by_any_signal_leaves_the_earlier_output_and_no_temporary() {
    for signal in ["-INT", "-TERM", "-HUP"] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("games.csv"), "an earlier run\n").unwrap();
        // Hours of games on 10x20: the signal always comes first.
        let args = ["play", "--preset", "bcts", "--games", "100", "--threads", "1", "--csv", "games.csv"];
        let child = spawn_in(dir.path(), &args, true);
        std::thread::sleep(std::time::Duration::from_millis(400));
        send_signal(&child, signal);
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(130), "{signal}: {}", stderr(&o));
        assert!(stderr(&o).contains("stopped: no output file of this command was written"), "{}", stderr(&o));
        assert_eq!(std::fs::read_to_string(dir.path().join("games.csv")).unwrap(), "an earlier run\n");
        let files: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(files, ["games.csv"], "{signal}: nothing else left");
    }
}

/// A batch that would take long says so before it starts, with what it costs and how to
/// make it smaller (BCTS's 100 default games on 10x20 last tens of minutes to hours); a
/// cheap one says nothing.
#[test]
fn a_long_batch_says_what_it_will_cost_before_it_starts() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let mut child = common::spawn_in(dir.path(), &["play", "--preset", "bcts", "--threads", "1"], true);
    let output = child.stderr.take().unwrap();
    let note = std::io::BufReader::new(output).lines().map(Result::unwrap).take(3).find(|l| l.starts_with("note:"));
    common::send_signal(&child, "-KILL");
    child.wait().unwrap();
    let note = note.expect("a note before the games start");
    assert!(
        note.starts_with("note: about 8.8 G pieces to play (100 games, published mean 35.0 M rows a game on 10x20)"),
        "{note}"
    );
    assert!(
        note.contains("pieces/s per thread here; --board 10x10, --games N or --max-pieces N make it smaller"),
        "{note}"
    );

    // A comparison: the least pairs the sequential test takes, both sides' games.
    let mut child = common::spawn_in(dir.path(), &["compare", "bcts", "bcts", "--threads", "1"], true);
    let output = child.stderr.take().unwrap();
    let note = std::io::BufReader::new(output).lines().map(Result::unwrap).take(5).find(|l| l.starts_with("note:"));
    common::send_signal(&child, "-KILL");
    child.wait().unwrap();
    let note = note.expect("a note before the pairs start");
    assert!(note.starts_with("note: about 17.5 G pieces to play (200 games, published mean 35.0 M rows"), "{note}");

    let cheap = run(&["play", "--preset", "bcts", "--board", "10x10", "--games", "3"]);
    assert!(cheap.status.success());
    assert!(!stderr(&cheap).contains("note:"), "{}", stderr(&cheap));
}

/// A command or flag of an earlier version gets its new form, not clap's nearest guess.
#[test]
fn old_names_point_to_their_new_form() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write(
        dir.path(),
        "game.trace",
        "# tetris-lab trace v1\npreset bcts rules simplified board 10x10 seed 1 game 0\n",
    );
    let record = write(dir.path(), "bom.txt", "\u{feff}N,L4,D18,N,R5,D18");
    let trace = trace.to_str().unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["tune", "--results", "x"], "`tune --results` is now `tune --out`"),
        (vec!["compare", "bcts", "bcts", "--results=x"], "`compare --results` is now `compare --out`"),
        (vec!["plot", "--out", "x.png"], "`plot --out` is now `plot --image`"),
        (vec!["solve", "--beam", "5"], "the command `solve` is now `tetris-lab etetris solve`"),
        (vec!["splice"], "the command `splice` is now `tetris-lab etetris splice`"),
        (vec!["versus"], "the command `versus` is now `tetris-lab etetris versus`"),
        (vec!["sequence"], "the command `sequence` is now `tetris-lab etetris sequence`"),
        (vec!["etetris", "sequence", "-n", "5"], "`etetris sequence -n` is now `etetris sequence --max-pieces`"),
        (vec!["etetris", "replay", trace], "this is a game trace (`play --trace`), not an E-Tetris record"),
    ];
    for (args, needle) in cases {
        let o = run(&args);
        assert_clean_error(&o, needle);
    }
    // A record behind a byte-order mark replays as without it.
    let o = run(&["etetris", "replay", record.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
}
