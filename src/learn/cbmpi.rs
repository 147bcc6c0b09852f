//! CBMPI, classification-based modified policy iteration (Gabillon, Ghavamzadeh and
//! Scherrer, NIPS 2013; Scherrer et al., JMLR 16, 2015, Figure 3), and DPI, direct policy
//! iteration, its special case without a value function.
//!
//! Iteration k, from the policy pi_k and the value function v_{k-1} (v_0 = 0):
//! 1. N rollout states are drawn from a behaviour policy's games, heights flattened
//!    ([`super::states`]), each with a piece drawn uniformly.
//! 2. Action values: for each state and each placement a of its piece, a locked, then m
//!    steps of pi_k: Q(s, a) = the rows cleared on the way plus v_{k-1} of the end state.
//!    One rollout per pair (M = 1), each with its own pieces.
//! 3. Value targets (CBMPI), as the papers' implementation reuses the rollouts (JMLR15,
//!    Section 6): the rollout that starts with pi_k's own move gives, for the state s_1
//!    that move leads to, its last m steps' rows plus v_{k-1} of their end (0 if the game
//!    ended). v_k is their least-squares fit on the value features and a constant.
//! 4. pi_{k+1} = argmax_a psi(s, a)' beta, beta minimising the classification loss
//!    sum_s [max_a Q(s, a) - Q(s, pi_beta(s))] by CMA-ES (the workbench's), started from
//!    beta_k scaled to unit length. Every candidate is scaled to unit length before it is
//!    scored and told, as MdpTetris' CMA-ES for Tetris does: the policy does not change
//!    with beta's length, and unscaled, the search drifts outwards along it (weights of
//!    10^5 after 40 generations) and never closes in on a direction.
//!
//! Where the papers do not say (the value's states and rollouts, the first value
//! function, CMA-ES's restarts and what a classification returns), the defaults are the
//! choices above and [`Options`] names the others, so that each can be tried.
//!
//! Budget: the papers count B = (m + 1) N |A| per iteration with |A| = 32 (the most
//! placements of a piece); `budget` gives B and N follows (8 M with m = 5: N = 41,666). The
//! samples counted are the real calls, fewer (a piece has 9 to 34 placements on 10
//! columns, and a rollout stops when its game ends).

use super::linear::Normal;
use super::states::{self, State};
use super::{feature_vector, greedy, resolve_features, Entry, Learner, Linear, Settings, Transition, World};
use crate::features::Feature;
use crate::policy::{Policy, Scratch};
use crate::randomizer::{game_seed, Xoshiro256};
use crate::tune::cmaes::{self, Cmaes};
use crate::tune::{Maximize, Optimizer, Space};
use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

/// The papers' |A| in the budget formula.
const NOMINAL_ACTIONS: u64 = 32;

pub const ENTRY: Entry = Entry {
    name: "cbmpi",
    summary: "classification-based modified policy iteration: rollouts, a least-squares value, a policy by CMA-ES",
    source: "Gabillon, Ghavamzadeh, Scherrer (NIPS 2013); Scherrer et al. (JMLR 2015)",
    check: |settings| Cbmpi::from_settings(settings, true).map(drop),
    start: |settings| Ok(Box::new(Cbmpi::from_settings(settings, true)?)),
    restore: |settings, saved| Ok(Box::new(Cbmpi::restore(settings, saved, true)?)),
};

pub const DPI_ENTRY: Entry = Entry {
    name: "dpi",
    summary: "direct policy iteration: CBMPI without a value function (rollout rewards only)",
    source: "Lagoudakis and Parr (2003); Lazaric, Ghavamzadeh and Munos (2010); as CBMPI's special case in Scherrer et al. (JMLR 2015)",
    check: |settings| Cbmpi::from_settings(settings, false).map(drop),
    start: |settings| Ok(Box::new(Cbmpi::from_settings(settings, false)?)),
    restore: |settings, saved| Ok(Box::new(Cbmpi::restore(settings, saved, false)?)),
};

/// The most rollout states an iteration may ask for (each keeps its placements' features
/// for the classifier: about a kilobyte).
const MAX_STATES: usize = 1_000_000;
/// The most CMA-ES candidates per generation, generations and runs of a classification.
const MAX_CLASSIFIER_POPULATION: usize = 100_000;
const MAX_CLASSIFIER_GENERATIONS: usize = 100_000;
const MAX_CLASSIFIER_RESTARTS: usize = 1000;

/// `[options]` of `cbmpi` and `dpi`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Options {
    /// m, the steps of the current policy after the first action.
    pub rollout_length: usize,
    /// The papers' budget per iteration, B = (m + 1) N 32: gives N. Or `states`.
    pub budget: Option<u64>,
    /// N, the rollout states per iteration.
    pub states: Option<usize>,
    #[serde(default = "dt")]
    pub policy_features: Vec<String>,
    /// The value function's features (a constant is added); CBMPI only.
    #[serde(default = "dt_rbf")]
    pub value_features: Vec<String>,
    /// The preset whose games give the rollout states.
    #[serde(default = "du")]
    pub behaviour: String,
    /// CMA-ES generations of each classification.
    #[serde(default = "generations")]
    pub classifier_generations: usize,
    /// CMA-ES candidates per generation (default 15 per policy feature, the papers' n).
    pub classifier_population: Option<usize>,
    /// CMA-ES's first step size, on the unit-length start.
    #[serde(default = "sigma")]
    pub classifier_sigma: f64,
    /// CMA-ES runs per classification: the first from the current policy, the others from
    /// random directions (as JMLR15 did for Bertsekas' features).
    #[serde(default = "one")]
    pub classifier_restarts: usize,
    /// What a classification returns.
    #[serde(default)]
    pub classifier_result: ClassifierResult,
    /// The state the value function is fitted on (CBMPI only).
    #[serde(default)]
    pub value_state: ValueState,
    /// Where the value targets come from (CBMPI only).
    #[serde(default)]
    pub value_rollouts: ValueRollouts,
    /// v_0, the value function of the first iteration (CBMPI only).
    #[serde(default)]
    pub initial_value: InitialValue,
}

/// What a classification returns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClassifierResult {
    /// The candidate with the lowest loss seen in any run (or the current policy, if none
    /// is lower).
    #[default]
    Best,
    /// The final mean of the run whose mean has the lowest loss (MdpTetris' CMA-ES tracks
    /// its mean).
    Mean,
}

/// The state whose value the regression fits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ValueState {
    /// The state the policy's move leads to, with the m steps after it as its target.
    #[default]
    Next,
    /// The rollout state itself, as the papers' Figure 3 writes the regression.
    Rollout,
}

/// Where the value targets come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ValueRollouts {
    /// The classifier's rollout that starts with the policy's own move (for `rollout`
    /// states: its m + 1 steps).
    #[default]
    Reused,
    /// A rollout of m steps of the policy of its own, with pieces of its own.
    Separate,
}

/// The first iteration's value function.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum InitialValue {
    /// v_0 = 0.
    #[default]
    Zero,
    /// Weights drawn from a standard normal, the constant's too.
    Random,
}

fn dt() -> Vec<String> {
    vec!["dt".into()]
}
fn dt_rbf() -> Vec<String> {
    vec!["dt".into(), "rbf".into()]
}
fn du() -> String {
    "bcts-mdptetris".into()
}
fn generations() -> usize {
    40
}
fn sigma() -> f64 {
    0.5
}
fn one() -> usize {
    1
}

/// The learner's state: its options, the policy's weights and the value function's.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Cbmpi {
    options: Options,
    /// Whether it fits a value function (CBMPI) or not (DPI).
    with_value: bool,
    states: usize,
    policy_names: Vec<String>,
    policy_weights: Vec<f64>,
    /// v_{k-1}: `None` is v_0 = 0 (and always, for DPI).
    value: Option<Linear>,
}

impl Cbmpi {
    fn from_settings(settings: &Settings, with_value: bool) -> Result<Cbmpi> {
        let mut options: Options = settings.options()?;
        let (width, _) = settings.size()?;
        if options.rollout_length > 1000 {
            bail!("rollout_length must be at most 1000, found {}", options.rollout_length);
        }
        let states = match (options.budget, options.states) {
            (Some(budget), None) => (budget / ((options.rollout_length as u64 + 1) * NOMINAL_ACTIONS)) as usize,
            (None, Some(states)) => states,
            _ => bail!("give either budget (the papers' B per iteration) or states (N)"),
        };
        if !(1..=MAX_STATES).contains(&states) {
            bail!("the rollout states per iteration must be 1 to {MAX_STATES}, found {states}");
        }
        let policy = resolve_features(&options.policy_features, width).context("policy_features")?;
        if with_value {
            resolve_features(&options.value_features, width).context("value_features")?;
        } else if let Some(key) = ["value_features", "value_state", "value_rollouts", "initial_value"]
            .into_iter()
            .find(|key| settings.options.contains_key(*key))
        {
            bail!("dpi has no value function: {key} is for cbmpi");
        } else {
            options.value_features.clear();
        }
        // The behaviour's games are played on this board: a preset of another game is
        // refused now, not at the first iteration.
        crate::presets::find(&options.behaviour)
            .and_then(|preset| preset.build(Some(settings.size()?), None))
            .context("behaviour")?;
        if !(1..=MAX_CLASSIFIER_GENERATIONS).contains(&options.classifier_generations) {
            bail!(
                "classifier_generations must be 1 to {MAX_CLASSIFIER_GENERATIONS}, found {}",
                options.classifier_generations
            );
        }
        if let Some(population) = options.classifier_population.filter(|p| !(2..=MAX_CLASSIFIER_POPULATION).contains(p))
        {
            bail!("classifier_population must be 2 to {MAX_CLASSIFIER_POPULATION}, found {population}");
        }
        if !(options.classifier_sigma > 0.0 && options.classifier_sigma.is_finite()) {
            bail!("classifier_sigma must be a finite number above 0, found {}", options.classifier_sigma);
        }
        if !(1..=MAX_CLASSIFIER_RESTARTS).contains(&options.classifier_restarts) {
            bail!("classifier_restarts must be 1 to {MAX_CLASSIFIER_RESTARTS}, found {}", options.classifier_restarts);
        }
        // The initial policy is random: weights drawn from a standard normal.
        let mut random = Xoshiro256::new(game_seed(settings.seed, 0xC0B));
        let policy_weights = policy.iter().map(|_| normal(&mut random)).collect();
        let value = match options.initial_value {
            InitialValue::Random if with_value => {
                let mut names = value_names(&options.value_features, width)?;
                names.push("constant".into());
                let mut random = Xoshiro256::new(game_seed(settings.seed, 0x7A1));
                let weights = names.iter().map(|_| normal(&mut random)).collect();
                Some(Linear { features: names, weights })
            }
            _ => None,
        };
        Ok(Cbmpi {
            options,
            with_value,
            states,
            policy_names: policy.iter().map(|f| f.name.to_string()).collect(),
            policy_weights,
            value,
        })
    }
}

impl Cbmpi {
    /// A learner from a checkpoint's state, checked against a fresh one of `settings`.
    fn restore(settings: &Settings, saved: serde_json::Value, with_value: bool) -> Result<Cbmpi> {
        use super::restored::{same, weights};
        let fresh = Cbmpi::from_settings(settings, with_value)?;
        let saved: Cbmpi = serde_json::from_value(saved)?;
        same("options", &saved.options, &fresh.options)?;
        same("with_value", &saved.with_value, &fresh.with_value)?;
        same("states", &saved.states, &fresh.states)?;
        same("policy_names", &saved.policy_names, &fresh.policy_names)?;
        weights("policy_weights", &saved.policy_weights, fresh.policy_names.len())?;
        if let Some(value) = &saved.value {
            if !with_value {
                bail!("value: dpi has no value function");
            }
            let mut names = value_names(&fresh.options.value_features, settings.size()?.0)?;
            names.push("constant".into());
            same("value.features", &value.features, &names)?;
            weights("value.weights", &value.weights, names.len())?;
        }
        Ok(saved)
    }
}

/// The value function's feature names (without the constant).
fn value_names(features: &[String], width: usize) -> Result<Vec<String>> {
    Ok(resolve_features(features, width)?.iter().map(|f| f.name.to_string()).collect())
}

/// A standard normal draw (Box-Muller), from the workbench's own generator.
pub(crate) fn normal(random: &mut Xoshiro256) -> f64 {
    let u = 1.0 - random.unit();
    let v = random.unit();
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

/// What the rollouts from one state gave.
#[derive(Default, Serialize, Deserialize)]
struct StateRollouts {
    /// The value features (and constant) of the state the policy's move leads to, and its
    /// value target.
    value_row: Option<(Vec<f64>, f64)>,
    /// The policy features of each placement's after-state, row after row, and the
    /// placements' action values.
    psi: Vec<f64>,
    q: Vec<f64>,
}

/// The policy's rollout of `length` steps from `board`, pieces from `seed`: the rows
/// cleared, and the board and move it ended on (`None` if the game ended).
fn rollout(
    world: &World,
    policy: &dyn Policy,
    scratch: &mut Scratch,
    mut state: State,
    length: usize,
    seed: u64,
) -> (f64, Option<State>) {
    let mut pieces = world.pieces(seed);
    let mut rows = 0.0;
    for _ in 0..length {
        match world.play(&mut state.board, pieces.next_piece(), policy, scratch) {
            Transition::Locked { rows: cleared, info } => {
                rows += cleared as f64;
                state.info = info;
            }
            Transition::Over => return (rows, None),
        }
    }
    (rows, Some(state))
}

impl Cbmpi {
    fn value_of(&self, features: &[&Feature], end: Option<State>, scratch: &mut Vec<f64>) -> f64 {
        match (&self.value, end) {
            (Some(value), Some(state)) => value.value(features, &state.board, state.info, scratch),
            _ => 0.0,
        }
    }

    fn roll_state(
        &self,
        world: &World,
        policy: &dyn Policy,
        features: (&[&Feature], &[&Feature]),
        state: State,
        seed: u64,
    ) -> StateRollouts {
        let (policy_features, value_features) = features;
        let m = self.options.rollout_length;
        let mut scratch = Scratch::default();
        let mut vector = Vec::new();
        let mut out = StateRollouts::default();
        let piece = world.pieces(game_seed(seed, 0)).next_piece();
        let mut placements = Vec::new();
        if world.rules.can_spawn(&state.board, piece) {
            world.rules.candidates(&state.board, piece, &mut placements);
        }
        // The papers' implementation reuses the rollouts: the one that starts with the
        // policy's own move gives, from the state that move leads to, the value target
        // (its m steps and the previous value at their end).
        let reused = self.with_value && self.options.value_rollouts == ValueRollouts::Reused;
        let chosen = if self.with_value && !placements.is_empty() {
            world.choose(&state.board, piece, policy, &mut scratch)
        } else {
            None
        };
        for (j, placement) in placements.iter().enumerate() {
            let mut after = state.board;
            let q = match world.lock(&mut after, placement) {
                Transition::Locked { rows, info } => {
                    feature_vector(policy_features, &after, info, false, &mut out.psi);
                    let next = State { board: after, info };
                    let (more, end) = rollout(world, policy, &mut scratch, next, m, game_seed(seed, 2 + j as u64));
                    let later = more + self.value_of(value_features, end, &mut vector);
                    if reused && chosen == Some(*placement) {
                        out.value_row = Some(match self.options.value_state {
                            ValueState::Next => (value_row(value_features, &after, info), later),
                            ValueState::Rollout => {
                                (value_row(value_features, &state.board, state.info), rows as f64 + later)
                            }
                        });
                    }
                    rows as f64 + later
                }
                Transition::Over => {
                    // (Not for the research rules, which offer no game-ending placement.)
                    // The features the policy rates this placement by, as for any other.
                    let mut rated = state.board;
                    let info = world.rules.apply(&mut rated, placement);
                    feature_vector(policy_features, &rated, info, false, &mut out.psi);
                    0.0
                }
            };
            out.q.push(q);
        }
        if !self.with_value {
            return out;
        }
        let own_pieces = game_seed(seed, 1);
        match (self.options.value_state, self.options.value_rollouts) {
            // The game ends at the state, or with the policy's move: worth nothing more.
            (ValueState::Rollout, ValueRollouts::Reused) if out.value_row.is_none() => {
                out.value_row = Some((value_row(value_features, &state.board, state.info), 0.0));
            }
            (ValueState::Rollout, ValueRollouts::Separate) => {
                let (rows, end) = rollout(world, policy, &mut scratch, state, m, own_pieces);
                let target = rows + self.value_of(value_features, end, &mut vector);
                out.value_row = Some((value_row(value_features, &state.board, state.info), target));
            }
            (ValueState::Next, ValueRollouts::Separate) => {
                let mut after = state.board;
                if let Some(Transition::Locked { info, .. }) =
                    chosen.map(|placement| world.lock(&mut after, &placement))
                {
                    let next = State { board: after, info };
                    let (rows, end) = rollout(world, policy, &mut scratch, next, m, own_pieces);
                    let target = rows + self.value_of(value_features, end, &mut vector);
                    out.value_row = Some((value_row(value_features, &after, info), target));
                }
            }
            _ => {}
        }
        out
    }
}

/// The policies' weights in `f32`, as the classifier scores placements.
fn single_precision(betas: &[Vec<f64>]) -> Vec<Vec<f32>> {
    betas.iter().map(|beta| beta.iter().map(|b| *b as f32).collect()).collect()
}

/// The value features (and the constant) of a board and the placement that made it.
fn value_row(features: &[&Feature], board: &crate::board::Board, info: crate::placement::PlacementInfo) -> Vec<f64> {
    let mut row = Vec::new();
    feature_vector(features, board, info, true, &mut row);
    row
}

/// Placements scored together by the classifier: a state's placements are stored in
/// blocks of this many, feature by feature, so that one block's scores are a few
/// vector multiply-adds.
const LANES: usize = 8;

/// The classification data: every state's placements' features and action values. The
/// features are kept in `f32` (the loss is evaluated about 5,000 times an iteration, on a
/// million placements; `f32` halves the memory it streams).
struct Classes {
    dimension: usize,
    /// Per state: its first block in `psi`, its first placement in `q` and its placement
    /// count.
    spans: Vec<(usize, usize, usize)>,
    /// Per block of [`LANES`] placements, `dimension` rows: feature `f` of each placement
    /// (zero past the state's last placement).
    psi: Vec<[f32; LANES]>,
    q: Vec<f64>,
    best: Vec<f64>,
    /// Every state given, those kept and those whose placements all have the same value
    /// (no policy loses anything there, so they are counted but not kept).
    states: usize,
}

impl Classes {
    fn new(dimension: usize) -> Classes {
        Classes { dimension, spans: Vec::new(), psi: Vec::new(), q: Vec::new(), best: Vec::new(), states: 0 }
    }

    /// Adds a state's placements: their features (`dimension` values each) and values.
    fn push(&mut self, psi: &[f64], q: &[f64]) {
        let dimension = self.dimension;
        debug_assert_eq!(psi.len(), dimension * q.len());
        self.states += 1;
        if q.iter().all(|v| *v == q[0]) {
            return;
        }
        self.spans.push((self.psi.len(), self.q.len(), q.len()));
        self.best.push(q.iter().copied().fold(f64::NEG_INFINITY, f64::max));
        self.q.extend_from_slice(q);
        for block in 0..q.len().div_ceil(LANES) {
            for f in 0..dimension {
                let mut row = [0f32; LANES];
                for (k, x) in row.iter_mut().enumerate() {
                    let placement = block * LANES + k;
                    if placement < q.len() {
                        *x = psi[placement * dimension + f] as f32;
                    }
                }
                self.psi.push(row);
            }
        }
    }

    /// The mean regret of the policy `beta`: the best action value minus that of the
    /// placement the policy picks (the first best, as the game's policy picks).
    #[cfg(test)]
    fn loss(&self, beta: &[f64]) -> f64 {
        self.losses(std::slice::from_ref(&beta.to_vec()))[0]
    }

    /// [`Classes::loss`] of each policy. The states are visited once for all of them, in
    /// fixed chunks summed in order: the placements stay in cache while every policy
    /// scores them, and the sums do not depend on the thread count.
    #[cfg(test)]
    fn losses(&self, betas: &[Vec<f64>]) -> Vec<f64> {
        use rayon::prelude::*;
        let weights = single_precision(betas);
        let chunks: Vec<Vec<f64>> = (0..self.spans.len().div_ceil(Self::CHUNK))
            .into_par_iter()
            .map(|c| self.chunk_regrets(c, &weights))
            .collect();
        self.mean_regrets(&chunks, betas.len())
    }

    /// [`Classes::losses`] with the chunks handed to `world` (across MPI ranks, when
    /// there are several).
    fn losses_on(&self, world: &World, betas: &[Vec<f64>]) -> Result<Vec<f64>> {
        let weights = single_precision(betas);
        let chunks = world.map(self.spans.len().div_ceil(Self::CHUNK), |c| self.chunk_regrets(c, &weights))?;
        Ok(self.mean_regrets(&chunks, betas.len()))
    }

    const CHUNK: usize = 2048;

    /// The total regret of each policy (its weights in `f32`) on chunk `chunk` of the
    /// states.
    fn chunk_regrets(&self, chunk: usize, weights: &[Vec<f32>]) -> Vec<f64> {
        let dimension = self.dimension;
        let range = chunk * Self::CHUNK..((chunk + 1) * Self::CHUNK).min(self.spans.len());
        let (spans, best) = (&self.spans[range.clone()], &self.best[range]);
        let mut totals = vec![0.0; weights.len()];
        let widest = spans.iter().map(|span| span.2).max().unwrap_or(0);
        let mut scores = vec![0f32; widest.div_ceil(LANES) * LANES];
        for (&(first_block, first, count), best) in spans.iter().zip(best) {
            let blocks = &self.psi[first_block..first_block + count.div_ceil(LANES) * dimension];
            for (weights, total) in weights.iter().zip(&mut totals) {
                for (rows, scores) in blocks.chunks_exact(dimension).zip(scores.chunks_exact_mut(LANES)) {
                    let mut lanes = [0f32; LANES];
                    for (row, w) in rows.iter().zip(weights) {
                        for k in 0..LANES {
                            lanes[k] += row[k] * w;
                        }
                    }
                    scores.copy_from_slice(&lanes);
                }
                let mut chosen = (f32::NEG_INFINITY, 0);
                for (a, score) in scores[..count].iter().enumerate() {
                    if *score > chosen.0 {
                        chosen = (*score, a);
                    }
                }
                *total += best - self.q[first + chosen.1];
            }
        }
        totals
    }

    /// The mean regret of each of `policies` from the chunks' totals, summed in order.
    fn mean_regrets(&self, chunks: &[Vec<f64>], policies: usize) -> Vec<f64> {
        let states = self.states.max(1) as f64;
        (0..policies).map(|c| chunks.iter().map(|totals| totals[c]).sum::<f64>() / states).collect()
    }
}

impl Cbmpi {
    /// The classification: `classifier_restarts` runs of CMA-ES, the first from the current
    /// policy `start` (unit length, with its loss), the others from random directions.
    /// Returns the policy chosen and its loss.
    fn classify(&self, world: &World, classes: &Classes, start: (f64, Vec<f64>), seed: u64) -> Result<(f64, Vec<f64>)> {
        let population = self.options.classifier_population.unwrap_or(15 * start.1.len());
        let options = cmaes::Options { population: Some(population), sigma: Some(self.options.classifier_sigma) };
        let mut best = start.clone();
        let mut best_mean: Option<(f64, Vec<f64>)> = None;
        for run in 0..self.options.classifier_restarts {
            let (point, run_seed) = if run == 0 {
                (start.1.clone(), seed)
            } else {
                let mut random = Xoshiro256::new(game_seed(seed, run as u64));
                let mut point: Vec<f64> = start.1.iter().map(|_| normal(&mut random)).collect();
                cmaes::scale_to_unit_length(&mut point);
                (point, game_seed(seed, (1 << 32) + run as u64))
            };
            let space = Space { names: self.policy_names.clone(), ranges: vec![None; point.len()], start: point };
            let mut optimizer = Cmaes::new(&options, &space, run_seed)?;
            for _ in 0..self.options.classifier_generations {
                super::check_stop()?;
                let candidates = optimizer.ask_on_unit_sphere()?;
                let losses = classes.losses_on(world, &candidates)?;
                for (beta, loss) in candidates.iter().zip(&losses) {
                    if *loss < best.0 {
                        best = (*loss, beta.clone());
                    }
                }
                optimizer.tell(&losses.iter().map(|l| Maximize(-l)).collect::<Vec<_>>())?;
            }
            if self.options.classifier_result == ClassifierResult::Mean {
                let mut mean = optimizer.recommendation().context("CMA-ES has a mean")?;
                cmaes::scale_to_unit_length(&mut mean);
                let loss = classes.losses_on(world, std::slice::from_ref(&mean))?[0];
                if best_mean.as_ref().is_none_or(|(lowest, _)| loss < *lowest) {
                    best_mean = Some((loss, mean));
                }
            }
        }
        Ok(best_mean.unwrap_or(best))
    }
}

impl Learner for Cbmpi {
    fn iterate(&mut self, world: &World, seed: u64) -> Result<String> {
        let (width, _) = (world.rules.new_board().width(), ());
        let policy_features = resolve_features(&self.policy_names, width)?;
        let value_features =
            if self.with_value { resolve_features(&self.options.value_features, width)? } else { Vec::new() };
        let behaviour = crate::presets::find(&self.options.behaviour)?
            .build(Some((width, world.rules.new_board().height())), None)?;
        let clock = std::time::Instant::now();
        let rollout_states = states::draw(world, behaviour.policy.as_ref(), self.states, game_seed(seed, 1));
        let policy = greedy(&self.policy())?;
        let rollouts_seed = game_seed(seed, 2);
        let rolled: Vec<StateRollouts> = world.map(rollout_states.len(), |i| {
            if super::stopping() {
                return StateRollouts::default();
            }
            let features = (&policy_features[..], &value_features[..]);
            self.roll_state(world, policy.as_ref(), features, rollout_states[i], game_seed(rollouts_seed, i as u64))
        })?;
        super::check_stop()?;
        let rollout_seconds = clock.elapsed().as_secs_f64();
        // The regression, in state order.
        if self.with_value {
            let mut normal = Normal::new(value_features.len() + 1);
            for (row, target) in rolled.iter().filter_map(|r| r.value_row.as_ref()) {
                normal.add(row, row, *target);
            }
            let weights = normal.solve().context("the value regression is singular")?;
            let mut names: Vec<String> = value_features.iter().map(|f| f.name.to_string()).collect();
            names.push("constant".into());
            self.value = Some(Linear { features: names, weights });
        }
        // The classification.
        let mut classes = Classes::new(policy_features.len());
        for r in rolled.iter().filter(|r| !r.q.is_empty()) {
            classes.push(&r.psi, &r.q);
        }
        drop(rolled);
        let before = classes.losses_on(world, std::slice::from_ref(&self.policy_weights))?[0];
        let mut start = self.policy_weights.clone();
        cmaes::scale_to_unit_length(&mut start);
        let best = self.classify(world, &classes, (before, start), game_seed(seed, 3))?;
        self.policy_weights = best.1;
        Ok(format!(
            "{} states ({} where the placements differ), classification loss {:.3} -> {:.3} rows; {:.0} s rollouts, {:.0} s classifier",
            classes.states,
            classes.spans.len(),
            before,
            best.0,
            rollout_seconds,
            clock.elapsed().as_secs_f64() - rollout_seconds,
        ))
    }

    fn policy(&self) -> Vec<(String, f64)> {
        self.policy_names.iter().cloned().zip(self.policy_weights.iter().copied()).collect()
    }

    fn save(&self) -> Result<serde_json::Value> {
        Ok(serde_json::to_value(self)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The regret computed plainly, in `f64`, with the first best placement.
    fn plain_loss(states: &[(Vec<f64>, Vec<f64>)], dimension: usize, beta: &[f64]) -> f64 {
        let mut total = 0.0;
        for (psi, q) in states {
            let scores: Vec<f64> =
                psi.chunks(dimension).map(|row| row.iter().zip(beta).map(|(x, w)| x * w).sum()).collect();
            let mut chosen = 0;
            for (a, score) in scores.iter().enumerate() {
                if *score > scores[chosen] {
                    chosen = a;
                }
            }
            total += q.iter().copied().fold(f64::NEG_INFINITY, f64::max) - q[chosen];
        }
        total / states.len() as f64
    }

    #[test]
    fn classifier_rows_and_value_targets_are_the_policys() {
        // As the papers' implementation: the rollout that starts with the policy's own
        // move gives the value row of the state that move leads to, and its target is that
        // placement's action value less the rows the move itself cleared. A value function
        // that is not 0 makes the targets depend on it.
        let settings = Settings::parse(
            "learner = \"cbmpi\"\nboard = \"6x8\"\nseed = 1\niterations = 1\n[options]\nrollout_length = 3\nstates = 40\n",
        )
        .unwrap();
        let mut learner = Cbmpi::from_settings(&settings, true).unwrap();
        let world = settings.world().unwrap();
        let policy_features = resolve_features(&learner.policy_names, 6).unwrap();
        let value_features = resolve_features(&learner.options.value_features, 6).unwrap();
        let mut names: Vec<String> = value_features.iter().map(|f| f.name.to_string()).collect();
        names.push("constant".into());
        let weights = (0..names.len()).map(|i| 0.1 * i as f64 - 0.3).collect();
        learner.value = Some(Linear { features: names, weights });
        let policy = greedy(&learner.policy()).unwrap();
        let behaviour = crate::presets::find("bcts-mdptetris").unwrap().build(Some((6, 8)), None).unwrap().policy;
        let mut checked = 0;
        for (i, state) in states::draw(&world, behaviour.as_ref(), 40, 3).into_iter().enumerate() {
            let seed = game_seed(11, i as u64);
            let out = learner.roll_state(&world, policy.as_ref(), (&policy_features, &value_features), state, seed);
            let piece = world.pieces(game_seed(seed, 0)).next_piece();
            let Some(chosen) = world.choose(&state.board, piece, policy.as_ref(), &mut Scratch::default()) else {
                assert!(out.value_row.is_none());
                continue;
            };
            let mut placements = Vec::new();
            world.rules.candidates(&state.board, piece, &mut placements);
            // Every placement's classifier row is what the policy rates it by.
            for (placement, psi) in placements.iter().zip(out.psi.chunks(policy_features.len())) {
                let mut rated = state.board;
                let info = world.rules.apply(&mut rated, placement);
                let mut row = Vec::new();
                feature_vector(&policy_features, &rated, info, false, &mut row);
                assert_eq!(psi, &row[..]);
            }
            let j = placements.iter().position(|p| *p == chosen).unwrap();
            let mut after = state.board;
            match world.lock(&mut after, &chosen) {
                Transition::Locked { rows, info } => {
                    let mut row = Vec::new();
                    feature_vector(&value_features, &after, info, true, &mut row);
                    let (value_row, target) = out.value_row.expect("a value row");
                    assert_eq!(value_row, row);
                    assert_eq!(target, out.q[j] - rows as f64);
                    checked += 1;
                }
                Transition::Over => assert!(out.value_row.is_none()),
            }
        }
        assert!(checked > 20, "{checked}");
    }

    /// A CBMPI learner on 6x8 with these extra options, its world and features, and a
    /// value function that is not 0 (so that the targets depend on it).
    fn small_learner(extra: &str) -> (Cbmpi, World, Vec<&'static Feature>, Vec<&'static Feature>) {
        let settings = Settings::parse(&format!(
            "learner = \"cbmpi\"\nboard = \"6x8\"\nseed = 1\niterations = 1\n[options]\nrollout_length = 3\nstates = 40\n{extra}"
        ))
        .unwrap();
        let mut learner = Cbmpi::from_settings(&settings, true).unwrap();
        let policy_features = resolve_features(&learner.policy_names, 6).unwrap();
        let value_features = resolve_features(&learner.options.value_features, 6).unwrap();
        let mut names = value_names(&learner.options.value_features, 6).unwrap();
        names.push("constant".into());
        let weights = (0..names.len()).map(|i| 0.1 * i as f64 - 0.3).collect();
        learner.value = Some(Linear { features: names, weights });
        (learner, settings.world().unwrap(), policy_features, value_features)
    }

    #[test]
    fn value_targets_on_the_rollout_states() {
        // Reused: the row is the rollout state's own, the target the action value of the
        // policy's move (its rows, m steps, the value at their end); 0 where the game ends.
        let (learner, world, policy_features, value_features) = small_learner("value_state = \"rollout\"");
        let policy = greedy(&learner.policy()).unwrap();
        let behaviour = crate::presets::find("bcts-mdptetris").unwrap().build(Some((6, 8)), None).unwrap().policy;
        let mut checked = 0;
        for (i, state) in states::draw(&world, behaviour.as_ref(), 40, 3).into_iter().enumerate() {
            let seed = game_seed(11, i as u64);
            let out = learner.roll_state(&world, policy.as_ref(), (&policy_features, &value_features), state, seed);
            let (row, target) = out.value_row.expect("every rollout state has a target");
            assert_eq!(row, value_row(&value_features, &state.board, state.info));
            let piece = world.pieces(game_seed(seed, 0)).next_piece();
            let mut placements = Vec::new();
            world.rules.candidates(&state.board, piece, &mut placements);
            match world.choose(&state.board, piece, policy.as_ref(), &mut Scratch::default()) {
                Some(chosen) => {
                    let j = placements.iter().position(|p| *p == chosen).unwrap();
                    assert_eq!(target, out.q[j]);
                    checked += 1;
                }
                None => assert_eq!(target, 0.0),
            }
        }
        assert!(checked > 20, "{checked}");
    }

    #[test]
    fn separate_value_rollouts_play_m_steps_of_their_own() {
        // From the rollout state: m moves of the policy on pieces of their own, then the
        // previous value; the classifier's action values are those of the default.
        let (learner, world, policy_features, value_features) =
            small_learner("value_state = \"rollout\"\nvalue_rollouts = \"separate\"");
        let (default, ..) = small_learner("");
        let policy = greedy(&learner.policy()).unwrap();
        let behaviour = crate::presets::find("bcts-mdptetris").unwrap().build(Some((6, 8)), None).unwrap().policy;
        let mut differ = 0;
        for (i, state) in states::draw(&world, behaviour.as_ref(), 40, 3).into_iter().enumerate() {
            let seed = game_seed(11, i as u64);
            let features = (&policy_features[..], &value_features[..]);
            let out = learner.roll_state(&world, policy.as_ref(), features, state, seed);
            let plain = default.roll_state(&world, policy.as_ref(), features, state, seed);
            assert_eq!((&out.q, &out.psi), (&plain.q, &plain.psi));
            let mut board = state.board;
            let mut pieces = world.pieces(game_seed(seed, 1));
            let mut rows = 0.0;
            let mut end = Some(state.info);
            for _ in 0..3 {
                match world.play(&mut board, pieces.next_piece(), policy.as_ref(), &mut Scratch::default()) {
                    Transition::Locked { rows: cleared, info } => {
                        rows += cleared as f64;
                        end = Some(info);
                    }
                    Transition::Over => {
                        end = None;
                        break;
                    }
                }
            }
            let value = learner.value.as_ref().unwrap();
            let later = end.map_or(0.0, |info| value.value(&value_features, &board, info, &mut Vec::new()));
            let (row, target) = out.value_row.unwrap();
            assert_eq!(row, value_row(&value_features, &state.board, state.info));
            assert_eq!(target, rows + later);
            differ += usize::from(plain.value_row.is_some_and(|(_, plain)| plain != target));
        }
        assert!(differ > 10, "{differ}");
    }

    #[test]
    fn a_random_first_value_function_and_value_options_only_for_cbmpi() {
        let text = "learner = \"cbmpi\"\nboard = \"6x8\"\nseed = 1\niterations = 1\n[options]\nrollout_length = 3\nstates = 40\n";
        let zero = Cbmpi::from_settings(&Settings::parse(text).unwrap(), true).unwrap();
        assert!(zero.value.is_none());
        let random = Settings::parse(&format!("{text}initial_value = \"random\"")).unwrap();
        let value = Cbmpi::from_settings(&random, true).unwrap().value.unwrap();
        assert_eq!(value.features.last().map(String::as_str), Some("constant"));
        assert_eq!(value.weights.len(), value.features.len());
        assert!(value.weights.iter().all(|w| *w != 0.0 && w.is_finite()));
        // The same seed draws the same function; a checkpoint of it restores.
        let again = Cbmpi::from_settings(&random, true).unwrap();
        assert_eq!(again.value.as_ref().unwrap().weights, value.weights);
        let saved = again.save().unwrap();
        assert!(Cbmpi::restore(&random, saved, true).is_ok());
        let dpi = Settings::parse(&format!("{}value_rollouts = \"separate\"", text.replace("cbmpi", "dpi")));
        assert!(format!("{:#}", dpi.unwrap_err()).contains("dpi has no value function: value_rollouts is for cbmpi"));
        let restarts = Settings::parse(&format!("{text}classifier_restarts = 0"));
        assert!(format!("{:#}", restarts.unwrap_err()).contains("classifier_restarts must be 1 to 1000"));
    }

    #[test]
    fn restarts_and_the_final_mean() {
        // Two features, states where (1, -1) is right: every run closes in on it. The best
        // candidate of three runs is at least as good as that of the first alone; the mean
        // returned is scored by the same loss.
        let mut classes = Classes::new(2);
        let mut random = Xoshiro256::new(5);
        for _ in 0..200 {
            let psi: Vec<f64> = (0..8).map(|_| random.below(7) as f64 - 3.0).collect();
            let q: Vec<f64> = psi.chunks(2).map(|x| x[0] - x[1]).collect();
            classes.push(&psi, &q);
        }
        let settings = |extra: &str| {
            Settings::parse(&format!(
                "learner = \"dpi\"\nboard = \"6x8\"\nseed = 1\niterations = 1\n[options]\nrollout_length = 1\nstates = 10\nclassifier_generations = 15\nclassifier_population = 10\n{extra}"
            ))
            .unwrap()
        };
        let classify = |extra: &str| {
            let mut learner = Cbmpi::from_settings(&settings(extra), false).unwrap();
            learner.policy_names.truncate(2);
            let start = vec![-0.6, 0.8];
            let world = settings("").world().unwrap();
            learner.classify(&world, &classes, (classes.loss(&start), start), 9).unwrap()
        };
        let one = classify("");
        let three = classify("classifier_restarts = 3");
        assert!(three.0 <= one.0, "{three:?} {one:?}");
        assert!(one.0 < classes.loss(&[-0.6, 0.8]));
        let mean = classify("classifier_restarts = 3\nclassifier_result = \"mean\"");
        assert_eq!(mean.0, classes.loss(&mean.1));
        assert!((mean.1.iter().map(|x| x * x).sum::<f64>() - 1.0).abs() < 1e-12);
        assert!(mean.1[0] > 0.0 && mean.1[1] < 0.0, "{mean:?}");
    }

    #[test]
    fn regret_of_a_hand_made_state() {
        // Two features, three placements; beta = (1, -1) scores them 1, 3, 3: the policy
        // takes the first of the tied two, whose value is 2 below the best. beta = (-1, 1)
        // scores them -1, -3, -3 and takes the first, 4 below the best. The regret is a
        // mean over both states.
        let mut classes = Classes::new(2);
        classes.push(&[2.0, 1.0, 4.0, 1.0, 5.0, 2.0], &[1.0, 3.0, 5.0]);
        // A state whose placements are all worth the same counts, with no regret.
        classes.push(&[1.0, 0.0, 0.0, 1.0], &[7.0, 7.0]);
        assert_eq!(classes.spans.len(), 1);
        assert_eq!(classes.loss(&[1.0, -1.0]), 1.0);
        assert_eq!(classes.loss(&[-1.0, 1.0]), 2.0);
        assert_eq!(classes.loss(&[1.0, 1.0]), 0.0);
    }

    #[test]
    fn blocked_loss_agrees_with_the_plain_sum() {
        // Small integers keep the `f32` sums exact, so both pick the same placements.
        let mut random = Xoshiro256::new(7);
        let mut small = |low: i64, high: i64| (low + random.below((high - low + 1) as u64) as i64) as f64;
        let dimension = 9;
        let mut classes = Classes::new(dimension);
        let mut states = Vec::new();
        for count in [1, 3, 8, 9, 16, 17, 34, 2, 25] {
            let psi: Vec<f64> = (0..count * dimension).map(|_| small(-4, 4)).collect();
            let q: Vec<f64> = (0..count).map(|_| small(0, 5)).collect();
            classes.push(&psi, &q);
            states.push((psi, q));
        }
        for _ in 0..50 {
            let beta: Vec<f64> = (0..dimension).map(|_| small(-3, 3)).collect();
            assert_eq!(classes.loss(&beta), plain_loss(&states, dimension, &beta));
        }
    }
}
