//! Incremental engine for the column-height families: Lee's four features, Mike's pygame
//! variants, the 7-term penalty, the placement features and Dellacherie's `holes`. The
//! parent board is summarised once (heights, covered cells per column, and the running
//! sums), and a placement that rests on the column tops is scored from the columns and
//! rows it touches, without copying the board. The values are the same integers the
//! features compute on the board the placement leaves (tested against them), so choices
//! are bit-identical to the full path.
//!
//! Two uses: Lee's search writes the piece without removing full rows (`keep_full_rows`:
//! `complete_lines` counts them, the cleared-row features read 0); every other caller
//! removes rows, so a placement that completes one is declined (the full features score
//! it). The row-based families (transitions, wells, BCTS) are in
//! [`super::incremental`].

use super::feature_set;
use crate::board::{Board, MAX_WIDTH};
use crate::placement::Placement;

/// Features the engine computes, by index.
pub const SUPPORTED: [&str; FEATURE_COUNT] = [
    "landing_height",
    "landing_height_0",
    "eroded_cells",
    "rows_cleared",
    "holes",
    "aggregate_height",
    "complete_lines",
    "bumpiness",
    "mike_aggregate_height",
    "mike_lines",
    "mike_holes",
    "mike_bumpiness",
    "height_difference",
    "covered",
    "covered_rightmost",
    "height_rightmost",
    "consecutive_changes",
    "small_pits",
    "big_pits",
];

/// Number of features the engine computes.
pub const FEATURE_COUNT: usize = 19;

/// Index of a feature in [`SUPPORTED`].
pub fn index_of(name: &str) -> Option<usize> {
    SUPPORTED.iter().position(|n| *n == name)
}

/// Lee's four.
pub const LEE_SET: u32 = feature_set(&[4, 5, 6, 7]);
/// Mike's pygame four.
pub const MIKE_SET: u32 = feature_set(&[8, 9, 10, 11]);
/// The 7-term penalty: it needs the heights and covered cells of every column.
pub const PENALTY7_SET: u32 = feature_set(&[12, 13, 14, 15, 16, 17, 18]);
/// Every feature of the engine.
pub const ALL_SET: u32 = (1 << FEATURE_COUNT) - 1;
/// Not a feature: the column heights and covered cells alone, for the 7-term penalty summed
/// in its original order from them (its seven values are then not needed).
pub const COLUMN_ARRAYS: u32 = 1 << FEATURE_COUNT;
/// Features every scorer gives: the landing heights, and the cleared-row features (0).
const ALWAYS: u32 = feature_set(&[0, 1, 2, 3, 9]);

/// What the engine needs to know about the board before the placement.
#[derive(Clone, Debug)]
pub struct ColumnSummary {
    width: usize,
    full: u16,
    heights: [u8; MAX_WIDTH],
    /// Empty cells below each column's top.
    covered: [u8; MAX_WIDTH],
    stack_top: usize,
    holes: u32,
    aggregate_height: u32,
    full_rows: u32,
    mike_aggregate_height: u32,
    mike_holes: u32,
    /// Bumpiness of the neighbour pairs left of column `x` (pairs (c, c + 1) with c < x),
    /// Lee's and Mike's heights.
    bumpiness_before: [u32; MAX_WIDTH],
    mike_bumpiness_before: [u32; MAX_WIDTH],
}

/// The board after a placement as the engine sees it: the features of the scorer's set
/// by index of [`SUPPORTED`] (0 for the others), and what the 7-term penalty's original
/// order needs.
#[derive(Clone, Copy, Debug)]
pub struct ColumnsAfter {
    width: usize,
    pub values: [f64; FEATURE_COUNT],
    /// Column heights and covered cells (filled in only for sets with 7-term features).
    pub heights: [u8; MAX_WIDTH],
    pub covered: [u8; MAX_WIDTH],
    /// One past the highest filled row.
    pub stack_top: usize,
}

/// Mike's column height: the top block's row (a block on the floor and an empty column 0).
#[inline(always)]
fn mike(height: usize) -> usize {
    height.saturating_sub(1)
}

/// Mike's holes between row `y` and the row above: empty cells directly under a filled one.
#[inline(always)]
fn mike_pair(below: u16, above: u16, full: u16) -> u32 {
    (!below & above & full).count_ones()
}

impl ColumnSummary {
    pub fn new(board: &Board) -> ColumnSummary {
        let width = board.width();
        let full = board.full_row();
        let rows = board.rows();
        let top = board.stack_top();
        let heights = *board.heights();
        // Empty cells under a filled one anywhere above, per column: walk down from the top
        // with the columns covered so far (holes are rare, so their bits are walked).
        let mut covered = [0u8; MAX_WIDTH];
        let mut covering = 0u16;
        let mut full_rows = 0;
        let mut mike_holes = 0;
        let mut above = 0u16;
        for y in (0..top).rev() {
            let row = rows[y];
            covering |= row;
            full_rows += (row == full) as u32;
            mike_holes += mike_pair(row, above, full);
            above = row;
            let mut holes = covering & !row & full;
            while holes != 0 {
                covered[holes.trailing_zeros() as usize] += 1;
                holes &= holes - 1;
            }
        }
        let mut s = ColumnSummary {
            width,
            full,
            heights,
            covered,
            stack_top: top,
            holes: covered[..width].iter().map(|&c| c as u32).sum(),
            aggregate_height: heights[..width].iter().map(|&h| h as u32).sum(),
            full_rows,
            mike_aggregate_height: heights[..width].iter().map(|&h| mike(h as usize) as u32).sum(),
            mike_holes,
            bumpiness_before: [0; MAX_WIDTH],
            mike_bumpiness_before: [0; MAX_WIDTH],
        };
        for x in 1..width {
            let (a, b) = (heights[x - 1] as usize, heights[x] as usize);
            s.bumpiness_before[x] = s.bumpiness_before[x - 1] + a.abs_diff(b) as u32;
            s.mike_bumpiness_before[x] = s.mike_bumpiness_before[x - 1] + mike(a).abs_diff(mike(b)) as u32;
        }
        s
    }

    /// The features of `SET` on the board after writing `p` on `board` (the summarised
    /// board), when `p` rests on the column tops: `None` when a piece cell lies below its
    /// column's top (slid under an overhang), or when it completes a row and
    /// `keep_full_rows` is false (the caller removes rows: the full features must score
    /// it). Only what `SET` needs is computed, as `SET` is a constant.
    #[inline(always)]
    pub fn after<const SET: u32>(&self, board: &Board, p: &Placement, keep_full_rows: bool) -> Option<ColumnsAfter> {
        let needs = |index: usize| SET >> index & 1 == 1;
        let columns_needed = SET & (PENALTY7_SET | COLUMN_ARRAYS) != 0;
        let shape = &p.shape;
        let (left, bottom) = (p.left as usize, p.bottom as usize);
        let (piece_width, piece_height) = (shape.width as usize, shape.height as usize);
        let rows = board.rows();
        let mut heights = self.heights;
        let mut covered = self.covered;
        let mut new_holes = 0;
        let mut added_height = 0;
        let mut added_mike_height = 0;
        // A piece column's new height: one above the piece's top cell in it.
        let new_height = |j: usize| bottom + shape.top[j & 3] as usize + 1;
        for j in 0..piece_width {
            let x = left + j;
            let old = self.heights[x] as usize;
            let piece_bottom = bottom + shape.bottom[j & 3] as usize;
            if piece_bottom < old {
                return None;
            }
            // The empty cells between the old top and the piece become covered.
            let gap = piece_bottom - old;
            let new = new_height(j);
            new_holes += gap;
            added_height += new - old;
            added_mike_height += mike(new) - mike(old);
            if columns_needed {
                heights[x] = new as u8;
                covered[x] += gap as u8;
            }
        }
        let mut completed = 0;
        for i in 0..piece_height {
            completed += (rows[bottom + i] | shape.rows[i & 3] << left == self.full) as u32;
        }
        if completed > 0 && !keep_full_rows {
            return None;
        }
        let mut values = [0.0; FEATURE_COUNT];
        // The same arithmetic as the landing-height features, so the same reals.
        let landing = (bottom as f64 + (bottom + piece_height - 1) as f64) / 2.0;
        values[0] = landing + 1.0;
        values[1] = landing;
        if needs(4) {
            values[4] = (self.holes + new_holes as u32) as f64;
        }
        if needs(5) {
            values[5] = (self.aggregate_height + added_height as u32) as f64;
        }
        if needs(6) {
            values[6] = (self.full_rows + completed) as f64;
        }
        if needs(7) || needs(11) {
            // The pairs touching the piece's columns change: the old ones are taken from the
            // prefix sums, the new ones are the piece's own (its column tops) and its two
            // edges.
            let lo = left.saturating_sub(1);
            let hi = (left + piece_width).min(self.width - 1);
            let mut inside = 0;
            for j in 1..piece_width {
                inside += (shape.top[j - 1] as usize).abs_diff(shape.top[j] as usize);
            }
            let (first, last) = (new_height(0), new_height(piece_width - 1));
            let (mut edges, mut mike_edges) = (0, 0);
            if left > 0 {
                let outside = self.heights[left - 1] as usize;
                edges += outside.abs_diff(first);
                mike_edges += mike(outside).abs_diff(mike(first));
            }
            if left + piece_width < self.width {
                let outside = self.heights[left + piece_width] as usize;
                edges += outside.abs_diff(last);
                mike_edges += mike(outside).abs_diff(mike(last));
            }
            if needs(7) {
                let old = self.bumpiness_before[hi] - self.bumpiness_before[lo];
                values[7] = (self.bumpiness_before[self.width - 1] - old + (inside + edges) as u32) as f64;
            }
            if needs(11) {
                // Piece columns are at least 1 high: Mike's heights there are one less,
                // the same differences inside the piece.
                let old = self.mike_bumpiness_before[hi] - self.mike_bumpiness_before[lo];
                values[11] = (self.mike_bumpiness_before[self.width - 1] - old + (inside + mike_edges) as u32) as f64;
            }
        }
        if needs(8) {
            values[8] = (self.mike_aggregate_height + added_mike_height as u32) as f64;
        }
        if needs(10) {
            // Mike's holes: only the pairs of rows with a piece row in them change.
            let piece_row = |y: usize| {
                let i = y.wrapping_sub(bottom);
                if i < piece_height {
                    shape.rows[i & 3] << left
                } else {
                    0
                }
            };
            let mut mike_holes = self.mike_holes;
            for y in bottom.saturating_sub(1)..bottom + piece_height {
                let (below, above) = (board.row(y), board.row(y + 1));
                mike_holes += mike_pair(below | piece_row(y), above | piece_row(y + 1), self.full);
                mike_holes -= mike_pair(below, above, self.full);
            }
            values[10] = mike_holes as f64;
        }
        if SET & PENALTY7_SET != 0 {
            let (width, last) = (self.width, self.width - 1);
            let columns = &heights[..width];
            values[12] = super::penalty7::height_difference_of(columns) as f64;
            values[13] = covered[..last].iter().map(|&c| c as usize).sum::<usize>() as f64;
            values[14] = covered[last] as f64;
            values[15] = (heights[last] - covered[last]) as f64;
            values[16] = super::penalty7::consecutive_changes_of(columns) as f64;
            let (small, big) = super::penalty7::pits_of(columns);
            values[17] = small as f64;
            values[18] = big as f64;
        }
        Some(ColumnsAfter {
            width: self.width,
            values,
            heights,
            covered,
            stack_top: self.stack_top.max(bottom + piece_height),
        })
    }
}

impl ColumnSummary {
    /// [`ColumnSummary::after`] with the scorer of the smallest preset set that holds `set`
    /// (a set of [`SUPPORTED`] indices).
    #[inline(always)]
    pub fn after_for(&self, set: u32, board: &Board, p: &Placement, keep_full_rows: bool) -> Option<ColumnsAfter> {
        let set = set & !ALWAYS;
        if set == COLUMN_ARRAYS {
            self.after::<COLUMN_ARRAYS>(board, p, keep_full_rows)
        } else if set & !LEE_SET == 0 {
            self.after::<LEE_SET>(board, p, keep_full_rows)
        } else if set & !MIKE_SET == 0 {
            self.after::<MIKE_SET>(board, p, keep_full_rows)
        } else if set & !PENALTY7_SET == 0 {
            self.after::<PENALTY7_SET>(board, p, keep_full_rows)
        } else {
            self.after::<ALL_SET>(board, p, keep_full_rows)
        }
    }
}

impl ColumnsAfter {
    /// Board width.
    #[inline]
    pub fn width(&self) -> usize {
        self.width
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::{self, FeatureContext};
    use crate::piece::Piece;
    use crate::rules::{simplified::Simplified, RuleSet};

    /// The 7-term penalty's indices name its terms in the preset's order (the table above
    /// writes them out again because a const array cannot be spliced from another).
    #[test]
    fn the_penalty_set_is_the_seven_terms_in_order() {
        let indices: Vec<usize> = (0..FEATURE_COUNT).filter(|i| PENALTY7_SET & (1 << i) != 0).collect();
        let names: Vec<&str> = indices.iter().map(|&i| SUPPORTED[i]).collect();
        assert_eq!(names, crate::features::penalty7::NAMES);
    }

    /// Every resting placement of every piece on a set of boards, rows kept and rows
    /// removed: the engine gives exactly the full-board values.
    #[test]
    fn agrees_with_the_full_board_features() {
        let boards = crate::features::sample_boards();
        let mut checked = [0; 2];
        for board in &boards {
            let rules = Simplified::new(board.width(), board.height(), false);
            let summary = ColumnSummary::new(board);
            let mut out = Vec::new();
            for piece in Piece::ALL {
                rules.candidates(board, piece, &mut out);
                for p in &out {
                    for keep in [false, true] {
                        let mut after = *board;
                        let info = if keep {
                            p.write(&mut after);
                            crate::placement::PlacementInfo {
                                placed: true,
                                lowest_row: p.bottom,
                                highest_row: p.highest_row() as u8,
                                ..Default::default()
                            }
                        } else {
                            p.apply(&mut after)
                        };
                        let Some(fast) = summary.after::<ALL_SET>(board, p, keep) else {
                            assert!(!keep && info.rows_cleared > 0, "declined {p:?} on {board:?}");
                            continue;
                        };
                        let ctx = FeatureContext::new(&after, info);
                        for (i, name) in SUPPORTED.iter().enumerate() {
                            let slow = (features::find(name).unwrap().compute)(&ctx);
                            assert_eq!(fast.values[i], slow, "{name} for {p:?} on {board:?} (keep {keep})");
                        }
                        assert_eq!(fast.stack_top, after.stack_top());
                        checked[keep as usize] += 1;
                    }
                }
            }
        }
        assert!(checked[0] > 500 && checked[1] > checked[0], "{checked:?}");
    }
}
