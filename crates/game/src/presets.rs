//! Named presets: each published system as rule set + evaluator (features and weights) +
//! move policy + tie-break, straight from `systems.md`.

use crate::eval::{Evaluator, Sense};
use crate::guideline::{FrameGame, SpawnFrame};
use crate::policy::{self, Policy, PolicyKind};
use crate::rules::{self, RuleSet};
use crate::sim::GameDriver;
use anyhow::{Context, Result};
use std::path::Path;

/// BCTS's published weights (Thiery-Scherrer), in the fast path's feature order.
const BCTS_WEIGHTS: [(&str, f64); 8] = [
    ("landing_height", -12.63),
    ("eroded_cells", 6.60),
    ("row_transitions", -9.22),
    ("column_transitions", -19.77),
    ("holes", -13.08),
    ("cumulative_wells", -10.49),
    ("hole_depth", -1.61),
    ("rows_with_holes", -24.04),
];

/// The same weights with MdpTetris' count of the hole depth in place of the specification's.
const BCTS_MDPTETRIS_WEIGHTS: [(&str, f64); 8] = {
    let mut weights = BCTS_WEIGHTS;
    weights[6].0 = "cells_above_holes";
    weights
};

/// DT-10 and DT-20 (Scherrer et al., JMLR 16, 2015, Table 2): the D-T features
/// (`features::dt::DT_NAMES`, MdpTetris' ids 1, 2, 3, 4, 5, -6, -1, -2, -14) weighted as the
/// best policies CBMPI learned on 10x10 and on 10x20; MdpTetris' sense (the highest weighted
/// sum wins).
const DT_10_WEIGHTS: [(&str, f64); 9] = [
    ("landing_height", -2.18),
    ("eroded_cells", 2.42),
    ("row_transitions", -2.17),
    ("column_transitions", -3.31),
    ("holes", 0.95),
    ("dt_wells", -2.22),
    ("cells_above_holes", -0.81),
    ("rows_with_holes", -9.65),
    ("pattern_diversity", 1.27),
];

const DT_20_WEIGHTS: [(&str, f64); 9] = [
    ("landing_height", -2.68),
    ("eroded_cells", 1.38),
    ("row_transitions", -2.41),
    ("column_transitions", -6.32),
    ("holes", 2.03),
    ("dt_wells", -2.71),
    ("cells_above_holes", -0.43),
    ("rows_with_holes", -9.48),
    ("pattern_diversity", 0.89),
];

/// BDU (Thiery-Scherrer): Bertsekas' features (10 column heights, 9 differences, wall
/// height, holes) with DU's (BCTS') others, MdpTetris' ids 8 x 10, 9 x 9, 7, 5, 1, 2, 3, 4,
/// 6, -1, -2, tuned by the noisy cross-entropy method: the weights of MdpTetris'
/// `data/features/record_bdu.dat`, in its order. Only for 10-wide boards.
const BDU_WEIGHTS: [(&str, f64); 28] = [
    ("column_height_0", -13.18725),
    ("column_height_1", -7.652075),
    ("column_height_2", 7.622007),
    ("column_height_3", -9.044294),
    ("column_height_4", -1.747279),
    ("column_height_5", -7.569865),
    ("column_height_6", -5.221819),
    ("column_height_7", -0.6874555),
    ("column_height_8", -6.4831),
    ("column_height_9", -16.01383),
    ("column_difference_0", 2.356909),
    ("column_difference_1", 2.143912),
    ("column_difference_2", -7.351929),
    ("column_difference_3", 1.558139),
    ("column_difference_4", 0.433698),
    ("column_difference_5", 3.655922),
    ("column_difference_6", -4.673708),
    ("column_difference_7", -1.997187),
    ("column_difference_8", 9.122675),
    ("max_height", 12.36382),
    ("holes", -40.64),
    ("landing_height", -43.27153),
    ("eroded_cells", -1.036039),
    ("row_transitions", -36.93346),
    ("column_transitions", -81.00232),
    ("cumulative_wells", -41.17906),
    ("cells_above_holes", -13.27585),
    ("rows_with_holes", -75.47524),
];

/// A published system. Its published figures are in [`crate::reproduce::PLAN`], next to
/// how each is measured (one place for each figure).
pub struct Preset {
    pub name: &'static str,
    pub summary: &'static str,
    pub rule_set: &'static str,
    pub weights: &'static [(&'static str, f64)],
    pub sense: Sense,
    pub policy: PolicyKind,
    /// See [`Evaluator::forbidden_from_row`].
    pub forbidden_from_row: Option<usize>,
}

const DELLACHERIE_WEIGHTS: &[(&str, f64)] = &[
    ("landing_height", -1.0),
    ("eroded_cells", 1.0),
    ("row_transitions", -1.0),
    ("column_transitions", -1.0),
    ("holes", -4.0),
    ("cumulative_wells", -1.0),
];

/// Lee's published vector on Mike's pygame features (the pygame Tetris described in the project's sources).
const PYGAME_LEE_WEIGHTS: &[(&str, f64)] = &[
    ("mike_aggregate_height", -0.510066),
    ("mike_lines", 0.760666),
    ("mike_holes", -0.35663),
    ("mike_bumpiness", -0.184483),
];

/// Every preset, in the order `tetris-lab list` shows them.
pub static REGISTRY: &[Preset] = &[
    Preset {
        name: "dellacherie",
        summary: "Dellacherie's 6 features as Fahey implemented them, on Fahey's standard rules",
        rule_set: "standard",
        weights: DELLACHERIE_WEIGHTS,
        sense: Sense::Maximize,
        policy: PolicyKind::OnePieceFaheyPriority,
        forbidden_from_row: None,
    },
    Preset {
        name: "dellacherie-simplified",
        summary: "Dellacherie's 6 features on the research rules (any WxH with --board)",
        rule_set: "simplified",
        weights: DELLACHERIE_WEIGHTS,
        sense: Sense::Maximize,
        policy: PolicyKind::OnePieceFirstBest,
        forbidden_from_row: None,
    },
    Preset {
        name: "el-tetris",
        summary: "El-Tetris (Islam El-Ashi): 6 features tuned by PSO, on its own game",
        rule_set: "eltetris",
        weights: &[
            ("landing_height_0", -4.500158825082766),
            ("rows_cleared", 3.4181268101392694),
            ("row_transitions", -3.2178882868487753),
            ("column_transitions_nosky", -9.348695305445199),
            ("holes", -7.899265427351652),
            ("cumulative_wells", -3.3855972247263626),
        ],
        sense: Sense::Maximize,
        policy: PolicyKind::OnePieceFirstBest,
        forbidden_from_row: None,
    },
    Preset {
        name: "bcts",
        summary: "BCTS (Thiery-Scherrer): Dellacherie + hole depth + rows with holes, tuned by cross-entropy",
        rule_set: "simplified",
        weights: &BCTS_WEIGHTS,
        sense: Sense::Maximize,
        policy: PolicyKind::OnePieceFirstBest,
        forbidden_from_row: None,
    },
    Preset {
        name: "bcts-mdptetris",
        summary: "BCTS as MdpTetris plays it: its hole depth (cells above holes, each once), move for move with its program",
        rule_set: "simplified",
        weights: &BCTS_MDPTETRIS_WEIGHTS,
        sense: Sense::Maximize,
        policy: PolicyKind::OnePieceFirstBest,
        forbidden_from_row: None,
    },
    Preset {
        name: "dt-10",
        summary: "DT-10 (Scherrer et al., JMLR 2015): CBMPI's best policy on 10x10, the 9 D-T features",
        rule_set: "simplified",
        weights: &DT_10_WEIGHTS,
        sense: Sense::Maximize,
        policy: PolicyKind::OnePieceFirstBest,
        forbidden_from_row: None,
    },
    Preset {
        name: "dt-20",
        summary: "DT-20 (Scherrer et al., JMLR 2015): CBMPI's best policy on 10x20, the 9 D-T features",
        rule_set: "simplified",
        weights: &DT_20_WEIGHTS,
        sense: Sense::Maximize,
        policy: PolicyKind::OnePieceFirstBest,
        forbidden_from_row: None,
    },
    Preset {
        name: "bdu",
        summary: "BDU (Thiery-Scherrer): Bertsekas' 21 board features + BCTS' (MdpTetris' counts), by cross-entropy; 10 wide",
        rule_set: "simplified",
        weights: &BDU_WEIGHTS,
        sense: Sense::Maximize,
        policy: PolicyKind::OnePieceFirstBest,
        forbidden_from_row: None,
    },
    Preset {
        name: "lee",
        summary: "Yiyuan Lee's GA-tuned AI: 4 features, current + preview piece, rows kept while searching",
        rule_set: "lee",
        weights: &[
            ("aggregate_height", -0.510066),
            ("complete_lines", 0.760666),
            ("holes", -0.35663),
            ("bumpiness", -0.184483),
        ],
        sense: Sense::Maximize,
        policy: PolicyKind::TwoPieceNoClear,
        forbidden_from_row: None,
    },
    Preset {
        name: "erikko",
        summary: "the 7-term Java bot (EriKKo, 2016): penalty over 80 hold x column x rotation moves, two shortcuts",
        rule_set: "erikko",
        weights: &[
            ("height_difference", 5.2652791317118375),
            ("covered", 19.65102385016857),
            ("covered_rightmost", 50.0),
            ("height_rightmost", 5.0),
            ("consecutive_changes", 1.7050572208699066),
            ("small_pits", 5.604402435574228),
            ("big_pits", 22.46371775813374),
        ],
        sense: Sense::Minimize,
        policy: PolicyKind::HoldAware,
        forbidden_from_row: Some(20),
    },
    Preset {
        name: "pygame-lee",
        summary: "Mike's pygame Tetris (2020): Lee's weights on its features, 44 key-press moves on the frame-accurate game, current + next",
        rule_set: "guideline",
        weights: PYGAME_LEE_WEIGHTS,
        sense: Sense::Maximize,
        policy: PolicyKind::KeyPress,
        forbidden_from_row: None,
    },
    Preset {
        name: "pygame-lee-gravity-first",
        summary: "pygame-lee on guideline-gravity-first: keys ignored on the spawn frame (to study the top-out level)",
        rule_set: "guideline-gravity-first",
        weights: PYGAME_LEE_WEIGHTS,
        sense: Sense::Maximize,
        policy: PolicyKind::KeyPress,
        forbidden_from_row: None,
    },
];

impl Preset {
    /// The preset's evaluator with its published weights.
    pub fn evaluator(&self) -> Result<Evaluator> {
        Evaluator::from_names(self.weights, self.sense, self.forbidden_from_row)
    }

    /// Builds the rule set and the policy; `size` overrides the board where the rule set
    /// allows it, `weights_file` replaces the published weights.
    pub fn build(&self, size: Option<(usize, usize)>, weights_file: Option<&Path>) -> Result<Built> {
        self.build_with_rules(None, size, weights_file)
    }

    /// As [`Preset::build`], with the preset's evaluator and policy under another rule set.
    pub fn build_with_rules(
        &self,
        rule_set: Option<&str>,
        size: Option<(usize, usize)>,
        weights_file: Option<&Path>,
    ) -> Result<Built> {
        let mut evaluator = self.evaluator()?;
        if let Some(path) = weights_file {
            evaluator = evaluator.load_weights_file(path, |named| self.check_weights_preset(named))?;
        }
        self.build_with_evaluator(rule_set, size, evaluator)
    }

    /// A weights file names the preset its weights were tuned for: a name no preset has is a
    /// typo, and a preset weighing other features wrote weights for another evaluator (saying
    /// so is clearer than the first feature this one lacks). A preset with the same features
    /// under another name is accepted: carrying weights between such presets is a study.
    pub fn check_weights_preset(&self, named: &str) -> Result<()> {
        if named == self.name {
            return Ok(());
        }
        let written_for = if named == ETETRIS {
            anyhow::bail!(
                "the weights are for the E-Tetris search (`tetris-lab etetris solve --weights`), not preset {}",
                self.name
            )
        } else {
            find(named)?
        };
        let (theirs, ours) = (written_for.evaluator()?.feature_names(), self.evaluator()?.feature_names());
        if theirs != ours {
            anyhow::bail!(
                "the weights are preset {named}'s ({}), not preset {}'s ({})",
                theirs.join(", "),
                self.name,
                ours.join(", ")
            );
        }
        Ok(())
    }

    /// As [`Preset::build_with_rules`], with the preset's features weighted as `evaluator`
    /// says (weights read from elsewhere than a file, e.g. a game trace).
    pub fn build_with_evaluator(
        &self,
        rule_set: Option<&str>,
        size: Option<(usize, usize)>,
        evaluator: Evaluator,
    ) -> Result<Built> {
        let rules =
            rules::build(rule_set.unwrap_or(self.rule_set), size).with_context(|| format!("preset {}", self.name))?;
        let frame =
            frame_game(rules.as_ref(), self.policy, &evaluator).with_context(|| format!("preset {}", self.name))?;
        Ok(Built { rules, policy: policy::build(self.policy, evaluator), frame })
    }
}

/// The frame game a policy and a rule set make, if they make one: the key-press policy plays
/// exactly the rule sets whose games go frame by frame, and every other policy plays the
/// placement games. Any other pairing is refused before the first game.
pub fn frame_game(rules: &dyn RuleSet, policy: PolicyKind, evaluator: &Evaluator) -> Result<Option<FrameGame>> {
    match (rules.frame_rules(), policy == PolicyKind::KeyPress) {
        (Some(spawn_frame), true) => Ok(Some(FrameGame { spawn_frame, evaluator: evaluator.clone() })),
        (None, false) => Ok(None),
        (Some(_), false) => anyhow::bail!(
            "rule set {} is played key press by key press: use preset pygame-lee or pygame-lee-gravity-first",
            rules.name()
        ),
        (None, true) => anyhow::bail!(
            "the key-press policy plays only the guideline rule sets ({}, {}), not {}",
            SpawnFrame::KeysAct.rule_set(),
            SpawnFrame::GravityOnly.rule_set(),
            rules.name()
        ),
    }
}

/// A preset ready to play: its rule set and policy (what commands that look at one board
/// use) and, when its games go frame by frame, the frame game the game loop plays instead.
pub struct Built {
    pub rules: Box<dyn RuleSet>,
    pub policy: Box<dyn Policy>,
    pub frame: Option<FrameGame>,
}

impl Built {
    /// What the game loop plays.
    pub fn driver(&self) -> GameDriver<'_> {
        match &self.frame {
            Some(frame) => GameDriver::Frame(frame),
            None => GameDriver::Placement { rules: self.rules.as_ref(), policy: self.policy.as_ref() },
        }
    }
}

/// The E-Tetris contest evaluator. Not a preset of the game loop (it is a beam search
/// over one known sequence, not a policy of [`REGISTRY`]'s kind): `tetris-lab etetris solve`
/// plays it, and an experiment with an `[etetris]` table tunes it (older files name it as
/// their `preset`).
pub const ETETRIS: &str = "etetris";

/// Looks a preset up by name, with a "did you mean" on a miss.
pub fn find(name: &str) -> Result<&'static Preset> {
    if name == ETETRIS {
        anyhow::bail!(
            "preset \"{ETETRIS}\" is the E-Tetris contest's beam search, not a game of this command: \
             run it with `tetris-lab etetris solve` (or tune it with an `[{ETETRIS}]` table in an experiment file)"
        );
    }
    REGISTRY
        .iter()
        .find(|p| p.name == name)
        .ok_or_else(|| crate::names::unknown("preset", name, REGISTRY.iter().map(|p| p.name)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_weights_file_may_name_a_preset_with_the_same_features() {
        let simplified = find("dellacherie-simplified").unwrap();
        assert!(simplified.check_weights_preset("dellacherie-simplified").is_ok());
        assert!(simplified.check_weights_preset("dellacherie").is_ok());
        let e = format!("{:#}", simplified.check_weights_preset("bcts").unwrap_err());
        assert!(e.contains("preset bcts's") && e.contains("hole_depth"), "{e}");
        let e = format!("{:#}", simplified.check_weights_preset("dellacherie-simplifed").unwrap_err());
        assert!(e.contains("did you mean \"dellacherie-simplified\""), "{e}");
    }

    #[test]
    fn every_preset_names_known_features() {
        for p in REGISTRY {
            p.evaluator().unwrap_or_else(|e| panic!("{}: {e}", p.name));
        }
    }

    #[test]
    fn unknown_preset_suggests() {
        let e = find("el-tetriss").err().unwrap().to_string();
        assert!(e.contains("did you mean \"el-tetris\""), "{e}");
        // Not "did you mean el-tetris": the contest has its own commands.
        let e = find(ETETRIS).err().unwrap().to_string();
        assert!(e.contains("tetris-lab etetris solve") && !e.contains("did you mean"), "{e}");
    }
}
