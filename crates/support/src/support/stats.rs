//! Summary statistics of a sample: mean, median, standard deviation and the 95% interval
//! of the mean, by a method that respects what the values are ([`Quantity`]): game lengths
//! get the exact interval of an exponential mean (they are close to geometric, with a
//! standard deviation about equal to the mean, so Student's t would reach below zero on
//! small samples); other values that cannot be negative get Student's t cut at zero;
//! differences get Student's t. Also quartiles, and the two-sample test the studies use
//! to compare experiments (Mann-Whitney U, Holm's correction across pairs,
//! Vargha-Delaney's effect size). Distributions come from `statrs`.

use statrs::distribution::{ChiSquared, ContinuousCDF, Normal, StudentsT};

/// What a sample's values are, which decides the interval of their mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantity {
    /// A count per game that a game ends by chance, with the same chance at every piece
    /// (every rule set but the frame games, whose speed rises): rows cleared, pieces placed. The
    /// interval is the exact one of an exponential mean, taken on count + 1 (a geometric
    /// count from 1 has a standard deviation below its mean, which makes the exponential
    /// interval conservative, whatever the board; a count from 0 would not), minus 1 and
    /// never below 0.
    GameLength,
    /// Any other value that cannot be negative: a score, a level, a run's fitness.
    /// Student's t, cut at 0 (cutting at the possible range loses no coverage).
    NonNegative,
    /// A value of either sign, such as a paired difference: Student's t.
    Signed,
}

impl Quantity {
    /// Rows or pieces per game: [`Quantity::GameLength`] when a game ends by chance, the
    /// same at every piece (`memoryless`); otherwise (the frame games, which end when the
    /// speed outruns the player, at a length that varies far less) [`Quantity::NonNegative`].
    pub fn length(memoryless: bool) -> Quantity {
        if memoryless {
            Quantity::GameLength
        } else {
            Quantity::NonNegative
        }
    }

    /// The interval's method as the output and the docs name it.
    pub fn interval_method(self) -> &'static str {
        match self {
            Quantity::GameLength => "exponential",
            Quantity::NonNegative => "t, at least 0",
            Quantity::Signed => "t",
        }
    }
}

/// Summary of a sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    pub count: usize,
    pub mean: f64,
    pub median: f64,
    /// Sample standard deviation (n - 1).
    pub standard_deviation: f64,
    /// The 95% interval of the mean. For one value, Student's t has nothing to estimate a
    /// spread from (as for a deterministic search): the interval is the value itself.
    pub low_95: f64,
    pub high_95: f64,
    /// What the values are, hence how the interval was made.
    pub quantity: Quantity,
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

/// The `probability` quantile of the chi-square distribution with `degrees` degrees of
/// freedom.
pub fn chi_square_quantile(probability: f64, degrees: f64) -> f64 {
    ChiSquared::new(degrees).expect("a valid chi-square distribution").inverse_cdf(probability)
}

/// The exact 95% interval of the mean of `count` exponential values summing to `sum`:
/// 2 sum / mean follows chi-square with 2 count degrees of freedom.
fn exponential_mean_interval(sum: f64, count: usize) -> (f64, f64) {
    let degrees = 2.0 * count as f64;
    (2.0 * sum / chi_square_quantile(0.975, degrees), 2.0 * sum / chi_square_quantile(0.025, degrees))
}

impl Summary {
    pub fn of(values: &[f64], quantity: Quantity) -> Summary {
        let n = values.len();
        if n == 0 {
            return Summary {
                count: 0,
                mean: f64::NAN,
                median: f64::NAN,
                standard_deviation: f64::NAN,
                low_95: f64::NAN,
                high_95: f64::NAN,
                quantity,
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
        let (low_95, high_95) = match quantity {
            Quantity::GameLength => {
                let shifted_sum = values.iter().map(|v| v + 1.0).sum::<f64>();
                let (low, high) = exponential_mean_interval(shifted_sum, n);
                ((low - 1.0).max(0.0), high - 1.0)
            }
            Quantity::NonNegative | Quantity::Signed => {
                let half = if n > 1 { t_quantile_95(n - 1) * sd / (n as f64).sqrt() } else { 0.0 };
                let low = if quantity == Quantity::NonNegative { (mean - half).max(0.0) } else { mean - half };
                (low, mean + half)
            }
        };
        Summary {
            count: n,
            mean,
            median: quantile(&sorted, 0.5),
            standard_deviation: sd,
            low_95,
            high_95,
            quantity,
            min: sorted[0],
            max: sorted[n - 1],
        }
    }
    pub fn low_95(&self) -> f64 {
        self.low_95
    }
    pub fn high_95(&self) -> f64 {
        self.high_95
    }
    /// The interval cut at `max`, the most a value can be (a piece cap; the rows the pieces
    /// of a cap can clear): cutting at the possible range costs no coverage.
    pub fn at_most(mut self, max: f64) -> Summary {
        self.low_95 = self.low_95.min(max);
        self.high_95 = self.high_95.min(max);
        self
    }
    /// [`Summary::at_most`] the rows `pieces` pieces can clear on a board `width` wide
    /// (4 cells a piece, `width` cells a row), for any cap (no overflow past 2^62 pieces).
    pub fn at_most_rows(self, pieces: u64, width: usize) -> Summary {
        self.at_most((4 * pieces as u128 / width.max(1) as u128) as f64)
    }
    /// Whether `x` lies in the 95% interval of the mean.
    pub fn contains(&self, x: f64) -> bool {
        (self.low_95..=self.high_95).contains(&x)
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
        let s = Summary::of(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0], Quantity::Signed);
        assert_eq!(s.mean, 5.0);
        assert_eq!(s.median, 4.5);
        assert!((s.standard_deviation - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
        // t(0.975, 7) = 2.3646 (tables).
        assert!((s.high_95 - 5.0 - 2.364624 * (32.0f64 / 7.0).sqrt() / 8f64.sqrt()).abs() < 1e-5);
        assert!(s.contains(6.5) && !s.contains(7.0));
        let one = Summary::of(&[3.0], Quantity::NonNegative);
        assert_eq!((one.standard_deviation, one.low_95, one.high_95), (0.0, 3.0, 3.0));
    }

    #[test]
    fn the_intervals_by_hand() {
        // Rows of three games: 0, 1, 8; mean 3, sd 4.36. Student's t reaches -7.8.
        let rows = [0.0, 1.0, 8.0];
        let t = Summary::of(&rows, Quantity::Signed);
        assert!((t.low_95 - (3.0 - 4.302653 * 19f64.sqrt() / 3f64.sqrt())).abs() < 1e-4, "{}", t.low_95);
        assert_eq!(Summary::of(&rows, Quantity::NonNegative).low_95, 0.0);
        // The exponential interval on count + 1 (sum 12, 6 degrees of freedom; chi-square
        // quantiles 1.237347 and 14.449375 from the tables): [2*12/14.449 - 1, 2*12/1.2373 - 1].
        let e = Summary::of(&rows, Quantity::GameLength);
        assert!((e.low_95 - (24.0 / 14.449375 - 1.0)).abs() < 1e-4, "{}", e.low_95);
        assert!((e.high_95 - (24.0 / 1.237347 - 1.0)).abs() < 1e-3, "{}", e.high_95);
        // Short games: the lower bound stops at 0.
        assert_eq!(Summary::of(&[0.0, 0.0, 1.0], Quantity::GameLength).low_95, 0.0);
        // Cut at what a cap allows.
        assert_eq!(Summary::of(&[10.0, 10.0], Quantity::GameLength).at_most(10.0).high_95, 10.0);
        // The rows a cap's pieces can clear, for caps whose 4 cells a piece overflow u64.
        let rows = Summary::of(&[13.0, 14.0, 14.0], Quantity::GameLength);
        assert_eq!(rows.at_most_rows(15, 6).high_95, 10.0);
        let huge = rows.at_most_rows(1 << 62, 6);
        assert!(huge.low_95 > 0.0 && huge.high_95 > 14.0 && huge.contains(13.7), "{huge:?}");
        assert_eq!(rows.at_most_rows(u64::MAX, 10), rows);
        // One random game still has an interval.
        let one = Summary::of(&[9.0], Quantity::GameLength);
        assert!(one.low_95 < 9.0 && one.high_95 > 100.0, "{one:?}");
    }

    #[test]
    fn chi_square_quantiles_match_the_tables() {
        for (p, degrees, table) in [(0.025, 2.0, 0.050636), (0.975, 2.0, 7.377759), (0.975, 10.0, 20.483177)] {
            assert!((chi_square_quantile(p, degrees) - table).abs() < 1e-5, "{p} {degrees}");
        }
        // Large samples (two million degrees of freedom: a million games) stay finite and
        // close to the normal approximation.
        let q = chi_square_quantile(0.975, 2e6);
        assert!((q - (2e6 + 1.959964 * (4e6f64).sqrt())).abs() < 5.0, "{q}");
    }

    /// Coverage by simulation: geometric game lengths (from 0, like rows) of several
    /// means, capped or not, in samples of 5, 20 and 100: the exponential interval holds
    /// the true mean at least about 95% of the time, where Student's t falls short on
    /// small samples.
    #[test]
    fn the_game_length_interval_covers() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        const REPEATS: usize = 2_000;
        let mut t_short = false;
        for (mean, cap) in [(0.5, None), (5.0, None), (100.0, None), (100.0, Some(150.0))] {
            let p: f64 = 1.0 / (mean + 1.0);
            let draw = |rng: &mut rand_chacha::ChaCha8Rng| {
                // Failures before the first success: a geometric count from 0.
                let u: f64 = rng.random_range(f64::MIN_POSITIVE..1.0);
                let value = (u.ln() / (1.0 - p).ln()).floor();
                cap.map_or(value, |c: f64| value.min(c))
            };
            // The true mean of a capped geometric: sum over k < cap of P(X > k).
            let true_mean = match cap {
                None => mean,
                Some(c) => (0..c as i32).map(|k| (1.0 - p).powi(k + 1)).sum(),
            };
            for n in [5, 20, 100] {
                let (mut exponential, mut student) = (0, 0);
                for _ in 0..REPEATS {
                    let values: Vec<f64> = (0..n).map(|_| draw(&mut rng)).collect();
                    exponential += Summary::of(&values, Quantity::GameLength).contains(true_mean) as usize;
                    student += Summary::of(&values, Quantity::Signed).contains(true_mean) as usize;
                }
                let (exponential, student) = (exponential as f64 / REPEATS as f64, student as f64 / REPEATS as f64);
                assert!(exponential >= 0.935, "mean {mean} cap {cap:?} n {n}: covered {exponential}");
                t_short |= student < 0.92;
            }
        }
        assert!(t_short, "Student's t covered as well on every sample: the test shows nothing");
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
