//! Summary statistics of a sample: mean, median, standard deviation and the 95% interval
//! of the mean (Student's t with n - 1 degrees of freedom, so small samples get the wide
//! intervals they need); quartiles; and the two-sample test the studies use to compare
//! experiments (Mann-Whitney U, Holm's correction across pairs, Vargha-Delaney's effect
//! size). Distributions come from `statrs`.

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// Summary of a sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    pub count: usize,
    pub mean: f64,
    pub median: f64,
    /// Sample standard deviation (n - 1).
    pub standard_deviation: f64,
    /// Half-width of the 95% interval of the mean (0 for a single value: nothing to
    /// estimate a spread from, as for a deterministic search).
    pub half_width_95: f64,
    pub min: f64,
    pub max: f64,
}

/// The two-sided 95% quantile of Student's t with `degrees` degrees of freedom (1.96 in
/// the limit; 12.71 for 1, 3.18 for 3).
pub fn t_quantile_95(degrees: usize) -> f64 {
    t_quantile(0.975, degrees)
}

/// The `probability` quantile of Student's t with `degrees` degrees of freedom (NaN for 0).
pub fn t_quantile(probability: f64, degrees: usize) -> f64 {
    if degrees == 0 {
        return f64::NAN;
    }
    StudentsT::new(0.0, 1.0, degrees as f64).expect("a valid t distribution").inverse_cdf(probability)
}

impl Summary {
    pub fn of(values: &[f64]) -> Summary {
        let n = values.len();
        if n == 0 {
            return Summary {
                count: 0,
                mean: f64::NAN,
                median: f64::NAN,
                standard_deviation: f64::NAN,
                half_width_95: f64::NAN,
                min: f64::NAN,
                max: f64::NAN,
            };
        }
        let mean = values.iter().sum::<f64>() / n as f64;
        let variance =
            if n > 1 { values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64 } else { 0.0 };
        let sd = variance.sqrt();
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let half_width_95 = if n > 1 { t_quantile_95(n - 1) * sd / (n as f64).sqrt() } else { 0.0 };
        Summary {
            count: n,
            mean,
            median: quantile(&sorted, 0.5),
            standard_deviation: sd,
            half_width_95,
            min: sorted[0],
            max: sorted[n - 1],
        }
    }
    pub fn low_95(&self) -> f64 {
        self.mean - self.half_width_95
    }
    pub fn high_95(&self) -> f64 {
        self.mean + self.half_width_95
    }
    /// Whether `x` lies in the 95% interval of the mean.
    pub fn contains(&self, x: f64) -> bool {
        (self.low_95()..=self.high_95()).contains(&x)
    }
}

/// The `q` quantile of sorted values, interpolated between order statistics (Hyndman and
/// Fan's type 7, R's and NumPy's default). NaN for no values.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    match sorted.len() {
        0 => f64::NAN,
        1 => sorted[0],
        n => {
            let position = q.clamp(0.0, 1.0) * (n - 1) as f64;
            let below = position.floor() as usize;
            let above = (below + 1).min(n - 1);
            sorted[below] + (position - below as f64) * (sorted[above] - sorted[below])
        }
    }
}

/// A two-sample comparison: Mann-Whitney's U test (two-sided) and the effect size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Comparison {
    /// U of the first sample: pairs (x, y) with x > y, plus half the ties.
    pub u: f64,
    /// Two-sided p-value: exact when there are no ties and the samples are small, else
    /// the normal approximation with tie and continuity corrections.
    pub p_value: f64,
    /// Vargha and Delaney's A: the probability that a value of the first sample beats one
    /// of the second (0.5: no difference; 0.71 and above is conventionally "large").
    pub effect_size: f64,
}

/// Mann-Whitney's U test of `a` against `b` (NaN p-value when a sample is empty).
pub fn mann_whitney(a: &[f64], b: &[f64]) -> Comparison {
    let (n1, n2) = (a.len(), b.len());
    if n1 == 0 || n2 == 0 {
        return Comparison { u: f64::NAN, p_value: f64::NAN, effect_size: f64::NAN };
    }
    let mut u = 0.0;
    for x in a {
        for y in b {
            u += if x > y {
                1.0
            } else if x == y {
                0.5
            } else {
                0.0
            };
        }
    }
    let pairs = (n1 * n2) as f64;
    let mut all: Vec<f64> = a.iter().chain(b).copied().collect();
    all.sort_by(f64::total_cmp);
    // Sizes of the groups of tied values, for the variance correction.
    let mut ties = Vec::new();
    let mut i = 0;
    while i < all.len() {
        let j = all[i..].iter().take_while(|v| **v == all[i]).count();
        if j > 1 {
            ties.push(j as f64);
        }
        i += j;
    }
    let p_value = if ties.is_empty() && n1 * n2 <= 10_000 {
        exact_two_sided(n1, n2, u)
    } else {
        let n = (n1 + n2) as f64;
        let tie_term: f64 = ties.iter().map(|t| t * t * t - t).sum();
        let variance = pairs / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)));
        if variance <= 0.0 {
            1.0
        } else {
            let distance = ((u - pairs / 2.0).abs() - 0.5).max(0.0);
            let normal = Normal::new(0.0, 1.0).expect("the standard normal");
            (2.0 * (1.0 - normal.cdf(distance / variance.sqrt()))).min(1.0)
        }
    };
    Comparison { u, p_value, effect_size: u / pairs }
}

/// The exact two-sided p-value of U (no ties): the number of arrangements with U at most
/// u, counted by the usual recursion over the largest value's sample.
fn exact_two_sided(n1: usize, n2: usize, u: f64) -> f64 {
    let max_u = n1 * n2;
    // counts[i][j][k]: arrangements of i values of the first sample and j of the second
    // with U = k; only the (i, j) layer before is needed, so roll over j.
    let mut previous: Vec<Vec<f64>> = vec![vec![0.0; max_u + 1]; n1 + 1];
    for row in previous.iter_mut() {
        row[0] = 1.0; // j = 0: U is 0 whatever i.
    }
    for j in 1..=n2 {
        let mut current: Vec<Vec<f64>> = vec![vec![0.0; max_u + 1]; n1 + 1];
        current[0][0] = 1.0;
        for i in 1..=n1 {
            for k in 0..=i * j {
                // The largest value is from the first sample (beating all j of the second)
                // or from the second (beating nobody of the first).
                let from_first = if k >= j { current[i - 1][k - j] } else { 0.0 };
                current[i][k] = from_first + previous[i][k];
            }
        }
        previous = current;
    }
    let counts = &previous[n1];
    let total: f64 = counts.iter().sum();
    let low = u.min(max_u as f64 - u).floor() as usize;
    let tail: f64 = counts[..=low].iter().sum::<f64>() / total;
    (2.0 * tail).min(1.0)
}

/// Holm's step-down correction of p-values (same order as given): controls the chance of
/// any false positive across the family at the nominal level.
pub fn holm(p_values: &[f64]) -> Vec<f64> {
    let m = p_values.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p_values[a].total_cmp(&p_values[b]));
    let mut adjusted = vec![0.0; m];
    let mut running: f64 = 0.0;
    for (rank, &i) in order.iter().enumerate() {
        running = running.max(((m - rank) as f64 * p_values[i]).min(1.0));
        adjusted[i] = running;
    }
    adjusted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_computed() {
        let s = Summary::of(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
        assert_eq!(s.mean, 5.0);
        assert_eq!(s.median, 4.5);
        assert!((s.standard_deviation - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
        // t(0.975, 7) = 2.3646 (tables).
        assert!((s.half_width_95 - 2.364624 * (32.0f64 / 7.0).sqrt() / 8f64.sqrt()).abs() < 1e-5);
        assert!(s.contains(6.5) && !s.contains(7.0));
        assert_eq!(Summary::of(&[3.0]).standard_deviation, 0.0);
        assert_eq!(Summary::of(&[3.0]).half_width_95, 0.0);
    }

    #[test]
    fn student_quantiles_match_the_tables() {
        for (degrees, table) in [(1, 12.706), (3, 3.182), (4, 2.776), (19, 2.093), (99, 1.984)] {
            assert!((t_quantile_95(degrees) - table).abs() < 1e-3, "{degrees}: {}", t_quantile_95(degrees));
        }
        assert!((t_quantile_95(1_000_000) - 1.960).abs() < 1e-3);
    }

    #[test]
    fn quartiles_interpolate() {
        let sorted = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&sorted, 0.25), 1.75);
        assert_eq!(quantile(&sorted, 0.5), 2.5);
        assert_eq!(quantile(&sorted, 1.0), 4.0);
        assert!(quantile(&[], 0.5).is_nan());
    }

    #[test]
    fn mann_whitney_by_hand() {
        // Every value of a beats every value of b: U = 9; of the C(6,3) = 20 arrangements
        // one has U = 9 and one U = 0, so the two-sided p is 2/20.
        let c = mann_whitney(&[4.0, 5.0, 6.0], &[1.0, 2.0, 3.0]);
        assert_eq!(c.u, 9.0);
        assert!((c.p_value - 0.1).abs() < 1e-12);
        assert_eq!(c.effect_size, 1.0);
        // Interleaved: U = 1 + 2 + 3 = 6 of 9 (a: 2, 4, 6 against b: 1, 3, 5); arrangements
        // with U >= 6 are 7 of 20 (U = 6: 3, 7: 2, 8: 1, 9: 1), so p = 14/20.
        let c = mann_whitney(&[2.0, 4.0, 6.0], &[1.0, 3.0, 5.0]);
        assert_eq!(c.u, 6.0);
        assert!((c.p_value - 0.7).abs() < 1e-12, "{}", c.p_value);
        // Ties take the normal approximation; identical samples give p = 1.
        let c = mann_whitney(&[1.0, 1.0, 2.0], &[1.0, 1.0, 2.0]);
        assert_eq!(c.u, 4.5);
        assert_eq!(c.p_value, 1.0);
    }

    #[test]
    fn holm_steps_down() {
        let adjusted = holm(&[0.01, 0.04, 0.03]);
        // Sorted 0.01, 0.03, 0.04 times 3, 2, 1: 0.03, 0.06, 0.04 -> monotone 0.03, 0.06, 0.06.
        let expected = [0.03, 0.06, 0.06];
        for (a, e) in adjusted.iter().zip(expected) {
            assert!((a - e).abs() < 1e-12, "{adjusted:?}");
        }
    }
}
