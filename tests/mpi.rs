//! The MPI backend end to end (needs `--features mpi` and Open MPI's `mpirun`; `.ci/run`
//! runs it as `cargo test --release --features mpi --test mpi`):
//! - the quickstart experiment, with a small budget, on 3 ranks gives the outputs of a
//!   single-process run, and every rank plays;
//! - a rank killed mid-campaign stops the campaign with a message naming the run folder,
//!   and `--resume` on 2 ranks ends exactly where an uninterrupted run ends;
//! - a study of Nelder-Mead repetitions on 3 ranks runs them side by side and gives the
//!   numbers of the single-process study; killed, it resumes from its study folder;
//! - `compare` on 3 ranks gives the pairs and verdict of a single process;
//! - a `learn` study (CBMPI and lambda-PI) on 3 ranks gives the single process's runs,
//!   and every rank plays.
#![cfg(feature = "mpi")]

mod common;

use common::{assert_same_run, only_run_of, without_seconds};
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
        Command::new(BINARY).args(["tune", "quickstart.toml", "--out", "single"]).current_dir(dir.path()).output();
    check(&single.unwrap(), "the single-process run");
    let output = mpirun(3)
        .args(["tune", experiment.to_str().unwrap(), "--out", "three", "--threads", "1"])
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
    let reference =
        Command::new(BINARY).args(["tune", "quickstart.toml", "--out", "reference"]).current_dir(dir.path()).output();
    check(&reference.unwrap(), "the uninterrupted run");

    let results = dir.path().join("killed");
    let marker = results.to_str().unwrap().to_string();
    // Kill rank 1 once a few generations are checkpointed (the later ones take seconds).
    let (killed_after, output) = run_and_kill_rank(
        dir.path(),
        &["tune", experiment.to_str().unwrap(), "--out", &marker],
        1,
        &marker,
        "the campaign never reached generation 3",
        || checkpoint_generation(&results).filter(|&g| g >= 3),
    );
    assert!(killed_after < GENERATIONS, "the campaign finished before rank 1 could be killed");
    assert!(!output.status.success(), "a dead rank fails the job");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let run = only_run(&results);
    assert_names_folder_to_resume(&stderr, &run);
    let checkpointed = checkpoint_generation(&results).unwrap();
    assert!((killed_after..GENERATIONS).contains(&checkpointed), "{killed_after} {checkpointed}");

    let resumed = mpirun(2).args(["tune", "--resume", run.to_str().unwrap()]).current_dir(dir.path()).output();
    check(&resumed.unwrap(), "the resume on 2 ranks");
    assert_same_run(&only_run(&dir.path().join("reference")), &run);
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["resumed"][0]["executor"]["ranks"], 2);
}

/// Runs `args` on 3 ranks (`marker`, the results folder, tells this job's processes from
/// others), polls `ready` until it gives a value (failing with `never` after 300 s), then
/// kills rank `rank` with SIGKILL and waits for the job: the value and the job's output.
fn run_and_kill_rank<T>(
    dir: &Path,
    args: &[&str],
    rank: u32,
    marker: &str,
    never: &str,
    mut ready: impl FnMut() -> Option<T>,
) -> (T, Output) {
    let child = mpirun(3)
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mpirun runs (is Open MPI installed?)");
    let started = Instant::now();
    let value = loop {
        if let Some(value) = ready() {
            kill_hard(find_rank(rank, marker).unwrap_or_else(|| panic!("rank {rank} is running")));
            break value;
        }
        assert!(started.elapsed() < Duration::from_secs(300), "{never}");
        std::thread::sleep(Duration::from_millis(10));
    };
    (value, wait_with_output(child))
}

fn kill_hard(pid: u32) {
    let status = Command::new("kill").args(["-9", &pid.to_string()]).status().expect("kill runs");
    assert!(status.success());
}

/// A short Nelder-Mead campaign (one or two points per generation: small rounds), as
/// `nelder-mead.toml` in `dir`.
fn nelder_mead(dir: &Path) -> PathBuf {
    let text = r#"
name = "nelder-mead"
preset = "dellacherie-simplified"
board = "10x8"
fitness = "rows"
games = 4
seed = 3
reevaluation_games = 4
held_out_games = 12
[weights]
landing_height = { min = -20, max = 20, start = 0 }
row_transitions = { min = -20, max = 20, start = 0 }
holes = { min = -20, max = 20, start = 0 }
[optimizer]
kind = "nelder-mead"
step = 4.0
[budget]
generations = 40
"#;
    let path = dir.join("nelder-mead.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// The one study folder under `results`.
fn only_study(results: &Path) -> PathBuf {
    let studies: Vec<PathBuf> =
        std::fs::read_dir(results.join("studies")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(studies.len(), 1, "{studies:?}");
    studies[0].clone()
}

fn assert_same_study(a: &Path, b: &Path) {
    assert_eq!(without_seconds(&a.join("runs.csv")), without_seconds(&b.join("runs.csv")), "runs.csv differs");
    for file in ["curves.csv", "summary.csv", "comparisons.csv", "summary.md"] {
        let read = |p: PathBuf| std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert_eq!(read(a.join(file)), read(b.join(file)), "{file} differs");
    }
}

/// `nelder-mead.toml` studied `runs` times by one process, into `dir/results`.
fn single_process_study(dir: &Path, runs: u64, results: &str) {
    let output = Command::new(BINARY)
        .args(["tune", "--runs", &runs.to_string(), "nelder-mead.toml", "--out", results])
        .current_dir(dir)
        .output();
    check(&output.unwrap(), "the single-process study");
}

/// Rank 0 names the folder to resume once, when the campaign starts (mpirun may end rank 0
/// before its termination message, which says it again, reaches the terminal).
fn assert_names_folder_to_resume(stderr: &str, folder: &Path) {
    let resume = format!("continue it with: mpirun -n N tetris-lab tune --resume {}\n", folder.display());
    assert_eq!(stderr.matches(&resume).count(), 1, "rank 0 names the folder to resume once:\n{stderr}");
    if let Some(message) = stderr.find("an MPI rank died") {
        assert!(stderr[message..].contains(&format!("--resume {}\n", folder.display())), "{stderr}");
    }
}

/// The position in `stderr` of the line that starts with `prefix`.
fn line_at(stderr: &str, prefix: &str) -> usize {
    stderr.find(prefix).unwrap_or_else(|| panic!("no line {prefix:?} in:\n{stderr}"))
}

#[test]
fn a_study_runs_its_repetitions_side_by_side_on_the_ranks() {
    let dir = tempfile::tempdir().unwrap();
    let experiment = nelder_mead(dir.path());
    single_process_study(dir.path(), 3, "single");
    let output = mpirun(3)
        .args(["tune", "--runs", "3", experiment.to_str().unwrap(), "--out", "three", "--threads", "1"])
        .current_dir(dir.path())
        .output()
        .expect("mpirun runs (is Open MPI installed?)");
    check(&output, "the study on 3 ranks");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("study: 3 repetitions side by side"), "{stderr}");
    // The third repetition started before the first one finished.
    assert!(
        line_at(&stderr, "study: nelder-mead run 3 of 3 (")
            < line_at(&stderr, "study: nelder-mead run 1 of 3 finished"),
        "{stderr}"
    );
    let shares = jobs_by_rank(&stderr);
    assert!(shares.iter().all(|&jobs| jobs > 0), "every rank plays: {shares:?}");
    assert_same_study(&only_study(&dir.path().join("single")), &only_study(&dir.path().join("three")));
}

#[test]
fn a_study_killed_under_mpi_resumes_from_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    let experiment = nelder_mead(dir.path());
    single_process_study(dir.path(), 4, "reference");
    let results = dir.path().join("killed");
    let marker = results.to_str().unwrap().to_string();
    // Kill rank 2 once some repetition has checkpointed a few generations.
    let ((), output) = run_and_kill_rank(
        dir.path(),
        &["tune", "--runs", "4", experiment.to_str().unwrap(), "--out", &marker, "--threads", "1"],
        2,
        &marker,
        "the study never reached generation 5",
        || {
            std::fs::read_dir(results.join("studies"))
                .ok()
                .and_then(|mut studies| studies.next())
                .and_then(|study| std::fs::read_dir(study.ok()?.path().join("nelder-mead")).ok())
                .map(|runs| {
                    runs.flatten().any(|run| {
                        std::fs::read_to_string(run.path().join("checkpoint.json"))
                            .ok()
                            .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
                            .and_then(|c| c["generation"].as_u64())
                            .is_some_and(|g| g >= 5)
                    })
                })
                .unwrap_or(false)
                .then_some(())
        },
    );
    assert!(!output.status.success(), "a dead rank fails the job");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let study = only_study(&results);
    assert_names_folder_to_resume(&stderr, &study);
    let resumed = mpirun(2).args(["tune", "--resume", study.to_str().unwrap()]).current_dir(dir.path()).output();
    check(&resumed.unwrap(), "the resume on 2 ranks");
    assert_same_study(&only_study(&dir.path().join("reference")), &study);
}

/// `compare` on 3 ranks (weights files sent by rank 0, one thread each) ends with the
/// pairs and verdict of a single process, and every rank plays.
#[test]
fn a_comparison_on_three_ranks_gives_the_single_process_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let published = Command::new(BINARY).args(["weights", "bcts"]).output().unwrap();
    let weakened = String::from_utf8(published.stdout).unwrap().replace("\nholes = -13.08\n", "\nholes = -6\n");
    assert!(weakened.contains("\nholes = -6\n"), "BCTS's holes weight changed; update this test");
    std::fs::write(dir.path().join("weak.toml"), weakened).unwrap();
    for arguments in [
        vec!["compare", "bcts", "dellacherie-simplified", "--board", "8x8"],
        vec!["compare", "bcts:weak.toml", "bcts", "--board", "9x9", "--pairs", "300"],
    ] {
        let single =
            Command::new(BINARY).args(&arguments).args(["--out", "single"]).current_dir(dir.path()).output().unwrap();
        check(&single, "the single-process comparison");
        let spread = mpirun(3)
            .args(&arguments)
            .args(["--out", "spread", "--threads", "1"])
            .current_dir(dir.path())
            .output()
            .unwrap();
        check(&spread, "the comparison on 3 ranks");
        let stderr = String::from_utf8_lossy(&spread.stderr);
        let shares = stderr.lines().find(|l| l.starts_with("MPI: games played by")).expect("rank 0 reports the shares");
        for rank in 0..3 {
            let played: u64 =
                shares.split(&format!("rank {rank}: ")).nth(1).unwrap().split(',').next().unwrap().parse().unwrap();
            assert!(played > 0, "rank {rank} played no game: {shares}");
        }
        let pairs = |folder: &str| {
            let runs: Vec<PathBuf> =
                std::fs::read_dir(dir.path().join(folder)).unwrap().map(|e| e.unwrap().path()).collect();
            assert_eq!(runs.len(), 1, "{runs:?}");
            let text = std::fs::read_to_string(runs[0].join("pairs.csv")).unwrap();
            std::fs::remove_dir_all(&runs[0]).unwrap();
            text
        };
        let without_folder = |o: &Output| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .filter(|l| !l.starts_with("results in"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(without_folder(&single), without_folder(&spread), "{arguments:?}");
        assert_eq!(pairs("single"), pairs("spread"), "{arguments:?}");
    }
}

/// A run folder's iterations (without the seconds column) and held-out score.
fn learning_results(run: &Path) -> (String, String) {
    let iterations = std::fs::read_to_string(run.join("iterations.csv")).unwrap();
    let iterations = iterations
        .lines()
        .map(|line| line.split(',').enumerate().filter(|(i, _)| *i != 5).map(|(_, f)| f).collect::<Vec<_>>().join(","))
        .collect::<Vec<_>>()
        .join("\n");
    (iterations, std::fs::read_to_string(run.join("held_out.csv")).unwrap())
}

#[test]
fn a_learning_study_on_three_ranks_gives_the_single_process_runs() {
    let dir = tempfile::tempdir().unwrap();
    let common = "board = \"6x8\"\nseed = 3\niterations = 3\nevaluation_games = 20\nheld_out_games = 20\n";
    let cbmpi = format!(
        "learner = \"cbmpi\"\n{common}[options]\nrollout_length = 2\nstates = 150\nclassifier_generations = 5\n"
    );
    let lambda = format!("learner = \"lambda-pi\"\n{common}[options]\ngames = 20\n");
    std::fs::write(dir.path().join("cbmpi.toml"), cbmpi).unwrap();
    std::fs::write(dir.path().join("lambda.toml"), lambda).unwrap();
    let arguments = ["learn", "cbmpi.toml", "lambda.toml", "--runs", "2", "--out"];
    let single = Command::new(BINARY).args(arguments).arg("single").current_dir(dir.path()).output().unwrap();
    check(&single, "the single-process study");
    let output = mpirun(3).args(arguments).args(["three", "--threads", "1"]).current_dir(dir.path()).output().unwrap();
    check(&output, "mpirun -n 3 learn");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let shares = jobs_by_rank(&stderr);
    assert_eq!(shares.len(), 3, "{stderr}");
    assert!(shares.iter().all(|&jobs| jobs > 0), "every rank plays: {shares:?}");
    let study = |results: &str| {
        let studies: Vec<PathBuf> = std::fs::read_dir(dir.path().join(results).join("learn-studies"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(studies.len(), 1, "{studies:?}");
        studies[0].clone()
    };
    let (a, b) = (study("single"), study("three"));
    for experiment in ["cbmpi", "lambda"] {
        for run in ["run-01", "run-02"] {
            let (a, b) = (a.join(experiment).join(run), b.join(experiment).join(run));
            assert_eq!(learning_results(&a), learning_results(&b), "{experiment} {run}");
        }
    }
}
