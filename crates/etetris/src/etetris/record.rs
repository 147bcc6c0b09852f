//! Contest records (`N,C1,L3,D17,...`): parsing with the game's own validation, writing,
//! and replaying under the game's rules (each step checked alone, invalid steps skipped,
//! the piece locks where it is when its ops run out).

use super::game::{Falling, Game, Grid, Lock};
use anyhow::{bail, ensure, Context, Result};
use std::fmt;

/// Most steps one piece may take (the game's validator: 1..=100 between two `N`).
pub const MAX_STEPS_PER_PIECE: u32 = 100;

/// One record token: `N`, or a move repeated `count` (>= 1) single steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    New,
    Left(u32),
    Right(u32),
    Down(u32),
    Rotate(u32),
}

impl Op {
    /// Steps this token stands for (0 for `N`).
    pub fn steps(self) -> u32 {
        match self {
            Op::New => 0,
            Op::Left(n) | Op::Right(n) | Op::Down(n) | Op::Rotate(n) => n,
        }
    }

    fn letter(self) -> char {
        match self {
            Op::New => 'N',
            Op::Left(_) => 'L',
            Op::Right(_) => 'R',
            Op::Down(_) => 'D',
            Op::Rotate(_) => 'C',
        }
    }

    fn with_count(self, count: u32) -> Op {
        match self {
            Op::New => Op::New,
            Op::Left(_) => Op::Left(count),
            Op::Right(_) => Op::Right(count),
            Op::Down(_) => Op::Down(count),
            Op::Rotate(_) => Op::Rotate(count),
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Op::New => write!(f, "N"),
            op => write!(f, "{}{}", op.letter(), op.steps()),
        }
    }
}

/// A whole record: the token list, always starting with `N`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    pub ops: Vec<Op>,
}

impl Record {
    /// Parses a record, bare or wrapped in the contest's JavaScript line
    /// (`game.playRecord('N,...'.split(','))` or the upload line's `record:'N,...'`).
    /// Errors name the token; the rules are the game's validator: the first token is `N`,
    /// `N` takes no count, every other token is `L`, `R`, `D` or `C` with a count >= 1,
    /// and the steps of each piece total 1..=100 (a bare final `N` is allowed, as there).
    pub fn parse(text: &str) -> Result<Record> {
        // A byte-order mark (an editor's on Windows) is no token.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        // A game trace's first line (`view::trace::MAGIC`, a layer above this one).
        if text.starts_with("# tetris-lab trace") {
            bail!("this is a game trace (`play --trace`), not an E-Tetris record: `tetris-lab watch --replay FILE` replays it");
        }
        let body = unwrap_javascript(text);
        let mut ops = Vec::new();
        for (i, token) in body.split(',').enumerate() {
            let token = token.trim();
            let position = i + 1;
            let mut chars = token.chars();
            let letter = chars.next().with_context(|| format!("token {position} is empty"))?;
            let digits = chars.as_str();
            let op = match letter {
                'N' => {
                    ensure!(digits.is_empty(), "token {position} {}: N takes no count", crate::names::Quoted(token));
                    Op::New
                }
                'L' | 'R' | 'D' | 'C' => {
                    ensure!(
                        !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()),
                        "token {position} {}: expected a count after {letter}",
                        crate::names::Quoted(token)
                    );
                    let count: u32 =
                        digits.parse().ok().filter(|&n| n <= 10 * MAX_STEPS_PER_PIECE).with_context(|| {
                            format!("token {position} {}: count out of range", crate::names::Quoted(token))
                        })?;
                    ensure!(count >= 1, "token {position} {}: a count must be at least 1", crate::names::Quoted(token));
                    match letter {
                        'L' => Op::Left(count),
                        'R' => Op::Right(count),
                        'D' => Op::Down(count),
                        _ => Op::Rotate(count),
                    }
                }
                _ => bail!("token {position} {}: unknown op (expected N, L, R, D or C)", crate::names::Quoted(token)),
            };
            if i == 0 {
                ensure!(op == Op::New, "the record must start with N, found {}", crate::names::Quoted(token));
            }
            ops.push(op);
        }
        let record = Record { ops };
        record.check_steps()?;
        Ok(record)
    }

    fn check_steps(&self) -> Result<()> {
        let mut piece = 0usize;
        let mut steps = 0u32;
        for (i, &op) in self.ops.iter().enumerate() {
            if op == Op::New {
                if i > 0 {
                    ensure!(
                        (1..=MAX_STEPS_PER_PIECE).contains(&steps),
                        "piece {piece} has {steps} steps, expected 1..={MAX_STEPS_PER_PIECE}"
                    );
                }
                piece += 1;
                steps = 0;
            } else {
                steps += op.steps();
            }
        }
        let last_is_bare_new = self.ops.last() == Some(&Op::New) && self.ops.len() > 1;
        if !last_is_bare_new {
            ensure!(
                (1..=MAX_STEPS_PER_PIECE).contains(&steps),
                "piece {piece} has {steps} steps, expected 1..={MAX_STEPS_PER_PIECE}"
            );
        }
        Ok(())
    }

    /// Appends a piece: `N`, then the given single-step moves with runs merged into one
    /// token each (`[Left(1), Left(1), Down(1)]` becomes `L2,D1`).
    pub fn push_piece(&mut self, steps: &[Op]) {
        self.ops.push(Op::New);
        let mut run: Option<Op> = None;
        for &step in steps {
            run = match run {
                Some(previous) if previous.letter() == step.letter() => {
                    Some(previous.with_count(previous.steps() + step.steps()))
                }
                Some(previous) => {
                    self.ops.push(previous);
                    Some(step)
                }
                None => Some(step),
            };
        }
        self.ops.extend(run.filter(|op| op.steps() > 0));
    }

    /// Pieces started (`N` tokens).
    pub fn pieces(&self) -> usize {
        self.ops.iter().filter(|&&op| op == Op::New).count()
    }

    /// The contest's replay line, for pasting into the game page's console.
    pub fn to_javascript(&self) -> String {
        format!("game.pause();game.playRecord('{self}'.split(','));")
    }
}

impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, op) in self.ops.iter().enumerate() {
            if i > 0 {
                write!(f, ",")?;
            }
            write!(f, "{op}")?;
        }
        Ok(())
    }
}

/// The quoted record inside a JavaScript line, or the whole text when there is none.
fn unwrap_javascript(text: &str) -> &str {
    for marker in ["playRecord(", "record:"] {
        if let Some(start) = text.find(marker) {
            let rest = text[start + marker.len()..].trim_start();
            if let Some(quote) = rest.chars().next().filter(|c| matches!(c, '\'' | '"' | '`')) {
                let inner = &rest[1..];
                if let Some(end) = inner.find(quote) {
                    return inner[..end].trim();
                }
            }
        }
    }
    text.trim().trim_matches(|c| matches!(c, '\'' | '"'))
}

/// What a replay ended with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replay {
    /// Pieces locked.
    pub pieces: usize,
    /// The score as the game counts it.
    pub score: u64,
    /// The board at the end (as written when the game ended on the top row).
    pub grid: Grid,
    pub is_over: bool,
}

/// Replays a record from the game's start (the contest sequence, empty board).
pub fn replay(record: &Record) -> Replay {
    replay_game(record, Game::default())
}

/// Replays a record from any game state (tests use hand-made boards and sequences).
pub fn replay_game(record: &Record, game: Game) -> Replay {
    replay_game_observed(record, game, &mut |_| {})
}

/// One piece of a replay as it locked (what `replay --watch` draws).
pub struct LockStep<'a> {
    /// The record's tokens for this piece (between its `N` and the next).
    pub ops: &'a [Op],
    /// The board before the lock.
    pub before: &'a Grid,
    /// Where the piece locked.
    pub falling: Falling,
    /// What the lock found (cells, full rows, top row touched); it scored unless the game
    /// is now over.
    pub lock: Lock,
    /// The game after the lock (its grid, pieces, score and end).
    pub game: &'a Game,
}

/// Replays a record like [`replay_game`], calling `on_lock` after every piece locks.
pub fn replay_game_observed(record: &Record, mut game: Game, on_lock: &mut dyn FnMut(&LockStep)) -> Replay {
    for ops in record.ops.split(|&op| op == Op::New).skip(1) {
        game.spawn();
        if game.is_over {
            break;
        }
        for &op in ops {
            for _ in 0..op.steps() {
                match op {
                    Op::Left(_) => game.shift(-1, 0),
                    Op::Right(_) => game.shift(1, 0),
                    Op::Down(_) => game.shift(0, 1),
                    Op::Rotate(_) => game.rotate(),
                    Op::New => unreachable!("split on N"),
                };
            }
        }
        let before = game.grid;
        let falling = game.falling;
        if let (Some(falling), Some(lock)) = (falling, game.lock()) {
            on_lock(&LockStep { ops, before: &before, falling, lock, game: &game });
        }
        if game.is_over {
            break;
        }
    }
    Replay { pieces: game.pieces, score: game.score, grid: game.grid, is_over: game.is_over }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_byte_order_mark_is_skipped_and_a_game_trace_is_named() {
        assert_eq!(Record::parse("\u{feff}N,L4,D18").unwrap(), Record::parse("N,L4,D18").unwrap());
        let trace = "# tetris-lab trace v1\npreset bcts rules simplified board 10x10 seed 1 game 0\n";
        let error = Record::parse(trace).unwrap_err().to_string();
        assert!(error.contains("game trace") && error.contains("watch --replay"), "{error}");
    }

    #[test]
    fn parses_and_writes_back() {
        let text = "N,C1,L3,D17,N,R2,D18";
        let record = Record::parse(text).unwrap();
        assert_eq!(record.ops[1], Op::Rotate(1));
        assert_eq!(record.to_string(), text);
        assert_eq!(record.pieces(), 2);
    }

    #[test]
    fn unwraps_the_javascript_line() {
        let line = "game.pause();game.playRecord('N,R1,D19,N,D18'.split(','));";
        assert_eq!(Record::parse(line).unwrap().to_string(), "N,R1,D19,N,D18");
        let upload = "axios.post(`api/upload`,{record:'N,D19',score: 0})";
        assert_eq!(Record::parse(upload).unwrap().to_string(), "N,D19");
    }

    #[test]
    fn rejects_what_the_game_rejects() {
        for (text, needle) in [
            ("D3,N,D2", "must start with N"),
            ("N,X3", "unknown op"),
            ("N,D", "expected a count"),
            ("N,D0", "at least 1"),
            ("N3,D2", "N takes no count"),
            ("N,N,D2", "piece 1 has 0 steps"),
            ("N,D60,R41", "piece 1 has 101 steps"),
            ("N,D2,,N", "token 3 is empty"),
        ] {
            let error = Record::parse(text).unwrap_err().to_string();
            assert!(error.contains(needle), "{text}: {error}");
        }
        assert!(Record::parse("N,D60,R40").is_ok());
        assert!(Record::parse("N,D5,N").is_ok(), "a bare final N is allowed, as in the game");
    }

    #[test]
    fn push_piece_merges_runs() {
        let mut record = Record::default();
        record.push_piece(&[Op::Left(1), Op::Left(1), Op::Down(1), Op::Down(1), Op::Down(1), Op::Rotate(1)]);
        assert_eq!(record.to_string(), "N,L2,D3,C1");
    }

    #[test]
    fn invalid_steps_are_skipped_and_pieces_lock_in_mid_air() {
        // Z0 at (4, 0); 20 steps left are mostly blocked by the wall, the piece locks
        // after D5 with its pivot on row 5, in mid-air.
        let record = Record::parse("N,L20,D5").unwrap();
        let result = replay(&record);
        assert_eq!(result.pieces, 1);
        assert!(!result.is_over);
        let expected = Grid::parse("##........\n.##.......\n").unwrap();
        // Shift the expected two rows up to rows 4 and 5.
        let mut rows = [0u16; 20];
        rows[4] = expected.row(18);
        rows[5] = expected.row(19);
        assert_eq!(result.grid, Grid::from_rows(&rows));
    }
}
