//! The key-press policy of `pygame-lee` (seed 001). In play, the game loop runs a
//! [`crate::guideline::FrameGame`] (the frame-by-frame search of [`crate::guideline::ai`]
//! with this policy's evaluator); this policy answers `choose` on a bare board (`best`)
//! with the same search from the spawn at level 1.

use super::{Decision, GameView, Policy, Scratch};
use crate::eval::Evaluator;
use crate::guideline::ai::Planner;
use crate::rules::{guideline, RuleSet};

pub struct KeyPress {
    evaluator: Evaluator,
}

impl KeyPress {
    pub fn new(evaluator: Evaluator) -> KeyPress {
        KeyPress { evaluator }
    }
}

impl Policy for KeyPress {
    fn name(&self) -> &'static str {
        "key-press"
    }
    fn evaluator(&self) -> &Evaluator {
        &self.evaluator
    }
    /// The search of the real game on a level-1 position: two pieces when a preview piece
    /// is given, one otherwise; ties broken with seed 0. Frame-game rules only (presets
    /// pair this policy with no other).
    fn choose(&self, rules: &dyn RuleSet, view: &GameView, _scratch: &mut Scratch) -> Option<Decision> {
        let spawn_frame = rules.frame_rules().expect("the key-press policy plays frame-game rules only");
        let game = guideline::position(view.board, view.current, view.preview, spawn_frame);
        let plan = Planner::new(self.evaluator.clone(), 0).plan_with_lookahead(&game, !view.preview.is_empty());
        plan.placed.map(|placed| Decision {
            hold: false,
            placement: guideline::placement_of(&placed),
            value: self.evaluator.value_of_utility(plan.value),
        })
    }
}
