//! What the D-T set of the approximate-dynamic-programming papers (Gabillon, Ghavamzadeh and
//! Scherrer, NIPS 2013; Scherrer et al., JMLR 16, 2015) adds to BCTS': MdpTetris' own wells
//! (#-6, "well sums fast") and its pattern diversity (#-14); and the five RBF height
//! features of those papers' value functions. The D-T set is MdpTetris' ids 1, 2, 3, 4, 5,
//! -6, -1, -2, -14: `landing_height`, `eroded_cells`, `row_transitions`,
//! `column_transitions`, `holes`, [`DT_WELLS`], `cells_above_holes` (MdpTetris' hole
//! depth), `rows_with_holes`, [`PATTERN_DIVERSITY`] ([`DT_NAMES`]). Rows from the floor.

use super::{Feature, FeatureContext};
use crate::board::Board;

/// The D-T set, in the papers' order (JMLR15's Table 2).
pub const DT_NAMES: [&str; 9] = [
    "landing_height",
    "eroded_cells",
    "row_transitions",
    "column_transitions",
    "holes",
    "dt_wells",
    "cells_above_holes",
    "rows_with_holes",
    "pattern_diversity",
];

pub const DT_WELLS: Feature = Feature {
    name: "dt_wells",
    summary: "D-T's wells (MdpTetris #-6): every empty run of a column topped by a well cell (walls filled) counts 1+2+..+its length",
    compute: |ctx: &FeatureContext| dt_wells(ctx.board) as f64,
};

pub const PATTERN_DIVERSITY: Feature = Feature {
    name: "pattern_diversity",
    summary: "D-T (MdpTetris #-14): how many of -2, -1, 0, 1, 2 occur among the neighbouring columns' height differences (0..5)",
    compute: |ctx: &FeatureContext| pattern_diversity(ctx.board) as f64,
};

/// MdpTetris' "fast" well sums (#-6): a well cell is an empty cell whose left and right
/// neighbours are filled (the walls count as filled). In every column, from the stack's top
/// down, the first well cell of an empty run makes the whole run below it, itself included,
/// count as well cells: a run of `n` adds `1 + 2 + ... + n`, and the scan resumes under the
/// run. Dellacherie's `cumulative_wells` counts only the well cells themselves, each with
/// the empty run from it down: the two part when a well cell has empty cells below it that
/// are not well cells (a neighbour is empty there).
pub fn dt_wells(board: &Board) -> u32 {
    let width = board.width();
    let top = board.stack_top().min(board.height());
    let rows = board.rows();
    let mut total = 0;
    for x in 0..width {
        let bit = 1u16 << x;
        let mut y = top;
        while y > 0 {
            y -= 1;
            let row = rows[y];
            let left_filled = x == 0 || row >> (x - 1) & 1 == 1;
            let right_filled = x + 1 == width || row >> (x + 1) & 1 == 1;
            if row & bit != 0 || !left_filled || !right_filled {
                continue;
            }
            // A well cell: walk its empty run down.
            let mut run = 1;
            while y > 0 && rows[y - 1] & bit == 0 {
                y -= 1;
                run += 1;
            }
            total += run * (run + 1) / 2;
        }
    }
    total
}

/// MdpTetris' pattern diversity (#-14): over the `W - 1` neighbouring pairs, the signed
/// differences `h[x + 1] - h[x]`; the count of the values -2, -1, 0, 1, 2 that occur at
/// least once (differences beyond 2 count for nothing).
pub fn pattern_diversity(board: &Board) -> u32 {
    let heights = &board.heights()[..board.width()];
    let mut seen = 0u8;
    for pair in heights.windows(2) {
        let d = pair[1] as i32 - pair[0] as i32;
        if (-2..=2).contains(&d) {
            seen |= 1 << (d + 2);
        }
    }
    seen.count_ones()
}

/// The RBF height `I` of the papers' value functions: `exp(-(c - I h / 4)^2 / (2 (h / 5)^2))`
/// with `c` the mean column height and `h` the board's height.
pub fn rbf_height<const I: usize>(ctx: &FeatureContext) -> f64 {
    let board = ctx.board;
    let width = board.width();
    let sum: usize = board.heights()[..width].iter().map(|&h| h as usize).sum();
    let c = sum as f64 / width as f64;
    let h = board.height() as f64;
    let centre = I as f64 * h / 4.0;
    let spread = h / 5.0;
    (-(c - centre).powi(2) / (2.0 * spread * spread)).exp()
}

const RBF_SUMMARY: &str =
    "NIPS13/JMLR15 value features: exp(-(c - i h/4)^2 / (2 (h/5)^2)), c the mean column height, h the board height";

/// `rbf_height_0 .. rbf_height_4`.
pub const RBF_HEIGHTS: [Feature; 5] = [
    Feature { name: "rbf_height_0", summary: RBF_SUMMARY, compute: rbf_height::<0> },
    Feature { name: "rbf_height_1", summary: RBF_SUMMARY, compute: rbf_height::<1> },
    Feature { name: "rbf_height_2", summary: RBF_SUMMARY, compute: rbf_height::<2> },
    Feature { name: "rbf_height_3", summary: RBF_SUMMARY, compute: rbf_height::<3> },
    Feature { name: "rbf_height_4", summary: RBF_SUMMARY, compute: rbf_height::<4> },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::dellacherie::cumulative_wells;
    use crate::features::{self, FeatureContext};

    #[test]
    fn wells_hand_computed() {
        // Top row first; rows from the floor: r0 "X.XXX", r1 "XXX.X", r2 "X...X",
        // r3 "X.X..", r4 "X....".
        let b = Board::parse("X....\nX.X..\nX...X\nXXX.X\nX.XXX", None, 8).unwrap();
        // Column 1: (1,4) has an empty right neighbour; (1,3) is a well cell over the run
        // r3, r2 (2 cells: 1 + 2 = 3); under r1's cell, (1,0) is one (1). Column 3: (3,1)
        // is one, run 1 (1); (3,3) and (3,2) have an empty neighbour. Columns 0, 2, 4: none.
        assert_eq!(dt_wells(&b), 3 + 1 + 1);
        // Dellacherie's: (1,3) counts its run of 2, (1,2) is no well cell (c2 empty there).
        assert_eq!(cumulative_wells(&b), 2 + 1 + 1);
        // The 4x4 board of the Dellacherie tests: column 1's well cell (1,2) tops a run of
        // 2 whose lower cell (1,1) has an empty left neighbour: 3 here, 2 there.
        let b = Board::parse("#...\n#.#.\n..#.\n##.#", None, 4).unwrap();
        assert_eq!(dt_wells(&b), 3 + 1 + 3);
        assert_eq!(cumulative_wells(&b), 2 + 1 + 3);
        // A deep well at the wall: every cell of the run is a well cell, so both agree:
        // 1 + 2 + 3.
        let b = Board::parse(".XXX\n.XXX\n.XXX", None, 5).unwrap();
        assert_eq!(dt_wells(&b), 6);
        assert_eq!(cumulative_wells(&b), 6);
        assert_eq!(dt_wells(&Board::new(10, 20)), 0);
    }

    #[test]
    fn diversity_hand_computed() {
        // Heights 1 2 2 0 2 4 3: differences +1 0 -2 +2 +2 -1: all five values.
        let b = Board::parse(".....X.\n.....XX\n.XX.XXX\nXXX.XXX", None, 6).unwrap();
        assert_eq!(b.heights()[..7], [1, 2, 2, 0, 2, 4, 3]);
        assert_eq!(pattern_diversity(&b), 5);
        // Heights 3 0 3 6: differences -3 +3 +3: none counts.
        let b = Board::parse("...X\n...X\n...X\nX.XX\nX.XX\nX.XX", None, 8).unwrap();
        assert_eq!(pattern_diversity(&b), 0);
        // Flat (empty) board: only 0.
        assert_eq!(pattern_diversity(&Board::new(10, 20)), 1);
        // Heights 2 1 1 2: -1, 0, +1.
        let b = Board::parse("X..X\nXXXX", None, 4).unwrap();
        assert_eq!(pattern_diversity(&b), 3);
    }

    #[test]
    fn rbf_heights_hand_computed() {
        let rbf = |b: &Board| -> Vec<f64> {
            let ctx = FeatureContext::board(b);
            RBF_HEIGHTS.iter().map(|f| (f.compute)(&ctx)).collect()
        };
        // Empty 10x10: c = 0, h = 10, spread 2: exp(-(2.5 i)^2 / 8).
        let got = rbf(&Board::new(10, 10));
        let want: Vec<f64> = (0..5).map(|i| (-(2.5 * i as f64).powi(2) / 8.0).exp()).collect();
        assert_eq!(got, want);
        assert_eq!(got[0], 1.0);
        // Heights 5 everywhere but two columns of 10 and 0: mean 5 = the centre of i = 2.
        let mut b = Board::new(10, 10);
        for x in 1..9 {
            for y in 0..5 {
                b.set(x, y);
            }
        }
        for y in 0..10 {
            b.set(0, y);
        }
        let got = rbf(&b);
        assert_eq!(got[2], 1.0);
        assert_eq!(got[1], (-6.25f64 / 8.0).exp());
        assert_eq!(got[1], got[3]);
        assert_eq!(got[0], (-25.0f64 / 8.0).exp());
        assert_eq!(got[0], got[4]);
    }

    #[test]
    fn the_dt_set_is_registered() {
        for name in DT_NAMES {
            features::find(name).unwrap();
        }
    }
}
