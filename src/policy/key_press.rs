//! The key-press policy of `pygame-lee` (seed 001). In play, the guideline rule set runs
//! the frame-by-frame search of [`crate::guideline::ai`] with this policy's evaluator; this
//! type carries that evaluator through presets and weight files, and answers `choose` on a
//! bare board (`best`) with the same search from the spawn at level 1.

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
    /// is given, one otherwise; ties broken with seed 0. Guideline rules only.
    fn choose(&self, rules: &dyn RuleSet, view: &GameView, _scratch: &mut Scratch) -> Option<Decision> {
        assert!(rules.name().starts_with("guideline"), "the key-press policy plays the guideline game only");
        let spawn_frame = guideline::spawn_frame_of(rules.name());
        let game = guideline::position(view.board, view.current, view.preview, spawn_frame);
        let plan = Planner::new(self.evaluator.clone(), 0).plan_with_lookahead(&game, !view.preview.is_empty());
        plan.placed.map(|placed| Decision {
            hold: false,
            placement: guideline::placement_of(&placed),
            value: self.evaluator.value_of_utility(plan.value),
        })
    }
}
