//! The noisy cross-entropy method (Szita and Lorincz, "Learning Tetris Using the Noisy
//! Cross-Entropy Method", 2006; Thiery and Scherrer, "Building Controllers for Tetris",
//! 2009). Each weight is drawn from an independent normal distribution; after each
//! generation the mean and variance are refitted to the best candidates and a noise term
//! is added to the variance so that it does not collapse too early.
//!
//! Defaults from those papers: mean 0, variance 100, 100 vectors per generation, keep the
//! best 10%, constant noise 4 (or `decreasing`: max(5 - t/10, 0) at generation t).
//! Ranges are not used: the method is unbounded.

use super::{Maximize, Optimizer, Space};
use anyhow::{bail, Result};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;
use serde::{Deserialize, Serialize};

/// How the noise added to the variance evolves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Noise {
    /// `noise_level` every generation (default 4).
    Constant,
    /// max(`noise_level` - t / `noise_decay`, 0) at generation t = 0, 1, ... (default
    /// 5 - t/10).
    Decreasing,
    /// No noise: the plain cross-entropy method.
    None,
}

/// Where the mean starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum InitialMean {
    /// Every weight 0, as the papers do.
    Zero,
    /// The experiment's start values (the preset's weights unless given).
    Start,
}

/// `[optimizer]` options for `kind = "cross-entropy"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    pub population: usize,
    pub elite_fraction: f64,
    pub initial_mean: InitialMean,
    pub initial_variance: f64,
    pub noise: Noise,
    pub noise_level: Option<f64>,
    pub noise_decay: f64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            population: 100,
            elite_fraction: 0.1,
            initial_mean: InitialMean::Zero,
            initial_variance: 100.0,
            noise: Noise::Constant,
            noise_level: None,
            noise_decay: 10.0,
        }
    }
}

impl Options {
    pub fn validate(&self, space: &Space) -> Result<()> {
        if space.dimension() == 0 {
            bail!("cross-entropy needs at least one tuned weight");
        }
        if self.population < 2 {
            bail!("optimizer.population must be at least 2");
        }
        if !(self.elite_fraction > 0.0 && self.elite_fraction <= 1.0) {
            bail!("optimizer.elite_fraction must be in (0, 1], found {}", self.elite_fraction);
        }
        if !(self.initial_variance.is_finite() && self.initial_variance > 0.0) {
            bail!("optimizer.initial_variance must be > 0, found {}", self.initial_variance);
        }
        if let Some(level) = self.noise_level {
            if !(level.is_finite() && level >= 0.0) {
                bail!("optimizer.noise_level must be >= 0, found {level}");
            }
        }
        if !(self.noise_decay.is_finite() && self.noise_decay > 0.0) {
            bail!("optimizer.noise_decay must be > 0, found {}", self.noise_decay);
        }
        Ok(())
    }

    /// The noise added to the variance after generation `t`.
    fn noise_at(&self, t: u64) -> f64 {
        match self.noise {
            Noise::Constant => self.noise_level.unwrap_or(4.0),
            Noise::Decreasing => (self.noise_level.unwrap_or(5.0) - t as f64 / self.noise_decay).max(0.0),
            Noise::None => 0.0,
        }
    }

    fn elite(&self) -> usize {
        ((self.population as f64 * self.elite_fraction).round() as usize).clamp(1, self.population)
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CrossEntropy {
    options: Options,
    mean: Vec<f64>,
    variance: Vec<f64>,
    generation: u64,
    candidates: Vec<Vec<f64>>,
    rng: ChaCha8Rng,
}

impl CrossEntropy {
    pub fn new(options: &Options, space: &Space, seed: u64) -> Result<CrossEntropy> {
        options.validate(space)?;
        let mean = match options.initial_mean {
            InitialMean::Zero => vec![0.0; space.dimension()],
            InitialMean::Start => space.start.clone(),
        };
        Ok(CrossEntropy {
            options: options.clone(),
            variance: vec![options.initial_variance; mean.len()],
            mean,
            generation: 0,
            candidates: Vec::new(),
            rng: ChaCha8Rng::seed_from_u64(seed),
        })
    }

    pub fn variance(&self) -> &[f64] {
        &self.variance
    }

    /// Refuses a state read back from a checkpoint that does not fit `fresh` (a new
    /// optimizer of the same settings): other options, vectors of another length, a
    /// variance below 0, numbers that are not finite.
    pub fn check_restored(&self, fresh: &CrossEntropy) -> Result<()> {
        if self.options != fresh.options {
            bail!("the cross-entropy options differ from the experiment file's");
        }
        let dimension = fresh.mean.len();
        let finite = |x: &f64| x.is_finite() && x.abs() <= 1e100;
        if self.mean.len() != dimension || !self.mean.iter().all(finite) {
            bail!("the cross-entropy mean is not {dimension} finite numbers");
        }
        if self.variance.len() != dimension || !self.variance.iter().all(|v| finite(v) && *v >= 0.0) {
            bail!("the cross-entropy variance is not {dimension} finite numbers of at least 0");
        }
        let count = self.candidates.len();
        if !(count == 0 || count == self.options.population)
            || !self.candidates.iter().all(|c| c.len() == dimension && c.iter().all(finite))
        {
            bail!("the cross-entropy candidates are not a generation of {dimension}-weight vectors");
        }
        Ok(())
    }
}

impl Optimizer for CrossEntropy {
    fn ask(&mut self) -> Result<Vec<Vec<f64>>> {
        if self.candidates.is_empty() {
            let rng = &mut self.rng;
            self.candidates = (0..self.options.population)
                .map(|_| {
                    self.mean
                        .iter()
                        .zip(&self.variance)
                        .map(|(m, v)| m + v.sqrt() * rng.sample::<f64, _>(StandardNormal))
                        .collect()
                })
                .collect();
        }
        Ok(self.candidates.clone())
    }

    fn tell(&mut self, fitness: &[Maximize]) -> Result<()> {
        if fitness.len() != self.candidates.len() {
            bail!("cross-entropy: {} fitnesses for {} candidates", fitness.len(), self.candidates.len());
        }
        let mut order: Vec<usize> = (0..fitness.len()).collect();
        // Stable sort: equal fitnesses keep candidate order, so ties are deterministic.
        order.sort_by(|&a, &b| fitness[b].0.total_cmp(&fitness[a].0));
        let elite: Vec<&Vec<f64>> = order[..self.options.elite()].iter().map(|&i| &self.candidates[i]).collect();
        let count = elite.len() as f64;
        let noise = self.options.noise_at(self.generation);
        for d in 0..self.mean.len() {
            let mean = elite.iter().map(|x| x[d]).sum::<f64>() / count;
            let variance = elite.iter().map(|x| (x[d] - mean).powi(2)).sum::<f64>() / count;
            self.mean[d] = mean;
            self.variance[d] = variance + noise;
        }
        self.generation += 1;
        self.candidates.clear();
        Ok(())
    }

    fn recommendation(&self) -> Option<Vec<f64>> {
        (self.generation > 0).then(|| self.mean.clone())
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
    fn converges_on_sphere_without_noise_and_hovers_with_it() {
        let plain = Options { noise: Noise::None, ..Options::default() };
        let mut ce = CrossEntropy::new(&plain, &space(4, (0.0, 0.0), 0.0), 9).unwrap();
        minimize(&mut ce, sphere, 60);
        let mean = ce.recommendation().unwrap();
        assert!(sphere(&mean) < 1e-6, "mean {mean:?}");
        // Constant noise keeps the variance at least 4 (the point of the noise).
        let mut noisy = CrossEntropy::new(&Options::default(), &space(4, (0.0, 0.0), 0.0), 9).unwrap();
        minimize(&mut noisy, sphere, 30);
        assert!(noisy.variance().iter().all(|&v| v >= 4.0));
        assert!(sphere(&noisy.recommendation().unwrap()) < 1.0);
    }

    #[test]
    fn decreasing_noise_schedule() {
        let options = Options { noise: Noise::Decreasing, ..Options::default() };
        assert_eq!(options.noise_at(0), 5.0);
        assert_eq!(options.noise_at(10), 4.0);
        assert_eq!(options.noise_at(60), 0.0);
        assert_eq!(Options::default().noise_at(99), 4.0);
    }

    #[test]
    fn follows_the_rosenbrock_valley_with_a_little_noise() {
        // Without noise the distribution collapses in the curved valley before reaching
        // (1, 1); a small constant noise keeps it moving (the reason for the noise).
        let options =
            Options { noise: Noise::Constant, noise_level: Some(1e-3), initial_variance: 1.0, ..Options::default() };
        let mut ce = CrossEntropy::new(&options, &space(2, (0.0, 0.0), 0.0), 4).unwrap();
        let (best, x) = minimize(&mut ce, rosenbrock, 300);
        assert!(best < 0.02, "best {best} at {x:?}");
        let mean = ce.recommendation().unwrap();
        assert!((mean[0] - 1.0).abs() < 0.1 && (mean[1] - 1.0).abs() < 0.2, "mean {mean:?}");
    }
}
