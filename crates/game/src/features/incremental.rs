//! Fast path for one-piece search with the Dellacherie family, BCTS' two additions (and
//! MdpTetris' count of the first, `cells_above_holes`) and the D-T set's two others
//! (`dt_wells`, `pattern_diversity`): the parent board is summarised once per decision, and
//! each placement is scored from the few rows and columns it changes, without copying the
//! board (one that clears rows from the column bitmasks with those rows squeezed out). The
//! values are the same integers the features compute on the full board (tested against
//! them), so choices are bit-identical to the slow path. Lee's, Mike's and the 7-term
//! features are in [`super::columns`].

use super::feature_set;
use crate::board::{Board, MAX_WIDTH, ROW_CAPACITY};
use crate::piece::DropShape;
use crate::placement::{Placement, PlacementInfo};

/// Features the fast path computes, by index.
pub const SUPPORTED: [&str; FEATURE_COUNT] = [
    "landing_height",
    "landing_height_0",
    "eroded_cells",
    "rows_cleared",
    "row_transitions",
    "column_transitions",
    "column_transitions_nosky",
    "holes",
    "cumulative_wells",
    "dt_wells",
    "hole_depth",
    "cells_above_holes",
    "rows_with_holes",
    "pattern_diversity",
];

/// Number of features the fast path computes.
pub const FEATURE_COUNT: usize = 14;

// Indices in [`SUPPORTED`] of the features with work of their own. `dt_wells` sits among
// the others so that the D-T set's order (`dt::DT_NAMES`) ascends, as BCTS' does: the
// presets' terms are then summed by the specialised scorers, in their own order.
const ROW_TRANSITIONS: usize = 4;
const COLUMN_TRANSITIONS_NOSKY: usize = 6;
const CUMULATIVE_WELLS: usize = 8;
const DT_WELLS: usize = 9;
const HOLE_DEPTH: usize = 10;
const CELLS_ABOVE_HOLES: usize = 11;
const ROWS_WITH_HOLES: usize = 12;
const PATTERN_DIVERSITY: usize = 13;

/// `eroded_cells` and `rows_cleared`: 0 on every placement the fast path scores.
const CLEARED_ROW_FEATURES: u32 = feature_set(&[2, 3]);
/// Dellacherie's six (Fahey's variants).
pub const DELLACHERIE_SET: u32 = feature_set(&[0, 2, 4, 5, 7, 8]);
/// Dellacherie's six and BCTS' two.
pub const BCTS_SET: u32 = DELLACHERIE_SET | feature_set(&[HOLE_DEPTH, ROWS_WITH_HOLES]);
/// BCTS as MdpTetris counts it: its hole depth in place of the specification's.
pub const BCTS_MDPTETRIS_SET: u32 = DELLACHERIE_SET | feature_set(&[ROWS_WITH_HOLES, CELLS_ABOVE_HOLES]);
/// El-Tetris' six.
pub const ELTETRIS_SET: u32 = feature_set(&[1, 3, 4, 6, 7, 8]);
/// The D-T set (`dt::DT_NAMES`): BCTS as MdpTetris counts it with its own wells, and the
/// pattern diversity.
pub const DT_SET: u32 = feature_set(&[0, 2, 4, 5, 7, DT_WELLS, CELLS_ABOVE_HOLES, ROWS_WITH_HOLES, PATTERN_DIVERSITY]);
/// Every supported feature.
pub const ALL_SET: u32 = (1 << FEATURE_COUNT) - 1;
/// Not a feature: a walk's set with this bit sums the evaluator's terms in its own order
/// from the features of the set and the column heights after the drop (Bertsekas'
/// features, [`ParentSummary::heights_at`]).
pub const WITH_HEIGHTS: u32 = 1 << 31;
/// Bertsekas' sets (BDU: Bertsekas' 21 and BCTS as MdpTetris counts it; lambda-PI's policy:
/// Bertsekas' 21 and the rows cleared): their row features, and the heights.
pub const BERTSEKAS_SET: u32 = BCTS_MDPTETRIS_SET | CLEARED_ROW_FEATURES | WITH_HEIGHTS;

/// Index of a feature in [`SUPPORTED`].
pub fn index_of(name: &str) -> Option<usize> {
    SUPPORTED.iter().position(|n| *n == name)
}

/// [`ParentSummary::set`] of a summary that describes no board.
const NO_SET: u32 = u32::MAX;

/// Column-array slots: board column `x` is slot `x + 2`, with filled wall slots on both
/// sides, so that a column's neighbours need no edge cases.
const PAD: usize = 2;
const SLOTS: usize = MAX_WIDTH + 2 * PAD;

/// What the fast path needs to know about the board before the placement.
#[derive(Clone, Debug, PartialEq)]
pub struct ParentSummary {
    /// The feature set it was built for ([`ParentSummary::refill`]'s `SET`; [`NO_SET`]
    /// when it describes no board).
    set: u32,
    /// The rows of the board it describes: a summary kept across decisions is used again
    /// only for that board (see [`ParentSummary::advance`]).
    board_rows: [u16; ROW_CAPACITY],
    width: usize,
    height: usize,
    full: u16,
    /// The row's walls for [`ParentSummary::transitions_in`]: bit 0 and bit `width + 1`.
    walls: u32,
    /// Bits 0..=width: the changes between a walled row's neighbouring cells.
    transition_mask: u32,
    /// Bit of the last column (its right wall counts as filled for wells).
    last_column: u16,
    row_transitions: u32,
    column_transitions: u32,
    /// Filled cells of the top row.
    top_row_cells: u32,
    holes: u32,
    wells: u32,
    hole_depth: u32,
    /// Filled cells with a hole below them (MdpTetris' hole depth).
    cells_above_holes: u32,
    /// Bit y set when row y has a hole.
    hole_rows: u64,
    /// Row transitions of every row (empty rows: 2).
    row_transitions_of: [u8; ROW_CAPACITY],
    /// Column bitmasks, bit y = row y, by slot (walls: `all`).
    columns: [u64; SLOTS],
    /// Well depth summed over the well cells of every row.
    wells_in_row: [u32; ROW_CAPACITY],
    /// Well cells of every column as a column bitmask, by slot (walls: 0).
    well_cells_of: [u64; SLOTS],
    /// D-T's wells (MdpTetris' "fast" well sums), summed over the columns.
    dt_wells: u32,
    /// D-T's wells of every column ([`dt_wells_in_column`]), by slot (walls: 0).
    dt_wells_of: [u32; SLOTS],
    /// By column x: the height differences -2..=2 that occur between neighbouring columns
    /// both left of x, as bits ([`pattern_bit`]); a drop changes only the differences
    /// that involve its columns.
    patterns_left_of: [u8; MAX_WIDTH],
    /// The same between neighbouring columns both right of x.
    patterns_right_of: [u8; MAX_WIDTH],
    /// Whether placements that clear rows are scored here (from the column bitmasks), or
    /// declined for the full features (see [`ParentSummary::decline_clearing`]).
    score_clearing: bool,
}

impl Default for ParentSummary {
    /// The summary of no board (every count 0): storage for [`ParentSummary::refill`].
    fn default() -> ParentSummary {
        ParentSummary {
            set: NO_SET,
            board_rows: [0; ROW_CAPACITY],
            width: 0,
            height: 0,
            full: 0,
            walls: 0,
            transition_mask: 0,
            last_column: 0,
            row_transitions: 0,
            column_transitions: 0,
            top_row_cells: 0,
            holes: 0,
            wells: 0,
            hole_depth: 0,
            cells_above_holes: 0,
            hole_rows: 0,
            row_transitions_of: [0; ROW_CAPACITY],
            columns: [0; SLOTS],
            wells_in_row: [0; ROW_CAPACITY],
            well_cells_of: [0; SLOTS],
            dt_wells: 0,
            dt_wells_of: [0; SLOTS],
            patterns_left_of: [0; MAX_WIDTH],
            patterns_right_of: [0; MAX_WIDTH],
            score_clearing: true,
        }
    }
}

#[inline]
fn row_transitions_of(row: u16, width: usize) -> u32 {
    let walled = (row as u32) << 1 | 1 | 1 << (width + 1);
    ((walled ^ (walled >> 1)) & ((1u32 << (width + 1)) - 1)).count_ones()
}

/// One past the highest filled cell of `column` below row `y` (0: none): a well cell at `y`
/// is deep by the empty run down to there, `y + 1 - floor_below`.
#[inline(always)]
fn floor_below(column: u64, y: u32) -> u32 {
    let below = column & ((1u64 << y) - 1);
    64 - below.leading_zeros()
}

/// Adds the depth of each well cell in `cells` (of `column`) to its row's count and the total.
#[inline(always)]
fn add_well_depths(mut cells: u64, column: u64, wells_in_row: &mut [u32; ROW_CAPACITY], wells: &mut u32) {
    while cells != 0 {
        let y = cells.trailing_zeros();
        cells &= cells - 1;
        let depth = y + 1 - floor_below(column, y);
        wells_in_row[y as usize] += depth;
        *wells += depth;
    }
}

/// D-T's wells of one column (bitmask `column`, between the columns `left` and `right`;
/// `all`: the board's rows), as [`dt::dt_wells`](super::dt::dt_wells) counts them: each
/// empty run that holds a well cell (empty, both neighbours filled) counts from its highest
/// well cell down, a run of `n` cells adding `1 + 2 + ... + n`. The scan from the stack's
/// top finds no well cell above it (a neighbour column is empty there).
#[inline(always)]
fn dt_wells_in_column(column: u64, left: u64, right: u64, all: u64) -> u32 {
    let mut cells = !column & left & right & all;
    let mut total = 0;
    while cells != 0 {
        let y = 63 - cells.leading_zeros();
        let floor = floor_below(column, y);
        let run = y + 1 - floor;
        total += run * (run + 1) / 2;
        // The run's lower well cells count with it, not again.
        cells &= (1u64 << floor) - 1;
    }
    total
}

/// The bit of [`dt::pattern_diversity`](super::dt::pattern_diversity) for a height
/// difference `difference` of neighbouring columns: bit `difference + 2` for -2..=2, none
/// beyond.
#[inline(always)]
fn pattern_bit(difference: i32) -> u8 {
    let bit = (difference + 2) as u32;
    if bit < 5 {
        1 << bit
    } else {
        0
    }
}

/// What the placement loop needs of one orientation, computed once for all its columns.
#[derive(Clone, Copy, Debug)]
pub struct ShapeCells {
    width: usize,
    height: usize,
    rows: [u16; 4],
    /// The cells of each box column as a column bitmask from the box bottom.
    columns: [u64; 4],
    /// Cells of each box column.
    cells: [u32; 4],
    /// Lowest cell of each box column, from the box bottom.
    bottoms: [u32; 4],
    /// One above the highest cell of each box column, from the box bottom: the column's
    /// height after a drop that clears no row, above the box bottom.
    heights: [u32; 4],
    /// Sum of `cells * bottom` over the box columns, and of `cells`.
    cells_bottom_sum: u32,
    cell_count: u32,
}

impl ShapeCells {
    /// Bounding-box width in columns.
    #[inline]
    pub fn width(&self) -> usize {
        self.width
    }
    /// Bounding-box height in rows.
    #[inline]
    pub fn height(&self) -> usize {
        self.height
    }
    /// One above the highest cell of each box column, from the box bottom.
    #[inline]
    pub fn column_tops(&self) -> &[u32; 4] {
        &self.heights
    }
    #[inline(always)]
    pub fn new(shape: &DropShape) -> ShapeCells {
        let width = shape.width as usize;
        let mut columns = [0u64; 4];
        let mut cells = [0u32; 4];
        let mut bottoms = [0u32; 4];
        for j in 0..width {
            let (bottom, top) = (shape.bottom[j] as u32, shape.top[j] as u32);
            cells[j] = top - bottom + 1;
            bottoms[j] = bottom;
            columns[j] = ((1u64 << cells[j]) - 1) << bottom;
        }
        let cells_bottom_sum = (0..width).map(|j| cells[j] * bottoms[j]).sum();
        let cell_count = cells.iter().sum();
        ShapeCells {
            width,
            height: shape.height as usize,
            rows: shape.rows,
            columns,
            cells,
            bottoms,
            heights: std::array::from_fn(|j| bottoms[j] + cells[j]),
            cells_bottom_sum,
            cell_count,
        }
    }
}

/// Whether every row of `shape` is one run of cells (every tetromino's is): what the
/// row-transition bound of [`PruneBounds`] assumes.
#[inline(always)]
pub fn rows_are_runs(shape: &DropShape) -> bool {
    // The four rows side by side (16 bits each, cells in the low 4): each run of cells
    // starts and ends one change of `packed ^ packed << 1`, so the rows are runs exactly
    // when there are two changes per row of the box.
    let packed = shape.rows.iter().rev().fold(0u64, |packed, &row| packed << 16 | row as u64);
    (packed ^ packed << 1).count_ones() == 2 * shape.height as u32
}

/// The empty cells between each box column's old top and the piece's lowest cell in it
/// (the holes it makes there), for `shape`'s box at (`left`, `bottom`), at or above the
/// drop row; 0 past the box's width.
#[inline(always)]
pub fn gaps_at(
    heights: &[u8; MAX_WIDTH],
    shape: &ShapeCells,
    piece_width: usize,
    left: usize,
    bottom: usize,
) -> [u32; 4] {
    let mut gaps = [0u32; 4];
    for j in 0..piece_width {
        gaps[j & 3] = bottom as u32 + shape.bottoms[j & 3] - heights[left + j] as u32;
    }
    gaps
}

/// The column heights of the board a drop leaves (rows it completes removed) and the
/// board's width: what Bertsekas' features read on the fast path
/// ([`ParentSummary::heights_at`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HeightsAfter {
    /// By column; 0 past the width.
    pub heights: [u8; MAX_WIDTH],
    pub width: usize,
}

/// One drop the scorers of [`ParentSummary`] score: `shape`'s box at (`left`, `bottom`), at
/// or above the column tops, with the gaps it leaves under the piece. Built once per
/// placement and passed by value. `width` and `height` are the shape's box size, held
/// apart from it so that callers can give constants and have the scorers' loops unrolled.
#[derive(Clone, Copy, Debug)]
pub struct Landing<'a> {
    /// The piece's orientation.
    pub shape: &'a ShapeCells,
    /// Box width in columns (the shape's).
    pub width: usize,
    /// Box height in rows (the shape's).
    pub height: usize,
    /// Board column of the box's left column.
    pub left: usize,
    /// Board row of the box's bottom row.
    pub bottom: usize,
    /// The drop's [`gaps_at`], where the caller computed them (by reference, as the
    /// scorers took them before: the value is made of scalars only).
    pub gaps: &'a [u32; 4],
}

impl ParentSummary {
    pub fn new(board: &Board) -> ParentSummary {
        ParentSummary::for_set::<ALL_SET>(board)
    }

    /// The summary the features of `SET` need (the rest left at zero): what the scorers of
    /// [`ParentSummary::score_at`] read for that set. `SET` 0 stands for every feature (the
    /// general sum's walk).
    #[inline(always)]
    pub fn for_set<const SET: u32>(board: &Board) -> ParentSummary {
        let mut s = ParentSummary::default();
        s.refill::<SET>(board);
        s
    }

    /// [`ParentSummary::for_set`] in place: a summary kept in the search's scratch space is
    /// rebuilt without being copied (it is about 850 bytes), unless it already describes
    /// `board` for `SET` (after [`ParentSummary::advance`]: the previous decision's board
    /// with the chosen piece locked, no row cleared). Returns whether it was kept.
    #[inline(always)]
    pub fn refill<const SET: u32>(&mut self, board: &Board) -> bool {
        self.score_clearing = true;
        if self.set == SET
            && self.board_rows == *board.rows()
            && self.width == board.width()
            && self.height == board.height()
        {
            return true;
        }
        self.rebuild::<SET>(board);
        false
    }

    /// [`ParentSummary::refill`]'s rebuild from the board.
    #[inline(always)]
    fn rebuild<const SET: u32>(&mut self, board: &Board) {
        let needs = |index: usize| SET == 0 || SET >> index & 1 == 1;
        let width = board.width();
        let height = board.height();
        let top = board.stack_top().min(height);
        let rows = board.rows();
        let all = (1u64 << height) - 1;
        let s = self;
        s.set = SET;
        s.board_rows = *rows;
        s.width = width;
        s.height = height;
        s.full = board.full_row();
        s.walls = 1 | 1 << (width + 1);
        s.transition_mask = (1u32 << (width + 1)) - 1;
        s.last_column = 1 << (width - 1);
        // Every empty row above the stack: 2 (its two walls).
        s.row_transitions = 2 * (height - top) as u32;
        s.column_transitions = 0;
        s.top_row_cells = rows[height - 1].count_ones();
        s.holes = 0;
        s.wells = 0;
        s.hole_depth = 0;
        s.cells_above_holes = 0;
        s.hole_rows = 0;
        s.row_transitions_of = [2; ROW_CAPACITY];
        s.columns = [all; SLOTS];
        s.wells_in_row = [0; ROW_CAPACITY];
        s.well_cells_of = [0; SLOTS];
        s.dt_wells = 0;
        s.dt_wells_of = [0; SLOTS];
        s.patterns_left_of = [0; MAX_WIDTH];
        s.patterns_right_of = [0; MAX_WIDTH];
        s.score_clearing = true;
        s.columns[PAD..PAD + width].fill(0);
        let mut below = board.full_row();
        for (y, &row) in rows.iter().enumerate().take(top) {
            let transitions = row_transitions_of(row, width);
            s.row_transitions_of[y] = transitions as u8;
            s.row_transitions += transitions;
            s.column_transitions += (row ^ below).count_ones();
            below = row;
            let mut bits = row;
            while bits != 0 {
                let x = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                s.columns[PAD + x] |= 1 << y;
            }
        }
        s.column_transitions += below.count_ones();
        if top == 0 {
            s.column_transitions = width as u32;
        }
        for x in 0..width {
            let height_x = board.column_height(x) as u32;
            let column = s.columns[PAD + x];
            s.holes += height_x - column.count_ones();
            if needs(CELLS_ABOVE_HOLES) {
                s.cells_above_holes += cells_above_holes_of(column);
            }
            if needs(HOLE_DEPTH) || needs(ROWS_WITH_HOLES) {
                // Holes are rare: walk them, each deep by the filled cells above it.
                let mut holes = !column & ((1u64 << height_x) - 1);
                s.hole_rows |= holes;
                while holes != 0 {
                    let y = holes.trailing_zeros();
                    holes &= holes - 1;
                    s.hole_depth += (column >> y).count_ones();
                }
            }
            if needs(CUMULATIVE_WELLS) {
                let slot = PAD + x;
                let cells = !column & s.columns[slot - 1] & s.columns[slot + 1] & all;
                s.well_cells_of[slot] = cells;
                add_well_depths(cells, column, &mut s.wells_in_row, &mut s.wells);
            }
            if needs(DT_WELLS) {
                let slot = PAD + x;
                let wells = dt_wells_in_column(column, s.columns[slot - 1], s.columns[slot + 1], all);
                s.dt_wells_of[slot] = wells;
                s.dt_wells += wells;
            }
        }
        if needs(PATTERN_DIVERSITY) {
            s.fill_patterns();
        }
    }

    /// [`ParentSummary::patterns_left_of`] and [`ParentSummary::patterns_right_of`] from the
    /// column bitmasks.
    #[inline(always)]
    fn fill_patterns(&mut self) {
        let width = self.width;
        let heights: [i32; MAX_WIDTH] = std::array::from_fn(|x| (64 - self.columns[PAD + x].leading_zeros()) as i32);
        self.patterns_left_of = [0; MAX_WIDTH];
        self.patterns_right_of = [0; MAX_WIDTH];
        for x in 2..width {
            self.patterns_left_of[x] = self.patterns_left_of[x - 1] | pattern_bit(heights[x - 1] - heights[x - 2]);
        }
        for x in (0..width.saturating_sub(2)).rev() {
            self.patterns_right_of[x] = self.patterns_right_of[x + 1] | pattern_bit(heights[x + 2] - heights[x + 1]);
        }
    }

    /// Turns the summary of `board` (as [`ParentSummary::refill`] left it for `SET`) into
    /// the summary of the board `placement` leaves, if it clears no row (about two thirds of
    /// the moves): only the piece's rows and columns change, and a few well cells above it.
    /// Otherwise the summary is marked as describing no board, and the next
    /// [`ParentSummary::refill`] rebuilds it. `placement` must rest on the column tops
    /// (a straight drop). The result is exactly the rebuilt summary (a property test
    /// compares them after random moves).
    #[inline(never)]
    pub fn advance<const SET: u32>(&mut self, board: &Board, placement: &Placement) {
        // The box size as constants, so that the loops unroll.
        match (placement.shape.width, placement.shape.height) {
            (4, 1) => self.advance_sized::<SET>(board, placement, 4, 1),
            (1, 4) => self.advance_sized::<SET>(board, placement, 1, 4),
            (2, 2) => self.advance_sized::<SET>(board, placement, 2, 2),
            (3, 2) => self.advance_sized::<SET>(board, placement, 3, 2),
            (2, 3) => self.advance_sized::<SET>(board, placement, 2, 3),
            (w, h) => self.advance_sized::<SET>(board, placement, w as usize, h as usize),
        }
    }

    /// [`ParentSummary::advance`] for a box `piece_width` x `piece_height`.
    #[inline(always)]
    fn advance_sized<const SET: u32>(
        &mut self,
        board: &Board,
        placement: &Placement,
        piece_width: usize,
        piece_height: usize,
    ) {
        let needs = |index: usize| SET == 0 || SET >> index & 1 == 1;
        let (left, bottom) = (placement.left as usize, placement.bottom as usize);
        let shape = ShapeCells::new(&placement.shape);
        let rows = board.rows();
        let heights = board.heights();
        if self.set != SET || bottom + piece_height > self.height {
            self.set = NO_SET;
            return;
        }
        let mut clears = false;
        let mut new_rows = [0u16; 4];
        for i in 0..piece_height {
            new_rows[i & 3] = rows[bottom + i] | shape.rows[i & 3] << left;
            clears |= new_rows[i & 3] == self.full;
        }
        // Resting on the column tops: no piece column below its column's top.
        let mut resting = true;
        let mut gaps = [0u32; 4];
        for j in 0..piece_width {
            let gap = (bottom + shape.bottoms[j & 3] as usize) as i64 - heights[left + j] as i64;
            resting &= gap >= 0;
            gaps[j & 3] = gap as u32;
        }
        if clears || !resting {
            self.set = NO_SET;
            return;
        }
        let mut covered_cells = 0;
        for j in 0..piece_width {
            let gap = gaps[j & 3];
            if needs(CELLS_ABOVE_HOLES) {
                self.cells_above_holes +=
                    cells_above_holes_gained(self.columns[left + PAD + j], gap, shape.cells[j & 3]);
            }
            self.holes += gap;
            self.column_transitions += 2 * (gap != 0) as u32;
            covered_cells += shape.cells[j & 3] * self.columns[left + PAD + j].count_ones();
            if needs(HOLE_DEPTH) || needs(ROWS_WITH_HOLES) {
                self.hole_rows |= ((1u64 << gap) - 1) << heights[left + j];
            }
        }
        if needs(HOLE_DEPTH) || needs(ROWS_WITH_HOLES) {
            self.hole_depth += shape.cell_count * bottom as u32 + shape.cells_bottom_sum - covered_cells;
        }
        let piece_top = bottom + piece_height;
        if needs(CUMULATIVE_WELLS) {
            // Well cells above the piece in its columns now end on the piece (the old
            // columns give their old depth).
            for j in 0..piece_width {
                let slot = left + PAD + j;
                let mut cells = self.well_cells_of[slot] >> piece_top << piece_top;
                if cells == 0 {
                    continue;
                }
                let new_floor = 64 - (shape.columns[j & 3] << bottom).leading_zeros();
                while cells != 0 {
                    let y = cells.trailing_zeros();
                    cells &= cells - 1;
                    let change = new_floor - floor_below(self.columns[slot], y);
                    self.wells_in_row[y as usize] -= change;
                    self.wells -= change;
                }
            }
        }
        // The piece's rows' well cells can change status in the piece's columns and their
        // two neighbours only: their old ones out (measured on the old columns), the new
        // ones in (on the new columns).
        let piece_rows = ((1u64 << piece_height) - 1) << bottom;
        if needs(CUMULATIVE_WELLS) {
            for slot in left + PAD - 1..left + PAD + piece_width + 1 {
                let column = self.columns[slot];
                let mut rest = self.well_cells_of[slot] & piece_rows;
                while rest != 0 {
                    let y = rest.trailing_zeros();
                    rest &= rest - 1;
                    let depth = y + 1 - floor_below(column, y);
                    self.wells_in_row[y as usize] -= depth;
                    self.wells -= depth;
                }
            }
        }
        for j in 0..piece_width {
            self.columns[left + PAD + j] |= shape.columns[j & 3] << bottom;
        }
        for i in 0..piece_height {
            let y = bottom + i;
            let new = new_rows[i & 3];
            self.board_rows[y] = new;
            let transitions = self.transitions_in(new);
            self.row_transitions += transitions;
            self.row_transitions -= self.row_transitions_of[y] as u32;
            self.row_transitions_of[y] = transitions as u8;
        }
        if needs(CUMULATIVE_WELLS) {
            for slot in left + PAD - 1..left + PAD + piece_width + 1 {
                let column = self.columns[slot];
                let cells = !column & self.columns[slot - 1] & self.columns[slot + 1] & piece_rows;
                // The wall slots on either side hold no well.
                let cells = if (PAD..PAD + self.width).contains(&slot) { cells } else { 0 };
                self.well_cells_of[slot] = self.well_cells_of[slot] & !piece_rows | cells;
                add_well_depths(cells, column, &mut self.wells_in_row, &mut self.wells);
            }
        }
        if needs(DT_WELLS) {
            // The piece's columns and their two neighbours, counted again (see
            // `dt_wells_after`).
            let all = (1u64 << self.height) - 1;
            for slot in left + PAD - 1..left + PAD + piece_width + 1 {
                if (PAD..PAD + self.width).contains(&slot) {
                    let column = self.columns[slot];
                    let wells = dt_wells_in_column(column, self.columns[slot - 1], self.columns[slot + 1], all);
                    self.dt_wells = self.dt_wells - self.dt_wells_of[slot] + wells;
                    self.dt_wells_of[slot] = wells;
                }
            }
        }
        if needs(PATTERN_DIVERSITY) {
            self.fill_patterns();
        }
        self.top_row_cells = self.board_rows[self.height - 1].count_ones();
    }

    /// Row transitions of `row` ([`row_transitions_of`] with this board's walls).
    #[inline(always)]
    fn transitions_in(&self, row: u16) -> u32 {
        let walled = (row as u32) << 1 | self.walls;
        ((walled ^ (walled >> 1)) & self.transition_mask).count_ones()
    }

    /// Well cells of `row`: empty, both neighbours filled (walls filled).
    #[inline(always)]
    fn well_cells_in(&self, row: u16) -> u16 {
        !row & ((row << 1) | 1) & ((row >> 1) | self.last_column) & self.full
    }

    /// Declines placements that clear rows from now on ([`ParentSummary::score_at`] gives
    /// `None`, and the full features score them): what the rule sets that list their
    /// candidates (`standard`, `eltetris`) do, where a low 10x20 stack leaves the full
    /// features only a few rows to scan. Measured on `dellacherie` and `el-tetris`, the two
    /// ways are within 3% of each other (see the README's Performance section).
    pub fn decline_clearing(&mut self) {
        self.score_clearing = false;
    }

    /// Whether the fast path can score `p` on `board` (the summarised board): it must clear
    /// no row and rest on the column tops (a piece slid under an overhang, as `standard`
    /// and `eltetris` allow, would leave the hole count wrong).
    #[inline]
    pub fn covers(&self, board: &Board, p: &Placement) -> bool {
        p.bottom as usize >= p.shape.drop_row(board.heights(), p.left as usize) && !self.clears_rows(board, p)
    }

    /// Whether placing `p` on `board` (the summarised board) completes a row.
    #[inline]
    pub fn clears_rows(&self, board: &Board, p: &Placement) -> bool {
        let masks = p.shape.masks_at(p.left as usize);
        (0..p.shape.height as usize).any(|i| board.row(p.bottom as usize + i) | masks[i] == self.full)
    }

    /// The supported features after placing `p` (which [`ParentSummary::covers`]), by index of
    /// [`SUPPORTED`], exactly as the full-board features compute them.
    #[inline]
    pub fn features_after(&self, board: &Board, p: &Placement) -> [f64; FEATURE_COUNT] {
        let shape = ShapeCells::new(&p.shape);
        let (width, height, left, bottom) = (shape.width, shape.height, p.left as usize, p.bottom as usize);
        let gaps = gaps_at(board.heights(), &shape, width, left, bottom);
        let landing = Landing { shape: &shape, width, height, left, bottom, gaps: &gaps };
        self.features_at(board, landing).expect("a covered placement stays on the board")
    }

    /// The column heights after placing `p` (which [`ParentSummary::covers`]).
    #[inline]
    pub fn heights_after(&self, p: &Placement) -> HeightsAfter {
        let shape = ShapeCells::new(&p.shape);
        let gaps = [0; 4];
        let landing = Landing {
            shape: &shape,
            width: shape.width,
            height: shape.height,
            left: p.left as usize,
            bottom: p.bottom as usize,
            gaps: &gaps,
        };
        self.heights_at(landing)
    }

    /// The column heights after `landing` on the summarised board, rows it completes
    /// removed: each column's bitmask with the piece's cells added, its top counted without
    /// the completed rows below it. `landing` must stay on the board.
    #[inline(always)]
    pub fn heights_at(&self, landing: Landing) -> HeightsAfter {
        let Landing { shape, width: piece_width, height: piece_height, left, bottom, .. } = landing;
        let mut completed = 0u64;
        for i in 0..piece_height {
            let y = bottom + i;
            if self.board_rows[y] | shape.rows[i & 3] << left == self.full {
                completed |= 1 << y;
            }
        }
        let mut after = HeightsAfter { heights: [0; MAX_WIDTH], width: self.width };
        for x in 0..self.width {
            let mut column = self.columns[PAD + x];
            if (left..left + piece_width).contains(&x) {
                column |= shape.columns[(x - left) & 3] << bottom;
            }
            let top = 64 - (column & !completed).leading_zeros();
            after.heights[x] = (top - (completed & ((1u64 << top) - 1)).count_ones()) as u8;
        }
        after
    }

    /// The supported features after `landing` on `board` (the summarised board), rows it
    /// completes removed; `None` when it reaches above the board's top row (the full
    /// features must score it then).
    #[inline(always)]
    pub fn features_at(&self, board: &Board, landing: Landing) -> Option<[f64; FEATURE_COUNT]> {
        let (counts, _) = self.counts_at::<ALL_SET>(board, landing)?;
        Some(std::array::from_fn(|index| real(&counts, index)))
    }

    /// The features of `SET` after `landing` (0 for the others), as
    /// [`ParentSummary::features_at`] gives them all.
    #[inline(always)]
    pub fn features_for<const SET: u32>(&self, board: &Board, landing: Landing) -> Option<[f64; FEATURE_COUNT]> {
        let (counts, _) = self.counts_at::<SET>(board, landing)?;
        Some(std::array::from_fn(|index| if SET >> index & 1 == 1 { real(&counts, index) } else { 0.0 }))
    }

    /// [`ParentSummary::features_for`] and [`ParentSummary::heights_at`] of the same drop:
    /// a drop that clears no row leaves the board's heights but in its own columns, where
    /// the piece's tops are the new ones (it rests on the old).
    #[inline(always)]
    pub fn features_and_heights_for<const SET: u32>(
        &self,
        board: &Board,
        landing: Landing,
    ) -> Option<([f64; FEATURE_COUNT], HeightsAfter)> {
        let (counts, cleared) = self.counts_at::<SET>(board, landing)?;
        let values = std::array::from_fn(|index| if SET >> index & 1 == 1 { real(&counts, index) } else { 0.0 });
        let heights = if cleared {
            self.heights_at(landing)
        } else {
            let mut heights = HeightsAfter { heights: *board.heights(), width: self.width };
            for j in 0..landing.width {
                heights.heights[landing.left + j] = (landing.bottom as u32 + landing.shape.heights[j & 3]) as u8;
            }
            heights
        };
        Some((values, heights))
    }

    /// The weighted sum of the features of `SET` (a set of [`SUPPORTED`] indices) after the
    /// same drop, summed in index order: `weights` by index, zero outside the evaluator's
    /// terms, reals (`[f64; FEATURE_COUNT]`) or integers (`[i64; FEATURE_COUNT]`, see
    /// [`WeightVector`]). Equal bit for bit to
    /// [`Evaluator::fast_utility`](crate::eval::Evaluator) of an evaluator whose terms are
    /// in index order, since adding a zero term to a sum that starts at +0.0 changes
    /// nothing. A `landing` built with its box size as constants has the loops unrolled.
    #[inline(always)]
    pub fn score_at<const SET: u32, W: WeightVector>(
        &self,
        board: &Board,
        landing: Landing,
        weights: &W,
    ) -> Option<f64> {
        let (counts, cleared) = self.counts_at::<SET>(board, landing)?;
        Some(weights.weighted_sum::<SET>(&counts, cleared))
    }

    /// The features of `SET` after the drop as [`Counts`] (0 for the others), and whether it
    /// clears rows; `None` when it reaches above the board's top row. Only what `SET`
    /// needs is computed, as `SET` is a constant.
    #[inline(always)]
    fn counts_at<const SET: u32>(&self, board: &Board, landing: Landing) -> Option<(Counts, bool)> {
        let needs = |index: usize| SET >> index & 1 == 1;
        let Landing { shape, height: piece_height, left, bottom, .. } = landing;
        // The piece's rows, checked once.
        let rows = &board.rows()[bottom..bottom + piece_height];
        let transitions_of = &self.row_transitions_of[bottom..bottom + piece_height];
        let mut row_transitions = self.row_transitions;
        let mut new_rows = [0u16; 4];
        let mut cleared = false;
        for i in 0..piece_height {
            let mask = shape.rows[i % 4] << left;
            let new = rows[i] | mask;
            cleared |= new == self.full;
            new_rows[i & 3] = new;
            if needs(ROW_TRANSITIONS) {
                row_transitions += self.transitions_in(new);
                row_transitions -= transitions_of[i] as u32;
            }
        }
        if cleared {
            if !self.score_clearing {
                return None;
            }
            return self.counts_clearing::<SET>(board, shape, left, bottom, row_transitions);
        }
        let ColumnsAfter { column_transitions, top_row_cells, holes, hole_depth, hole_rows, cells_above_holes } =
            self.columns_after::<SET>(board, landing);
        let wells = if needs(CUMULATIVE_WELLS) { self.wells_after(landing, &new_rows) } else { self.wells };
        let dt_wells = if needs(DT_WELLS) { self.dt_wells_after(landing) } else { self.dt_wells };
        let pattern_diversity = if needs(PATTERN_DIVERSITY) { self.patterns_after(board, landing) } else { 0 };

        let doubled_landing = (2 * bottom + piece_height - 1) as i64;
        Some((
            [
                doubled_landing + 2,
                doubled_landing,
                0,
                0,
                row_transitions as i64,
                column_transitions as i64,
                (column_transitions - top_row_cells) as i64,
                holes as i64,
                wells as i64,
                dt_wells as i64,
                hole_depth as i64,
                cells_above_holes as i64,
                hole_rows.count_ones() as i64,
                pattern_diversity as i64,
            ],
            false,
        ))
    }

    /// The features of a drop that clears no row that come from its columns: the gaps
    /// under the piece become holes. BCTS: each old hole of a piece column and each new one
    /// gains the piece's cells in that column above it, and the new holes' rows join the
    /// rows with holes. Column transitions, column by column: a piece column resting on its
    /// column's top moves the change into the empty cells above from the old top to above
    /// the piece (no change); one leaving a gap adds the two changes around its piece cells
    /// (the floor and the sky count as filled and empty: the same rule).
    #[inline(always)]
    fn columns_after<const SET: u32>(&self, board: &Board, landing: Landing) -> ColumnsAfter {
        let needs = |index: usize| SET >> index & 1 == 1;
        let Landing { shape, width: piece_width, height: piece_height, left, bottom, gaps } = landing;
        let mut column_transitions = self.column_transitions;
        let mut top_row_cells = self.top_row_cells;
        // The top row gains the piece's cells in it, if the piece reaches it.
        let t = (self.height - 1).wrapping_sub(bottom);
        if needs(COLUMN_TRANSITIONS_NOSKY) && t < piece_height {
            top_row_cells += shape.rows[t & 3].count_ones();
        }
        let heights = board.heights();
        let mut holes = self.holes;
        let mut covered_cells = 0;
        let mut hole_rows = self.hole_rows;
        let mut cells_above_holes = self.cells_above_holes;
        for j in 0..piece_width {
            let gap = gaps[j & 3];
            if needs(CELLS_ABOVE_HOLES) {
                cells_above_holes += cells_above_holes_gained(self.columns[left + PAD + j], gap, shape.cells[j & 3]);
            }
            holes += gap;
            column_transitions += 2 * (gap != 0) as u32;
            if needs(HOLE_DEPTH) {
                covered_cells += shape.cells[j & 3] * self.columns[left + PAD + j].count_ones();
            }
            // A gap is rare: its rows only then.
            if needs(ROWS_WITH_HOLES) && gap != 0 {
                hole_rows |= ((1u64 << gap) - 1) << heights[left + j];
            }
        }
        let hole_depth = self.hole_depth + shape.cell_count * bottom as u32 + shape.cells_bottom_sum - covered_cells;
        ColumnsAfter { column_transitions, top_row_cells, holes, hole_depth, hole_rows, cells_above_holes }
    }

    /// Cumulative wells after `landing`, a drop that clears no row (`new_rows`: the
    /// piece's rows after it). A cell's well status depends on its own row only, so only the piece's
    /// rows change status; there the new well cells are measured on the new columns. Above
    /// the piece, a well cell of a piece column keeps its status but now ends on the piece
    /// (rare: a mask test per column). Below it nothing changes.
    #[inline(always)]
    fn wells_after(&self, landing: Landing, new_rows: &[u16; 4]) -> u32 {
        let Landing { shape, width: piece_width, height: piece_height, left, bottom, .. } = landing;
        let mut wells = self.wells;
        for (i, &new) in new_rows.iter().enumerate().take(piece_height) {
            let y = bottom + i;
            wells -= self.wells_in_row[y];
            let mut cells = self.well_cells_in(new);
            while cells != 0 {
                let x = cells.trailing_zeros() as usize;
                cells &= cells - 1;
                let j = x.wrapping_sub(left);
                let piece_cells = if j < piece_width { shape.columns[j & 3] << bottom } else { 0 };
                wells += y as u32 + 1 - floor_below(self.columns[PAD + x] | piece_cells, y as u32);
            }
        }
        let piece_top = bottom + piece_height;
        for j in 0..piece_width {
            let column = self.columns[left + PAD + j];
            let mut cells = self.well_cells_of[left + PAD + j] >> piece_top << piece_top;
            if cells == 0 {
                continue;
            }
            let new_floor = 64 - (shape.columns[j] << bottom).leading_zeros();
            while cells != 0 {
                let y = cells.trailing_zeros();
                cells &= cells - 1;
                wells -= new_floor - floor_below(column, y);
            }
        }
        wells
    }

    /// D-T's wells after `landing`, a drop that clears no row. A column's count depends on
    /// it and its two neighbours only: the piece's columns and the two beside them are
    /// counted again on the new columns (the piece written into a copy of those columns and
    /// one more on either side), the others keep theirs.
    #[inline(always)]
    fn dt_wells_after(&self, landing: Landing) -> u32 {
        let Landing { shape, width: piece_width, left, bottom, .. } = landing;
        let all = (1u64 << self.height) - 1;
        // Slot `left + k` as `window[k]`: the piece's columns are `k` = 2..piece_width + 2
        // (walls included, filled; `left + piece_width + 3` is at most `width + 3`).
        let mut window = [0u64; 8];
        for k in 0..piece_width + 4 {
            window[k & 7] = self.columns[left + k];
        }
        for j in 0..piece_width {
            window[(j + 2) & 7] |= shape.columns[j & 3] << bottom;
        }
        let mut wells = self.dt_wells;
        for k in 1..piece_width + 3 {
            let slot = left + k;
            if (PAD..PAD + self.width).contains(&slot) {
                let column = dt_wells_in_column(window[k & 7], window[(k - 1) & 7], window[(k + 1) & 7], all);
                wells = wells - self.dt_wells_of[slot] + column;
            }
        }
        wells
    }

    /// Pattern diversity after `landing`, a drop that clears no row: the differences
    /// between columns both left or both right of the piece are the parent's
    /// ([`ParentSummary::patterns_left_of`], [`ParentSummary::patterns_right_of`]); those
    /// that involve a piece column come from its new height (the piece rests on it).
    #[inline(always)]
    fn patterns_after(&self, board: &Board, landing: Landing) -> u32 {
        let Landing { shape, width: piece_width, left, bottom, .. } = landing;
        let heights = board.heights();
        let right = left + piece_width - 1;
        let mut seen = self.patterns_left_of[left] | self.patterns_right_of[right];
        // No column left of the board: a difference no pattern counts.
        let mut previous = if left > 0 { heights[left - 1] as i32 } else { -64 };
        for j in 0..piece_width {
            let height = (bottom as u32 + shape.heights[j & 3]) as i32;
            seen |= pattern_bit(height - previous);
            previous = height;
        }
        if right + 1 < self.width {
            seen |= pattern_bit(heights[right + 1] as i32 - previous);
        }
        seen.count_ones()
    }

    /// The [`DropBound`] of this summary's board for the weights of `SET` (a subset of
    /// [`DROP_BOUND_SET`], every weight but the cleared-row features' at or below zero),
    /// once per decision; `top` is the board's stack top.
    #[inline(always)]
    pub fn drop_bound<const SET: u32>(&self, weights: &[f64; FEATURE_COUNT], top: usize) -> DropBound {
        let needs = |index: usize| SET >> index & 1 == 1;
        let weight = |index: usize| if needs(index) { weights[index] } else { 0.0 };
        // The features that only grow with a drop that clears no row, at their parent
        // values: each term is at or below zero.
        let mut constant = 0.0;
        if needs(5) {
            constant += weights[5] * self.column_transitions as f64;
        }
        if needs(7) {
            constant += weights[7] * self.holes as f64;
        }
        // The rows with holes, at the parent's count: a drop that leaves gaps adds its new
        // rows (see `DropBound::below`).
        let hole_rows = self.hole_rows.count_ones();
        if needs(ROWS_WITH_HOLES) {
            constant += weights[ROWS_WITH_HOLES] * hole_rows as f64;
        }
        // A piece completes a row only where at most four of its cells are empty; the drops
        // reach no higher than four rows above the stack.
        let mut completable = 0u64;
        for y in 0..(top + 4).min(self.height) {
            if (self.full & !self.board_rows[y]).count_ones() <= 4 {
                completable |= 1 << y;
            }
        }
        DropBound {
            constant,
            completable,
            landing: weight(0),
            landing_0: weight(1),
            row_transitions: weight(ROW_TRANSITIONS),
            parent_row_transitions: self.row_transitions,
            wells: weight(CUMULATIVE_WELLS),
            gap_columns: 2.0 * weight(5),
            gap_cells: weight(7),
            rows_with_holes: weight(ROWS_WITH_HOLES),
            hole_depth: weight(HOLE_DEPTH),
            cells_above_holes: weight(CELLS_ABOVE_HOLES),
            hole_rows: self.hole_rows,
            parent_hole_rows: hole_rows,
        }
    }

    /// The lower bounds [`ParentSummary::score_or_prune`] reads, for this summary's board
    /// (`top`: its stack top), computed once per decision into `bounds`.
    #[inline(always)]
    pub fn fill_prune_bounds(&self, top: usize, bounds: &mut PruneBounds) {
        // A drop's box bottom is at most the stack top, its box top at most 4 rows higher:
        // the entries up to there are the ones read.
        let end = (top + 4).min(self.height);
        let (mut slack, mut wells) = (0, 0);
        bounds.transition_slack[0] = 0;
        bounds.wells_below[0] = 0;
        for y in 0..end {
            // A full row (0 transitions) is never a piece row: saturated, it adds nothing.
            slack += (self.row_transitions_of[y] as u32).saturating_sub(2).min(2);
            wells += self.wells_in_row[y];
            bounds.transition_slack[y + 1] = slack;
            bounds.wells_below[y + 1] = wells;
        }
    }

    /// The weighted sum of the features of `SET` (cleared-row features left out) after
    /// `landing`, a drop that clears no row, with the row transitions and both wells at the
    /// lower bounds [`ParentSummary::score_or_prune`] takes and the others exact: at least
    /// their weighted sum where the weights of those three are at or below zero. For the
    /// bound of evaluators whose other terms read the column heights (Bertsekas').
    #[inline(always)]
    pub fn features_bound<const SET: u32>(
        &self,
        board: &Board,
        landing: Landing,
        bounds: &PruneBounds,
        weights: &[f64; FEATURE_COUNT],
    ) -> f64 {
        let needs = |index: usize| SET >> index & 1 == 1;
        let Landing { height: piece_height, left, bottom, .. } = landing;
        let columns = self.columns_after::<SET>(board, landing);
        let dt_wells_below = if needs(DT_WELLS) {
            let mut piece_columns = 0;
            for j in 0..landing.width {
                piece_columns += self.dt_wells_of[left + PAD + j];
            }
            self.dt_wells - piece_columns
        } else {
            0
        };
        let pattern_diversity = if needs(PATTERN_DIVERSITY) { self.patterns_after(board, landing) } else { 0 };
        let doubled_landing = (2 * bottom + piece_height - 1) as i64;
        let values: [f64; FEATURE_COUNT] = [
            (doubled_landing + 2) as f64 / 2.0,
            doubled_landing as f64 / 2.0,
            0.0,
            0.0,
            (self.row_transitions - (bounds.transition_slack[bottom + piece_height] - bounds.transition_slack[bottom]))
                as f64,
            columns.column_transitions as f64,
            (columns.column_transitions - columns.top_row_cells) as f64,
            columns.holes as f64,
            bounds.wells_below[bottom] as f64,
            dt_wells_below as f64,
            columns.hole_depth as f64,
            columns.cells_above_holes as f64,
            columns.hole_rows.count_ones() as f64,
            pattern_diversity as f64,
        ];
        let mut bound = 0.0;
        for (index, &weight) in weights.iter().enumerate() {
            if needs(index) && CLEARED_ROW_FEATURES >> index & 1 == 0 {
                bound += weight * values[index];
            }
        }
        bound
    }

    /// [`ParentSummary::score_at`] that may skip a placement that cannot win: for a drop
    /// that clears no row, once the features from its columns are known (landing height,
    /// holes, column transitions, hole depth, rows with holes, pattern diversity), the row
    /// transitions and both wells, the costly part, are bounded from below (see
    /// [`PruneBounds`]; D-T's wells: the parent's less those of the piece's columns). With every weight of `SET` but the cleared-row features
    /// at or below zero (the caller checks that once, [`prunable`]), the weighted sum with
    /// those bounds is an upper bound of the placement's value; if it stays below
    /// `threshold` (the best value so far; the caller gives minus infinity for a shape
    /// whose rows are not runs, see [`rows_are_runs`]) by more than the sums' rounding can
    /// cover, the placement's computed value is below the best too, so under either
    /// tie-break it cannot replace it: it is [`Scored::Pruned`]. Otherwise the value is the
    /// same real [`score_at`] gives, bit for bit (the same products, summed in the same
    /// order).
    ///
    /// [`score_at`]: ParentSummary::score_at
    #[inline(always)]
    pub fn score_or_prune<const SET: u32>(
        &self,
        board: &Board,
        landing: Landing,
        weights: &[f64; FEATURE_COUNT],
        bounds: &PruneBounds,
        threshold: f64,
        rounding: PruneRounding,
    ) -> Scored {
        let needs = |index: usize| SET >> index & 1 == 1;
        let Landing { shape, height: piece_height, left, bottom, .. } = landing;
        // The piece's rows, checked once.
        let rows = &board.rows()[bottom..bottom + piece_height];
        let mut new_rows = [0u16; 4];
        let mut cleared = false;
        for i in 0..piece_height {
            let new = rows[i] | shape.rows[i & 3] << left;
            cleared |= new == self.full;
            new_rows[i & 3] = new;
        }
        let row_transitions_after = || {
            let mut row_transitions = self.row_transitions;
            for (i, &new) in new_rows.iter().enumerate().take(piece_height) {
                row_transitions += self.transitions_in(new);
                row_transitions -= self.row_transitions_of[bottom + i] as u32;
            }
            row_transitions
        };
        if cleared {
            let row_transitions = row_transitions_after();
            return match self.counts_clearing::<SET>(board, shape, left, bottom, row_transitions) {
                Some((counts, _)) => Scored::Value(weights.weighted_sum::<SET>(&counts, true)),
                None => Scored::Declined,
            };
        }
        let columns = self.columns_after::<SET>(board, landing);
        // D-T's wells from below: a column beside the piece keeps its cells and gains filled
        // neighbours, so its well cells and each run's count can only grow, and the others
        // but the piece's columns keep theirs. The pattern diversity is exact (cheap).
        let dt_wells_below = if needs(DT_WELLS) {
            let mut piece_columns = 0;
            for j in 0..landing.width {
                piece_columns += self.dt_wells_of[left + PAD + j];
            }
            self.dt_wells - piece_columns
        } else {
            0
        };
        let pattern_diversity = if needs(PATTERN_DIVERSITY) { self.patterns_after(board, landing) } else { 0 };
        let doubled_landing = (2 * bottom + piece_height - 1) as i64;
        let mut values: [f64; FEATURE_COUNT] = [
            (doubled_landing + 2) as f64 / 2.0,
            doubled_landing as f64 / 2.0,
            0.0,
            0.0,
            // Row transitions and wells: their lower bounds first.
            (self.row_transitions - (bounds.transition_slack[bottom + piece_height] - bounds.transition_slack[bottom]))
                as f64,
            columns.column_transitions as f64,
            (columns.column_transitions - columns.top_row_cells) as f64,
            columns.holes as f64,
            bounds.wells_below[bottom] as f64,
            dt_wells_below as f64,
            columns.hole_depth as f64,
            columns.cells_above_holes as f64,
            columns.hole_rows.count_ones() as f64,
            pattern_diversity as f64,
        ];
        let mut bound = 0.0;
        for (index, &weight) in weights.iter().enumerate() {
            if needs(index) && CLEARED_ROW_FEATURES >> index & 1 == 0 {
                bound += weight * values[index];
            }
        }
        // Every term of the placement's sum and of `bound` is at or below zero, so each
        // float sum is within 11 units of rounding (below 1.3e-15 of its magnitude) of its
        // exact sum, and the exact value is at most the exact bound: the computed value is
        // at most `bound + 2.6e-15 |bound|`, below `bound * (1 - 1e-6)` (which is itself
        // rounded by far less than the difference). A bound of 0 prunes only below 0.
        // With terms of both signs the margin covers the rounding of both sums instead (see
        // `mixed_prune_margin`); adding a zero margin changes no comparison.
        if rounding.raises(bound) < threshold {
            return Scored::Pruned;
        }
        if needs(ROW_TRANSITIONS) {
            values[ROW_TRANSITIONS] = row_transitions_after() as f64;
        }
        if needs(CUMULATIVE_WELLS) {
            values[CUMULATIVE_WELLS] = self.wells_after(landing, &new_rows) as f64;
        }
        if needs(DT_WELLS) {
            values[DT_WELLS] = self.dt_wells_after(landing) as f64;
        }
        let mut total = 0.0;
        for (index, &weight) in weights.iter().enumerate() {
            if needs(index) && CLEARED_ROW_FEATURES >> index & 1 == 0 {
                total += weight * values[index];
            }
        }
        Scored::Value(total)
    }

    /// [`ParentSummary::counts_at`] for a placement that completes rows: the column
    /// bitmasks after the placement with the cleared rows squeezed out give the column
    /// features, holes and wells; the row transitions come from the rows the piece
    /// touched (`row_transitions`: the parent's with those rows' new counts, a full row
    /// counting 0), plus 2 for each empty row the clear brings in at the top. About one
    /// placement in thirty clears rows: kept out of line. The drop's [`Landing`] is not
    /// passed whole: out of line its box size is no constant, so `shape`'s own serves, and
    /// a [`Landing`] whose address left the scorer would be stored to memory for every
    /// placement (about 4% more instructions in the one-piece search).
    #[inline(never)]
    fn counts_clearing<const SET: u32>(
        &self,
        board: &Board,
        shape: &ShapeCells,
        left: usize,
        bottom: usize,
        row_transitions: u32,
    ) -> Option<(Counts, bool)> {
        let (piece_width, piece_height) = (shape.width, shape.height);
        if bottom + piece_height > self.height {
            return None;
        }
        let mut cleared = 0u64;
        let mut eroded = 0;
        for i in 0..piece_height {
            if board.row(bottom + i) | shape.rows[i] << left == self.full {
                cleared |= 1 << (bottom + i);
                eroded += shape.rows[i].count_ones();
            }
        }
        let rows_cleared = cleared.count_ones();
        let all = (1u64 << self.height) - 1;
        // The columns after the placement, cleared rows squeezed out (the highest first, so
        // that the lower indices hold), by slot with filled walls.
        let mut columns = self.columns;
        for j in 0..piece_width {
            columns[left + PAD + j] |= shape.columns[j] << bottom;
        }
        let mut rest = cleared;
        while rest != 0 {
            let y = 63 - rest.leading_zeros();
            rest &= !(1u64 << y);
            let below = (1u64 << y) - 1;
            for column in &mut columns[PAD..PAD + self.width] {
                *column = (*column & below) | (*column >> 1 & !below);
            }
        }
        let (mut holes, mut column_transitions, mut wells, mut hole_depth, mut hole_rows) = (0, 0, 0, 0, 0u64);
        let (mut top_row_cells, mut cells_above_holes) = (0, 0);
        // No column left of the first: a difference no pattern counts.
        let (mut dt_wells, mut patterns, mut previous_height) = (0, 0, -64);
        for slot in PAD..PAD + self.width {
            let column = columns[slot];
            let height = 64 - column.leading_zeros();
            let column_holes = !column & ((1u64 << height) - 1);
            holes += column_holes.count_ones();
            // Changes up the column from the filled floor to the empty sky above the top row.
            column_transitions += ((column ^ (column << 1 | 1)) & (all << 1 | 1)).count_ones();
            top_row_cells += (column >> (self.height - 1)) as u32 & 1;
            if SET >> CELLS_ABOVE_HOLES & 1 == 1 {
                cells_above_holes += cells_above_holes_of(column);
            }
            if SET >> HOLE_DEPTH & 1 == 1 || SET >> ROWS_WITH_HOLES & 1 == 1 {
                hole_rows |= column_holes;
                let mut rest = column_holes;
                while rest != 0 {
                    let y = rest.trailing_zeros();
                    rest &= rest - 1;
                    hole_depth += (column >> y).count_ones();
                }
            }
            if SET >> CUMULATIVE_WELLS & 1 == 1 {
                let mut cells = !column & columns[slot - 1] & columns[slot + 1] & all;
                while cells != 0 {
                    let y = cells.trailing_zeros();
                    cells &= cells - 1;
                    wells += y + 1 - floor_below(column, y);
                }
            }
            if SET >> DT_WELLS & 1 == 1 {
                dt_wells += dt_wells_in_column(column, columns[slot - 1], columns[slot + 1], all);
            }
            if SET >> PATTERN_DIVERSITY & 1 == 1 {
                patterns |= pattern_bit(height as i32 - previous_height);
                previous_height = height as i32;
            }
        }
        let doubled_landing = (2 * bottom + piece_height - 1) as i64;
        Some((
            [
                doubled_landing + 2,
                doubled_landing,
                (rows_cleared * eroded) as i64,
                rows_cleared as i64,
                (row_transitions + 2 * rows_cleared) as i64,
                column_transitions as i64,
                (column_transitions - top_row_cells) as i64,
                holes as i64,
                wells as i64,
                dt_wells as i64,
                hole_depth as i64,
                cells_above_holes as i64,
                hole_rows.count_ones() as i64,
                patterns.count_ones() as i64,
            ],
            true,
        ))
    }
}

/// The features by index of [`SUPPORTED`] as integers: the two landing heights doubled
/// (they are halves), the others as they are.
pub type Counts = [i64; FEATURE_COUNT];

/// Weights by index of [`SUPPORTED`] that [`ParentSummary::score_at`] sums: reals, or an
/// evaluator's integer weights (see [`integer_weights`]), summed in integers and halved at
/// the end. With integer weights every product and partial sum of the real sum is exact
/// (values are integers or halves, far below 2^53), so both give the same real, bit for
/// bit (a real sum that starts at +0.0 is never -0.0).
pub trait WeightVector {
    /// The weighted sum of the features of `SET` in index order; the cleared-row features
    /// only when `cleared` (they are 0 otherwise and add nothing).
    fn weighted_sum<const SET: u32>(&self, counts: &Counts, cleared: bool) -> f64;
}

/// Whether feature `index` is summed: in `SET`, and not a cleared-row feature of a drop
/// that clears nothing. Constant per instantiation: the sums' loops unroll to the set's
/// terms only.
#[inline(always)]
const fn summed<const SET: u32>(index: usize, cleared: bool) -> bool {
    SET >> index & 1 == 1 && (cleared || CLEARED_ROW_FEATURES >> index & 1 == 0)
}

impl WeightVector for [f64; FEATURE_COUNT] {
    #[inline(always)]
    fn weighted_sum<const SET: u32>(&self, counts: &Counts, cleared: bool) -> f64 {
        let mut total = 0.0;
        for (index, &weight) in self.iter().enumerate() {
            if summed::<SET>(index, cleared) {
                total += weight * real(counts, index);
            }
        }
        total
    }
}

impl WeightVector for [i64; FEATURE_COUNT] {
    #[inline(always)]
    fn weighted_sum<const SET: u32>(&self, counts: &Counts, cleared: bool) -> f64 {
        let mut twice = 0i64;
        for (index, (&weight, &count)) in self.iter().zip(counts).enumerate() {
            if summed::<SET>(index, cleared) {
                // The landing heights are counted doubled already.
                let doubled = if index < 2 { count } else { 2 * count };
                twice += weight * doubled;
            }
        }
        twice as f64 / 2.0
    }
}

/// A column's filled cells with a hole below them (column bitmask, bit y = row y): all its
/// cells but the solid run on the floor.
#[inline(always)]
fn cells_above_holes_of(column: u64) -> u32 {
    column.count_ones() - column.trailing_ones()
}

/// What a piece's `cells` in a column add to [`cells_above_holes_of`] when they land `gap`
/// cells above its top (a tetromino's cells in one column are one run): all of them, unless
/// the column is solid from the floor and the piece rests on it.
#[inline(always)]
fn cells_above_holes_gained(column: u64, gap: u32, cells: u32) -> u32 {
    let solid = column.count_ones() == column.trailing_ones();
    if gap == 0 && solid {
        0
    } else {
        cells
    }
}

/// What [`ParentSummary::columns_after`] finds.
struct ColumnsAfter {
    column_transitions: u32,
    /// Filled cells of the top row.
    top_row_cells: u32,
    holes: u32,
    hole_depth: u32,
    /// Bit y set when row y has a hole.
    hole_rows: u64,
    cells_above_holes: u32,
}

/// What [`ParentSummary::score_or_prune`] found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scored {
    /// The weighted sum, as [`ParentSummary::score_at`] gives it.
    Value(f64),
    /// Below the threshold: the placement cannot win or tie.
    Pruned,
    /// Left to the full features (a clearing placement when they are declined).
    Declined,
}

/// The features [`DropBound`] bounds: the landing heights and the cleared-row features
/// (exact), the row transitions and the wells (from below, as [`PruneBounds`] does), the
/// column transitions and the holes (exact, from the gaps under the piece) and BCTS' three
/// (from below: a drop that clears no row keeps every hole and the cells above it).
pub const DROP_BOUND_SET: u32 = feature_set(&[0, 1, 2, 3, 4, 5, 7, 8, HOLE_DEPTH, CELLS_ABOVE_HOLES, ROWS_WITH_HOLES]);

/// A bound of a drop's value from its drop row and the gaps under the piece alone, for the
/// weights of a set of [`DROP_BOUND_SET`] whose every weight but the cleared-row features'
/// is at or below zero ([`prunable`]): the weighted sum with each feature at its exact
/// value or a lower bound, so at least the drop's value, for a drop that clears no row
/// (see [`DropBound::completes_no_row`]). Every term is at or below zero, so the float
/// sums stay within [`PRUNE_MARGIN`] of the exact ones (see
/// [`ParentSummary::score_or_prune`]), in whatever order they are summed. Built once per
/// decision ([`ParentSummary::drop_bound`]); a drop is then bounded with a few
/// multiplications, before any of its features is counted.
#[derive(Clone, Copy, Debug, Default)]
pub struct DropBound {
    /// The terms that do not depend on the drop, summed.
    constant: f64,
    /// Bit y set when row y has at most four empty cells.
    completable: u64,
    /// The weights of the landing heights, the row transitions and the wells.
    landing: f64,
    landing_0: f64,
    row_transitions: f64,
    parent_row_transitions: u32,
    wells: f64,
    /// What each gap-leaving piece column and each gap cell add (column transitions:
    /// 2 per column; holes: 1 per cell).
    gap_columns: f64,
    gap_cells: f64,
    /// The weight of the rows with holes, the parent's rows with holes (bit y = row y) and
    /// their count (its term is in `constant`).
    rows_with_holes: f64,
    hole_rows: u64,
    parent_hole_rows: u32,
    /// The weights of BCTS' hole depths (exact, from the columns).
    hole_depth: f64,
    cells_above_holes: f64,
}

impl DropBound {
    /// Whether a piece `piece_height` rows tall with its box bottom at `bottom` may
    /// complete a row (it cannot otherwise).
    #[inline(always)]
    pub fn may_complete(&self, bottom: usize, piece_height: usize) -> bool {
        (self.completable >> bottom) & ((1u64 << piece_height) - 1) != 0
    }

    /// Whether `landing`, a drop that completes no row, has a value below `threshold` by
    /// more than the float sums' rounding: then it cannot win or tie.
    #[inline(always)]
    pub fn below<const SET: u32>(
        &self,
        summary: &ParentSummary,
        bounds: &PruneBounds,
        heights: &[u8; MAX_WIDTH],
        landing: Landing,
        threshold: f64,
    ) -> bool {
        let needs = |index: usize| SET >> index & 1 == 1;
        let Landing { shape, width: piece_width, height: piece_height, left, bottom, gaps } = landing;
        let (mut gap_columns, mut gap_cells) = (0, 0);
        for &gap in gaps.iter().take(piece_width) {
            gap_columns += (gap != 0) as u32;
            gap_cells += gap;
        }
        let doubled = (2 * bottom + piece_height - 1) as f64;
        let mut bound = self.constant;
        if needs(0) {
            bound += self.landing * ((doubled + 2.0) / 2.0);
        }
        if needs(1) {
            bound += self.landing_0 * (doubled / 2.0);
        }
        if needs(ROW_TRANSITIONS) {
            let slack = bounds.transition_slack[bottom + piece_height] - bounds.transition_slack[bottom];
            bound += self.row_transitions * (self.parent_row_transitions - slack) as f64;
        }
        if needs(CUMULATIVE_WELLS) {
            bound += self.wells * bounds.wells_below[bottom] as f64;
        }
        // BCTS' hole depths, as `ParentSummary::columns_after` counts them.
        if needs(HOLE_DEPTH) {
            let mut covered_cells = 0;
            for j in 0..piece_width {
                covered_cells += shape.cells[j & 3] * summary.columns[left + PAD + j].count_ones();
            }
            let hole_depth =
                summary.hole_depth + shape.cell_count * bottom as u32 + shape.cells_bottom_sum - covered_cells;
            bound += self.hole_depth * hole_depth as f64;
        }
        if needs(CELLS_ABOVE_HOLES) {
            let mut cells_above_holes = summary.cells_above_holes;
            for j in 0..piece_width {
                let column = summary.columns[left + PAD + j];
                cells_above_holes += cells_above_holes_gained(column, gaps[j & 3], shape.cells[j & 3]);
            }
            bound += self.cells_above_holes * cells_above_holes as f64;
        }
        if gap_columns != 0 {
            bound += self.gap_columns * gap_columns as f64 + self.gap_cells * gap_cells as f64;
            if needs(ROWS_WITH_HOLES) {
                // The gaps' rows join the rows with holes.
                let mut hole_rows = self.hole_rows;
                for j in 0..piece_width {
                    let below_piece = (1u64 << (bottom as u32 + shape.bottoms[j & 3])) - 1;
                    hole_rows |= below_piece & !((1u64 << heights[left + j]) - 1);
                }
                let new_rows = hole_rows.count_ones() - self.parent_hole_rows;
                bound += self.rows_with_holes * new_rows as f64;
            }
        }
        bound * PRUNE_MARGIN < threshold
    }
}

/// `bound * PRUNE_MARGIN` moves a bound at or below zero towards zero by a millionth of
/// it, far more than the float sums' rounding (see [`ParentSummary::score_or_prune`]).
const PRUNE_MARGIN: f64 = 1.0 - 1e-6;

/// Lower bounds of the costly features of a drop that clears no row, by row, for
/// [`ParentSummary::score_or_prune`] (filled by [`ParentSummary::fill_prune_bounds`]).
/// Row transitions: a walled row's transitions are twice its runs of empty cells; a piece
/// row (a run of cells, in every tetromino) fills empty cells of one run, which removes at
/// most that run (2 transitions), and the row, not full, keeps at least one run (2): it
/// keeps at least `max(old - 2, 2)`, so the board's total is at least the parent's minus
/// the sum of `min(2, old - 2)` over the piece's rows. Wells: a well cell below the
/// piece's box keeps its status (its row is unchanged) and its depth (its column below it
/// is unchanged), so the wells are at least those of the rows below the box.
#[derive(Clone, Debug)]
pub struct PruneBounds {
    /// Prefix sums over rows of `min(2, row transitions - 2)`: entry y sums rows below y.
    transition_slack: [u32; ROW_CAPACITY + 1],
    /// Prefix sums of the rows' well depths: entry y sums rows below y.
    wells_below: [u32; ROW_CAPACITY + 1],
}

impl Default for PruneBounds {
    fn default() -> PruneBounds {
        PruneBounds { transition_slack: [0; ROW_CAPACITY + 1], wells_below: [0; ROW_CAPACITY + 1] }
    }
}

/// Whether [`ParentSummary::score_or_prune`] may prune for these weights of `set`: every
/// weight finite, and all but the cleared-row features' at or below zero (then every term
/// of a placement that clears no row is at or below zero, as the features are), for an
/// evaluator that maximises its value.
pub fn prunable(weights: &[f64; FEATURE_COUNT], set: u32) -> bool {
    (0..FEATURE_COUNT).all(|index| {
        let weight = weights[index];
        set >> index & 1 == 0 || (weight.is_finite() && (CLEARED_ROW_FEATURES >> index & 1 == 1 || weight <= 0.0))
    })
}

/// How [`ParentSummary::score_or_prune`] keeps its bound above the float sums' rounding:
/// it prunes when `bound * scale + margin` is below the best so far.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PruneRounding {
    scale: f64,
    margin: f64,
}

impl PruneRounding {
    /// Every weight but the cleared-row features' at or below zero ([`prunable`]): the
    /// bound is moved towards zero by a millionth of it ([`PRUNE_MARGIN`]).
    pub const NON_POSITIVE: PruneRounding = PruneRounding { scale: PRUNE_MARGIN, margin: 0.0 };

    /// Weights of both signs ([`mixed_prune_margin`]): the bound is raised by `margin`.
    pub fn mixed(margin: f64) -> PruneRounding {
        PruneRounding { scale: 1.0, margin }
    }

    /// `bound` as the prune compares it with the best so far.
    #[inline(always)]
    pub fn raises(self, bound: f64) -> f64 {
        bound * self.scale + self.margin
    }
}

/// The margin of [`PruneRounding::mixed`], when [`ParentSummary::score_or_prune`] may prune
/// for these weights of `set` although some are above zero (D-T's `holes` and
/// `pattern_diversity`): every weight finite, and those of the features it bounds from below
/// (the row transitions and both wells) at or below zero; its other features are exact in
/// the bound. `None` otherwise. Every feature value is below 2^17 (the largest,
/// the wells and hole depths of a 16 x 44 board, stay below 40,000), so each term of the
/// placement's sum and of the bound is at most `2^17 |w|`, and each sum (at most 14 terms)
/// is within `15 * 2^-53` of their total `M = 2^17 * sum |w|` of its exact value: the
/// computed value is at most the computed bound plus `4e-15 M`, far below the margin
/// `1e-12 M` (whose own addition rounds by less than `2^-53 M`).
pub fn mixed_prune_margin(weights: &[f64; FEATURE_COUNT], set: u32) -> Option<f64> {
    let in_set = |index: usize| set >> index & 1 == 1;
    let finite = (0..FEATURE_COUNT).all(|index| !in_set(index) || weights[index].is_finite());
    let bounded_below =
        [ROW_TRANSITIONS, CUMULATIVE_WELLS, DT_WELLS].iter().all(|&index| !in_set(index) || weights[index] <= 0.0);
    let total: f64 = (0..FEATURE_COUNT).filter(|&index| in_set(index)).map(|index| weights[index].abs()).sum();
    (finite && bounded_below).then_some(1e-12 * (1u64 << 17) as f64 * total)
}

/// Feature `index` as the features compute it, from [`Counts`]: the same real (the halved
/// landing heights are exact).
#[inline(always)]
fn real(counts: &Counts, index: usize) -> f64 {
    if index < 2 {
        counts[index] as f64 / 2.0
    } else {
        counts[index] as f64
    }
}

/// The weights of an evaluator whose weights are all integers of moderate size, as
/// integers for [`ParentSummary::score_at`]; `None` otherwise.
pub fn integer_weights(weights: &[f64; FEATURE_COUNT]) -> Option<[i64; FEATURE_COUNT]> {
    // Below 2^20, products with the features' values (below 2^16) and their sums stay far
    // below 2^53, where every real sum is exact.
    let exact = weights.iter().all(|w| w.fract() == 0.0 && w.abs() < (1u64 << 20) as f64);
    exact.then(|| std::array::from_fn(|index| weights[index] as i64))
}

/// The features of `SET` on a board a placement left (its rows removed), by the full
/// definitions (the same functions the features call) and summed as
/// [`ParentSummary::score_at`] sums: for the placements the fast path does not score,
/// without the general evaluator's per-feature calls. 0 for the features outside `SET`.
#[inline]
pub fn full_score<const SET: u32>(board: &Board, placement: &PlacementInfo, weights: &[f64; FEATURE_COUNT]) -> f64 {
    let needs = |index: usize| SET >> index & 1 == 1;
    let mut values = [0.0; FEATURE_COUNT];
    if placement.placed {
        // The same arithmetic as the landing-height features, so the same reals.
        values[0] = (placement.lowest_row as f64 + placement.highest_row as f64) / 2.0 + 1.0;
    }
    values[1] = (placement.lowest_row as f64 + placement.highest_row as f64) / 2.0;
    values[2] = placement.rows_cleared as f64 * placement.piece_cells_cleared as f64;
    values[3] = placement.rows_cleared as f64;
    if needs(ROW_TRANSITIONS) || needs(5) || needs(COLUMN_TRANSITIONS_NOSKY) || needs(CUMULATIVE_WELLS) {
        let scan = super::scan::scan(board);
        values[ROW_TRANSITIONS] = scan.row_transitions as f64;
        values[5] = scan.column_transitions as f64;
        values[COLUMN_TRANSITIONS_NOSKY] = (scan.column_transitions - scan.top_row_cells) as f64;
        values[CUMULATIVE_WELLS] = scan.cumulative_wells as f64;
        values[ROWS_WITH_HOLES] = scan.rows_with_holes as f64;
    } else if needs(ROWS_WITH_HOLES) {
        values[ROWS_WITH_HOLES] = super::scan::scan(board).rows_with_holes as f64;
    }
    if needs(7) {
        values[7] = super::dellacherie::holes(board) as f64;
    }
    if needs(HOLE_DEPTH) {
        values[HOLE_DEPTH] = super::bcts::hole_depth(board) as f64;
    }
    if needs(CELLS_ABOVE_HOLES) {
        values[CELLS_ABOVE_HOLES] = super::bcts::cells_above_holes(board) as f64;
    }
    if needs(DT_WELLS) {
        values[DT_WELLS] = super::dt::dt_wells(board) as f64;
    }
    if needs(PATTERN_DIVERSITY) {
        values[PATTERN_DIVERSITY] = super::dt::pattern_diversity(board) as f64;
    }
    let mut total = 0.0;
    for index in 0..FEATURE_COUNT {
        if SET >> index & 1 == 1 {
            total += weights[index] * values[index];
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::{self, FeatureContext};
    use crate::piece::Piece;
    use crate::rules::{simplified::Simplified, RuleSet};

    /// Checks every placement of every piece on each of `boards` (clearing rows or not: the
    /// squeezed column bitmasks too): the fast values are exactly the full-board ones.
    /// Returns the placements checked, those that cleared rows, and those with D-T wells.
    fn check_every_placement<'a>(boards: impl IntoIterator<Item = &'a Board>) -> (usize, usize, usize) {
        let (mut checked, mut cleared, mut with_wells) = (0, 0, 0);
        let mut out = Vec::new();
        for board in boards {
            let rules = Simplified::new(board.width(), board.height(), false);
            let summary = ParentSummary::new(board);
            for piece in Piece::ALL {
                rules.candidates(board, piece, &mut out);
                for p in &out {
                    let fast = summary.features_after(board, p);
                    let mut after = *board;
                    let info = p.apply(&mut after);
                    cleared += (info.rows_cleared > 0) as usize;
                    let ctx = FeatureContext::new(&after, info);
                    for (i, name) in SUPPORTED.iter().enumerate() {
                        let slow = (features::find(name).unwrap().compute)(&ctx);
                        assert_eq!(fast[i], slow, "{name} for {p:?} on {board:?}");
                    }
                    with_wells += (fast[DT_WELLS] > 0.0) as usize;
                    checked += 1;
                }
            }
        }
        (checked, cleared, with_wells)
    }

    /// Every placement of every piece on a set of boards, clearing or not: the fast path gives
    /// exactly the full-board values.
    #[test]
    fn agrees_with_the_full_board_features() {
        let (checked, cleared, _) = check_every_placement(&crate::features::sample_boards()[..6]);
        assert!(checked > 500 && cleared > 10, "{checked} {cleared}");
    }

    /// Random stacks of every width, dense or full of holes and overhangs, and the boards of
    /// random games: every placement of every piece, clearing or not, gives the full-board
    /// values of every feature.
    #[test]
    fn agrees_on_random_boards() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(6);
        let mut boards = Vec::new();
        for _ in 0..1000 {
            let (width, height) = (rng.random_range(4..=MAX_WIDTH), rng.random_range(4..=24));
            let density = [0.5, 0.8, 1.0][rng.random_range(0..3)];
            let mut board = Board::new(width, height);
            for x in 0..width {
                let top = rng.random_range(0..=height);
                for y in 0..top {
                    if y + 1 == top || rng.random_bool(density) {
                        board.set(x, y);
                    }
                }
            }
            board.clear_full_rows();
            boards.push(board);
        }
        let mut out = Vec::new();
        for game in 0..20 {
            let rules = Simplified::new(4 + game % 7, 10 + game % 11, false);
            let mut board = rules.new_board();
            for _ in 0..80 {
                rules.candidates(&board, Piece::ALL[rng.random_range(0..7)], &mut out);
                if out.is_empty() {
                    break;
                }
                let p = out[rng.random_range(0..out.len())];
                if rules.lock(&mut board, &p).game_over {
                    break;
                }
                boards.push(board);
            }
        }
        let (checked, cleared, with_wells) = check_every_placement(&boards);
        assert!(checked > 100_000 && cleared > 1_000 && with_wells > 10_000, "{checked} {cleared} {with_wells}");
    }
}
