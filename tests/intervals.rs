//! The interval of a mean of game lengths, checked on real games: on small boards, where
//! games are short and far from normal, the 95% interval printed by `play` and `reproduce`
//! holds the true mean (measured on many more games) about 95% of the time or more,
//! with and without a piece cap, and never reaches below zero.

use tetris_lab::presets;
use tetris_lab::sim::{self, GameLimits};
use tetris_lab::support::stats::{Quantity, Summary};

fn rows(preset: &str, board: (usize, usize), cap: Option<u64>, seeds: std::ops::Range<u64>) -> Vec<f64> {
    let built = presets::find(preset).unwrap().build(Some(board), None).unwrap();
    let limits = GameLimits { max_pieces: cap };
    seeds.map(|seed| sim::play_game(built.driver(), seed, limits, None).lines as f64).collect()
}

#[test]
fn game_length_intervals_cover_on_real_games() {
    const REPEATS: u64 = 300;
    for (preset, board, cap) in [("dellacherie-simplified", (6, 6), None), ("bcts", (6, 6), Some(100))] {
        let truth = rows(preset, board, cap, 1_000_000..1_040_000);
        let true_mean = truth.iter().sum::<f64>() / truth.len() as f64;
        for n in [5u64, 20, 100] {
            let mut covered = 0;
            for repeat in 0..REPEATS {
                let values = rows(preset, board, cap, repeat * n..(repeat + 1) * n);
                let s = Summary::of(&values, Quantity::GameLength);
                assert!(s.low_95 >= 0.0, "{s:?}");
                covered += s.contains(true_mean) as u64;
            }
            let coverage = covered as f64 / REPEATS as f64;
            // 300 repeats: a true 95% gives at least 0.92 with probability above 0.99.
            assert!(coverage >= 0.92, "{preset} {board:?} cap {cap:?} n {n}: mean {true_mean:.2}, covered {coverage}");
        }
    }
}
