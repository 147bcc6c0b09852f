//! The frame-accurate guideline game (rule set `guideline`, `rules.md`): a 10-wide board
//! with 20 visible and 20 hidden rows, 7-bag, hold, three previews, SRS, and a `step` that
//! advances exactly one 1/60 s frame given the set of keys held during it. The state has
//! no heap data (cloning it is a copy of a few hundred bytes), so the key-press AI can try
//! a move on a copy and get exactly what the real game will do.

use super::srs::{self, Rotation};
use crate::board::Board;
use crate::piece::Piece;
use crate::randomizer::{Randomizer, RandomizerKind};
use anyhow::{bail, Result};
use std::fmt;

/// Rule-set name and version (bump the version whenever behaviour changes).
pub const RULE_SET: &str = "guideline";
pub const RULE_SET_VERSION: u32 = 1;

pub const WIDTH: usize = 10;
pub const VISIBLE_ROWS: usize = 20;
pub const HIDDEN_ROWS: usize = 20;
pub const TOTAL_ROWS: usize = VISIBLE_ROWS + HIDDEN_ROWS;
/// Pieces shown in the preview.
pub const PREVIEW: usize = 3;
/// Frames a resting piece waits before it locks (half a second).
pub const LOCK_DELAY_FRAMES: u8 = 30;
/// Successful moves or rotations that may restart the lock delay, per piece.
pub const MAX_LOCK_RESETS: u8 = 15;
/// A held left/right key moves again on this frame after its press (frame 0)...
pub const AUTO_REPEAT_DELAY: u32 = 16;
/// ...and then every this many frames.
pub const AUTO_REPEAT_PERIOD: u32 = 6;
/// Starting levels accepted by the game and the command line.
pub const START_LEVELS: std::ops::RangeInclusive<u32> = 1..=30;
/// Line-clear points for 0..=4 rows, multiplied by the level.
pub const LINE_POINTS: [u64; 5] = [0, 100, 300, 500, 800];

/// Spawn centre: J, L, S, T, Z in columns 3-5, O in 4-5, I in 3-6, lowest cells in row 20
/// (the first row above the visible field); every spawn shape has its lowest cells at
/// offset 0 from its centre.
const SPAWN_X: i8 = 4;
const SPAWN_Y: i8 = VISIBLE_ROWS as i8;

/// Gravity is kept in fixed point so that level 1 (1/60 row per frame) and level 18 (one
/// row per frame) are exact and a long game does not drift: one row is this many units.
const UNITS_PER_ROW: u64 = 60 << 24;

/// Gravity G(level) = (1/60) * 60^((level - 1)/17) rows per frame (`rules.md`).
pub fn gravity_rows_per_frame(level: u32) -> f64 {
    60f64.powf((level as f64 - 1.0) / 17.0) / 60.0
}

/// G(level) in fixed-point units per frame.
pub(crate) fn gravity_units(level: u32) -> u64 {
    (60f64.powf((level as f64 - 1.0) / 17.0) * (1u64 << 24) as f64).round() as u64
}

/// Checks a user-supplied starting level.
pub fn check_start_level(level: u32) -> Result<()> {
    if !START_LEVELS.contains(&level) {
        bail!("starting level {level} is outside {}..={}", START_LEVELS.start(), START_LEVELS.end());
    }
    Ok(())
}

/// Whether the keys of the frame a piece appears on act on it. `rules.md` fixes the order
/// within a frame but not this; it decides how much a piece can do before gravity takes it
/// at high levels (README, "The guideline game").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpawnFrame {
    /// The piece appears, this frame's keys act on it, then gravity (rule set `guideline`).
    KeysAct,
    /// The piece appears and only gravity acts; its keys are ignored, so the first move
    /// comes a frame later (rule set `guideline-gravity-first`).
    GravityOnly,
}

impl SpawnFrame {
    /// The name of the rule set that plays this way.
    pub const fn rule_set(self) -> &'static str {
        match self {
            SpawnFrame::KeysAct => RULE_SET,
            SpawnFrame::GravityOnly => "guideline-gravity-first",
        }
    }
    /// The spawn-frame rule of a guideline rule set, by name.
    pub fn of_rule_set(name: &str) -> Option<SpawnFrame> {
        [SpawnFrame::KeysAct, SpawnFrame::GravityOnly].into_iter().find(|s| s.rule_set() == name)
    }
}

/// The set of keys held during one frame.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Keys(u8);

impl Keys {
    pub const NONE: Keys = Keys(0);
    pub const LEFT: Keys = Keys(1);
    pub const RIGHT: Keys = Keys(2);
    pub const CLOCKWISE: Keys = Keys(4);
    pub const COUNTER_CLOCKWISE: Keys = Keys(8);
    pub const SOFT_DROP: Keys = Keys(16);
    pub const HARD_DROP: Keys = Keys(32);
    pub const HOLD: Keys = Keys(64);
    /// Key names as written in frames files, in a fixed order.
    pub const NAMES: [(&'static str, Keys); 7] = [
        ("left", Keys::LEFT),
        ("right", Keys::RIGHT),
        ("cw", Keys::CLOCKWISE),
        ("ccw", Keys::COUNTER_CLOCKWISE),
        ("soft", Keys::SOFT_DROP),
        ("hard", Keys::HARD_DROP),
        ("hold", Keys::HOLD),
    ];

    #[inline]
    pub fn contains(self, other: Keys) -> bool {
        self.0 & other.0 == other.0 && other.0 != 0
    }
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    #[inline]
    pub fn intersects(self, other: Keys) -> bool {
        self.0 & other.0 != 0
    }
    /// Keys held now that were not held on the previous frame.
    #[inline]
    pub fn pressed_since(self, previous: Keys) -> Keys {
        Keys(self.0 & !previous.0)
    }

    /// Parses `-` (no key) or names joined by `+`, e.g. `left+soft`. Unknown names are an
    /// error that lists the known ones and suggests the closest.
    pub fn parse(text: &str) -> Result<Keys> {
        let text = text.trim();
        if text == "-" {
            return Ok(Keys::NONE);
        }
        let mut keys = Keys::NONE;
        for name in text.split('+') {
            match Keys::NAMES.iter().find(|(n, _)| *n == name) {
                Some(&(_, key)) => keys = keys | key,
                None => {
                    let closest = Keys::NAMES
                        .iter()
                        .map(|(n, _)| (strsim::jaro_winkler(n, name), *n))
                        .max_by(|a, b| a.0.total_cmp(&b.0))
                        .filter(|(similarity, _)| *similarity > 0.7)
                        .map(|(_, n)| format!(" (did you mean {n:?}?)"))
                        .unwrap_or_default();
                    let known: Vec<&str> = Keys::NAMES.iter().map(|(n, _)| *n).collect();
                    bail!("unknown key {name:?}{closest}; keys are {} or - for none", known.join(", "));
                }
            }
        }
        Ok(keys)
    }
}

impl std::ops::BitOr for Keys {
    type Output = Keys;
    fn bitor(self, other: Keys) -> Keys {
        Keys(self.0 | other.0)
    }
}

impl fmt::Display for Keys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return write!(f, "-");
        }
        let names: Vec<&str> = Keys::NAMES.iter().filter(|(_, k)| self.contains(*k)).map(|(n, _)| *n).collect();
        write!(f, "{}", names.join("+"))
    }
}

impl fmt::Debug for Keys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// The falling piece: kind, rotation state and the board position of its rotation centre.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ActivePiece {
    pub piece: Piece,
    pub rotation: Rotation,
    pub x: i8,
    pub y: i8,
}

impl ActivePiece {
    /// Absolute board cells (column, row).
    #[inline]
    pub fn cells(&self) -> [(i8, i8); 4] {
        srs::cells(self.piece, self.rotation).map(|(dx, dy)| (self.x + dx, self.y + dy))
    }
}

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameOver {
    /// A new piece overlapped the stack where it spawns.
    BlockOut,
    /// A piece locked with all its cells above the visible field.
    LockOut,
}

impl GameOver {
    pub fn name(self) -> &'static str {
        match self {
            GameOver::BlockOut => "block-out",
            GameOver::LockOut => "lock-out",
        }
    }
}

/// What the most recent lock did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LockInfo {
    /// The piece as it locked.
    pub placed: ActivePiece,
    /// Rows removed by this lock.
    pub rows_cleared: u32,
}

impl LockInfo {
    /// Identifies the placement by the set of cells the piece filled, so that moves ending
    /// in the same place (say an S in state 0 or 2) compare equal.
    pub fn placement_key(&self) -> u64 {
        let mut indices = self.placed.cells().map(|(x, y)| (y as u64) * WIDTH as u64 + x as u64);
        indices.sort_unstable();
        indices.iter().fold(0, |key, &i| key << 16 | i)
    }
}

/// The game state.
#[derive(Clone, Debug)]
pub struct Game {
    board: Board,
    active: Option<ActivePiece>,
    held: Option<Piece>,
    /// Set by a hold, cleared by the next lock: one hold per piece.
    hold_used: bool,
    /// Upcoming pieces, front first; always at least `PREVIEW` once the game has begun.
    queue: [Piece; PREVIEW + 1],
    queue_len: u8,
    seed: u64,
    /// The library's 7-bag on the game's seed (the same sequence as other 7-bag rule sets).
    randomizer: Randomizer,
    start_level: u32,
    level: u32,
    lines: u32,
    score: u64,
    pieces: u32,
    frame: u64,
    /// Fractional gravity carried between frames, in `UNITS_PER_ROW` units.
    gravity_carry: u64,
    /// G(level) in the same units, computed when the level changes (`powf` is slow).
    gravity_per_frame: u64,
    /// Consecutive frames the piece has ended resting on the stack, since the last reset.
    lock_frames: u8,
    lock_resets: u8,
    previous_keys: Keys,
    /// Frames since left / right were pressed (0 on the press frame); meaningful while held.
    left_frames: u32,
    right_frames: u32,
    last_lock: Option<LockInfo>,
    over: Option<GameOver>,
    spawn_frame: SpawnFrame,
}

impl Game {
    /// A new game; the first piece spawns on the first frame. Panics on a starting level
    /// outside [`START_LEVELS`] (user input goes through [`check_start_level`] first).
    pub fn new(seed: u64, start_level: u32) -> Game {
        Game::with_spawn_frame(seed, start_level, SpawnFrame::KeysAct)
    }

    /// As [`Game::new`], choosing what the keys of a spawn frame do.
    pub fn with_spawn_frame(seed: u64, start_level: u32, spawn_frame: SpawnFrame) -> Game {
        assert!(START_LEVELS.contains(&start_level), "starting level {start_level} out of range");
        let mut game = Game {
            board: Board::new(WIDTH, TOTAL_ROWS),
            active: None,
            held: None,
            hold_used: false,
            queue: [Piece::I; PREVIEW + 1],
            queue_len: 0,
            seed,
            randomizer: Randomizer::new(RandomizerKind::SevenBag, seed),
            start_level,
            level: start_level,
            lines: 0,
            score: 0,
            pieces: 0,
            frame: 0,
            gravity_carry: 0,
            gravity_per_frame: gravity_units(start_level),
            lock_frames: 0,
            lock_resets: 0,
            previous_keys: Keys::NONE,
            left_frames: 0,
            right_frames: 0,
            last_lock: None,
            over: None,
            spawn_frame,
        };
        game.fill_queue();
        game
    }

    /// Replaces the board (tests and set positions); the piece in play is left alone.
    pub fn set_board(&mut self, board: Board) {
        assert!(board.width() == WIDTH && board.height() == TOTAL_ROWS, "the guideline board is 10 x 40");
        self.board = board;
    }

    /// Overwrites the coming pieces, next first (at most 1 + `PREVIEW`); later pieces still
    /// come from the bag. For positions set up by hand (`best`, tests).
    pub fn set_upcoming(&mut self, pieces: &[Piece]) {
        assert!(pieces.len() <= PREVIEW + 1, "at most {} coming pieces can be set", PREVIEW + 1);
        self.queue[..pieces.len()].copy_from_slice(pieces);
    }

    pub fn board(&self) -> &Board {
        &self.board
    }
    pub fn active(&self) -> Option<ActivePiece> {
        self.active
    }
    pub fn held(&self) -> Option<Piece> {
        self.held
    }
    pub fn is_hold_used(&self) -> bool {
        self.hold_used
    }
    /// The next pieces, first to come first.
    pub fn preview(&self) -> &[Piece] {
        &self.queue[..PREVIEW]
    }
    pub fn seed(&self) -> u64 {
        self.seed
    }
    pub fn start_level(&self) -> u32 {
        self.start_level
    }
    pub fn level(&self) -> u32 {
        self.level
    }
    pub fn lines(&self) -> u32 {
        self.lines
    }
    pub fn score(&self) -> u64 {
        self.score
    }
    /// Pieces locked so far.
    pub fn pieces(&self) -> u32 {
        self.pieces
    }
    /// Frames stepped so far.
    pub fn frame(&self) -> u64 {
        self.frame
    }
    pub fn spawn_frame(&self) -> SpawnFrame {
        self.spawn_frame
    }
    pub fn previous_keys(&self) -> Keys {
        self.previous_keys
    }
    pub fn last_lock(&self) -> Option<LockInfo> {
        self.last_lock
    }
    pub fn game_over(&self) -> Option<GameOver> {
        self.over
    }
    pub fn is_over(&self) -> bool {
        self.over.is_some()
    }
    /// True between a lock and the next frame, when the next piece has not spawned yet:
    /// the moment a player decides on the coming piece.
    pub fn is_awaiting_piece(&self) -> bool {
        self.active.is_none() && self.over.is_none()
    }
    /// Rows the active piece would fall if hard dropped now.
    pub fn drop_distance(&self) -> u32 {
        self.active.map_or(0, |p| self.drop_distance_of(&p))
    }

    /// Rows `p` can fall. When every cell is at or above its column's top (the usual case)
    /// that is the smallest gap between a cell and its column's top; under an overhang the
    /// rows are tried one by one.
    fn drop_distance_of(&self, p: &ActivePiece) -> u32 {
        let mut gap = i32::MAX;
        for (x, y) in p.cells() {
            let height = self.board.column_height(x as usize) as i32;
            if (y as i32) < height {
                let mut distance = 0;
                while self.fits(p.piece, p.rotation, p.x, p.y - distance as i8 - 1) {
                    distance += 1;
                }
                return distance;
            }
            gap = gap.min(y as i32 - height);
        }
        gap as u32
    }

    /// Advances one frame with `keys` held. Within the frame: spawn (if the previous frame
    /// locked), hold, rotation (press frame only), horizontal move with auto-repeat, hard
    /// drop, gravity, locking. Does nothing once the game is over.
    pub fn step(&mut self, keys: Keys) {
        if self.over.is_some() {
            return;
        }
        self.frame += 1;
        let mut keys = keys;
        let mut pressed = keys.pressed_since(self.previous_keys);
        self.left_frames = if pressed.contains(Keys::LEFT) { 0 } else { self.left_frames.saturating_add(1) };
        self.right_frames = if pressed.contains(Keys::RIGHT) { 0 } else { self.right_frames.saturating_add(1) };
        self.previous_keys = keys;

        if self.active.is_none() {
            let piece = self.take_next();
            if !self.spawn(piece) {
                return;
            }
            if self.spawn_frame == SpawnFrame::GravityOnly {
                keys = Keys::NONE;
                pressed = Keys::NONE;
            }
        }
        if pressed.contains(Keys::HOLD) && !self.hold_used && !self.hold() {
            return;
        }
        if pressed.contains(Keys::CLOCKWISE) && self.rotate(true) {
            self.restart_lock_delay();
        }
        if pressed.contains(Keys::COUNTER_CLOCKWISE) && self.rotate(false) {
            self.restart_lock_delay();
        }
        let left_due = keys.contains(Keys::LEFT) && repeat_due(self.left_frames);
        let right_due = keys.contains(Keys::RIGHT) && repeat_due(self.right_frames);
        // Both directions held cancel out; the repeat counters keep running.
        let direction = match (keys.contains(Keys::LEFT), keys.contains(Keys::RIGHT)) {
            (true, false) if left_due => -1,
            (false, true) if right_due => 1,
            _ => 0,
        };
        if direction != 0 && self.shift(direction) {
            self.restart_lock_delay();
        }
        if pressed.contains(Keys::HARD_DROP) {
            let distance = self.drop_distance();
            if let Some(p) = self.active.as_mut() {
                p.y -= distance as i8;
            }
            self.score += 2 * distance as u64;
            self.lock();
            return;
        }
        self.apply_gravity(keys.contains(Keys::SOFT_DROP));
        let piece = self.active.expect("a piece is in play after spawning");
        if self.fits(piece.piece, piece.rotation, piece.x, piece.y - 1) {
            self.lock_frames = 0;
        } else {
            self.lock_frames += 1;
            if self.lock_frames >= LOCK_DELAY_FRAMES {
                self.lock();
            }
        }
    }

    /// Whether `piece` in `rotation` with its centre at (x, y) is inside the 10 x 40 field
    /// and overlaps nothing.
    #[inline]
    pub fn fits(&self, piece: Piece, rotation: Rotation, x: i8, y: i8) -> bool {
        let packed = srs::packed(piece, rotation);
        let (left, bottom) = (x + packed.min_dx, y + packed.min_dy);
        if left < 0 || x + packed.max_dx >= WIDTH as i8 || bottom < 0 || y + packed.max_dy >= TOTAL_ROWS as i8 {
            return false;
        }
        let rows = self.board.rows();
        let height = (packed.max_dy - packed.min_dy) as usize + 1;
        (0..height).all(|i| rows[bottom as usize + i] & (packed.rows[i] << left) == 0)
    }

    /// Test hook: puts `piece` in play at a given place, as if it had just spawned there.
    #[cfg(test)]
    pub(crate) fn place_active(&mut self, piece: ActivePiece) {
        self.active = Some(piece);
        self.gravity_carry = 0;
        self.lock_frames = 0;
        self.lock_resets = 0;
    }

    fn fill_queue(&mut self) {
        while (self.queue_len as usize) < PREVIEW + 1 {
            self.queue[self.queue_len as usize] = self.randomizer.next_piece();
            self.queue_len += 1;
        }
    }

    fn take_next(&mut self) -> Piece {
        let piece = self.queue[0];
        self.queue.copy_within(1..self.queue_len as usize, 0);
        self.queue_len -= 1;
        self.fill_queue();
        piece
    }

    /// Puts `piece` at the spawn position; false (and the game over) if it overlaps.
    fn spawn(&mut self, piece: Piece) -> bool {
        let active = ActivePiece { piece, rotation: Rotation::North, x: SPAWN_X, y: SPAWN_Y };
        self.active = Some(active);
        self.gravity_carry = 0;
        self.lock_frames = 0;
        self.lock_resets = 0;
        if !self.fits(piece, Rotation::North, SPAWN_X, SPAWN_Y) {
            self.over = Some(GameOver::BlockOut);
            return false;
        }
        true
    }

    /// Swaps the piece in play with the hold slot (or the next piece when empty); false if
    /// the piece coming in cannot spawn.
    fn hold(&mut self) -> bool {
        let current = self.active.expect("hold with a piece in play").piece;
        self.hold_used = true;
        let incoming = match self.held.replace(current) {
            Some(piece) => piece,
            None => self.take_next(),
        };
        self.spawn(incoming)
    }

    /// One SRS turn with the kick tests in order; true if it succeeded.
    fn rotate(&mut self, clockwise: bool) -> bool {
        let Some(p) = self.active else { return false };
        let to = if clockwise { p.rotation.clockwise() } else { p.rotation.counter_clockwise() };
        for (dx, dy) in srs::kicks(p.piece, p.rotation, to) {
            if self.fits(p.piece, to, p.x + dx, p.y + dy) {
                self.active = Some(ActivePiece { rotation: to, x: p.x + dx, y: p.y + dy, ..p });
                return true;
            }
        }
        false
    }

    fn shift(&mut self, direction: i8) -> bool {
        let Some(p) = self.active else { return false };
        if self.fits(p.piece, p.rotation, p.x + direction, p.y) {
            self.active = Some(ActivePiece { x: p.x + direction, ..p });
            return true;
        }
        false
    }

    /// A successful move or rotation while the lock delay runs starts it again, at most
    /// `MAX_LOCK_RESETS` times per piece.
    fn restart_lock_delay(&mut self) {
        if self.lock_frames > 0 && self.lock_resets < MAX_LOCK_RESETS {
            self.lock_frames = 0;
            self.lock_resets += 1;
        }
    }

    fn apply_gravity(&mut self, soft_drop: bool) {
        let gravity = self.gravity_per_frame;
        let rate = if soft_drop { (20 * gravity).max(UNITS_PER_ROW) } else { gravity };
        self.gravity_carry += rate;
        let mut p = self.active.expect("gravity with a piece in play");
        let distance = self.drop_distance_of(&p) as u64;
        let rows = (self.gravity_carry / UNITS_PER_ROW).min(distance);
        p.y -= rows as i8;
        self.gravity_carry -= rows * UNITS_PER_ROW;
        if soft_drop {
            self.score += rows;
        }
        // A piece resting on the stack banks no gravity.
        if rows == distance {
            self.gravity_carry = 0;
        }
        self.active = Some(p);
    }

    fn lock(&mut self) {
        let p = self.active.take().expect("lock with a piece in play");
        let cells = p.cells();
        for &(x, y) in &cells {
            self.board.set(x as usize, y as usize);
        }
        self.pieces += 1;
        self.hold_used = false;
        self.lock_frames = 0;
        self.lock_resets = 0;
        if cells.iter().all(|&(_, y)| y >= VISIBLE_ROWS as i8) {
            self.last_lock = Some(LockInfo { placed: p, rows_cleared: 0 });
            self.over = Some(GameOver::LockOut);
            return;
        }
        let bottom = cells.iter().map(|c| c.1).min().unwrap() as usize;
        let rows = self.board.clear_full_rows_in(bottom, 4).rows;
        self.score += LINE_POINTS[rows as usize] * self.level as u64;
        self.lines += rows;
        self.level = self.start_level + self.lines / 10;
        self.gravity_per_frame = gravity_units(self.level);
        self.last_lock = Some(LockInfo { placed: p, rows_cleared: rows });
    }
}

/// Whether a left/right key held for `frames` frames since its press moves this frame.
#[inline]
fn repeat_due(frames: u32) -> bool {
    frames == 0 || (frames >= AUTO_REPEAT_DELAY && (frames - AUTO_REPEAT_DELAY).is_multiple_of(AUTO_REPEAT_PERIOD))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 10 x 40 board from indented ASCII art (top row first; rows above are empty).
    pub(crate) fn board(text: &str) -> Board {
        let rows: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        Board::parse(&rows.join("\n"), None, TOTAL_ROWS).unwrap()
    }

    fn game_with(board_text: &str, piece: Piece, rotation: Rotation, x: i8, y: i8, level: u32) -> Game {
        let mut game = Game::new(7, level);
        game.set_board(board(board_text));
        game.place_active(ActivePiece { piece, rotation, x, y });
        game
    }

    fn at(game: &Game) -> (Rotation, i8, i8) {
        let p = game.active().unwrap();
        (p.rotation, p.x, p.y)
    }

    #[test]
    fn t_kicks_off_the_left_wall() {
        // T in state R with its flat side on the left wall; turning to 2 needs column -1,
        // so test 2 (+1, 0) applies.
        let mut game = game_with("", Piece::T, Rotation::East, 0, 10, 1);
        game.step(Keys::CLOCKWISE);
        assert_eq!(at(&game), (Rotation::South, 1, 10));
    }

    #[test]
    fn t_kicks_off_the_right_wall() {
        // T in state L against the right wall; L -> 0 test 2 is (-1, 0).
        let mut game = game_with("", Piece::T, Rotation::West, 9, 10, 1);
        game.step(Keys::CLOCKWISE);
        assert_eq!(at(&game), (Rotation::North, 8, 10));
    }

    #[test]
    fn i_kicks_off_both_walls() {
        // Vertical I (state R) in column 0: cells column 0 rows 8..=11.
        let mut game = game_with("", Piece::I, Rotation::East, 0, 10, 1);
        assert_eq!(game.active().unwrap().cells().map(|c| c.0), [0; 4]);
        game.step(Keys::COUNTER_CLOCKWISE);
        // R -> 0 in the box: test 2 (+2, 0); the I lies in columns 0..=3 on the row second
        // from the top of where it stood.
        let mut cells = game.active().unwrap().cells();
        cells.sort();
        assert_eq!(cells, [(0, 10), (1, 10), (2, 10), (3, 10)]);

        // Vertical I (state L) in column 9, rows 9..=12: L -> 0 in the box, test 3 (-2, 0),
        // lying on the row third from the bottom of where it stood.
        let mut game = game_with("", Piece::I, Rotation::West, 9, 10, 1);
        assert_eq!(game.active().unwrap().cells().map(|c| c.0), [9; 4]);
        game.step(Keys::CLOCKWISE);
        let mut cells = game.active().unwrap().cells();
        cells.sort();
        assert_eq!(cells, [(6, 11), (7, 11), (8, 11), (9, 11)]);
    }

    #[test]
    fn t_kicks_up_off_the_floor() {
        // T flat on the floor: state 0 -> R would put a cell below the floor; tests 1 and 2
        // fail, test 3 (-1, +1) lifts it.
        let mut game = game_with("", Piece::T, Rotation::North, 4, 0, 1);
        game.step(Keys::CLOCKWISE);
        assert_eq!(at(&game), (Rotation::East, 3, 1));
    }

    #[test]
    fn rotation_failing_all_five_tests_leaves_the_piece() {
        // A vertical I at the bottom of a one-wide well six deep: every test to lie flat
        // overlaps the walls of the well.
        let well = "
            ####.#####
            ####.#####
            ####.#####
            ####.#####
            ####.#####
            ####.#####";
        for keys in [Keys::CLOCKWISE, Keys::COUNTER_CLOCKWISE] {
            let mut game = game_with(well, Piece::I, Rotation::East, 4, 2, 1);
            assert_eq!(game.active().unwrap().cells().map(|c| c.0), [4; 4]);
            let before = at(&game);
            game.step(keys);
            assert_eq!(at(&game), before, "{keys}");
        }
    }

    #[test]
    fn auto_repeat_moves_on_press_then_frame_16_then_every_6() {
        let mut game = Game::new(1, 1);
        let mut columns = Vec::new();
        for _ in 0..=22 {
            game.step(Keys::LEFT);
            columns.push(game.active().unwrap().x);
        }
        // Spawn column 4; frame 0 is the press (and spawn) frame.
        assert_eq!(columns[0], 3);
        assert_eq!(columns[15], 3);
        assert_eq!(columns[16], 2);
        assert_eq!(columns[21], 2);
        assert_eq!(columns[22], 1);
    }

    #[test]
    fn keys_on_the_spawn_frame_act_only_when_the_rules_say_so() {
        let mut game = Game::new(1, 18);
        game.step(Keys::CLOCKWISE);
        assert_eq!(at(&game), (Rotation::East, 4, 19));
        let mut game = Game::with_spawn_frame(1, 18, SpawnFrame::GravityOnly);
        game.step(Keys::CLOCKWISE);
        assert_eq!(at(&game), (Rotation::North, 4, 19), "ignored, gravity still acts");
        game.step(Keys::NONE);
        game.step(Keys::CLOCKWISE);
        assert_eq!(at(&game).0, Rotation::East, "keys act from the next frame");
    }

    #[test]
    fn taps_with_a_released_frame_between_move_once_each() {
        let mut game = Game::new(1, 1);
        for keys in [Keys::RIGHT, Keys::NONE, Keys::RIGHT, Keys::NONE, Keys::RIGHT] {
            game.step(keys);
        }
        assert_eq!(game.active().unwrap().x, 7);
    }

    /// Row of the piece centre after each of the first `frames` frames, no keys held.
    fn fall(level: u32, frames: usize) -> Vec<i8> {
        let mut game = Game::new(1, level);
        (0..frames)
            .map(|_| {
                game.step(Keys::NONE);
                game.active().unwrap().y
            })
            .collect()
    }

    #[test]
    fn gravity_level_1_is_a_row_per_second() {
        let rows = fall(1, 121);
        assert_eq!(rows[58], 20);
        assert_eq!(rows[59], 19, "the 60th frame moves it");
        assert_eq!(rows[119], 18);
        assert_eq!(rows[120], 18);
    }

    #[test]
    fn gravity_level_18_is_a_row_per_frame() {
        assert_eq!(fall(18, 4), vec![19, 18, 17, 16]);
        assert!((gravity_rows_per_frame(18) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn gravity_level_25_is_about_5_4_rows_per_frame() {
        // 5.397 rows per frame: 5.4, 10.8, 16.2 accumulated, then the floor.
        assert!((gravity_rows_per_frame(25) - 5.397).abs() < 1e-3);
        assert_eq!(fall(25, 4), vec![15, 10, 4, 0]);
    }

    #[test]
    fn soft_drop_is_twenty_times_gravity_at_least_a_row() {
        let mut game = Game::new(1, 1);
        game.step(Keys::SOFT_DROP);
        assert_eq!(game.active().unwrap().y, 19, "20/60 rounds up to one row per frame");
        assert_eq!(game.score(), 1);
        let mut game = Game::new(1, 10);
        // G(10) = 0.1456 rows per frame; 20 x = 2.91: 2 rows on the first frame.
        game.step(Keys::SOFT_DROP);
        assert_eq!(game.active().unwrap().y, 18);
        assert_eq!(game.score(), 2);
    }

    /// Steps until the piece in play locks; returns the frame (0-based) on which it did.
    fn lock_frame(game: &mut Game, keys: impl Fn(usize) -> Keys) -> usize {
        let pieces = game.pieces();
        for frame in 0..1000 {
            game.step(keys(frame));
            if game.pieces() != pieces {
                return frame;
            }
        }
        panic!("never locked");
    }

    #[test]
    fn lock_delay_is_30_frames_of_rest() {
        // Level 18: from row 20 the piece reaches row 0 on frame 19 and rests from then on;
        // it locks on its 30th frame of rest.
        let mut game = Game::new(3, 18);
        assert_eq!(lock_frame(&mut game, |_| Keys::NONE), 19 + 29);
        assert_eq!(game.board().cell_count(), 4);
    }

    #[test]
    fn lock_delay_resets_at_most_15_times() {
        // Tapping left and right on alternate frames keeps moving the resting piece; each
        // move restarts the delay until 15 resets are used, then it locks 29 frames after
        // the 15th. Taps on frames 20, 22, ..., the 15th at frame 48.
        let taps = |frame: usize| match frame {
            f if f >= 20 && f % 4 == 0 => Keys::LEFT,
            f if f >= 20 && f % 4 == 2 => Keys::RIGHT,
            _ => Keys::NONE,
        };
        let mut game = Game::new(3, 18);
        assert_eq!(lock_frame(&mut game, taps), 48 + 29);
        // With fewer taps than the limit the lock follows the last tap by 29 frames.
        let few_taps = |frame: usize| if frame < 30 { taps(frame) } else { Keys::NONE };
        let mut game = Game::new(3, 18);
        assert_eq!(lock_frame(&mut game, few_taps), 28 + 29);
    }

    #[test]
    fn hard_drop_locks_at_once_and_scores_two_per_row() {
        let mut game = Game::new(5, 1);
        game.step(Keys::HARD_DROP);
        assert_eq!(game.pieces(), 1);
        assert_eq!(game.score(), 40);
        assert!(game.is_awaiting_piece());
        game.step(Keys::NONE);
        assert!(game.active().is_some(), "the next piece appears on the frame after the lock");
    }

    #[test]
    fn seven_bag_deals_each_piece_once_per_bag() {
        for seed in 0..50 {
            let mut game = Game::new(seed, 1);
            let mut dealt = Vec::new();
            for _ in 0..70 {
                dealt.push(game.take_next());
            }
            for bag in dealt.chunks(7) {
                let mut sorted = bag.to_vec();
                sorted.sort();
                assert_eq!(sorted, Piece::ALL.to_vec(), "seed {seed}");
            }
        }
        // Different seeds give different sequences.
        let first = |seed| {
            let mut game = Game::new(seed, 1);
            (0..14).map(|_| game.take_next()).collect::<Vec<_>>()
        };
        assert_ne!(first(1), first(2));
        assert_eq!(first(1), first(1));
    }

    #[test]
    fn preview_shows_the_next_three() {
        let mut game = Game::new(9, 1);
        let preview = game.preview().to_vec();
        game.step(Keys::NONE);
        assert_eq!(game.active().unwrap().piece, preview[0]);
        assert_eq!(game.preview()[..2], preview[1..]);
    }

    #[test]
    fn hold_once_per_piece() {
        let mut game = Game::new(11, 1);
        let preview = game.preview().to_vec();
        game.step(Keys::NONE);
        let first = game.active().unwrap().piece;
        game.step(Keys::HOLD);
        assert_eq!(game.held(), Some(first));
        assert_eq!(game.active().unwrap().piece, preview[1], "empty slot: the next piece comes in");
        game.step(Keys::NONE);
        game.step(Keys::HOLD);
        assert_eq!(game.held(), Some(first), "a second hold before the lock does nothing");
        assert_eq!(game.active().unwrap().piece, preview[1]);
        game.step(Keys::HARD_DROP);
        game.step(Keys::HOLD);
        assert_eq!(game.active().unwrap().piece, first, "after a lock, hold swaps again");
        assert_eq!(game.held(), Some(preview[2]));
        assert_eq!(game.active().unwrap().y, SPAWN_Y, "the swapped-in piece starts at the spawn");
    }

    #[test]
    fn line_clears_score_by_level_and_raise_it() {
        // Nine rows with a gap at column 9 and an I standing in the gap: 4 rows, at level 1.
        let mut text = String::new();
        for _ in 0..4 {
            text.push_str("#########.\n");
        }
        let mut game = game_with(&text, Piece::I, Rotation::East, 9, 30, 1);
        assert_eq!(game.active().unwrap().cells()[0].0, 9);
        game.step(Keys::HARD_DROP);
        assert_eq!(game.lines(), 4);
        assert_eq!(game.last_lock().unwrap().rows_cleared, 4);
        assert!(game.board().is_empty());
        let drop = 30 - 2; // centre from row 30 to row 2 (cells 0..=3)
        assert_eq!(game.score(), 800 + 2 * drop as u64);
        assert_eq!(game.level(), 1);
        let mut game = Game::new(1, 3);
        game.lines = 9;
        game.set_board(board("#########."));
        game.place_active(ActivePiece { piece: Piece::I, rotation: Rotation::East, x: 9, y: 30 });
        game.step(Keys::HARD_DROP);
        assert_eq!((game.lines(), game.level()), (10, 4));
        assert_eq!(game.score(), 100 * 3 + 2 * 28);
    }

    #[test]
    fn block_out_when_the_spawn_is_covered() {
        let mut game = Game::new(1, 1);
        let mut covered = Board::new(WIDTH, TOTAL_ROWS);
        for x in 0..WIDTH {
            covered.set(x, 20);
        }
        covered.clear_cell(0, 20);
        game.set_board(covered);
        game.step(Keys::NONE);
        assert_eq!(game.game_over(), Some(GameOver::BlockOut));
        let frame = game.frame();
        game.step(Keys::HARD_DROP);
        assert_eq!(game.frame(), frame, "a finished game does not advance");
    }

    #[test]
    fn lock_out_when_a_piece_locks_above_the_field() {
        // A stack up to row 19 under the spawn columns except where the piece lands above.
        let mut text = String::new();
        for _ in 0..20 {
            text.push_str("..######..\n");
        }
        let mut game = game_with(&text, Piece::O, Rotation::North, 4, 22, 1);
        game.step(Keys::HARD_DROP);
        assert_eq!(game.game_over(), Some(GameOver::LockOut));
    }

    #[test]
    fn keys_parse_and_print() {
        assert_eq!(Keys::parse("-").unwrap(), Keys::NONE);
        let k = Keys::parse("left+soft").unwrap();
        assert_eq!(k, Keys::LEFT | Keys::SOFT_DROP);
        assert_eq!(k.to_string(), "left+soft");
        let e = Keys::parse("lefft").unwrap_err().to_string();
        assert!(e.contains("unknown key \"lefft\"") && e.contains("did you mean \"left\""), "{e}");
        assert!(Keys::parse("jump").is_err());
    }

    #[test]
    fn start_level_is_checked() {
        assert!(check_start_level(1).is_ok());
        assert!(check_start_level(30).is_ok());
        assert!(check_start_level(0).unwrap_err().to_string().contains("outside 1..=30"));
        assert!(check_start_level(31).is_err());
    }

    #[test]
    fn packed_fit_tests_agree_with_cell_by_cell_tests() {
        let board = board(
            "
            #..##.....
            #...#...##
            ##.###.###",
        );
        let mut game = Game::new(1, 1);
        game.set_board(board);
        for piece in Piece::ALL {
            for rotation in Rotation::ALL {
                for x in -3..13 {
                    for y in -3..43 {
                        let by_cells = srs::cells(piece, rotation).iter().all(|&(dx, dy)| {
                            let (cx, cy) = (x + dx, y + dy);
                            (0..WIDTH as i8).contains(&cx)
                                && (0..TOTAL_ROWS as i8).contains(&cy)
                                && !board.is_filled(cx as usize, cy as usize)
                        });
                        assert_eq!(game.fits(piece, rotation, x, y), by_cells, "{piece} {rotation:?} {x} {y}");
                    }
                }
            }
        }
    }

    #[test]
    fn drop_distances_agree_with_row_by_row_tests_under_overhangs_too() {
        let board = board(
            "
            ####..####
            #........#
            #..#.....#
            ##.###.###",
        );
        let mut game = Game::new(1, 1);
        game.set_board(board);
        let mut checked = 0;
        for piece in Piece::ALL {
            for rotation in Rotation::ALL {
                for x in -2..12 {
                    for y in 0..25 {
                        if !game.fits(piece, rotation, x, y) {
                            continue;
                        }
                        let mut expected = 0;
                        while game.fits(piece, rotation, x, y - expected - 1) {
                            expected += 1;
                        }
                        let p = ActivePiece { piece, rotation, x, y };
                        assert_eq!(game.drop_distance_of(&p), expected as u32, "{p:?}");
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 1000);
    }

    proptest::proptest! {
        /// Whatever keys are held, the piece in play never overlaps the stack or leaves the
        /// field, and every locked cell is on the board or was removed with a full row.
        #[test]
        fn random_keys_keep_the_game_consistent(seed in 0u64..1000, level in 1u32..=30, keys in proptest::collection::vec(0u8..128, 1..600)) {
            let mut game = Game::new(seed, level);
            for k in keys {
                game.step(Keys(k));
                if let Some(p) = game.active() {
                    proptest::prop_assert!(game.is_over() || game.fits(p.piece, p.rotation, p.x, p.y));
                }
                proptest::prop_assert_eq!(game.board().cell_count(), 4 * game.pieces() - 10 * game.lines());
                proptest::prop_assert_eq!(game.level(), level + game.lines() / 10);
            }
        }
    }

    #[test]
    fn a_copy_plays_exactly_like_the_original() {
        let mut game = Game::new(21, 5);
        let script = [Keys::CLOCKWISE, Keys::NONE, Keys::LEFT, Keys::NONE, Keys::HARD_DROP];
        for _ in 0..6 {
            for &k in &script {
                game.step(k);
            }
        }
        let mut copy = game.clone();
        for _ in 0..30 {
            game.step(Keys::RIGHT);
            copy.step(Keys::RIGHT);
        }
        assert_eq!(game.board(), copy.board());
        assert_eq!(game.active(), copy.active());
        assert_eq!(game.preview(), copy.preview());
    }
}
