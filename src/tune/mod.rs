//! Tuning: optimizers behind one ask/tell trait, the experiment file, and the campaign
//! driver.
//!
//! An optimizer only proposes weight vectors ([`Optimizer::ask`]) and learns their
//! fitnesses ([`Optimizer::tell`]); it never plays a game. The [`driver`] owns everything
//! else: the budget, the seeds (common random numbers within a generation), logging,
//! checkpoints, resume and Ctrl-C. This is argmin's solver/executor split, turned inside
//! out so that the driver can evaluate a whole generation in parallel and checkpoint
//! between any two generations.
//!
//! Every optimizer is plain data (`Serialize`/`Deserialize`, its RNG included), so a
//! checkpoint is the optimizer serialized and a resumed campaign continues bit for bit.

use anyhow::{bail, Result};
use serde::{Deserialize, Serialize};

pub mod cmaes;
pub mod cross_entropy;
pub mod driver;
pub mod etetris_objective;
pub mod experiment;
pub mod genetic;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod nelder_mead;
pub mod objective;
pub mod plot;
pub mod pso;
pub mod random;
mod replay;
pub mod study;
pub mod target;

/// A fitness: higher is better. Minimizers (argmin's solvers) see [`Maximize::cost`].
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd, Serialize, Deserialize)]
pub struct Maximize(pub f64);

impl Maximize {
    /// The same fitness as a cost to minimize.
    pub fn cost(self) -> f64 {
        -self.0
    }
}

/// The tuned coordinates: one per tuned weight, with the optional range and start value
/// the experiment file gives.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Space {
    pub names: Vec<String>,
    /// Lower and upper bounds, where the experiment gives a range.
    pub ranges: Vec<Option<(f64, f64)>>,
    /// Start values (the experiment's `start`, else the preset's weight).
    pub start: Vec<f64>,
}

impl Space {
    pub fn dimension(&self) -> usize {
        self.names.len()
    }

    /// The bounds of every coordinate, or an error naming the first weight without one
    /// (`optimizer` needs them).
    pub fn bounds(&self, optimizer: &str) -> Result<(Vec<f64>, Vec<f64>)> {
        let mut lower = Vec::new();
        let mut upper = Vec::new();
        for (name, range) in self.names.iter().zip(&self.ranges) {
            match range {
                Some((low, high)) => {
                    lower.push(*low);
                    upper.push(*high);
                }
                None => bail!("optimizer {optimizer} needs a range for every tuned weight: give `{name} = {{ min = .., max = .. }}`"),
            }
        }
        Ok((lower, upper))
    }
}

/// An optimizer driven by ask/tell. Implementations are plain data: the driver saves them
/// with [`Optimizer::save`] after every generation.
pub trait Optimizer: Send {
    /// The candidates of the next generation (never empty), in the tuned space.
    fn ask(&mut self) -> Result<Vec<Vec<f64>>>;
    /// The fitnesses of the candidates of the last `ask`, in the same order.
    fn tell(&mut self, fitness: &[Maximize]) -> Result<()>;
    /// The point the method currently recommends (its mean, best particle, best vertex
    /// or fittest individual), if it has one: the driver's challenger for the incumbent.
    fn recommendation(&self) -> Option<Vec<f64>>;
    /// The whole state, RNG included, for checkpoints.
    fn save(&self) -> Result<serde_json::Value>;
}

#[allow(dead_code)]
fn assert_send_sync<T: Send + Sync + ?Sized>() {}
#[allow(dead_code)]
fn optimizers_are_send_and_sync() {
    assert_send_sync::<random::RandomSearch>();
    assert_send_sync::<pso::ParticleSwarm>();
    assert_send_sync::<nelder_mead::NelderMead>();
    assert_send_sync::<cross_entropy::CrossEntropy>();
    assert_send_sync::<cmaes::Cmaes>();
    assert_send_sync::<genetic::Genetic>();
}

/// Shared by the optimizers' tests: sphere and Rosenbrock as fitnesses (negated, since
/// fitness is maximized), and an ask/tell loop.
#[cfg(test)]
pub(crate) mod test_functions {
    use super::*;

    pub fn sphere(x: &[f64]) -> f64 {
        x.iter().map(|v| (v - 1.0).powi(2)).sum()
    }

    pub fn rosenbrock(x: &[f64]) -> f64 {
        x.windows(2).map(|w| 100.0 * (w[1] - w[0] * w[0]).powi(2) + (1.0 - w[0]).powi(2)).sum()
    }

    /// Runs `generations` ask/tell rounds minimizing `f`; returns the best value seen.
    pub fn minimize(optimizer: &mut dyn Optimizer, f: fn(&[f64]) -> f64, generations: usize) -> (f64, Vec<f64>) {
        let mut best = (f64::INFINITY, Vec::new());
        for _ in 0..generations {
            let candidates = optimizer.ask().unwrap();
            assert!(!candidates.is_empty());
            let fitness: Vec<Maximize> = candidates.iter().map(|x| Maximize(-f(x))).collect();
            for (x, m) in candidates.iter().zip(&fitness) {
                if -m.0 < best.0 {
                    best = (-m.0, x.clone());
                }
            }
            optimizer.tell(&fitness).unwrap();
        }
        best
    }

    pub fn space(dimension: usize, range: (f64, f64), start: f64) -> Space {
        Space {
            names: (0..dimension).map(|i| format!("w{i}")).collect(),
            ranges: vec![Some(range); dimension],
            start: vec![start; dimension],
        }
    }
}
