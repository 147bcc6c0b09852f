//! The frame-accurate guideline game of seed 001 and its key-press AI (`pygame-lee`):
//! [`srs`] rotation data, [`game`] the 60-frames-per-second game, [`ai`] the 44-move
//! two-piece searcher, [`frames`] the frame-by-frame record, [`view`] the terminal
//! picture, and [`play_game`], one seeded AI game from start to top-out (or a piece cap).
//! A [`FrameGame`] is what a key-press preset (`pygame-lee`) builds: the game loop of
//! `sim` plays it move by move (as it plays a rule set with a policy), so `tetris-lab play`,
//! traces, observers and tuning run it like any other preset.

pub mod ai;
pub mod frames;
pub mod game;
pub mod srs;
pub mod view;

use crate::eval::Evaluator;
use crate::randomizer::RandomizerKind;
pub use game::{Game, GameOver, Keys, SpawnFrame};

/// A frame-accurate game ready to play: which spawn-frame rule it follows and the evaluator
/// its key-press AI scores boards with. Games start at level 1.
#[derive(Clone, Debug)]
pub struct FrameGame {
    pub spawn_frame: SpawnFrame,
    pub evaluator: Evaluator,
}

impl FrameGame {
    /// The generator of the game's pieces (how master seeds become game seeds).
    pub fn randomizer(&self) -> RandomizerKind {
        RandomizerKind::SevenBag
    }
}

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
    play_game_observed(evaluator, seed, start_level, max_pieces, spawn_frame, |_, _| {})
}

/// Plays one game like [`play_game`], calling `on_lock` after every frame that locked a
/// piece, with the game (its [`Game::last_lock`] is that piece) and the player (its
/// [`ai::AiPlayer::last_plan`] is the decision that placed it).
pub fn play_game_observed(
    evaluator: Evaluator,
    seed: u64,
    start_level: u32,
    max_pieces: Option<u64>,
    spawn_frame: SpawnFrame,
    mut on_lock: impl FnMut(&Game, &ai::AiPlayer),
) -> GuidelineRecord {
    let mut game = Game::with_spawn_frame(seed, start_level, spawn_frame);
    let mut player = ai::AiPlayer::new(evaluator, seed);
    let cap = max_pieces.unwrap_or(u64::MAX);
    while !game.is_over() && (game.pieces() as u64) < cap {
        let keys = player.keys_for_next_frame(&game);
        let locked = game.pieces();
        game.step(keys);
        if game.pieces() != locked {
            on_lock(&game, &player);
        }
    }
    GuidelineRecord::from_game(&game)
}
