//! Yiyuan Lee's two-piece search: every placement of the current piece, then every
//! placement of the preview piece on that board **with the first piece's full rows still
//! there**; a first placement is worth its best second placement, and the first best in
//! loop order wins. The game itself removes rows after the chosen placement.

use super::{Decision, GameView, Policy, Scratch};
use crate::eval::Evaluator;
use crate::features::FeatureContext;
use crate::rules::{Placement, PlacementInfo, RuleSet};

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
        let mut best: Option<(f64, Placement)> = None;
        for p1 in &first {
            let mut board1 = *view.board;
            p1.write(&mut board1);
            let score = match view.preview.first() {
                None => self.evaluator.utility(&FeatureContext::new(&board1, info_of(p1))),
                Some(&next) => {
                    rules.candidates(&board1, next, &mut second);
                    let mut leaf_best = f64::NEG_INFINITY;
                    for p2 in &second {
                        let mut board2 = board1;
                        p2.write(&mut board2);
                        let s = self.evaluator.utility(&FeatureContext::new(&board2, info_of(p2)));
                        if s > leaf_best {
                            leaf_best = s;
                        }
                    }
                    leaf_best
                }
            };
            if best.is_none_or(|(b, _)| score > b) {
                best = Some((score, *p1));
            }
        }
        scratch.depth[0] = first;
        scratch.depth[1] = second;
        best.map(|(score, placement)| Decision {
            hold: false,
            placement,
            value: self.evaluator.value_of_utility(score),
        })
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
