//! Yiyuan Lee's two-piece search (`ai.js` of `LeeYiyuan/tetrisai`): every placement of the
//! current piece, then every placement of the preview piece on that board **with the first
//! piece's full rows still there**; a first placement is worth its best second placement
//! (a pure max), and the first best in loop order wins. The game itself removes rows after
//! the chosen placement.
//!
//! When the preview piece has no placement at all on a first placement's board, his search
//! gives that first placement the score `null`, and his comparison
//! `score > bestScore || bestScore == null` then treats it as JavaScript does: `null`
//! compared with a number reads as 0, so it beats any negative best (every leaf score is
//! negative: a full row adds 10 to the aggregate height, costing 5.1 for 0.76 gained), and
//! once it is the best, the next placement replaces it whatever that one scores.
//! [`replaces`] reproduces this; such boards arise only a few moves from the end.

use super::{Decision, GameView, Policy, Scratch};
use crate::eval::Evaluator;
use crate::features::columns::ColumnSummary;
use crate::features::FeatureContext;
use crate::placement::{Placement, PlacementInfo};
use crate::rules::RuleSet;

pub struct TwoPieceNoClear {
    evaluator: Evaluator,
}

impl TwoPieceNoClear {
    pub fn new(evaluator: Evaluator) -> TwoPieceNoClear {
        TwoPieceNoClear { evaluator }
    }
}

impl Policy for TwoPieceNoClear {
    fn name(&self) -> &'static str {
        "two-piece-no-clear"
    }
    fn evaluator(&self) -> &Evaluator {
        &self.evaluator
    }
    fn choose(&self, rules: &dyn RuleSet, view: &GameView, scratch: &mut Scratch) -> Option<Decision> {
        let mut first = std::mem::take(&mut scratch.depth[0]);
        let mut second = std::mem::take(&mut scratch.depth[1]);
        rules.candidates(view.board, view.current, &mut first);
        // The best so far: its score (`None` = his `null`) and placement.
        let mut best: Option<(Option<f64>, Placement)> = None;
        for p1 in &first {
            let mut board1 = *view.board;
            p1.write(&mut board1);
            let score = match view.preview.first() {
                None => Some(self.evaluator.utility(&FeatureContext::new(&board1, info_of(p1)))),
                Some(&next) => {
                    rules.candidates(&board1, next, &mut second);
                    // The column engine scores a leaf from the first board's summary when it
                    // covers the evaluator (Lee's four features): rows kept, as he keeps them.
                    let summary = self.evaluator.has_column_path().then(|| ColumnSummary::new(&board1));
                    let mut leaf_best: Option<f64> = None;
                    for p2 in &second {
                        let fast = summary
                            .as_ref()
                            .and_then(|summary| summary.after_for(self.evaluator.column_set(), &board1, p2, true));
                        let s = match fast {
                            Some(after) => self.evaluator.column_utility(&after),
                            None => {
                                let mut board2 = board1;
                                p2.write(&mut board2);
                                self.evaluator.utility(&FeatureContext::new(&board2, info_of(p2)))
                            }
                        };
                        if leaf_best.is_none_or(|b| s > b) {
                            leaf_best = Some(s);
                        }
                    }
                    leaf_best
                }
            };
            if replaces(best.map(|(b, _)| b), score) {
                best = Some((score, *p1));
            }
        }
        scratch.depth[0] = first;
        scratch.depth[1] = second;
        best.map(|(score, placement)| Decision {
            hold: false,
            placement,
            // A choice made with no second placement behind it has no leaf value.
            value: self.evaluator.value_of_utility(score.unwrap_or(f64::NEG_INFINITY)),
        })
    }
}

/// His replacement rule `score > bestScore || bestScore == null` with JavaScript's `null`
/// (`None`): `best` is `None` before the first placement, `Some(None)` when the best so far
/// scored `null`. A `null` score compares as 0 against a number.
#[inline]
pub fn replaces(best: Option<Option<f64>>, score: Option<f64>) -> bool {
    match best {
        None | Some(None) => true,
        Some(Some(b)) => score.unwrap_or(0.0) > b,
    }
}

/// Placement data without clearing (Lee never removes rows while searching).
fn info_of(p: &Placement) -> PlacementInfo {
    PlacementInfo {
        placed: true,
        lowest_row: p.bottom,
        highest_row: p.highest_row() as u8,
        rows_cleared: 0,
        piece_cells_cleared: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn javascript_null_in_the_comparison() {
        // Numbers: strict >, so the first of equal scores stays.
        assert!(replaces(None, Some(-3.0)));
        assert!(replaces(Some(Some(-3.0)), Some(-2.0)));
        assert!(!replaces(Some(Some(-3.0)), Some(-3.0)));
        // `null > -3` is `0 > -3`: a placement leaving no second placement beats a negative
        // best, but not a positive one.
        assert!(replaces(Some(Some(-3.0)), None));
        assert!(!replaces(Some(Some(0.5)), None));
        // Once `null` is the best, anything replaces it, even a worse number.
        assert!(replaces(Some(None), Some(-100.0)));
        assert!(replaces(Some(None), None));
    }
}
