//! `tetris-lab learn`: runs learners from experiment files (one run each, or a study with
//! `--runs`), or resumes a run or a study.

use super::Ended;
use crate::learn::run::{self, Outcome};
use crate::learn::study::{self, StudyExperiment};
use crate::learn::Settings;
use anyhow::{bail, Context, Result};
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct LearnArgs {
    /// Learning experiment files (TOML), e.g. experiments/learn/cbmpi-10x10.toml; several
    /// make a study whose plot shows them together.
    pub experiments: Vec<PathBuf>,
    /// Continue the run (or the study) in this folder from its last checkpoint.
    #[arg(long, value_name = "RUN_FOLDER")]
    pub resume: Option<PathBuf>,
    /// A study: run each experiment N times (run r seeded from the file's seed and r).
    /// Default: the files' `runs`, else one run each.
    #[arg(long, value_name = "N")]
    pub runs: Option<u64>,
    /// The score whose samples a study's table reports (the mean curve's first crossing).
    /// [default: 3000]
    #[arg(long, value_name = "ROWS")]
    pub reach: Option<f64>,
    /// Folder under which runs are written as <experiment>/<run-id>/, studies as
    /// learn-studies/<stamp>/.
    #[arg(long, value_name = "DIR", default_value = "results", conflicts_with = "resume")]
    pub out: PathBuf,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long)]
    pub threads: Option<usize>,
}

pub fn run(args: LearnArgs) -> Result<Ended> {
    if args.threads == Some(0) {
        bail!("--threads must be at least 1");
    }
    if let Some(runs) = args.runs {
        crate::tune::experiment::check_runs(runs).context("--runs")?;
    }
    if let Some(reach) = args.reach {
        study::check_reach(reach)?;
    }
    let outcome = match across_ranks(&args)? {
        Some(outcome) => outcome,
        None => crate::support::threads::thread_pool(args.threads)?.install(|| learn(&args))?,
    };
    Ok(match outcome {
        Outcome::Finished(_) => Ended::Finished,
        Outcome::Interrupted(dir) => {
            eprintln!("stopped: resume with `tetris-lab learn --resume {}`", dir.display());
            Ended::Interrupted
        }
    })
}

/// The plain build: one process.
#[cfg(not(feature = "mpi"))]
fn across_ranks(_args: &LearnArgs) -> Result<Option<Outcome>> {
    Ok(None)
}

/// Under `mpirun` with several ranks: rank 0 runs the command and the others follow its
/// runs (`learn::mpi`); on its own, `None` (the plain way). Every rank drives its part on
/// the main thread (MPI is called from there only), with `--threads` worker threads.
#[cfg(feature = "mpi")]
fn across_ranks(args: &LearnArgs) -> Result<Option<Outcome>> {
    use crate::learn::mpi as ranks;
    use ::mpi::topology::Communicator;
    if super::launcher_ranks().is_none_or(|ranks| ranks < 2) {
        return Ok(None);
    }
    let (universe, _) = ::mpi::initialize_with_threading(::mpi::Threading::Funneled)
        .context("cannot start MPI (is this binary run by mpirun with a working Open MPI?)")?;
    let world = universe.world();
    let (rank, size) = (world.rank(), world.size());
    let threads = crate::support::threads::thread_pool(args.threads)?.current_num_threads();
    // Rayon's global pool, so that every parallel loop of the run (not only those a pool
    // would be installed around) takes --threads.
    let _ = rayon::ThreadPoolBuilder::new().num_threads(threads).build_global();
    if rank != 0 {
        ranks::work(world).with_context(|| format!("MPI rank {rank} of {size}"))?;
        // MPI is finalized before this rank leaves; it has nothing to print.
        drop(universe);
        std::process::exit(0);
    }
    let coordinator = std::rc::Rc::new(ranks::Coordinator::new(world));
    crate::learn::spread::set(coordinator.clone());
    eprintln!("MPI: {size} ranks (rank 0 writes the runs; every rank plays its share of each iteration)");
    let outcome = learn(args);
    coordinator.finish();
    drop(universe);
    outcome.map(Some)
}

/// The command: a run, a study, or a resumed one.
fn learn(args: &LearnArgs) -> Result<Outcome> {
    {
        if let Some(dir) = &args.resume {
            if args.runs.is_some() || !args.experiments.is_empty() {
                bail!("--resume takes neither --runs nor experiment files: the folder records them");
            }
            if study::is_study(dir) {
                return study::resume(dir, args.reach);
            }
            if !dir.join("experiment.toml").is_file() {
                bail!("{} is not a learning run or study folder (it has no experiment.toml)", dir.display());
            }
            if args.reach.is_some() {
                bail!("--reach is a study's: {} is a single run", dir.display());
            }
            return run::resume(dir);
        }
        if args.experiments.is_empty() {
            bail!("give a learning experiment file, e.g. experiments/learn/lambda-pi-10x10.toml (docs/learners.md lists them)");
        }
        let mut loaded = Vec::new();
        for path in &args.experiments {
            let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
            let settings = Settings::parse(&text).with_context(|| format!("{}", path.display()))?;
            let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            // The name is the folder the runs go to, inside --out.
            crate::support::run_dir::check_folder_name(&name)
                .with_context(|| format!("{}: the file's name", path.display()))?;
            loaded.push((name, text, settings));
        }
        let study_runs = |settings: &Settings| args.runs.or(settings.runs);
        if loaded.len() > 1 || loaded.iter().any(|(_, _, s)| study_runs(s).is_some()) {
            let experiments = loaded
                .into_iter()
                .map(|(name, text, settings)| StudyExperiment { runs: study_runs(&settings).unwrap_or(1), name, text })
                .collect();
            return study::start(experiments, args.reach.unwrap_or(study::DEFAULT_REACH), &args.out);
        }
        if args.reach.is_some() {
            bail!("--reach is a study's: give --runs N (or several experiment files) for a study");
        }
        let (name, text, settings) = loaded.pop().expect("one experiment");
        run::start(&settings, &text, &args.out.join(name))
    }
}
