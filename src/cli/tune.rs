//! `tetris-lab tune`: runs tuning campaigns from experiment files, or resumes one. Built
//! with the `mpi` feature and started by `mpirun`, rank 0 runs the campaign and the other
//! ranks evaluate its candidates (see `tune::mpi`).

use super::Ended;
use crate::tune::driver::{self, Outcome, RunOptions};
use crate::tune::experiment::Experiment;
use crate::tune::objective::{Executor, Local};
use crate::tune::study;
use anyhow::{bail, Context, Result};
use clap::Args;
use std::path::PathBuf;

/// The default experiment, built in so that `tune` works from any folder.
const QUICKSTART: &str = include_str!("../../experiments/quickstart.toml");

#[derive(Args, Debug)]
pub struct TuneArgs {
    /// Experiment files (TOML), run one after the other; several give a comparison plot.
    /// Default: the quick start, built into the binary (experiments/quickstart.toml).
    pub experiments: Vec<PathBuf>,
    /// Continue the run (or the study) in this folder from its checkpoint (an experiment
    /// file given too must be the one that made the run).
    #[arg(long, value_name = "RUN_FOLDER")]
    pub resume: Option<PathBuf>,
    /// A study: run each experiment N times (repetition r seeded from the master seed and
    /// r), then compare them (results/studies/<stamp>/). Default: the files' `runs`.
    #[arg(long, value_name = "N")]
    pub runs: Option<u64>,
    /// Folder under which runs are written as <experiment>/<run-id>/ (a resumed run stays
    /// in its folder).
    #[arg(long, value_name = "DIR", default_value = "results", conflicts_with = "resume")]
    pub out: PathBuf,
    /// Worker threads (default: all cores; under mpirun, per rank). Results do not depend
    /// on it.
    #[arg(long)]
    pub threads: Option<usize>,
}

#[cfg(not(feature = "mpi"))]
pub fn run(args: TuneArgs) -> Result<Ended> {
    // Started by mpirun, the plain build was refused before (`cli::run`).
    report(run_with(&args, &Local)?)
}

/// Under `mpirun` (or alone: a single rank runs like the plain build).
#[cfg(feature = "mpi")]
pub fn run(args: TuneArgs) -> Result<Ended> {
    use mpi::topology::Communicator;
    let (universe, _) = mpi::initialize_with_threading(mpi::Threading::Funneled)
        .context("cannot start MPI (is this binary run by mpirun with a working Open MPI?)")?;
    let world = universe.world();
    let pool = crate::support::threads::thread_pool(args.threads)?;
    if world.rank() != 0 {
        return crate::tune::mpi::work(&world, &pool)
            .map(|()| Ended::Finished)
            .with_context(|| format!("MPI rank {} of {}", world.rank(), world.size()));
    }
    let outcome = if world.size() > 1 {
        let coordinator = crate::tune::mpi::Coordinator::new(&world, pool.current_num_threads())?;
        eprintln!("MPI: {} ranks (rank 0 runs the campaign and plays too)", world.size());
        // Workers leave before MPI is finalized, whatever happened.
        coordinator.run_with(&world, || run_with(&args, &coordinator)).and_then(|outcome| outcome)
    } else {
        run_with(&args, &Local)
    };
    drop(universe);
    report(outcome?)
}

/// Runs the campaigns the arguments ask for; the last outcome.
fn run_with(args: &TuneArgs, executor: &dyn Executor) -> Result<Outcome> {
    let options = RunOptions { threads: args.threads, results: args.out.clone() };
    // Before any folder is made (the pool itself is started with the campaign).
    if args.threads == Some(0) {
        bail!("--threads must be at least 1");
    }
    if let Some(runs) = args.runs {
        crate::tune::experiment::check_runs(runs).context("--runs")?;
    }
    if let Some(dir) = args.resume.as_deref().filter(|dir| study::is_study(dir)) {
        if args.runs.is_some() || !args.experiments.is_empty() {
            bail!("--resume of a study takes neither --runs nor experiment files: the study folder records them");
        }
        return study::resume(dir, &options, executor);
    }
    if let Some(run_dir) = &args.resume {
        if args.runs.is_some() {
            bail!(
                "--runs does not go with --resume of a single run ({}): a study is resumed from its study folder",
                run_dir.display()
            );
        }
        if args.experiments.len() > 1 {
            bail!("--resume continues one run: give at most one experiment file");
        }
        return driver::resume(run_dir, args.experiments.first().map(PathBuf::as_path), &options, executor);
    }
    // Validate every file before the first game of the first.
    let experiments = if args.experiments.is_empty() {
        eprintln!("no experiment file given: running the built-in quick start (experiments/quickstart.toml)");
        vec![Experiment::parse(QUICKSTART, "quickstart").context("the built-in quick start")?]
    } else {
        args.experiments.iter().map(|path| Experiment::load(path)).collect::<Result<Vec<_>>>()?
    };
    if args.runs.is_some() || experiments.iter().any(|e| e.file.runs.is_some()) {
        return study::start(experiments, args.runs, &options, executor);
    }
    let mut runs = Vec::new();
    for experiment in experiments {
        match driver::start(experiment, &options, executor)? {
            Outcome::Finished(dir) => runs.push(dir),
            interrupted @ Outcome::Interrupted(_) => return Ok(interrupted),
        }
    }
    if runs.len() > 1 {
        let out = args.out.join(format!(
            "comparison-{}.png",
            runs[0].file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
        ));
        super::plot::overlay(&runs, &out)?;
        super::plot::overlay(&runs, &out.with_extension("svg"))?;
        println!("comparison plot: {}", out.display());
    }
    Ok(Outcome::Finished(runs.pop().expect("at least one experiment")))
}

fn report(outcome: Outcome) -> Result<Ended> {
    match outcome {
        Outcome::Finished(_) => Ok(Ended::Finished),
        // Stopped by Ctrl-C: the checkpoint is written.
        Outcome::Interrupted(_) => Ok(Ended::Interrupted),
    }
}
