//! One-piece placement: every placement of the current piece is evaluated on the board it
//! leaves (rows removed), and the best wins under the preset's tie-break.

use super::{Decision, GameView, Policy, Scratch};
use crate::eval::Evaluator;
use crate::features::incremental::ParentSummary;
use crate::features::FeatureContext;
use crate::rules::{Placement, RuleSet};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TieBreak {
    /// The first best in the rule set's loop order stays (strict `>`).
    FirstBest,
    /// Fahey: on equal rating the higher priority
    /// `100 |dx| + (10 if dx < 0) - (orientation - 1)` replaces the best (orientation from 1);
    /// on equal priority the first stays.
    FaheyPriority,
}

pub struct OnePiece {
    evaluator: Evaluator,
    tie_break: TieBreak,
}

impl OnePiece {
    pub fn new(evaluator: Evaluator, tie_break: TieBreak) -> OnePiece {
        OnePiece { evaluator, tie_break }
    }
}

/// Fahey's move priority (see [`TieBreak::FaheyPriority`]).
#[inline]
pub fn fahey_priority(p: &Placement) -> i32 {
    let dx = p.shift as i32;
    100 * dx.abs() + if dx < 0 { 10 } else { 0 } - p.orientation as i32
}

impl Policy for OnePiece {
    fn name(&self) -> &'static str {
        match self.tie_break {
            TieBreak::FirstBest => "one-piece",
            TieBreak::FaheyPriority => "one-piece-fahey",
        }
    }
    fn evaluator(&self) -> &Evaluator {
        &self.evaluator
    }
    fn choose(&self, rules: &dyn RuleSet, view: &GameView, scratch: &mut Scratch) -> Option<Decision> {
        let candidates = &mut scratch.depth[0];
        rules.candidates(view.board, view.current, candidates);
        let mut best: Option<(f64, i32, Placement)> = None;
        let summary = self.evaluator.has_fast_path().then(|| ParentSummary::new(view.board));
        for p in candidates.iter() {
            let rating = match &summary {
                Some(s) if s.covers(view.board, p) => self.evaluator.fast_utility(&s.features_after(view.board, p)),
                _ => {
                    let mut board = *view.board;
                    let info = rules.apply(&mut board, p);
                    self.evaluator.utility(&FeatureContext::new(&board, info))
                }
            };
            let replace = match (&best, self.tie_break) {
                (None, _) => true,
                (Some((b, _, _)), TieBreak::FirstBest) => rating > *b,
                (Some((b, prio, _)), TieBreak::FaheyPriority) => {
                    rating > *b || (rating == *b && fahey_priority(p) > *prio)
                }
            };
            if replace {
                best = Some((rating, fahey_priority(p), *p));
            }
        }
        best.map(|(rating, _, placement)| Decision {
            hold: false,
            placement,
            value: self.evaluator.value_of_utility(rating),
        })
    }
}
