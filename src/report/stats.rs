//! Summary statistics of a sample: mean, median, standard deviation and the 95% interval
//! of the mean (normal approximation, mean +- 1.96 s / sqrt(n)).

/// Summary of a sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    pub count: usize,
    pub mean: f64,
    pub median: f64,
    /// Sample standard deviation (n - 1).
    pub standard_deviation: f64,
    /// Half-width of the 95% interval of the mean.
    pub half_width_95: f64,
    pub min: f64,
    pub max: f64,
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
        let median = if n % 2 == 1 { sorted[n / 2] } else { (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0 };
        Summary {
            count: n,
            mean,
            median,
            standard_deviation: sd,
            half_width_95: 1.96 * sd / (n as f64).sqrt(),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_computed() {
        let s = Summary::of(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
        assert_eq!(s.mean, 5.0);
        assert_eq!(s.median, 4.5);
        assert!((s.standard_deviation - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
        assert!((s.half_width_95 - 1.96 * (32.0f64 / 7.0).sqrt() / 8f64.sqrt()).abs() < 1e-12);
        assert!(s.contains(5.5) && !s.contains(7.0));
        assert_eq!(Summary::of(&[3.0]).standard_deviation, 0.0);
    }
}
