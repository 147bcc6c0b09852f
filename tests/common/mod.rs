//! Helpers for the integration tests: run the binary, write temporary files.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Output;

pub fn run(args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_tetris-lab")).args(args).output().expect("binary runs")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// The golden boards of `golden.md` as a board file with `; name` lines.
pub const GOLDEN_FILE: &str = "; B0_empty\n..........\n\n; B1_stairs\nX.........\nX...X.....\nXX.XXX.X..\nXXXXXX.XX.\nXXXXXXXXX.\n\n; B2_holes\n.X........\nXXX..X....\nX.X..XX...\nXXXX.XXX.X\n\n; B3_wells\nX.XX.XXXX.\nX.XX.XXXX.\nXXXX.XXXX.\n\n; B4_pits\nX..X.....X\nX..XX..X.X\nXX.XX..XXX\n";

/// Asserts a failed run: non-zero exit, one `error:` line naming `needle`, no panic.
pub fn assert_clean_error(o: &Output, needle: &str) {
    let err = stderr(o);
    assert!(!o.status.success(), "expected failure, got success; stderr: {err}");
    assert!(!err.contains("panicked"), "panic: {err}");
    // clap's usage errors add a "For more information, try '--help'." hint line.
    let lines: Vec<&str> =
        err.lines().filter(|l| !l.trim().is_empty() && !l.starts_with("For more information")).collect();
    assert_eq!(lines.len(), 1, "expected one error line, got: {err}");
    assert!(lines[0].starts_with("error:"), "{err}");
    assert!(err.contains(needle), "expected {needle:?} in: {err}");
}

/// The one run folder of `experiment` under `results`.
pub fn only_run_of(results: &Path, experiment: &str) -> PathBuf {
    let runs: Vec<PathBuf> = std::fs::read_dir(results.join(experiment)).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    runs[0].clone()
}

/// A CSV without its last column (wall-clock seconds, the only field allowed to differ).
pub fn without_seconds(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .map(|line| {
            assert!(line.ends_with(|c: char| c.is_ascii_digit()) || line.ends_with("seconds"), "{line}");
            line.rsplit_once(',').unwrap().0.to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Two runs ended alike: their logs (but for seconds), best weights and final state.
pub fn assert_same_run(a: &Path, b: &Path) {
    for csv in ["evaluations.csv", "generations.csv"] {
        assert_eq!(without_seconds(&a.join(csv)), without_seconds(&b.join(csv)), "{csv} differs");
    }
    let best = |dir: &Path| {
        std::fs::read_to_string(dir.join("best.toml"))
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with("# Best weights of experiment")) // names the run folder
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(best(a), best(b), "best.toml differs");
    let held_out = |dir: &Path| std::fs::read_to_string(dir.join("held_out.csv")).unwrap();
    assert_eq!(held_out(a), held_out(b), "held_out.csv differs");
    let optimizer = |dir: &Path| {
        let c: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("checkpoint.json")).unwrap()).unwrap();
        (c["optimizer"].clone(), c["incumbent"].clone(), c["pieces"].clone())
    };
    assert_eq!(optimizer(a), optimizer(b), "checkpoint differs");
}

/// Starts the binary with `args` in `dir`, its standard output discarded and its standard
/// error piped (`stderr = true`, read with `wait_with_output`) or discarded: a run to stop
/// from the outside.
pub fn spawn_in(dir: &Path, args: &[&str], stderr: bool) -> std::process::Child {
    use std::process::Stdio;
    std::process::Command::new(env!("CARGO_BIN_EXE_tetris-lab"))
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(if stderr { Stdio::piped() } else { Stdio::null() })
        .spawn()
        .expect("binary runs")
}

/// Sends `signal` (`-KILL`, or `-INT` as Ctrl-C does) to a running child.
pub fn send_signal(child: &std::process::Child, signal: &str) {
    let status = std::process::Command::new("kill").args([signal, &child.id().to_string()]).status().unwrap();
    assert!(status.success(), "kill {signal} failed");
}

/// Copies the folder `from` to `to`, sub-folders included.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Runs the binary with `args` in the folder `dir`.
pub fn run_in(dir: &Path, args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_tetris-lab"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("binary runs")
}
