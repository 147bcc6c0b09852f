//! The game loop: one function plays one seeded game under any rule set with any policy,
//! and [`play_batch`] plays many in parallel with results that depend only on the master
//! seed. Every command that plays games goes through here.

use crate::piece::Piece;
use crate::policy::{GameView, Policy, Scratch};
use crate::randomizer::{game_seed, Randomizer};
use crate::rules::{HoldRule, RuleSet};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

/// Limits on one game.
#[derive(Clone, Copy, Debug, Default)]
pub struct GameLimits {
    /// Stop (alive) after this many pieces placed.
    pub max_pieces: Option<u64>,
}

/// Why a game stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameEnd {
    /// The rules ended it (top-out, spawn blocked, or no placement possible).
    GameOver,
    /// The piece cap was reached with the game still alive.
    PieceCap,
}

impl GameEnd {
    pub fn as_str(self) -> &'static str {
        match self {
            GameEnd::GameOver => "game_over",
            GameEnd::PieceCap => "piece_cap",
        }
    }
}

/// The result of one game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameRecord {
    pub seed: u64,
    /// Rows cleared.
    pub lines: u64,
    /// Pieces placed (= turns survived).
    pub pieces: u64,
    /// Points, for rule sets that score (0 otherwise).
    pub score: u64,
    pub end: GameEnd,
}

/// Pieces queued after the current one, enough for any preview and a hold.
const QUEUE: usize = 8;

/// Plays one game. `progress` (if given) is incremented by the pieces placed, every 4,096
/// pieces and at the end, for progress bars.
pub fn play_game(
    rules: &dyn RuleSet,
    policy: &dyn Policy,
    seed: u64,
    limits: GameLimits,
    progress: Option<&AtomicU64>,
) -> GameRecord {
    let mut randomizer = Randomizer::new(rules.randomizer(), seed);
    let mut board = rules.new_board();
    let preview_len = rules.preview().min(QUEUE - 1);
    let hold_rule = rules.hold();
    let mut queue = [Piece::I; QUEUE];
    for slot in queue.iter_mut() {
        *slot = randomizer.next_piece();
    }
    // queue[0] is the current piece; queue[1..=preview_len] are visible.
    let mut hold: Option<Piece> = None;
    let mut scratch = Scratch::default();
    let (mut lines, mut pieces, mut score) = (0u64, 0u64, 0u64);
    let mut reported = 0u64;
    let advance = |queue: &mut [Piece; QUEUE], randomizer: &mut Randomizer| {
        queue.copy_within(1.., 0);
        queue[QUEUE - 1] = randomizer.next_piece();
    };
    let end = loop {
        if limits.max_pieces.is_some_and(|m| pieces >= m) {
            break GameEnd::PieceCap;
        }
        if !rules.can_spawn(&board, queue[0]) {
            break GameEnd::GameOver;
        }
        let view = GameView {
            board: &board,
            current: queue[0],
            preview: &queue[1..=preview_len],
            hold,
            // A hold and the placement that follows it are one decision, so "once per
            // piece" never forbids a hold here.
            can_hold: hold_rule != HoldRule::None,
        };
        let Some(decision) = policy.choose(rules, &view, &mut scratch) else {
            break GameEnd::GameOver;
        };
        if decision.hold {
            debug_assert!(view.can_hold);
            match hold.replace(queue[0]) {
                Some(held) => queue[0] = held,
                None => advance(&mut queue, &mut randomizer),
            }
        }
        debug_assert_eq!(decision.placement.piece, queue[0]);
        let outcome = rules.lock(&mut board, &decision.placement);
        pieces += 1;
        lines += outcome.info.rows_cleared as u64;
        score += outcome.score;
        if outcome.game_over {
            break GameEnd::GameOver;
        }
        advance(&mut queue, &mut randomizer);
        if let Some(counter) = progress {
            if pieces - reported >= 4096 {
                counter.fetch_add(pieces - reported, Ordering::Relaxed);
                reported = pieces;
            }
        }
    };
    if let Some(counter) = progress {
        counter.fetch_add(pieces - reported, Ordering::Relaxed);
    }
    GameRecord { seed, lines, pieces, score, end }
}

/// Plays `games` games seeded from `master_seed` in parallel on the current rayon pool;
/// the result (in game order) does not depend on the number of threads. `on_game` is
/// called as each game finishes (from any thread), e.g. to advance a progress bar.
pub fn play_batch(
    rules: &dyn RuleSet,
    policy: &dyn Policy,
    master_seed: u64,
    games: u64,
    limits: GameLimits,
    progress: Option<&AtomicU64>,
    on_game: &(dyn Fn(&GameRecord) + Sync),
) -> Vec<GameRecord> {
    (0..games)
        .into_par_iter()
        .map(|i| {
            let record = play_game(rules, policy, game_seed(master_seed, i), limits, progress);
            on_game(&record);
            record
        })
        .collect()
}
