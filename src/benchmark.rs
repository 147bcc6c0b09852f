//! The simulator benchmark: one-piece Dellacherie decisions per second per core on
//! `simplified` 10x10 and 10x20, nanoseconds per place-and-clear, and games per second at
//! 1 and 2 threads with the parallel efficiency. Run by `cargo bench --bench simulator`
//! (and `tetris-lab bench`, which also rates every preset); never by a test, since
//! timings are not test material.

use crate::piece::Piece;
use crate::presets::{self, Built};
use crate::randomizer::game_seed;
use crate::rules::{simplified::Simplified, RuleSet};
use crate::sim::{self, GameLimits};
use std::time::{Duration, Instant};

/// One measured line of the report.
#[derive(Clone, Debug)]
pub struct Measurement {
    pub name: String,
    pub value: f64,
    pub unit: &'static str,
}

/// CPU time consumed by the calling thread: per-core rates are measured against it, so
/// they hold on a loaded machine too (wall-clock rates are reported beside them).
pub fn thread_cpu_seconds() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes into the timespec we own; CLOCK_THREAD_CPUTIME_ID is
    // supported on every Linux this runs on.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// Plays single-threaded games of `dellacherie-simplified` on `size` for about `budget` of
/// CPU time, and returns decisions (pieces) per CPU-second.
pub fn decisions_per_second(size: (usize, usize), max_pieces: u64, budget: Duration) -> f64 {
    let built = presets::find("dellacherie-simplified").expect("preset").build(Some(size), None).expect("builds");
    built_decisions_per_second(&built, max_pieces, budget)
}

/// Plays single-threaded games of a built preset (seeded as `play` seeds them, each capped
/// at `max_pieces`) for about `budget` of CPU time, at least one game, and returns
/// decisions (pieces) per CPU-second.
pub fn built_decisions_per_second(built: &Built, max_pieces: u64, budget: Duration) -> f64 {
    let cpu_start = thread_cpu_seconds();
    let mut pieces = 0u64;
    let mut game = 0u64;
    while game == 0 || thread_cpu_seconds() - cpu_start < budget.as_secs_f64() {
        let record =
            sim::play_game(built.driver(), game_seed(12345, game), GameLimits { max_pieces: Some(max_pieces) }, None);
        pieces += record.pieces;
        game += 1;
    }
    pieces as f64 / (thread_cpu_seconds() - cpu_start)
}

/// A preset built for the simulator benchmark: simplified rule sets on 10x10 (the board of
/// the MdpTetris comparison), the others on their own fixed board. Returns the build and
/// a label `<preset> <rule set> <W>x<H>`.
pub fn bench_build(preset: &presets::Preset) -> anyhow::Result<(Built, String)> {
    let built = match preset.build(Some((10, 10)), None) {
        Ok(built) => built,
        Err(_) => preset.build(None, None)?,
    };
    let board = built.rules.new_board();
    let label = format!("{} {} {}x{}", preset.name, built.rules.name(), board.width(), board.height());
    Ok((built, label))
}

/// `tetris-lab bench`: decisions per CPU-second of every preset (each for about
/// `budget` of CPU time, games capped at `max_pieces`), then games per second of
/// `dellacherie-simplified` 10x10 on 1 and 2 threads and the parallel efficiency.
pub fn run_presets(budget: Duration, max_pieces: u64, games: u64) -> anyhow::Result<Vec<Measurement>> {
    let mut out = Vec::new();
    for preset in presets::REGISTRY {
        let (built, label) = bench_build(preset)?;
        let rate = built_decisions_per_second(&built, max_pieces, budget);
        out.push(Measurement { name: format!("decisions per CPU-second, {label}"), value: rate, unit: "" });
    }
    let one = games_per_second(1, games, 5_000);
    let two = games_per_second(2, games, 5_000);
    let label = "dellacherie-simplified simplified 10x10, cap 5,000 pieces";
    out.push(Measurement { name: format!("games per second, {label}, 1 thread"), value: one, unit: "" });
    out.push(Measurement { name: format!("games per second, {label}, 2 threads"), value: two, unit: "" });
    out.push(Measurement {
        name: "parallel efficiency at 2 threads".into(),
        value: 100.0 * two / (2.0 * one),
        unit: "%",
    });
    Ok(out)
}

/// Nanoseconds per place-and-clear on 10x20: every candidate of every piece on a set of
/// mid-game boards, copied, placed and cleared.
pub fn nanoseconds_per_place(budget: Duration) -> f64 {
    let rules = Simplified::new(10, 20, false);
    let boards = [
        "..........\n#.........\n##.###.#..\n######.##.\n#########.",
        "....#.....\n.#.##.##..\n########.#\n#.########\n####.#####",
        "#########.\n#########.\n#########.\n#########.",
    ]
    .map(|t| crate::board::Board::parse(t, Some(10), 20).expect("bench board"));
    let mut placements = Vec::new();
    let mut out = Vec::new();
    for board in &boards {
        for piece in Piece::ALL {
            rules.candidates(board, piece, &mut out);
            placements.extend(out.iter().map(|p| (*board, *p)));
        }
    }
    let cpu_start = thread_cpu_seconds();
    let mut count = 0u64;
    let mut checksum = 0u64;
    while thread_cpu_seconds() - cpu_start < budget.as_secs_f64() {
        for (board, placement) in &placements {
            let mut b = std::hint::black_box(*board);
            let info = placement.apply(&mut b);
            checksum = checksum.wrapping_add(info.rows_cleared as u64 + b.column_height(0) as u64);
        }
        count += placements.len() as u64;
    }
    std::hint::black_box(checksum);
    (thread_cpu_seconds() - cpu_start) * 1e9 / count as f64
}

/// Games per wall-clock second of `dellacherie-simplified` 10x10 (capped at `max_pieces`) on a pool
/// of `threads` workers, over `games` games.
pub fn games_per_second(threads: usize, games: u64, max_pieces: u64) -> f64 {
    let built = presets::find("dellacherie-simplified").expect("preset").build(Some((10, 10)), None).expect("builds");
    let pool = crate::support::threads::thread_pool(Some(threads)).expect("pool");
    let start = Instant::now();
    let records = pool.install(|| {
        sim::play_batch(built.driver(), 777, games, GameLimits { max_pieces: Some(max_pieces) }, None, &|_| {})
    });
    std::hint::black_box(records);
    games as f64 / start.elapsed().as_secs_f64()
}

/// The whole report; `scale` multiplies every time budget (1.0 takes about 20 seconds).
pub fn run(scale: f64) -> Vec<Measurement> {
    let budget = Duration::from_secs_f64(3.0 * scale);
    let mut out = Vec::new();
    let rate10 = decisions_per_second((10, 10), 1_000_000, budget);
    out.push(Measurement { name: "decisions per CPU-second, simplified 10x10".into(), value: rate10, unit: "1/s" });
    let rate20 = decisions_per_second((10, 20), 20_000, budget);
    out.push(Measurement { name: "decisions per CPU-second, simplified 10x20".into(), value: rate20, unit: "1/s" });
    out.push(Measurement {
        name: "place-and-clear, 10x20 (CPU time)".into(),
        value: nanoseconds_per_place(budget),
        unit: "ns",
    });
    let games = (40.0 * scale).max(8.0) as u64;
    let one = games_per_second(1, games, 5_000);
    let two = games_per_second(2, games, 5_000);
    out.push(Measurement { name: "games/s, 1 thread (10x10, cap 5,000 pieces)".into(), value: one, unit: "1/s" });
    out.push(Measurement { name: "games/s, 2 threads".into(), value: two, unit: "1/s" });
    out.push(Measurement {
        name: "parallel efficiency at 2 threads".into(),
        value: 100.0 * two / (2.0 * one),
        unit: "%",
    });
    out
}

/// Prints a report as an aligned table.
pub fn print(measurements: &[Measurement]) {
    for m in measurements {
        println!("{:<48} {:>14.1} {}", m.name, m.value, m.unit);
    }
}

/// Prints a report one line each, `<name>  <value><unit>`, the values rounded to integers
/// and aligned.
pub fn print_rounded(measurements: &[Measurement]) {
    let width = measurements.iter().map(|m| m.name.len()).max().unwrap_or(0);
    for m in measurements {
        println!("{:<width$}  {:>9.0}{}", m.name, m.value, m.unit);
    }
}
