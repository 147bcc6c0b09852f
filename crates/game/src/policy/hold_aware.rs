//! The hold-aware one-ply search of the 7-term Java bot (EriKKo/tetris-ai, `TetrisSolver`):
//! every move (hold no, then yes; origin column; rotation) is dropped and the board it
//! leaves is rated; the first lowest penalty in that loop order wins, and a board rated
//! +infinity (a cell in the hidden rows) is never chosen. When no move is left the game
//! ends. Two shortcuts come before the search, exactly as in the original:
//! 1. while the hold slot is empty: hold, and drop the next piece at origin column 4,
//!    rotation 0, unrated;
//! 2. an I piece when every other column stands at least 4 above the rightmost: no hold,
//!    vertical (rotation 1) at origin column W-2, which fills the rightmost column.
//!
//! When a shortcut's move does not fit (never in the original's own games) the search runs.
//!
//! The search reports the moves it tried in [`Scratch::tried_moves`] (all of them, valid or
//! not, as the original tries each on a copy of the game; see
//! [`crate::rules::RuleSet::draws_per_tried_move`]); the shortcuts try none.

use super::{Decision, GameView, Policy, Scratch};
use crate::board::Board;
use crate::eval::Evaluator;
use crate::features::columns::ColumnSummary;
use crate::features::FeatureContext;
use crate::piece::Piece;
use crate::placement::Placement;
use crate::rules::RuleSet;

/// Shortcut 1's move: origin column 4, rotation 0.
const FIRST_HOLD_COLUMN: i8 = 4;
/// Shortcut 2 fires when every other column stands at least this much above the rightmost.
const WELL_DEPTH: usize = 4;
/// Rotations the original tries at every column.
const ROTATIONS: usize = 4;

pub struct HoldAware {
    evaluator: Evaluator,
}

impl HoldAware {
    pub fn new(evaluator: Evaluator) -> HoldAware {
        HoldAware { evaluator }
    }

    /// The value of the board the rule set shows a player after `placement` (for the
    /// rule sets this policy plays, the placement written and full rows removed).
    #[inline]
    fn utility(&self, rules: &dyn RuleSet, board: &Board, placement: &Placement) -> f64 {
        let mut after = *board;
        let info = rules.apply(&mut after, placement);
        self.evaluator.utility(&FeatureContext::new(&after, info))
    }

    /// A shortcut's fixed move, rated only for the report; `None` when the move does not
    /// fit. The original would crash there; in its own games it never happens (the first
    /// hold is on an empty board, and a well 4 deep leaves room for the vertical I), so the
    /// search runs instead, for boards given to `best` and other rule sets.
    fn fixed_move(
        &self,
        rules: &dyn RuleSet,
        board: &Board,
        (hold, piece): (bool, Piece),
        (column, rotation): (i8, u8),
        scratch: &mut Scratch,
    ) -> Option<Decision> {
        let candidates = &mut scratch.depth[0];
        rules.candidates(board, piece, candidates);
        let placement = *candidates.iter().find(|p| p.column == column && p.orientation == rotation)?;
        Some(Decision {
            hold,
            placement,
            value: self.evaluator.value_of_utility(self.utility(rules, board, &placement)),
        })
    }
}

/// Whether every column but the rightmost stands at least [`WELL_DEPTH`] above it.
fn rightmost_well_is_deep(board: &Board) -> bool {
    let heights = &board.heights()[..board.width()];
    let (rightmost, others) = heights.split_last().expect("boards have columns");
    others.iter().all(|&h| h as usize >= *rightmost as usize + WELL_DEPTH)
}

impl Policy for HoldAware {
    fn name(&self) -> &'static str {
        "hold-aware"
    }
    fn evaluator(&self) -> &Evaluator {
        &self.evaluator
    }
    fn choose(&self, rules: &dyn RuleSet, view: &GameView, scratch: &mut Scratch) -> Option<Decision> {
        let board = view.board;
        if view.can_hold && view.hold.is_none() {
            if let Some(&next) = view.preview.first() {
                if let Some(d) = self.fixed_move(rules, board, (true, next), (FIRST_HOLD_COLUMN, 0), scratch) {
                    return Some(d);
                }
            }
        }
        if view.current == Piece::I && rightmost_well_is_deep(board) {
            let column = board.width() as i8 - 2;
            if let Some(d) = self.fixed_move(rules, board, (false, Piece::I), (column, 1), scratch) {
                return Some(d);
            }
        }

        let hold_options = if view.can_hold { 2 } else { 1 };
        scratch.tried_moves += (hold_options * board.width() * ROTATIONS) as u32;
        // Holding the piece that is current gives the same moves again, later in the
        // loop, so they can never win.
        let held = view.hold.filter(|&h| view.can_hold && h != view.current);
        let mut best: Option<(f64, bool, Placement)> = None;
        // The column engine scores the moves that rest on the column tops and clear no row
        // from one summary of the board (the 7-term penalty); the others take the full path.
        let summary = self.evaluator.has_column_path().then(|| ColumnSummary::new(board));
        for (hold, piece) in [(false, Some(view.current)), (true, held)] {
            let Some(piece) = piece else { continue };
            let candidates = &mut scratch.depth[0];
            rules.candidates(board, piece, candidates);
            for placement in candidates.iter() {
                // A placement that clears rows is declined by the column engine and rated
                // on the board the rule set shows (`RuleSet::apply`); the others are the
                // same board under every rule set.
                let fast = summary
                    .as_ref()
                    .and_then(|summary| summary.after_for(self.evaluator.column_set(), board, placement, false));
                let utility = match fast {
                    Some(after) => self.evaluator.column_utility(&after),
                    None => self.utility(rules, board, placement),
                };
                // Strictly better only: the first best stays, and a board rated worst
                // possible (+infinity penalty) never gets in.
                let better = match &best {
                    None => utility > f64::NEG_INFINITY,
                    Some((best_utility, _, _)) => utility > *best_utility,
                };
                if better {
                    best = Some((utility, hold, *placement));
                }
            }
        }
        best.map(|(utility, hold, placement)| Decision {
            hold,
            placement,
            value: self.evaluator.value_of_utility(utility),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::test_boards::golden;
    use crate::presets;

    fn setup() -> (Box<dyn RuleSet>, Box<dyn Policy>) {
        let built = presets::find("erikko").unwrap().build(None, None).unwrap();
        (built.rules, built.policy)
    }

    fn choose(board: &Board, current: Piece, preview: &[Piece], hold: Option<Piece>) -> (Option<Decision>, u32) {
        let (rules, policy) = setup();
        let view = GameView { board, current, preview, hold, can_hold: true };
        let mut scratch = Scratch::default();
        let decision = policy.choose(rules.as_ref(), &view, &mut scratch);
        (decision, scratch.tried_moves)
    }

    #[test]
    fn empty_hold_stores_the_piece_and_drops_the_next_at_column_4() {
        let board = Board::new(10, 22);
        let (decision, tried) = choose(&board, Piece::J, &[Piece::T, Piece::I], None);
        let d = decision.unwrap();
        assert!(d.hold);
        assert_eq!((d.placement.piece, d.placement.column, d.placement.orientation), (Piece::T, 4, 0));
        assert_eq!(tried, 0, "the shortcut tries no move");
    }

    #[test]
    fn deep_rightmost_well_takes_the_vertical_i() {
        let mut board = Board::new(10, 22);
        for x in 0..9 {
            for y in 0..4 {
                board.set(x, y);
            }
        }
        let (decision, tried) = choose(&board, Piece::I, &[Piece::O], Some(Piece::T));
        let d = decision.unwrap();
        assert!(!d.hold);
        assert_eq!((d.placement.column, d.placement.orientation), (8, 1));
        assert_eq!(tried, 0);
        // One short of the depth: the search runs (and also fills the well, clearing 4 rows).
        board.clear_cell(0, 3);
        let (decision, tried) = choose(&board, Piece::I, &[Piece::O], Some(Piece::T));
        assert_eq!(tried, 80);
        assert!(decision.is_some());
    }

    #[test]
    fn a_shortcut_that_does_not_fit_falls_back_to_the_search() {
        // Column 4 full up to row 19: the first hold's move (origin 4, rotation 0) cannot fit.
        let mut board = Board::new(10, 22);
        for y in 0..20 {
            board.set(4, y);
        }
        let (decision, tried) = choose(&board, Piece::J, &[Piece::T], None);
        let d = decision.unwrap();
        assert!(!d.hold, "with an empty hold the search has only the current piece");
        assert_eq!(d.placement.piece, Piece::J);
        assert_eq!(tried, 80);
        // Without a preview the first shortcut has no piece to place: search too.
        let (decision, _) = choose(&Board::new(10, 22), Piece::J, &[], None);
        assert_eq!(decision.unwrap().placement.piece, Piece::J);
    }

    #[test]
    fn search_takes_the_first_lowest_penalty() {
        let (rules, policy) = setup();
        for board in golden(22) {
            let (decision, tried) = choose(&board, Piece::T, &[Piece::O], Some(Piece::S));
            assert_eq!(tried, 80);
            let d = decision.unwrap();
            // Brute force over both pieces in loop order with a strict comparison.
            let mut best = (f64::INFINITY, false, 0i8, 0u8);
            let mut list = Vec::new();
            for (hold, piece) in [(false, Piece::T), (true, Piece::S)] {
                rules.candidates(&board, piece, &mut list);
                for p in &list {
                    let mut after = board;
                    p.apply(&mut after);
                    let penalty = policy.evaluator().value(&FeatureContext::board(&after));
                    if penalty < best.0 {
                        best = (penalty, hold, p.column, p.orientation);
                    }
                }
            }
            assert_eq!((d.value, d.hold, d.placement.column, d.placement.orientation), best);
        }
    }

    #[test]
    fn no_move_left_ends_the_game() {
        // Every column filled to row 19 but full rows avoided: nothing fits at row 19.
        let mut board = Board::new(10, 22);
        for y in 0..20 {
            for x in 0..10 {
                if x != y % 10 {
                    board.set(x, y);
                }
            }
        }
        board.set(0, 19);
        board.set(9, 19);
        let (decision, _) = choose(&board, Piece::O, &[Piece::T], Some(Piece::O));
        assert!(decision.is_none());
    }
}
