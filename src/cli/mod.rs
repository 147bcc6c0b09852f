//! Command-line interface: one file per subcommand, each with its clap `Args` and a `run`.
//! Errors are printed once as `error: cause: context` and give exit code 1 (2 for usage).

use anyhow::{bail, Result};
use clap::{Parser, Subcommand};

pub mod bench;
pub mod best;
pub mod boards;
pub mod compare;
pub mod etetris;
pub mod extrapolate;
pub mod features;
pub mod learn;
pub mod list;
pub mod pictures;
pub mod play;
pub mod plot;
pub mod renamed;
pub mod reproduce;
pub mod tune;
pub mod watch;
pub mod weights;

#[derive(Parser, Debug)]
#[command(
    name = "tetris-lab",
    version,
    about = "A workbench for tuning and studying Tetris-playing AIs",
    arg_required_else_help = true,
    after_help = "Start with `tetris-lab tune` (a short tuning campaign); the guide is README.md."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Play seeded games of a preset in parallel and summarise rows cleared.
    Play(play::PlayArgs),
    /// Print a preset's feature values for every board of a file (CSV).
    Features(features::FeaturesArgs),
    /// Show the placement a preset chooses on every board of a file.
    Best(best::BestArgs),
    /// List rule sets, features, presets and policies.
    List,
    /// Print a preset's published weights as a weights file to edit (`> my.toml`).
    Weights(weights::Args),
    /// Is controller B better than A? Paired games, a fixed count or a sequential test.
    Compare(compare::Args),
    /// Measure every preset against its published figure and write the table.
    Reproduce(reproduce::ReproduceArgs),
    /// Fit full games' mean against the board height and carry it to a taller board.
    Extrapolate(extrapolate::ExtrapolateArgs),
    /// Watch a game of any preset move by move (or replay a game trace or a frames file).
    Watch(watch::WatchArgs),
    /// The E-Tetris contest game: solve, replay, polish and splice records.
    Etetris(etetris::Args),
    /// Time the game loop: every preset's decisions per CPU-second, games per second.
    Bench(bench::Args),
    /// Run a tuning campaign from an experiment file (default experiments/quickstart.toml).
    Tune(tune::TuneArgs),
    /// Run a learner (lambda-PI, LSPI, CBMPI, DPI, cross-entropy) from an experiment file.
    Learn(learn::LearnArgs),
    /// Draw fitness plots of one or several tuning runs.
    Plot(plot::PlotArgs),
}

/// Runs the command line and returns the process exit code.
pub fn main() -> i32 {
    // The commit this build was made from (`build.rs`), for the manifests every run writes.
    crate::support::run_dir::set_git_hash(env!("TETRIS_LAB_GIT_HASH"));
    // Rust ignores SIGPIPE, so `println!` into a pipe whose reader has gone (`etetris replay ...
    // | head`) panics. Ending quietly, as other Unix tools do, is what a user expects.
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to the default, before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help and --version.
            let _ = e.print();
            return 0;
        }
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            // A bare `tetris-lab`: the commands, and a usage error's exit code.
            let _ = e.print();
            return 2;
        }
        Err(e) => {
            let arguments: Vec<String> = std::env::args().skip(1).collect();
            let line = renamed::hint(&e, &arguments).unwrap_or_else(|| clap_error_line(&e));
            eprintln!("error: {line} (see --help)");
            return 2;
        }
    };
    match run(cli) {
        Ok(Ended::Finished) => 0,
        Ok(Ended::Interrupted) => crate::interrupt::INTERRUPTED_EXIT_CODE,
        Err(e) => {
            if is_broken_pipe(&e) {
                return 0;
            }
            eprintln!("error: {e:#}");
            1
        }
    }
}

/// A clap error on one line, as every other error, without clap's "error: ": its first
/// line (clap's own message; the usage and hint after it say nothing a user needs that
/// `--help` does not), what a first line ending in ':' lists on the indented lines after
/// it, and its "tip:" lines (a did-you-mean). `main` prints it for the command line,
/// `versus` for a side's flags, `solve` and `polish` for a checkpoint's stored arguments.
pub(crate) fn clap_error_line(error: &clap::Error) -> String {
    let rendered = error.render().to_string();
    let mut lines = rendered.lines().skip_while(|l| l.trim().is_empty());
    let first = lines.next().unwrap_or("bad arguments").trim_end();
    let mut message = first.strip_prefix("error: ").unwrap_or(first).to_string();
    if message.ends_with(':') {
        let listed: Vec<&str> =
            lines.take_while(|l| l.starts_with(' ') && !l.trim().is_empty()).map(str::trim).collect();
        message = format!("{message} {}", listed.join(", "));
    }
    for tip in rendered.lines().map(str::trim).filter(|l| l.starts_with("tip:")) {
        message += &format!("; {tip}");
    }
    message
}

/// A command's arguments `A` parsed back from the list a run stored (`command ARGS...`),
/// as `--resume` reads them.
#[derive(Parser)]
pub(crate) struct Stored<A: clap::Args> {
    #[command(flatten)]
    pub args: A,
}

/// The arguments a run folder's `manifest.json` keeps for `--resume` (the list
/// `<command>_arguments`), parsed as `A` parses a command line; refused when the folder
/// holds no run of `command`.
pub(crate) fn stored_arguments<A: clap::Args>(dir: &std::path::Path, command: &str) -> Result<A> {
    use anyhow::Context as _;
    let path = dir.join("manifest.json");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot resume {}: no manifest.json (not a {command} run folder?)", dir.display()))?;
    let manifest: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{}: not valid JSON", path.display()))?;
    let field = |name: &str| manifest.get(name).with_context(|| format!("{}: field {name} is missing", path.display()));
    if field("command")?.as_str() != Some(command) {
        bail!("{}: field command: not a {command} run", path.display());
    }
    let key = format!("{command}_arguments");
    let arguments: Vec<String> = field(&key)?
        .as_array()
        .and_then(|items| items.iter().map(|item| item.as_str().map(String::from)).collect())
        .with_context(|| format!("{}: field {key}: expected a list of strings", path.display()))?;
    Stored::<A>::try_parse_from(std::iter::once(command.to_string()).chain(arguments))
        .map(|stored| stored.args)
        .map_err(|e| anyhow::anyhow!("{}: field {key}: {}", path.display(), clap_error_line(&e)))
}

/// Refuses a setting given again on `--resume` that differs from the stored run's:
/// `given` and `stored` list the same settings in the same order, by their names on the
/// command line, each with its value where it was given (an empty value for a switch).
pub(crate) fn refuse_changed_settings(
    dir: &std::path::Path,
    what: &str,
    given: Vec<(&'static str, Option<String>)>,
    stored: Vec<(&'static str, Option<String>)>,
) -> Result<()> {
    for ((name, again), (_, kept)) in given.into_iter().zip(stored) {
        if let Some(again) = again.filter(|again| Some(again) != kept.as_ref()) {
            let shown = |value: &str| if value.is_empty() { name.to_string() } else { format!("{name} {value}") };
            bail!(
                "cannot resume {}: {} differs from the {what}'s {} (a resumed {what} keeps its settings; only \
                 --threads may be given again)",
                dir.display(),
                shown(&again),
                kept.as_deref().map_or_else(|| format!("{name} (not given)"), shown)
            );
        }
    }
    Ok(())
}

/// How a command ended. A command stopped by Ctrl-C, SIGTERM or SIGHUP at a safe point
/// (its work saved) returns `Interrupted`, and [`main`] alone turns that into the exit code
/// of an interrupted command; those with no safe point exit from the signal handler with
/// the same code ([`crate::interrupt::exit_on_ctrl_c`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    Finished,
    Interrupted,
}

/// The number of ranks an MPI launcher started, from the environment it sets (Open MPI,
/// MPICH/PMI, Slurm's srun).
pub(crate) fn launcher_ranks() -> Option<u64> {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"]
        .iter()
        .find_map(|name| std::env::var(name).ok().and_then(|value| value.trim().parse().ok()))
}

fn run(cli: Cli) -> Result<Ended> {
    // Only `tune`, `compare` and `learn` share their work among MPI ranks (with the `mpi` build);
    // any other command started as one of several would run whole on every rank, each
    // writing its own copy of the results, and so would those three without MPI.
    if let Some(ranks) = launcher_ranks().filter(|&n| n > 1) {
        let spreads = matches!(cli.command, Command::Tune(_) | Command::Compare(_) | Command::Learn(_));
        if !spreads {
            bail!(
                "started as one of {ranks} MPI ranks, but only `tune`, `compare` and `learn` run across ranks: \
                 every rank would run this command whole; start it without mpirun (see docs/clusters.md)"
            );
        }
        if !cfg!(feature = "mpi") {
            bail!(
                "started as one of {ranks} MPI ranks, but this binary was built without MPI: \
                 build it with `cargo build --release --features mpi` (see docs/clusters.md)"
            );
        }
    }
    // Commands with no point to stop at and go on from end at once on Ctrl-C, SIGTERM or
    // SIGHUP, removing the temporary of any output being written (the others install their
    // own stop: `tune`, `reproduce`, `etetris`, `watch`).
    if matches!(
        cli.command,
        Command::Play(_)
            | Command::Features(_)
            | Command::Best(_)
            | Command::Bench(_)
            | Command::Plot(_)
            | Command::Extrapolate(_)
    ) {
        crate::interrupt::exit_on_ctrl_c("stopped: no output file of this command was written".into());
    }
    match cli.command {
        Command::Play(args) => play::run(args).map(|()| Ended::Finished),
        Command::Features(args) => features::run(args).map(|()| Ended::Finished),
        Command::Best(args) => best::run(args).map(|()| Ended::Finished),
        Command::List => list::run().map(|()| Ended::Finished),
        Command::Weights(args) => weights::run(args).map(|()| Ended::Finished),
        Command::Compare(args) => compare::run(args).map(|()| Ended::Finished),
        Command::Reproduce(args) => reproduce::run(args).map(|()| Ended::Finished),
        Command::Extrapolate(args) => extrapolate::run(args).map(|()| Ended::Finished),
        Command::Watch(args) => watch::run(args).map(|()| Ended::Finished),
        Command::Etetris(args) => etetris::run(args),
        Command::Bench(args) => bench::run(args).map(|()| Ended::Finished),
        Command::Tune(args) => tune::run(args),
        Command::Learn(args) => learn::run(args),
        Command::Plot(args) => plot::run(args).map(|()| Ended::Finished),
    }
}

/// A closed stdout (e.g. `| head`) is not an error worth reporting.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    let broken = |io: &std::io::Error| io.kind() == std::io::ErrorKind::BrokenPipe;
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>().is_some_and(broken)
            || c.downcast_ref::<csv::Error>().is_some_and(|e| matches!(e.kind(), csv::ErrorKind::Io(io) if broken(io)))
    })
}

/// Splits a flag's `A..B` into its two numbers (`what` names them in the error, e.g.
/// "LOW..HIGH"); the flag checks their bounds itself.
fn parse_range(text: &str, what: &str) -> std::result::Result<(usize, usize), String> {
    let (first, end) =
        text.split_once("..").ok_or_else(|| format!("{} is not a range {what}", crate::names::Quoted(text)))?;
    let number = |part: &str| {
        part.trim().parse::<usize>().map_err(|_| {
            format!(
                "{} in {} is not a whole number (a range {what})",
                crate::names::Quoted(part),
                crate::names::Quoted(text)
            )
        })
    };
    Ok((number(first)?, number(end)?))
}
