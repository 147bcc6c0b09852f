//! Driving an argmin solver ask/tell.
//!
//! argmin's executor owns the loop and calls the cost function from inside a solver's
//! `next_iter`, so it cannot hand a generation to our driver and wait. Its solvers are
//! deterministic values, though (the RNG lives in the solver), so we run an iteration on
//! a clone against a cost function that answers only from fitnesses already told: the
//! first time it meets a point it does not know it records it and fails the iteration.
//! Those points are what `ask` returns; after `tell` the clone is run again from the
//! same state, now gets every answer, and its result replaces the solver. Replays are
//! bit-identical because the clone starts from the same bits. The solver and the
//! state it carries are serde values (argmin's `serde1` feature), so checkpoints are exact.

use argmin::core::{CostFunction, Error, Problem, SyncAlias};
use serde::{Deserialize, Serialize};
use std::borrow::Borrow;
use std::sync::Mutex;

/// Costs told so far for the iteration in progress, and the points it still needs.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Replay {
    /// (point, cost) pairs; cost = minus the fitness.
    pub known: Vec<(Vec<f64>, f64)>,
    /// The points of the last `ask`, awaiting their fitnesses.
    pub pending: Vec<Vec<f64>>,
}

/// The outcome of one replayed iteration.
pub enum Step<T> {
    Done(T),
    Needs(Vec<Vec<f64>>),
}

impl Replay {
    /// Runs `iteration` against the known costs.
    pub fn run<T>(&self, iteration: impl FnOnce(&mut Problem<Lookup>) -> Result<T, Error>) -> anyhow::Result<Step<T>> {
        let mut problem = Problem::new(Lookup { known: self.known.clone(), missing: Mutex::new(Vec::new()) });
        let result = iteration(&mut problem);
        let missing = problem
            .take_problem()
            .map(|lookup| lookup.missing.into_inner().expect("lock not poisoned"))
            .unwrap_or_default();
        match result {
            Ok(value) => Ok(Step::Done(value)),
            Err(_) if !missing.is_empty() => Ok(Step::Needs(missing)),
            Err(e) => Err(anyhow::anyhow!("{e}")),
        }
    }

    /// Records the fitnesses of the pending points.
    pub fn tell(&mut self, fitness: &[super::Maximize]) -> anyhow::Result<()> {
        if fitness.len() != self.pending.len() {
            anyhow::bail!("{} fitnesses for {} candidates", fitness.len(), self.pending.len());
        }
        for (point, f) in self.pending.drain(..).zip(fitness) {
            self.known.push((point, f.cost()));
        }
        Ok(())
    }
}

/// The cost function of a replayed iteration.
pub struct Lookup {
    known: Vec<(Vec<f64>, f64)>,
    missing: Mutex<Vec<Vec<f64>>>,
}

impl Lookup {
    fn find(&self, point: &[f64]) -> Option<f64> {
        self.known
            .iter()
            .find(|(p, _)| p.len() == point.len() && p.iter().zip(point).all(|(a, b)| a.to_bits() == b.to_bits()))
            .map(|(_, cost)| *cost)
    }
}

impl CostFunction for Lookup {
    type Param = Vec<f64>;
    type Output = f64;

    fn cost(&self, point: &Vec<f64>) -> Result<f64, Error> {
        self.find(point).ok_or_else(|| {
            self.missing.lock().expect("lock not poisoned").push(point.clone());
            anyhow::anyhow!("point not evaluated yet")
        })
    }

    /// All unknown points of a bulk request are recorded at once, so a swarm's whole
    /// generation is asked together (and evaluated in parallel by the driver).
    fn bulk_cost<P>(&self, points: &[P]) -> Result<Vec<f64>, Error>
    where
        P: Borrow<Vec<f64>> + SyncAlias,
        f64: argmin::core::SendAlias,
        Self: SyncAlias,
    {
        let costs: Vec<Option<f64>> = points.iter().map(|p| self.find(p.borrow())).collect();
        if costs.iter().all(Option::is_some) {
            return Ok(costs.into_iter().flatten().collect());
        }
        let mut missing = self.missing.lock().expect("lock not poisoned");
        for (p, c) in points.iter().zip(&costs) {
            if c.is_none() {
                missing.push(p.borrow().clone());
            }
        }
        Err(anyhow::anyhow!("points not evaluated yet"))
    }
}
