//! The bad-input battery (issue 15): every subcommand and every file format the program
//! reads, fed what a user might get wrong or an attacker might try. Each case must end in
//! a time limit with exit code 1 (2 for clap's usage errors), one `error:` line naming the
//! file, key or flag, no panic, and the folder it ran in exactly as before: no output
//! written, no existing file changed, no temporary left behind.
//!
//! Each test writes its fixtures into a fresh folder, runs its table of cases there one
//! after the other, and reports every failing case at once.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Far above any case's time (each fails before any game, search or drawing).
const TIME_LIMIT: Duration = Duration::from_secs(20);

struct Case {
    args: Vec<String>,
    /// 1 for a refused input, 2 for clap's usage errors (wrong types on the command line).
    code: i32,
    /// What the error line must contain: the file, key or flag at fault.
    needle: String,
}

/// A case refused with exit code 1.
fn refused<S: AsRef<str>>(args: &[S], needle: &str) -> Case {
    Case { args: args.iter().map(|s| s.as_ref().to_string()).collect(), code: 1, needle: needle.to_string() }
}

/// A case clap refuses (exit code 2) before the program runs.
fn usage<S: AsRef<str>>(args: &[S], needle: &str) -> Case {
    Case { code: 2, ..refused(args, needle) }
}

/// Every file under `dir` with its content: what a case may not change.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    let mut files = BTreeMap::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                files.insert(path.clone(), None);
                folders.push(path);
            } else {
                files.insert(path.clone(), Some(std::fs::read(&path).unwrap()));
            }
        }
    }
    files
}

/// Runs the binary in `dir`, killed after [`TIME_LIMIT`]; (exit code, stderr), or an
/// error saying it hung.
fn run_in(dir: &Path, args: &[String], logs: &Path) -> Result<(Option<i32>, String), String> {
    let (out, err) = (logs.join("stdout"), logs.join("stderr"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_tetris-lab"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .expect("the binary starts");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > TIME_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("still running after {TIME_LIMIT:?}"));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Ok((status.code(), String::from_utf8_lossy(&std::fs::read(&err).unwrap()).into_owned()))
}

/// What is wrong with one case's run, if anything.
fn check(case: &Case, dir: &Path, logs: &Path) -> Option<String> {
    let before = snapshot(dir);
    let (code, stderr) = match run_in(dir, &case.args, logs) {
        Ok(result) => result,
        Err(hang) => return Some(hang),
    };
    if stderr.contains("panicked") || code == Some(101) {
        return Some(format!("panicked: {stderr}"));
    }
    if code != Some(case.code) {
        return Some(format!("exit code {code:?}, expected {}: {stderr}", case.code));
    }
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    // clap's usage errors too: its message is cut to its first line and its tips.
    if lines.len() != 1 || !lines[0].starts_with("error: ") {
        return Some(format!("expected one `error:` line, got: {stderr}"));
    }
    if !lines[0].contains(&case.needle) {
        return Some(format!("expected {:?} in: {stderr}", case.needle));
    }
    let after = snapshot(dir);
    if before != after {
        let changed: Vec<_> = after
            .iter()
            .filter(|(path, content)| before.get(*path) != Some(content))
            .map(|(path, _)| path.strip_prefix(dir).unwrap().display().to_string())
            .chain(before.keys().filter(|p| !after.contains_key(*p)).map(|p| format!("{} (removed)", p.display())))
            .collect();
        return Some(format!("the folder changed: {changed:?}"));
    }
    None
}

/// Writes `files` into a fresh folder, runs every case there and fails listing every case
/// that went wrong.
fn battery(files: &[(&str, &[u8])], cases: Vec<Case>) {
    let dir = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    for (name, content) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        if name.ends_with('/') {
            std::fs::create_dir_all(&path).unwrap();
        } else {
            std::fs::write(&path, content).unwrap();
        }
    }
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| check(case, dir.path(), logs.path()).map(|why| format!("{:?}: {why}", case.args)))
        .collect();
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

/// `base` then `extra`, as owned arguments.
fn with(base: &[&str], extra: &[&str]) -> Vec<String> {
    base.iter().chain(extra).map(|s| s.to_string()).collect()
}

/// `base`, then each default flag with its value unless `extra` gives it (clap refuses a
/// flag given twice), then `extra`.
fn with_defaults(base: &[&str], defaults: &[(&str, &str)], extra: &[&str]) -> Vec<String> {
    let mut args = with(base, &[]);
    for (flag, value) in defaults {
        if !extra.contains(flag) {
            args.extend([flag.to_string(), value.to_string()]);
        }
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

/// Bytes that are not UTF-8.
const BINARY: &[u8] = b"\xff\xfe\x00\x01garbage\x80\x81\n";

const SIMPLIFIED_WEIGHTS: &str = "landing_height = -1\neroded_cells = 1\nrow_transitions = -1\n\
                                  column_transitions = -1\nholes = -4\ncumulative_wells = -1\n";

/// Dellacherie's six weights with `holes` replaced by `value`.
fn weights_with_holes(value: &str) -> String {
    SIMPLIFIED_WEIGHTS.replace("holes = -4", &format!("holes = {value}"))
}

#[test]
fn play_refuses_bad_counts_sizes_paths_and_weights_files() {
    let holes = |v: &str| weights_with_holes(v);
    let files: Vec<(String, Vec<u8>)> = vec![
        ("keep.csv".into(), b"game,seed\n0,1\n".to_vec()),
        ("good.toml".into(), SIMPLIFIED_WEIGHTS.as_bytes().to_vec()),
        ("folder/".into(), Vec::new()),
        ("nan.toml".into(), holes("nan").into_bytes()),
        ("inf.toml".into(), holes("-inf").into_bytes()),
        ("overflow.toml".into(), holes("1e400").into_bytes()),
        ("huge.toml".into(), holes("1e300").into_bytes()),
        ("text.toml".into(), holes("\"-4\"").into_bytes()),
        ("array.toml".into(), holes("[1, 2]").into_bytes()),
        ("duplicate.toml".into(), format!("{SIMPLIFIED_WEIGHTS}holes = 3\n").into_bytes()),
        ("unknown.toml".into(), format!("{SIMPLIFIED_WEIGHTS}hole = 3\n").into_bytes()),
        ("missing.toml".into(), SIMPLIFIED_WEIGHTS.replace("holes = -4\n", "").into_bytes()),
        ("empty.toml".into(), Vec::new()),
        ("binary.toml".into(), BINARY.to_vec()),
        ("syntax.toml".into(), b"holes = = 3\n".to_vec()),
        ("beside.toml".into(), format!("holse = nan\n[weights]\n{SIMPLIFIED_WEIGHTS}").into_bytes()),
        ("nested.toml".into(), format!("[weights]\n{SIMPLIFIED_WEIGHTS}[weights.extra]\nx = 1\n").into_bytes()),
        ("not-a-table.toml".into(), b"weights = 3\n".to_vec()),
        ("preset-number.toml".into(), format!("preset = 5\n{SIMPLIFIED_WEIGHTS}").into_bytes()),
        ("inline.toml".into(), format!("{SIMPLIFIED_WEIGHTS}comment = {{ a = 1 }}\n").into_bytes()),
        ("preset-typo.toml".into(), format!("preset = \"delacherie-simplified\"\n{SIMPLIFIED_WEIGHTS}").into_bytes()),
        ("preset-other.toml".into(), format!("preset = \"bcts\"\n{SIMPLIFIED_WEIGHTS}").into_bytes()),
        ("preset-etetris.toml".into(), format!("preset = \"etetris\"\n{SIMPLIFIED_WEIGHTS}").into_bytes()),
    ];
    let files: Vec<(&str, &[u8])> = files.iter().map(|(n, c)| (n.as_str(), c.as_slice())).collect();
    let play = |extra: &[&str]| {
        let defaults =
            [("--preset", "dellacherie-simplified"), ("--board", "10x10"), ("--games", "2"), ("--max-pieces", "5")];
        with_defaults(&["play", "--csv", "keep.csv"], &defaults, extra)
    };
    let weights = |file: &str, needle: &str| refused(&play(&["--weights", file]), needle);
    let cases = vec![
        // Outputs over each other or over an input (the first written would be lost).
        refused(&play(&["--trace", "keep.csv"]), "--trace keep.csv is also --csv"),
        refused(&play(&["--trace", "./folder/../keep.csv"]), "is also --csv"),
        refused(&play(&["--trace", "keep.manifest.json"]), "is also the manifest beside --csv"),
        refused(
            &with(
                &["play", "--preset", "dellacherie-simplified", "--games", "2"],
                &["--weights", "good.toml", "--csv", "good.toml"],
            ),
            "--csv good.toml is the --weights file",
        ),
        refused(
            &["play", "--preset", "dellacherie-simplified", "--games", "18446744073709551615", "--max-pieces", "1"],
            "--games",
        ),
        refused(&play(&["--games", "0"]), "--games"),
        refused(&play(&["--games", "10000001"]), "--games"),
        usage(&play(&["--games=-1"]), "--games"),
        usage(&play(&["--games", "1e3"]), "--games"),
        usage(&play(&["--games", "99999999999999999999999"]), "--games"),
        refused(&play(&["--max-pieces", "0"]), "--max-pieces"),
        refused(&play(&["--threads", "0"]), "--threads"),
        usage(&play(&["--threads", "-4"]), "'-4'"),
        usage(&play(&["--board", "0x0"]), "board"),
        usage(&play(&["--board", "1000x1000"]), "board"),
        usage(&play(&["--board", "10x"]), "board"),
        usage(&play(&["--board", "x"]), "board"),
        usage(&play(&["--seed", "nan"]), "--seed"),
        refused(&["play", "--preset", "dellacherie-simplified", "--games", "2", "--csv", "folder"], "folder"),
        refused(
            &["play", "--preset", "dellacherie-simplified", "--games", "2", "--csv", "no-such/x.csv"],
            "there is no folder no-such",
        ),
        refused(&["play", "--preset", "dellacherie-simplified", "--games", "2", "--csv", "keep.csv/x"], "keep.csv/x"),
        refused(&play(&["--preset", "dellacherie-simplifed"]), "dellacherie-simplified"),
        refused(&play(&["--rules", "no-such-rules"]), "rule"),
        refused(&["play", "--preset", "dellacherie", "--board", "10x10", "--games", "2"], "board"),
        weights("no-such.toml", "no-such.toml"),
        weights("folder", "folder"),
        weights("nan.toml", "holes"),
        weights("inf.toml", "holes"),
        weights("overflow.toml", "overflow.toml"),
        weights("huge.toml", "holes"),
        weights("text.toml", "holes"),
        weights("array.toml", "holes"),
        weights("duplicate.toml", "duplicate.toml"),
        weights("unknown.toml", "\"hole\""),
        weights("missing.toml", "holes"),
        weights("empty.toml", "empty.toml"),
        weights("binary.toml", "binary.toml"),
        weights("syntax.toml", "syntax.toml"),
        weights("beside.toml", "holse"),
        weights("nested.toml", "extra"),
        weights("not-a-table.toml", "weights"),
        weights("preset-number.toml", "preset"),
        weights("inline.toml", "comment"),
        weights("preset-typo.toml", "did you mean \"dellacherie-simplified\""),
        weights("preset-other.toml", "preset bcts's"),
        weights("preset-etetris.toml", "E-Tetris"),
    ];
    battery(&files, cases);
}

const BOARDS: &str = "; stairs\n..........\nX.........\nXX.XXX.X..\n";

#[test]
fn features_and_best_refuse_bad_board_files_pieces_and_flags() {
    let wide = format!("{}\n", "X".repeat(1000));
    let tall = "X.........\n".repeat(1000);
    let files: Vec<(&str, &[u8])> = vec![
        ("boards.txt", BOARDS.as_bytes()),
        ("empty.txt", b""),
        ("comments.txt", b"; only a name\n\n\n"),
        ("binary.txt", BINARY),
        ("letters.txt", b"..........\nX...O.....\n"),
        ("short.txt", b"..........\nX....\n"),
        ("wide.txt", wide.as_bytes()),
        ("tall.txt", tall.as_bytes()),
        ("folder/", b""),
        ("nan.toml", b"holes = nan\n"),
    ];
    let features = |file: &str| with(&["features", "--preset", "dellacherie-simplified", file], &[]);
    let best = |extra: &[&str]| {
        let mut args = with(&["best", "--preset", "dellacherie-simplified", "--piece", "T"], extra);
        args.push("boards.txt".into());
        args
    };
    let mut cases = Vec::new();
    for (file, needle) in [
        ("no-such.txt", "no-such.txt"),
        ("folder", "folder"),
        ("empty.txt", "empty.txt"),
        ("comments.txt", "comments.txt"),
        ("binary.txt", "binary.txt"),
        ("letters.txt", "letters.txt"),
        ("short.txt", "short.txt"),
        ("wide.txt", "wide.txt"),
        ("tall.txt", "tall.txt"),
    ] {
        cases.push(refused(&features(file), needle));
        cases.push(refused(&["best", "--preset", "bcts", "--piece", "I", file], needle));
    }
    cases.extend([
        refused(&["features", "--preset", "nope", "boards.txt"], "preset"),
        refused(&["features", "--preset", "bcts", "--weights", "nan.toml", "boards.txt"], "nan.toml"),
        refused(&best(&["--weights", "nan.toml"]), "nan.toml"),
        refused(&["best", "--preset", "bcts", "--piece", "Q", "boards.txt"], "--piece"),
        refused(&["best", "--preset", "bcts", "--piece", "", "boards.txt"], "--piece"),
        refused(&["best", "--preset", "bcts", "--piece", "TT", "boards.txt"], "--piece"),
        refused(&best(&["--hold", "I"]), "--hold"),
        refused(&best(&["--preview", "I"]), "--preview"),
        refused(&["best", "--preset", "lee", "--piece", "T", "--hold", "I", "boards.txt"], "--hold"),
        refused(&["best", "--preset", "lee", "--piece", "T", "--preview", "Q", "boards.txt"], "--preview"),
        refused(
            &["best", "--preset", "lee", "--piece", "T", "--preview", "O", "--preview", "I", "boards.txt"],
            "looks at 1 preview piece only",
        ),
        refused(&["best", "--preset", "erikko", "--piece", "T", "--hold", "X", "boards.txt"], "--hold"),
        usage(&best(&["--format", "xml"]), "--format"),
    ]);
    battery(&files, cases);
}

const EXPERIMENT: &str = r#"preset = "dellacherie-simplified"
board = "10x10"
games = 2
seed = 1
[weights]
holes = { min = -10, max = 0 }
[fixed]
eroded_cells = 2
[optimizer]
kind = "cross-entropy"
population = 4
[budget]
generations = 1
"#;

const ETETRIS_EXPERIMENT: &str = r#"preset = "etetris"
games = 1
seed = 1
max_pieces = 10
[etetris]
beam = 2
[weights]
holes = { min = 0, max = 10 }
[optimizer]
kind = "nelder-mead"
[budget]
games = 2
"#;

#[test]
fn tune_refuses_bad_experiment_files_before_any_folder() {
    let edit = |from: &str, to: &str| {
        assert!(EXPERIMENT.contains(from), "{from:?}");
        EXPERIMENT.replacen(from, to, 1)
    };
    let etetris = |from: &str, to: &str| {
        assert!(ETETRIS_EXPERIMENT.contains(from), "{from:?}");
        ETETRIS_EXPERIMENT.replacen(from, to, 1)
    };
    let huge = "9223372036854775807";
    let pso = |extra: &str| edit("kind = \"cross-entropy\"\npopulation = 4", &format!("kind = \"pso\"\n{extra}"));
    // (file, text, what the error names)
    let experiments: Vec<(&str, String, &str)> = vec![
        ("huge-games.toml", edit("games = 2", &format!("games = {huge}")), "games"),
        ("huge-population.toml", edit("population = 4", &format!("population = {huge}")), "population"),
        ("huge-held-out.toml", edit("seed = 1", &format!("seed = 1\nheld_out_games = {huge}")), "held_out_games"),
        ("huge-reevaluation.toml", edit("seed = 1", &format!("seed = 1\nreevaluation_games = {huge}")), "reevaluation"),
        ("huge-particles.toml", pso(&format!("particles = {huge}")), "particles"),
        ("huge-per-generation.toml", edit("games = 2", "games = 10000000"), "per generation"),
        ("u64-overflow.toml", edit("games = 2", "games = 18446744073709551616"), "u64-overflow.toml"),
        ("negative-games.toml", edit("games = 2", "games = -1"), "negative-games.toml"),
        ("zero-games.toml", edit("games = 2", "games = 0"), "games"),
        ("float-games.toml", edit("games = 2", "games = 2.5"), "float-games.toml"),
        ("nan-games.toml", edit("games = 2", "games = nan"), "nan-games.toml"),
        ("text-games.toml", edit("games = 2", "games = \"2\""), "text-games.toml"),
        ("negative-seed.toml", edit("seed = 1", "seed = -1"), "negative-seed.toml"),
        ("duplicate.toml", edit("seed = 1", "seed = 1\nseed = 2"), "duplicate.toml"),
        ("unknown-key.toml", edit("seed = 1", "seed = 1\ngmes = 2"), "gmes"),
        ("unknown-nested.toml", edit("max = 0 }", "max = 0, step = 1 }"), "step"),
        ("unknown-budget.toml", edit("generations = 1", "generations = 1\ngeneration = 1"), "generation"),
        ("unknown-optimizer.toml", edit("population = 4", "population = 4\npopulaton = 4"), "populaton"),
        // The optimizer's table is read as a tagged enum, whose values toml cannot place:
        // the error still names the key.
        ("negative-population.toml", edit("population = 4", "population = -4"), "field `population`"),
        ("float-population.toml", edit("population = 4", "population = 4.5"), "field `population`"),
        ("text-population.toml", edit("population = 4", "population = \"4\""), "field `population`"),
        ("unknown-table.toml", format!("{EXPERIMENT}[extra]\nx = 1\n"), "extra"),
        ("unknown-kind.toml", edit("\"cross-entropy\"", "\"cross-entropi\""), "cross-entropy"),
        ("unknown-feature.toml", edit("eroded_cells = 2", "eroded_cell = 2"), "eroded_cell"),
        ("nan-fixed.toml", edit("eroded_cells = 2", "eroded_cells = nan"), "eroded_cells"),
        ("inf-fixed.toml", edit("eroded_cells = 2", "eroded_cells = inf"), "eroded_cells"),
        ("overflow-fixed.toml", edit("eroded_cells = 2", "eroded_cells = 1e400"), "overflow-fixed.toml"),
        ("huge-fixed.toml", edit("eroded_cells = 2", "eroded_cells = -1e300"), "eroded_cells"),
        ("nan-min.toml", edit("min = -10", "min = nan"), "holes"),
        ("huge-range.toml", edit("min = -10, max = 0", "min = -1e300, max = 1e300"), "holes"),
        ("inf-start.toml", edit("max = 0 }", "max = 0, start = inf }"), "holes"),
        ("reversed-range.toml", edit("min = -10, max = 0", "min = 5, max = 1"), "holes"),
        ("weight-not-table.toml", edit("holes = { min = -10, max = 0 }", "holes = 5"), "weight-not-table.toml"),
        ("both.toml", edit("eroded_cells = 2", "holes = 2"), "holes"),
        ("nan-elite.toml", edit("population = 4", "population = 4\nelite_fraction = nan"), "elite_fraction"),
        ("inf-variance.toml", edit("population = 4", "population = 4\ninitial_variance = inf"), "initial_variance"),
        ("nan-inertia.toml", pso("inertia = nan"), "inertia"),
        ("nan-sigma.toml", edit("kind = \"cross-entropy\"\npopulation = 4", "kind = \"cmaes\"\nsigma = nan"), "sigma"),
        (
            "nan-mutation.toml",
            edit("kind = \"cross-entropy\"\npopulation = 4", "kind = \"genetic\"\npopulation = 4\nmutation_rate = nan"),
            "mutation_rate",
        ),
        (
            "nan-step.toml",
            edit("kind = \"cross-entropy\"\npopulation = 4", "kind = \"nelder-mead\"\nstep = nan"),
            "step",
        ),
        ("zero-budget.toml", edit("generations = 1", "generations = 0"), "generations"),
        ("no-budget.toml", edit("generations = 1", ""), "budget"),
        ("zero-max-pieces.toml", edit("seed = 1", "seed = 1\nmax_pieces = 0"), "max_pieces"),
        ("zero-board.toml", edit("10x10", "0x0"), "board"),
        ("huge-board.toml", edit("10x10", "1000x1000"), "board"),
        ("bad-name.toml", edit("seed = 1", "seed = 1\nname = \"../escape\""), "name"),
        ("long-name.toml", edit("seed = 1", &format!("seed = 1\nname = \"{}\"", "n".repeat(300))), "name"),
        ("empty.toml", String::new(), "empty.toml"),
        ("huge-runs.toml", edit("seed = 1", &format!("seed = 1\nruns = {huge}")), "runs"),
        ("zero-runs.toml", edit("seed = 1", "seed = 1\nruns = 0"), "runs"),
        ("huge-beam.toml", etetris("beam = 2", "beam = 100000000"), "beam"),
        ("huge-held-out-beam.toml", etetris("beam = 2", "beam = 2\nheld_out_beam = 1000000000"), "held_out_beam"),
        ("unknown-etetris.toml", etetris("beam = 2", "beam = 2\nbeem = 3"), "beem"),
        ("etetris-pieces.toml", etetris("max_pieces = 10", "max_pieces = 99999999999"), "max_pieces"),
    ];
    let mut files: Vec<(&str, &[u8])> = experiments.iter().map(|(n, t, _)| (*n, t.as_bytes())).collect();
    files.extend([
        ("good.toml", EXPERIMENT.as_bytes()),
        ("binary.toml", BINARY),
        ("folder/", b""),
        ("not-a-run/", b""),
        ("broken-run/checkpoint.json", b"{\"format\": 1}"),
        ("nan-run/checkpoint.json", b"{\"format\": NaN}"),
    ]);
    let mut cases: Vec<Case> = experiments.iter().map(|(name, _, needle)| refused(&["tune", name], needle)).collect();
    cases.extend([
        refused(&["tune", "binary.toml"], "binary.toml"),
        refused(&["tune", "folder"], "folder"),
        refused(&["tune", "no-such.toml"], "no-such.toml"),
        // Every file is checked before the first is run.
        refused(&["tune", "good.toml", "huge-games.toml"], "huge-games.toml"),
        refused(&["tune", "good.toml", "--threads", "0"], "--threads"),
        refused(&["tune", "good.toml", "--runs", "0"], "--runs"),
        refused(&["tune", "good.toml", "--runs", "18446744073709551615"], "--runs"),
        refused(&["tune", "good.toml", "--out", "good.toml"], "good.toml"),
        usage(&["tune", "good.toml", "--threads", "many"], "--threads"),
        refused(&["tune", "--resume", "not-a-run"], "not-a-run"),
        refused(&["tune", "--resume", "no-such-run"], "no-such-run"),
        refused(&["tune", "--resume", "broken-run"], "broken-run"),
        usage(&["tune", "--resume", "broken-run", "--out", "elsewhere"], "--out"),
        refused(&["tune", "--resume", "nan-run"], "nan-run"),
        refused(&["tune", "--resume", "good.toml"], "good.toml"),
    ]);
    battery(&files, cases);
}

#[test]
fn tune_resume_refuses_forged_checkpoints() {
    // A real run folder, made by a tiny campaign.
    let made = tempfile::tempdir().unwrap();
    std::fs::write(made.path().join("tiny.toml"), EXPERIMENT.replace("games = 2", "games = 1\nmax_pieces = 20"))
        .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_tetris-lab"))
        .args(["tune", "tiny.toml", "--out", "results", "--threads", "1"])
        .current_dir(made.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let run = std::fs::read_dir(made.path().join("results/tiny")).unwrap().next().unwrap().unwrap().path();
    let run_files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&run)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    let checkpoint: serde_json::Value =
        serde_json::from_slice(&std::fs::read(run.join("checkpoint.json")).unwrap()).unwrap();
    let forged = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut c = checkpoint.clone();
        // Resumable: more generations to go.
        let text = c["experiment_text"].as_str().unwrap().replace("generations = 1", "generations = 3");
        c["experiment_text"] = text.into();
        c["tuning_done"] = false.into();
        edit(&mut c);
        // Sealed again, so that what is refused is the edit itself, not the checksum.
        c["checksum"] = tetris_lab::tune::driver::checkpoint_checksum(&c).into();
        serde_json::to_vec(&c).unwrap()
    };
    // An edit that is not sealed again.
    let unsealed = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut c = checkpoint.clone();
        edit(&mut c);
        serde_json::to_vec(&c).unwrap()
    };
    let variants: Vec<(&str, Vec<u8>, &str)> = vec![
        ("long-mean", forged(&|c| c["optimizer"]["mean"] = serde_json::json!([1.0, 2.0])), "optimizer.mean"),
        ("huge-population", forged(&|c| c["optimizer"]["options"]["population"] = u64::MAX.into()), "options"),
        ("huge-variance", forged(&|c| c["optimizer"]["variance"][0] = 1e300.into()), "variance"),
        ("short-incumbent", forged(&|c| c["incumbent"]["point"] = serde_json::json!([])), "incumbent"),
        ("other-optimizer", forged(&|c| c["optimizer"] = serde_json::json!({"simplex": []})), "checkpoint.json"),
        ("format", forged(&|c| c["format"] = 99.into()), "format"),
        ("long-logs", forged(&|c| c["generations_csv_bytes"] = u64::MAX.into()), "generations.csv"),
        ("bad-experiment", forged(&|c| c["experiment_text"] = "games = 0".into()), "checkpoint.json"),
        ("not-json", b"{ \"format\": ".to_vec(), "checkpoint.json"),
        // Edits the checksum catches: a digit of the optimizer's state, the generation.
        ("edited-state", unsealed(&|c| c["optimizer"]["mean"][0] = 0.125.into()), "checksum does not match"),
        ("edited-generation", unsealed(&|c| c["generation"] = 999.into()), "checksum does not match"),
        ("no-checksum", unsealed(&|c| drop(c.as_object_mut().unwrap().remove("checksum"))), "no checksum"),
        // Sealed edits the logs give away: the counts of the last generation logged.
        ("later-generation", forged(&|c| c["generation"] = 999.into()), "1 generations logged"),
        ("fewer-pieces", forged(&|c| c["pieces"] = 5.into()), "pieces"),
        ("more-games", forged(&|c| c["games"] = (c["games"].as_u64().unwrap() + 1).into()), "games"),
        (
            "old-format-later-generation",
            unsealed(&|c| {
                c["format"] = 1.into();
                c.as_object_mut().unwrap().remove("checksum");
                c["generation"] = 7.into();
            }),
            "1 generations logged",
        ),
    ];
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for (folder, checkpoint, _) in &variants {
        for (name, content) in &run_files {
            let content = if name == "checkpoint.json" { checkpoint.clone() } else { content.clone() };
            files.push((format!("{folder}/{name}"), content));
        }
    }
    // A resumable checkpoint beside a manifest that is not a JSON object.
    let resumable = forged(&|_| {});
    for (name, content) in &run_files {
        let content = match name.as_str() {
            "checkpoint.json" => resumable.clone(),
            "manifest.json" => b"[1]".to_vec(),
            _ => content.clone(),
        };
        files.push((format!("array-manifest/{name}"), content));
    }
    // What a run killed in its first milliseconds leaves: a manifest and a cut temporary.
    files.push(("early/manifest.json".into(), b"{}".to_vec()));
    files.push(("early/.checkpoint.json.partial-AbC123.json".into(), b"{ \"format\"".to_vec()));
    let files: Vec<(&str, &[u8])> = files.iter().map(|(n, c)| (n.as_str(), c.as_slice())).collect();
    let mut cases: Vec<Case> =
        variants.iter().map(|(folder, _, needle)| refused(&["tune", "--resume", folder], needle)).collect();
    cases.push(refused(&["tune", "--resume", "array-manifest"], "manifest.json"));
    cases.push(refused(&["tune", "--resume", "early"], "stopped before its first checkpoint"));
    battery(&files, cases);
}

/// Every file under `dir`, by its path relative to `dir`.
fn files_under(dir: &Path) -> Vec<(String, Vec<u8>)> {
    snapshot(dir)
        .into_iter()
        .filter_map(|(path, content)| Some((path.strip_prefix(dir).unwrap().display().to_string(), content?)))
        .collect()
}

#[test]
fn tune_resume_refuses_forged_studies() {
    let made = tempfile::tempdir().unwrap();
    let tiny = EXPERIMENT.replace("games = 2", "games = 1\nmax_pieces = 20\nheld_out_games = 1");
    std::fs::write(made.path().join("tiny.toml"), tiny).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_tetris-lab"))
        .args(["tune", "tiny.toml", "--runs", "2", "--out", "results", "--threads", "1"])
        .current_dir(made.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let study = std::fs::read_dir(made.path().join("results/studies")).unwrap().next().unwrap().unwrap().path();
    let study_files = files_under(&study);
    let original: serde_json::Value =
        serde_json::from_slice(&std::fs::read(study.join("study.json")).unwrap()).unwrap();
    let forged = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut s = original.clone();
        edit(&mut s);
        serde_json::to_vec(&s).unwrap()
    };
    let variants: Vec<(&str, Vec<u8>, &str)> = vec![
        ("escape", forged(&|s| s["experiments"][0]["name"] = "../../escape".into()), "../../escape"),
        ("zero-runs", forged(&|s| s["experiments"][0]["runs"] = 0.into()), "runs"),
        ("huge-runs", forged(&|s| s["experiments"][0]["runs"] = u64::MAX.into()), "runs"),
        ("bad-text", forged(&|s| s["experiments"][0]["text"] = "games = [".into()), "study.json"),
        ("format", forged(&|s| s["format"] = 99.into()), "format"),
        ("not-json", b"[".to_vec(), "study.json"),
        ("no-experiments", forged(&|s| s["experiments"] = serde_json::json!([])), "no experiments"),
        ("fewer-runs", forged(&|s| s["experiments"][0]["runs"] = 1.into()), "holds run-02"),
        ("unknown-key", forged(&|s| s["experimets"] = serde_json::json!([])), "experimets"),
    ];
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for (folder, study_json, _) in &variants {
        for (name, content) in &study_files {
            let content = if name == "study.json" { study_json.clone() } else { content.clone() };
            files.push((format!("{folder}/{name}"), content));
        }
    }
    let files: Vec<(&str, &[u8])> = files.iter().map(|(n, c)| (n.as_str(), c.as_slice())).collect();
    let cases = variants.iter().map(|(folder, _, needle)| refused(&["tune", "--resume", folder], needle)).collect();
    battery(&files, cases);
}

const GENERATIONS_HEADER: &str = "generation,candidates,best,mean,best_so_far,incumbent_mean,incumbent_low,\
                                  incumbent_high,incumbent_games,evaluations,games,pieces,fitness,seconds\n";

#[test]
fn plot_refuses_bad_generation_logs_and_output_paths() {
    let row = |mean: &str| format!("{GENERATIONS_HEADER}1,4,30,{mean},30,25,20,30,2,4,8,1000,rows,0.5\n");
    let runs: Vec<(&str, String, &str)> = vec![
        ("nan", row("NaN"), "NaN"),
        ("inf", row("inf"), "inf"),
        ("minus-inf", row("-inf"), "-inf"),
        ("overflow", row("1e400"), "1e400"),
        ("huge", row("1e300"), "1e300"),
        ("text", row("many"), "many"),
        ("empty-field", row(""), "generations.csv"),
        ("short-row", format!("{GENERATIONS_HEADER}1,4,30\n"), "generations.csv"),
        ("no-column", "generation,best\n1,3\n".to_string(), "pieces"),
        ("header-only", GENERATIONS_HEADER.to_string(), "fitness.png"),
        ("empty", String::new(), "generations.csv"),
    ];
    let paths: Vec<String> = runs.iter().map(|(name, _, _)| format!("{name}/generations.csv")).collect();
    let mut files: Vec<(&str, &[u8])> =
        runs.iter().zip(&paths).map(|((_, text, _), path)| (path.as_str(), text.as_bytes())).collect();
    let good = row("25");
    files.extend([
        ("binary/generations.csv", BINARY),
        ("good/generations.csv", good.as_bytes()),
        ("good/fitness.png", b"an existing plot"),
        ("binary-held-out/generations.csv", good.as_bytes()),
        ("binary-held-out/held_out.csv", BINARY),
        ("picture.png/", b""),
        ("not-a-run/", b""),
        ("a-file", b"text"),
        ("folder-as-log/generations.csv/", b""),
    ]);
    let mut cases: Vec<Case> = runs.iter().map(|(name, _, needle)| refused(&["plot", name], needle)).collect();
    cases.extend([
        refused(&["plot", "binary"], "binary/generations.csv"),
        refused(&["plot", "binary-held-out"], "binary-held-out/held_out.csv"),
        refused(&["plot", "not-a-run"], "not-a-run"),
        refused(&["plot", "no-such-run"], "no-such-run"),
        refused(&["plot", "a-file"], "a-file"),
        refused(&["plot", "folder-as-log"], "folder-as-log"),
        refused(&["plot", "good", "nan"], "nan/generations.csv"),
        refused(&["plot", "good", "--image", "plot.jpg"], "plot.jpg"),
        refused(&["plot", "good", "--image", "picture.png"], "picture.png"),
        refused(&["plot", "good", "--image", "no-such/plot.svg"], "plot.svg"),
        usage(&["plot"], "required arguments"),
    ]);
    battery(&files, cases);
}

#[test]
fn etetris_commands_refuse_bad_records_weights_and_counts() {
    const WEIGHTS: &str =
        "cells = -1.0\nrow_transitions = 3.2\ncolumn_transitions = 9.3\nholes = 7.9\nscore_divisor = 38.0\n";
    let holes = |v: &str| WEIGHTS.replace("holes = 7.9", &format!("holes = {v}"));
    let records: Vec<(&str, &str, &str)> = vec![
        ("empty.txt", "", "empty.txt"),
        ("no-new.txt", "L3,D19", "no-new.txt"),
        ("zero-count.txt", "N,L0,D19", "L0"),
        ("huge-count.txt", "N,D99999999999999999999", "D99999999999999999999"),
        ("negative.txt", "N,L-1,D19", "L-1"),
        ("unknown-op.txt", "N,X3", "X3"),
        ("empty-token.txt", "N,,D19", "token 2"),
        ("too-many-steps.txt", "N,D101", "101 steps"),
        ("no-steps.txt", "N,N,D19", "0 steps"),
        ("count-on-new.txt", "N5,D19", "N5"),
        ("javascript.txt", "game.playRecord('N,D19,Q'.split(','))", "Q"),
        ("spaces.txt", "N, D 19", "D 19"),
    ];
    let weights: Vec<(&str, String, &str)> = vec![
        ("nan.toml", holes("nan"), "holes"),
        ("inf.toml", holes("inf"), "holes"),
        ("overflow.toml", holes("1e400"), "overflow.toml"),
        ("huge.toml", holes("1e300"), "holes"),
        ("text.toml", holes("\"7\""), "holes"),
        ("unknown.toml", format!("{WEIGHTS}hole = 1\n"), "hole"),
        ("extra-nan.toml", format!("{WEIGHTS}wells = nan\n"), "wells"),
        ("missing.toml", WEIGHTS.replace("cells = -1.0\n", ""), "cells"),
        ("zero-divisor.toml", WEIGHTS.replace("38.0", "0"), "score_divisor"),
        ("negative-divisor.toml", WEIGHTS.replace("38.0", "-1"), "score_divisor"),
        ("duplicate.toml", format!("{WEIGHTS}holes = 1\n"), "duplicate.toml"),
        ("syntax.toml", "holes = = 1\n".to_string(), "syntax.toml"),
        ("table.toml", format!("[weights]\n{WEIGHTS}"), "weights"),
        ("empty.toml", String::new(), "empty.toml"),
    ];
    let mut files: Vec<(&str, &[u8])> = records.iter().map(|(n, t, _)| (*n, t.as_bytes())).collect();
    files.extend(weights.iter().map(|(n, t, _)| (*n, t.as_bytes())));
    files.extend([("binary.txt", BINARY), ("binary.toml", BINARY), ("folder/", b""), ("keep.txt", b"N,D19\n")]);
    files.push(("good.toml", WEIGHTS.as_bytes()));
    files.push(("record.png", b"N,D19\n"));
    let mut cases: Vec<Case> =
        records.iter().map(|(name, _, needle)| refused(&["etetris", "replay", name], needle)).collect();
    cases.extend([
        refused(&["etetris", "replay", "binary.txt"], "binary.txt"),
        refused(&["etetris", "replay", "folder"], "folder"),
        refused(&["etetris", "replay", "no-such.txt"], "no-such.txt"),
    ]);
    let solve = |extra: &[&str]| {
        with_defaults(&["etetris", "solve"], &[("--beam", "2"), ("--max-pieces", "5"), ("--record", "keep.txt")], extra)
    };
    for (name, _, needle) in &weights {
        cases.push(refused(&solve(&["--weights", name]), needle));
    }
    cases.extend([
        refused(&solve(&["--weights", "binary.toml"]), "binary.toml"),
        refused(&solve(&["--weights", "folder"]), "folder"),
        refused(&solve(&["--beam", "0"]), "--beam"),
        refused(&solve(&["--beam", "18446744073709551615"]), "--beam"),
        refused(&solve(&["--max-pieces", "0"]), "--max-pieces"),
        refused(&solve(&["--max-pieces", "10001"]), "--max-pieces"),
        refused(&solve(&["--lookahead", "17"]), "--lookahead"),
        refused(&solve(&["--lookahead", "2", "--lookahead-blend", "101"]), "--lookahead-blend"),
        refused(&solve(&["--lookahead-blend", "50"]), "--lookahead-blend"),
        refused(&solve(&["--endgame", "10001"]), "--endgame"),
        refused(&solve(&["--lookahead", "2", "--second-ply", "17"]), "--second-ply"),
        refused(&solve(&["--second-ply", "2"]), "--second-ply"),
        refused(&solve(&["--phase-quota", "101"]), "--phase-quota"),
        refused(&solve(&["--phase-quota", "50", "--phase-pool", "17"]), "--phase-pool"),
        refused(&solve(&["--phase-pool", "2"]), "--phase-quota"),
        usage(&solve(&["--phase-quota=-1"]), "--phase-quota"),
        usage(&solve(&["--phase-quota", "20", "--phase-pool", "0"]), "--phase-pool"),
        usage(&solve(&["--beem", "10"]), "'--beam'"),
        refused(&solve(&["--jitter", "1", "--jitter-percent", "0"]), "--jitter-percent"),
        refused(&solve(&["--jitter", "1", "--jitter-percent", "NaN"]), "--jitter-percent"),
        refused(&solve(&["--jitter", "1", "--jitter-percent", "51"]), "--jitter-percent"),
        refused(&solve(&["--jitter-percent", "2"]), "--jitter"),
        usage(&solve(&["--jitter=-1"]), "--jitter"),
        usage(&solve(&["--pieces=-1"]), "--max-pieces"),
        usage(&solve(&["--moves", "all"]), "--moves"),
        refused(&["etetris", "solve", "--beam", "2", "--max-pieces", "5", "--record", "folder"], "folder"),
        refused(&["etetris", "solve", "--beam", "2", "--max-pieces", "5", "--record", "keep.txt/x.txt"], "keep.txt"),
        refused(&["etetris", "bench", "--beams", "0", "--max-pieces", "5"], "--beam"),
        refused(&["etetris", "polish", "no-such.txt", "--record", "out.txt"], "no-such.txt"),
        refused(&["etetris", "polish", "keep.txt", "--record", "./keep.txt"], "is the record being polished"),
        refused(&["etetris", "polish", "keep.txt", "--record", "good.toml", "--weights", "good.toml"], "is the --weights file"),
        refused(
            &solve(&["--weights", "good.toml", "--record", "good.toml"]),
            "--record good.toml is the --weights file",
        ),
        refused(&["etetris", "replay", "keep.txt", "--png", "keep.txt"], "--png keep.txt: the file name must end in .png"),
        refused(&["etetris", "replay", "record.png", "--png", "./record.png"], "--png ./record.png is the record replayed"),
        refused(
            &["etetris", "replay", "keep.txt", "--png", "out.png", "--gif", "out.png"],
            "--gif out.png: the file name must end in .gif",
        ),
        refused(
            &["etetris", "versus", "good.toml", "seed", "--beam", "2", "--max-pieces", "5", "--csv", "good.toml"],
            "side A's weights",
        ),
        usage(&["etetris", "versus", "seed", "seed", "--beam", "2", "--max-pieces", "5", "--checkpoint-every", "5"], "--csv <CSV>"),
        // A side's flags are parsed as the command's: clap's message and its tip, on one line.
        refused(
            &["etetris", "versus", "seed", "seed --lookahed 2", "--beam", "2", "--max-pieces", "5"],
            "side B (\"seed --lookahed 2\"): unexpected argument '--lookahed' found; tip: a similar argument exists: '--lookahead'",
        ),
        usage(&["etetris", "solve", "--bem", "3"], "unexpected argument '--bem' found; tip: a similar argument exists: '--beam' (see --help)"),
        refused(&["etetris", "polish", "folder", "--record", "out.txt"], "folder"),
        refused(&["etetris", "polish", "binary.txt", "--record", "out.txt"], "binary.txt"),
        refused(&["etetris", "polish", "unknown-op.txt", "--record", "out.txt"], "X3"),
        refused(&["etetris", "polish", "keep.txt", "--record", "out.txt", "--beam", "0"], "--beam"),
        refused(&["etetris", "polish", "keep.txt", "--record", "out.txt", "--window", "0"], "--window"),
        refused(&["etetris", "polish", "keep.txt", "--record", "out.txt", "--window", "10001"], "--window"),
        refused(&["etetris", "polish", "keep.txt", "--record", "out.txt", "--stride", "0"], "--stride"),
        refused(&["etetris", "polish", "keep.txt", "--record", "out.txt", "--guide", "NaN"], "--guide"),
        refused(&["etetris", "polish", "keep.txt", "--record", "out.txt", "--from", "1"], "--from"),
        usage(&["etetris", "polish", "keep.txt", "--record", "out.txt", "--from=-1"], "--from"),
        refused(&["etetris", "polish", "keep.txt", "--record", "out.txt", "--guide=-1"], "--guide"),
        usage(&["etetris", "polish", "keep.txt", "--record", "out.txt", "--guide", "much"], "--guide"),
        refused(&["etetris", "polish", "keep.txt", "--record", "out.txt", "--weights", "nan.toml"], "holes"),
        refused(&["etetris", "polish", "keep.txt", "--record", "out.txt", "--second-ply", "2"], "--second-ply"),
        refused(&["etetris", "polish", "keep.txt", "--record", "keep.txt"], "keep.txt"),
        refused(&["etetris", "polish", "keep.txt", "--record", "./keep.txt"], "keep.txt"),
        refused(&["etetris", "polish", "keep.txt", "--record", "folder"], "folder"),
        usage(&["etetris", "polish", "keep.txt", "--window=-1"], "--window"),
        usage(&["etetris", "polish"], "required arguments"),
        refused(&["etetris", "bench", "--beams", "2,1000000000", "--max-pieces", "5"], "--beam"),
        refused(&["etetris", "bench", "--beams", "2", "--max-pieces", "0"], "--max-pieces"),
        refused(&["bench", "--seconds", "1e20", "--games", "2"], "--seconds"),
        refused(&["bench", "--seconds", "86401", "--games", "2"], "--seconds"),
        refused(&["etetris", "bench", "--beams", "2", "--max-pieces", "5", "--thread-counts", "0"], "--thread-counts"),
        // `--threads` means one thing everywhere: at least 1, all cores when not given.
        refused(&["etetris", "solve", "--beam", "2", "--max-pieces", "5", "--threads", "0"], "--threads must be at least 1"),
        refused(&["etetris", "polish", "keep.txt", "--threads", "0"], "--threads must be at least 1"),
        refused(&["compare", "bcts", "bcts", "--threads", "0"], "--threads must be at least 1"),
        refused(&["etetris", "splice", "keep.txt", "keep.txt", "--bridge", "--threads", "0"], "--threads must be at least 1"),
        refused(&["etetris", "bench", "--beams", "2", "--max-pieces", "5", "--thread-counts", "100000,200000"], "--thread-counts"),
        refused(&["etetris", "bench", "--beams", "2", "--max-pieces", "5", "--weights", "nan.toml"], "nan.toml"),
        usage(&["bench", "tetris"], "tetris"),
        refused(&["etetris", "sequence", "--max-pieces", "0"], "--max-pieces"),
        refused(&["etetris", "sequence", "--max-pieces", "18446744073709551615"], "--max-pieces"),
        usage(&["etetris", "sequence", "--max-pieces", "-1"], "-1"),
        usage(&["etetris", "sequence", "tetris"], "tetris"),
    ]);
    battery(&files, cases);
}

#[test]
fn reproduce_refuses_bad_presets_and_counts_before_its_folder() {
    let files: Vec<(&str, &[u8])> = vec![("a-file", b"text")];
    let quick = |extra: &[&str]| with(&["reproduce", "dellacherie-simplified", "--quick", "--out", "out"], extra);
    let cases = vec![
        refused(&["reproduce", "dellacherie-simplifed", "--out", "out"], "dellacherie-simplified"),
        refused(&quick(&["--games", "0"]), "--games"),
        refused(&quick(&["--games", "18446744073709551615"]), "--games"),
        usage(&quick(&["--heights", "9..10"]), "three heights"),
        usage(&quick(&["--heights", "8-14"]), "LOW..HIGH"),
        usage(&quick(&["--heights", "8..1000"]), "board height"),
        refused(&["reproduce", "--resume", "a-file"], "manifest.json"),
        refused(&["reproduce", "--resume", "no-such-folder"], "manifest.json"),
        usage(&["reproduce", "--resume", "out", "bcts"], "--resume"),
        refused(&quick(&["--threads", "0"]), "--threads"),
        usage(&quick(&["--board", "0x0"]), "board"),
        usage(&quick(&["--board", "1000x1000"]), "board"),
        usage(&quick(&["--seed", "-1"]), "-1"),
        refused(
            &["reproduce", "dellacherie-simplified", "--games", "1", "--heights", "4..6", "--out", "a-file"],
            "a-file",
        ),
    ];
    battery(&files, cases);
}

#[test]
fn extrapolate_refuses_bad_game_files_and_heights() {
    let play = "game,seed,lines,pieces,score,end,level\n0,1,10,30,0,game_over,\n1,2,14,40,0,game_over,\n";
    let capped = "game,seed,lines,pieces,score,end,level\n0,1,10,30,0,game_over,\n1,2,14,40,0,piece_cap,\n";
    let games = "measurement,preset,board,seed,lines,pieces,score,end\n\
                 1,bcts,10x6,1,10,30,0,game_over\n1,bcts,10x6,2,12,35,0,game_over\n\
                 1,bcts,10x7,1,20,55,0,game_over\n1,bcts,10x7,2,30,80,0,game_over\n\
                 1,bcts,10x8,1,50,130,0,game_over\n1,bcts,10x8,2,70,180,0,game_over\n";
    let bad_number = "game,seed,lines,pieces,score,end,level\n0,1,ten,30,0,game_over,\n";
    // 30 pieces bring 120 cells: 12 rows of 10 at most.
    let too_many_rows = "game,seed,lines,pieces,score,end,level\n0,1,13,30,0,game_over,\n";
    let bad_board = "measurement,preset,board,seed,lines,pieces,score,end\n1,bcts,10by6,1,10,30,0,game_over\n";
    let bad_end = play.replace("1,2,14,40,0,game_over", "1,2,14,40,0,exploded");
    let bad_preset = games.replace("1,bcts,10x7,2", "1,bctss,10x7,2");
    let two_presets = games.replace("1,bcts,10x7,2", "1,lee,10x7,2");
    let files: Vec<(&str, &[u8])> = vec![
        ("end.csv", bad_end.as_bytes()),
        ("preset.csv", bad_preset.as_bytes()),
        ("two-presets.csv", two_presets.as_bytes()),
        ("play.csv", play.as_bytes()),
        ("capped.csv", capped.as_bytes()),
        ("games.csv", games.as_bytes()),
        ("number.csv", bad_number.as_bytes()),
        ("rows.csv", too_many_rows.as_bytes()),
        ("board.csv", bad_board.as_bytes()),
        ("binary.csv", BINARY),
        ("empty.csv", b""),
    ];
    let to = |extra: &[&str]| with(&["extrapolate", "games.csv", "--to", "12"], extra);
    let cases = vec![
        refused(&["extrapolate", "missing.csv", "--to", "12"], "missing.csv"),
        refused(&["extrapolate", "play.csv", "--to", "12"], "10x12=play.csv"),
        refused(&["extrapolate", "10x6=number.csv", "--to", "12"], "number.csv, line 2"),
        refused(&["extrapolate", "board.csv", "--to", "12"], "board.csv, line 2"),
        refused(&["extrapolate", "10x6=binary.csv", "--to", "12"], "binary.csv"),
        refused(&["extrapolate", "10x6=empty.csv", "--to", "12"], "empty.csv"),
        refused(&["extrapolate", "10x6=play.csv", "10x7=capped.csv", "10x8=play.csv", "--to", "12"], "piece cap"),
        refused(&["extrapolate", "10x6=play.csv", "10x7=play.csv", "--to", "12"], "three heights"),
        refused(&to(&["--preset", "bct"]), "did you mean \"bcts\""),
        refused(&["extrapolate", "10x6=play.csv", "--to", "12", "--preset", "bctss"], "did you mean \"bcts\""),
        refused(
            &["extrapolate", "10x6=play.csv", "10x7=play.csv", "10x8=play.csv", "--to", "12", "--row", "2"],
            "--row",
        ),
        refused(&["extrapolate", "10x6=end.csv", "--to", "12"], "end.csv, line 3: end \"exploded\""),
        refused(&["extrapolate", "preset.csv", "--to", "12"], "preset.csv, line 5"),
        refused(&["extrapolate", "two-presets.csv", "--to", "12"], "2 presets"),
        refused(&["extrapolate", "10y6=play.csv", "--to", "12"], "10y6"),
        refused(&to(&["--row", "2"]), "table row(s) 2"),
        usage(&to(&["--row", "two"]), "--row"),
        refused(&to(&["--from", "8", "--through", "6"]), "empty"),
        refused(&to(&["--through", "12"]), "below the target"),
        refused(&to(&["--metric", "score"]), "--metric"),
        refused(&["extrapolate", "games.csv", "--to", "0"], "--to"),
        refused(&["extrapolate", "games.csv", "--to", "100000"], "--to 100000 is not a board height"),
        refused(&to(&["--from", "0"]), "--from 0 is not a board height"),
        refused(&to(&["--through", "45"]), "--through 45 is not a board height"),
        refused(&["extrapolate", "10x6=rows.csv", "--to", "12"], "rows.csv, line 2: 13 rows from 30 pieces"),
        usage(&["extrapolate", "games.csv"], "required arguments"),
        usage(&["extrapolate", "--to", "12"], "required arguments"),
    ];
    battery(&files, cases);
}

/// A whole recorded game (it topped out) and a short one, made by the program.
fn recorded_frames(dir: &Path) -> (Vec<u8>, Vec<u8>) {
    let record = |name: &str, args: &[&str]| {
        let path = dir.join(name);
        let mut all = vec!["watch", "--delay-ms", "0", "--frames", path.to_str().unwrap()];
        all.extend(args);
        let o = common::run(&all);
        assert!(o.status.success(), "{}", common::stderr(&o));
        std::fs::read(&path).unwrap()
    };
    (record("whole.frames", &["--level", "30"]), record("short.frames", &["--max-pieces", "2"]))
}

#[test]
fn watch_refuses_bad_frames_files_and_keeps_the_output() {
    let made = tempfile::tempdir().unwrap();
    let (whole, short) = recorded_frames(made.path());
    let text = String::from_utf8(short.clone()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let first_frame = lines.iter().position(|l| l.starts_with("1 ")).unwrap();
    let with_line = |index: usize, line: &str| {
        let mut edited: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        edited[index] = line.to_string();
        edited.join("\n") + "\n"
    };
    let mut after_end = whole.clone();
    let frames_played = String::from_utf8_lossy(&whole).lines().filter(|l| !l.starts_with('#')).count() - 1;
    after_end.extend(format!("{} -\n", frames_played + 1).into_bytes());
    // Cut in half: a kill while a copy was made, say.
    let cut = lines[..lines.len() / 2].join("\n") + "\n";
    let bad: Vec<(&str, String, &str)> = vec![
        ("no-header.frames", "1 -\n".into(), "header"),
        ("level-zero.frames", with_line(1, "seed 1 level 0 rules guideline"), "level"),
        ("level-huge.frames", with_line(1, "seed 1 level 4294967296 rules guideline"), "level"),
        ("seed-negative.frames", with_line(1, "seed -1 level 1 rules guideline"), "seed"),
        ("rules.frames", with_line(1, "seed 1 level 1 rules standard"), "rules"),
        ("unknown-key.frames", with_line(first_frame, "1 jump"), "jump"),
        ("gap.frames", with_line(first_frame, "7 -"), "frame 7"),
        ("frame-huge.frames", with_line(first_frame, "99999999999999999999999 -"), "frame number"),
        ("columns.frames", with_line(first_frame, "1 - T 0"), "columns"),
        ("no-keys.frames", with_line(first_frame, "1"), "keys"),
        ("tampered.frames", with_line(first_frame, "1 - Z 0 3 20 0 1 0"), "differs"),
        ("empty.frames", String::new(), "header"),
    ];
    let mut files: Vec<(&str, &[u8])> = bad.iter().map(|(n, t, _)| (*n, t.as_bytes())).collect();
    files.extend([
        ("after-end.frames", after_end.as_slice()),
        ("cut.frames", cut.as_bytes()),
        ("keep.frames", short.as_slice()),
        ("binary.frames", BINARY),
        ("folder/", b""),
    ]);
    let replay = |file: &str| with(&["watch", "--delay-ms", "0", "--replay", file, "--frames", "keep.frames"], &[]);
    let mut cases: Vec<Case> = bad.iter().map(|(name, _, needle)| refused(&replay(name), needle)).collect();
    cases.extend([
        refused(&replay("after-end.frames"), "a frame after the end line"),
        refused(&replay("cut.frames"), "cut short"),
        refused(&replay("binary.frames"), "binary.frames"),
        refused(&replay("folder"), "folder"),
        refused(&replay("no-such.frames"), "no-such.frames"),
        refused(&["watch", "--preset", "dellacheri", "--delay-ms", "0"], "did you mean \"dellacherie\""),
        refused(&["watch", "--level", "0", "--delay-ms", "0"], "--level"),
        refused(&["watch", "--level", "31", "--delay-ms", "0"], "--level"),
        refused(&["watch", "--delay-ms", "18446744073709551615"], "--delay-ms"),
        refused(&["watch", "--delay-ms", "0", "--max-pieces", "0"], "--max-pieces"),
        refused(&["watch", "--delay-ms", "0", "--max-pieces", "2", "--frames", "folder"], "folder"),
        refused(&["watch", "--delay-ms", "0", "--max-pieces", "2", "--frames", "no-such/x.frames"], "x.frames"),
        usage(&["watch", "--seed", "1", "--replay", "keep.frames"], "--seed"),
        usage(&["watch", "--preset", "lee", "--replay", "keep.frames"], "--preset"),
    ]);
    battery(&files, cases);
}

/// A short game trace made by the program (bcts on 10x10, 12 moves).
fn recorded_trace(dir: &Path) -> String {
    let path = dir.join("game.trace");
    let args = ["play", "--preset", "bcts", "--board", "10x10", "--games", "1", "--max-pieces", "12", "--trace"];
    let o = common::run(&with(&args, &[path.to_str().unwrap()]).iter().map(String::as_str).collect::<Vec<_>>());
    assert!(o.status.success(), "{}", common::stderr(&o));
    std::fs::read_to_string(&path).unwrap()
}

#[test]
fn watch_and_play_refuse_bad_traces_games_and_pictures() {
    let made = tempfile::tempdir().unwrap();
    let trace = recorded_trace(made.path());
    let (_, short_frames) = recorded_frames(made.path());
    let lines: Vec<&str> = trace.lines().collect();
    let first_move = lines.iter().position(|l| l.starts_with("1 ")).unwrap();
    let with_line = |index: usize, line: &str| {
        let mut edited: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        edited[index] = line.to_string();
        edited.join("\n") + "\n"
    };
    let cut = lines[..lines.len() - 1].join("\n") + "\n";
    let bad: Vec<(&str, String, &str)> = vec![
        ("no-game.trace", "# tetris-lab trace v1\n".into(), "no game line"),
        ("game-line.trace", with_line(1, "preset bcts board 10x10 seed 1 game 0"), "line 2: expected the game line"),
        (
            "unknown-preset.trace",
            with_line(1, "preset bctss rules simplified board 10x10 seed 1 game 0"),
            "did you mean \"bcts\"",
        ),
        (
            "unknown-rules.trace",
            with_line(1, "preset bcts rules simplifed board 10x10 seed 1 game 0"),
            "did you mean \"simplified\"",
        ),
        ("board.trace", with_line(1, "preset bcts rules simplified board 0x10 seed 1 game 0"), "line 2: board"),
        ("seed.trace", with_line(1, "preset bcts rules simplified board 10x10 seed -1 game 0"), "line 2: seed"),
        ("weights-nan.trace", with_line(2, "weights holes=nan"), "line 3: weight \"holes\""),
        ("weights-pair.trace", with_line(2, "weights holes"), "line 3: weight \"holes\" is not feature=weight"),
        ("weights-other.trace", with_line(2, "weights mike_holes=1"), "mike_holes"),
        ("weights-missing.trace", with_line(2, "weights holes=1"), "no weight for feature"),
        ("piece.trace", with_line(first_move, "1 Q no 0 0 0 0"), "piece \"Q\""),
        ("gap.trace", with_line(first_move, "5 T no 0 0 0 0"), "move 5 where move 1"),
        ("columns.trace", with_line(first_move, "1 T no 0"), "4 columns"),
        ("differs.trace", with_line(first_move, "1 T no 0 -5 0 0"), "line 5: the replayed game differs"),
        ("cut.trace", cut, "no end line"),
        ("end.trace", trace.replace("end piece_cap", "end game_over"), "goes on after the recorded end"),
    ];
    let mut files: Vec<(&str, &[u8])> = bad.iter().map(|(n, t, _)| (*n, t.as_bytes())).collect();
    let lee_weights = "aggregate_height = -0.5\ncomplete_lines = 0.7\nholes = -0.3\nbumpiness = -0.1\n";
    files.extend([
        ("good.trace", trace.as_bytes()),
        ("short.frames", short_frames.as_slice()),
        ("lee.toml", lee_weights.as_bytes()),
        ("binary.trace", BINARY),
        ("folder/", b""),
    ]);
    let replay = |file: &str, extra: &[&str]| with(&["watch", "--delay-ms", "0", "--replay", file], extra);
    let mut cases: Vec<Case> = bad.iter().map(|(name, _, needle)| refused(&replay(name, &[]), needle)).collect();
    let watch = |extra: &[&str]| {
        with(&["watch", "--preset", "bcts", "--board", "10x10", "--max-pieces", "5", "--delay-ms", "0"], extra)
    };
    cases.extend([
        refused(&replay("binary.trace", &[]), "binary.trace"),
        refused(&replay("good.trace", &["--frames", "out.frames"]), "--frames"),
        refused(&replay("short.frames", &["--gif", "out.gif"]), "--gif"),
        usage(&replay("good.trace", &["--seed", "2"]), "--seed"),
        usage(&replay("good.trace", &["--weights", "lee.toml"]), "--weights"),
        refused(&["watch", "--preset", "bctss"], "did you mean \"bcts\""),
        refused(&watch(&["--weights", "lee.toml"]), "lee.toml"),
        refused(&watch(&["--level", "5"]), "--level"),
        refused(&watch(&["--frames", "out.frames"]), "--frames"),
        refused(&watch(&["--gif", "out.gif", "--gif-frames", "0"]), "--gif-frames"),
        refused(&watch(&["--gif", "out.gif", "--gif-frames", "1001"]), "--gif-frames"),
        refused(&watch(&["--gif", "out.gif", "--gif-from", "0"]), "--gif-from"),
        refused(&watch(&["--gif", "out.gif", "--gif-delay-ms", "10001"]), "--gif-delay-ms"),
        // The GIF's options without a GIF would be ignored: refused instead.
        usage(&watch(&["--gif-from", "3"]), "--gif"),
        usage(&watch(&["--gif-frames", "3"]), "--gif"),
        usage(&["etetris", "replay", "x.txt", "--gif-delay-ms", "50"], "--gif"),
        refused(&watch(&["--gif", "folder"]), "folder"),
        refused(&watch(&["--png", "no-such/x.png"]), "x.png"),
        refused(&watch(&["--gif", "out.gif", "--gif-from", "100"]), "--gif-from"),
        refused(&["watch", "--preset", "bcts", "--rules", "guideline", "--delay-ms", "0"], "key press"),
        refused(
            &["play", "--preset", "bcts", "--games", "2", "--max-pieces", "5", "--trace", "t.trace", "--game", "2"],
            "--game 2",
        ),
        refused(&["play", "--preset", "bcts", "--games", "1", "--max-pieces", "5", "--trace", "folder"], "folder"),
        refused(&["play", "--preset", "bcts", "--games", "2", "--game", "1"], "--game 1: it picks the game --trace"),
        refused(&["etetris", "replay", "good.trace", "--watch"], "good.trace"),
        refused(&["etetris", "replay", "x.txt", "--watch", "--delay-ms", "10001"], "--delay-ms"),
        refused(&["etetris", "replay", "x.txt", "--watch", "--max-pieces", "0"], "--max-pieces"),
    ]);
    battery(&files, cases);
}

#[test]
fn a_thread_count_beyond_the_cores_is_capped_not_started() {
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    for args in [
        vec!["play", "--preset", "dellacherie-simplified", "--board", "10x10", "--games", "2", "--max-pieces", "5"],
        vec!["etetris", "solve", "--beam", "2", "--max-pieces", "5", "--record", "r.txt"],
    ] {
        let mut args: Vec<String> = args.into_iter().map(String::from).collect();
        args.extend(["--threads".to_string(), "100000".to_string()]);
        let (code, stderr) = run_in(dir.path(), &args, dir.path()).unwrap();
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
        assert!(stderr.contains("note: --threads 100000 is more than the"), "{stderr}");
    }
    // 100,000 threads took minutes; capped, two tiny runs take well under a second.
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
}

/// A megabyte token in a record or a row of a board file is quoted by its start and length,
/// not whole: the error stays one short line.
#[test]
fn a_huge_bad_token_is_quoted_short() {
    let token = "Q".repeat(1 << 20);
    let record = format!("N,L3,{token},D5");
    let board = format!("..........\n{token}\n");
    let files: [(&str, &[u8]); 2] = [("huge.txt", record.as_bytes()), ("boards.txt", board.as_bytes())];
    let cases = || {
        vec![
            refused(&["etetris", "replay", "huge.txt"], "(1048576 characters)"),
            refused(&["features", "--preset", "bcts", "boards.txt"], "(1048576 characters)"),
        ]
    };
    battery(&files, cases());
    // And the line is short.
    let dir = tempfile::tempdir().unwrap();
    for (name, content) in files {
        std::fs::write(dir.path().join(name), content).unwrap();
    }
    for case in &cases() {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_tetris-lab"))
            .args(&case.args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        let line = String::from_utf8_lossy(&out.stderr);
        assert!(line.len() < 300, "{} bytes: {}", line.len(), &line[..300.min(line.len())]);
    }
}

/// Output names the file system would refuse are refused before any game: a name over 255
/// bytes, and a name whose manifest beside it would be (an earlier CSV of that name stays
/// as it was). Likewise for `solve`'s record.
#[test]
fn output_names_are_checked_whole_before_the_work() {
    let long = format!("{}.csv", "a".repeat(296));
    let near = format!("{}.csv", "b".repeat(244));
    let record = format!("{}.txt", "r".repeat(244));
    let versus_csv = format!("{}.csv", "v".repeat(236));
    let files: [(&str, &[u8]); 1] = [(near.as_str(), b"an earlier run\n")];
    let play = |csv: &str| with(&["play", "--preset", "bcts", "--board", "10x10", "--games", "2", "--csv"], &[csv]);
    let cases = vec![
        refused(&play(&long), "more than the 255 a file name may have"),
        refused(&play(&near), "manifest.json"),
        refused(&["etetris", "solve", "--beam", "5", "--max-pieces", "20", "--record", &record], "manifest.json"),
        // Its CSV and manifest names fit; the checkpoint of its last search would not.
        refused(
            &[
                "etetris",
                "versus",
                "seed",
                "seed",
                "--beam",
                "5",
                "--max-pieces",
                "20",
                "--jitters",
                "4",
                "--csv",
                &versus_csv,
            ],
            "4-B.checkpoint",
        ),
    ];
    battery(&files, cases);
}
