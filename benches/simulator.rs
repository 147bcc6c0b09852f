//! `cargo bench --bench simulator`: the simulator's speed figures (see `src/benchmark.rs`).
//! `BENCH_SCALE=0.2` shortens every measurement.

fn main() {
    let scale = std::env::var("BENCH_SCALE").ok().and_then(|s| s.parse().ok()).unwrap_or(1.0);
    // `cargo bench` passes `--bench`; nothing else is accepted.
    let report = tetris_lab::benchmark::run(scale);
    tetris_lab::benchmark::print(&report);
}
