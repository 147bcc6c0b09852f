//! Board features, one file per published family. Each feature is a [`Feature`] value
//! (name, source, sign convention, function); [`REGISTRY`] lists them all, and its order is
//! the column order of every CSV. A feature's name is its CSV header and config key.

use crate::board::Board;
use crate::placement::PlacementInfo;

pub mod bcts;
pub mod bertsekas;
pub mod columns;
pub mod dellacherie;
pub mod dt;
pub mod incremental;
pub mod lee;
pub mod mike;
pub mod penalty7;
pub mod scan;

/// A set of feature indices of one fast engine's own table (`incremental::SUPPORTED`,
/// `columns::SUPPORTED`): bit i for index i. Both engines name their feature sets this way.
pub(crate) const fn feature_set(indices: &[usize]) -> u32 {
    let mut set = 0;
    let mut k = 0;
    while k < indices.len() {
        set |= 1 << indices[k];
        k += 1;
    }
    set
}

/// What a feature sees: the evaluated board and, when a placement produced it, what the
/// placement did (zeros for a bare board), plus the row scan shared by several features.
#[derive(Clone, Debug)]
pub struct FeatureContext<'a> {
    pub board: &'a Board,
    pub placement: PlacementInfo,
    scan: std::cell::OnceCell<scan::BoardScan>,
}

impl<'a> FeatureContext<'a> {
    pub fn new(board: &'a Board, placement: PlacementInfo) -> FeatureContext<'a> {
        FeatureContext { board, placement, scan: std::cell::OnceCell::new() }
    }
    /// A bare board (placement-dependent features read 0).
    pub fn board(board: &'a Board) -> FeatureContext<'a> {
        FeatureContext::new(board, PlacementInfo::default())
    }
    /// The row scan of the board, computed on first use.
    #[inline]
    pub fn scan(&self) -> &scan::BoardScan {
        self.scan.get_or_init(|| scan::scan(self.board))
    }
}

/// One feature of the library.
#[derive(Clone, Copy)]
pub struct Feature {
    /// Stable name: CSV header and weight key.
    pub name: &'static str,
    /// One line: what it counts and where it comes from.
    pub summary: &'static str,
    pub compute: fn(&FeatureContext) -> f64,
}

impl std::fmt::Debug for Feature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// Every feature, grouped by family.
pub static REGISTRY: &[Feature] = &[
    dellacherie::LANDING_HEIGHT,
    dellacherie::LANDING_HEIGHT_0,
    dellacherie::ERODED_CELLS,
    dellacherie::ROWS_CLEARED,
    dellacherie::ROW_TRANSITIONS,
    dellacherie::COLUMN_TRANSITIONS,
    dellacherie::COLUMN_TRANSITIONS_NOSKY,
    dellacherie::HOLES,
    dellacherie::CUMULATIVE_WELLS,
    bcts::HOLE_DEPTH,
    bcts::CELLS_ABOVE_HOLES,
    bcts::ROWS_WITH_HOLES,
    lee::AGGREGATE_HEIGHT,
    lee::COMPLETE_LINES,
    lee::BUMPINESS,
    mike::AGGREGATE_HEIGHT,
    mike::LINES,
    mike::HOLES,
    mike::BUMPINESS,
    penalty7::HEIGHT_DIFFERENCE,
    penalty7::COVERED,
    penalty7::COVERED_RIGHTMOST,
    penalty7::HEIGHT_RIGHTMOST,
    penalty7::CONSECUTIVE_CHANGES,
    penalty7::SMALL_PITS,
    penalty7::BIG_PITS,
    dt::DT_WELLS,
    dt::PATTERN_DIVERSITY,
    dt::RBF_HEIGHTS[0],
    dt::RBF_HEIGHTS[1],
    dt::RBF_HEIGHTS[2],
    dt::RBF_HEIGHTS[3],
    dt::RBF_HEIGHTS[4],
    bertsekas::MAX_HEIGHT,
    bertsekas::COLUMN_HEIGHTS[0],
    bertsekas::COLUMN_HEIGHTS[1],
    bertsekas::COLUMN_HEIGHTS[2],
    bertsekas::COLUMN_HEIGHTS[3],
    bertsekas::COLUMN_HEIGHTS[4],
    bertsekas::COLUMN_HEIGHTS[5],
    bertsekas::COLUMN_HEIGHTS[6],
    bertsekas::COLUMN_HEIGHTS[7],
    bertsekas::COLUMN_HEIGHTS[8],
    bertsekas::COLUMN_HEIGHTS[9],
    bertsekas::COLUMN_HEIGHTS[10],
    bertsekas::COLUMN_HEIGHTS[11],
    bertsekas::COLUMN_HEIGHTS[12],
    bertsekas::COLUMN_HEIGHTS[13],
    bertsekas::COLUMN_HEIGHTS[14],
    bertsekas::COLUMN_HEIGHTS[15],
    bertsekas::COLUMN_DIFFERENCES[0],
    bertsekas::COLUMN_DIFFERENCES[1],
    bertsekas::COLUMN_DIFFERENCES[2],
    bertsekas::COLUMN_DIFFERENCES[3],
    bertsekas::COLUMN_DIFFERENCES[4],
    bertsekas::COLUMN_DIFFERENCES[5],
    bertsekas::COLUMN_DIFFERENCES[6],
    bertsekas::COLUMN_DIFFERENCES[7],
    bertsekas::COLUMN_DIFFERENCES[8],
    bertsekas::COLUMN_DIFFERENCES[9],
    bertsekas::COLUMN_DIFFERENCES[10],
    bertsekas::COLUMN_DIFFERENCES[11],
    bertsekas::COLUMN_DIFFERENCES[12],
    bertsekas::COLUMN_DIFFERENCES[13],
    bertsekas::COLUMN_DIFFERENCES[14],
];

/// Looks a feature up by name, with a "did you mean" on a miss.
pub fn find(name: &str) -> anyhow::Result<&'static Feature> {
    REGISTRY
        .iter()
        .find(|f| f.name == name)
        .ok_or_else(|| crate::names::unknown("feature", name, REGISTRY.iter().map(|f| f.name)))
}

/// Refuses a feature that reads a column a board `width` wide does not have
/// (`column_height_9` on a 6-wide board would read 0 whatever the board).
pub fn check_width(feature: &Feature, width: usize) -> anyhow::Result<()> {
    match bertsekas::columns_needed(feature.name) {
        Some(needed) if needed > width => anyhow::bail!(
            "feature {} reads column {} of a board {width} columns wide (columns are numbered from 0)",
            feature.name,
            needed - 1
        ),
        _ => Ok(()),
    }
}

/// Looks a feature up by name for a board `width` wide: [`find`], then [`check_width`].
pub fn find_for_width(name: &str, width: usize) -> anyhow::Result<&'static Feature> {
    let feature = find(name)?;
    check_width(feature, width)?;
    Ok(feature)
}

#[cfg(test)]
pub(crate) mod test_boards {
    //! The reference boards of `golden.md`, top row first.
    use crate::board::Board;

    pub const B1_STAIRS: &str = "X.........\nX...X.....\nXX.XXX.X..\nXXXXXX.XX.\nXXXXXXXXX.";
    pub const B2_HOLES: &str = ".X........\nXXX..X....\nX.X..XX...\nXXXX.XXX.X";
    pub const B3_WELLS: &str = "X.XX.XXXX.\nX.XX.XXXX.\nXXXX.XXXX.";
    pub const B4_PITS: &str = "X..X.....X\nX..XX..X.X\nXX.XX..XXX";

    pub fn board(text: &str, height: usize) -> Board {
        Board::parse(text, Some(10), height).unwrap()
    }

    /// The five golden boards B0..B4 on a 10 x `height` board.
    pub fn golden(height: usize) -> [Board; 5] {
        [
            Board::new(10, height),
            board(B1_STAIRS, height),
            board(B2_HOLES, height),
            board(B3_WELLS, height),
            board(B4_PITS, height),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        for (i, a) in REGISTRY.iter().enumerate() {
            assert!(REGISTRY[i + 1..].iter().all(|b| b.name != a.name), "{} twice", a.name);
        }
    }

    #[test]
    fn unknown_feature_suggests() {
        let e = find("hole").unwrap_err().to_string();
        assert!(e.contains("did you mean"), "{e}");
    }

    #[test]
    fn column_features_need_their_columns() {
        assert!(find_for_width("column_height_5", 6).is_ok());
        assert!(find_for_width("column_difference_4", 6).is_ok());
        assert!(find_for_width("holes", 4).is_ok());
        let e = find_for_width("column_height_9", 6).unwrap_err().to_string();
        assert!(e.contains("column_height_9 reads column 9 of a board 6 columns wide"), "{e}");
        let e = find_for_width("column_difference_5", 6).unwrap_err().to_string();
        assert!(e.contains("reads column 6"), "{e}");
    }
}

/// Small boards for the engines' agreement tests (top row first): empty, ragged 10x20
/// stacks with holes and overhangs, and 4-wide boards in a 6-row well.
#[cfg(test)]
pub(crate) fn sample_boards() -> [Board; 7] {
    [
        Board::new(10, 20),
        Board::parse("X.........\nX...X.....\nXX.XXX.X..\nXXXXXX.XX.\nXXXXXXXXX.", Some(10), 20).unwrap(),
        Board::parse(".X........\nXXX..X....\nX.X..XX...\nXXXX.XXX.X", Some(10), 20).unwrap(),
        Board::parse("X.XX.XXXX.\nX.XX.XXXX.\nXXXX.XXXX.", Some(10), 20).unwrap(),
        Board::parse("#.#.\n#..#\n.#..\n##.#", None, 6).unwrap(),
        Board::parse("...#\n#...\n#.##\n#.#.\n##.#", None, 6).unwrap(),
        Board::parse("####\n#.##\n.###", None, 6).unwrap(),
    ]
}
