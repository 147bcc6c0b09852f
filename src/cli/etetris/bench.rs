//! `tetris-lab etetris bench`: times the beam solver at several beam widths on 1 and 2
//! threads and prints a Markdown table (k, score, CPU seconds and wall seconds per thread
//! count) beside the contest solver's published C++ figures.

use super::moves_parser;
use crate::etetris::checked::{check, solve_with_progress};
use crate::etetris::game::{sequence, PIECE_LIMIT};
use crate::etetris::runs::checked_options;
use crate::etetris::solver::MoveSet;
use crate::support::threads::thread_pool;
use anyhow::{ensure, Context, Result};
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Beam widths, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = [100, 300, 1000])]
    pub beams: Vec<usize>,
    /// Thread counts to time at, comma-separated (each at most the cores).
    #[arg(long, value_delimiter = ',', default_values_t = [1, 2])]
    pub thread_counts: Vec<usize>,
    /// Move set (as `etetris solve --moves`).
    #[arg(long, value_parser = moves_parser(), default_value = "seed")]
    pub moves: MoveSet,
    // As `solve --weights`: its help names the keys (from `etetris::weights::TERMS`).
    #[arg(long, help = super::weights_help(), long_help = super::weights_long_help())]
    pub weights: Option<PathBuf>,
    /// Pieces to place.
    #[arg(long, default_value_t = PIECE_LIMIT)]
    pub max_pieces: usize,
}

/// The seed's C++ solver measured on a 2-core machine like ours, scored by the game's
/// rules (`shared/spec/etetris.md`): (k, score, CPU seconds).
const SEED_FIGURES: [(usize, u64, f64); 4] =
    [(100, 1_271_214, 12.7), (300, 1_286_730, 38.1), (1000, 1_304_058, 176.8), (3000, 1_314_542, 595.0)];

/// User + system CPU seconds of this process so far (all threads).
fn cpu_seconds() -> f64 {
    // SAFETY: getrusage only writes into the struct we pass.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

pub fn run(args: Args) -> Result<()> {
    ensure!(!args.thread_counts.contains(&0), "--thread-counts must be at least 1");
    // Timings at more threads than cores would measure the scheduler, not the solver:
    // such counts are left out (the default 1,2 still runs on one core).
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let (mut thread_counts, left_out): (Vec<usize>, Vec<usize>) = args.thread_counts.iter().partition(|&&t| t <= cores);
    thread_counts.dedup();
    ensure!(!thread_counts.is_empty(), "--thread-counts: every count is above the {cores} core(s) of this machine");
    for threads in left_out {
        eprintln!("note: --thread-counts {threads} left out: this machine has {cores} core(s)");
    }
    // Validate every setting before the first run.
    let settings = args
        .beams
        .iter()
        .map(|&beam| Ok((beam, checked_options(beam, args.max_pieces, args.weights.as_deref(), args.moves)?)))
        .collect::<Result<Vec<_>>>()?;
    let mut header = "| k | score |".to_string();
    let mut rule = "|---:|---:|".to_string();
    for t in &thread_counts {
        header += &format!(" CPU-s {t}T | wall-s {t}T |");
        rule += "---:|---:|";
    }
    header += " contest solver score | contest solver CPU-s | CPU speed-up |";
    rule += "---:|---:|---:|";
    println!("{header}\n{rule}");
    for (beam, options) in settings {
        let mut score = None;
        let mut line = String::new();
        let mut first_cpu = None;
        for &threads in &thread_counts {
            let pool = thread_pool(Some(threads))?;
            let (cpu, wall) = (cpu_seconds(), Instant::now());
            let solution = pool.install(|| solve_with_progress(options, args.max_pieces, false));
            let (cpu, wall) = (cpu_seconds() - cpu, wall.elapsed().as_secs_f64());
            let replayed =
                check(&sequence(args.max_pieces), &solution, args.moves).with_context(|| format!("k={beam}"))?.1.score;
            ensure!(score.is_none_or(|s| s == replayed), "k={beam}: the score changed with the thread count");
            score = Some(replayed);
            first_cpu.get_or_insert(cpu);
            line += &format!(" {cpu:.1} | {wall:.1} |");
            eprintln!("k={beam} threads={threads}: score {replayed}, {cpu:.1} CPU-s, {wall:.1} s");
        }
        let seed =
            SEED_FIGURES.iter().find(|f| f.0 == beam && args.max_pieces == PIECE_LIMIT && args.moves == MoveSet::Seed);
        let (seed_score, seed_cpu, speed_up) = match (seed, first_cpu) {
            (Some(&(_, s, c)), Some(ours)) => (s.to_string(), format!("{c:.1}"), format!("{:.1}x", c / ours)),
            _ => ("-".into(), "-".into(), "-".into()),
        };
        println!("| {beam} | {} |{line} {seed_score} | {seed_cpu} | {speed_up} |", score.unwrap_or(0));
    }
    Ok(())
}
