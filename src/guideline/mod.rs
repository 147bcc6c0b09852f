//! The frame-accurate guideline game of seed 001 and its key-press AI (`pygame-lee`):
//! [`srs`] rotation data, [`game`] the 60-frames-per-second game, [`ai`] the 44-move
//! two-piece searcher, [`frames`] the frame-by-frame record, [`view`] the terminal
//! picture, and [`play_game`], one seeded AI game from start to top-out (or a piece cap).
//! The rule sets `guideline` and `guideline-gravity-first` (`rules::guideline`) hand their
//! games to [`play_game`], so `tetris-lab play` runs them like any other preset.

pub mod ai;
pub mod frames;
pub mod game;
pub mod srs;
pub mod view;

use crate::eval::Evaluator;
pub use game::{Game, GameOver, Keys, SpawnFrame};

/// What one AI game did (more than `sim::GameRecord`: frames, start level, how it ended).
#[derive(Clone, Debug, PartialEq)]
pub struct GuidelineRecord {
    pub seed: u64,
    pub start_level: u32,
    pub lines: u32,
    /// Level when the game ended.
    pub level: u32,
    pub score: u64,
    /// Pieces locked.
    pub pieces: u32,
    pub frames: u64,
    /// How the game ended; `None` when it reached the piece cap.
    pub game_over: Option<GameOver>,
}

impl GuidelineRecord {
    pub fn from_game(game: &Game) -> GuidelineRecord {
        GuidelineRecord {
            seed: game.seed(),
            start_level: game.start_level(),
            lines: game.lines(),
            level: game.level(),
            score: game.score(),
            pieces: game.pieces(),
            frames: game.frame(),
            game_over: game.game_over(),
        }
    }
}

/// Plays one seeded game with the key-press AI scoring boards with `evaluator` (the
/// `pygame-lee` preset's, or tuned weights) from `start_level` until it tops out or
/// `max_pieces` have locked, under the rules' choice of `spawn_frame`. Panics on a starting
/// level outside 1..=30 (check with [`game::check_start_level`]).
pub fn play_game(
    evaluator: Evaluator,
    seed: u64,
    start_level: u32,
    max_pieces: Option<u64>,
    spawn_frame: SpawnFrame,
) -> GuidelineRecord {
    let mut game = Game::with_spawn_frame(seed, start_level, spawn_frame);
    let mut player = ai::AiPlayer::new(evaluator, seed);
    let cap = max_pieces.unwrap_or(u64::MAX);
    while !game.is_over() && (game.pieces() as u64) < cap {
        let keys = player.keys_for_next_frame(&game);
        game.step(keys);
    }
    GuidelineRecord::from_game(&game)
}
