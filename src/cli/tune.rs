//! `tetris-lab tune`: runs tuning campaigns from experiment files, or resumes one.

use crate::tune::driver::{self, Outcome, RunOptions};
use anyhow::{bail, Result};
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct TuneArgs {
    /// Experiment files (TOML), run one after the other; several give a comparison plot.
    /// Default: experiments/quickstart.toml.
    pub experiments: Vec<PathBuf>,
    /// Continue the run in this folder from its checkpoint (an experiment file given too
    /// must be the one that made it).
    #[arg(long, value_name = "RUN_DIR")]
    pub resume: Option<PathBuf>,
    /// Folder under which runs are written as <experiment>/<run-id>/.
    #[arg(long, default_value = "results")]
    pub results: PathBuf,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long)]
    pub threads: Option<usize>,
}

pub fn run(args: TuneArgs) -> Result<()> {
    let options = RunOptions { threads: args.threads, results: args.results.clone() };
    if let Some(run_dir) = &args.resume {
        if args.experiments.len() > 1 {
            bail!("--resume continues one run: give at most one experiment file");
        }
        return report(driver::resume(run_dir, args.experiments.first().map(PathBuf::as_path), &options)?);
    }
    let experiments = if args.experiments.is_empty() {
        vec![PathBuf::from("experiments/quickstart.toml")]
    } else {
        args.experiments.clone()
    };
    // Validate every file before the first game of the first.
    for path in &experiments {
        crate::tune::experiment::Experiment::load(path)?;
    }
    let mut runs = Vec::new();
    for path in &experiments {
        match driver::start(path, &options)? {
            Outcome::Finished(dir) => runs.push(dir),
            Outcome::Interrupted(dir) => return report(Outcome::Interrupted(dir)),
        }
    }
    if runs.len() > 1 {
        let out = args.results.join(format!(
            "comparison-{}.png",
            runs[0].file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
        ));
        super::plot::overlay(&runs, &out)?;
        super::plot::overlay(&runs, &out.with_extension("svg"))?;
        println!("comparison plot: {}", out.display());
    }
    Ok(())
}

fn report(outcome: Outcome) -> Result<()> {
    match outcome {
        Outcome::Finished(_) => Ok(()),
        // Stopped by Ctrl-C: the checkpoint is written; exit non-zero like any interrupted
        // command.
        Outcome::Interrupted(_) => std::process::exit(130),
    }
}
