//! `tetris-lab compare A B`: paired games of two controllers, a fixed number of pairs or a
//! sequential test; a run folder with the games (the ledger it resumes from), every pair
//! and a manifest.

use crate::board::parse_size;
use crate::compare::{self, files, Controller, Mode, Outcome, Setup, Sides};
use crate::report::ledger::Ledger;
use crate::report::paired::{Sequential, MIN_PAIRS};
use crate::support::atomic_file::AtomicFile;
use crate::support::progress::with_progress;
use crate::support::run_dir::{create_run_folder, merged, provenance};
use crate::support::threads::thread_pool;
use crate::tune::objective::Fitness;
use anyhow::{bail, Context, Result};
use clap::Args as ClapArgs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

#[derive(ClapArgs, Debug, Clone)]
pub struct Args {
    /// Controller A: a preset, or PRESET:WEIGHTS_FILE (see `tetris-lab list`).
    #[arg(required_unless_present = "resume")]
    pub a: Option<String>,
    /// Controller B, the challenger, as A.
    #[arg(required_unless_present = "resume")]
    pub b: Option<String>,
    /// Rule set both play (default: the presets', when they share one).
    #[arg(long)]
    pub rules: Option<String>,
    /// Board size WxH (rule sets that allow it, e.g. `simplified`).
    #[arg(long, value_parser = parse_size)]
    pub board: Option<(usize, usize)>,
    /// Master seed: pair i plays game i of `play --seed`, for both controllers [default: 1].
    #[arg(long)]
    pub seed: Option<u64>,
    /// What a game scores: rows, turns, score, or level (rule sets with levels) [default:
    /// rows].
    #[arg(long, value_parser = Fitness::parse)]
    pub fitness: Option<Fitness>,
    /// Stop each game (alive) after this many pieces.
    #[arg(long)]
    pub max_pieces: Option<u64>,
    /// A fixed number of pairs and the estimate, instead of the sequential test.
    #[arg(long, conflicts_with_all = ["gain", "alpha", "beta", "max_pairs"])]
    pub pairs: Option<u64>,
    /// The sequential test's gain in percent: "B is at least GAIN% better" against "B is no
    /// better".
    #[arg(long, value_parser = parse_percent)]
    pub gain: Option<f64>,
    /// The chance of calling B better when it is no better.
    #[arg(long, value_parser = parse_rate)]
    pub alpha: Option<f64>,
    /// The chance of calling B no better when it is GAIN% better.
    #[arg(long, value_parser = parse_rate)]
    pub beta: Option<f64>,
    /// The most pairs the sequential test plays before it stops undecided.
    #[arg(long)]
    pub max_pairs: Option<u64>,
    /// B plays other pieces than A (to see what the pairing saves).
    #[arg(long)]
    pub unpaired: bool,
    /// Worker threads (default: all cores; under mpirun, per rank). Results do not depend on it.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Folder under which the run folder <time>-seed<seed> is made.
    #[arg(long, value_name = "DIR", default_value = "results/compare", conflicts_with = "resume")]
    pub out: PathBuf,
    /// Continue a stopped comparison from its run folder (its games are kept).
    #[arg(long, value_name = "RUN_FOLDER")]
    pub resume: Option<PathBuf>,
}

const DEFAULT_SEED: u64 = 1;
const DEFAULT_GAIN: f64 = 5.0;
const DEFAULT_RATE: f64 = 0.05;
const DEFAULT_MAX_PAIRS: u64 = 20_000;
const MAX_PAIRS: u64 = crate::limits::MAX_GAMES / 2;

fn parse_percent(text: &str) -> Result<f64, String> {
    let number = text.trim().trim_end_matches('%');
    match number.parse::<f64>() {
        Ok(x) if x > 0.0 && x <= 1000.0 => Ok(x),
        _ => Err(format!("{text:?} is not a gain in percent above 0 and at most 1000 (e.g. 5 or 5%)")),
    }
}

fn parse_rate(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(x) if x > 0.0 && x < 0.5 => Ok(x),
        _ => Err(format!("{text:?} is not an error rate between 0 and 0.5 (e.g. 0.05)")),
    }
}

/// The settings that decide what a comparison measures (`--threads` and the output folder
/// aside), by their names on the command line, each with its value where it was given.
fn measured_settings(args: &Args) -> Vec<(&'static str, Option<String>)> {
    vec![
        ("controller A", args.a.clone()),
        ("controller B", args.b.clone()),
        ("--rules", args.rules.clone()),
        ("--board", args.board.map(|(w, h)| format!("{w}x{h}"))),
        ("--seed", args.seed.map(|s| s.to_string())),
        ("--fitness", args.fitness.map(|f| f.as_str().to_string())),
        ("--max-pieces", args.max_pieces.map(|m| m.to_string())),
        ("--pairs", args.pairs.map(|p| p.to_string())),
        ("--gain", args.gain.map(|g| g.to_string())),
        ("--alpha", args.alpha.map(|a| a.to_string())),
        ("--beta", args.beta.map(|b| b.to_string())),
        ("--max-pairs", args.max_pairs.map(|m| m.to_string())),
        ("--unpaired", args.unpaired.then(String::new)),
    ]
}

/// The arguments that decide what a comparison measures, as a command line, for
/// `--resume` (the seed and fitness always, with their defaults).
fn measured_arguments(args: &Args) -> Vec<String> {
    let mut out = vec![args.a.clone().unwrap_or_default(), args.b.clone().unwrap_or_default()];
    for (name, value) in measured_settings(&with_defaults(args)) {
        match (name.strip_prefix("--"), value) {
            (Some(_), Some(value)) if value.is_empty() => out.push(name.into()),
            (Some(_), Some(value)) => out.extend([name.to_string(), value]),
            _ => {}
        }
    }
    out
}

/// `args` with the seed and fitness they default to when not given.
fn with_defaults(args: &Args) -> Args {
    Args {
        seed: Some(args.seed.unwrap_or(DEFAULT_SEED)),
        fitness: Some(args.fitness.unwrap_or_default()),
        ..args.clone()
    }
}

fn setup_of(args: &Args) -> Result<Setup> {
    let side = |text: &Option<String>, name: &str| -> Result<Controller> {
        Controller::parse(text.as_deref().unwrap_or_default()).with_context(|| format!("controller {name}"))
    };
    if args.max_pieces == Some(0) {
        bail!("--max-pieces must be at least 1");
    }
    let mode = match args.pairs {
        Some(pairs) => {
            crate::limits::check_count("--pairs", pairs, MAX_PAIRS)?;
            Mode::Fixed { pairs }
        }
        None => {
            let max_pairs = args.max_pairs.unwrap_or(DEFAULT_MAX_PAIRS);
            crate::limits::check_count("--max-pairs", max_pairs, MAX_PAIRS)?;
            if max_pairs < MIN_PAIRS {
                bail!("--max-pairs {max_pairs}: the sequential test looks at no fewer than {MIN_PAIRS} pairs");
            }
            let test = Sequential {
                gain: args.gain.unwrap_or(DEFAULT_GAIN) / 100.0,
                alpha: args.alpha.unwrap_or(DEFAULT_RATE),
                beta: args.beta.unwrap_or(DEFAULT_RATE),
            };
            Mode::Sequential { test, max_pairs }
        }
    };
    Ok(Setup {
        a: side(&args.a, "A")?,
        b: side(&args.b, "B")?,
        rules: args.rules.clone(),
        board: args.board,
        seed: args.seed.unwrap_or(DEFAULT_SEED),
        fitness: args.fitness.unwrap_or_default(),
        max_pieces: args.max_pieces,
        unpaired: args.unpaired,
        mode,
    })
}

#[cfg(not(feature = "mpi"))]
pub fn run(args: Args) -> Result<()> {
    let pool = thread_pool(args.threads)?;
    run_with(args, &compare::Pool(&pool))
}

/// Under `mpirun` (or alone: a single rank runs like the plain build).
#[cfg(feature = "mpi")]
pub fn run(args: Args) -> Result<()> {
    use mpi::topology::Communicator;
    let (universe, _) = mpi::initialize_with_threading(mpi::Threading::Funneled)
        .context("cannot start MPI (is this binary run by mpirun with a working Open MPI?)")?;
    let world = universe.world();
    let pool = thread_pool(args.threads)?;
    if world.rank() != 0 {
        return compare::mpi::work(&world, &pool)
            .with_context(|| format!("MPI rank {} of {}", world.rank(), world.size()));
    }
    if world.size() == 1 {
        return run_with(args, &compare::Pool(&pool));
    }
    let ranks = compare::mpi::Ranks::new(&world, &pool)?;
    eprintln!("MPI: {} ranks (rank 0 runs the comparison and plays too)", world.size());
    let result = run_with(args, &ranks);
    ranks.finish();
    result
}

/// The comparison, its games played by `players`.
fn run_with(args: Args, players: &dyn compare::Players) -> Result<()> {
    let (args, resumed) = match &args.resume {
        Some(dir) => (resumed_arguments(dir, &args)?, Some(dir.clone())),
        None => (args, None),
    };
    let setup = setup_of(&args)?;
    let sides = setup.build()?;
    let run_dir = match &resumed {
        Some(dir) => dir.clone(),
        None => create_run_folder(&args.out, SystemTime::now(), setup.seed)?,
    };
    let ledger_path = run_dir.join("ledger.csv");
    let ledger = Ledger::open(&ledger_path).inspect_err(|_| {
        if resumed.is_none() {
            let _ = std::fs::remove_dir(&run_dir);
        }
    })?;
    compare::check_ledger(&setup, &sides, &ledger)?;
    let fitness = setup.fitness.as_str();
    eprintln!("A: {}\nB: {}", setup.a.describe(), setup.b.describe());
    eprintln!(
        "{} | {fitness} | seed {} | {} | {} thread(s) | output {}{}",
        sides.a.rules.describe(),
        setup.seed,
        files::describe_mode(&setup),
        players.threads(),
        run_dir.display(),
        if resumed.is_some() {
            format!(" | resumed, {} finished game(s) kept", ledger.earlier())
        } else {
            String::new()
        }
    );
    if let Some(cost) = setup.cost(&sides, players.threads()).filter(|_| resumed.is_none()) {
        eprintln!("{}", cost.note("--board 10x10 or --max-pieces N"));
    }
    write_manifest(&run_dir, &args, &setup, &sides, None)?;
    crate::interrupt::exit_on_ctrl_c(format!(
        "stopped: every finished game is in {}; `tetris-lab compare --resume {}` plays the rest",
        ledger_path.display(),
        run_dir.display()
    ));
    let start = Instant::now();
    let bounds = match setup.mode {
        Mode::Sequential { test, .. } => Some(test.bounds()),
        Mode::Fixed { .. } => None,
    };
    let outcome = with_progress("pairs", setup.mode.max_pairs(), false, |live, bar| {
        compare::run(&setup, &sides, &ledger, players, live, &mut |progress| {
            bar.set_position(progress.sums.pairs);
            let ratio = progress.sums.mean_b() / progress.sums.mean_a();
            bar.set_prefix(match (progress.llr, bounds) {
                (Some(llr), Some((low, high))) => {
                    format!("pairs | B/A {ratio:.3} | LLR {llr:.2} in [{low:.2}, {high:.2}]")
                }
                _ => format!("pairs | B/A {ratio:.3}"),
            });
        })
    })?;
    let seconds = start.elapsed().as_secs_f64();
    files::write_pairs(&run_dir.join("pairs.csv"), &setup, &sides, &outcome)?;
    write_manifest(&run_dir, &args, &setup, &sides, Some((&outcome, seconds)))?;
    print!("{}", files::report(&setup, &sides, &outcome));
    println!("results in {}", run_dir.display());
    Ok(())
}

fn write_manifest(
    dir: &Path,
    args: &Args,
    setup: &Setup,
    sides: &Sides,
    finished: Option<(&Outcome, f64)>,
) -> Result<()> {
    let mut fields =
        merged(serde_json::json!({ "compare_arguments": measured_arguments(args) }), files::setup_fields(setup, sides));
    if let Some((outcome, seconds)) = finished {
        fields = merged(fields, files::result_fields(outcome, seconds));
    }
    let path = dir.join("manifest.json");
    let mut file = AtomicFile::create(&path)?;
    serde_json::to_writer_pretty(file.writer(), &provenance("compare", fields))
        .with_context(|| format!("cannot write {}", path.display()))?;
    writeln!(file.writer()).with_context(|| format!("cannot write {}", path.display()))?;
    file.commit()
}

/// The stored comparison's arguments, with this command's `--threads`. A setting given
/// again must be the stored one: a resumed comparison keeps its settings.
fn resumed_arguments(dir: &Path, given: &Args) -> Result<Args> {
    let parsed: Args = super::stored_arguments(dir, "compare")?;
    let stored = measured_settings(&with_defaults(&parsed));
    super::refuse_changed_settings(dir, "comparison", measured_settings(given), stored)?;
    Ok(Args { threads: given.threads, resume: None, ..parsed })
}
