//! Bertsekas and Tsitsiklis' (1996) features, as MdpTetris counts them (ids 7, 8, 9; the
//! fourth, holes, is Dellacherie's `holes`): the wall's height, every column's height and
//! every adjacent pair's absolute height difference. On a board of width W the preset uses
//! `column_height_0 .. column_height_{W-1}` and `column_difference_0 .. column_difference_{W-2}`
//! (column 0 on the left, MdpTetris' column 1); the 10-wide set is the 22 features with
//! `holes` and a constant. A column the board does not have reads 0. Rows from the floor.

use super::{Feature, FeatureContext};
use crate::board::{Board, MAX_WIDTH};

/// MdpTetris #7 (Bertsekas): the wall height, the index of the lowest empty row, which is
/// the highest column's height (0 on an empty board).
pub const MAX_HEIGHT: Feature = Feature {
    name: "max_height",
    summary: "Bertsekas-Tsitsiklis (MdpTetris #7): the wall height, the highest column's height",
    compute: |ctx: &FeatureContext| ctx.board.max_height() as f64,
};

/// Height of column `X`: one above its highest filled cell, 0 when it is empty or the board
/// has fewer than `X + 1` columns.
pub fn column_height<const X: usize>(ctx: &FeatureContext) -> f64 {
    if X < ctx.board.width() {
        ctx.board.column_height(X) as f64
    } else {
        0.0
    }
}

/// `|h_X - h_{X+1}|`, 0 when the board has fewer than `X + 2` columns.
pub fn column_difference<const X: usize>(ctx: &FeatureContext) -> f64 {
    difference(ctx.board, X)
}

fn difference(board: &Board, x: usize) -> f64 {
    if x + 1 < board.width() {
        board.column_height(x).abs_diff(board.column_height(x + 1)) as f64
    } else {
        0.0
    }
}

const HEIGHT_SUMMARY: &str = "Bertsekas-Tsitsiklis (MdpTetris #8): the height of this column (0 = leftmost)";
const DIFFERENCE_SUMMARY: &str =
    "Bertsekas-Tsitsiklis (MdpTetris #9): |height of this column - height of the next one| (0 = leftmost)";

macro_rules! columns {
    ($($x:literal $height:literal $difference:literal),* $(,)?) => {
        /// `column_height_0 ..`, one per possible column.
        pub const COLUMN_HEIGHTS: [Feature; MAX_WIDTH] = [
            $(Feature { name: $height, summary: HEIGHT_SUMMARY, compute: column_height::<$x> },)*
        ];
        /// `column_difference_0 ..`, one per possible pair of neighbours (one fewer than columns).
        pub const COLUMN_DIFFERENCES: [Feature; MAX_WIDTH] = [
            $(Feature { name: $difference, summary: DIFFERENCE_SUMMARY, compute: column_difference::<$x> },)*
        ];
    };
}

// The last difference (`column_difference_15`) has no second column on any board: it is
// not registered.
columns!(
    0 "column_height_0" "column_difference_0",
    1 "column_height_1" "column_difference_1",
    2 "column_height_2" "column_difference_2",
    3 "column_height_3" "column_difference_3",
    4 "column_height_4" "column_difference_4",
    5 "column_height_5" "column_difference_5",
    6 "column_height_6" "column_difference_6",
    7 "column_height_7" "column_difference_7",
    8 "column_height_8" "column_difference_8",
    9 "column_height_9" "column_difference_9",
    10 "column_height_10" "column_difference_10",
    11 "column_height_11" "column_difference_11",
    12 "column_height_12" "column_difference_12",
    13 "column_height_13" "column_difference_13",
    14 "column_height_14" "column_difference_14",
    15 "column_height_15" "column_difference_15",
);

/// The columns a board needs for feature `name` to read one of its columns (`None`: it
/// reads the whole board): `column_height_X` needs X + 1, `column_difference_X` X + 2.
pub fn columns_needed(name: &str) -> Option<usize> {
    COLUMN_HEIGHTS
        .iter()
        .position(|f| f.name == name)
        .map(|x| x + 1)
        .or_else(|| COLUMN_DIFFERENCES.iter().position(|f| f.name == name).map(|x| x + 2))
}

/// The names of Bertsekas' features on a board `width` wide, in MdpTetris' order of its
/// `bertsekas_initial.dat` (heights, differences, wall height, holes; no constant).
pub fn names(width: usize) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = COLUMN_HEIGHTS[..width].iter().map(|f| f.name).collect();
    names.extend(COLUMN_DIFFERENCES[..width - 1].iter().map(|f| f.name));
    names.push(MAX_HEIGHT.name);
    names.push("holes");
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::{self, FeatureContext};

    fn values(board: &Board, names: &[&str]) -> Vec<f64> {
        let ctx = FeatureContext::board(board);
        names.iter().map(|n| (features::find(n).unwrap().compute)(&ctx)).collect()
    }

    #[test]
    fn hand_computed_ten_wide() {
        // Top row first; columns 0..9 left to right.
        let b = Board::parse(
            "....X.....\n\
             X...X.....\n\
             X.X.XX....\n\
             XXX.X..X.X\n\
             X.XXXX.XXX",
            Some(10),
            20,
        )
        .unwrap();
        // Heights: c0 4, c1 2, c2 3, c3 1, c4 5, c5 3, c6 0, c7 2, c8 1, c9 2.
        let heights: Vec<f64> = [4, 2, 3, 1, 5, 3, 0, 2, 1, 2].iter().map(|&h| h as f64).collect();
        let names = names(10);
        assert_eq!(names.len(), 21, "22 with the constant");
        let got = values(&b, &names);
        assert_eq!(&got[..10], &heights[..]);
        // |4-2| |2-3| |3-1| |1-5| |5-3| |3-0| |0-2| |2-1| |1-2|
        assert_eq!(&got[10..19], &[2.0, 1.0, 2.0, 4.0, 2.0, 3.0, 2.0, 1.0, 1.0]);
        assert_eq!(got[19], 5.0, "wall height");
        // Holes: c1 row 0 (under its cell in row 1) and c5 row 1 (under its cell in row 2).
        assert_eq!(got[20], 2.0);
        // Columns the board does not have read 0.
        assert_eq!(values(&b, &["column_height_10", "column_difference_9", "column_difference_14"]), [0.0; 3]);
    }

    #[test]
    fn any_width() {
        let b = Board::parse("X.X.\nXXXX", None, 6).unwrap();
        let names = names(4);
        assert_eq!(
            names,
            [
                "column_height_0",
                "column_height_1",
                "column_height_2",
                "column_height_3",
                "column_difference_0",
                "column_difference_1",
                "column_difference_2",
                "max_height",
                "holes"
            ]
        );
        assert_eq!(values(&b, &names), [2.0, 1.0, 2.0, 1.0, 1.0, 1.0, 1.0, 2.0, 0.0]);
        assert_eq!(values(&Board::new(16, 10), &["max_height", "column_height_15"]), [0.0, 0.0]);
        let mut wide = Board::new(16, 10);
        wide.set(15, 3);
        assert_eq!(values(&wide, &["max_height", "column_height_15", "column_difference_14"]), [4.0, 4.0, 4.0]);
    }
}
