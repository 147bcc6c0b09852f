//! `tetris-lab bench`: decisions per CPU-second of every preset, games per second on 1 and
//! 2 threads and the parallel efficiency (`src/benchmark.rs`). The E-Tetris solver's timing
//! is `tetris-lab etetris bench`.

use anyhow::{ensure, Result};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// CPU seconds of play per preset.
    #[arg(long, default_value_t = 1.0)]
    pub seconds: f64,
    /// Pieces at most per game.
    #[arg(long, default_value_t = 20_000)]
    pub max_pieces: u64,
    /// Games for the 1- and 2-thread rates (enough for a few tenths of a second each:
    /// shorter runs make the efficiency noisy).
    #[arg(long, default_value_t = 200)]
    pub games: u64,
}

/// The longest run a preset may take (`--seconds`): a day.
const MAX_BENCH_SECONDS: f64 = 86_400.0;

pub fn run(args: Args) -> Result<()> {
    ensure!(args.seconds.is_finite() && args.seconds > 0.0, "--seconds must be a positive number");
    ensure!(
        args.seconds <= MAX_BENCH_SECONDS,
        "--seconds = {} is more than the limit of {MAX_BENCH_SECONDS} (a day)",
        args.seconds
    );
    ensure!(args.max_pieces > 0 && args.games > 0, "--max-pieces and --games must be at least 1");
    let report =
        crate::benchmark::run_presets(std::time::Duration::from_secs_f64(args.seconds), args.max_pieces, args.games)?;
    crate::benchmark::print_rounded(&report);
    Ok(())
}
