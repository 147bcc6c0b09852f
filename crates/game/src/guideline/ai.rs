//! The `pygame-lee` AI of seed 001: a move is (shift -5..=5, clockwise quarter turns 0..=3),
//! 44 per piece, played as key presses. To judge a move it plays those very presses, frame
//! by frame, on a copy of the game, so gravity, kicks, walls and lock delay are all
//! accounted for and what it evaluates is exactly what will happen. Two-piece lookahead
//! over the preview (44 x 44); moves ending in the same placement are evaluated once; ties
//! are broken at random from a seeded generator. Boards are scored by an [`Evaluator`]
//! (the preset's mike_ features and weights, or weights loaded for tuning).

use super::game::{ActivePiece, Game, Keys, SpawnFrame};
use crate::board::Board;
use crate::eval::Evaluator;
use crate::features::FeatureContext;
use crate::placement::PlacementInfo;
use crate::randomizer::{splitmix64, Xoshiro256};

/// One AI move: columns to shift (negative = left) and clockwise quarter turns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    pub shift: i8,
    pub turns: u8,
}

impl Move {
    /// Key presses the move needs (turns plus taps), before the hard drop.
    pub fn presses(self) -> u32 {
        self.turns as u32 + self.shift.unsigned_abs() as u32
    }
}

/// All 44 moves, fewest presses first (then fewer turns, then left before right), so that
/// when several moves end in the same placement the first one found is the cheapest to play.
pub fn all_moves() -> Vec<Move> {
    let mut moves: Vec<Move> = (0..4u8).flat_map(|turns| (-5..=5i8).map(move |shift| Move { shift, turns })).collect();
    moves.sort_by_key(|m| (m.presses(), m.turns, m.shift.unsigned_abs(), m.shift));
    moves
}

/// The frames of a move: each press on its own frame with a released frame between two
/// presses (so a rotation is a fresh press and auto-repeat never starts), clockwise presses
/// first, then the taps, then hard drop. If the first key would still be held from the
/// previous frame (a hard drop right after a hard drop), a released frame comes first so it
/// registers as a press; so does one when the rules ignore keys on the spawn frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeySequence {
    frames: [Keys; 18],
    len: u8,
}

impl KeySequence {
    /// The sequence for `m` in `game` (which is awaiting its next piece).
    pub fn for_game(m: Move, game: &Game) -> KeySequence {
        KeySequence::new(m, game.previous_keys(), game.spawn_frame())
    }

    pub fn new(m: Move, previous_keys: Keys, spawn_frame: SpawnFrame) -> KeySequence {
        let direction = if m.shift < 0 { Keys::LEFT } else { Keys::RIGHT };
        let presses = std::iter::repeat_n(Keys::CLOCKWISE, m.turns as usize)
            .chain(std::iter::repeat_n(direction, m.shift.unsigned_abs() as usize));
        let mut sequence = KeySequence { frames: [Keys::NONE; 18], len: 0 };
        let first = presses.clone().next().unwrap_or(Keys::HARD_DROP);
        if spawn_frame == SpawnFrame::GravityOnly || first.intersects(previous_keys) {
            sequence.push(Keys::NONE);
        }
        for (i, key) in presses.enumerate() {
            if i > 0 {
                sequence.push(Keys::NONE);
            }
            sequence.push(key);
        }
        sequence.push(Keys::HARD_DROP);
        sequence
    }

    fn push(&mut self, keys: Keys) {
        self.frames[self.len as usize] = keys;
        self.len += 1;
    }

    pub fn frames(&self) -> &[Keys] {
        &self.frames[..self.len as usize]
    }
}

/// The result of playing one move on a copy of the game.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The game right after the piece locked (or ended).
    pub game: Game,
    /// `LockInfo::placement_key` of where the piece went (0 if the game ended on spawn).
    pub placement: u64,
    /// Rows the lock removed.
    pub rows_cleared: u32,
}

/// Plays `keys` from a game awaiting its next piece until that piece locks or the game
/// ends; the rest of the sequence is dropped. Returns `None` if the game ended.
pub fn play_sequence(game: &Game, keys: &KeySequence) -> Option<Outcome> {
    let mut copy = game.clone();
    let pieces = copy.pieces();
    for &k in keys.frames() {
        copy.step(k);
        if copy.is_over() {
            return None;
        }
        if copy.pieces() != pieces {
            let lock = copy.last_lock().expect("a lock was just recorded");
            return Some(Outcome { game: copy, placement: lock.placement_key(), rows_cleared: lock.rows_cleared });
        }
    }
    unreachable!("a key sequence ends with a hard drop, which always locks")
}

/// The AI's decision for one piece.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    pub chosen: Move,
    pub keys: KeySequence,
    /// Board value of the best two-piece continuation (-inf if every move loses).
    pub value: f64,
    /// Where the chosen move puts the piece (`LockInfo::placement_key`).
    pub placement: u64,
    /// The piece as the chosen move locks it (`None` if every move ends the game at once).
    pub placed: Option<ActivePiece>,
    /// Distinct first placements and boards evaluated for this decision.
    pub distinct_moves: u32,
    pub boards_evaluated: u32,
}

/// The searcher: the evaluator and the seeded tie-break generator.
#[derive(Clone, Debug)]
pub struct Planner {
    evaluator: Evaluator,
    moves: Vec<Move>,
    ties: Xoshiro256,
}

/// Mixed into the game seed for the tie-break generator, so it is not the piece stream.
const TIE_BREAK_STREAM: u64 = 0x7469_6573_2d62_7265;

impl Planner {
    /// A planner whose tie-breaks come from the game's `seed`.
    pub fn new(evaluator: Evaluator, seed: u64) -> Planner {
        let mut state = seed ^ TIE_BREAK_STREAM;
        Planner { evaluator, moves: all_moves(), ties: Xoshiro256::new(splitmix64(&mut state)) }
    }

    /// The board value, higher is better; `rows_cleared` feeds the lines feature.
    pub fn evaluate(&self, board: &Board, rows_cleared: u32) -> f64 {
        let placement = PlacementInfo { rows_cleared: rows_cleared as u8, ..Default::default() };
        self.evaluator.utility(&FeatureContext::new(board, placement))
    }

    /// Chooses the move for the piece about to spawn, looking one preview piece ahead.
    /// `game` must be awaiting a piece.
    pub fn plan(&mut self, game: &Game) -> Plan {
        self.plan_with_lookahead(game, true)
    }

    /// As [`Planner::plan`]; without `lookahead` each placement is judged by the board it
    /// leaves (for callers that know no next piece).
    pub fn plan_with_lookahead(&mut self, game: &Game, lookahead: bool) -> Plan {
        debug_assert!(game.is_awaiting_piece());
        let mut best_value = f64::NEG_INFINITY;
        // Distinct first placements with the best value so far: (move, keys, placement, piece).
        let mut best: Vec<(Move, KeySequence, u64, Option<ActivePiece>)> = Vec::new();
        let mut seen: Vec<u64> = Vec::with_capacity(44);
        let mut boards_evaluated = 0;
        for &first in &self.moves {
            let keys = KeySequence::for_game(first, game);
            let (value, placement, placed) = match play_sequence(game, &keys) {
                None => (f64::NEG_INFINITY, 0, None),
                Some(outcome) => {
                    if seen.contains(&outcome.placement) {
                        continue;
                    }
                    seen.push(outcome.placement);
                    let value = if lookahead {
                        let (value, evaluated) = self.best_follow_up(&outcome);
                        boards_evaluated += evaluated;
                        value
                    } else {
                        boards_evaluated += 1;
                        self.evaluate(outcome.game.board(), outcome.rows_cleared)
                    };
                    (value, outcome.placement, outcome.game.last_lock().map(|l| l.placed))
                }
            };
            if value > best_value {
                best_value = value;
                best.clear();
            }
            if value == best_value && !best.iter().any(|b| b.2 == placement) {
                best.push((first, keys, placement, placed));
            }
        }
        let (chosen, keys, placement, placed) = best[self.ties.below(best.len() as u64) as usize];
        Plan { chosen, keys, value: best_value, placement, placed, distinct_moves: seen.len() as u32, boards_evaluated }
    }

    /// The value of the best placement of the next piece after `first` (rows cleared by
    /// both placements count as the lines feature), and the number of boards evaluated.
    fn best_follow_up(&self, first: &Outcome) -> (f64, u32) {
        let mut best = f64::NEG_INFINITY;
        let mut seen: Vec<u64> = Vec::with_capacity(44);
        for &second in &self.moves {
            let keys = KeySequence::for_game(second, &first.game);
            if let Some(outcome) = play_sequence(&first.game, &keys) {
                if seen.contains(&outcome.placement) {
                    continue;
                }
                seen.push(outcome.placement);
                let value = self.evaluate(outcome.game.board(), first.rows_cleared + outcome.rows_cleared);
                best = best.max(value);
            }
        }
        (best, seen.len() as u32)
    }
}

/// Drives a real game with the planner, one frame at a time: it plans when a piece is
/// about to spawn (the game is paused meanwhile: planning costs no frames) and then
/// feeds the planned keys, one set per frame.
#[derive(Clone, Debug)]
pub struct AiPlayer {
    planner: Planner,
    pending: KeySequence,
    next_frame: usize,
    last_plan: Option<Plan>,
}

impl AiPlayer {
    pub fn new(evaluator: Evaluator, seed: u64) -> AiPlayer {
        AiPlayer {
            planner: Planner::new(evaluator, seed),
            pending: KeySequence { frames: [Keys::NONE; 18], len: 0 },
            next_frame: 0,
            last_plan: None,
        }
    }

    /// The keys to hold on the game's next frame.
    pub fn keys_for_next_frame(&mut self, game: &Game) -> Keys {
        if game.is_awaiting_piece() {
            let plan = self.planner.plan(game);
            self.pending = plan.keys;
            self.next_frame = 0;
            self.last_plan = Some(plan);
        }
        let keys = self.pending.frames().get(self.next_frame).copied().unwrap_or(Keys::NONE);
        self.next_frame += 1;
        keys
    }

    pub fn last_plan(&self) -> Option<&Plan> {
        self.last_plan.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn evaluator() -> Evaluator {
        crate::presets::find("pygame-lee").unwrap().evaluator().unwrap()
    }

    fn board(text: &str) -> Board {
        let rows: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        Board::parse(&rows.join("\n"), None, 40).unwrap()
    }

    /// A game of `seed` on an empty board, awaiting `piece` (earlier pieces hard dropped
    /// and the board emptied again).
    fn game_before(piece: crate::piece::Piece, seed: u64) -> Game {
        let mut game = Game::new(seed, 1);
        while game.preview()[0] != piece {
            game.step(Keys::NONE);
            game.step(Keys::HARD_DROP);
        }
        game.set_board(Board::new(10, 40));
        assert!(game.is_awaiting_piece());
        game
    }

    #[test]
    fn forty_four_distinct_moves_cheapest_first() {
        let moves = all_moves();
        assert_eq!(moves.len(), 44);
        let mut unique = moves.clone();
        unique.sort_by_key(|m| (m.shift, m.turns));
        unique.dedup();
        assert_eq!(unique.len(), 44);
        assert_eq!(moves[0], Move { shift: 0, turns: 0 });
        assert!(moves.windows(2).all(|w| w[0].presses() <= w[1].presses()));
    }

    #[test]
    fn key_sequences_release_between_presses() {
        let keys = KeySequence::new(Move { shift: -2, turns: 2 }, Keys::NONE, SpawnFrame::KeysAct);
        let expected = [
            Keys::CLOCKWISE,
            Keys::NONE,
            Keys::CLOCKWISE,
            Keys::NONE,
            Keys::LEFT,
            Keys::NONE,
            Keys::LEFT,
            Keys::HARD_DROP,
        ];
        assert_eq!(keys.frames(), expected);
        // A hard drop right after a hard drop needs a released frame to be a new press.
        assert_eq!(
            KeySequence::new(Move { shift: 0, turns: 0 }, Keys::HARD_DROP, SpawnFrame::KeysAct).frames(),
            [Keys::NONE, Keys::HARD_DROP]
        );
        assert_eq!(
            KeySequence::new(Move { shift: 0, turns: 0 }, Keys::NONE, SpawnFrame::KeysAct).frames(),
            [Keys::HARD_DROP]
        );
        let longest = KeySequence::new(Move { shift: 5, turns: 3 }, Keys::NONE, SpawnFrame::KeysAct);
        // Rules that ignore keys on the spawn frame get a released frame first.
        assert_eq!(
            KeySequence::new(Move { shift: 1, turns: 0 }, Keys::HARD_DROP, SpawnFrame::GravityOnly).frames(),
            [Keys::NONE, Keys::RIGHT, Keys::HARD_DROP]
        );
        assert_eq!(longest.frames().len(), 16);
    }

    #[test]
    fn walls_make_moves_equivalent() {
        // From the spawn column an O can go 4 left and 4 right: shifts of 5 end where 4 do,
        // and its turns change nothing: 9 distinct placements out of 44 moves.
        let game = game_before(crate::piece::Piece::O, 1);
        let placements: std::collections::HashSet<u64> = all_moves()
            .iter()
            .map(|&m| play_sequence(&game, &KeySequence::for_game(m, &game)).unwrap().placement)
            .collect();
        assert_eq!(placements.len(), 9);
    }

    /// Plays the AI on the real game, frame by frame, and checks that every piece ends
    /// exactly where the plan said, on boards of several heights and at several levels.
    #[test]
    fn key_sequences_reach_the_placement_that_was_evaluated() {
        let stack = board(
            "
            #.........
            ##.....#..
            ###...###.
            ####.#####
            ####.#####",
        );
        let cases = [
            (1, 1, SpawnFrame::KeysAct),
            (2, 18, SpawnFrame::KeysAct),
            (3, 25, SpawnFrame::KeysAct),
            (4, 30, SpawnFrame::GravityOnly),
        ];
        for (seed, level, spawn_frame) in cases {
            let mut game = Game::with_spawn_frame(seed, level, spawn_frame);
            game.set_board(stack);
            let mut player = AiPlayer::new(evaluator(), seed);
            let mut checked = 0;
            while game.pieces() < 25 && !game.is_over() {
                let awaiting = game.is_awaiting_piece();
                let keys = player.keys_for_next_frame(&game);
                let pieces = game.pieces();
                game.step(keys);
                if awaiting {
                    checked += 1;
                }
                if game.pieces() != pieces {
                    let plan = player.last_plan().unwrap();
                    assert_eq!(game.last_lock().unwrap().placement_key(), plan.placement, "seed {seed} level {level}");
                }
            }
            assert!(checked >= 10, "seed {seed} level {level}: only {checked} pieces");
        }
    }

    #[test]
    fn fills_an_obvious_well() {
        // Nine-wide rows with column 9 open: with an I coming the AI puts it upright in
        // the well and clears four rows.
        let mut text = String::new();
        for _ in 0..4 {
            text.push_str("#########.\n");
        }
        let mut game = game_before(crate::piece::Piece::I, 0);
        game.set_board(board(&text));
        let mut player = AiPlayer::new(evaluator(), 0);
        let pieces = game.pieces();
        while game.pieces() == pieces {
            let keys = player.keys_for_next_frame(&game);
            game.step(keys);
        }
        assert_eq!(game.last_lock().unwrap().rows_cleared, 4);
    }

    #[test]
    fn ties_are_seeded() {
        // On an empty board many placements tie; the same seed picks the same one, and
        // some pair of seeds differs.
        let game = Game::new(4, 1);
        let pick = |seed| Planner::new(evaluator(), seed).plan(&game).placement;
        assert_eq!(pick(1), pick(1));
        assert!((0..20).any(|s| pick(s) != pick(0)));
    }
}
