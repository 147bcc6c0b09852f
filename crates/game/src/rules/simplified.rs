//! `simplified`: the research rules of Bertsekas-Tsitsiklis, MdpTetris and BCTS. Any W x H,
//! no hold, no preview; every distinct orientation at every column is dropped from above
//! the board. A placement sticking out above the top ends the game even if it completes
//! rows (MdpTetris with `-allow_lines_after_overflow 0`, and Bertsekas-Tsitsiklis' rules);
//! the `lines_after_overflow` variant clears rows first, which is MdpTetris' default
//! (`allow_lines_after_overflow = 1` in its `common_parameters.c`).

use super::{drop_candidates, OrientationTable, RuleSet, RuleSetEntry};
use crate::board::Board;
use crate::piece::Piece;
use crate::placement::Placement;
use crate::randomizer::RandomizerKind;

pub const ENTRY: RuleSetEntry = RuleSetEntry {
    name: "simplified",
    summary: "research rules (MdpTetris, BCTS): any WxH, drop from above, no hold/preview, overflow ends the game",
    build: |size| {
        let (width, height) = size.unwrap_or((10, 20));
        Board::check_size(width, height)?;
        Ok(Box::new(Simplified::new(width, height, false)))
    },
};

/// The variant MdpTetris calls "allow lines after overflow": full rows are removed before
/// the top is checked, so a placement sticking out may survive if its rows clear.
pub const LINES_AFTER_OVERFLOW: RuleSetEntry = RuleSetEntry {
    name: "simplified-lines-after-overflow",
    summary: "simplified, but full rows are removed before the overflow check (MdpTetris' option)",
    build: |size| {
        let (width, height) = size.unwrap_or((10, 20));
        Board::check_size(width, height)?;
        Ok(Box::new(Simplified::new(width, height, true)))
    },
};

/// MdpTetris' orientations in its own order: the first as drawn in its `pieces4.dat` (with
/// the pieces in the order I, O, T, Z, S, J, L), the others by quarter turns
/// counterclockwise. Candidates are tried orientation by orientation, columns ascending, and
/// the first best wins: with this order ties go as in MdpTetris, so its players (BCTS,
/// Dellacherie on these rules) play its games move for move.
const MDPTETRIS_ORIENTATIONS: &[(Piece, &[&str])] = &[
    (Piece::I, &["X/X/X/X", "XXXX"]),
    (Piece::O, &["XX/XX"]),
    (Piece::T, &["X./XX/X.", ".X./XXX", ".X/XX/.X", "XXX/.X."]),
    (Piece::Z, &[".X/XX/X.", "XX./.XX"]),
    (Piece::S, &["X./XX/.X", ".XX/XX."]),
    (Piece::J, &["X../XXX", ".X/.X/XX", "XXX/..X", "XX/X./X."]),
    (Piece::L, &["XXX/X..", "X./X./XX", "..X/XXX", "XX/.X/.X"]),
];

/// The research rule set.
pub struct Simplified {
    width: usize,
    height: usize,
    /// MdpTetris' "allow lines after overflow": remove full rows before checking the top.
    lines_after_overflow: bool,
    table: OrientationTable,
}

impl Simplified {
    pub fn new(width: usize, height: usize, lines_after_overflow: bool) -> Simplified {
        Simplified {
            width,
            height,
            lines_after_overflow,
            table: OrientationTable::from_pictures(MDPTETRIS_ORIENTATIONS),
        }
    }
}

impl RuleSet for Simplified {
    fn name(&self) -> &'static str {
        if self.lines_after_overflow {
            "simplified-lines-after-overflow"
        } else {
            "simplified"
        }
    }
    fn version(&self) -> &'static str {
        if self.lines_after_overflow {
            "simplified-lines-after-overflow/2"
        } else {
            "simplified/2"
        }
    }
    fn describe(&self) -> String {
        format!(
            "simplified {}x{} (uniform pieces, drop from above, {})",
            self.width,
            self.height,
            if self.lines_after_overflow { "rows cleared before the overflow check" } else { "overflow ends the game" }
        )
    }
    fn new_board(&self) -> Board {
        Board::new(self.width, self.height)
    }
    fn randomizer(&self) -> RandomizerKind {
        RandomizerKind::Uniform
    }
    fn straight_drops(&self) -> Option<&OrientationTable> {
        (!self.lines_after_overflow).then_some(&self.table)
    }
    /// Game-ending placements are never offered: players never choose one while another
    /// exists, and when all end the game the game is over whichever is chosen.
    fn candidates(&self, board: &Board, piece: Piece, out: &mut Vec<Placement>) {
        if !self.lines_after_overflow {
            drop_candidates(&self.table, board, piece, false, out);
            return;
        }
        drop_candidates(&self.table, board, piece, true, out);
        let height = self.height;
        out.retain(|p| {
            if p.highest_row() < height {
                return true;
            }
            let mut b = *board;
            p.apply(&mut b);
            !b.has_cells_from(height)
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidate_counts_on_an_empty_board() {
        let rules = Simplified::new(10, 20, false);
        let board = rules.new_board();
        let mut out = Vec::new();
        let expect = [
            (Piece::I, 17),
            (Piece::O, 9),
            (Piece::T, 34),
            (Piece::S, 17),
            (Piece::Z, 17),
            (Piece::J, 34),
            (Piece::L, 34),
        ];
        for (piece, count) in expect {
            rules.candidates(&board, piece, &mut out);
            assert_eq!(out.len(), count, "{piece}");
        }
    }

    #[test]
    fn orientations_in_mdptetris_order_each_a_counter_clockwise_turn() {
        let rules = Simplified::new(10, 20, false);
        let counts =
            [(Piece::I, 2), (Piece::O, 1), (Piece::T, 4), (Piece::S, 2), (Piece::Z, 2), (Piece::J, 4), (Piece::L, 4)];
        for (piece, count) in counts {
            let shapes = rules.table.of(piece);
            assert_eq!(shapes.len(), count, "{piece}");
            for k in 1..shapes.len() {
                let turned = shapes[k - 1].0.rotated_clockwise(3);
                assert_eq!(turned.normalized(), shapes[k].0.normalized(), "{piece} orientation {k}");
            }
        }
        // pieces4.dat draws L as `XXX/X..` (rows from the box's bottom: X.., XXX).
        let l = rules.table.of(Piece::L)[0].1;
        assert_eq!((l.width, l.height, l.rows[0], l.rows[1]), (3, 2, 0b001, 0b111));
    }

    #[test]
    fn overflowing_placements_are_not_offered_even_if_they_clear() {
        // A vertical I in column 0 would complete three rows but its top cell sticks out.
        let board = Board::parse(".###\n.###\n.###\n####", None, 4).unwrap();
        let mut out = Vec::new();
        Simplified::new(4, 4, false).candidates(&board, Piece::I, &mut out);
        assert!(out.is_empty(), "{out:?}");
        Simplified::new(4, 4, true).candidates(&board, Piece::I, &mut out);
        // The variant clears first: the vertical I (three rows) and the flat I on top (its
        // own row, full) both leave nothing above the top.
        // Orientation 0 of I is vertical (MdpTetris' order), orientation 1 flat.
        let found: Vec<_> = out.iter().map(|p| (p.orientation, p.left, p.bottom)).collect();
        assert_eq!(found, [(0, 0, 1), (1, 0, 4)], "{out:?}");
    }
}
