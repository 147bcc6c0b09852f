//! Yiyuan Lee's four features (his JavaScript AI). His `holes` is the Dellacherie one;
//! heights are the board's column heights (a block on the floor gives 1). He evaluates
//! boards without removing full rows, which is why `complete_lines` counts full rows present.

use super::{Feature, FeatureContext};
use crate::board::Board;

pub const AGGREGATE_HEIGHT: Feature = Feature {
    name: "aggregate_height",
    summary: "Lee: sum of column heights (a block on the floor gives 1)",
    compute: |ctx: &FeatureContext| aggregate_height(ctx.board) as f64,
};

pub const COMPLETE_LINES: Feature = Feature {
    name: "complete_lines",
    summary: "Lee: full rows present on the evaluated board (he does not remove them first)",
    compute: |ctx: &FeatureContext| ctx.board.full_rows().count_ones() as f64,
};

pub const BUMPINESS: Feature = Feature {
    name: "bumpiness",
    summary: "Lee: sum of |h(c) - h(c+1)| over neighbouring columns",
    compute: |ctx: &FeatureContext| bumpiness(ctx.board) as f64,
};

pub fn aggregate_height(board: &Board) -> u32 {
    board.heights()[..board.width()].iter().map(|&h| h as u32).sum()
}

pub fn bumpiness(board: &Board) -> u32 {
    board.heights()[..board.width()].windows(2).map(|w| w[0].abs_diff(w[1]) as u32).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::test_boards::golden;

    #[test]
    fn golden_values() {
        // golden.md, 22-row grid: aggregate_height, complete_lines, holes, bumpiness.
        let expect = [(0, 0, 0, 0), (26, 0, 0, 13), (18, 0, 1, 12), (22, 0, 0, 13), (15, 0, 0, 14)];
        for (board, want) in golden(22).iter().zip(expect) {
            let ctx = FeatureContext::board(board);
            let got = (
                aggregate_height(board),
                (COMPLETE_LINES.compute)(&ctx) as u32,
                crate::features::dellacherie::holes(board),
                bumpiness(board),
            );
            assert_eq!(got, want, "{board:?}");
        }
    }

    #[test]
    fn complete_lines_counts_rows_left_on_the_board() {
        let b = Board::parse("#...\n####\n####", None, 6).unwrap();
        assert_eq!((COMPLETE_LINES.compute)(&FeatureContext::board(&b)), 2.0);
        assert_eq!(aggregate_height(&b), 3 + 2 + 2 + 2);
    }
}
