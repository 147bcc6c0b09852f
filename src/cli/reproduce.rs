//! `tetris-lab reproduce`: plays every preset the way its published figure was measured
//! (or the cheapest honest substitute: a reduced board, a piece cap, or an extrapolation
//! over board heights from full games on shorter boards) and prints one table of measured
//! against published figures, also written as CSV and Markdown to
//! `results/reproduce/<run-id>/` with a manifest and the ledger of every game, from which
//! `--resume DIR` continues a stopped run.
//!
//! What is measured, and how, is the library's [`crate::reproduce`]; this command reads the
//! arguments, prints the progress and the table, and writes the run's files.

use crate::board::parse_size;
use crate::presets;
use crate::report::ledger::Ledger;
use crate::reproduce::{
    duration, markdown_table, measure, method_name, remaining_pieces, select, text_table, warm_up, Measuring, Planned,
    Row, Selection,
};
use crate::sim::GameRecord;
use crate::support::atomic_file::AtomicFile;
use crate::support::text::{figure_text, group};
use crate::support::threads::thread_pool;
use anyhow::{Context, Result};
use clap::Args;
use std::collections::BTreeMap;
use std::io::Write as _;
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
        None => create_run_dir(&args.out, started, args.seed)?,
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
            pool.install(|| print_time_estimate(&selection, threads, args.seed, &ledger));
        }
        let mut rows = Vec::new();
        let mut games_csv = Vec::new();
        let mut rule_sets = BTreeMap::new();
        // The manifest first: a run stopped during its first measurement can be resumed.
        let run = Run { args: &args, threads, full, started, planned: selection.len() };
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
            let run = Run { args: &args, threads, full, started, planned: selection.len() };
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

/// Prints, before `--full` starts, how many pieces each measurement should still take
/// (its games already in the ledger of a resumed run left out) and how long that is at the
/// per-piece speed of a short single-threaded warm-up.
fn print_time_estimate(selection: &[Planned], threads: usize, seed: u64, ledger: &Ledger) {
    eprintln!("time estimate (warm-up speed per thread x {threads} thread(s), perfect scaling assumed):");
    let mut total = 0.0;
    let mut unknown = 0;
    for planned in selection {
        let m = &planned.measurement;
        let Some(preset) = presets::REGISTRY.iter().find(|p| p.name == m.preset) else { continue };
        let Ok(built) = preset.build(planned.board, None) else { continue };
        let board = built.rules.new_board();
        let remaining = remaining_pieces(planned, board.width(), board.height(), seed, ledger);
        let done = match remaining.finished {
            0 => String::new(),
            finished if finished == remaining.planned => "done: ".to_string(),
            finished => format!("{} of {} games done, ", group(finished as f64, 0), group(remaining.planned as f64, 0)),
        };
        let line = if remaining.finished == remaining.planned {
            "every game in the ledger".to_string()
        } else {
            let speed = warm_up(built.driver());
            let parallel = threads.min((remaining.planned - remaining.finished) as usize).max(1);
            match remaining.pieces {
                Some(pieces) => {
                    let seconds = pieces / (speed * parallel as f64);
                    total += seconds;
                    format!(
                        "{} pieces left at {:.0} pieces/s per thread: {}",
                        group(pieces, 0),
                        speed,
                        duration(seconds)
                    )
                }
                None => {
                    unknown += 1;
                    format!("unknown length (no published figure to size it), {speed:.0} pieces/s per thread")
                }
            }
        };
        eprintln!(
            "  {:<24} {:>6}x{:<3} {:<12} {done}{line}",
            m.preset,
            board.width(),
            board.height(),
            method_name(m.method),
        );
    }
    eprintln!(
        "total: about {}{}",
        duration(total),
        if unknown > 0 { format!(" plus {unknown} measurement(s) of unknown length") } else { String::new() }
    );
}

/// What the output files say about the run as a whole.
struct Run<'a> {
    args: &'a ReproduceArgs,
    threads: usize,
    full: bool,
    started: SystemTime,
    /// Measurements selected (rows written so far may be fewer).
    planned: usize,
}

fn write_outputs(
    dir: &Path,
    rows: &[Row],
    games: &[(usize, String, String, GameRecord)],
    run: &Run,
    finished: SystemTime,
    rule_sets: &BTreeMap<String, String>,
) -> Result<()> {
    let Run { args, threads, full, started, planned } = *run;
    let mut table = AtomicFile::create(&dir.join("table.csv"))?;
    {
        let mut w = csv::Writer::from_writer(table.writer());
        w.write_record([
            "preset",
            "rule_set",
            "board",
            "games",
            "metric",
            "mean",
            "low_95",
            "high_95",
            "published",
            "published_tolerance",
            "published_source",
            "inside",
            "kind",
            "how_measured",
            "seconds",
        ])?;
        for r in rows {
            let number = |x: Option<f64>| x.map(|v| format!("{v}")).unwrap_or_default();
            w.write_record([
                r.preset.clone(),
                r.rule_set.clone(),
                r.board.clone(),
                r.count.clone(),
                r.metric.to_string(),
                number(r.mean),
                number(r.interval.map(|i| i.0)),
                number(r.interval.map(|i| i.1)),
                number(r.published.map(|p| p.value)),
                number(r.published.and_then(|p| p.tolerance)),
                r.published.map(|p| p.source.to_string()).unwrap_or_default(),
                r.verdict.clone(),
                r.kind.to_string(),
                r.method.clone(),
                format!("{:.3}", r.seconds),
            ])?;
        }
        w.flush()?;
    }
    table.commit()?;

    let mut per_game = AtomicFile::create(&dir.join("games.csv"))?;
    {
        let mut w = csv::Writer::from_writer(per_game.writer());
        w.write_record(["measurement", "preset", "board", "seed", "lines", "pieces", "score", "end"])?;
        for (measurement, preset, board, r) in games {
            w.write_record([
                measurement.to_string(),
                preset.clone(),
                board.clone(),
                r.seed.to_string(),
                r.lines.to_string(),
                r.pieces.to_string(),
                r.score.to_string(),
                r.end.as_str().to_string(),
            ])?;
        }
        w.flush()?;
    }
    per_game.commit()?;

    let mut markdown = AtomicFile::create(&dir.join("table.md"))?;
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0);
    writeln!(
        markdown.writer(),
        "# tetris-lab reproduce ({})\n\nSeed {}, {} thread(s) on a {}-core machine, {} to {} UTC, tetris-lab {}.\n",
        if full { "--full" } else { "--quick" },
        args.seed,
        threads,
        cores,
        utc_text(started),
        utc_text(finished),
        env!("CARGO_PKG_VERSION"),
    )?;
    write!(markdown.writer(), "{}", markdown_table(rows))?;
    writeln!(
        markdown.writer(),
        "\n\"inside\": the published figure lies in the measured 95% interval; \"overlap\": it does not, \
         but the published figure's own interval overlaps ours. An estimate's interval is the fit's: \
         sampling error, widened by the scatter about the line, Student's t; see \"check\" for how \
         far the line carried on before."
    )?;
    markdown.commit()?;

    let manifest = serde_json::json!({
        "command": "reproduce",
        "arguments": std::env::args().skip(1).collect::<Vec<_>>(),
        "mode": if full { "full" } else { "quick" },
        "seed": args.seed,
        "threads": threads,
        "cores": cores,
        "crate_version": env!("CARGO_PKG_VERSION"),
        "git_hash": crate::support::run_dir::git_hash(),
        "started_utc": utc_text(started),
        "updated_utc": utc_text(finished),
        "rule_set_versions": rule_sets,
        "reproduce_arguments": measured_arguments(args),
        "ledger": "ledger.csv",
        "measurements_planned": planned,
        "measurements_done": rows.len(),
    });
    let mut file = AtomicFile::create(&dir.join("manifest.json"))?;
    serde_json::to_writer_pretty(file.writer(), &manifest)?;
    writeln!(file.writer())?;
    file.commit()
}

/// Creates `<out>/<UTC stamp>-seed<seed>`, adding `-2`, `-3`, ... when that exists, so a run
/// never writes into an earlier one.
fn create_run_dir(out: &Path, started: SystemTime, seed: u64) -> Result<PathBuf> {
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    crate::support::run_dir::create_unique(out, &format!("{}-seed{}", crate::support::run_dir::stamp(started), seed))
}

/// `2026-11-29 12:41:00`.
fn utc_text(time: SystemTime) -> String {
    let (y, mo, d, h, mi, s) = crate::support::run_dir::utc_parts(time);
    format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn utc_dates() {
        // 2000-02-29 12:34:56 UTC (a leap day).
        assert_eq!(utc_text(UNIX_EPOCH + Duration::from_secs(951_827_696)), "2000-02-29 12:34:56");
    }
}
