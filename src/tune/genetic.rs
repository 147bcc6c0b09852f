//! Yiyuan Lee's genetic algorithm ("Tetris AI - The (Near) Perfect Bot", 2013, and its
//! JavaScript source), step for step:
//! - candidates are weight vectors normalised to unit length; the first population
//!   (1,000) draws each weight from U(-0.5, 0.5) and normalises;
//! - each generation breeds 30% of the population (300) offspring; each offspring comes
//!   from a tournament of 10% of the population drawn without replacement, whose two
//!   fittest are the parents; child = fitness1 * parent1 + fitness2 * parent2, normalised;
//! - with probability 5% one component, chosen uniformly, moves by U(-0.2, 0.2), and the
//!   child is normalised again;
//! - the offspring are evaluated and replace the weakest 30% of the population.
//!
//! Lee's fitness is rows cleared over 100 games of at most 500 pieces: the experiment
//! sets that (`games`, `max_pieces`); this file only sees the fitness values.

use super::{Maximize, Optimizer, Space};
use anyhow::{bail, Result};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// `[optimizer]` options for `kind = "genetic"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    pub population: usize,
    pub offspring_fraction: f64,
    pub tournament_fraction: f64,
    pub mutation_rate: f64,
    pub mutation_step: f64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            population: 1000,
            offspring_fraction: 0.3,
            tournament_fraction: 0.1,
            mutation_rate: 0.05,
            mutation_step: 0.2,
        }
    }
}

impl Options {
    pub fn validate(&self, space: &Space) -> Result<()> {
        if space.dimension() == 0 {
            bail!("genetic needs at least one tuned weight");
        }
        if self.population < 2 {
            bail!("optimizer.population must be at least 2");
        }
        for (name, value) in
            [("offspring_fraction", self.offspring_fraction), ("tournament_fraction", self.tournament_fraction)]
        {
            if !(value > 0.0 && value <= 1.0) {
                bail!("optimizer.{name} must be in (0, 1], found {value}");
            }
        }
        if !(0.0..=1.0).contains(&self.mutation_rate) {
            bail!("optimizer.mutation_rate must be in [0, 1], found {}", self.mutation_rate);
        }
        if !(self.mutation_step.is_finite() && self.mutation_step >= 0.0) {
            bail!("optimizer.mutation_step must be >= 0, found {}", self.mutation_step);
        }
        Ok(())
    }

    fn offspring(&self) -> usize {
        ((self.population as f64 * self.offspring_fraction).round() as usize).clamp(1, self.population)
    }

    fn tournament(&self) -> usize {
        ((self.population as f64 * self.tournament_fraction).round() as usize).clamp(2, self.population)
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Genetic {
    options: Options,
    dimension: usize,
    /// The population with its fitnesses, fittest first (empty before the first tell).
    population: Vec<(Vec<f64>, f64)>,
    candidates: Vec<Vec<f64>>,
    rng: ChaCha8Rng,
}

fn normalised(mut v: Vec<f64>) -> Vec<f64> {
    let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
    v
}

impl Genetic {
    pub fn new(options: &Options, space: &Space, seed: u64) -> Result<Genetic> {
        options.validate(space)?;
        Ok(Genetic {
            options: options.clone(),
            dimension: space.dimension(),
            population: Vec::new(),
            candidates: Vec::new(),
            rng: ChaCha8Rng::seed_from_u64(seed),
        })
    }

    fn child(&mut self) -> Vec<f64> {
        // Tournament: indices drawn without replacement; the population is sorted, so the
        // two smallest indices are the two fittest.
        let mut indices: Vec<usize> = (0..self.population.len()).collect();
        let (mut first, mut second) = (usize::MAX, usize::MAX);
        for _ in 0..self.options.tournament() {
            let picked = indices.swap_remove(self.rng.random_range(0..indices.len()));
            if picked < first {
                second = first;
                first = picked;
            } else if picked < second {
                second = picked;
            }
        }
        let (p1, f1) = &self.population[first];
        let (p2, f2) = &self.population[second];
        let mut child: Vec<f64> = p1.iter().zip(p2).map(|(a, b)| f1 * a + f2 * b).collect();
        if child.iter().all(|&x| x == 0.0) {
            // Both parents scored 0 (or cancel out): Lee's formula gives the zero vector,
            // which has no direction; take the plain sum, else the first parent.
            child = p1.iter().zip(p2).map(|(a, b)| a + b).collect();
            if child.iter().all(|&x| x == 0.0) {
                child = p1.clone();
            }
        }
        let mut child = normalised(child);
        if self.rng.random::<f64>() < self.options.mutation_rate {
            let step = self.options.mutation_step;
            let amount = self.rng.random::<f64>() * 2.0 * step - step;
            let component = self.rng.random_range(0..self.dimension);
            child[component] += amount;
            child = normalised(child);
        }
        child
    }
}

impl Optimizer for Genetic {
    fn ask(&mut self) -> Result<Vec<Vec<f64>>> {
        if self.candidates.is_empty() {
            self.candidates = if self.population.is_empty() {
                (0..self.options.population)
                    .map(|_| normalised((0..self.dimension).map(|_| self.rng.random::<f64>() - 0.5).collect()))
                    .collect()
            } else {
                (0..self.options.offspring()).map(|_| self.child()).collect()
            };
        }
        Ok(self.candidates.clone())
    }

    fn tell(&mut self, fitness: &[Maximize]) -> Result<()> {
        if fitness.len() != self.candidates.len() {
            bail!("genetic: {} fitnesses for {} candidates", fitness.len(), self.candidates.len());
        }
        let newcomers = self.candidates.drain(..).zip(fitness.iter().map(|f| f.0));
        if self.population.is_empty() {
            self.population = newcomers.collect();
        } else {
            // Delete the weakest, add the offspring, sort again (stable: ties keep order).
            let keep = self.population.len() - fitness.len();
            self.population.truncate(keep);
            self.population.extend(newcomers);
        }
        self.population.sort_by(|a, b| b.1.total_cmp(&a.1));
        Ok(())
    }

    fn recommendation(&self) -> Option<Vec<f64>> {
        self.population.first().map(|(v, _)| v.clone())
    }

    fn save(&self) -> Result<serde_json::Value> {
        Ok(serde_json::to_value(self)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tune::test_functions::*;

    /// Lee's GA maximizes a scale-free fitness over directions: here the cosine with a
    /// target direction, which it must find.
    #[test]
    fn finds_a_target_direction() {
        let options = Options { population: 200, ..Options::default() };
        let target = normalised(vec![-0.5, 0.76, -0.36, -0.18]);
        let mut ga = Genetic::new(&options, &space(4, (0.0, 0.0), 0.0), 3).unwrap();
        for _ in 0..40 {
            let candidates = ga.ask().unwrap();
            for c in &candidates {
                assert!((c.iter().map(|x| x * x).sum::<f64>() - 1.0).abs() < 1e-9, "not unit length");
            }
            // Positive fitness, as rows cleared are.
            let fitness: Vec<Maximize> = candidates
                .iter()
                .map(|c| Maximize(1.0 + c.iter().zip(&target).map(|(a, b)| a * b).sum::<f64>()))
                .collect();
            ga.tell(&fitness).unwrap();
        }
        let best = ga.recommendation().unwrap();
        let cosine: f64 = best.iter().zip(&target).map(|(a, b)| a * b).sum();
        assert!(cosine > 0.995, "cosine {cosine}, best {best:?}");
    }

    #[test]
    fn generation_sizes() {
        let mut ga = Genetic::new(&Options::default(), &space(4, (0.0, 0.0), 0.0), 1).unwrap();
        let first = ga.ask().unwrap();
        assert_eq!(first.len(), 1000);
        ga.tell(&vec![Maximize(1.0); 1000]).unwrap();
        assert_eq!(ga.ask().unwrap().len(), 300);
        ga.tell(&vec![Maximize(2.0); 300]).unwrap();
        assert_eq!(ga.population.len(), 1000);
        assert_eq!(ga.population[0].1, 2.0);
    }
}
