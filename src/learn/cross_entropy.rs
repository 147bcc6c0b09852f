//! The noisy cross-entropy method as the learning papers run it beside CBMPI (Szita and
//! Lorincz, 2006; Thiery and Scherrer, 2009; in NIPS13 and JMLR15 with the D-T features,
//! n = 1,000 vectors, 10% kept, noise 4): one iteration is one generation of the
//! workbench's cross-entropy optimizer, each vector scored by the mean rows of the same
//! `games` games. Its samples are the pieces those games lock. The policy is the mean.

use super::{greedy, resolve_features, Entry, Learner, Settings, Transition, World};
use crate::policy::Policy;
use crate::policy::Scratch;
use crate::randomizer::game_seed;
use crate::tune::cross_entropy::{self, CrossEntropy, InitialMean, Noise};
use crate::tune::{Maximize, Optimizer, Space};
use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

pub const ENTRY: Entry = Entry {
    name: "cross-entropy",
    summary: "the noisy cross-entropy method, each vector scored by its games (its samples: their pieces)",
    source: "Szita and Lorincz (2006); Thiery and Scherrer (2009); as run in Scherrer et al. (JMLR 2015)",
    check: |settings| Learning::from_settings(settings).map(drop),
    start: |settings| Ok(Box::new(Learning::from_settings(settings)?)),
    restore: |settings, saved| Ok(Box::new(Learning::restore(settings, saved)?)),
};

/// The most vectors of a generation.
const MAX_POPULATION: usize = 1_000_000;

/// `[options]` of `cross-entropy`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Options {
    #[serde(default = "dt")]
    pub features: Vec<String>,
    /// n, the vectors of a generation.
    #[serde(default = "population")]
    pub population: usize,
    /// rho, the share kept.
    #[serde(default = "elite")]
    pub elite_fraction: f64,
    /// G, the games that score a vector.
    #[serde(default = "one")]
    pub games: u64,
    #[serde(default = "variance")]
    pub initial_variance: f64,
    /// Added to the variance every generation.
    #[serde(default = "noise")]
    pub noise: f64,
    /// A piece cap on the scoring games (none by default).
    pub max_pieces: Option<u64>,
}

fn dt() -> Vec<String> {
    vec!["dt".into()]
}
fn population() -> usize {
    100
}
fn elite() -> f64 {
    0.1
}
fn one() -> u64 {
    1
}
fn variance() -> f64 {
    100.0
}
fn noise() -> f64 {
    4.0
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Learning {
    options: Options,
    names: Vec<String>,
    optimizer: CrossEntropy,
}

impl Learning {
    fn from_settings(settings: &Settings) -> Result<Learning> {
        let options: Options = settings.options()?;
        let features = resolve_features(&options.features, settings.size()?.0).context("features")?;
        if !(1..=1_000_000).contains(&options.games) || options.max_pieces == Some(0) {
            bail!("games must be 1 to 1,000,000 and max_pieces at least 1");
        }
        if !(2..=MAX_POPULATION).contains(&options.population) {
            bail!("population must be 2 to {MAX_POPULATION}, found {}", options.population);
        }
        if !(options.noise.is_finite() && options.noise >= 0.0) {
            bail!("noise must be a finite number of at least 0, found {}", options.noise);
        }
        let names: Vec<String> = features.iter().map(|f| f.name.to_string()).collect();
        let space = Space { names: names.clone(), ranges: vec![None; names.len()], start: vec![0.0; names.len()] };
        let method = cross_entropy::Options {
            population: options.population,
            elite_fraction: options.elite_fraction,
            initial_mean: InitialMean::Zero,
            initial_variance: options.initial_variance,
            noise: Noise::Constant,
            noise_level: Some(options.noise),
            noise_decay: 10.0,
        };
        let optimizer = CrossEntropy::new(&method, &space, game_seed(settings.seed, 0xCE)).context("options")?;
        Ok(Learning { options, names, optimizer })
    }

    /// A learner from a checkpoint's state, checked against a fresh one of `settings`.
    fn restore(settings: &Settings, saved: serde_json::Value) -> Result<Learning> {
        let fresh = Learning::from_settings(settings)?;
        let saved: Learning = serde_json::from_value(saved)?;
        super::restored::same("options", &saved.options, &fresh.options)?;
        super::restored::same("names", &saved.names, &fresh.names)?;
        saved.optimizer.check_restored(&fresh.optimizer)?;
        Ok(saved)
    }

    /// The rows of one game of `policy`, pieces from `seed`.
    fn game(&self, world: &World, policy: &dyn Policy, seed: u64) -> u64 {
        let mut board = world.rules.new_board();
        let mut pieces = world.pieces(seed);
        let mut scratch = Scratch::default();
        let (mut rows, mut locked) = (0, 0);
        while self.options.max_pieces.is_none_or(|cap| locked < cap) {
            match world.play(&mut board, pieces.next_piece(), policy, &mut scratch) {
                Transition::Locked { rows: cleared, .. } => rows += cleared as u64,
                Transition::Over => break,
            }
            locked += 1;
            if locked.is_multiple_of(4096) && super::stopping() {
                break;
            }
        }
        rows
    }
}

impl Learner for Learning {
    fn iterate(&mut self, world: &World, seed: u64) -> Result<String> {
        let candidates = self.optimizer.ask()?;
        let games = self.options.games;
        let policies = candidates
            .iter()
            .map(|weights| greedy(&self.names.iter().cloned().zip(weights.iter().copied()).collect::<Vec<_>>()))
            .collect::<Result<Vec<_>>>()?;
        let rows: Vec<u64> = world.map(candidates.len() * games as usize, |k| {
            let k = k as u64;
            self.game(world, policies[(k / games) as usize].as_ref(), game_seed(seed, k % games))
        })?;
        super::check_stop()?;
        let fitness: Vec<Maximize> =
            rows.chunks(games as usize).map(|c| Maximize(c.iter().sum::<u64>() as f64 / games as f64)).collect();
        let best = fitness.iter().map(|f| f.0).fold(0.0, f64::max);
        let mean = fitness.iter().map(|f| f.0).sum::<f64>() / fitness.len() as f64;
        self.optimizer.tell(&fitness)?;
        Ok(format!("{} vectors: mean {:.1} rows, best {:.1}", fitness.len(), mean, best))
    }

    fn policy(&self) -> Vec<(String, f64)> {
        let mean = self.optimizer.recommendation().unwrap_or_else(|| vec![0.0; self.names.len()]);
        self.names.iter().cloned().zip(mean).collect()
    }

    fn save(&self) -> Result<serde_json::Value> {
        Ok(serde_json::to_value(self)?)
    }
}
