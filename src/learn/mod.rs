//! Learners: the approximate-dynamic-programming methods behind the best published
//! controllers of the research game (lambda-policy iteration, LSPI, CBMPI and its special
//! case DPI) and the cross-entropy method they are compared with, each one file behind
//! the [`Learner`] interface.
//!
//! A learner improves a greedy after-state policy one iteration at a time. Everything
//! else is the [`run`] driver's: seeds (iteration `k` of a run seeded `s` is seeded from
//! `s` and `k` alone, so a resumed run repeats nothing and a thread count changes
//! nothing), scoring each iteration's policy on the same games, checkpoints, studies and
//! plots. Every call of the game model (one piece locked on a board, in a rollout, a
//! learning game or an evaluated candidate's game) counts as one **sample**, the papers'
//! x axis; the games that score the policy after each iteration are not counted.
//!
//! The game is the research one (`simplified` unless the experiment's `rules` says:
//! uniform pieces, no preview, no hold; the reward is the rows a placement clears). A
//! learner's parallel work goes through [`World::map`], which runs it on the thread pool
//! or across MPI ranks ([`spread`]).

use crate::board::Board;
use crate::eval::{Evaluator, Sense};
use crate::features::{Feature, FeatureContext};
use crate::piece::Piece;
use crate::placement::{Placement, PlacementInfo};
use crate::policy::one_piece::{OnePiece, TieBreak};
use crate::policy::{GameView, Policy, Scratch};
use crate::randomizer::{Randomizer, RandomizerKind};
use crate::rules::RuleSet;
use anyhow::{bail, Result};
use std::sync::atomic::{AtomicU64, Ordering};

pub mod cbmpi;
pub mod cross_entropy;
pub mod lambda_pi;
pub mod linear;
pub mod lspi;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod plot;
pub mod run;
pub mod settings;
pub mod spread;
pub mod states;
pub mod study;

pub use settings::Settings;

/// The error of an iteration cut short by Ctrl-C: the run stops at its last checkpoint.
#[derive(Debug)]
pub struct Stopped;

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("stopped by request")
    }
}

impl std::error::Error for Stopped {}

/// Whether a stop was asked for (long loops look between items).
pub fn stopping() -> bool {
    crate::interrupt::stop_flag().load(Ordering::Relaxed)
}

/// [`Stopped`] when a stop was asked for.
pub fn check_stop() -> Result<()> {
    if stopping() {
        return Err(Stopped.into());
    }
    Ok(())
}

/// A learner: plain data, saved after every iteration.
pub trait Learner: Send {
    /// One iteration, its randomness drawn from `seed` only; every call of the game model
    /// is counted by `world`. Returns a line of what it did, for the log.
    fn iterate(&mut self, world: &World, seed: u64) -> Result<String>;
    /// The current policy: greedy over the after-states of a weighted sum of features.
    fn policy(&self) -> Vec<(String, f64)>;
    /// The whole state, for checkpoints ([`Entry::restore`] reads it back).
    fn save(&self) -> Result<serde_json::Value>;
}

/// One learner of the registry.
pub struct Entry {
    pub name: &'static str,
    /// One line for `tetris-lab list` and the docs.
    pub summary: &'static str,
    /// The paper it follows.
    pub source: &'static str,
    /// Checks the settings' `[options]` for this learner.
    pub check: fn(&Settings) -> Result<()>,
    /// A new learner for these settings (already checked by [`Settings::check`]).
    pub start: fn(&Settings) -> Result<Box<dyn Learner>>,
    /// A learner from its [`Learner::save`].
    pub restore: fn(&Settings, serde_json::Value) -> Result<Box<dyn Learner>>,
}

/// Every learner, in the order the docs list them.
pub static REGISTRY: &[Entry] = &[cbmpi::ENTRY, cbmpi::DPI_ENTRY, lambda_pi::ENTRY, lspi::ENTRY, cross_entropy::ENTRY];

/// Looks a learner up by name, with a "did you mean" on a miss.
pub fn find(name: &str) -> Result<&'static Entry> {
    REGISTRY
        .iter()
        .find(|e| e.name == name)
        .ok_or_else(|| crate::names::unknown("learner", name, REGISTRY.iter().map(|e| e.name)))
}

/// The feature sets the papers use, by the names experiment files give them: the D-T set
/// (JMLR15), the five RBF heights of its value functions, Bertsekas' (without the constant).
pub const FEATURE_SETS: &[&str] = &["dt", "rbf", "bertsekas"];

/// The members of feature set `name` on a board `width` wide.
fn set_members(name: &str, width: usize) -> Option<Vec<&'static str>> {
    match name {
        "dt" => Some(crate::features::dt::DT_NAMES.to_vec()),
        "rbf" => Some(crate::features::dt::RBF_HEIGHTS.iter().map(|f| f.name).collect()),
        "bertsekas" => Some(crate::features::bertsekas::names(width)),
        _ => None,
    }
}

/// The features a list names (feature names, or the sets of [`FEATURE_SETS`]) on a board
/// `width` wide.
pub fn resolve_features(names: &[String], width: usize) -> Result<Vec<&'static Feature>> {
    if names.is_empty() {
        bail!("the list is empty: give at least one feature or feature set ({})", FEATURE_SETS.join(", "));
    }
    let mut features = Vec::new();
    for name in names {
        match set_members(name, width) {
            Some(members) => {
                for member in members {
                    features.push(crate::features::find(member)?);
                }
            }
            None => features.push(crate::features::find_for_width(name, width)?),
        }
    }
    for (i, a) in features.iter().enumerate() {
        if features[i + 1..].iter().any(|b| b.name == a.name) {
            bail!("feature {} is named twice", a.name);
        }
    }
    Ok(features)
}

/// Checks of a learner's state read back from a checkpoint, against a fresh learner of the
/// same settings: a damaged or edited state is refused before it is used.
pub(crate) mod restored {
    use anyhow::{bail, Result};

    /// `saved` must be `fresh` (what the settings make of it).
    pub fn same<T: PartialEq + std::fmt::Debug>(field: &str, saved: &T, fresh: &T) -> Result<()> {
        if saved != fresh {
            bail!("{field} is {saved:?} where the experiment file makes {fresh:?}");
        }
        Ok(())
    }

    /// `count` finite weights (no larger than 1e100 in size).
    pub fn weights(field: &str, weights: &[f64], count: usize) -> Result<()> {
        if weights.len() != count {
            bail!("{field} has {} weights where the experiment file makes {count}", weights.len());
        }
        if let Some(w) = weights.iter().find(|w| !(w.is_finite() && w.abs() <= 1e100)) {
            bail!("{field} holds {w}, not a finite weight");
        }
        Ok(())
    }
}

/// The game the learners play and the count of its calls.
pub struct World {
    pub rules: Box<dyn RuleSet>,
    samples: AtomicU64,
}

/// What one call of the game model did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Transition {
    /// The piece was locked: the rows it cleared (the reward) and what it did.
    Locked { rows: u32, info: PlacementInfo },
    /// The piece had no placement (or its lock ended the game): the state is terminal.
    Over,
}

impl World {
    pub fn new(rules: Box<dyn RuleSet>) -> Result<World> {
        if rules.randomizer() != RandomizerKind::Uniform || rules.preview() != 0 {
            bail!("learners play the research game (uniform pieces, no preview), not {}", rules.describe());
        }
        Ok(World { rules, samples: AtomicU64::new(0) })
    }

    /// Samples counted so far.
    pub fn samples(&self) -> u64 {
        self.samples.load(Ordering::Relaxed)
    }

    /// Sets the count (a resumed run's).
    pub fn set_samples(&self, samples: u64) {
        self.samples.store(samples, Ordering::Relaxed);
    }

    /// Counts `n` samples made without [`World::play`] (candidates' games).
    pub fn count(&self, n: u64) {
        self.samples.fetch_add(n, Ordering::Relaxed);
    }

    /// Runs jobs `0..count` (`job(i)` each, a function of `i` alone) and returns their
    /// results in index order: on the thread pool, or, under `mpirun`, split among the
    /// ranks and gathered on every rank ([`spread`]), with the samples they counted added
    /// on every rank. Fails with [`Stopped`] when a run across ranks is being stopped.
    pub fn map<T, F>(&self, count: usize, job: F) -> Result<Vec<T>>
    where
        T: serde::Serialize + serde::de::DeserializeOwned + Send,
        F: Fn(usize) -> T + Sync + Send,
    {
        use rayon::prelude::*;
        let Some(spread) = spread::current() else {
            return Ok((0..count).into_par_iter().map(job).collect());
        };
        let (rank, ranks) = spread.ranks();
        let before = self.samples();
        let indices: Vec<usize> = (rank..count).step_by(ranks).collect();
        let mine: Vec<Vec<u8>> = indices
            .into_par_iter()
            .map(|index| serde_json::to_vec(&job(index)).expect("a job's result serializes"))
            .collect();
        let counted = self.samples() - before;
        let (all, samples) = spread.exchange(count, mine, counted)?;
        self.set_samples(before + samples);
        all.iter()
            .map(|bytes| {
                serde_json::from_slice(bytes).map_err(|e| anyhow::anyhow!("a job's result from another rank: {e}"))
            })
            .collect()
    }

    /// The piece generator of a rollout or game seeded `seed`.
    pub fn pieces(&self, seed: u64) -> Randomizer {
        Randomizer::new(RandomizerKind::Uniform, seed)
    }

    /// One call of the game model: `piece` placed on `board` by `policy` (its greedy choice).
    pub fn play(&self, board: &mut Board, piece: Piece, policy: &dyn Policy, scratch: &mut Scratch) -> Transition {
        if !self.rules.can_spawn(board, piece) {
            return Transition::Over;
        }
        match self.choose(board, piece, policy, scratch) {
            Some(placement) => self.lock(board, &placement),
            None => Transition::Over,
        }
    }

    /// The placement `policy` picks for `piece` on `board` (not a call of the game model).
    pub fn choose(&self, board: &Board, piece: Piece, policy: &dyn Policy, scratch: &mut Scratch) -> Option<Placement> {
        let view = GameView { board, current: piece, preview: &[], hold: None, can_hold: false };
        policy.choose(self.rules.as_ref(), &view, scratch).map(|decision| decision.placement)
    }

    /// One call of the game model: `placement` locked on `board`.
    pub fn lock(&self, board: &mut Board, placement: &Placement) -> Transition {
        self.samples.fetch_add(1, Ordering::Relaxed);
        let outcome = self.rules.lock(board, placement);
        if outcome.game_over {
            return Transition::Over;
        }
        Transition::Locked { rows: outcome.info.rows_cleared as u32, info: outcome.info }
    }
}

/// The greedy policy of a weighted sum of after-state features (higher is better; the first
/// best in the rule set's order wins ties).
pub fn greedy(weights: &[(String, f64)]) -> Result<Box<dyn Policy>> {
    let named: Vec<(&str, f64)> = weights.iter().map(|(n, w)| (n.as_str(), *w)).collect();
    let evaluator = Evaluator::from_names(&named, Sense::Maximize, None)?;
    Ok(Box::new(OnePiece::new(evaluator, TieBreak::FirstBest)))
}

/// The greedy policy of a value function (`weights`: one per feature of `names`, then the
/// constant's): rows cleared plus the value of the board left (the constant changes no
/// choice).
pub fn value_policy(names: &[String], weights: &[f64]) -> Vec<(String, f64)> {
    let mut policy: Vec<(String, f64)> = names.iter().cloned().zip(weights.iter().copied()).collect();
    match policy.iter_mut().find(|(name, _)| name == "rows_cleared") {
        Some((_, weight)) => *weight += 1.0,
        None => policy.push(("rows_cleared".into(), 1.0)),
    }
    policy
}

/// The values of `features` on `board` as the placement `info` left it, then 1 when
/// `constant` (a value function's constant term).
pub fn feature_vector(features: &[&Feature], board: &Board, info: PlacementInfo, constant: bool, out: &mut Vec<f64>) {
    let context = FeatureContext::new(board, info);
    out.extend(features.iter().map(|f| (f.compute)(&context)));
    if constant {
        out.push(1.0);
    }
}

/// A linear function of features (and a constant): a value function.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Linear {
    pub features: Vec<String>,
    pub weights: Vec<f64>,
}

impl Linear {
    /// Its value at `board` (left by `info`), with a scratch vector.
    pub fn value(&self, features: &[&Feature], board: &Board, info: PlacementInfo, scratch: &mut Vec<f64>) -> f64 {
        scratch.clear();
        feature_vector(features, board, info, true, scratch);
        scratch.iter().zip(&self.weights).map(|(x, w)| x * w).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feature_sets_resolve_and_repeats_are_refused() {
        let names = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let features = resolve_features(&names(&["dt", "rbf"]), 10).unwrap();
        assert_eq!(features.len(), 14);
        assert_eq!(features[5].name, "dt_wells");
        assert_eq!(resolve_features(&names(&["bertsekas"]), 10).unwrap().len(), 21);
        let e = resolve_features(&names(&["dt", "holes"]), 10).unwrap_err().to_string();
        assert!(e.contains("holes is named twice"), "{e}");
        assert!(resolve_features(&names(&["hole"]), 10).is_err());
        let e = resolve_features(&[], 10).unwrap_err().to_string();
        assert!(e.contains("the list is empty"), "{e}");
        let e = resolve_features(&names(&["column_height_9"]), 6).unwrap_err().to_string();
        assert!(e.contains("column_height_9 reads column 9 of a board 6 columns wide"), "{e}");
        assert!(find("cbmp").err().unwrap().to_string().contains("did you mean"));
    }

    #[test]
    fn the_model_counts_its_calls_and_ends_games() {
        let world = World::new(crate::rules::build("simplified", Some((4, 4))).unwrap()).unwrap();
        let policy = greedy(&[("holes".into(), -1.0)]).unwrap();
        let mut scratch = Scratch::default();
        let mut board = world.rules.new_board();
        let mut pieces = world.pieces(1);
        let mut locked = 0;
        while let Transition::Locked { .. } = world.play(&mut board, pieces.next_piece(), policy.as_ref(), &mut scratch)
        {
            locked += 1;
            assert!(locked < 1000, "a 4x4 game ends");
        }
        assert_eq!(world.samples(), locked);
        assert!(World::new(crate::rules::build("guideline", None).unwrap()).is_err());
    }
}
