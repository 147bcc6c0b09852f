//! Lambda-policy iteration (Bertsekas and Ioffe, 1996; Bertsekas and Tsitsiklis, 1996,
//! section 8.3), with the value function fitted by least squares as MdpTetris does
//! (the papers' baseline: about 350 rows on 10x10 with Bertsekas' features).
//!
//! The value is linear in the features and a constant, V(x) = phi(x)' theta, over
//! after-states; the policy is greedy: the placement maximising its rows cleared plus V of
//! the board it leaves. Iteration k plays `games` games with the policy of theta_k and
//! records every after-state x_t and reward r_t (x_0 the empty board). With the temporal
//! differences d_t = r_t + V(x_{t+1}) - V(x_t) (a lost game's end is worth 0), the target of
//! x_t is V(x_t) + sum_{s >= t} lambda^(s - t) d_s, and theta_{k+1} is their least-squares
//! fit. lambda = 0 is value iteration on the visited states, lambda = 1 Monte-Carlo policy
//! evaluation.

use super::linear::Normal;
use super::{feature_vector, greedy, resolve_features, Entry, Learner, Settings, Transition, World};
use crate::features::Feature;
use crate::placement::PlacementInfo;
use crate::policy::{Policy, Scratch};
use crate::randomizer::game_seed;
use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

pub const ENTRY: Entry = Entry {
    name: "lambda-pi",
    summary: "lambda-policy iteration: games of the greedy policy, lambda-returns, a least-squares value",
    source: "Bertsekas and Ioffe (1996); Bertsekas and Tsitsiklis (1996)",
    check: |settings| LambdaPi::from_settings(settings).map(drop),
    start: |settings| Ok(Box::new(LambdaPi::from_settings(settings)?)),
    restore: |settings, saved| {
        let fresh = LambdaPi::from_settings(settings)?;
        let saved: LambdaPi = serde_json::from_value(saved)?;
        super::restored::same("options", &saved.options, &fresh.options)?;
        super::restored::same("names", &saved.names, &fresh.names)?;
        super::restored::weights("weights", &saved.weights, fresh.weights.len())?;
        Ok(Box::new(saved))
    },
};

/// `[options]` of `lambda-pi`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Options {
    #[serde(default = "lambda")]
    pub lambda: f64,
    /// The value function's features (a constant is added).
    #[serde(default = "bertsekas")]
    pub features: Vec<String>,
    /// Games played per iteration.
    #[serde(default = "games")]
    pub games: u64,
    /// A piece cap on those games (a capped game's last state keeps its own value).
    pub max_pieces: Option<u64>,
    /// The first value weights, feature by feature then the constant (default all 0).
    pub initial: Option<Vec<f64>>,
}

fn lambda() -> f64 {
    0.9
}
fn bertsekas() -> Vec<String> {
    vec!["bertsekas".into()]
}
fn games() -> u64 {
    100
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LambdaPi {
    options: Options,
    names: Vec<String>,
    /// theta: one weight per feature, then the constant's.
    weights: Vec<f64>,
}

impl LambdaPi {
    fn from_settings(settings: &Settings) -> Result<LambdaPi> {
        let options: Options = settings.options()?;
        if !(0.0..=1.0).contains(&options.lambda) {
            bail!("lambda must be in [0, 1], found {}", options.lambda);
        }
        if !(1..=1_000_000).contains(&options.games) || options.max_pieces == Some(0) {
            bail!("games must be 1 to 1,000,000 and max_pieces at least 1");
        }
        let features = resolve_features(&options.features, settings.size()?.0).context("features")?;
        let weights = match &options.initial {
            Some(initial) if initial.len() != features.len() + 1 => bail!(
                "initial has {} weights: give one per feature and the constant's ({})",
                initial.len(),
                features.len() + 1
            ),
            Some(initial) if !initial.iter().all(|w| w.is_finite()) => {
                bail!("initial holds {:?}: every weight must be a finite number", initial)
            }
            Some(initial) => initial.clone(),
            None => vec![0.0; features.len() + 1],
        };
        let names = features.iter().map(|f| f.name.to_string()).collect();
        Ok(LambdaPi { options, names, weights })
    }

    /// One game's normal equations: its after-states' features against their targets.
    fn game(&self, world: &World, features: &[&Feature], policy: &dyn Policy, seed: u64) -> Normal {
        let mut board = world.rules.new_board();
        let mut pieces = world.pieces(seed);
        let mut scratch = Scratch::default();
        let dimension = self.weights.len();
        // x_t's features (flattened), V(x_t), and r_t.
        let mut phi: Vec<f64> = Vec::new();
        feature_vector(features, &board, PlacementInfo::default(), true, &mut phi);
        let mut rewards: Vec<f64> = Vec::new();
        let mut over = false;
        while self.options.max_pieces.is_none_or(|cap| (rewards.len() as u64) < cap) {
            match world.play(&mut board, pieces.next_piece(), policy, &mut scratch) {
                Transition::Locked { rows, info } => {
                    rewards.push(rows as f64);
                    feature_vector(features, &board, info, true, &mut phi);
                }
                Transition::Over => {
                    over = true;
                    break;
                }
            }
            if rewards.len().is_multiple_of(4096) && super::stopping() {
                break;
            }
        }
        let value = |t: usize| -> f64 {
            phi[t * dimension..(t + 1) * dimension].iter().zip(&self.weights).map(|(x, w)| x * w).sum()
        };
        let states = rewards.len() + 1;
        // d_t for t < states - 1; a lost game's last state has d = 0 + 0 - V, a capped one none.
        let mut normal = Normal::new(dimension);
        let mut tail = if over { -value(states - 1) } else { 0.0 };
        let mut targets = vec![0.0; states];
        targets[states - 1] = value(states - 1) + tail;
        for t in (0..states - 1).rev() {
            let difference = rewards[t] + value(t + 1) - value(t);
            tail = difference + self.options.lambda * tail;
            targets[t] = value(t) + tail;
        }
        for (t, target) in targets.iter().enumerate() {
            let row = &phi[t * dimension..(t + 1) * dimension];
            normal.add(row, row, *target);
        }
        normal
    }
}

impl Learner for LambdaPi {
    fn iterate(&mut self, world: &World, seed: u64) -> Result<String> {
        let before = world.samples();
        let features = resolve_features(&self.names, world.rules.new_board().width())?;
        let policy = greedy(&self.policy())?;
        let games: Vec<Normal> = world.map(self.options.games as usize, |g| {
            self.game(world, &features, policy.as_ref(), game_seed(seed, g as u64))
        })?;
        super::check_stop()?;
        let mut normal = Normal::new(self.weights.len());
        for game in &games {
            normal.merge(game);
        }
        self.weights = normal.solve().context("the value regression is singular")?;
        let played = world.samples() - before;
        Ok(format!(
            "{} games of {:.1} pieces on average",
            self.options.games,
            played as f64 / self.options.games as f64
        ))
    }

    /// The greedy policy: rows cleared plus the value (the constant changes no choice).
    fn policy(&self) -> Vec<(String, f64)> {
        super::value_policy(&self.names, &self.weights)
    }

    fn save(&self) -> Result<serde_json::Value> {
        Ok(serde_json::to_value(self)?)
    }
}
