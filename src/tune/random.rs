//! Random search: every candidate is drawn uniformly from the weights' ranges; the driver
//! keeps the best (re-evaluated on fresh seeds). Defaults follow the 7-term bot's tuner
//! (seed 003): 10 tries, each scored by mean turns survived over 30 games; the experiment
//! file sets the ranges (covered U[0,30), consecutive_changes U[0,10), ...).

use super::{Maximize, Optimizer, Space};
use anyhow::{bail, Result};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// `[optimizer]` options for `kind = "random"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// Candidates per generation (default 10: the 7-term bot's 10 tries in one generation).
    pub population: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options { population: 10 }
    }
}

impl Options {
    pub fn validate(&self, space: &Space) -> Result<()> {
        if self.population == 0 {
            bail!("optimizer.population must be at least 1");
        }
        space.bounds("random")?;
        Ok(())
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RandomSearch {
    population: usize,
    lower: Vec<f64>,
    upper: Vec<f64>,
    rng: ChaCha8Rng,
}

impl RandomSearch {
    pub fn new(options: &Options, space: &Space, seed: u64) -> Result<RandomSearch> {
        options.validate(space)?;
        let (lower, upper) = space.bounds("random")?;
        Ok(RandomSearch { population: options.population, lower, upper, rng: ChaCha8Rng::seed_from_u64(seed) })
    }
}

impl Optimizer for RandomSearch {
    fn ask(&mut self) -> Result<Vec<Vec<f64>>> {
        let rng = &mut self.rng;
        Ok((0..self.population)
            .map(|_| {
                self.lower
                    .iter()
                    .zip(&self.upper)
                    // A degenerate range [v, v] is allowed and means "always v".
                    .map(|(&low, &high)| if low < high { rng.random_range(low..high) } else { low })
                    .collect()
            })
            .collect())
    }

    fn tell(&mut self, fitness: &[Maximize]) -> Result<()> {
        if fitness.len() != self.population {
            bail!("random search: {} fitnesses for {} candidates", fitness.len(), self.population);
        }
        Ok(())
    }

    fn recommendation(&self) -> Option<Vec<f64>> {
        None
    }

    fn save(&self) -> Result<serde_json::Value> {
        Ok(serde_json::to_value(self)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tune::test_functions::*;

    #[test]
    fn samples_stay_in_range_and_find_the_sphere_bowl() {
        let mut search = RandomSearch::new(&Options { population: 50 }, &space(2, (-3.0, 3.0), 0.0), 7).unwrap();
        let (best, _) = minimize(&mut search, sphere, 40);
        // 2,000 uniform draws on a 6x6 square: the best lies within 0.1 of (1, 1) with
        // overwhelming probability (the miss probability is below 1e-6).
        assert!(best < 0.01, "best {best}");
        for x in search.ask().unwrap() {
            assert!(x.iter().all(|v| (-3.0..3.0).contains(v)));
        }
    }

    #[test]
    fn same_seed_same_candidates() {
        let s = space(3, (0.0, 1.0), 0.0);
        let mut a = RandomSearch::new(&Options::default(), &s, 1).unwrap();
        let mut b = RandomSearch::new(&Options::default(), &s, 1).unwrap();
        let mut c = RandomSearch::new(&Options::default(), &s, 2).unwrap();
        let first = a.ask().unwrap();
        assert_eq!(first, b.ask().unwrap());
        assert_ne!(first, c.ask().unwrap());
    }
}
