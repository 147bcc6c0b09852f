//! One pass over the rows that yields every row-wise count the Dellacherie family needs.
//! Features read it through [`FeatureContext::scan`](super::FeatureContext::scan), which
//! computes it at most once per evaluated board: six features, one pass.

use crate::board::Board;

/// Row-wise counts of one board (see the features of the same names).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BoardScan {
    pub row_transitions: u32,
    /// With the sky term (Fahey).
    pub column_transitions: u32,
    /// Filled cells in the top row (the sky term, subtracted for El-Tetris' variant).
    pub top_row_cells: u32,
    pub holes: u32,
    pub rows_with_holes: u32,
    pub cumulative_wells: u32,
}

/// Scans from the top of the stack down to the floor. Rows above the stack are empty:
/// each adds 2 row transitions and nothing else.
pub fn scan(board: &Board) -> BoardScan {
    let width = board.width();
    let height = board.height();
    let top = board.stack_top().min(height);
    let rows = board.rows();
    let full = board.full_row();
    let walls = 1u32 | 1 << (width + 1);
    let transition_mask = (1u32 << (width + 1)) - 1;
    let mut out = BoardScan { row_transitions: 2 * (height - top) as u32, ..Default::default() };
    // The row above the current one: empty (or the empty sky) above the stack.
    let mut above = 0u16;
    let mut covered = 0u16;
    for y in (0..top).rev() {
        let row = rows[y];
        let walled = (row as u32) << 1 | walls;
        out.row_transitions += ((walled ^ (walled >> 1)) & transition_mask).count_ones();
        out.column_transitions += (row ^ above).count_ones();
        above = row;
        let holes = covered & !row;
        if holes != 0 {
            out.holes += holes.count_ones();
            out.rows_with_holes += 1;
        }
        covered |= row;
        // Well cells are rare: screen the row with bit operations, then walk down only the
        // well cell's own column to measure its empty run.
        let left_filled = (row << 1) | 1;
        let right_filled = (row >> 1) | 1 << (width - 1);
        let mut wells = !row & left_filled & right_filled & full;
        while wells != 0 {
            let bit = wells & wells.wrapping_neg();
            wells ^= bit;
            let mut below = y;
            while below > 0 && rows[below - 1] & bit == 0 {
                below -= 1;
            }
            out.cumulative_wells += (y - below + 1) as u32;
        }
    }
    // Row 0 against the filled floor (an empty board: every column changes once).
    out.column_transitions += (above ^ full).count_ones();
    if top == height {
        out.top_row_cells = rows[height - 1].count_ones();
    }
    out
}
