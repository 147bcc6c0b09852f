//! The 7-term penalty of the 2016 Java bot (seed 003). Lower is better. The rightmost
//! column is the I-well: it has terms of its own and is left out of the others in the
//! original's particular ways (kept here exactly). h(c) = highest filled row + 1,
//! n(c) = filled cells of column c.

use super::{Feature, FeatureContext};
use crate::board::Board;

pub const HEIGHT_DIFFERENCE: Feature = Feature {
    name: "height_difference",
    summary: "7-term: max height over all columns minus min height over all but the rightmost",
    compute: |ctx: &FeatureContext| height_difference(ctx.board) as f64,
};

pub const COVERED: Feature = Feature {
    name: "covered",
    summary: "7-term: empty cells below each column top, rightmost column excluded",
    compute: |ctx: &FeatureContext| covered(ctx.board) as f64,
};

pub const COVERED_RIGHTMOST: Feature = Feature {
    name: "covered_rightmost",
    summary: "7-term: empty cells below the rightmost column's top",
    compute: |ctx: &FeatureContext| {
        let last = ctx.board.width() - 1;
        (ctx.board.column_height(last) - column_cells(ctx.board, last)) as f64
    },
};

pub const HEIGHT_RIGHTMOST: Feature = Feature {
    name: "height_rightmost",
    summary: "7-term: filled cells in the rightmost column (not its height)",
    compute: |ctx: &FeatureContext| column_cells(ctx.board, ctx.board.width() - 1) as f64,
};

pub const CONSECUTIVE_CHANGES: Feature = Feature {
    name: "consecutive_changes",
    summary: "7-term: columns c in 2..W-2 where h changes at c and at c-1 (rightmost ignored)",
    compute: |ctx: &FeatureContext| consecutive_changes(ctx.board) as f64,
};

pub const SMALL_PITS: Feature = Feature {
    name: "small_pits",
    summary: "7-term: columns at least 2 below both neighbours, the shallower side exactly 2",
    compute: |ctx: &FeatureContext| pits(ctx.board).0 as f64,
};

pub const BIG_PITS: Feature = Feature {
    name: "big_pits",
    summary: "7-term: columns at least 3 below both neighbours (walls count 5; rightmost ignored)",
    compute: |ctx: &FeatureContext| pits(ctx.board).1 as f64,
};

/// The seven terms in the order of the preset and of [`original_order_penalty`]'s weights.
pub const NAMES: [&str; 7] = [
    "height_difference",
    "covered",
    "covered_rightmost",
    "height_rightmost",
    "consecutive_changes",
    "small_pits",
    "big_pits",
];

/// The weighted penalty summed in the 2016 program's own order (`TetrisBoard.getBoardPenalty`):
/// the height difference, then each column's covered cells (the rightmost column's covered
/// cells then its cell count), then one addition per consecutive change and per pit in
/// column order. Floating-point sums depend on their order, and the bot breaks ties on
/// exact equality, so replaying its games needs this order (a plain weighted sum differs
/// in the last digit on two of the five golden boards). `weights` follow [`NAMES`].
pub fn original_order_penalty(board: &Board, weights: &[f64; 7]) -> f64 {
    original_order_penalty_of(board.width(), board.heights(), &covered_per_column(board), weights)
}

/// [`original_order_penalty`] from the column heights and the covered cells of every
/// column (empty cells below its top), the first `width` entries of each: what the
/// incremental engine ([`super::columns`]) knows after a placement.
#[inline]
pub fn original_order_penalty_of(
    width: usize,
    h: &[u8; crate::board::MAX_WIDTH],
    covered: &[u8; crate::board::MAX_WIDTH],
    weights: &[f64; 7],
) -> f64 {
    let [difference_w, covered_w, covered_rightmost_w, height_rightmost_w, change_w, small_w, big_w] = *weights;
    let last = width - 1;
    let mut total = 0.0;

    let min = h[..last].iter().copied().min().unwrap_or(0);
    let max = h[..width].iter().copied().max().unwrap_or(0);
    total += difference_w * (max - min) as f64;

    for &holes in &covered[..last] {
        total += holes as f64 * covered_w;
    }
    let cells_rightmost = h[last] as usize - covered[last] as usize;
    total += covered[last] as f64 * covered_rightmost_w;
    total += cells_rightmost as f64 * height_rightmost_w;

    for c in 2..last {
        if h[c] != h[c - 1] && h[c - 1] != h[c - 2] {
            total += change_w;
        }
    }

    let last_pit = width - 2;
    for c in 0..=last_pit {
        let left = if c == 0 { 5 } else { (h[c - 1] as i32 - h[c] as i32).max(0) };
        let right = if c == last_pit { 5 } else { (h[c + 1] as i32 - h[c] as i32).max(0) };
        if left >= 2 && right >= 2 {
            total += if left.min(right) == 2 { small_w } else { big_w };
        }
    }
    total
}

/// Empty cells below each column's top (index = column), from the row masks: holes are
/// rare, so walking the covered-and-empty bits costs little.
fn covered_per_column(board: &Board) -> [u8; crate::board::MAX_WIDTH] {
    let mut covered = [0u8; crate::board::MAX_WIDTH];
    let rows = board.rows();
    let full = board.full_row();
    let mut covering = 0u16;
    for y in (0..board.max_height()).rev() {
        covering |= rows[y];
        let mut holes = covering & !rows[y] & full;
        while holes != 0 {
            covered[holes.trailing_zeros() as usize] += 1;
            holes &= holes - 1;
        }
    }
    covered
}

fn column_cells(board: &Board, x: usize) -> usize {
    (0..board.column_height(x)).filter(|&y| board.is_filled(x, y)).count()
}

pub fn height_difference(board: &Board) -> usize {
    height_difference_of(&board.heights()[..board.width()])
}

/// [`height_difference`] from the column heights.
pub fn height_difference_of(h: &[u8]) -> usize {
    let max = *h.iter().max().unwrap();
    let min = *h[..h.len() - 1].iter().min().unwrap();
    (max - min) as usize
}

pub fn covered(board: &Board) -> usize {
    (0..board.width() - 1).map(|x| board.column_height(x) - column_cells(board, x)).sum()
}

pub fn consecutive_changes(board: &Board) -> usize {
    consecutive_changes_of(&board.heights()[..board.width()])
}

/// [`consecutive_changes`] from the column heights.
pub fn consecutive_changes_of(h: &[u8]) -> usize {
    (2..h.len() - 1).filter(|&c| h[c] != h[c - 1] && h[c - 1] != h[c - 2]).count()
}

/// (small, big) pits over columns 0..W-2; the side beyond column W-2 is a wall of depth 5.
pub fn pits(board: &Board) -> (usize, usize) {
    pits_of(&board.heights()[..board.width()])
}

/// [`pits`] from the column heights.
pub fn pits_of(h: &[u8]) -> (usize, usize) {
    let last = h.len() - 2;
    let (mut small, mut big) = (0, 0);
    for c in 0..=last {
        let left = if c == 0 { 5 } else { (h[c - 1] as i32 - h[c] as i32).max(0) };
        let right = if c == last { 5 } else { (h[c + 1] as i32 - h[c] as i32).max(0) };
        if left >= 2 && right >= 2 {
            if left.min(right) == 2 {
                small += 1;
            } else {
                big += 1;
            }
        }
    }
    (small, big)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::test_boards::golden;

    #[test]
    fn terms_on_golden_boards() {
        let b = golden(22);
        // B1: heights 5,3,2,3,4,3,1,3,2,0 -> difference 4, 7 changes, one small pit (column 6).
        assert_eq!(height_difference(&b[1]), 4);
        assert_eq!(consecutive_changes(&b[1]), 7);
        assert_eq!(pits(&b[1]), (1, 0));
        assert_eq!(covered(&b[1]), 0);
        // B2: column 1 has one covered cell.
        assert_eq!(covered(&b[2]), 1);
        // B0: all zero, and column 0 would be a pit but for its right neighbour.
        assert_eq!((height_difference(&b[0]), covered(&b[0]), pits(&b[0])), (0, 0, (0, 0)));
    }

    #[test]
    fn original_order_gives_the_golden_penalties_to_the_last_bit() {
        // golden.md, printed by the original program (Java's shortest round-trip digits).
        let expected: [f64; 5] = [0.0, 38.60091950851093, 57.64754092310525, 47.27407203058329, 39.32112349948503];
        let preset = crate::presets::find("erikko").unwrap();
        let weights: [f64; 7] = std::array::from_fn(|i| {
            assert_eq!(preset.weights[i].0, NAMES[i]);
            preset.weights[i].1
        });
        let evaluator = preset.evaluator().unwrap();
        for (board, want) in golden(22).iter().zip(expected) {
            let direct = original_order_penalty(board, &weights);
            let through_preset = evaluator.value(&FeatureContext::board(board));
            assert_eq!(direct.to_bits(), want.to_bits(), "{board:?}");
            assert_eq!(through_preset.to_bits(), want.to_bits(), "{board:?}");
        }
        // A plain weighted sum in term order misses two of them by an ulp or two.
        let plain = |b: &Board| -> f64 {
            evaluator.terms.iter().map(|(f, w)| w * (f.compute)(&FeatureContext::board(b))).sum()
        };
        assert_ne!(plain(&golden(22)[2]).to_bits(), expected[2].to_bits());
    }

    #[test]
    fn covered_counts_match_the_per_column_definition() {
        for board in golden(22) {
            let covered = covered_per_column(&board);
            for (x, &holes) in covered.iter().enumerate().take(10) {
                assert_eq!(holes as usize, board.column_height(x) - column_cells(&board, x));
            }
        }
    }

    #[test]
    fn rightmost_counts_cells_not_height() {
        let b = Board::parse(".........#\n.........#\n..........\n.........#", None, 22).unwrap();
        let ctx = FeatureContext::board(&b);
        assert_eq!((HEIGHT_RIGHTMOST.compute)(&ctx), 3.0);
        assert_eq!((COVERED_RIGHTMOST.compute)(&ctx), 1.0);
    }
}
