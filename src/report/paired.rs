//! Is B better than A? Statistics of paired values (game i of both controllers on the same
//! pieces): the estimate of a fixed number of pairs (ratio of means with its interval, the
//! mean difference with its interval, a paired t-test), and a sequential probability ratio
//! test that stops as soon as the pairs so far decide between two hypotheses stated as a
//! user thinks of them: "B is at least `gain` better" against "B is no better".
//!
//! The sequential test is the one chess engines' test farms use (a generalised SPRT on a
//! normal approximation): with d = b - a and H0: E[d] = 0 against H1: E[d] = gain x E[a],
//! the log-likelihood ratio after n pairs is (m1 / s^2) (sum d - n m1 / 2), m1 = gain x
//! mean(a) and s^2 the sample variance of d, both estimated from the pairs so far. Wald's
//! bounds, ln(beta / (1 - alpha)) below and ln((1 - beta) / alpha) above, give error rates
//! of about alpha (B called better when it is no better) and beta (B called no better when
//! it is `gain` better). Both rates are checked by simulation in the tests below and, on
//! real games, in `tests/compare.rs`.

use crate::support::stats::t_quantile_95;
use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// Pairs seen before the sequential test may stop: its variance is estimated from the pairs,
/// and game lengths are skewed, so that a few dozen pairs with a low mean tend to have a
/// low variance too and would end the test early on the wrong side (with 30, the power at
/// the gain falls to about 0.93 where 0.95 is asked).
pub const MIN_PAIRS: u64 = 100;

/// Running sums of pairs (a, b), enough for every statistic here.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sums {
    pub pairs: u64,
    sum_a: f64,
    sum_b: f64,
    sum_aa: f64,
    sum_bb: f64,
    sum_ab: f64,
}

impl Sums {
    pub fn push(&mut self, a: f64, b: f64) {
        self.pairs += 1;
        self.sum_a += a;
        self.sum_b += b;
        self.sum_aa += a * a;
        self.sum_bb += b * b;
        self.sum_ab += a * b;
    }
    pub fn mean_a(&self) -> f64 {
        self.sum_a / self.pairs as f64
    }
    pub fn mean_b(&self) -> f64 {
        self.sum_b / self.pairs as f64
    }
    /// Sample (co)variances with n - 1: var a, var b, cov(a, b).
    fn moments(&self) -> (f64, f64, f64) {
        let n = self.pairs as f64;
        if self.pairs < 2 {
            return (0.0, 0.0, 0.0);
        }
        let var_a = (self.sum_aa - self.sum_a * self.sum_a / n) / (n - 1.0);
        let var_b = (self.sum_bb - self.sum_b * self.sum_b / n) / (n - 1.0);
        let cov = (self.sum_ab - self.sum_a * self.sum_b / n) / (n - 1.0);
        (var_a.max(0.0), var_b.max(0.0), cov)
    }
    /// The sample variance of d = b - a.
    pub fn difference_variance(&self) -> f64 {
        let (var_a, var_b, cov) = self.moments();
        (var_a + var_b - 2.0 * cov).max(0.0)
    }
    /// The sample correlation of a and b (NaN when either does not vary).
    pub fn correlation(&self) -> f64 {
        let (var_a, var_b, cov) = self.moments();
        cov / (var_a * var_b).sqrt()
    }
}

/// What a fixed number of pairs says.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    pub pairs: u64,
    pub mean_a: f64,
    pub mean_b: f64,
    /// mean(b) / mean(a) and its 95% interval (delta method, Student's t, at least 0).
    pub ratio: f64,
    pub ratio_low: f64,
    pub ratio_high: f64,
    /// mean(b - a) and its 95% interval (Student's t).
    pub difference: f64,
    pub difference_low: f64,
    pub difference_high: f64,
    /// Two-sided p-value of the paired t-test of "B and A have the same mean".
    pub p_value: f64,
}

impl Estimate {
    pub fn of(sums: &Sums) -> Estimate {
        let n = sums.pairs as f64;
        let (mean_a, mean_b) = (sums.mean_a(), sums.mean_b());
        let ratio = mean_b / mean_a;
        let (var_a, var_b, cov) = sums.moments();
        let t = if sums.pairs > 1 { t_quantile_95(sums.pairs as usize - 1) } else { f64::NAN };
        // The ratio's standard error by the delta method: the spread of b - ratio x a.
        let residual = (var_b - 2.0 * ratio * cov + ratio * ratio * var_a).max(0.0);
        let ratio_half = t * (residual / n).sqrt() / mean_a;
        let difference = mean_b - mean_a;
        let sd = sums.difference_variance().sqrt();
        let difference_half = t * sd / n.sqrt();
        let p_value = if sums.pairs < 2 {
            f64::NAN
        } else if sd == 0.0 {
            if difference == 0.0 {
                1.0
            } else {
                0.0
            }
        } else {
            let statistic = difference / (sd / n.sqrt());
            let student = StudentsT::new(0.0, 1.0, n - 1.0).expect("a valid t distribution");
            (2.0 * (1.0 - student.cdf(statistic.abs()))).min(1.0)
        };
        Estimate {
            pairs: sums.pairs,
            mean_a,
            mean_b,
            ratio,
            ratio_low: (ratio - ratio_half).max(0.0),
            ratio_high: ratio + ratio_half,
            difference,
            difference_low: difference - difference_half,
            difference_high: difference + difference_half,
            p_value,
        }
    }
}

/// The sequential test's hypotheses and error rates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sequential {
    /// H1: mean(b) >= (1 + gain) mean(a); H0: mean(b) <= mean(a).
    pub gain: f64,
    /// The chance of calling B better when it is no better.
    pub alpha: f64,
    /// The chance of calling B no better when it is `gain` better.
    pub beta: f64,
}

/// Which hypothesis the sequential test accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// The upper bound was crossed: B is at least `gain` better.
    Better,
    /// The lower bound was crossed: B is no better.
    NoBetter,
}

impl Decision {
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Better => "better",
            Decision::NoBetter => "no better",
        }
    }
}

impl Sequential {
    /// The log-likelihood ratio bounds: (lower, upper).
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// The log-likelihood ratio of H1 against H0 after the pairs summed.
    pub fn llr(&self, sums: &Sums) -> f64 {
        if sums.pairs < 2 {
            return 0.0;
        }
        let n = sums.pairs as f64;
        let shift = self.gain * sums.mean_a();
        let sum_difference = sums.sum_b - sums.sum_a;
        let centred = sum_difference - n * shift / 2.0;
        if shift == 0.0 || centred == 0.0 {
            return 0.0;
        }
        let variance = sums.difference_variance();
        if variance == 0.0 {
            // Every pair differs by the same amount: no doubt left either way.
            return if centred > 0.0 { f64::INFINITY } else { f64::NEG_INFINITY };
        }
        shift / variance * centred
    }

    /// The decision after the pairs summed, if they make one (never before [`MIN_PAIRS`]).
    pub fn decide(&self, sums: &Sums) -> Option<Decision> {
        if sums.pairs < MIN_PAIRS {
            return None;
        }
        let (lower, upper) = self.bounds();
        let llr = self.llr(sums);
        if llr >= upper {
            Some(Decision::Better)
        } else if llr <= lower {
            Some(Decision::NoBetter)
        } else {
            None
        }
    }

    /// The pairs a fixed-size one-sided test of the same error rates needs at the measured
    /// spread: ((z(1 - alpha) + z(1 - beta)) sd(d) / (gain mean(a)))^2.
    pub fn fixed_size_pairs(&self, sums: &Sums) -> f64 {
        let normal = Normal::new(0.0, 1.0).expect("the standard normal");
        let z = normal.inverse_cdf(1.0 - self.alpha) + normal.inverse_cdf(1.0 - self.beta);
        (z * sums.difference_variance().sqrt() / (self.gain * sums.mean_a())).powi(2).ceil()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn the_estimate_by_hand() {
        // Pairs (1, 2), (2, 2), (3, 5): means 2 and 3, ratio 1.5; d = 1, 0, 2: mean 1, sd 1.
        let mut sums = Sums::default();
        for (a, b) in [(1.0, 2.0), (2.0, 2.0), (3.0, 5.0)] {
            sums.push(a, b);
        }
        let e = Estimate::of(&sums);
        assert_eq!((e.mean_a, e.mean_b, e.ratio, e.difference), (2.0, 3.0, 1.5, 1.0));
        let close = |x: f64, y: f64| (x - y).abs() < 1e-5;
        // t(0.975, 2) = 4.302653: the difference's half-width is 4.302653 / sqrt(3).
        assert!((e.difference_high - 1.0 - 4.302653 / 3f64.sqrt()).abs() < 1e-5, "{e:?}");
        // Paired t = 1 / (1 / sqrt 3) = 1.732 with 2 degrees of freedom: p = 0.2254.
        assert!((e.p_value - 0.2254).abs() < 1e-3, "{}", e.p_value);
        // var a = 1, var b = 3, cov = 1.5; residual = 3 - 2 x 1.5 x 1.5 + 2.25 x 1 = 0.75.
        let half = 4.302653 * (0.75f64 / 3.0).sqrt() / 2.0;
        assert!(close(e.ratio_high, 1.5 + half) && close(e.ratio_low, 1.5 - half), "{e:?}");
    }

    #[test]
    fn identical_pairs_decide_no_better_at_once() {
        let test = Sequential { gain: 0.05, alpha: 0.05, beta: 0.05 };
        let mut sums = Sums::default();
        for i in 0..MIN_PAIRS {
            assert_eq!(test.decide(&sums), None);
            sums.push(i as f64 * 7.0, i as f64 * 7.0);
        }
        assert_eq!(test.llr(&sums), f64::NEG_INFINITY);
        assert_eq!(test.decide(&sums), Some(Decision::NoBetter));
        assert_eq!(Estimate::of(&sums).p_value, 1.0);
    }

    #[test]
    fn wald_bounds() {
        let (lower, upper) = Sequential { gain: 0.1, alpha: 0.05, beta: 0.05 }.bounds();
        assert!((lower + 2.944439).abs() < 1e-6 && (upper - 2.944439).abs() < 1e-6);
    }

    /// Geometric game lengths from 0 with mean `mean`.
    fn geometric(rng: &mut rand_chacha::ChaCha8Rng, mean: f64) -> f64 {
        let u: f64 = rng.random_range(f64::MIN_POSITIVE..1.0);
        (u.ln() / (1.0 - 1.0 / (mean + 1.0)).ln()).floor()
    }

    /// Runs the test to a decision on pairs of geometric lengths, A of mean 100 and B of
    /// mean 100 x `ratio`; returns the decision and the pairs it took.
    fn sequential_run(rng: &mut rand_chacha::ChaCha8Rng, test: &Sequential, ratio: f64) -> (Decision, u64) {
        let mut sums = Sums::default();
        loop {
            let (a, b) = (geometric(rng, 100.0), geometric(rng, 100.0 * ratio));
            sums.push(a, b);
            if let Some(decision) = test.decide(&sums) {
                return (decision, sums.pairs);
            }
        }
    }

    /// The error rates by simulation, on geometric lengths (sd about the mean, the hard
    /// case): 1,000 comparisons of B against an A of the same mean call B better at a rate
    /// alpha allows (at most 67 in 1,000, the binomial 99th percentile at 5%), and 1,000
    /// with B exactly `gain` better find it at a rate 1 - beta allows (at least 933, the
    /// 1st percentile at 95%); on average the sequential test needs about half the pairs of
    /// a fixed-size test of the same error rates.
    #[test]
    fn error_rates_hold_by_simulation() {
        let test = Sequential { gain: 0.05, alpha: 0.05, beta: 0.05 };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        const RUNS: usize = 1_000;
        let null: Vec<(Decision, u64)> = (0..RUNS).map(|_| sequential_run(&mut rng, &test, 1.0)).collect();
        let false_better = null.iter().filter(|(d, _)| *d == Decision::Better).count();
        assert!(false_better <= 67, "B called better {false_better} times in {RUNS}");
        let gain: Vec<(Decision, u64)> = (0..RUNS).map(|_| sequential_run(&mut rng, &test, 1.05)).collect();
        let found = gain.iter().filter(|(d, _)| *d == Decision::Better).count();
        assert!(found >= 933, "B found better {found} times in {RUNS}");
        // The fixed-size test of the same rates: ((1.645 + 1.645) sd / (0.05 x 100))^2 with
        // sd about sqrt(2) 100 for independent geometric lengths: about 8,700 pairs.
        let mean_pairs = |runs: &[(Decision, u64)]| runs.iter().map(|r| r.1 as f64).sum::<f64>() / runs.len() as f64;
        let mut sums = Sums::default();
        for _ in 0..100_000 {
            sums.push(geometric(&mut rng, 100.0), geometric(&mut rng, 100.0));
        }
        let fixed = test.fixed_size_pairs(&sums);
        assert!((8_000.0..9_500.0).contains(&fixed), "{fixed}");
        assert!(mean_pairs(&null) < 0.7 * fixed && mean_pairs(&gain) < 0.7 * fixed, "{}", mean_pairs(&null));
    }
}
