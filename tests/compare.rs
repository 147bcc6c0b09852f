//! `tetris-lab compare`: its verdicts on controllers whose difference is known, the same
//! pairs at any thread count, a stopped comparison resumed to the same result, bad input
//! refused, and the sequential test's error rates measured on real games.

mod common;

use common::{assert_clean_error, run, send_signal, spawn_in, stdout, write};
use std::path::{Path, PathBuf};
use tetris_lab::compare::{self, Controller, Ending, Mode, Setup};
use tetris_lab::report::ledger::Ledger;
use tetris_lab::report::paired::{Decision, Sequential};
use tetris_lab::tune::objective::Fitness;

/// BCTS's published weights with one changed: a weaker controller on small boards.
fn weakened_bcts(dir: &Path, feature: &str, value: f64) -> PathBuf {
    let published = stdout(&run(&["weights", "bcts"]));
    let mut changed = false;
    let text: String = published
        .lines()
        .map(|line| {
            if line.starts_with(&format!("{feature} = ")) {
                changed = true;
                format!("{feature} = {value}\n")
            } else {
                format!("{line}\n")
            }
        })
        .collect();
    assert!(changed, "{feature} is not among BCTS's weights:\n{published}");
    write(dir, &format!("bcts-{feature}.toml"), &text)
}

/// The one run folder under `out`.
fn only_run(out: &Path) -> PathBuf {
    let runs: Vec<PathBuf> = std::fs::read_dir(out).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    runs[0].clone()
}

fn manifest(run_dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(run_dir.join("manifest.json")).unwrap()).unwrap()
}

#[test]
fn a_controller_against_itself_is_no_better_at_the_first_look() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results");
    let o = run(&["compare", "bcts", "bcts", "--board", "6x6", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let text = stdout(&o);
    // Every pair is alike: the difference has no variance, and the test ends as soon as it
    // may look, on the "no better" side.
    assert!(text.contains("B is no better: LLR -inf (every pair alike)"), "{text}");
    assert!(text.contains("after 100 pairs"), "{text}");
    assert!(text.contains("B / A      1.000  95% interval [1.000, 1.000]"), "{text}");
    let run_dir = only_run(&out);
    let pairs = std::fs::read_to_string(run_dir.join("pairs.csv")).unwrap();
    assert_eq!(pairs.lines().next(), Some("pair,seed_a,seed_b,a,b,difference,llr"));
    assert_eq!(pairs.lines().count(), 101);
    for line in pairs.lines().skip(1) {
        let fields: Vec<&str> = line.split(',').collect();
        assert_eq!(fields[1], fields[2], "a pair shares its pieces: {line}");
        assert_eq!(fields[3], fields[4], "{line}");
    }
    let m = manifest(&run_dir);
    assert_eq!(m["command"], "compare");
    assert_eq!(m["result"], "no better");
    assert_eq!(m["pairs"], 100);
    for field in ["master_seed", "rule_set_version", "crate_version", "git_hash"] {
        assert!(!m[field].is_null(), "manifest lacks {field}: {m}");
    }
}

/// A copy of the published weights in a file is the same controller: every pair alike.
#[test]
fn a_copy_of_the_published_weights_is_no_better() {
    let dir = tempfile::tempdir().unwrap();
    let copy = write(dir.path(), "bcts-copy.toml", &stdout(&run(&["weights", "bcts"])));
    let copy_side = format!("bcts:{}", copy.display());
    let out = dir.path().join("results");
    let o = run(&["compare", "bcts", &copy_side, "--board", "6x6", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert!(stdout(&o).contains("B is no better: LLR -inf (every pair alike)"), "{}", stdout(&o));
}

/// The frame game's fitness: the level at top-out, its interval by Student's t (at least 0).
#[test]
fn the_guideline_game_is_compared_by_level() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results");
    let o = run(&[
        "compare",
        "pygame-lee",
        "pygame-lee",
        "--fitness",
        "level",
        "--pairs",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("level  95% interval ["), "{text}");
    assert!(text.contains("(t, at least 0)"), "{text}");
    let m = manifest(&only_run(&out));
    assert_eq!(m["fitness"], "level");
    assert_eq!(m["result"], "fixed");
}

#[test]
fn a_clearly_better_controller_is_called_better_and_a_worse_one_no_better() {
    let dir = tempfile::tempdir().unwrap();
    // On 6x6, BCTS scores about 15% more rows than BCTS with its wells weight halved
    // (measured on 20,000 pairs: 1.151 [1.134, 1.167]).
    let weak = weakened_bcts(dir.path(), "cumulative_wells", -5.0);
    let weak_side = format!("bcts:{}", weak.display());
    let out = dir.path().join("results");
    let o = run(&["compare", &weak_side, "bcts", "--board", "6x6", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert!(stdout(&o).contains("test       B is at least 5% better: LLR"), "{}", stdout(&o));
    let o = run(&["compare", "bcts", &weak_side, "--board", "6x6", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert!(stdout(&o).contains("test       B is no better: LLR"), "{}", stdout(&o));
    // A fixed number of pairs: the estimate, no test.
    let o = run(&["compare", &weak_side, "bcts", "--board", "6x6", "--pairs", "2000", "--out", out.to_str().unwrap()]);
    let text = stdout(&o);
    assert!(text.contains("pairs      2,000 (4,000 games"), "{text}");
    let ratio_line = text.lines().find(|l| l.starts_with("B / A")).unwrap();
    let ratio: f64 = ratio_line.split_whitespace().nth(3).unwrap().parse().unwrap();
    assert!((1.08..1.25).contains(&ratio), "{ratio_line}");
    assert!(!text.contains("\ntest "), "{text}");
}

/// The pairs, the verdict and the output files do not depend on the thread count (the
/// decision is taken pair by pair, in pair order, whatever the batches).
#[test]
fn the_same_pairs_at_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let weak = weakened_bcts(dir.path(), "row_transitions", -5.0);
    let weak_side = format!("bcts:{}", weak.display());
    let mut outputs = Vec::new();
    for threads in ["1", "2"] {
        let out = dir.path().join(format!("threads{threads}"));
        let o = run(&[
            "compare",
            &weak_side,
            "bcts",
            "--board",
            "6x6",
            "--seed",
            "7",
            "--threads",
            threads,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", common::stderr(&o));
        let run_dir = only_run(&out);
        let pairs = std::fs::read_to_string(run_dir.join("pairs.csv")).unwrap();
        let text = stdout(&o).lines().filter(|l| !l.starts_with("results in")).collect::<Vec<_>>().join("\n");
        outputs.push((pairs, text));
    }
    assert!(outputs[0].0.lines().count() > 101, "the test took more than its first look");
    assert_eq!(outputs[0], outputs[1]);
}

/// A comparison stopped by SIGTERM or Ctrl-C (exit 130, nothing temporary left) or killed
/// outright resumes from its run folder to exactly the result of one run through.
#[test]
fn a_stopped_comparison_resumes_to_the_same_result() {
    let dir = tempfile::tempdir().unwrap();
    let weak = weakened_bcts(dir.path(), "cumulative_wells", -5.0);
    let weak_side = format!("bcts:{}", weak.display());
    let arguments = |out: &str| -> Vec<String> {
        [&weak_side, "bcts", "--board", "10x10", "--pairs", "1000", "--seed", "3", "--out", out]
            .iter()
            .map(|s| s.to_string())
            .collect()
    };
    let whole = dir.path().join("whole");
    let mut command = vec!["compare".to_string()];
    command.extend(arguments(whole.to_str().unwrap()));
    let o = run(&command.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(o.status.success(), "{}", common::stderr(&o));
    let expected = std::fs::read_to_string(only_run(&whole).join("pairs.csv")).unwrap();
    for signal in ["-TERM", "-INT", "-KILL"] {
        let out = dir.path().join(format!("stopped{signal}"));
        let mut command = vec!["compare".to_string()];
        command.extend(arguments(out.to_str().unwrap()));
        let child = spawn_in(dir.path(), &command.iter().map(String::as_str).collect::<Vec<_>>(), true);
        // Stopped once some games are in the ledger (the whole run takes seconds).
        let started = std::time::Instant::now();
        while games_finished(&out) < 40 {
            assert!(started.elapsed().as_secs() < 60, "no games finished");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        send_signal(&child, signal);
        let o = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        let run_dir = only_run(&out);
        if signal != "-KILL" {
            assert_eq!(o.status.code(), Some(130), "{err}");
            assert!(err.contains("stopped: every finished game is in"), "{err}");
            assert!(err.contains("tetris-lab compare --resume"), "{err}");
        }
        assert!(!run_dir.join("pairs.csv").exists(), "the comparison was stopped before its end");
        let games = std::fs::read_to_string(run_dir.join("ledger.csv")).unwrap();
        assert!(games.lines().count() > 10, "some games were finished before the stop");
        let names: Vec<String> =
            std::fs::read_dir(&run_dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into()).collect();
        if signal != "-KILL" {
            assert!(names.iter().all(|n| !n.contains("partial")), "{names:?}");
        }
        let o = run(&["compare", "--resume", run_dir.to_str().unwrap(), "--threads", "1"]);
        let err = common::stderr(&o);
        assert!(o.status.success(), "{err}");
        assert!(err.contains("finished game(s) kept"), "{err}");
        assert_eq!(std::fs::read_to_string(run_dir.join("pairs.csv")).unwrap(), expected, "{signal}");
    }
}

/// A stopped comparison resumes only as itself: settings given again must be the stored
/// ones, and the ledger's games must be games this comparison plays.
#[test]
fn a_resumed_comparison_keeps_its_settings_and_checks_its_ledger() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results");
    let o = run(&[
        "compare",
        "bcts",
        "dellacherie",
        "--rules",
        "simplified",
        "--board",
        "8x8",
        "--pairs",
        "100",
        "--seed",
        "4",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let run_dir = only_run(&out);
    let pairs = std::fs::read_to_string(run_dir.join("pairs.csv")).unwrap();
    let ledger = std::fs::read_to_string(run_dir.join("ledger.csv")).unwrap();
    // As a stopped comparison: its pairs not yet written, half its games in the ledger.
    std::fs::remove_file(run_dir.join("pairs.csv")).unwrap();
    let half: String = ledger.lines().take(100).map(|l| format!("{l}\n")).collect();
    std::fs::write(run_dir.join("ledger.csv"), &half).unwrap();
    let resume = run_dir.to_str().unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["lee", "lee"], "controller A lee differs from the comparison's controller A bcts"),
        (vec!["--seed", "5"], "--seed 5 differs from the comparison's --seed 4"),
        (vec!["--fitness", "turns"], "--fitness turns differs from the comparison's --fitness rows"),
        (vec!["--board", "10x10"], "--board 10x10 differs"),
        (vec!["--pairs", "200"], "--pairs 200 differs"),
        (vec!["--max-pieces", "50"], "--max-pieces 50 differs from the comparison's --max-pieces (not given)"),
        (vec!["--unpaired"], "--unpaired differs"),
    ];
    for (extra, needle) in cases {
        let mut args = vec!["compare", "--resume", resume];
        args.extend(extra);
        assert_clean_error(&common::run_in(dir.path(), &args), needle);
        assert_eq!(std::fs::read_to_string(run_dir.join("ledger.csv")).unwrap(), half, "{needle}: the ledger kept");
    }
    // Lines of another seed, or that no game of this comparison could be.
    let line = half.lines().nth(3).unwrap();
    let fields: Vec<&str> = line.split(',').collect();
    let with = |i: usize, value: &str| {
        let mut f = fields.clone();
        f[i] = value;
        half.replace(line, &f.join(","))
    };
    for (edited, needle) in [
        (with(2, "12345"), "has seed 12345 where this comparison's has"),
        (with(3, "100000"), "rows, more than its"),
        (with(6, "piece_cap"), "ended by a piece cap where this comparison has none"),
    ] {
        std::fs::write(run_dir.join("ledger.csv"), &edited).unwrap();
        assert_clean_error(&run(&["compare", "--resume", resume]), needle);
        assert!(!run_dir.join("pairs.csv").exists());
    }
    // The same settings given again, and the true ledger: the comparison's own result.
    std::fs::write(run_dir.join("ledger.csv"), &half).unwrap();
    let o = run(&["compare", "--resume", resume, "bcts", "dellacherie", "--seed", "4", "--threads", "1"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert_eq!(std::fs::read_to_string(run_dir.join("pairs.csv")).unwrap(), pairs);
}

/// Lines in the ledger of the one run folder under `out` (0 until it is made).
fn games_finished(out: &Path) -> usize {
    let Some(run_dir) = std::fs::read_dir(out).ok().and_then(|mut r| r.next()) else {
        return 0;
    };
    std::fs::read_to_string(run_dir.unwrap().path().join("ledger.csv")).map_or(0, |t| t.lines().count())
}

#[test]
fn bad_input_gets_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = d.join("results");
    let out = out.to_str().unwrap();
    let missing = d.join("missing.toml");
    let missing_side = format!("bcts:{}", missing.display());
    let tune_run = d.join("tune-run");
    std::fs::create_dir_all(&tune_run).unwrap();
    write(&tune_run, "manifest.json", "{\"command\": \"tune\"}\n");
    let empty_run = d.join("empty");
    std::fs::create_dir_all(&empty_run).unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["compare", "bcts", "nonesuch"], "nonesuch"),
        (vec!["compare", "bcts:", "bcts"], "no weights file after ':'"),
        (vec!["compare", &missing_side, "bcts"], "missing.toml"),
        (vec!["compare", "bcts", "el-tetris"], "choose one with --rules"),
        (vec!["compare", "bcts", "bcts", "--pairs", "100", "--gain", "5"], "--gain"),
        (vec!["compare", "bcts", "bcts", "--gain", "0"], "not a gain in percent"),
        (vec!["compare", "bcts", "bcts", "--gain", "five"], "not a gain in percent"),
        (vec!["compare", "bcts", "bcts", "--alpha", "0.7"], "not an error rate"),
        (vec!["compare", "bcts", "bcts", "--max-pairs", "50"], "no fewer than 100 pairs"),
        (vec!["compare", "bcts", "bcts", "--pairs", "0"], "--pairs"),
        (vec!["compare", "bcts", "bcts", "--max-pieces", "0"], "--max-pieces"),
        (vec!["compare", "bcts", "bcts", "--fitness", "level"], "--fitness level"),
        (vec!["compare", "bcts"], "<B>"),
        (vec!["compare", "--resume", empty_run.to_str().unwrap()], "no manifest.json"),
        (vec!["compare", "--resume", tune_run.to_str().unwrap()], "field command: not a compare run"),
    ];
    for (args, needle) in cases {
        let mut args = args.clone();
        if !args.contains(&"--resume") {
            args.extend(["--out", out]);
        }
        let o = common::run_in(d, &args);
        assert_clean_error(&o, needle);
    }
    // Nothing was made for the refused comparisons: no run folder left behind.
    let left: Vec<_> = std::fs::read_dir(d.join("results")).map(|r| r.collect::<Vec<_>>()).unwrap_or_default();
    assert!(left.is_empty(), "{left:?}");
}

/// A comparison of `a` against `b` on `board` with master seed `seed`.
fn setup(a: &str, b: &str, board: (usize, usize), seed: u64, unpaired: bool, mode: Mode) -> Setup {
    Setup {
        a: Controller::parse(a).unwrap(),
        b: Controller::parse(b).unwrap(),
        rules: None,
        board: Some(board),
        seed,
        fitness: Fitness::Rows,
        max_pieces: None,
        unpaired,
        mode,
    }
}

fn play(setup: &Setup, dir: &Path) -> compare::Outcome {
    let sides = setup.build().unwrap();
    let path = dir.join(format!("games-{}.csv", setup.seed));
    let ledger = Ledger::open(&path).unwrap();
    let outcome = compare::run(setup, &sides, &ledger, &compare::Local, &Default::default(), &mut |_| {}).unwrap();
    drop(ledger);
    std::fs::remove_file(path).unwrap();
    outcome
}

/// Plays `comparisons` sequential comparisons (master seeds 1, 2, ...) of `a` against `b`
/// and counts how each ended: (better, no better, mean pairs).
fn verdicts(
    (a, b): (&str, &str),
    board: (usize, usize),
    test: Sequential,
    unpaired: bool,
    comparisons: u64,
    dir: &Path,
) -> (u64, u64, u64) {
    let (mut better, mut no_better, mut pairs) = (0, 0, 0);
    for seed in 1..=comparisons {
        let outcome = play(&setup(a, b, board, seed, unpaired, Mode::Sequential { test, max_pairs: 100_000 }), dir);
        pairs += outcome.sums.pairs;
        match outcome.ending {
            Ending::Decided(Decision::Better) => better += 1,
            Ending::Decided(Decision::NoBetter) => no_better += 1,
            ending => panic!("seed {seed}: {ending:?} after {} pairs", outcome.sums.pairs),
        }
    }
    (better, no_better, pairs / comparisons)
}

/// The error rates of the test asked for alpha = beta = 0.05 at the gain B truly has, on
/// `board`, over `comparisons` comparisons each: B = BCTS against A = BCTS with its wells
/// weight at `weakened_wells` (the gain measured first on `truth_pairs` pairs), and BCTS
/// against itself on other pieces. Prints what it finds; returns (called better when no
/// better, called no better at the gain).
fn error_rates(board: (usize, usize), weakened_wells: f64, truth_pairs: u64, comparisons: u64) -> (u64, u64) {
    let dir = tempfile::tempdir().unwrap();
    let weak = weakened_bcts(dir.path(), "cumulative_wells", weakened_wells);
    let weak_side = format!("bcts:{}", weak.display());
    let truth = play(&setup(&weak_side, "bcts", board, 0, false, Mode::Fixed { pairs: truth_pairs }), dir.path());
    let gain = truth.sums.mean_b() / truth.sums.mean_a() - 1.0;
    eprintln!("{}x{}: B is {:.1}% better on {truth_pairs} pairs", board.0, board.1, 100.0 * gain);
    assert!((0.05..0.5).contains(&gain), "B is {:.1}% better", 100.0 * gain);
    let test = Sequential { gain, alpha: 0.05, beta: 0.05 };
    let (false_better, no_better, mean_pairs) = verdicts(("bcts", "bcts"), board, test, true, comparisons, dir.path());
    eprintln!("no better: called better {false_better}, no better {no_better}, {mean_pairs} pairs on average");
    let (better, false_no_better, mean_pairs) =
        verdicts((&weak_side, "bcts"), board, test, false, comparisons, dir.path());
    eprintln!(
        "{:.1}% better: called better {better}, no better {false_no_better}, {mean_pairs} pairs on average",
        100.0 * gain
    );
    (false_better, false_no_better)
}

/// The test's error rates on real games, 200 comparisons each on 6x6 (the unit tests check
/// them on simulated values), at the gain BCTS has over BCTS with its wells weight at -5
/// (about 16%, measured here on 40,000 pairs first): BCTS against itself on other pieces
/// (no better, by construction) must be called better at most about 5% of the time, and the
/// better BCTS called no better at most about 5% of the time. The bounds leave three
/// binomial standard deviations (of 200 at 0.05: 3.1 comparisons).
#[test]
fn the_sequential_tests_error_rates_hold_on_real_games() {
    let (false_better, false_no_better) = error_rates((6, 6), -5.0, 40_000, 200);
    assert!(false_better <= 19, "B called better {false_better} times out of 200 when it is no better");
    assert!(false_no_better <= 19, "B called no better {false_no_better} times out of 200 at the gain it has");
}

/// The same at full size, 10x10 (about 30 minutes on 2 cores; its figures are in
/// docs/compare.md): `cargo test --release --test compare -- --ignored --nocapture`.
#[test]
#[ignore]
fn the_sequential_tests_error_rates_hold_on_full_size_games() {
    let (false_better, false_no_better) = error_rates((10, 10), -8.0, 20_000, 200);
    assert!(false_better <= 19, "B called better {false_better} times out of 200 when it is no better");
    assert!(false_no_better <= 19, "B called no better {false_no_better} times out of 200 at the gain it has");
}

/// Only `tune`, `compare` and `learn` run across MPI ranks, and only with the `mpi` build: every
/// other command started as one of several ranks refuses, and so do those three in the plain
/// build; nothing is written.
#[cfg(not(feature = "mpi"))]
#[test]
fn commands_refuse_to_run_as_one_of_several_ranks_where_they_would_run_whole_on_each() {
    let dir = tempfile::tempdir().unwrap();
    for (variable, args, needle) in [
        (
            "OMPI_COMM_WORLD_SIZE",
            vec!["compare", "bcts", "bcts", "--board", "6x6"],
            "this binary was built without MPI",
        ),
        (
            "PMI_SIZE",
            vec!["play", "--preset", "bcts", "--board", "6x6", "--csv", "games.csv"],
            "only `tune`, `compare` and `learn`",
        ),
        ("OMPI_COMM_WORLD_SIZE", vec!["learn", "experiments.toml"], "this binary was built without MPI"),
        ("PMIX_SIZE", vec!["reproduce", "bcts"], "only `tune`, `compare` and `learn` run across ranks"),
    ] {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_tetris-lab"))
            .args(&args)
            .env(variable, "3")
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_clean_error(&o, needle);
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "nothing written");
}
