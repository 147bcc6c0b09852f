//! What a campaign tunes: a preset played by the game loop, or the E-Tetris contest
//! evaluator scored by its beam search (`preset = "etetris"`). Everything the driver says
//! or writes about the target comes from here (the objective, the rule set and board of
//! the manifest, how a candidate and the held-out best are measured, `best.toml` and the
//! command that uses it), so the driver has no per-target code.

use super::etetris_objective::{self, ETetrisObjective};
use super::objective::{Fitness, GameObjective, Objective};
use crate::etetris::game::{HEIGHT, PIECE_LIMIT, WIDTH};
use crate::etetris::solver::MoveSet;
use crate::etetris::weights::Weights;
use crate::presets::{self, Preset};
use crate::sim::GameLimits;
use anyhow::Result;

pub use crate::etetris::game::RULES_VERSION as ETETRIS_RULES_VERSION;

/// What a campaign tunes.
#[derive(Clone)]
pub enum Target {
    /// A preset of the game loop, on its rule set (resized to `size` where given).
    Game { preset: &'static Preset, size: Option<(usize, usize)> },
    /// The E-Tetris evaluator's weights, scored by the beam search over the first
    /// `pieces` of the contest's sequence.
    ETetris { settings: etetris_objective::Settings, pieces: usize },
}

/// How a run's header, manifest and `best.toml` describe what was played.
#[derive(Clone, Debug, PartialEq)]
pub struct About {
    pub rule_set: String,
    pub rule_set_version: String,
    /// One line: the rule set and board.
    pub board: String,
    pub policy: String,
}

impl Target {
    /// Whether a game ends by chance, the same at every piece (not a frame game, whose speed
    /// rises): what the interval of a mean of game lengths rests on.
    pub fn memoryless(&self) -> bool {
        match self {
            Target::Game { preset, size } => {
                crate::rules::build(preset.rule_set, *size).map_or(true, |rules| rules.frame_rules().is_none())
            }
            Target::ETetris { .. } => true,
        }
    }
    /// The experiment's `preset`.
    pub fn name(&self) -> &'static str {
        match self {
            Target::Game { preset, .. } => preset.name,
            Target::ETetris { .. } => presets::ETETRIS,
        }
    }

    /// The weight names (the keys of `[weights]` and `[fixed]`) and the published weights.
    pub fn published(&self) -> Result<(Vec<&'static str>, Vec<f64>)> {
        Ok(match self {
            Target::Game { preset, .. } => {
                let evaluator = preset.evaluator()?;
                (evaluator.feature_names(), evaluator.weights())
            }
            Target::ETetris { .. } => {
                (etetris_objective::weight_names(), etetris_objective::vector(&Weights::default()))
            }
        })
    }

    /// What plays the jobs of a round.
    pub fn objective(&self, fitness: Fitness, max_pieces: Option<u64>) -> Result<Box<dyn Objective>> {
        Ok(match self {
            Target::Game { preset, size } => {
                let rules = crate::rules::build(preset.rule_set, *size)?;
                let evaluator = preset.evaluator()?;
                let frame = presets::frame_game(rules.as_ref(), preset.policy, &evaluator)?;
                Box::new(GameObjective {
                    rules,
                    evaluator,
                    policy: preset.policy,
                    frame,
                    limits: GameLimits { max_pieces },
                    fitness,
                })
            }
            Target::ETetris { settings, pieces } => Box::new(ETetrisObjective::new(settings.clone(), *pieces)),
        })
    }

    pub fn about(&self) -> Result<About> {
        Ok(match self {
            Target::Game { preset, size } => {
                let rules = crate::rules::build(preset.rule_set, *size)?;
                About {
                    rule_set: rules.name().into(),
                    rule_set_version: rules.version().into(),
                    board: rules.describe(),
                    policy: crate::policy::kind_name(preset.policy).into(),
                }
            }
            Target::ETetris { settings, pieces } => About {
                rule_set: "etetris".into(),
                rule_set_version: ETETRIS_RULES_VERSION.into(),
                board: format!(
                    "etetris {WIDTH}x{HEIGHT} (the contest's fixed sequence, {pieces} pieces, from the empty grid)"
                ),
                policy: format!(
                    "beam search, {} moves, {} kept boards ({} in the held-out scoring){}",
                    settings.moves.name(),
                    settings.beam,
                    settings.held_out_beam,
                    match refinement_flags(&settings.refinements) {
                        flags if flags.is_empty() => flags,
                        flags => format!(",{flags}"),
                    }
                ),
            },
        })
    }

    /// How one candidate is measured, after "fitness <name>" in the run's header.
    pub fn measured_on(&self, games: u64, max_pieces: Option<u64>) -> String {
        match self {
            Target::Game { .. } => format!(
                "over {games} games{}",
                max_pieces.map(|m| format!(" of at most {m} pieces")).unwrap_or_default()
            ),
            Target::ETetris { settings, .. } if settings.is_jittered() => format!(
                "over {games} beam searches keeping {} boards (their mean), weights jittered by up to {} % (a seed each)",
                settings.beam, settings.jitter_percent
            ),
            Target::ETetris { settings, .. } => format!("of one beam search keeping {} boards", settings.beam),
        }
    }

    /// How the best and the published weights are measured at the end.
    pub fn held_out_on(&self, games: u64) -> String {
        match self {
            Target::Game { .. } => format!("{games} unseen games"),
            Target::ETetris { settings, .. } => format!("beam {}", settings.held_out_beam),
        }
    }

    /// The direction a weight vector gives its evaluator (what cosine similarities
    /// compare): the weights themselves, or for E-Tetris the beam key's coefficients.
    pub fn direction(&self, weights: &[f64]) -> Vec<f64> {
        match self {
            Target::Game { .. } => weights.to_vec(),
            Target::ETetris { .. } => etetris_objective::coefficients(weights),
        }
    }

    /// The command that plays `best.toml`.
    pub fn play_command(&self) -> String {
        match self {
            Target::Game { preset, size } => format!(
                "tetris-lab play --preset {}{} --weights best.toml",
                preset.name,
                size.map(|(w, h)| format!(" --board {w}x{h}")).unwrap_or_default()
            ),
            Target::ETetris { settings, pieces } => {
                format!(
                    "tetris-lab etetris solve --beam {}{}{} --weights best.toml",
                    settings.held_out_beam,
                    if settings.moves == MoveSet::Seed {
                        String::new()
                    } else {
                        format!(" --moves {}", settings.moves.name())
                    },
                    if *pieces == PIECE_LIMIT { String::new() } else { format!(" --max-pieces {pieces}") }
                ) + &refinement_flags(&settings.refinements)
            }
        }
    }

    /// The data part of `best.toml` (after its comments), in the form the play command
    /// reads: a preset's `[weights]` table (`play --weights`), or the flat table of
    /// [`Weights::from_toml`] (`solve --weights`, which allows no other key, so the
    /// `note` is a comment there).
    pub fn best_toml(&self, names: &[&str], weights: &[f64], note: &str) -> String {
        if let Target::ETetris { .. } = self {
            // Written as `solve --weights` reads it: terms that are off (weight 0) are left
            // out, the overflow pair with them.
            if names == etetris_objective::weight_names().as_slice() {
                if let Some(tuned) = etetris_objective::weights(weights) {
                    return format!("# {note}\n{}", tuned.to_toml());
                }
            }
        }
        let mut text = match self {
            Target::Game { preset, .. } => format!("preset = {:?}\nfitness = {note:?}\n\n[weights]\n", preset.name),
            Target::ETetris { .. } => format!("# {note}\n"),
        };
        for (name, w) in names.iter().zip(weights) {
            // Rust's shortest round-trip form: the file reads back to the same f64.
            text.push_str(&format!("{name} = {w}\n"));
        }
        text
    }
}

/// The search's refinements as `etetris solve` flags, each after a space (" --lookahead 2
/// --endgame 25"), or nothing for the seed's search.
fn refinement_flags(refinements: &crate::etetris::solver::Refinements) -> String {
    refinements
        .named()
        .iter()
        .filter(|(_, value)| *value > 0)
        .map(|(field, value)| format!(" --{} {value}", field.replace('_', "-")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::etetris::solver::Refinements;

    fn etetris(pieces: usize) -> Target {
        Target::ETetris { settings: Default::default(), pieces }
    }

    #[test]
    fn etetris_headers_say_the_refinements_and_the_jitter() {
        let plain = etetris(PIECE_LIMIT);
        assert_eq!(plain.measured_on(1, None), "of one beam search keeping 100 boards");
        assert!(plain.about().unwrap().policy.ends_with("(1000 in the held-out scoring)"));
        let settings = etetris_objective::Settings {
            refinements: Refinements { lookahead: 2, endgame: 25, ..Default::default() },
            jitter_percent: 1.0,
            ..Default::default()
        };
        let quota = etetris_objective::Settings {
            refinements: Refinements { phase_quota: 60, phase_pool: 3, ..Default::default() },
            ..Default::default()
        };
        assert_eq!(
            Target::ETetris { settings: quota, pieces: PIECE_LIMIT }.play_command(),
            "tetris-lab etetris solve --beam 1000 --weights best.toml --phase-quota 60 --phase-pool 3"
        );
        let refined = Target::ETetris { settings, pieces: PIECE_LIMIT };
        assert_eq!(
            refined.measured_on(2, None),
            "over 2 beam searches keeping 100 boards (their mean), weights jittered by up to 1 % (a seed each)"
        );
        assert_eq!(
            refined.play_command(),
            "tetris-lab etetris solve --beam 1000 --weights best.toml --lookahead 2 --endgame 25"
        );
        assert_eq!(plain.play_command(), "tetris-lab etetris solve --beam 1000 --weights best.toml");
        assert!(
            refined.about().unwrap().policy.ends_with("scoring), --lookahead 2 --endgame 25"),
            "{}",
            refined.about().unwrap().policy
        );
    }

    #[test]
    fn etetris_best_toml_is_what_solve_reads() {
        let (names, published) = etetris(PIECE_LIMIT).published().unwrap();
        let text = etetris(PIECE_LIMIT).best_toml(&names, &published, "score 1302896 at beam 1000");
        assert_eq!(Weights::from_toml(&text).unwrap(), Weights::default());
        assert!(text.starts_with("# score 1302896"), "{text}");
        // Terms that are off are left out, as solve's own files do.
        for off in ["wells", "rows_with_holes", "almost_full_rows", "overflow"] {
            assert!(!text.contains(off), "{off} is off: {text}");
        }
        let mut on = published.clone();
        on[names.iter().position(|&n| n == "almost_full_rows").unwrap()] = -0.5;
        on[names.iter().position(|&n| n == "overflow").unwrap()] = 0.25;
        on[names.iter().position(|&n| n == "overflow_capacity").unwrap()] = 170.0;
        let text = etetris(PIECE_LIMIT).best_toml(&names, &on, "tuned");
        let weights = Weights::from_toml(&text).unwrap();
        assert_eq!(etetris_objective::vector(&weights), on, "{text}");
        assert!(text.contains("almost_full_rows = -0.5\n") && !text.contains("wells"), "{text}");
    }

    #[test]
    fn game_best_toml_has_the_preset_and_a_weights_table() {
        let preset = presets::find("bcts").unwrap();
        let target = Target::Game { preset, size: Some((10, 10)) };
        let (names, weights) = target.published().unwrap();
        let text = target.best_toml(&names, &weights, "rows");
        let table: toml::Table = text.parse().unwrap();
        assert_eq!(table["preset"].as_str(), Some("bcts"));
        assert_eq!(table["weights"]["holes"].as_float(), Some(-13.08));
        assert_eq!(target.play_command(), "tetris-lab play --preset bcts --board 10x10 --weights best.toml");
    }

    #[test]
    fn etetris_descriptions() {
        assert_eq!(etetris(PIECE_LIMIT).play_command(), "tetris-lab etetris solve --beam 1000 --weights best.toml");
        let full = Target::ETetris {
            settings: etetris_objective::Settings { moves: MoveSet::Full, ..Default::default() },
            pieces: 300,
        };
        assert_eq!(
            full.play_command(),
            "tetris-lab etetris solve --beam 1000 --moves full --max-pieces 300 --weights best.toml"
        );
        assert_eq!(etetris(PIECE_LIMIT).held_out_on(1), "beam 1000");
        let about = etetris(PIECE_LIMIT).about().unwrap();
        assert_eq!((about.rule_set.as_str(), about.rule_set_version.as_str()), ("etetris", "etetris/1"));
        assert!(about.board.contains("10000 pieces"), "{}", about.board);
    }
}
