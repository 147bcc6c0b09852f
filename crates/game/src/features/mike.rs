//! The "Mike's pygame" feature variants (seed `001_134fe8bcb8ea3c5d.txt`, `features.md`):
//! Yiyuan Lee's four features as the pygame port measures them. A column's height is the
//! row index of its top block (a block on the floor counts 0, an empty column 0 too), and
//! a hole is only an empty cell directly under a filled one. Used by the `pygame-lee` preset.

use super::{Feature, FeatureContext};
use crate::board::Board;

pub const AGGREGATE_HEIGHT: Feature = Feature {
    name: "mike_aggregate_height",
    summary: "Mike's pygame: sum of column heights, a column's height being its top block's row (floor block 0)",
    compute: |ctx: &FeatureContext| aggregate_height(ctx.board) as f64,
};

pub const LINES: Feature = Feature {
    name: "mike_lines",
    summary: "Mike's pygame: rows removed by the placement (both placements in a two-piece search)",
    compute: |ctx: &FeatureContext| lines(ctx.placement.rows_cleared as u32) as f64,
};

pub const HOLES: Feature = Feature {
    name: "mike_holes",
    summary: "Mike's pygame: empty cells whose cell directly above is filled",
    compute: |ctx: &FeatureContext| holes(ctx.board) as f64,
};

pub const BUMPINESS: Feature = Feature {
    name: "mike_bumpiness",
    summary: "Mike's pygame: sum of |mike_height(c) - mike_height(c+1)|",
    compute: |ctx: &FeatureContext| bumpiness(ctx.board) as f64,
};

/// `mike_height(c)`: row index (0 = floor) of the highest filled cell of column `c`; an
/// empty column also gives 0.
#[inline]
pub fn mike_height(board: &Board, column: usize) -> u32 {
    (board.column_height(column) as u32).saturating_sub(1)
}

/// `mike_aggregate_height`: the sum of [`mike_height`] over all columns. Lower is better
/// (published weight -0.510066).
pub fn aggregate_height(board: &Board) -> u32 {
    (0..board.width()).map(|c| mike_height(board, c)).sum()
}

/// `mike_lines`: rows removed by the placement (passed in, since the board after the
/// placement no longer shows them). Higher is better (published weight +0.760666).
#[inline]
pub fn lines(rows_removed: u32) -> u32 {
    rows_removed
}

/// `mike_holes`: empty cells whose cell directly above is filled (a covered column of
/// three empty cells counts once). Lower is better (published weight -0.35663).
pub fn holes(board: &Board) -> u32 {
    let full = board.full_row();
    let rows = board.rows();
    let top = board.stack_top();
    (0..top.saturating_sub(1)).map(|y| (!rows[y] & rows[y + 1] & full).count_ones()).sum()
}

/// `mike_bumpiness`: sum over neighbouring columns of |mike_height(c) - mike_height(c+1)|.
/// Lower is better (published weight -0.184483).
pub fn bumpiness(board: &Board) -> u32 {
    (0..board.width() - 1).map(|c| mike_height(board, c).abs_diff(mike_height(board, c + 1))).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 10 x 40 board from indented ASCII art (top row first).
    fn board(text: &str) -> Board {
        let rows: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        Board::parse(&rows.join("\n"), None, 40).unwrap()
    }

    #[test]
    fn height_counts_the_floor_block_as_zero() {
        let b = board(
            "
            #.........
            #...#.....
            ##..##....",
        );
        assert_eq!(mike_height(&b, 0), 2);
        assert_eq!(mike_height(&b, 1), 0, "a block on the floor");
        assert_eq!(mike_height(&b, 2), 0, "an empty column");
        assert_eq!(mike_height(&b, 4), 1);
        assert_eq!(aggregate_height(&b), 3, "2 + 1 from columns 0 and 4");
    }

    #[test]
    fn holes_are_cells_directly_under_a_block() {
        // Column 0: filled at rows 3 and 0, empty rows 1-2: only row 2 is directly under a
        // block. Column 2: block at row 1 over an empty floor cell: one hole.
        let b = board(
            "
            #.........
            ..........
            ..#.......
            #.........",
        );
        assert_eq!(holes(&b), 2);
        assert_eq!(holes(&board("##########")), 0);
    }

    #[test]
    fn bumpiness_uses_mike_heights() {
        // mike heights: 2, 0, 0, 0, 1, 0, ... -> |2-0| + |0-1| + |1-0| = 4.
        let b = board(
            "
            #.........
            #...#.....
            ##..##....",
        );
        assert_eq!(bumpiness(&b), 4);
    }

    #[test]
    fn registered_features_read_the_board_and_the_placement() {
        let b = board(
            "
            .#........
            ##........",
        );
        let ctx = FeatureContext::new(&b, crate::placement::PlacementInfo { rows_cleared: 3, ..Default::default() });
        // mike heights 0, 1, then 0s: aggregate 1, bumpiness |0-1| + |1-0| = 2; no holes
        // (column 0's block is on the floor).
        let values: Vec<f64> = [AGGREGATE_HEIGHT, LINES, HOLES, BUMPINESS].iter().map(|f| (f.compute)(&ctx)).collect();
        assert_eq!(values, [1.0, 3.0, 0.0, 2.0]);
    }
}
