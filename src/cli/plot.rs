//! `tetris-lab plot`: redraws a run's fitness plot or a study's curves, or overlays several
//! runs on one chart.

use crate::support::atomic_file::AtomicFile;
use crate::tune::plot::{self, Scale};
use crate::tune::study;
use anyhow::{bail, Context, Result};
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct PlotArgs {
    /// Run folders (results/<experiment>/<run-id>), or one study folder
    /// (results/studies/<study-id>).
    #[arg(required = true)]
    pub runs: Vec<PathBuf>,
    /// Output file, .png or .svg. Default: beside what it draws: a run's fitness.png, a
    /// study's curves.png and curves.svg, and for several runs comparison.png in the folder
    /// that holds them all.
    #[arg(long, value_name = "FILE")]
    pub image: Option<PathBuf>,
    /// Chart title (runs only).
    #[arg(long)]
    pub title: Option<String>,
    /// A logarithmic fitness axis (runs only), for scores that span decades.
    #[arg(long)]
    pub log_scale: bool,
}

pub fn run(args: PlotArgs) -> Result<()> {
    if let Some(folder) = args.runs.iter().find(|r| study::is_study(r)) {
        if args.runs.len() > 1 {
            bail!("{} is a study folder: plot draws one study at a time, or run folders", folder.display());
        }
        if args.title.is_some() || args.log_scale {
            bail!("--title and --log-scale are for run folders; a study's curves have their own");
        }
        for drawn in study::redraw(folder, args.image.as_deref())? {
            println!("{}", drawn.display());
        }
        return Ok(());
    }
    let series = read_runs(&args.runs)?;
    let out = match (&args.image, args.runs.as_slice()) {
        (Some(out), _) => out.clone(),
        (None, [one]) => one.join("fitness.png"),
        (None, several) => common_folder(several)?.join("comparison.png"),
    };
    let scale = if args.log_scale { Scale::Logarithmic } else { Scale::Linear };
    draw(series, &out, args.title.as_deref(), scale)?;
    println!("{}", out.display());
    Ok(())
}

/// The deepest folder that holds every run (`results/` for runs of several experiments
/// there); an error where they share none but the current one, so that nothing is written
/// where the user did not look.
fn common_folder(runs: &[PathBuf]) -> Result<PathBuf> {
    let absolute = |p: &Path| std::path::absolute(p).with_context(|| format!("cannot resolve {}", p.display()));
    let mut common = absolute(&runs[0])?.parent().map(Path::to_path_buf).unwrap_or_default();
    for run in &runs[1..] {
        let run = absolute(run)?;
        while !run.starts_with(&common) {
            common = common.parent().map(Path::to_path_buf).unwrap_or_default();
        }
    }
    let here = std::env::current_dir().context("cannot read the current folder")?;
    if common.as_os_str().is_empty() || here.starts_with(&common) {
        bail!("the runs share no folder below the current one: say where the comparison goes with --image FILE");
    }
    // Relative to the current folder when below it, as the user gave the runs.
    Ok(common.strip_prefix(&here).map(Path::to_path_buf).unwrap_or(common))
}

/// Overlays the runs' curves in `out`.
pub fn overlay(runs: &[PathBuf], out: &Path) -> Result<()> {
    draw(read_runs(runs)?, out, None, Scale::Linear)
}

/// The runs' curves, each folder once (`results/x/*` may name one twice), read before any
/// output is decided: a run that cannot be drawn is the error to report.
fn read_runs(runs: &[PathBuf]) -> Result<Vec<plot::Series>> {
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut series = Vec::new();
    for run in runs {
        let canonical = run.canonicalize().unwrap_or_else(|_| run.clone());
        if !seen.contains(&canonical) {
            seen.push(canonical);
            series.push(plot::read_run(run)?);
        }
    }
    Ok(series)
}

fn draw(mut series: Vec<plot::Series>, out: &Path, title: Option<&str>, scale: Scale) -> Result<()> {
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
    plot::draw(&series, &title, file.temporary_path(), scale)
        .with_context(|| format!("cannot draw {}", out.display()))?;
    file.commit()
}
