//! The MPI backend end to end (needs `--features mpi` and Open MPI's `mpirun`; `.ci/run`
//! runs it as `cargo test --release --features mpi --test mpi`):
//! - the quickstart experiment, with a small budget, on 3 ranks gives the outputs of a
//!   single-process run, and every rank plays;
//! - a rank killed mid-campaign stops the campaign with a message naming the run folder,
//!   and `--resume` on 2 ranks ends exactly where an uninterrupted run ends.
#![cfg(feature = "mpi")]

mod common;

use common::{assert_same_run, only_run_of};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const BINARY: &str = env!("CARGO_BIN_EXE_tetris-lab");

/// `experiments/quickstart.toml` with `generations` generations, written as
/// `quickstart.toml` in `dir`.
fn quickstart(dir: &Path, generations: u64) -> PathBuf {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/quickstart.toml"))
        .expect("the shipped quickstart experiment");
    assert!(text.contains("\ngenerations = 8\n"), "the quickstart budget changed; update this test");
    let path = dir.join("quickstart.toml");
    std::fs::write(&path, text.replace("\ngenerations = 8\n", &format!("\ngenerations = {generations}\n"))).unwrap();
    path
}

fn mpirun(ranks: usize) -> Command {
    let mut command = Command::new("mpirun");
    command.args(["--allow-run-as-root", "--oversubscribe", "-n", &ranks.to_string(), BINARY]);
    command
}

fn check(output: &Output, what: &str) {
    assert!(output.status.success(), "{what} failed ({}):\n{}", output.status, String::from_utf8_lossy(&output.stderr));
}

fn only_run(results: &Path) -> PathBuf {
    only_run_of(results, "quickstart")
}

/// The jobs each rank played, from rank 0's closing line.
fn jobs_by_rank(stderr: &str) -> Vec<u64> {
    let line = stderr.lines().find(|l| l.starts_with("MPI: jobs played by")).expect("rank 0 reports the shares");
    line.split("rank ")
        .skip(1)
        .map(|part| part.split(": ").nth(1).unwrap().trim_end_matches(", ").parse().unwrap())
        .collect()
}

#[test]
fn three_ranks_give_the_single_process_result() {
    let dir = tempfile::tempdir().unwrap();
    let experiment = quickstart(dir.path(), 3);
    let single =
        Command::new(BINARY).args(["tune", "quickstart.toml", "--results", "single"]).current_dir(dir.path()).output();
    check(&single.unwrap(), "the single-process run");
    let output = mpirun(3)
        .args(["tune", experiment.to_str().unwrap(), "--results", "three", "--threads", "1"])
        .current_dir(dir.path())
        .output()
        .expect("mpirun runs (is Open MPI installed?)");
    check(&output, "mpirun -n 3");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let shares = jobs_by_rank(&stderr);
    assert_eq!(shares.len(), 3, "{stderr}");
    assert!(shares.iter().all(|&jobs| jobs > 0), "every rank plays: {shares:?}");
    let (a, b) = (only_run(&dir.path().join("single")), only_run(&dir.path().join("three")));
    assert_same_run(&a, &b);
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(b.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["executor"]["kind"], "mpi");
    assert_eq!(manifest["executor"]["ranks"], 3);
}

/// The process of MPI rank `rank` whose command line mentions `marker`.
fn find_rank(rank: u32, marker: &str) -> Option<u32> {
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if !String::from_utf8_lossy(&cmdline).contains(marker) {
            continue;
        }
        let environ = std::fs::read(entry.path().join("environ")).unwrap_or_default();
        if environ.split(|&b| b == 0).any(|v| v == format!("OMPI_COMM_WORLD_RANK={rank}").as_bytes()) {
            return Some(pid);
        }
    }
    None
}

fn checkpoint_generation(results: &Path) -> Option<u64> {
    let run = std::fs::read_dir(results.join("quickstart")).ok()?.next()?.ok()?.path();
    let c: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("checkpoint.json")).ok()?).ok()?;
    c["generation"].as_u64()
}

fn wait_with_output(child: Child) -> Output {
    child.wait_with_output().expect("mpirun ends")
}

#[test]
fn a_dead_rank_stops_the_campaign_and_resume_on_other_ranks_continues_it() {
    const GENERATIONS: u64 = 7;
    let dir = tempfile::tempdir().unwrap();
    let experiment = quickstart(dir.path(), GENERATIONS);
    let reference = Command::new(BINARY)
        .args(["tune", "quickstart.toml", "--results", "reference"])
        .current_dir(dir.path())
        .output();
    check(&reference.unwrap(), "the uninterrupted run");

    let results = dir.path().join("killed");
    let marker = results.to_str().unwrap().to_string();
    let child = mpirun(3)
        .args(["tune", experiment.to_str().unwrap(), "--results", &marker])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mpirun runs (is Open MPI installed?)");
    // Kill rank 1 once a few generations are checkpointed (the later ones take seconds).
    let started = Instant::now();
    let killed_after = loop {
        if let Some(g) = checkpoint_generation(&results).filter(|&g| g >= 3) {
            let pid = find_rank(1, &marker).expect("rank 1 is running");
            kill_hard(pid);
            break g;
        }
        assert!(started.elapsed() < Duration::from_secs(300), "the campaign never reached generation 3");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(killed_after < GENERATIONS, "the campaign finished before rank 1 could be killed");
    let output = wait_with_output(child);
    assert!(!output.status.success(), "a dead rank fails the job");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let run = only_run(&results);
    assert!(
        stderr.contains("an MPI rank died") && stderr.contains(&format!("--resume {}", run.display())),
        "rank 0 says how to resume:\n{stderr}"
    );
    let checkpointed = checkpoint_generation(&results).unwrap();
    assert!((killed_after..GENERATIONS).contains(&checkpointed), "{killed_after} {checkpointed}");

    let resumed = mpirun(2).args(["tune", "--resume", run.to_str().unwrap()]).current_dir(dir.path()).output();
    check(&resumed.unwrap(), "the resume on 2 ranks");
    assert_same_run(&only_run(&dir.path().join("reference")), &run);
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["resumed"][0]["executor"]["ranks"], 2);
}

fn kill_hard(pid: u32) {
    let status = Command::new("kill").args(["-9", &pid.to_string()]).status().expect("kill runs");
    assert!(status.success());
}
