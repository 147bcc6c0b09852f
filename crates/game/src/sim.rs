//! The game loop: one function plays one seeded game of any [`GameDriver`] (a rule set
//! with a policy choosing placements, or a frame game whose AI presses keys frame by
//! frame), and [`play_batch`] plays many in parallel with results that depend only on the
//! master seed. Every command that plays games goes through here, and move traces,
//! placement observers and progress counters see every move of both kinds of game.

use crate::board::Board;
use crate::guideline::{self, FrameGame};
use crate::piece::Piece;
use crate::placement::Placement;
use crate::placement::PlacementInfo;
use crate::policy::{GameView, Policy, Scratch};
use crate::randomizer::{Randomizer, RandomizerKind};
use crate::rules::{guideline::placement_of, HoldRule, Outcome, RuleSet};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

/// Limits on one game.
#[derive(Clone, Copy, Debug, Default)]
pub struct GameLimits {
    /// Stop (alive) after this many pieces placed.
    pub max_pieces: Option<u64>,
}

/// What plays a game: the two kinds of game a preset builds.
#[derive(Clone, Copy)]
pub enum GameDriver<'a> {
    /// A rule set's placements, one chosen by the policy for every piece.
    Placement { rules: &'a dyn RuleSet, policy: &'a dyn Policy },
    /// The frame-accurate guideline game, its key-press AI choosing a move per piece and
    /// playing it frame by frame.
    Frame(&'a FrameGame),
}

impl GameDriver<'_> {
    /// The generator of the game's pieces (how master seeds become game seeds).
    pub fn randomizer(&self) -> RandomizerKind {
        match self {
            GameDriver::Placement { rules, .. } => rules.randomizer(),
            GameDriver::Frame(frame) => frame.randomizer(),
        }
    }
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
    /// Level when the game ended, for rule sets with levels (the guideline game).
    pub level: Option<u32>,
    pub end: GameEnd,
}

/// Pieces queued: the current one and the preview, with room for a hold.
const QUEUE: usize = 8;

/// The current piece and the preview, drawn only when needed: under `erikko` the search
/// draws pieces of its own between turns, so drawing ahead would change the game.
struct PieceQueue {
    pieces: [Piece; QUEUE],
    len: usize,
}

impl PieceQueue {
    /// Draws until `count` pieces are queued.
    #[inline]
    fn fill(&mut self, count: usize, randomizer: &mut Randomizer) {
        while self.len < count {
            self.pieces[self.len] = randomizer.next_piece();
            self.len += 1;
        }
    }
    #[inline]
    fn pop_front(&mut self) {
        self.pieces.copy_within(1..self.len, 0);
        self.len -= 1;
    }
}

/// One move as the game loop made it (see [`play_game_traced`]).
#[derive(Clone, Copy, Debug)]
pub struct MoveRecord {
    /// Moves made before this one.
    pub index: u64,
    /// The current piece before the move; after a hold the placed piece is another.
    pub current: Piece,
    pub hold: bool,
    pub placement: Placement,
    /// The policy's value for the move (the evaluator's own sense).
    pub value: f64,
    /// The piece in the hold slot while this piece is placed (after the move's hold, if
    /// any); `None` for an empty slot or rules without hold.
    pub held: Option<Piece>,
    /// The upcoming pieces the player could see when choosing the move.
    pub preview: Preview,
}

/// The visible upcoming pieces of one move, next first (a copy: the queue moves on).
#[derive(Clone, Copy, Debug)]
pub struct Preview {
    pieces: [Piece; QUEUE],
    len: u8,
}

impl Preview {
    /// At most the first [`QUEUE`] pieces of `pieces`.
    pub fn of(pieces: &[Piece]) -> Preview {
        let mut preview = Preview { pieces: [Piece::I; QUEUE], len: pieces.len().min(QUEUE) as u8 };
        preview.pieces[..preview.len as usize].copy_from_slice(&pieces[..preview.len as usize]);
        preview
    }
    pub fn pieces(&self) -> &[Piece] {
        &self.pieces[..self.len as usize]
    }
}

/// Plays one game. `progress` (if given) is incremented by the pieces placed, every 4,096
/// pieces and at the end, for progress bars.
#[inline]
pub fn play_game(driver: GameDriver, seed: u64, limits: GameLimits, progress: Option<&AtomicU64>) -> GameRecord {
    // Empty callbacks monomorphise the loop without them, so the plain game pays nothing
    // for the hooks.
    play(driver, seed, limits, progress, |_| {}, &mut |_: &Board, _: &Outcome| {})
}

/// Plays one game like [`play_game`], calling `on_move` before each move is locked (for
/// move traces and replays against the original programs).
pub fn play_game_traced(
    driver: GameDriver,
    seed: u64,
    limits: GameLimits,
    on_move: &mut dyn FnMut(&MoveRecord),
) -> GameRecord {
    play(driver, seed, limits, None, on_move, &mut |_: &Board, _: &Outcome| {})
}

/// Plays one game like [`play_game`], calling `observer` after every placement with the
/// board after the lock (rows removed) and what the lock did, the game-ending placement
/// included. Used by measurements that need the whole trajectory.
pub fn play_game_observed(
    driver: GameDriver,
    seed: u64,
    limits: GameLimits,
    progress: Option<&AtomicU64>,
    observer: &mut dyn FnMut(&Board, &Outcome),
) -> GameRecord {
    play(driver, seed, limits, progress, |_| {}, observer)
}

/// Plays one game calling both callbacks: `on_move` before each lock (the move and what
/// the player saw) and `observer` after it (the board and what the lock did). `watch`
/// draws the game from these, so what it shows is the game `play` plays.
pub fn play_game_watched(
    driver: GameDriver,
    seed: u64,
    limits: GameLimits,
    on_move: &mut dyn FnMut(&MoveRecord),
    observer: &mut dyn FnMut(&Board, &Outcome),
) -> GameRecord {
    play(driver, seed, limits, None, on_move, observer)
}

/// The loop itself, generic in the move callback (before the lock) and the placement
/// observer (after it) so that [`play_game`]'s empty ones compile away.
#[inline(always)]
fn play<F: FnMut(&MoveRecord), O: FnMut(&Board, &Outcome) + ?Sized>(
    driver: GameDriver,
    seed: u64,
    limits: GameLimits,
    progress: Option<&AtomicU64>,
    on_move: F,
    observer: &mut O,
) -> GameRecord {
    match driver {
        GameDriver::Placement { rules, policy } => {
            play_placements(rules, policy, seed, limits, progress, on_move, observer)
        }
        GameDriver::Frame(frame) => play_frames(frame, seed, limits, progress, on_move, observer),
    }
}

/// Adds the pieces placed since the last report to `progress` every 4,096 pieces (and at
/// the end, with `last`), so a progress bar moves without a shared write per piece.
#[inline(always)]
fn report_progress(progress: Option<&AtomicU64>, pieces: u64, reported: &mut u64, last: bool) {
    if let Some(counter) = progress {
        if last || pieces - *reported >= 4096 {
            counter.fetch_add(pieces - *reported, Ordering::Relaxed);
            *reported = pieces;
        }
    }
}

/// A frame game: the key-press AI plays the guideline game frame by frame; every lock is
/// one move for the callbacks (the move as the AI planned it, the board after the lock).
#[inline(always)]
fn play_frames<F: FnMut(&MoveRecord), O: FnMut(&Board, &Outcome) + ?Sized>(
    frame: &FrameGame,
    seed: u64,
    limits: GameLimits,
    progress: Option<&AtomicU64>,
    mut on_move: F,
    observer: &mut O,
) -> GameRecord {
    // The board before the next lock: the game's board changes only when a piece locks.
    let mut before = Board::new(guideline::game::WIDTH, guideline::game::TOTAL_ROWS);
    let (mut pieces, mut score, mut reported) = (0u64, 0u64, 0u64);
    let record = guideline::play_game_observed(
        frame.evaluator.clone(),
        seed,
        1,
        limits.max_pieces,
        frame.spawn_frame,
        |game, player| {
            let lock = game.last_lock().expect("a piece locked");
            let placement = placement_of(&lock.placed);
            let plan = player.last_plan().expect("the AI planned the piece it locked");
            on_move(&MoveRecord {
                index: pieces,
                current: lock.placed.piece,
                hold: false,
                placement,
                value: frame.evaluator.value_of_utility(plan.value),
                held: game.held(),
                preview: Preview::of(game.preview()),
            });
            // What the lock did, as a placement game's lock reports it.
            // Replayed on the board before it (the game may remove the rows frames later).
            let info: PlacementInfo = placement.apply(&mut before);
            let outcome = Outcome { info, score: game.score() - score, game_over: game.is_over() };
            observer(&before, &outcome);
            pieces += 1;
            score = game.score();
            report_progress(progress, pieces, &mut reported, false);
        },
    );
    report_progress(progress, pieces, &mut reported, true);
    GameRecord {
        seed,
        lines: record.lines as u64,
        pieces: record.pieces as u64,
        score: record.score,
        level: Some(record.level),
        end: if record.game_over.is_some() { GameEnd::GameOver } else { GameEnd::PieceCap },
    }
}

/// A placement game: the policy chooses a placement of the rule set for every piece.
#[inline(always)]
fn play_placements<F: FnMut(&MoveRecord), O: FnMut(&Board, &Outcome) + ?Sized>(
    rules: &dyn RuleSet,
    policy: &dyn Policy,
    seed: u64,
    limits: GameLimits,
    progress: Option<&AtomicU64>,
    mut on_move: F,
    observer: &mut O,
) -> GameRecord {
    let mut randomizer = Randomizer::new(rules.randomizer(), seed);
    let mut board = rules.new_board();
    let preview_len = rules.preview().min(QUEUE - 1);
    let hold_rule = rules.hold();
    let draws_per_tried_move = rules.draws_per_tried_move();
    // pieces[0] is the current piece; pieces[1..=preview_len] are visible.
    let mut queue = PieceQueue { pieces: [Piece::I; QUEUE], len: 0 };
    let mut hold: Option<Piece> = None;
    let mut scratch = Scratch::default();
    let (mut lines, mut pieces, mut score) = (0u64, 0u64, 0u64);
    let mut reported = 0u64;
    let end = loop {
        if limits.max_pieces.is_some_and(|m| pieces >= m) {
            break GameEnd::PieceCap;
        }
        queue.fill(1 + preview_len, &mut randomizer);
        let current = queue.pieces[0];
        if !rules.can_spawn(&board, current) {
            break GameEnd::GameOver;
        }
        let view = GameView {
            board: &board,
            current,
            preview: &queue.pieces[1..=preview_len],
            hold,
            // A hold and the placement that follows it are one decision, so "once per
            // piece" never forbids a hold here.
            can_hold: hold_rule != HoldRule::None,
        };
        let decision = policy.choose(rules, &view, &mut scratch);
        let preview = Preview::of(view.preview);
        let tried_moves = std::mem::take(&mut scratch.tried_moves);
        for _ in 0..tried_moves * draws_per_tried_move {
            randomizer.next_piece();
        }
        let Some(decision) = decision else {
            break GameEnd::GameOver;
        };
        if decision.hold {
            debug_assert!(view.can_hold);
            match hold.replace(current) {
                Some(held) => queue.pieces[0] = held,
                None => {
                    queue.pop_front();
                    queue.fill(1, &mut randomizer);
                }
            }
        }
        debug_assert_eq!(decision.placement.piece, queue.pieces[0]);
        on_move(&MoveRecord {
            index: pieces,
            current,
            hold: decision.hold,
            placement: decision.placement,
            value: decision.value,
            held: hold,
            preview,
        });
        let outcome = rules.lock(&mut board, &decision.placement);
        pieces += 1;
        lines += outcome.info.rows_cleared as u64;
        score += outcome.score;
        observer(&board, &outcome);
        if outcome.game_over {
            break GameEnd::GameOver;
        }
        queue.pop_front();
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
    GameRecord { seed, lines, pieces, score, level: None, end }
}

/// Plays `games` games seeded from `master_seed` (game `i` gets
/// [`crate::randomizer::RandomizerKind::game_seed`]`(master_seed, i)`) in parallel on the current rayon pool;
/// the result (in game order) does not depend on the number of threads. `on_game` is
/// called as each game finishes (from any thread), e.g. to advance a progress bar.
pub fn play_batch(
    driver: GameDriver,
    master_seed: u64,
    games: u64,
    limits: GameLimits,
    progress: Option<&AtomicU64>,
    on_game: &(dyn Fn(&GameRecord) + Sync),
) -> Vec<GameRecord> {
    (0..games)
        .into_par_iter()
        .map(|i| {
            let record = play_game_of_batch(driver, master_seed, i, limits, progress);
            on_game(&record);
            record
        })
        .collect()
}

/// Game `index` of [`play_batch`]`(driver, master_seed, ..)`, alone: for measurements that
/// play only the games a stopped run did not finish.
pub fn play_game_of_batch(
    driver: GameDriver,
    master_seed: u64,
    index: u64,
    limits: GameLimits,
    progress: Option<&AtomicU64>,
) -> GameRecord {
    play_game(driver, batch_game_seed(driver, master_seed, index), limits, progress)
}

/// The seed of game `index` of [`play_batch`]`(driver, master_seed, ..)`.
pub fn batch_game_seed(driver: GameDriver, master_seed: u64, index: u64) -> u64 {
    driver.randomizer().game_seed(master_seed, index)
}

/// A placement game played one move at a time by a player outside the library (a learning
/// agent, a Python environment): the pieces of [`play_game`] with the same rule set and
/// seed (its generator, its preview), locked by the same rules. There is no hold: the
/// player places the current piece. After every move the placements of the next piece are
/// listed (in the rule set's order); the game is over when the lock ends it, the next piece
/// cannot spawn, or it has no placement.
#[derive(Clone, Debug)]
pub struct SteppedGame {
    board: Board,
    randomizer: Randomizer,
    /// The current piece, then the visible preview.
    queue: Vec<Piece>,
    placements: Vec<Placement>,
    last: PlacementInfo,
    /// The board before the last lock and the placement locked (`None` before the first),
    /// for pictures of the move.
    last_move: Option<(Board, Placement)>,
    pieces: u64,
    lines: u64,
    score: u64,
    over: bool,
}

impl SteppedGame {
    /// A new game of `rules` whose pieces come from the rule set's generator seeded with
    /// `seed` (game `i` of a batch with master seed `m` is seeded [`batch_game_seed`]).
    pub fn new(rules: &dyn RuleSet, seed: u64) -> SteppedGame {
        let mut game = SteppedGame {
            board: rules.new_board(),
            randomizer: Randomizer::new(rules.randomizer(), seed),
            queue: Vec::with_capacity(QUEUE),
            placements: Vec::new(),
            last: PlacementInfo::default(),
            last_move: None,
            pieces: 0,
            lines: 0,
            score: 0,
            over: false,
        };
        game.next_turn(rules);
        game
    }

    /// Refills the queue and lists the current piece's placements (the game ends when it
    /// cannot spawn or has none).
    fn next_turn(&mut self, rules: &dyn RuleSet) {
        let wanted = 1 + rules.preview().min(QUEUE - 1);
        while self.queue.len() < wanted {
            self.queue.push(self.randomizer.next_piece());
        }
        if rules.can_spawn(&self.board, self.queue[0]) {
            rules.candidates(&self.board, self.queue[0], &mut self.placements);
        } else {
            self.placements.clear();
        }
        self.over = self.placements.is_empty();
    }

    /// Locks `self.placements()[index]` and moves to the next piece; returns what the lock
    /// did. `None` (nothing changed) when the game is over or `index` is not a placement.
    pub fn step(&mut self, rules: &dyn RuleSet, index: usize) -> Option<Outcome> {
        if self.over || index >= self.placements.len() {
            return None;
        }
        self.last_move = Some((self.board, self.placements[index]));
        let outcome = rules.lock(&mut self.board, &self.placements[index]);
        self.pieces += 1;
        self.lines += outcome.info.rows_cleared as u64;
        self.score += outcome.score;
        self.last = outcome.info;
        self.queue.remove(0);
        if outcome.game_over {
            self.placements.clear();
            self.over = true;
        } else {
            self.next_turn(rules);
        }
        Some(outcome)
    }

    pub fn board(&self) -> &Board {
        &self.board
    }
    /// The piece to place (the last one drawn when the game is over).
    pub fn current(&self) -> Piece {
        self.queue[0]
    }
    /// The visible upcoming pieces, next first.
    pub fn preview(&self) -> &[Piece] {
        &self.queue[1..]
    }
    /// The current piece's placements, in the rule set's order (empty when the game is over).
    pub fn placements(&self) -> &[Placement] {
        &self.placements
    }
    /// What the last lock did (zeros before the first), for the placement features.
    pub fn last_placement(&self) -> PlacementInfo {
        self.last
    }
    /// The board before the last lock and the placement it locked (`None` before the first).
    pub fn last_move(&self) -> Option<(Board, Placement)> {
        self.last_move
    }
    pub fn is_over(&self) -> bool {
        self.over
    }
    pub fn pieces(&self) -> u64 {
        self.pieces
    }
    pub fn lines(&self) -> u64 {
        self.lines
    }
    pub fn score(&self) -> u64 {
        self.score
    }
}

/// The after-states of `placements` on `board`: for each, the values of `features` (in
/// that order, appended to `out`) on the board the placement leaves as the rule set's
/// players see it ([`RuleSet::apply`]: rows removed), with what the placement did. What
/// value-based learners rate.
pub fn after_state_features(
    rules: &dyn RuleSet,
    board: &Board,
    placements: &[Placement],
    features: &[&crate::features::Feature],
    out: &mut Vec<f64>,
) {
    for placement in placements {
        let mut after = *board;
        let info = rules.apply(&mut after, placement);
        let context = crate::features::FeatureContext::new(&after, info);
        out.extend(features.iter().map(|feature| (feature.compute)(&context)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets;

    fn traced(preset: &str, seed: u64, max_pieces: u64) -> (GameRecord, Vec<MoveRecord>) {
        let built = presets::find(preset).unwrap().build(None, None).unwrap();
        let limits = GameLimits { max_pieces: Some(max_pieces) };
        let mut moves = Vec::new();
        let record = play_game_traced(built.driver(), seed, limits, &mut |m| moves.push(*m));
        let untraced = play_game(built.driver(), seed, limits, None);
        assert_eq!(record, untraced, "tracing must not change the game");
        (record, moves)
    }

    #[test]
    fn without_hold_the_pieces_are_the_generator_stream() {
        let (record, moves) = traced("el-tetris", 5, 300);
        assert_eq!(record.pieces, moves.len() as u64);
        let built = presets::find("el-tetris").unwrap().build(None, None).unwrap();
        let mut stream = Randomizer::new(built.rules.randomizer(), 5);
        for (i, m) in moves.iter().enumerate() {
            assert_eq!(m.index, i as u64);
            assert_eq!(m.current, stream.next_piece(), "move {i}");
            assert!(!m.hold);
        }
    }

    #[test]
    fn erikko_search_draws_eighty_pieces_a_searched_turn() {
        let (_, moves) = traced("erikko", 1, 8);
        let kind = presets::find("erikko").unwrap().build(None, None).unwrap().rules.randomizer();
        let mut generator = Randomizer::new(kind, 1);
        let stream: Vec<Piece> = (0..89).map(|_| generator.next_piece()).collect();
        // Turn 0 sees pieces 0..6 and holds (a shortcut: nothing tried); pieces 6 and 7
        // refill the preview. Turn 1 searches, which throws pieces 8..88 away, so the
        // piece that refills the preview after it, current at turn 7, is piece 88.
        assert_eq!((moves[0].current, moves[0].hold, moves[0].placement.piece), (stream[0], true, stream[1]));
        assert_eq!(moves[1].current, stream[2]);
        assert_ne!(stream[8], stream[88], "the check below needs pieces 8 and 88 to differ");
        assert_eq!(moves[7].current, stream[88]);
    }

    #[test]
    fn traces_and_observers_see_every_move_of_a_frame_game() {
        let (record, moves) = traced("pygame-lee", 3, 60);
        assert!(record.level.is_some(), "a frame game reports its level");
        assert_eq!(record.pieces, moves.len() as u64);
        assert!(moves.iter().enumerate().all(|(i, m)| m.index == i as u64 && m.placement.piece == m.current));
        let built = presets::find("pygame-lee").unwrap().build(None, None).unwrap();
        let (mut placements, mut rows, mut score) = (0u64, 0u64, 0u64);
        let progress = AtomicU64::new(0);
        let limits = GameLimits { max_pieces: Some(60) };
        let observed = play_game_observed(built.driver(), 3, limits, Some(&progress), &mut |board, outcome| {
            placements += 1;
            rows += outcome.info.rows_cleared as u64;
            score += outcome.score;
            assert!(board.max_height() <= board.height());
        });
        assert_eq!(observed, record);
        assert_eq!((placements, rows, score), (record.pieces, record.lines, record.score));
        assert!(record.lines > 0, "the check of cleared rows needs a game that clears some");
        assert_eq!(progress.load(Ordering::Relaxed), record.pieces);
    }
    /// A stepped game whose moves are the preset's policy's choices is the game `play` plays.
    fn stepped_as_policy(preset: &str, size: Option<(usize, usize)>, seed: u64, max_pieces: u64) {
        let built = presets::find(preset).unwrap().build(size, None).unwrap();
        let (rules, policy) = (built.rules.as_ref(), built.policy.as_ref());
        let mut game = SteppedGame::new(rules, seed);
        let mut scratch = Scratch::default();
        while !game.is_over() && game.pieces() < max_pieces {
            let view = GameView {
                board: game.board(),
                current: game.current(),
                preview: game.preview(),
                hold: None,
                can_hold: false,
            };
            let chosen = policy.choose(rules, &view, &mut scratch).unwrap().placement;
            let index =
                game.placements().iter().position(|p| *p == chosen).expect("the policy chose a listed placement");
            game.step(rules, index).unwrap();
        }
        let record = play_game(built.driver(), seed, GameLimits { max_pieces: Some(max_pieces) }, None);
        assert_eq!(
            (game.pieces(), game.lines(), game.score()),
            (record.pieces, record.lines, record.score),
            "{preset}"
        );
        assert_eq!(game.is_over(), record.end == GameEnd::GameOver, "{preset}");
        assert!(game.step(rules, usize::MAX).is_none());
    }

    #[test]
    fn a_stepped_game_is_the_game_loop_s_game() {
        stepped_as_policy("bcts", Some((10, 8)), 3, 100_000);
        stepped_as_policy("dellacherie-simplified", Some((6, 10)), 4, 100_000);
        stepped_as_policy("lee", None, 5, 2_000);
        stepped_as_policy("el-tetris", None, 6, 1_000);
    }

    #[test]
    fn after_states_are_the_boards_the_placements_leave() {
        let rules = crate::rules::build("simplified", Some((4, 4))).unwrap();
        let board = Board::parse("....\nXXX.", None, 4).unwrap();
        let mut placements = Vec::new();
        rules.candidates(&board, Piece::I, &mut placements);
        let features = [crate::features::find("rows_cleared").unwrap(), crate::features::find("holes").unwrap()];
        let mut values = Vec::new();
        after_state_features(rules.as_ref(), &board, &placements, &features, &mut values);
        assert_eq!(values.len(), 2 * placements.len());
        // The vertical I in the last column clears the bottom row and leaves no hole.
        let vertical_right = placements.iter().position(|p| p.orientation == 0 && p.left == 3).unwrap();
        assert_eq!(&values[2 * vertical_right..2 * vertical_right + 2], &[1.0, 0.0]);
    }
}
