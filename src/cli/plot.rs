//! `tetris-lab plot`: redraws a run's fitness plot, or overlays several runs on one chart.

use crate::report::atomic_file::AtomicFile;
use crate::tune::plot;
use anyhow::{bail, Context, Result};
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct PlotArgs {
    /// Run folders (results/<experiment>/<run-id>).
    #[arg(required = true)]
    pub runs: Vec<PathBuf>,
    /// Output file, .png or .svg. Default: the run's fitness.png for one run,
    /// fitness-comparison.png for several.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Chart title.
    #[arg(long)]
    pub title: Option<String>,
}

pub fn run(args: PlotArgs) -> Result<()> {
    let out = args.out.clone().unwrap_or_else(|| match args.runs.as_slice() {
        [one] => one.join("fitness.png"),
        _ => PathBuf::from("fitness-comparison.png"),
    });
    draw(&args.runs, &out, args.title.as_deref())?;
    println!("{}", out.display());
    Ok(())
}

/// Overlays the runs' curves in `out`.
pub fn overlay(runs: &[PathBuf], out: &Path) -> Result<()> {
    draw(runs, out, None)
}

fn draw(runs: &[PathBuf], out: &Path, title: Option<&str>) -> Result<()> {
    let mut series = runs.iter().map(|r| plot::read_run(r)).collect::<Result<Vec<_>>>()?;
    plot::label_runs(&mut series);
    let title = title.map(str::to_string).unwrap_or_else(|| {
        let mut experiments: Vec<&str> = series.iter().map(|s| s.experiment.as_str()).collect();
        experiments.dedup();
        match experiments.as_slice() {
            [one] if series.len() == 1 => format!("{one} ({})", series[0].optimizer),
            [one] => one.to_string(),
            _ => {
                // Experiments named like compare-pso, compare-cmaes: title "compare".
                let first = experiments[0];
                let prefix = first.split_once('-').map(|(p, _)| p).unwrap_or(first);
                if experiments.iter().all(|e| e.starts_with(&format!("{prefix}-"))) {
                    format!("{prefix}: {} runs, {}", series.len(), plot::describe_incumbent(&series))
                } else {
                    format!("{} runs, {}", series.len(), plot::describe_incumbent(&series))
                }
            }
        }
    });
    let extension = out.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    if !["png", "svg"].contains(&extension.as_str()) {
        bail!("plot file {} must end in .png or .svg", out.display());
    }
    // Drawn beside the target under a temporary name with its extension, renamed when whole.
    let file = AtomicFile::create(out)?;
    plot::draw(&series, &title, file.temporary_path()).with_context(|| format!("cannot draw {}", out.display()))?;
    file.commit()
}
