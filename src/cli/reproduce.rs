//! `tetris-lab reproduce`: plays every preset the way its published figure was measured
//! (or the cheapest honest substitute: a reduced board, a piece cap, or an extrapolation
//! over board heights from full games on shorter boards) and prints one table of measured
//! against published figures, also written as CSV and Markdown to
//! `results/reproduce/<run-id>/` with a manifest and the ledger of every game, from which
//! `--resume RUN_FOLDER` continues a stopped run.
//!
//! What is measured, and how, is the library's [`crate::reproduce`]; this command reads the
//! arguments, prints the progress and the table, and has the run's files written.

use crate::board::parse_size;
use crate::report::ledger::Ledger;
use crate::reproduce::files::{time_estimate, write_outputs, Run};
use crate::reproduce::{measure, select, text_table, Measuring, Selection};
use crate::support::run_dir::create_run_folder;
use crate::support::text::figure_text;
use crate::support::threads::thread_pool;
use anyhow::Result;
use clap::Args;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

#[derive(Args, Debug)]
pub struct ReproduceArgs {
    /// Presets to measure (default: every preset of `tetris-lab list`, and etetris).
    pub presets: Vec<String>,
    /// The cheap checks (default): full games where they are short, extrapolations over
    /// board heights for the 10x20 figures; about 5 minutes on 2 cores.
    #[arg(long, conflicts_with = "full")]
    pub quick: bool,
    /// Every measurement of the plan, full games on the published boards included; prints
    /// its time estimate first (hours on 2 cores; `--resume` continues a stopped run).
    #[arg(long)]
    pub full: bool,
    /// Continue the run in this folder (one `reproduce` wrote): its finished games are kept,
    /// the missing ones played, and the table completed as if the run had never stopped. The
    /// presets, mode and seed are the run's own (its `manifest.json`).
    #[arg(long, value_name = "RUN_FOLDER", conflicts_with_all = ["presets", "quick", "full", "games", "heights", "board", "out"])]
    pub resume: Option<PathBuf>,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Master seed: game i of every measurement is seeded from (seed, i).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Folder under which the run folder <time>-seed<seed>/ is made.
    #[arg(long, value_name = "DIR", default_value = "results/reproduce")]
    pub out: PathBuf,
    /// Testing: play this many games in every game measurement (per height in an
    /// extrapolation).
    #[arg(long, hide = true)]
    pub games: Option<u64>,
    /// Testing: the heights an extrapolation plays, `LOW..HIGH` (both included).
    #[arg(long, hide = true, value_parser = parse_heights)]
    pub heights: Option<(usize, usize)>,
    /// Testing: replace the board of every measurement on a resizable board.
    #[arg(long, hide = true, value_parser = parse_size)]
    pub board: Option<(usize, usize)>,
}

pub fn run(args: ReproduceArgs) -> Result<()> {
    let (args, resumed) = match &args.resume {
        Some(dir) => (resumed_arguments(dir, &args)?, Some(dir.clone())),
        None => (args, None),
    };
    let full = args.full;
    let selection = select(&Selection {
        presets: args.presets.clone(),
        full: args.full,
        games: args.games,
        heights: args.heights,
        board: args.board,
    })?;
    let pool = thread_pool(args.threads)?;
    let threads = pool.current_num_threads();
    let started = SystemTime::now();
    let run_dir = match &resumed {
        Some(dir) => dir.clone(),
        None => create_run_folder(&args.out, started, args.seed)?,
    };
    let ledger_path = run_dir.join("ledger.csv");
    let ledger = match Ledger::open(&ledger_path) {
        Ok(ledger) => ledger,
        Err(e) => {
            if resumed.is_none() {
                let _ = std::fs::remove_dir(&run_dir);
            }
            return Err(e);
        }
    };
    eprintln!(
        "reproduce ({}) | seed {} | {} thread(s) | output {}{}",
        if full { "full" } else { "quick" },
        args.seed,
        threads,
        run_dir.display(),
        if resumed.is_some() {
            format!(" | resumed, {} finished game(s) kept", ledger.earlier())
        } else {
            String::new()
        }
    );

    let result = (|| -> Result<()> {
        if full {
            eprint!("{}", pool.install(|| time_estimate(&selection, threads, args.seed, &ledger)));
        }
        let mut rows = Vec::new();
        let mut games_csv = Vec::new();
        let mut rule_sets = BTreeMap::new();
        // The manifest first: a run stopped during its first measurement can be resumed.
        let run = Run {
            seed: args.seed,
            threads,
            full,
            started,
            planned: selection.len(),
            arguments: measured_arguments(&args),
        };
        write_outputs(&run_dir, &rows, &games_csv, &run, SystemTime::now(), &rule_sets)?;
        // No safe point to wait for (a game can take hours): Ctrl-C exits at once, saying
        // what is kept and how to go on.
        crate::interrupt::exit_on_ctrl_c(format!(
            "stopped: every finished game is in {}; `tetris-lab reproduce --resume {}` plays the rest",
            ledger_path.display(),
            run_dir.display()
        ));
        for (index, planned) in selection.iter().enumerate() {
            let context = Measuring { seed: args.seed, index, ledger: &ledger };
            let row = pool.install(|| measure(planned, &context, &mut games_csv, &mut rule_sets))?;
            eprintln!(
                "[{}/{}] {} {} {}: {} {} ({:.1} s)",
                rows.len() + 1,
                selection.len(),
                row.preset,
                row.rule_set,
                row.board,
                row.mean.map(figure_text).unwrap_or_else(|| "-".into()),
                row.metric,
                row.seconds
            );
            rows.push(row);
            // Rewritten after every measurement; the ledger keeps every finished game in
            // between (the manifest says how many of the planned rows are done).
            write_outputs(&run_dir, &rows, &games_csv, &run, SystemTime::now(), &rule_sets)?;
        }
        print!("{}", text_table(&rows));
        eprintln!("wrote {}", run_dir.display());
        Ok(())
    })();
    if result.is_err() && resumed.is_none() && ledger.is_empty() {
        // Leave no empty run directory behind a failed run (never removes a finished game).
        let _ = std::fs::remove_file(&ledger_path);
        let _ = std::fs::remove_dir(&run_dir);
    }
    result
}

/// The arguments of the run in `dir`, from its manifest, with this command's `--threads`.
fn resumed_arguments(dir: &Path, given: &ReproduceArgs) -> Result<ReproduceArgs> {
    let parsed: ReproduceArgs = super::stored_arguments(dir, "reproduce")?;
    Ok(ReproduceArgs { threads: given.threads, resume: None, ..parsed })
}

/// The arguments that decide what a run measures, as a command line (`--threads` aside,
/// which changes only the speed), for `--resume`.
fn measured_arguments(args: &ReproduceArgs) -> Vec<String> {
    let mut out: Vec<String> = args.presets.clone();
    out.push(if args.full { "--full".into() } else { "--quick".into() });
    out.extend(["--seed".to_string(), args.seed.to_string()]);
    if let Some(games) = args.games {
        out.extend(["--games".to_string(), games.to_string()]);
    }
    if let Some((low, high)) = args.heights {
        out.extend(["--heights".to_string(), format!("{low}..{high}")]);
    }
    if let Some((width, height)) = args.board {
        out.extend(["--board".to_string(), format!("{width}x{height}")]);
    }
    out
}

/// `8..14` -> (8, 14).
fn parse_heights(text: &str) -> std::result::Result<(usize, usize), String> {
    let (low, high) = super::parse_range(text, "LOW..HIGH")?;
    if low < 4 || high < low + 2 {
        return Err(format!("{}: an extrapolation needs three heights or more, from 4 up", crate::names::Quoted(text)));
    }
    crate::board::Board::check_size(4, high).map_err(|e| e.to_string())?;
    Ok((low, high))
}
