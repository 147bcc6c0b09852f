//! The mean length of a game on a tall board, estimated from full games on shorter boards
//! of the same width.
//!
//! A controller's mean game length grows geometrically with the board's height (about
//! 2.3x per added row for Dellacherie's controller, 2.6x for BCTS's, on `simplified`
//! rules): a game ends when a rare run of bad pieces overflows the stack, and each added
//! row makes that run rarer by a near-constant factor. So the logarithm of the mean is
//! close to a straight line in the height. This module fits that line by weighted least
//! squares over full games at several heights, each height weighted by the precision of
//! its log-mean (delta method: variance `sd^2 / (mean^2 n)`), and carries it to the target
//! height with a 95% interval.
//!
//! The interval is honest about two things a plain fit would hide: when the points
//! scatter about the line more than their own sampling error allows (chi-square over the
//! degrees of freedom above 1) the covariance is scaled up by that ratio, and the quantile
//! is Student's t with `heights - 2` degrees of freedom rather than the normal one. What
//! it cannot include is a bend of the line beyond the measured heights; how far that
//! matters was measured by predicting heights where full games are affordable (README,
//! "Reproduced results").

use anyhow::{bail, Result};
use statrs::distribution::{ChiSquared, ContinuousCDF};

use crate::support::stats::t_quantile;

/// Full games at one height: how many, their mean and sample standard deviation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeightSample {
    pub height: usize,
    pub games: usize,
    pub mean: f64,
    pub standard_deviation: f64,
}

/// The fitted line `ln(mean) = intercept + slope * height`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeightFit {
    pub intercept: f64,
    pub slope: f64,
    /// Variances and covariance of intercept and slope, already scaled by `dispersion`.
    pub variance_intercept: f64,
    pub variance_slope: f64,
    pub covariance: f64,
    /// Heights minus the two fitted parameters.
    pub degrees_of_freedom: usize,
    /// The weighted residual sum of squares (chi-square).
    pub chi_square: f64,
    /// `max(1, chi_square / degrees_of_freedom)`: how much the covariance was widened.
    pub dispersion: f64,
    /// Probability of a chi-square at least this large if the line were exact: a small
    /// value says the points bend away from a straight line.
    pub fit_p_value: f64,
    pub lowest_height: usize,
    pub highest_height: usize,
}

/// An estimate with its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prediction {
    pub height: usize,
    pub mean: f64,
    pub low: f64,
    pub high: f64,
}

impl Prediction {
    /// `high / low`: how many times wider the upper end is than the lower one.
    pub fn width_factor(&self) -> f64 {
        self.high / self.low
    }
}

impl HeightFit {
    /// Fits the line. Needs at least three distinct heights (one degree of freedom left to
    /// judge the fit), at least two games and a positive mean at each.
    pub fn fit(samples: &[HeightSample]) -> Result<HeightFit> {
        let mut heights: Vec<usize> = samples.iter().map(|s| s.height).collect();
        heights.sort_unstable();
        heights.dedup();
        if heights.len() != samples.len() {
            bail!("extrapolation: each height may appear only once");
        }
        if samples.len() < 3 {
            bail!("extrapolation needs full games at three heights or more, got {}", samples.len());
        }
        let mut points = Vec::with_capacity(samples.len());
        for sample in samples {
            let HeightSample { height, games, mean, standard_deviation } = *sample;
            if games < 2 || !mean.is_finite() || mean <= 0.0 || !standard_deviation.is_finite() {
                bail!("extrapolation: height {height} needs two games or more with a positive mean");
            }
            // A sample whose games all ended alike has no spread to weigh it by; give it the
            // spread of one game in its mean rather than an infinite weight.
            let relative = (standard_deviation / mean).max(1.0 / games as f64);
            let variance = relative * relative / games as f64;
            points.push((height as f64, mean.ln(), 1.0 / variance));
        }
        let (mut s, mut sx, mut sxx, mut sy, mut sxy) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for &(x, y, w) in &points {
            s += w;
            sx += w * x;
            sxx += w * x * x;
            sy += w * y;
            sxy += w * x * y;
        }
        let determinant = s * sxx - sx * sx;
        let slope = (s * sxy - sx * sy) / determinant;
        let intercept = (sxx * sy - sx * sxy) / determinant;
        let chi_square: f64 = points.iter().map(|&(x, y, w)| w * (y - intercept - slope * x).powi(2)).sum();
        let degrees_of_freedom = points.len() - 2;
        let dispersion = (chi_square / degrees_of_freedom as f64).max(1.0);
        let fit_p_value = ChiSquared::new(degrees_of_freedom as f64)
            .map(|distribution| distribution.sf(chi_square))
            .unwrap_or(f64::NAN);
        Ok(HeightFit {
            intercept,
            slope,
            variance_intercept: dispersion * sxx / determinant,
            variance_slope: dispersion * s / determinant,
            covariance: -dispersion * sx / determinant,
            degrees_of_freedom,
            chi_square,
            dispersion,
            fit_p_value,
            lowest_height: heights[0],
            highest_height: heights[heights.len() - 1],
        })
    }

    /// The factor by which the mean grows per added row, with its 95% interval.
    pub fn growth_per_row(&self) -> (f64, f64, f64) {
        let half = t_quantile(0.975, self.degrees_of_freedom) * self.variance_slope.sqrt();
        (self.slope.exp(), (self.slope - half).exp(), (self.slope + half).exp())
    }

    /// The mean at `height`, with its 95% interval.
    pub fn predict(&self, height: usize) -> Prediction {
        let x = height as f64;
        let log_mean = self.intercept + self.slope * x;
        let variance = self.variance_intercept + x * x * self.variance_slope + 2.0 * x * self.covariance;
        let half = t_quantile(0.975, self.degrees_of_freedom) * variance.max(0.0).sqrt();
        Prediction { height, mean: log_mean.exp(), low: (log_mean - half).exp(), high: (log_mean + half).exp() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(height: usize, mean: f64) -> HeightSample {
        HeightSample { height, games: 100, mean, standard_deviation: mean }
    }

    #[test]
    fn an_exact_geometric_series_is_carried_on_exactly() {
        // 10 rows at height 4, times 2.5 per row: the fit must find 2.5 and no scatter.
        let samples: Vec<HeightSample> = (4..=9).map(|h| sample(h, 10.0 * 2.5f64.powi(h as i32 - 4))).collect();
        let fit = HeightFit::fit(&samples).unwrap();
        assert!((fit.slope.exp() - 2.5).abs() < 1e-12, "{}", fit.slope.exp());
        assert!(fit.chi_square < 1e-20);
        assert_eq!(fit.dispersion, 1.0);
        let prediction = fit.predict(20);
        let exact = 10.0 * 2.5f64.powi(16);
        assert!((prediction.mean / exact - 1.0).abs() < 1e-9);
        assert!(prediction.low < exact && exact < prediction.high);
    }

    #[test]
    fn the_interval_by_hand() {
        // Three heights, 100 games each with sd = mean: every log-mean has variance 0.01.
        // ln means 0, 1, 2 + 0.3 at heights 0, 1, 2: slope = 1.15, intercept = -0.05,
        // residuals -0.05... the weighted sums give Var(slope) = 0.005 per unit variance.
        let samples = [sample(0, 1.0), sample(1, 1f64.exp()), sample(2, 2.3f64.exp())];
        let fit = HeightFit::fit(&samples).unwrap();
        assert!((fit.slope - 1.15).abs() < 1e-12);
        assert!((fit.intercept - -0.05).abs() < 1e-12);
        // Residuals -0.05 + 0.1 - 0.05 -> chi-square (0.0025 + 0.01 + 0.0025) / 0.01 = 1.5,
        // one degree of freedom: the covariance is widened 1.5 times.
        assert!((fit.chi_square - 1.5).abs() < 1e-9);
        assert!((fit.dispersion - 1.5).abs() < 1e-9);
        assert!((fit.variance_slope - 1.5 * 0.005).abs() < 1e-12);
        // At height 3: variance 1.5 * (Var a + 9 Var b + 6 Cov) = 1.5 * 0.01 * (5/6 + 9/2 - 3)
        // = 0.035; half-width t(1) 12.706 * sqrt(0.035).
        let prediction = fit.predict(3);
        let half = 12.706_204_736 * 0.035f64.sqrt();
        assert!((prediction.mean.ln() - 3.4).abs() < 1e-12);
        assert!((prediction.high.ln() - (3.4 + half)).abs() < 1e-6, "{}", prediction.high.ln());
        assert!((prediction.low.ln() - (3.4 - half)).abs() < 1e-6);
    }

    #[test]
    fn a_bent_series_widens_the_interval() {
        let straight: Vec<HeightSample> = (4..=9).map(|h| sample(h, 2.3f64.powi(h as i32))).collect();
        let bent: Vec<HeightSample> =
            (4..=9).map(|h| sample(h, 2.3f64.powi(h as i32) * (0.1 * (h as f64 - 6.5).powi(2)).exp())).collect();
        let straight = HeightFit::fit(&straight).unwrap().predict(20);
        let bent_fit = HeightFit::fit(&bent).unwrap();
        assert!(bent_fit.dispersion > 1.0);
        assert!(bent_fit.fit_p_value < 0.05);
        assert!(bent_fit.predict(20).width_factor() > straight.width_factor());
    }

    #[test]
    fn too_few_or_bad_samples_are_refused() {
        assert!(HeightFit::fit(&[sample(8, 10.0), sample(9, 20.0)]).is_err());
        assert!(HeightFit::fit(&[sample(8, 10.0), sample(8, 20.0), sample(9, 30.0)]).is_err());
        assert!(HeightFit::fit(&[sample(8, 10.0), sample(9, 0.0), sample(10, 30.0)]).is_err());
        let mut one_game = sample(10, 30.0);
        one_game.games = 1;
        assert!(HeightFit::fit(&[sample(8, 10.0), sample(9, 20.0), one_game]).is_err());
    }
}
