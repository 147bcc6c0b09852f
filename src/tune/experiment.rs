//! The experiment file: a TOML campaign specification, validated whole before any game is
//! played (a typo fails in milliseconds, not after an hour).
//!
//! ```toml
//! preset = "dellacherie-simplified"   # any preset of `tetris-lab list`
//! board = "10x10"                     # optional, rule sets that allow it
//! fitness = "rows"                    # rows | score | turns | level (mean per game)
//! games = 10                          # games per candidate evaluation
//! max_pieces = 5000                   # optional piece cap per game
//! seed = 1                            # master seed of everything random
//! reevaluation_games = 30             # incumbent re-evaluation per generation (0: off)
//! held_out_games = 100                # final score of the best, on unseen seeds
//!
//! [weights]                           # tuned weights: range and/or start value
//! holes = { min = -100, max = 100, start = -4 }
//! [fixed]                             # weights held at a value
//! landing_height = -1
//!
//! [optimizer]
//! kind = "cross-entropy"              # random | pso | nelder-mead | cross-entropy | cmaes | genetic
//! population = 100                    # the optimizer's own options
//!
//! [budget]                            # stop at the first reached; at least one
//! generations = 10
//! games = 100000
//! pieces = 100000000
//! ```
//! Weights listed in neither table keep the preset's published value.
//!
//! `preset = "etetris"` tunes the E-Tetris contest evaluator instead (see
//! [`super::etetris_objective`]): its weights are the keys of a weights file
//! ([`crate::etetris::weights::key_names`]: the terms of
//! [`crate::etetris::weights::TERMS`], the extras 0 unless listed, `score_divisor` and the
//! overflow pair); the fitness is the contest score of
//! one deterministic beam search, so `games` is 1 and there is no re-evaluation; an
//! `[etetris]` table sets the search:
//!
//! ```toml
//! [etetris]
//! beam = 100                          # boards kept while tuning
//! moves = "seed"                      # seed | full
//! held_out_beam = 1000                # the final scoring, the published weights' width
//! lookahead = 0                       # solve's refinements, while tuning and in the
//! endgame = 0                         # final scoring (also children_per_parent,
//! second_ply = 0                      # lookahead_blend, phase_quota, phase_pool):
//!                                     # 0 is off (phase_pool 0: the default, 2)
//! jitter_percent = 0                  # > 0: each game a search with jittered weights
//! ```
//! With `jitter_percent`, `games` may exceed 1 (each game's seed draws the jitter; a
//! candidate's fitness is the mean), and `reevaluation_games` may be set.

use super::etetris_objective;
use super::objective::{ExperimentText, Fitness, Objective};
use super::target::Target;
use super::{cmaes, cross_entropy, genetic, nelder_mead, pso, random, Optimizer, Space};
use crate::etetris::game::PIECE_LIMIT;
use crate::etetris::weights::SCORE_DIVISOR;
use crate::limits::{check_count, check_weight, MAX_GAMES, MAX_GAMES_PER_GENERATION, MAX_POPULATION};
use crate::presets;
use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// A tuned weight: a range (both ends) and/or a start value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table such as { min = -10, max = 10, start = -1 } or {}")]
pub struct TunedWeight {
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub start: Option<f64>,
}

/// When a campaign stops: at the first limit reached, checked between generations.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table such as [budget] generations = 10")]
pub struct Budget {
    pub generations: Option<u64>,
    /// Games simulated while tuning (candidates and re-evaluations).
    pub games: Option<u64>,
    /// Pieces simulated while tuning.
    pub pieces: Option<u64>,
}

/// The `[optimizer]` table: `kind` and that optimizer's options.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum OptimizerSpec {
    Random(random::Options),
    Pso(pso::Options),
    NelderMead(nelder_mead::Options),
    CrossEntropy(cross_entropy::Options),
    Cmaes(cmaes::Options),
    Genetic(genetic::Options),
}

impl OptimizerSpec {
    pub fn name(&self) -> &'static str {
        match self {
            OptimizerSpec::Random(_) => "random",
            OptimizerSpec::Pso(_) => "pso",
            OptimizerSpec::NelderMead(_) => "nelder-mead",
            OptimizerSpec::CrossEntropy(_) => "cross-entropy",
            OptimizerSpec::Cmaes(_) => "cmaes",
            OptimizerSpec::Genetic(_) => "genetic",
        }
    }

    fn validate(&self, space: &Space) -> Result<()> {
        match self {
            OptimizerSpec::Random(o) => o.validate(space),
            OptimizerSpec::Pso(o) => o.validate(space),
            OptimizerSpec::NelderMead(o) => o.validate(space),
            OptimizerSpec::CrossEntropy(o) => o.validate(space),
            OptimizerSpec::Cmaes(o) => o.validate(space),
            OptimizerSpec::Genetic(o) => o.validate(space),
        }
    }

    /// The candidates of a generation the file sets (`population`, PSO's `particles`), with
    /// its key; `None` where the optimizer sizes its generations itself.
    fn population(&self) -> Option<(&'static str, usize)> {
        match self {
            OptimizerSpec::Random(o) => Some(("population", o.population)),
            OptimizerSpec::Pso(o) => Some(("particles", o.particles)),
            OptimizerSpec::NelderMead(_) => None,
            OptimizerSpec::CrossEntropy(o) => Some(("population", o.population)),
            OptimizerSpec::Cmaes(o) => o.population.map(|p| ("population", p)),
            OptimizerSpec::Genetic(o) => Some(("population", o.population)),
        }
    }

    /// A new optimizer seeded with `seed`.
    pub fn build(&self, space: &Space, seed: u64) -> Result<Box<dyn Optimizer>> {
        Ok(match self {
            OptimizerSpec::Random(o) => Box::new(random::RandomSearch::new(o, space, seed)?),
            OptimizerSpec::Pso(o) => Box::new(pso::ParticleSwarm::new(o, space, seed)?),
            OptimizerSpec::NelderMead(o) => Box::new(nelder_mead::NelderMead::new(o, space, seed)?),
            OptimizerSpec::CrossEntropy(o) => Box::new(cross_entropy::CrossEntropy::new(o, space, seed)?),
            OptimizerSpec::Cmaes(o) => Box::new(cmaes::Cmaes::new(o, space, seed)?),
            OptimizerSpec::Genetic(o) => Box::new(genetic::Genetic::new(o, space, seed)?),
        })
    }

    /// An optimizer restored from a checkpoint's [`Optimizer::save`].
    pub fn restore(&self, state: serde_json::Value) -> Result<Box<dyn Optimizer>> {
        fn boxed<T: Optimizer + serde::de::DeserializeOwned + 'static>(
            v: serde_json::Value,
        ) -> Result<Box<dyn Optimizer>> {
            Ok(Box::new(serde_json::from_value::<T>(v)?))
        }
        match self {
            OptimizerSpec::Random(_) => boxed::<random::RandomSearch>(state),
            OptimizerSpec::Pso(_) => boxed::<pso::ParticleSwarm>(state),
            OptimizerSpec::NelderMead(_) => boxed::<nelder_mead::NelderMead>(state),
            OptimizerSpec::CrossEntropy(_) => boxed::<cross_entropy::CrossEntropy>(state),
            OptimizerSpec::Cmaes(_) => boxed::<cmaes::Cmaes>(state),
            OptimizerSpec::Genetic(_) => boxed::<genetic::Genetic>(state),
        }
        .context("the checkpoint's optimizer state does not match the experiment's optimizer")
    }
}

/// The experiment file as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentFile {
    /// Results go to `results/<name>/`; default the file's stem.
    pub name: Option<String>,
    pub description: Option<String>,
    /// How long the campaign takes, as the file's author measured it.
    pub expected_time: Option<String>,
    /// A preset of `tetris-lab list`; left out (or `"etetris"`, as older files have it)
    /// when the `[etetris]` table says the E-Tetris evaluator is tuned.
    #[serde(default)]
    pub preset: Option<String>,
    pub board: Option<String>,
    /// Default `rows`, or `score` for `etetris`.
    pub fitness: Option<Fitness>,
    pub games: u64,
    pub max_pieces: Option<u64>,
    pub seed: u64,
    /// Games of the incumbent's re-evaluation each generation; default `games` (0 for
    /// `etetris`); 0 keeps the best candidate as measured (for deterministic fitness).
    pub reevaluation_games: Option<u64>,
    /// Default 100 (1 for `etetris`).
    pub held_out_games: Option<u64>,
    #[serde(default)]
    pub weights: BTreeMap<String, TunedWeight>,
    #[serde(default)]
    pub fixed: BTreeMap<String, f64>,
    pub optimizer: OptimizerSpec,
    pub budget: Budget,
    /// The beam search of the E-Tetris evaluator: with this table the experiment tunes it.
    pub etetris: Option<etetris_objective::Settings>,
    /// Independent repetitions (a study, see `tune::study`); default 1, a single run.
    pub runs: Option<u64>,
}

/// A validated experiment.
#[derive(Clone)]
pub struct Experiment {
    pub name: String,
    /// The file's text, recorded in the manifest and checkpoint.
    pub text: String,
    pub file: ExperimentFile,
    /// What is tuned: the preset (and board), or the E-Tetris evaluator.
    pub target: Target,
    /// Every feature of the preset, in preset order.
    pub feature_names: Vec<&'static str>,
    /// The full weight vector with fixed weights applied (tuned entries are overwritten).
    pub base_weights: Vec<f64>,
    /// Position in `feature_names` of each tuned weight, in `space` order.
    pub tuned: Vec<usize>,
    pub space: Space,
    /// The file's values, or their defaults for the target.
    pub fitness: Fitness,
    pub reevaluation_games: u64,
    pub held_out_games: u64,
}

impl std::fmt::Debug for Experiment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Experiment")
            .field("name", &self.name)
            .field("preset", &self.target.name())
            .field("file", &self.file)
            .finish_non_exhaustive()
    }
}

impl Experiment {
    /// The name and text a remote worker parses into the same experiment.
    pub fn as_text(&self) -> ExperimentText<'_> {
        ExperimentText { name: &self.name, text: &self.text }
    }

    /// Reads and validates an experiment file.
    pub fn load(path: &Path) -> Result<Experiment> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("cannot read experiment file {}", path.display()))?;
        let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        Experiment::parse(&text, &stem).with_context(|| format!("experiment file {}", path.display()))
    }

    /// Validates experiment text; `default_name` names it when the text does not. A value
    /// that parses but is refused is named with its line, as a syntax error is.
    pub fn parse(text: &str, default_name: &str) -> Result<Experiment> {
        Experiment::parse_unplaced(text, default_name).map_err(|error| {
            let message = format!("{error:#}");
            match key_named(&message).and_then(|(table, key)| line_of(text, table, key)) {
                Some(line) if !message.starts_with("line ") => error.context(format!("line {line}")),
                _ => error,
            }
        })
    }

    fn parse_unplaced(text: &str, default_name: &str) -> Result<Experiment> {
        let file: ExperimentFile = toml::from_str(text).map_err(|e| crate::names::explain_toml_error(text, &e))?;
        let name = file.name.clone().unwrap_or_else(|| default_name.to_string());
        crate::support::run_dir::check_folder_name(&name)?;
        // E-Tetris is tuned because the file has an [etetris] table (`preset = "etetris"`,
        // with or without it, is what older files say).
        let target = match file.preset.as_deref() {
            Some(presets::ETETRIS) => target_etetris(&file)?,
            None if file.etetris.is_some() => target_etetris(&file)?,
            Some(preset) if file.etetris.is_some() => {
                find_preset(preset)?;
                bail!(
                    "[etetris] tunes the E-Tetris evaluator, not preset {preset:?}: remove `preset` \
                     (or the [etetris] table, to tune the preset)"
                )
            }
            Some(preset) => target_game(&file, preset)?,
            None => bail!(
                "field `preset` is missing: name a preset of `tetris-lab list`, or give an [etetris] table \
                 to tune the E-Tetris evaluator"
            ),
        };
        let is_etetris = matches!(target, Target::ETetris { .. });
        let fitness = file.fitness.unwrap_or(if is_etetris { Fitness::Score } else { Fitness::Rows });
        let (feature_names, mut base_weights) = target.published()?;
        let position = |table: &str, key: &str| -> Result<usize> {
            feature_names.iter().position(|n| n == &key).ok_or_else(|| {
                crate::names::unknown("feature", key, feature_names.iter().copied())
                    .context(format!("[{table}] {key}: preset {} has no such feature", target.name()))
            })
        };
        for (key, value) in &file.fixed {
            let i = position("fixed", key)?;
            if file.weights.contains_key(key) {
                bail!("weight {key:?} is both fixed ([fixed]) and tuned ([weights]); keep one");
            }
            check_weight(&format!("[fixed] {key}"), *value)?;
            base_weights[i] = *value;
        }
        let mut tuned = Vec::new();
        let mut space = Space { names: Vec::new(), ranges: Vec::new(), start: Vec::new() };
        // Tuned weights in preset order, so vectors line up with `feature_names`.
        let mut entries: Vec<(usize, &String, &TunedWeight)> = Vec::new();
        for (key, spec) in &file.weights {
            entries.push((position("weights", key)?, key, spec));
        }
        entries.sort_by_key(|e| e.0);
        for (i, key, spec) in entries {
            let range = match (spec.min, spec.max) {
                (Some(low), Some(high)) => {
                    check_weight(&format!("[weights] {key}: min"), low)?;
                    check_weight(&format!("[weights] {key}: max"), high)?;
                    if low > high {
                        bail!("[weights] {key}: range min {low} > max {high}");
                    }
                    Some((low, high))
                }
                (None, None) => None,
                _ => bail!("[weights] {key}: give both min and max, or neither"),
            };
            let start = spec.start.unwrap_or(base_weights[i]);
            check_weight(&format!("[weights] {key}: start"), start)?;
            if let (Some(given), Some((low, high))) = (spec.start, range) {
                if !(low..=high).contains(&given) {
                    bail!("[weights] {key}: start {given} is outside its range {low}..={high}");
                }
            }
            tuned.push(i);
            space.names.push(key.clone());
            space.ranges.push(range);
            space.start.push(start);
        }
        if tuned.is_empty() {
            bail!("no weight to tune: list at least one under [weights], e.g. `holes = {{ min = -10, max = 10 }}`");
        }
        if is_etetris {
            check_score_divisor(&feature_names, &base_weights, &space)?;
        }
        check_count("field `games`", file.games, MAX_GAMES)?;
        if let Some(games) = file.reevaluation_games.filter(|&g| g > MAX_GAMES) {
            bail!("field `reevaluation_games` = {games} is more than the limit of {MAX_GAMES}");
        }
        if let Some(games) = file.held_out_games.filter(|&g| g > MAX_GAMES) {
            bail!("field `held_out_games` = {games} is more than the limit of {MAX_GAMES}");
        }
        if file.max_pieces == Some(0) {
            bail!("field `max_pieces` must be at least 1");
        }
        if file.held_out_games == Some(0) {
            bail!("field `held_out_games` must be at least 1: the final best is always scored on unseen seeds");
        }
        if let Some(runs) = file.runs {
            check_runs(runs).context("field `runs`")?;
        }
        let budget = &file.budget;
        if budget.generations.is_none() && budget.games.is_none() && budget.pieces.is_none() {
            bail!("[budget] needs at least one of generations, games, pieces");
        }
        for (key, value) in [("generations", budget.generations), ("games", budget.games), ("pieces", budget.pieces)] {
            if value == Some(0) {
                bail!("[budget] {key} = 0: a budget must be at least 1");
            }
        }
        file.optimizer.validate(&space).with_context(|| format!("[optimizer] kind = {:?}", file.optimizer.name()))?;
        if let Some((key, population)) = file.optimizer.population() {
            if population > MAX_POPULATION {
                bail!("[optimizer] {key} = {population} is more than the limit of {MAX_POPULATION}");
            }
        }
        // The first generation evaluates every candidate, all its games held together;
        // optimizers that size their generations themselves (Nelder-Mead's simplex, CMA-ES's
        // default) take at most about d + 1 or 4 + 3 ln d.
        let dimension = space.names.len();
        let candidates = file
            .optimizer
            .population()
            .map(|(_, p)| p)
            .unwrap_or_else(|| (dimension + 1).max(4 + (3.0 * (dimension as f64).ln()).floor() as usize))
            as u64;
        let per_generation = candidates.saturating_mul(file.games);
        if per_generation > MAX_GAMES_PER_GENERATION {
            bail!(
                "{candidates} candidates x games = {}: {per_generation} games per generation is more than \
                 the limit of {MAX_GAMES_PER_GENERATION}",
                file.games
            );
        }
        Ok(Experiment {
            name,
            text: text.to_string(),
            fitness,
            reevaluation_games: file.reevaluation_games.unwrap_or(if is_etetris { 0 } else { file.games }),
            held_out_games: file.held_out_games.unwrap_or(if is_etetris { 1 } else { 100 }),
            target,
            feature_names,
            base_weights,
            tuned,
            space,
            file,
        })
    }

    /// The optimizer saved in a checkpoint, checked first against the state this
    /// experiment's optimizer saves: the same options, vectors of the tuned dimension, and
    /// numbers of sane size. A checkpoint edited by hand (or by an attacker) is refused
    /// instead of running on mismatched vectors or allocating from a forged population.
    pub fn restore_optimizer(&self, state: serde_json::Value) -> Result<Box<dyn Optimizer>> {
        let fresh = self.file.optimizer.build(&self.space, 0)?.save()?;
        check_saved_state("optimizer", &fresh, &state, self.space.names.len())
            .context("the checkpoint's optimizer state does not match the experiment's optimizer")?;
        self.file.optimizer.restore(state)
    }

    /// The full weight vector (preset order) for a point of the tuned space.
    pub fn full_weights(&self, point: &[f64]) -> Vec<f64> {
        let mut weights = self.base_weights.clone();
        for (&i, &w) in self.tuned.iter().zip(point) {
            weights[i] = w;
        }
        weights
    }
}

/// Checks a saved optimizer state against a fresh one of the same experiment (see
/// [`Experiment::restore_optimizer`]); `path` names the place in the state for errors.
fn check_saved_state(path: &str, fresh: &serde_json::Value, saved: &serde_json::Value, dimension: usize) -> Result<()> {
    use serde_json::Value;
    match (fresh, saved) {
        (_, Value::Number(n)) => {
            let x = n.as_f64().unwrap_or(f64::INFINITY);
            if !x.is_finite() || x.abs() > 1e100 {
                bail!("{path} = {n} is out of range");
            }
        }
        (Value::Object(fresh), Value::Object(saved)) => {
            for (key, value) in saved {
                let inner = format!("{path}.{key}");
                match fresh.get(key) {
                    Some(expected) if key == "options" && expected != value => {
                        bail!("{inner} differ from the experiment file's")
                    }
                    Some(expected) => check_saved_state(&inner, expected, value, dimension)?,
                    None => check_saved_state(&inner, &Value::Null, value, dimension)?,
                }
            }
        }
        (Value::Array(fresh), Value::Array(saved)) => {
            if fresh.len() == dimension && saved.len() != dimension {
                bail!("{path} has {} entries where the experiment tunes {dimension} weights", saved.len());
            }
            for (i, value) in saved.iter().enumerate() {
                check_saved_state(&format!("{path}[{i}]"), fresh.first().unwrap_or(&Value::Null), value, dimension)?;
            }
        }
        (_, Value::Array(saved)) => {
            for (i, value) in saved.iter().enumerate() {
                check_saved_state(&format!("{path}[{i}]"), &Value::Null, value, dimension)?;
            }
        }
        (_, Value::Object(saved)) => {
            for (key, value) in saved {
                check_saved_state(&format!("{path}.{key}"), &Value::Null, value, dimension)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// The preset `name` of the game loop (an unknown one: "did you mean", `etetris` among the
/// names).
fn find_preset(name: &str) -> Result<&'static presets::Preset> {
    presets::find(name)
        .map_err(|_| {
            let known = presets::REGISTRY.iter().map(|p| p.name).chain([presets::ETETRIS]);
            crate::names::unknown("preset", name, known)
        })
        .context("field `preset`")
}

/// A preset of the game loop, its board checked against its rule set.
fn target_game(file: &ExperimentFile, preset: &str) -> Result<Target> {
    let preset = find_preset(preset)?;
    let size = file
        .board
        .as_deref()
        .map(crate::board::parse_size)
        .transpose()
        .map_err(|e| anyhow::anyhow!("field `board`: {e}"))?;
    // Building the rule set checks that it allows the board size.
    let rules = crate::rules::build(preset.rule_set, size).context("field `board`")?;
    // Levels are the frame games' (the guideline game): no other game reports one.
    if file.fitness == Some(Fitness::Level) && rules.frame_rules().is_none() {
        bail!(
            "field `fitness`: \"level\" needs a rule set with levels (the guideline game), \
             but preset {} plays {}",
            preset.name,
            preset.rule_set
        );
    }
    Ok(Target::Game { preset, size })
}

/// The E-Tetris evaluator: one deterministic search per candidate, so one game, no
/// re-evaluation, one held-out "game" (its width is `held_out_beam`).
fn target_etetris(file: &ExperimentFile) -> Result<Target> {
    let settings = file.etetris.clone().unwrap_or_default();
    settings.validate()?;
    let deterministic = "the E-Tetris score is deterministic (one known sequence, one beam search)";
    if file.board.is_some() {
        bail!("field `board`: E-Tetris is played on the contest's 10x20 board only; remove `board`");
    }
    if let Some(fitness) = file.fitness.filter(|f| *f != Fitness::Score) {
        bail!(
            "field `fitness` = {:?}: the E-Tetris evaluator ([etetris]) is tuned for the contest score: \
             use fitness = \"score\" (or leave it out)",
            fitness.as_str()
        );
    }
    // Jittered searches differ by their seed: then a candidate may play several, and the
    // incumbent may be measured again on fresh ones.
    let jittered = settings.is_jittered();
    if file.games != 1 && !jittered {
        bail!(
            "field `games` = {}: {deterministic}, so a candidate plays exactly 1 game: set games = 1 \
             (or [etetris] jitter_percent, to average searches with jittered weights)",
            file.games
        );
    }
    if let Some(n) = file.reevaluation_games.filter(|&n| n != 0 && !jittered) {
        bail!(
            "field `reevaluation_games` = {n}: {deterministic}, so a re-evaluation would repeat the same search: \
             set 0 or leave it out"
        );
    }
    if let Some(n) = file.held_out_games.filter(|&n| n != 1) {
        bail!(
            "field `held_out_games` = {n}: {deterministic}; the final scoring is 1 search with \
             [etetris] held_out_beam boards: set 1 or leave it out"
        );
    }
    let pieces = match file.max_pieces {
        Some(m) if m as usize > PIECE_LIMIT => {
            bail!("field `max_pieces` = {m}: the contest's sequence has {PIECE_LIMIT} pieces")
        }
        Some(m) => m as usize,
        None => PIECE_LIMIT,
    };
    Ok(Target::ETetris { settings, pieces })
}

/// The beam key divides the score by `score_divisor`: a fixed value, a start and a range
/// must keep it positive (candidates an optimizer still moves below 0 score 0).
fn check_score_divisor(names: &[&str], base_weights: &[f64], space: &Space) -> Result<()> {
    let fixed = base_weights[names.iter().position(|n| *n == SCORE_DIVISOR).expect("an E-Tetris weight")];
    if let Some(i) = space.names.iter().position(|n| n == SCORE_DIVISOR) {
        let start = space.start[i];
        if start <= 0.0 {
            bail!("[weights] {SCORE_DIVISOR}: start {start} must be positive (the score is divided by it)");
        }
        if let Some((low, _)) = space.ranges[i].filter(|(low, _)| *low <= 0.0) {
            bail!("[weights] {SCORE_DIVISOR}: range min {low} must be positive (the score is divided by it)");
        }
    } else if fixed <= 0.0 {
        bail!("[fixed] {SCORE_DIVISOR} = {fixed}: must be positive (the score is divided by it)");
    }
    Ok(())
}

/// The most repetitions of one experiment a study takes.
pub const MAX_RUNS: u64 = 1000;

/// Checks a repetition count.
pub fn check_runs(runs: u64) -> Result<()> {
    if !(1..=MAX_RUNS).contains(&runs) {
        bail!("runs must be in 1..={MAX_RUNS}, got {runs}");
    }
    Ok(())
}

/// The objective an experiment measures (a game of its preset, or the E-Tetris search:
/// see [`Target::objective`]).
pub fn build_objective(experiment: &Experiment) -> Result<Box<dyn Objective>> {
    experiment.target.objective(experiment.fitness, experiment.file.max_pieces)
}

/// The key a refusal of [`Experiment::parse`] names, with its table (`None`: the top level):
/// "field `games`", "[weights] holes: ...", "optimizer.population ...", "name ...".
fn key_named(message: &str) -> Option<(Option<&str>, &str)> {
    let word = |text: &str| -> Option<usize> {
        let end = text.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(text.len());
        (end > 0).then_some(end)
    };
    if let Some(start) = message.find("optimizer.") {
        let rest = &message[start + "optimizer.".len()..];
        return word(rest).map(|end| (Some("optimizer"), &rest[..end]));
    }
    if let Some(rest) = message.strip_prefix('[') {
        let (table, rest) = rest.split_once("] ")?;
        return word(rest).map(|end| (Some(table), &rest[..end]));
    }
    if let Some(start) = message.find("field `") {
        let rest = &message[start + "field `".len()..];
        return rest.find('`').map(|end| (None, &rest[..end]));
    }
    if message.starts_with("name ") {
        return Some((None, "name"));
    }
    if let Some(rest) = message.strip_prefix("weight \"") {
        return rest.find('"').map(|end| (Some("weights"), &rest[..end]));
    }
    None
}

/// The line (1-based) on which `key` is set in `table` of TOML `text` (`None`: the top
/// level), from the parser's own spans: a `[table]` header, a dotted key (`table.key =`),
/// a quoted key and an inline table (`table = { key = ... }`) are all found.
fn line_of(text: &str, table: Option<&str>, key: &str) -> Option<usize> {
    let document = toml_edit::ImDocument::parse(text).ok()?;
    let root: &dyn toml_edit::TableLike = document.as_table();
    let within = match table {
        None => root,
        Some(name) => root.get(name)?.as_table_like()?,
    };
    let span = within.key(key).and_then(toml_edit::Key::span).or_else(|| within.get(key)?.span())?;
    Some(text[..span.start].matches('\n').count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::etetris::solver::{MoveSet, Refinements};

    const GOOD: &str = r#"
preset = "dellacherie-simplified"
board = "10x10"
games = 2
seed = 1
[weights]
holes = { min = -10, max = 0 }
landing_height = { start = -1 }
[fixed]
eroded_cells = 2
[optimizer]
kind = "cross-entropy"
population = 20
[budget]
generations = 3
"#;

    fn error(text: &str) -> String {
        format!("{:#}", Experiment::parse(text, "test").unwrap_err())
    }

    /// Every optimizer's fresh state (the checkpoint written before the first generation)
    /// reads back: a campaign killed in its first generation resumes.
    #[test]
    fn every_optimizer_resumes_from_its_first_checkpoint() {
        for kind in ["random", "pso", "nelder-mead", "cross-entropy", "cmaes", "genetic"] {
            let text = format!(
                "preset = \"dellacherie-simplified\"\nboard = \"10x10\"\ngames = 2\nseed = 1\n[weights]\n\
                 holes = {{ min = -10, max = 0 }}\nlanding_height = {{ min = -5, max = 5 }}\n\
                 [optimizer]\nkind = \"{kind}\"\n[budget]\ngenerations = 3\n"
            );
            let e = Experiment::parse(&text, "test").unwrap_or_else(|error| panic!("{kind}: {error:#}"));
            let saved = e.file.optimizer.build(&e.space, 7).unwrap().save().unwrap();
            let json = serde_json::to_string(&saved).unwrap();
            let back: serde_json::Value = serde_json::from_str(&json).unwrap();
            let mut restored = e.restore_optimizer(back).unwrap_or_else(|error| panic!("{kind}: {error:#}"));
            let mut fresh = e.file.optimizer.build(&e.space, 7).unwrap();
            assert_eq!(restored.ask().unwrap(), fresh.ask().unwrap(), "{kind}");
        }
    }

    #[test]
    fn a_good_file() {
        let e = Experiment::parse(GOOD, "test").unwrap();
        assert_eq!(e.name, "test");
        assert_eq!(e.space.names, vec!["landing_height", "holes"]);
        assert_eq!(e.space.ranges, vec![None, Some((-10.0, 0.0))]);
        assert_eq!(e.space.start, vec![-1.0, -4.0]);
        assert_eq!(e.reevaluation_games, 2);
        assert_eq!(e.held_out_games, 100);
        assert_eq!(e.fitness, Fitness::Rows);
        let full = e.full_weights(&[-3.0, -7.0]);
        assert_eq!(full, vec![-3.0, 2.0, -1.0, -1.0, -7.0, -1.0]);
        assert!(matches!(e.file.optimizer, OptimizerSpec::CrossEntropy(ref o) if o.population == 20));
    }

    #[test]
    fn malformed_toml_gives_line_and_column() {
        let e = error("preset = \"bcts\"\ngames = = 3\n");
        assert!(e.contains("line 2, column"), "{e}");
    }

    #[test]
    fn unknown_keys_and_names_suggest() {
        let e = error(&GOOD.replace("seed = 1", "seed = 1\nheld_out_gams = 3"));
        assert!(e.contains("line 6, column 1") && e.contains("did you mean `held_out_games`"), "{e}");
        let e = error(&GOOD.replace("population = 20", "populaton = 20"));
        assert!(e.contains("did you mean `population`"), "{e}");
        let e = error(&GOOD.replace("\"cross-entropy\"", "\"cross-entropi\""));
        assert!(e.contains("did you mean `cross-entropy`"), "{e}");
        let e = error(&GOOD.replace("holes = {", "hole = {"));
        assert!(e.contains("did you mean \"holes\""), "{e}");
        let e = error(&GOOD.replace("dellacherie-simplified", "dellacherie-simplifed"));
        assert!(e.contains("did you mean \"dellacherie-simplified\""), "{e}");
        let e = error(&GOOD.replace("games = 2", "games = 2\nfitness = \"row\""));
        assert!(e.contains("did you mean `rows`"), "{e}");
        let e = error(&GOOD.replace("games = 2", "games = 2\nfitness = \"level\""));
        assert!(e.contains("needs a rule set with levels"), "{e}");
    }

    /// A value refused after parsing is named with its line, as a syntax error is.
    #[test]
    fn refused_values_name_their_line() {
        for (from, to, line) in [
            ("games = 2", "games = 0", 4),
            ("board = \"10x10\"", "board = \"10x0\"", 3),
            ("min = -10, max = 0", "min = 5, max = 1", 7),
            ("population = 20", "population = 1", 13),
            ("generations = 3", "generations = 0", 15),
            ("eroded_cells = 2", "holes = 2", 7),
            ("preset = \"dellacherie-simplified\"", "name = \"a b\"\npreset = \"dellacherie-simplified\"", 2),
        ] {
            let e = error(&GOOD.replace(from, to));
            assert!(e.starts_with(&format!("line {line}: ")), "{to}: {e}");
        }
        // No line where the key is not in the file.
        let e = error(&GOOD.replace("generations = 3", ""));
        assert!(e.starts_with("[budget] needs at least one"), "{e}");
        assert_eq!(line_of("a = 1\n[t]\na = 2\n [u] \nab = 3\na=4\n", Some("u"), "a"), Some(6));
        assert_eq!(line_of("a = 1\n[t]\na = 2\n", None, "a"), Some(1));
        assert_eq!(line_of("a = 1\n[t]\na = 2\n", Some("t"), "a"), Some(3));
        assert_eq!(line_of("a = 1\n", Some("t"), "a"), None);
        // The parser's spans: dotted, quoted and inline keys, a table's header, a key only
        // named in a comment or a string.
        assert_eq!(line_of("x = 1\nt.a = 2\n", Some("t"), "a"), Some(2));
        assert_eq!(line_of("# a = 1\n[t]\n\"a\" = 2\n", Some("t"), "a"), Some(3));
        assert_eq!(line_of("x = 1\n\nt = { b = 1, a = 2 }\n", Some("t"), "a"), Some(3));
        assert_eq!(line_of("x = 1\n\n[t]\na = 2\n", None, "t"), Some(3));
        assert_eq!(line_of("x = \"a = 1\"\n[t]\na = 2\n", None, "a"), None);
        assert_eq!(line_of("a = [\n", None, "a"), None);
    }

    #[test]
    fn inconsistent_values_are_refused() {
        let e = error(&GOOD.replace("min = -10, max = 0", "min = 5, max = 1"));
        assert!(e.contains("holes: range min 5 > max 1"), "{e}");
        let e = error(&GOOD.replace("min = -10, max = 0", "min = -10, max = 0, start = 5"));
        assert!(e.contains("holes: start 5 is outside its range -10..=0"), "{e}");
        assert!(Experiment::parse(&GOOD.replace("min = -10, max = 0", "min = -10, max = 0, start = 0"), "good").is_ok());
        let e = error(&GOOD.replace("eroded_cells = 2", "holes = 2"));
        assert!(e.contains("both fixed ([fixed]) and tuned"), "{e}");
        let e = error(&GOOD.replace("generations = 3", "generations = 0"));
        assert!(e.contains("generations = 0"), "{e}");
        let e = error(&GOOD.replace("generations = 3", ""));
        assert!(e.contains("at least one of generations"), "{e}");
        let e = error(&GOOD.replace("games = 2", "games = 0"));
        assert!(e.contains("`games` must be at least 1"), "{e}");
        let e = error(&GOOD.replace("min = -10, max = 0", "min = -10"));
        assert!(e.contains("both min and max"), "{e}");
        let e = error(&GOOD.replace("population = 20", "population = 1"));
        assert!(e.contains("population must be at least 2"), "{e}");
        let e = error(&GOOD.replace("kind = \"cross-entropy\"\npopulation = 20", "kind = \"pso\""));
        assert!(e.contains("needs a range for every tuned weight"), "{e}");
        let e = error(&GOOD.replace("10x10", "10x99"));
        assert!(e.contains("board"), "{e}");
    }

    #[test]
    fn a_forged_optimizer_state_is_refused() {
        let e = Experiment::parse(GOOD, "test").unwrap();
        let saved = e.file.optimizer.build(&e.space, 7).unwrap().save().unwrap();
        assert!(e.restore_optimizer(saved.clone()).is_ok());
        let forge = |edit: &dyn Fn(&mut serde_json::Value)| {
            let mut state = saved.clone();
            edit(&mut state);
            format!("{:#}", e.restore_optimizer(state).err().expect("refused"))
        };
        let error = forge(&|s| s["mean"] = serde_json::json!([1.0]));
        assert!(error.contains("optimizer.mean has 1 entries where the experiment tunes 2"), "{error}");
        let error = forge(&|s| s["options"]["population"] = serde_json::json!(1_000_000_000_000_000u64));
        assert!(error.contains("optimizer.options differ"), "{error}");
        let error = forge(&|s| s["variance"][0] = serde_json::json!(1e300));
        assert!(error.contains("optimizer.variance[0] = 1e+300 is out of range"), "{error}");
    }

    const ETETRIS: &str = r#"
preset = "etetris"
games = 1
seed = 1
[etetris]
beam = 50
[weights]
row_transitions = { min = 0, max = 10 }
score_divisor = {}
[fixed]
cells = -1.5
[optimizer]
kind = "nelder-mead"
[budget]
games = 40
"#;

    #[test]
    fn an_etetris_file() {
        let e = Experiment::parse(ETETRIS, "test").unwrap();
        // The keys of a weights file, in their order (tests of weights.rs pin it).
        assert_eq!(e.feature_names, crate::etetris::weights::key_names());
        assert_eq!(e.space.names, vec!["row_transitions", "score_divisor"]);
        assert_eq!(e.space.start, vec![3.2178882868487753, 38.0]);
        // Defaults for a deterministic objective: the contest score, no re-evaluation,
        // one held-out search at the published width.
        assert_eq!((e.fitness, e.reevaluation_games, e.held_out_games), (Fitness::Score, 0, 1));
        let Target::ETetris { settings, pieces } = &e.target else { panic!("not an E-Tetris target") };
        assert_eq!((settings.beam, settings.held_out_beam, settings.moves), (50, 1000, MoveSet::Seed));
        assert_eq!(*pieces, PIECE_LIMIT);
        let full = e.full_weights(&[2.0, 40.0]);
        let published = crate::etetris::weights::Weights::default();
        let tuned = crate::etetris::weights::Weights { score_divisor: 40.0, ..published };
        let expected = super::super::etetris_objective::vector(&tuned.with("cells", -1.5).with("row_transitions", 2.0));
        assert_eq!(full, expected);
        assert_eq!(full[..4], [-1.5, 2.0, 9.348695305445199, 7.899265427351652]);
        let e =
            Experiment::parse(&ETETRIS.replace("games = 1", "games = 1\nmax_pieces = 300\nfitness = \"score\""), "t");
        assert!(matches!(e.unwrap().target, Target::ETetris { pieces: 300, .. }));
        let e = Experiment::parse(&ETETRIS.replace("beam = 50", "beam = 50\nmoves = \"full\""), "t").unwrap();
        assert!(matches!(
            e.target,
            Target::ETetris { settings: etetris_objective::Settings { moves: MoveSet::Full, .. }, .. }
        ));
        // Jittered searches: several a candidate, the incumbent measured again, and the
        // search's refinements.
        let jittered = ETETRIS
            .replace("games = 1", "games = 2\nreevaluation_games = 2")
            .replace(
                "beam = 50",
                "beam = 50\njitter_percent = 1\nlookahead = 2\nendgame = 25\nsecond_ply = 2\nphase_quota = 60\nphase_pool = 3",
            );
        let e = Experiment::parse(&jittered, "t").unwrap();
        assert_eq!((e.file.games, e.reevaluation_games, e.held_out_games), (2, 2, 1));
        let Target::ETetris { settings, .. } = &e.target else { panic!("not an E-Tetris target") };
        assert!(settings.is_jittered());
        assert_eq!(
            settings.refinements,
            Refinements {
                lookahead: 2,
                endgame: 25,
                second_ply: 2,
                phase_quota: 60,
                phase_pool: 3,
                ..Default::default()
            }
        );
    }

    #[test]
    fn etetris_mistakes_are_refused_in_one_line() {
        let cases = [
            ("beam = 50", "beam = 50\nheld_out_bem = 9", "did you mean `held_out_beam`"),
            ("beam = 50", "beam = 0", "[etetris] beam = 0"),
            ("beam = 50", "held_out_beam = 0", "[etetris] held_out_beam = 0"),
            ("beam = 50", "moves = \"sed\"", "did you mean `seed`"),
            ("games = 1", "games = 5", "`games` = 5: the E-Tetris score is deterministic"),
            ("beam = 50", "jitter_percent = 51", "[etetris] jitter_percent = 51: must be in 0..=50"),
            ("beam = 50", "jitter_percent = nan", "[etetris] jitter_percent = NaN"),
            ("beam = 50", "lookahead = 17", "[etetris] lookahead = 17 is more than the limit of 16"),
            ("beam = 50", "second_ply = 2", "[etetris] second_ply deepens the lookahead's ranking"),
            ("beam = 50", "lookahead = 2\nlookahead_blend = 101", "[etetris] lookahead_blend must be in 0..=100"),
            ("beam = 50", "endgame = 10001", "[etetris] endgame must be in 0..=10000"),
            ("beam = 50", "phase_quota = 101", "[etetris] phase_quota must be in 0..=100"),
            ("beam = 50", "phase_pool = 2", "[etetris] phase_pool sets the pool of [etetris] phase_quota"),
            ("games = 1", "games = 1\nreevaluation_games = 3", "would repeat the same search"),
            ("games = 1", "games = 1\nheld_out_games = 100", "`held_out_games` = 100"),
            ("games = 1", "games = 1\nfitness = \"rows\"", "use fitness = \"score\""),
            ("games = 1", "games = 1\nboard = \"10x10\"", "contest's 10x20 board only"),
            ("games = 1", "games = 1\nmax_pieces = 10001", "has 10000 pieces"),
            ("row_transitions = {", "row_transition = {", "did you mean \"row_transitions\""),
            ("cells = -1.5", "landing_height = 1", "preset etetris has no such feature"),
            ("score_divisor = {}", "score_divisor = { start = -2 }", "start -2 must be positive"),
            ("score_divisor = {}", "score_divisor = { min = 0, max = 50 }", "range min 0 must be positive"),
            (
                "score_divisor = {}\n[fixed]\ncells = -1.5",
                "holes = {}\n[fixed]\ncells = -1.5\nscore_divisor = 0",
                "[fixed] score_divisor = 0: must be positive",
            ),
            ("\"etetris\"", "\"etetriss\"", "did you mean \"etetris\""),
        ];
        for (from, to, expected) in cases {
            let text = ETETRIS.replace(from, to);
            assert_ne!(text, ETETRIS, "{from:?} is not in the file");
            let e = error(&text);
            assert!(e.contains(expected) && !e.contains('\n'), "{to:?}: {e}");
        }
        // [etetris] tunes E-Tetris, not a game preset; a file with neither names nothing.
        let e = error(&format!("{GOOD}[etetris]\nbeam = 5\n"));
        assert!(e.contains("[etetris] tunes the E-Tetris evaluator, not preset"), "{e}");
        let e = error(&GOOD.replace("preset = \"dellacherie-simplified\"\n", ""));
        assert!(e.contains("field `preset` is missing"), "{e}");
        // The [etetris] table alone says E-Tetris: `preset = "etetris"` is not needed.
        let without = Experiment::parse(&ETETRIS.replace("preset = \"etetris\"\n", ""), "test").unwrap();
        let with = Experiment::parse(ETETRIS, "test").unwrap();
        assert!(matches!(without.target, Target::ETetris { .. }));
        assert_eq!(
            (&without.space, &without.base_weights, without.fitness),
            (&with.space, &with.base_weights, with.fitness)
        );
    }
}
