//! The E-Tetris rules: the 20 x 10 board, the seven shapes in their four states, the
//! contest's piece sequence, the lock (score and end rules) and a step-by-step [`Game`]
//! that replays use. Coordinates follow the game: `x` is the column (0 = left), `y` the row
//! counted from the **top** (0 = top row); a piece is a pivot plus four (dx, dy) offsets.

use crate::piece::Piece;
use std::fmt;
use std::sync::LazyLock;

/// Columns of the board.
pub const WIDTH: usize = 10;
/// Rows of the board.
pub const HEIGHT: usize = 20;
/// The game ends when this many pieces have locked; the last one scores nothing.
pub const PIECE_LIMIT: usize = 10_000;
/// Changes whenever the rules of `src/etetris/` change (the game loop's rule sets carry
/// theirs in [`crate::rules::RuleSet::version`]); recorded in run manifests.
pub const RULES_VERSION: &str = "etetris/1";
/// Pivot column of a new piece (its row is 0).
pub const SPAWN_X: i32 = 4;
/// Mask of a full row.
pub const FULL_ROW: u16 = (1 << WIDTH) - 1;

/// Shapes in the game's index order (I, L, J, T, O, S, Z): every table here is indexed so.
pub const GAME_ORDER: [Piece; 7] = [Piece::I, Piece::L, Piece::J, Piece::T, Piece::O, Piece::S, Piece::Z];

/// Cells (dx, dy) of each shape (game order) in each state, pivot first (from the game's
/// configuration; I, S and Z repeat states 0 and 1, O is the same in all four).
const CELLS: [[[(i8, i8); 4]; 4]; 7] = {
    const I0: [(i8, i8); 4] = [(0, 0), (0, -1), (0, -2), (0, 1)];
    const I1: [(i8, i8); 4] = [(0, 0), (1, 0), (2, 0), (-1, 0)];
    const O0: [(i8, i8); 4] = [(0, 0), (0, -1), (1, -1), (1, 0)];
    const S0: [(i8, i8); 4] = [(0, 0), (0, -1), (1, -1), (-1, 0)];
    const S1: [(i8, i8); 4] = [(0, 0), (-1, 0), (-1, -1), (0, 1)];
    const Z0: [(i8, i8); 4] = [(0, 0), (0, -1), (1, 0), (-1, -1)];
    const Z1: [(i8, i8); 4] = [(0, 0), (0, -1), (-1, 1), (-1, 0)];
    [
        [I0, I1, I0, I1],
        [
            [(0, 0), (0, -1), (0, -2), (1, 0)],
            [(0, 0), (1, 0), (2, 0), (0, 1)],
            [(0, 0), (-1, 0), (0, 1), (0, 2)],
            [(0, 0), (0, -1), (-1, 0), (-2, 0)],
        ],
        [
            [(0, 0), (0, -1), (0, -2), (-1, 0)],
            [(0, 0), (0, -1), (1, 0), (2, 0)],
            [(0, 0), (1, 0), (0, 1), (0, 2)],
            [(0, 0), (-1, 0), (-2, 0), (0, 1)],
        ],
        [
            [(0, 0), (1, 0), (0, 1), (-1, 0)],
            [(0, 0), (0, -1), (0, 1), (-1, 0)],
            [(0, 0), (0, -1), (1, 0), (-1, 0)],
            [(0, 0), (0, -1), (1, 0), (0, 1)],
        ],
        [O0, O0, O0, O0],
        [S0, S1, S0, S1],
        [Z0, Z1, Z0, Z1],
    ]
};

/// Number of distinct orientations of each shape (game order): states `s` and `s + d`
/// have the same cells.
pub const DISTINCT_STATES: [usize; 7] = [2, 4, 4, 4, 1, 2, 2];

/// One shape in one state, with the masks the move generators need.
#[derive(Clone, Copy, Debug)]
pub struct Orientation {
    /// The four (dx, dy) offsets, pivot first.
    pub cells: [(i8, i8); 4],
    /// Smallest dy (the top cell, at most 0).
    pub top: i8,
    /// Smallest and largest dx.
    pub left: i8,
    pub right: i8,
    /// Row masks for dy = top + j; bit `dx + 2` is set for each cell, so the mask of row
    /// `j` at pivot column `x` is `(rows[j] << x) >> 2`.
    pub rows: [u16; 4],
    /// For each column dx = -2..=2 (index dx + 2), the largest dy of a cell in it, or
    /// `i8::MIN` when the column is empty.
    pub column_bottom: [i8; 5],
    /// For each column dx = -2..=2, the smallest dy of a cell in it, or `i8::MAX`.
    pub column_top: [i8; 5],
}

impl Orientation {
    fn build(cells: [(i8, i8); 4]) -> Orientation {
        let top = cells.iter().map(|c| c.1).min().unwrap_or(0);
        let left = cells.iter().map(|c| c.0).min().unwrap_or(0);
        let right = cells.iter().map(|c| c.0).max().unwrap_or(0);
        let mut rows = [0u16; 4];
        let mut column_bottom = [i8::MIN; 5];
        let mut column_top = [i8::MAX; 5];
        for &(dx, dy) in &cells {
            rows[(dy - top) as usize] |= 1 << (dx + 2);
            let b = &mut column_bottom[(dx + 2) as usize];
            *b = (*b).max(dy);
            let t = &mut column_top[(dx + 2) as usize];
            *t = (*t).min(dy);
        }
        Orientation { cells, top, left, right, rows, column_bottom, column_top }
    }

    /// Mask of row `j` (dy = top + j) with the pivot at column `x`.
    #[inline]
    pub fn row_mask(&self, j: usize, x: i32) -> u16 {
        (((self.rows[j] as u32) << x) >> 2) as u16
    }

    /// Whether pivot column `x` keeps every cell inside the walls.
    #[inline]
    pub fn column_fits(&self, x: i32) -> bool {
        x + self.left as i32 >= 0 && x + (self.right as i32) < WIDTH as i32
    }
}

static ORIENTATIONS: LazyLock<[[Orientation; 4]; 7]> =
    LazyLock::new(|| std::array::from_fn(|shape| std::array::from_fn(|state| Orientation::build(CELLS[shape][state]))));

/// The orientation table of a shape (game index 0..7), indexed by state 0..4.
#[inline]
pub fn orientations(shape: usize) -> &'static [Orientation; 4] {
    &ORIENTATIONS[shape]
}

/// One piece of the sequence: its shape (game index) and the state it spawns in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spawn {
    pub shape: usize,
    pub state: usize,
}

impl Spawn {
    pub fn piece(self) -> Piece {
        GAME_ORDER[self.shape]
    }
    /// Distinct orientations of the shape (1, 2 or 4).
    pub fn distinct_states(self) -> usize {
        DISTINCT_STATES[self.shape]
    }
}

impl fmt::Display for Spawn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.piece().letter(), self.state)
    }
}

/// The contest's generator: `r(0) = 12358`, `r(n+1) = (27073 r(n) + 17713) mod 32749`;
/// piece `i` takes its shape from `r(i+1) mod 29` and its state from `i mod 4`.
#[derive(Clone, Debug)]
pub struct Sequence {
    random: u32,
    index: usize,
}

impl Default for Sequence {
    fn default() -> Self {
        Sequence { random: 12358, index: 0 }
    }
}

impl Iterator for Sequence {
    type Item = Spawn;
    fn next(&mut self) -> Option<Spawn> {
        self.random = (27073 * self.random + 17713) % 32749;
        let weight = self.random % 29;
        // Weights 2, 3, 3, 4, 5, 6, 6 out of 29 for I, L, J, T, O, S, Z.
        let shape = [1, 4, 7, 11, 16, 22].iter().position(|&limit| weight <= limit).unwrap_or(6);
        let spawn = Spawn { shape, state: self.index % 4 };
        self.index += 1;
        Some(spawn)
    }
}

/// The first `count` pieces of the sequence.
pub fn sequence(count: usize) -> Vec<Spawn> {
    Sequence::default().take(count).collect()
}

const LANES: u64 = 0x03FF_03FF_03FF_03FF;
const WALLS: u64 = 0x0801_0801_0801_0801;
const PAIRS: u64 = 0x07FF_07FF_07FF_07FF;
const LANE_ONES: u64 = 0x0001_0001_0001_0001;

/// Row transitions of one row with both walls filled (an empty row 2, a full row 0).
#[inline]
pub fn row_transitions(row: u16) -> u32 {
    let walled = ((row as u32) << 1) | 0x801;
    ((walled ^ (walled >> 1)) & 0x7FF).count_ones()
}

/// The board: row `y` is the 10-bit mask in bits `16 (y % 4)..` of `words[y / 4]`, bit `x`
/// = column `x`. 40 bytes, `Copy`, hashed and compared as five words: it is also the key
/// the solvers merge on.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Grid {
    words: [u64; 5],
}

/// The four counts the seed's evaluator weighs, on a board after clearing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Features {
    /// Filled cells.
    pub cells: u32,
    /// Changes between horizontally adjacent cells, walls filled (empty row 2, full row 0).
    pub row_transitions: u32,
    /// Changes between each row and the one below, floor filled, nothing above the top.
    pub column_transitions: u32,
    /// Empty cells with a filled cell anywhere above them in the same column.
    pub holes: u32,
}

impl Features {
    /// The counts in the order of [`crate::etetris::weights::FEATURE_NAMES`].
    pub fn as_array(&self) -> [f64; 4] {
        [self.cells as f64, self.row_transitions as f64, self.column_transitions as f64, self.holes as f64]
    }
}

/// What locking a piece did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Lock {
    /// Filled cells after writing the piece, before removing rows.
    pub cells: u32,
    /// Full rows found (and removed unless the game ended).
    pub rows: u32,
    /// A cell is in the top row: the game ends and the piece scores nothing.
    pub top_touched: bool,
}

impl Lock {
    /// Points of this lock if the game goes on: cells x 1, 3, 6, 10 for 1..4 rows.
    pub fn points(&self) -> u32 {
        self.cells * self.rows * (self.rows + 1) / 2
    }
}

impl Grid {
    /// Row `y` (0 = top).
    #[inline]
    pub fn row(&self, y: usize) -> u16 {
        (self.words[y >> 2] >> ((y & 3) * 16)) as u16 & FULL_ROW
    }

    /// Row `y` for any `y`: rows above the board read empty, rows below it full (the floor).
    #[inline]
    pub fn row_or_wall(&self, y: i32) -> u16 {
        if y < 0 {
            0
        } else if y >= HEIGHT as i32 {
            FULL_ROW
        } else {
            self.row(y as usize)
        }
    }

    #[inline]
    fn or_row(&mut self, y: usize, mask: u16) {
        self.words[y >> 2] |= (mask as u64) << ((y & 3) * 16);
    }

    /// Builds a board from its rows, top first.
    pub fn from_rows(rows: &[u16; HEIGHT]) -> Grid {
        let mut grid = Grid::default();
        for (y, &row) in rows.iter().enumerate() {
            grid.or_row(y, row & FULL_ROW);
        }
        grid
    }

    /// The rows, top first.
    pub fn rows(&self) -> [u16; HEIGHT] {
        std::array::from_fn(|y| self.row(y))
    }

    pub fn is_filled(&self, x: usize, y: usize) -> bool {
        self.row(y) >> x & 1 == 1
    }

    pub fn is_empty(&self) -> bool {
        self.words == [0; 5]
    }

    /// Filled cells.
    #[inline]
    pub fn cells(&self) -> u32 {
        self.words.iter().map(|w| w.count_ones()).sum()
    }

    /// Whether the piece fits with its pivot at (x, y): inside the walls, above the floor,
    /// and on empty cells (cells above the board are allowed).
    pub fn fits(&self, orientation: &Orientation, x: i32, y: i32) -> bool {
        if !orientation.column_fits(x) {
            return false;
        }
        (0..4).all(|j| {
            let mask = orientation.row_mask(j, x);
            mask == 0 || self.row_or_wall(y + orientation.top as i32 + j as i32) & mask == 0
        })
    }

    /// Writes the piece's cells that are on the board (y >= 0). The caller checked `fits`.
    #[inline]
    pub fn put(&mut self, orientation: &Orientation, x: i32, y: i32) {
        for j in 0..4 {
            let row = y + orientation.top as i32 + j as i32;
            let mask = orientation.row_mask(j, x);
            if mask != 0 && row >= 0 {
                self.or_row(row as usize, mask);
            }
        }
    }

    /// Bit `y` set for every full row.
    pub fn full_rows(&self) -> u32 {
        (0..HEIGHT).filter(|&y| self.row(y) == FULL_ROW).fold(0, |acc, y| acc | 1 << y)
    }

    /// Removes the rows in `row_mask` (bit y = row y); the rows above move down.
    pub fn remove_rows(&mut self, row_mask: u32) {
        let rows = self.rows();
        let mut kept = [0u16; HEIGHT];
        let mut target = HEIGHT;
        for y in (0..HEIGHT).rev() {
            if row_mask >> y & 1 == 0 {
                target -= 1;
                kept[target] = rows[y];
            }
        }
        *self = Grid::from_rows(&kept);
    }

    /// Locks a piece under the game's rules: writes it, counts cells and full rows on the
    /// board before removal, and removes the full rows unless the top row is touched (then
    /// the game is over and the board is left as written).
    pub fn lock(&mut self, orientation: &Orientation, x: i32, y: i32) -> Lock {
        self.put(orientation, x, y);
        let full = self.full_rows();
        let lock = Lock { cells: self.cells(), rows: full.count_ones(), top_touched: self.row(0) != 0 };
        if !lock.top_touched && full != 0 {
            self.remove_rows(full);
        }
        lock
    }

    /// Cells filled in one board and empty in the other.
    pub fn distance(&self, other: &Grid) -> u32 {
        self.rows().iter().zip(other.rows().iter()).map(|(a, b)| (a ^ b).count_ones()).sum()
    }

    /// For each column, the row of its topmost filled cell (`HEIGHT` when empty).
    #[inline]
    pub fn surface(&self) -> [i8; WIDTH] {
        let mut surface = [HEIGHT as i8; WIDTH];
        let mut seen = 0u16;
        for y in 0..HEIGHT {
            let mut new = self.row(y) & !seen;
            seen |= new;
            while new != 0 {
                surface[new.trailing_zeros() as usize] = y as i8;
                new &= new - 1;
            }
            if seen == FULL_ROW {
                break;
            }
        }
        surface
    }

    /// The evaluator's counts, computed four rows at a time.
    #[inline]
    pub fn features(&self) -> Features {
        let mut features = Features::default();
        let mut above = 0u64; // columns filled in any row above the current word
        for i in 0..5 {
            let word = self.words[i];
            features.cells += word.count_ones();
            let walled = (word << 1) | WALLS;
            features.row_transitions += ((walled ^ (walled >> 1)) & PAIRS).count_ones();
            let below = if i + 1 < 5 { self.words[i + 1] } else { FULL_ROW as u64 };
            features.column_transitions += (word ^ ((word >> 16) | (below << 48))).count_ones();
            let mut prefix = word | (word << 16);
            prefix |= prefix << 32;
            prefix |= above * LANE_ONES;
            let strictly_above = (prefix << 16) | above;
            features.holes += (strictly_above & !word & LANES).count_ones();
            above = prefix >> 48;
        }
        features
    }

    /// The first row from the top with a filled cell (`HEIGHT` on an empty board).
    #[inline]
    pub fn stack_top(&self) -> usize {
        (0..HEIGHT).find(|&y| self.row(y) != 0).unwrap_or(HEIGHT)
    }

    /// Rows with exactly one empty cell (the `almost_full_rows` term).
    #[inline]
    pub fn almost_full_rows(&self) -> u32 {
        (0..HEIGHT).filter(|&y| self.row(y).count_ones() == WIDTH as u32 - 1).count() as u32
    }

    /// The counts of the optional evaluator terms, in the order of
    /// [`crate::etetris::weights::EXTRA_FEATURE_NAMES`] (the extras of
    /// [`crate::etetris::weights::TERMS`], which says what each counts), on a board after clearing:
    /// `wells`, each open empty cell with both neighbours filled (walls count) weighing its
    /// depth in its well (a well of depth d counts 1 + 2 + ... + d); `rows_with_holes`,
    /// rows with a hole; `almost_full_rows`, rows with exactly one empty cell (ready to
    /// clear together).
    pub fn extra_features(&self) -> [f64; super::weights::EXTRA_TERMS] {
        let (mut wells, mut rows_with_holes, mut almost_full_rows) = (0u32, 0u32, 0u32);
        let mut covered = 0u16; // columns with a filled cell in a row above
        let mut depth = [0u32; WIDTH]; // the depth of the well cell just above, per column
        let mut in_well = 0u16;
        for y in 0..HEIGHT {
            let row = self.row(y);
            let empty = !row & FULL_ROW;
            rows_with_holes += (empty & covered != 0) as u32;
            almost_full_rows += (row.count_ones() == WIDTH as u32 - 1) as u32;
            let left_filled = (row << 1) | 1;
            let right_filled = (row >> 1) | 1 << (WIDTH - 1);
            let well = empty & !covered & left_filled & right_filled;
            let mut ended = in_well & !well;
            while ended != 0 {
                depth[ended.trailing_zeros() as usize] = 0;
                ended &= ended - 1;
            }
            let mut cells = well;
            while cells != 0 {
                let x = cells.trailing_zeros() as usize;
                depth[x] += 1;
                wells += depth[x];
                cells &= cells - 1;
            }
            in_well = well;
            covered |= row;
        }
        [wells as f64, rows_with_holes as f64, almost_full_rows as f64]
    }

    /// A fast 64-bit hash of the five words (FxHash-style rounds plus a final mix).
    #[inline]
    pub fn hash64(&self) -> u64 {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut h = 0u64;
        for &w in &self.words {
            h = (h.rotate_left(5) ^ w).wrapping_mul(K);
        }
        h ^= h >> 29;
        h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h ^ (h >> 32)
    }

    /// Parses an ASCII board, top row first: `#` (or `X`) filled, `.` empty, ten cells a
    /// line. Fewer than 20 lines are the bottom rows.
    pub fn parse(text: &str) -> anyhow::Result<Grid> {
        let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        anyhow::ensure!(lines.len() <= HEIGHT, "board has {} rows, at most {HEIGHT}", lines.len());
        let mut rows = [0u16; HEIGHT];
        let offset = HEIGHT - lines.len();
        for (i, line) in lines.iter().enumerate() {
            anyhow::ensure!(line.chars().count() == WIDTH, "board row {:?} has not {WIDTH} cells", line);
            for (x, c) in line.chars().enumerate() {
                match c {
                    '#' | 'X' => rows[offset + i] |= 1 << x,
                    '.' => {}
                    _ => anyhow::bail!("board row {:?}: unknown cell {c:?}", line),
                }
            }
        }
        Ok(Grid::from_rows(&rows))
    }
}

impl fmt::Debug for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f)?;
        for y in 0..HEIGHT {
            let line: String = (0..WIDTH).map(|x| if self.is_filled(x, y) { '#' } else { '.' }).collect();
            writeln!(f, "{line}")?;
        }
        Ok(())
    }
}

/// Where a piece locks: its pivot (x, y) and state. Ordered by x, then y, then state:
/// the solver's fixed tie-break.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Placement {
    pub x: i8,
    pub y: i8,
    pub state: u8,
}

/// Where the falling piece is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Falling {
    pub shape: usize,
    pub state: usize,
    pub x: i32,
    pub y: i32,
}

impl Falling {
    pub fn orientation(&self) -> &'static Orientation {
        &orientations(self.shape)[self.state]
    }
}

/// One game under the contest's rules, driven a step at a time (replays use it).
#[derive(Clone, Debug)]
pub struct Game {
    pub grid: Grid,
    spawns: Vec<Spawn>,
    /// Pieces locked so far.
    pub pieces: usize,
    pub score: u64,
    pub is_over: bool,
    pub falling: Option<Falling>,
}

impl Default for Game {
    /// The contest's game: empty board, the 10,000 pieces of the sequence.
    fn default() -> Self {
        Game::custom(Grid::default(), sequence(PIECE_LIMIT))
    }
}

impl Game {
    /// A game from any board with any pieces (it ends when they run out).
    pub fn custom(grid: Grid, spawns: Vec<Spawn>) -> Game {
        Game { grid, spawns, pieces: 0, score: 0, is_over: false, falling: None }
    }

    /// The pieces of the game, in order (the next to come is `spawns()[pieces]`).
    pub fn spawns(&self) -> &[Spawn] {
        &self.spawns
    }

    /// Brings the next piece in at (4, 0); a collision there ends the game.
    pub fn spawn(&mut self) {
        if self.is_over {
            return;
        }
        let Some(&spawn) = self.spawns.get(self.pieces) else {
            self.is_over = true;
            return;
        };
        let falling = Falling { shape: spawn.shape, state: spawn.state, x: SPAWN_X, y: 0 };
        if self.grid.fits(falling.orientation(), falling.x, falling.y) {
            self.falling = Some(falling);
        } else {
            self.falling = None;
            self.is_over = true;
        }
    }

    /// One step left/right/down; ignored (returns false) when the piece would not fit.
    pub fn shift(&mut self, dx: i32, dy: i32) -> bool {
        let Some(falling) = self.falling else { return false };
        let moved = Falling { x: falling.x + dx, y: falling.y + dy, ..falling };
        let fits = self.grid.fits(moved.orientation(), moved.x, moved.y);
        if fits {
            self.falling = Some(moved);
        }
        fits
    }

    /// One rotation to state (s + 1) mod 4 about the pivot, no kicks; ignored when blocked.
    pub fn rotate(&mut self) -> bool {
        let Some(falling) = self.falling else { return false };
        let turned = Falling { state: (falling.state + 1) % 4, ..falling };
        let fits = self.grid.fits(turned.orientation(), turned.x, turned.y);
        if fits {
            self.falling = Some(turned);
        }
        fits
    }

    /// Locks the falling piece where it is (even in mid-air) and applies the score and end
    /// rules: touching the top row or locking the 10,000th piece ends the game unscored.
    /// Returns what the lock found (`None` with no piece falling).
    pub fn lock(&mut self) -> Option<Lock> {
        let falling = self.falling.take()?;
        let lock = self.grid.lock(falling.orientation(), falling.x, falling.y);
        self.pieces += 1;
        if lock.top_touched || self.pieces >= PIECE_LIMIT {
            self.is_over = true;
        } else {
            self.score += lock.points() as u64;
        }
        Some(lock)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_counts_the_cells_filled_in_one_board_only() {
        let a = Grid::parse("#.........\n##.......#\n").unwrap();
        let b = Grid::parse("..........\n###......#\n").unwrap();
        assert_eq!(a.distance(&a), 0);
        assert_eq!(a.distance(&b), 2);
        assert_eq!(b.distance(&a), 2);
        assert_eq!(a.distance(&Grid::default()), a.cells());
    }

    #[test]
    fn extra_features_count_wells_rows_with_holes_and_almost_full_rows() {
        // Column 1 is a well of depth 2 (1 + 2), column 8 one of depth 1 in the middle row;
        // column 9 of the bottom row is covered, so a hole and no well.
        let grid = Grid::parse("#.#.......\n#.######.#\n#########.").unwrap();
        assert_eq!(grid.extra_features(), [4.0, 1.0, 1.0]);
        assert_eq!(grid.almost_full_rows(), 1);
        assert_eq!(Grid::default().extra_features(), [0.0; crate::etetris::weights::EXTRA_TERMS]);
    }

    #[test]
    fn sequence_starts_as_the_spec_lists() {
        let text: Vec<String> = sequence(30).iter().map(|s| format!("{}{}", s.piece().letter(), s.state)).collect();
        assert_eq!(
            text.join(" "),
            "Z0 I1 O2 S3 L0 Z1 S2 I3 Z0 J1 S2 S3 Z0 Z1 I2 Z3 Z0 J1 O2 L3 S0 O1 L2 L3 S0 Z1 S2 J3 S0 Z1"
        );
    }

    #[test]
    fn sequence_counts_over_ten_thousand_pieces() {
        let mut counts = [0usize; 7];
        for spawn in sequence(PIECE_LIMIT) {
            counts[spawn.shape] += 1;
        }
        assert_eq!(counts, [722, 957, 1053, 1325, 1649, 2094, 2200]);
    }

    #[test]
    fn repeated_states_have_equal_cells() {
        for shape in 0..7 {
            let d = DISTINCT_STATES[shape];
            for state in 0..4 {
                let mut a = CELLS[shape][state];
                let mut b = CELLS[shape][state % d];
                a.sort();
                b.sort();
                assert_eq!(a, b, "shape {shape} state {state}");
            }
        }
    }

    #[test]
    fn features_on_a_hand_counted_board() {
        let grid = Grid::parse(
            "..........\n\
             ...#......\n\
             .#.#......\n\
             ##########\n",
        )
        .unwrap();
        let f = grid.features();
        assert_eq!(f.cells, 13);
        // 17 empty rows count 2 each, "...#......" 4, ".#.#......" 6, the full row 0.
        assert_eq!(f.row_transitions, 17 * 2 + 4 + 6);
        // Column transitions between consecutive rows, floor filled below the last row.
        // row16^row17 = 1 (col 3), row17^row18 = 1 (col 1), row18^row19 = 8, row19^floor 0.
        assert_eq!(f.column_transitions, 1 + 1 + 8);
        assert_eq!(f.holes, 0);
        assert!(Grid::parse("#.\n.#").is_err(), "short rows are rejected");
        let holes = Grid::parse("####......\n#.#.......\n..........\n").unwrap();
        // Column 0: row 19 under a cell; column 1: rows 18, 19; column 2: row 19; column 3:
        // rows 18, 19.
        assert_eq!(holes.features().holes, 1 + 2 + 1 + 2);
    }

    /// The features counted cell by cell, as the spec words them.
    fn features_by_cells(grid: &Grid) -> Features {
        let filled = |x: i32, y: i32| -> bool {
            if x < 0 || x >= WIDTH as i32 || y >= HEIGHT as i32 {
                return true; // walls and floor
            }
            grid.is_filled(x as usize, y as usize)
        };
        let mut f = Features::default();
        for y in 0..HEIGHT as i32 {
            for x in -1..WIDTH as i32 {
                f.row_transitions += (filled(x, y) != filled(x + 1, y)) as u32;
            }
            for x in 0..WIDTH as i32 {
                f.cells += filled(x, y) as u32;
                f.column_transitions += (filled(x, y) != filled(x, y + 1)) as u32;
                f.holes += (!filled(x, y) && (0..y).any(|above| filled(x, above))) as u32;
            }
        }
        f
    }

    proptest::proptest! {
        #[test]
        fn features_match_a_cell_by_cell_count(rows in proptest::array::uniform20(0u16..1024), empty_top in 0usize..20) {
            let mut rows = rows;
            rows[..empty_top].fill(0);
            let grid = Grid::from_rows(&rows);
            proptest::prop_assert_eq!(grid.features(), features_by_cells(&grid));
            proptest::prop_assert_eq!(Grid::from_rows(&grid.rows()), grid);
        }
    }

    #[test]
    fn lock_counts_cells_before_removal_and_removes_full_rows() {
        let mut grid = Grid::parse("#########.\n#########.\n").unwrap();
        let i_vertical = &orientations(0)[0];
        // The I's pivot at (9, 18): cells rows 16..19.
        let lock = grid.lock(i_vertical, 9, 18);
        assert_eq!(lock, Lock { cells: 22, rows: 2, top_touched: false });
        assert_eq!(lock.points(), 66);
        assert_eq!(grid, Grid::parse("#\n#".replace('#', ".........#").as_str()).unwrap());
    }

    #[test]
    fn game_ends_when_the_top_row_is_touched() {
        let mut game = Game::default();
        game.spawn();
        // Z0 at spawn has cells in row -1 and 0: lock in place touches the top.
        game.lock();
        assert!(game.is_over);
        assert_eq!(game.score, 0);
        assert_eq!(game.pieces, 1);
    }
}
