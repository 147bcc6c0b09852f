//! CMA-ES, our own implementation of Hansen's (mu/mu_w, lambda) CMA-ES with rank-one and
//! rank-mu updates and cumulative step-size adaptation, following "The CMA Evolution
//! Strategy: A Tutorial" (Hansen 2016, its `purecma` reference code). Own code rather than
//! the `cmaes` crate because that crate neither takes a seeded RNG we control nor exposes
//! its state to save and restore, which resuming bit-identically needs.
//!
//! Defaults from the tutorial: population 4 + floor(3 ln d), parents floor(population/2)
//! with log-linear weights, all learning rates as in its Table 1. The start mean is the
//! experiment's start (the preset's weights unless given); the initial step size defaults
//! to 0.3 of the mean range width, or 1 without ranges.

use super::{Maximize, Optimizer, Space};
use anyhow::{bail, Result};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;
use serde::{Deserialize, Serialize};

/// `[optimizer]` options for `kind = "cmaes"`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// Candidates per generation (lambda); default 4 + floor(3 ln d).
    pub population: Option<usize>,
    /// Initial step size (sigma).
    pub sigma: Option<f64>,
}

impl Options {
    pub fn validate(&self, space: &Space) -> Result<()> {
        if space.dimension() == 0 {
            bail!("cmaes needs at least one tuned weight");
        }
        if self.population.is_some_and(|p| p < 2) {
            bail!("optimizer.population must be at least 2");
        }
        if let Some(sigma) = self.sigma {
            if !(sigma.is_finite() && sigma > 0.0) {
                bail!("optimizer.sigma must be > 0, found {sigma}");
            }
        }
        Ok(())
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Cmaes {
    dimension: usize,
    lambda: usize,
    weights: Vec<f64>,
    mu_effective: f64,
    c_c: f64,
    c_sigma: f64,
    c_1: f64,
    c_mu: f64,
    damping: f64,
    chi_n: f64,
    mean: Vec<f64>,
    sigma: f64,
    /// Covariance, row-major d x d.
    covariance: Vec<f64>,
    /// Eigenvectors of the covariance (columns, row-major storage) and the square roots
    /// of its eigenvalues.
    basis: Vec<f64>,
    scales: Vec<f64>,
    path_c: Vec<f64>,
    path_sigma: Vec<f64>,
    generation: u64,
    candidates: Vec<Vec<f64>>,
    rng: ChaCha8Rng,
}

impl Cmaes {
    pub fn new(options: &Options, space: &Space, seed: u64) -> Result<Cmaes> {
        options.validate(space)?;
        let n = space.dimension();
        let nf = n as f64;
        let lambda = options.population.unwrap_or(4 + (3.0 * nf.ln()).floor() as usize);
        let mu = (lambda / 2).max(1);
        let raw: Vec<f64> = (1..=mu).map(|i| (mu as f64 + 0.5).ln() - (i as f64).ln()).collect();
        let total: f64 = raw.iter().sum();
        let weights: Vec<f64> = raw.iter().map(|w| w / total).collect();
        let mu_effective = 1.0 / weights.iter().map(|w| w * w).sum::<f64>();
        let c_c = (4.0 + mu_effective / nf) / (nf + 4.0 + 2.0 * mu_effective / nf);
        let c_sigma = (mu_effective + 2.0) / (nf + mu_effective + 5.0);
        let c_1 = 2.0 / ((nf + 1.3).powi(2) + mu_effective);
        let c_mu =
            (1.0 - c_1).min(2.0 * (mu_effective - 2.0 + 1.0 / mu_effective) / ((nf + 2.0).powi(2) + mu_effective));
        let damping = 1.0 + 2.0 * (((mu_effective - 1.0) / (nf + 1.0)).sqrt() - 1.0).max(0.0) + c_sigma;
        let chi_n = nf.sqrt() * (1.0 - 1.0 / (4.0 * nf) + 1.0 / (21.0 * nf * nf));
        let widths: Vec<f64> = space.ranges.iter().flatten().map(|(low, high)| high - low).collect();
        let sigma = options.sigma.unwrap_or_else(|| {
            if widths.len() == n && widths.iter().all(|w| *w > 0.0) {
                0.3 * widths.iter().sum::<f64>() / nf
            } else {
                1.0
            }
        });
        let mut identity = vec![0.0; n * n];
        for i in 0..n {
            identity[i * n + i] = 1.0;
        }
        Ok(Cmaes {
            dimension: n,
            lambda,
            weights,
            mu_effective,
            c_c,
            c_sigma,
            c_1,
            c_mu,
            damping,
            chi_n,
            mean: space.start.clone(),
            sigma,
            covariance: identity.clone(),
            basis: identity,
            scales: vec![1.0; n],
            path_c: vec![0.0; n],
            path_sigma: vec![0.0; n],
            generation: 0,
            candidates: Vec::new(),
            rng: ChaCha8Rng::seed_from_u64(seed),
        })
    }

    pub fn sigma(&self) -> f64 {
        self.sigma
    }

    /// Draws the generation's candidates unless they are drawn already.
    fn sample_generation(&mut self) {
        let n = self.dimension;
        if self.candidates.is_empty() {
            for _ in 0..self.lambda {
                let z: Vec<f64> = (0..n).map(|_| self.rng.sample::<f64, _>(StandardNormal)).collect();
                // x = m + sigma * B * D * z
                let x = (0..n)
                    .map(|i| {
                        let y: f64 = (0..n).map(|j| self.basis[i * n + j] * self.scales[j] * z[j]).sum();
                        self.mean[i] + self.sigma * y
                    })
                    .collect();
                self.candidates.push(x);
            }
        }
    }

    /// The generation's candidates, as `ask` gives them, each scaled to unit length; the
    /// update is made from the scaled ones. For objectives that do not depend on the
    /// vector's length (a greedy policy's weights), as MdpTetris' CMA-ES for Tetris does:
    /// the search stays on the sphere, where its step size can shrink, instead of drifting
    /// outwards along the direction nothing ranks.
    pub fn ask_on_unit_sphere(&mut self) -> Result<Vec<Vec<f64>>> {
        self.sample_generation();
        self.candidates.iter_mut().for_each(|candidate| scale_to_unit_length(candidate));
        Ok(self.candidates.clone())
    }
}

/// Scales `vector` to length 1 (the zero vector stays as it is).
pub fn scale_to_unit_length(vector: &mut [f64]) {
    let length = vector.iter().map(|x| x * x).sum::<f64>().sqrt();
    if length > 0.0 {
        vector.iter_mut().for_each(|x| *x /= length);
    }
}

impl Optimizer for Cmaes {
    fn ask(&mut self) -> Result<Vec<Vec<f64>>> {
        self.sample_generation();
        Ok(self.candidates.clone())
    }

    // Index loops mirror the tutorial's formulas term by term.
    #[allow(clippy::needless_range_loop)]
    fn tell(&mut self, fitness: &[Maximize]) -> Result<()> {
        let n = self.dimension;
        if fitness.len() != self.candidates.len() {
            bail!("cmaes: {} fitnesses for {} candidates", fitness.len(), self.candidates.len());
        }
        let mut order: Vec<usize> = (0..fitness.len()).collect();
        order.sort_by(|&a, &b| fitness[b].0.total_cmp(&fitness[a].0));
        // Steps y_i = (x_i - m) / sigma of the parents, best first.
        let steps: Vec<Vec<f64>> = order[..self.weights.len()]
            .iter()
            .map(|&k| (0..n).map(|i| (self.candidates[k][i] - self.mean[i]) / self.sigma).collect())
            .collect();
        let step_w: Vec<f64> = (0..n).map(|i| self.weights.iter().zip(&steps).map(|(w, y)| w * y[i]).sum()).collect();
        for i in 0..n {
            self.mean[i] += self.sigma * step_w[i];
        }
        // C^(-1/2) y_w = B D^-1 B^T y_w
        let rotated: Vec<f64> =
            (0..n).map(|j| (0..n).map(|i| self.basis[i * n + j] * step_w[i]).sum::<f64>() / self.scales[j]).collect();
        let whitened: Vec<f64> = (0..n).map(|i| (0..n).map(|j| self.basis[i * n + j] * rotated[j]).sum()).collect();
        let sigma_factor = (self.c_sigma * (2.0 - self.c_sigma) * self.mu_effective).sqrt();
        for i in 0..n {
            self.path_sigma[i] = (1.0 - self.c_sigma) * self.path_sigma[i] + sigma_factor * whitened[i];
        }
        let norm_sigma = self.path_sigma.iter().map(|v| v * v).sum::<f64>().sqrt();
        self.generation += 1;
        let decay = 1.0 - (1.0 - self.c_sigma).powi(2 * self.generation as i32);
        let h_sigma = norm_sigma / decay.sqrt() / self.chi_n < 1.4 + 2.0 / (n as f64 + 1.0);
        let h = if h_sigma { 1.0 } else { 0.0 };
        let c_factor = (self.c_c * (2.0 - self.c_c) * self.mu_effective).sqrt();
        for i in 0..n {
            self.path_c[i] = (1.0 - self.c_c) * self.path_c[i] + h * c_factor * step_w[i];
        }
        let keep = 1.0 - self.c_1 - self.c_mu;
        let lost = (1.0 - h) * self.c_c * (2.0 - self.c_c);
        for i in 0..n {
            for j in 0..n {
                let rank_mu: f64 = self.weights.iter().zip(&steps).map(|(w, y)| w * y[i] * y[j]).sum();
                let c = self.covariance[i * n + j];
                self.covariance[i * n + j] =
                    keep * c + self.c_1 * (self.path_c[i] * self.path_c[j] + lost * c) + self.c_mu * rank_mu;
            }
        }
        self.sigma *= ((self.c_sigma / self.damping) * (norm_sigma / self.chi_n - 1.0)).exp();
        let (values, vectors) = symmetric_eigen(&self.covariance, n);
        self.scales = values.iter().map(|v| v.max(1e-300).sqrt()).collect();
        self.basis = vectors;
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

/// Eigenvalues and eigenvectors (columns of a row-major n x n matrix) of a symmetric
/// matrix by cyclic Jacobi rotations: simple, deterministic, and exact enough for the
/// handful of weights a Tetris evaluator has.
#[allow(clippy::needless_range_loop)]
fn symmetric_eigen(matrix: &[f64], n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut a = matrix.to_vec();
    // Symmetrize against rounding.
    for i in 0..n {
        for j in 0..i {
            let v = 0.5 * (a[i * n + j] + a[j * n + i]);
            a[i * n + j] = v;
            a[j * n + i] = v;
        }
    }
    let mut v = vec![0.0; n * n];
    for i in 0..n {
        v[i * n + i] = 1.0;
    }
    for _sweep in 0..100 {
        let off: f64 = (0..n)
            .flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| a[i * n + j].powi(2))
            .sum();
        let diagonal: f64 = (0..n).map(|i| a[i * n + i].powi(2)).sum();
        if off <= 1e-30 * diagonal.max(1e-300) {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                let apq = a[p * n + q];
                if apq == 0.0 {
                    continue;
                }
                let theta = (a[q * n + q] - a[p * n + p]) / (2.0 * apq);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for k in 0..n {
                    let akp = a[k * n + p];
                    let akq = a[k * n + q];
                    a[k * n + p] = c * akp - s * akq;
                    a[k * n + q] = s * akp + c * akq;
                }
                for k in 0..n {
                    let apk = a[p * n + k];
                    let aqk = a[q * n + k];
                    a[p * n + k] = c * apk - s * aqk;
                    a[q * n + k] = s * apk + c * aqk;
                }
                for k in 0..n {
                    let vkp = v[k * n + p];
                    let vkq = v[k * n + q];
                    v[k * n + p] = c * vkp - s * vkq;
                    v[k * n + q] = s * vkp + c * vkq;
                }
            }
        }
    }
    ((0..n).map(|i| a[i * n + i]).collect(), v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tune::test_functions::*;

    #[test]
    fn eigen_of_a_known_matrix() {
        // [[2, 1], [1, 2]] has eigenvalues 1 and 3.
        let (mut values, vectors) = symmetric_eigen(&[2.0, 1.0, 1.0, 2.0], 2);
        values.sort_by(f64::total_cmp);
        assert!((values[0] - 1.0).abs() < 1e-12 && (values[1] - 3.0).abs() < 1e-12, "{values:?}");
        // Columns are orthonormal.
        let dot = vectors[0] * vectors[1] + vectors[2] * vectors[3];
        assert!(dot.abs() < 1e-12);
    }

    #[test]
    fn converges_on_sphere_and_rosenbrock() {
        let mut cma = Cmaes::new(&Options::default(), &space(4, (-5.0, 5.0), -2.0), 1).unwrap();
        minimize(&mut cma, sphere, 200);
        let mean = cma.recommendation().unwrap();
        assert!(sphere(&mean) < 1e-10, "sphere mean {mean:?}");
        let mut cma = Cmaes::new(&Options::default(), &space(3, (-2.0, 2.0), 0.0), 2).unwrap();
        let (best, x) = minimize(&mut cma, rosenbrock, 600);
        assert!(best < 1e-8, "rosenbrock best {best} at {x:?}");
    }

    #[test]
    fn normalized_candidates_converge_on_a_direction() {
        // A loss that depends only on the direction, flat along it, as a greedy policy's
        // classification loss is: the angle to a target. Scaled to unit length, the
        // candidates close in on the target, and the mean stays near the sphere.
        let target = [0.6, -0.8, 0.0, 0.0];
        let angle = |x: &[f64]| {
            let length = x.iter().map(|v| v * v).sum::<f64>().sqrt();
            (x.iter().zip(&target).map(|(a, b)| a * b).sum::<f64>() / length).clamp(-1.0, 1.0).acos()
        };
        let options = Options { population: Some(12), sigma: Some(0.5) };
        let mut cma = Cmaes::new(&options, &space(4, (-5.0, 5.0), 0.5), 3).unwrap();
        let mut best = f64::INFINITY;
        for _ in 0..150 {
            let candidates = cma.ask_on_unit_sphere().unwrap();
            for candidate in &candidates {
                let length = candidate.iter().map(|v| v * v).sum::<f64>().sqrt();
                assert!((length - 1.0).abs() < 1e-12, "{length}");
            }
            let losses: Vec<f64> = candidates.iter().map(|c| angle(c)).collect();
            best = losses.iter().copied().fold(best, f64::min);
            cma.tell(&losses.iter().map(|l| Maximize(-l)).collect::<Vec<_>>()).unwrap();
        }
        let mean = cma.recommendation().unwrap();
        let length = mean.iter().map(|v| v * v).sum::<f64>().sqrt();
        assert!(best < 1e-4 && angle(&mean) < 1e-3, "best angle {best}, mean {mean:?}");
        assert!((0.5..1.5).contains(&length), "{length}");
    }

    #[test]
    fn default_population() {
        let cma = Cmaes::new(&Options::default(), &space(6, (-1.0, 1.0), 0.0), 1).unwrap();
        assert_eq!(cma.lambda, 4 + (3.0 * 6f64.ln()).floor() as usize);
        assert!((cma.sigma() - 0.6).abs() < 1e-12);
    }
}
