//! Fahey's estimate of very long games: instead of playing games of millions of rows to
//! their end, play a fixed number of moves, record how often the stack reaches each
//! height after a placement, fit a straight line to the log of that histogram over the
//! tail (heights 7..15 on a 20-row board), and extrapolate it to the height where the
//! game is lost. That gives the probability of losing per piece, hence the expected
//! pieces per game, times the measured rows per piece.
//!
//! The estimate rests on the tail being geometric (each extra row of stack about equally
//! unlikely), which holds well for one-piece players on the research rules; it is
//! reported as an estimate everywhere it is shown.

use crate::board::Board;
use crate::randomizer::game_seed;
use crate::rules::Outcome;
use crate::sim::{self, GameDriver, GameEnd, GameLimits};
use rayon::prelude::*;
use std::ops::RangeInclusive;
use std::sync::atomic::AtomicU64;

/// How often each stack height (the highest column after the placement, rows removed)
/// was seen, over every placement of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HeightHistogram {
    /// `counts[h]` = placements after which the stack was `h` rows high.
    pub counts: Vec<u64>,
    pub placements: u64,
    pub rows: u64,
    /// Games started (a game lost before the move budget is used is followed by a new one).
    pub games: u64,
    /// Games that ended by the rules within the budget.
    pub games_lost: u64,
}

impl HeightHistogram {
    pub fn record(&mut self, board: &Board, outcome: &Outcome) {
        let height = board.max_height();
        if self.counts.len() <= height {
            self.counts.resize(height + 1, 0);
        }
        self.counts[height] += 1;
        self.placements += 1;
        self.rows += outcome.info.rows_cleared as u64;
    }

    pub fn merge(&mut self, other: &HeightHistogram) {
        if self.counts.len() < other.counts.len() {
            self.counts.resize(other.counts.len(), 0);
        }
        for (mine, theirs) in self.counts.iter_mut().zip(&other.counts) {
            *mine += theirs;
        }
        self.placements += other.placements;
        self.rows += other.rows;
        self.games += other.games;
        self.games_lost += other.games_lost;
    }
}

/// Plays `moves` placements split into `segments` independent streams (run in parallel on
/// the current rayon pool; the result depends only on `master_seed`). A stream whose game
/// is lost starts a new seeded game until its share of the moves is used.
pub fn sample(
    driver: GameDriver,
    master_seed: u64,
    moves: u64,
    segments: u64,
    progress: Option<&AtomicU64>,
) -> HeightHistogram {
    let segments = segments.clamp(1, moves.max(1));
    let parts: Vec<HeightHistogram> = (0..segments)
        .into_par_iter()
        .map(|segment| {
            let mut budget = moves / segments + u64::from(segment < moves % segments);
            let mut histogram = HeightHistogram::default();
            let stream_seed = game_seed(master_seed, segment);
            while budget > 0 {
                let seed = driver.randomizer().game_seed(stream_seed, histogram.games);
                let limits = GameLimits { max_pieces: Some(budget) };
                let record = sim::play_game_observed(driver, seed, limits, progress, &mut |board, outcome| {
                    histogram.record(board, outcome)
                });
                histogram.games += 1;
                if record.end == GameEnd::GameOver {
                    histogram.games_lost += 1;
                }
                // A game that cannot place its first piece would loop forever.
                budget = budget.saturating_sub(record.pieces.max(1));
            }
            histogram
        })
        .collect();
    let mut total = HeightHistogram::default();
    for part in &parts {
        total.merge(part);
    }
    total
}

/// A least-squares line `ln(count) = intercept + slope * height` over the tail.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TailFit {
    pub intercept: f64,
    pub slope: f64,
    /// Heights that had a non-zero count (only those enter the fit).
    pub points: usize,
    /// Residual standard deviation (0 with two points or a perfect fit).
    pub residual_sd: f64,
    mean_height: f64,
    /// Sum of squared deviations of the heights from their mean.
    spread: f64,
}

impl TailFit {
    /// The fitted `ln(count)` at `height` and its standard error as a point of the line.
    pub fn predict(&self, height: f64) -> (f64, f64) {
        let value = self.intercept + self.slope * height;
        let error =
            self.residual_sd * (1.0 / self.points as f64 + (height - self.mean_height).powi(2) / self.spread).sqrt();
        (value, error)
    }
}

/// Fits the log of `counts` over `heights`, skipping empty heights; `None` with fewer than
/// three non-empty heights.
pub fn fit_log_tail(counts: &[u64], heights: RangeInclusive<usize>) -> Option<TailFit> {
    let points: Vec<(f64, f64)> =
        heights.filter_map(|h| counts.get(h).filter(|&&c| c > 0).map(|&c| (h as f64, (c as f64).ln()))).collect();
    let n = points.len();
    if n < 3 {
        return None;
    }
    let mean_x = points.iter().map(|p| p.0).sum::<f64>() / n as f64;
    let mean_y = points.iter().map(|p| p.1).sum::<f64>() / n as f64;
    let spread: f64 = points.iter().map(|p| (p.0 - mean_x).powi(2)).sum();
    let covariance: f64 = points.iter().map(|p| (p.0 - mean_x) * (p.1 - mean_y)).sum();
    let slope = covariance / spread;
    let intercept = mean_y - slope * mean_x;
    let squared_residuals: f64 = points.iter().map(|p| (p.1 - intercept - slope * p.0).powi(2)).sum();
    let residual_sd = if n > 2 { (squared_residuals / (n - 2) as f64).sqrt() } else { 0.0 };
    Some(TailFit { intercept, slope, points: n, residual_sd, mean_height: mean_x, spread })
}

/// The default fit window for a board `height` rows high: Fahey's heights 7..15 on 20 rows,
/// in proportion on other boards (the tail starts at about a third of the board).
pub fn default_fit_heights(height: usize) -> RangeInclusive<usize> {
    let low = (height * 7 + 10) / 20;
    let high = (height * 15 + 10) / 20;
    low.max(1)..=high.max(low.max(1) + 2)
}

/// The fit window for `histogram` on a board `height` rows high: [`default_fit_heights`],
/// started at least two rows above the most frequent height so that the fit sees only the
/// decreasing tail (on small boards the proportional window would reach the mode).
pub fn fit_heights(histogram: &HeightHistogram, height: usize) -> RangeInclusive<usize> {
    let window = default_fit_heights(height);
    let mode =
        histogram.counts.iter().enumerate().max_by_key(|&(h, &c)| (c, std::cmp::Reverse(h))).map_or(0, |(h, _)| h);
    let low = (*window.start()).max(mode + 2);
    low..=(*window.end()).max(low + 2)
}

/// The estimate: expected pieces and rows per game, with an interval from the fit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    pub fit: TailFit,
    /// Probability that a placement loses the game.
    pub loss_per_piece: f64,
    pub pieces_per_game: f64,
    pub rows_per_piece: f64,
    pub rows_per_game: f64,
    /// 95% interval of `rows_per_game` from the fitted line's standard error at the top
    /// (Student t on the fit's degrees of freedom); it ignores model error, so it is a
    /// lower bound on the true uncertainty.
    pub rows_low_95: f64,
    pub rows_high_95: f64,
}

/// Extrapolates the fitted tail beyond the top of a board `board_height` rows high: a stack
/// above the top loses the game, so the loss probability per piece is the fitted mass of
/// heights `board_height + 1` and up (a geometric series). `None` when the histogram has
/// too few tail points or the tail does not decrease.
pub fn estimate(histogram: &HeightHistogram, board_height: usize, heights: RangeInclusive<usize>) -> Option<Estimate> {
    if histogram.placements == 0 {
        return None;
    }
    let fit = fit_log_tail(&histogram.counts, heights)?;
    if fit.slope >= 0.0 {
        return None;
    }
    let top = (board_height + 1) as f64;
    let (log_count, error) = fit.predict(top);
    // ln of the geometric series' sum factor 1 / (1 - e^slope).
    let series = -(-fit.slope.exp()).ln_1p();
    let log_placements = (histogram.placements as f64).ln();
    let log_loss = log_count + series - log_placements;
    let rows_per_piece = histogram.rows as f64 / histogram.placements as f64;
    let rows_at = |log_loss: f64| rows_per_piece * (-log_loss).exp();
    let t = student_t_975(fit.points.saturating_sub(2));
    Some(Estimate {
        fit,
        loss_per_piece: log_loss.exp().min(1.0),
        pieces_per_game: (-log_loss).exp(),
        rows_per_piece,
        rows_per_game: rows_at(log_loss),
        rows_low_95: rows_at(log_loss + t * error),
        rows_high_95: rows_at(log_loss - t * error),
    })
}

/// The 97.5% quantile of Student's t with `df` degrees of freedom (infinite for none).
fn student_t_975(df: usize) -> f64 {
    if df == 0 {
        f64::INFINITY
    } else {
        super::stats::t_quantile_95(df)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A histogram whose counts follow `total * (1 - r) * r^h` exactly (rounded).
    fn geometric(total: f64, ratio: f64, heights: usize) -> HeightHistogram {
        let counts: Vec<u64> =
            (0..heights).map(|h| (total * (1.0 - ratio) * ratio.powi(h as i32)).round() as u64).collect();
        let placements = counts.iter().sum();
        HeightHistogram { counts, placements, rows: placements * 2 / 5, games: 1, games_lost: 0 }
    }

    #[test]
    fn fit_recovers_a_geometric_tail() {
        let histogram = geometric(1e12, 0.5, 16);
        let fit = fit_log_tail(&histogram.counts, 7..=15).unwrap();
        assert_eq!(fit.points, 9);
        assert!((fit.slope - 0.5f64.ln()).abs() < 1e-6, "{fit:?}");
        assert!((fit.intercept - (1e12 * 0.5f64).ln()).abs() < 1e-4, "{fit:?}");
    }

    #[test]
    fn estimate_matches_the_geometric_tail_beyond_the_top() {
        // With P(height = h) = (1 - r) r^h, P(height > H) = r^(H + 1): that is the loss
        // probability per piece, and 1 / r^(H+1) the expected pieces per game.
        let ratio = 0.5;
        let histogram = geometric(1e12, ratio, 16);
        let e = estimate(&histogram, 20, 7..=15).unwrap();
        let expected_loss = ratio.powi(21);
        assert!((e.loss_per_piece / expected_loss - 1.0).abs() < 1e-3, "{e:?}");
        assert!((e.rows_per_piece - 0.4).abs() < 1e-9);
        assert!((e.rows_per_game / (0.4 / expected_loss) - 1.0).abs() < 1e-3, "{e:?}");
        assert!(e.rows_low_95 <= e.rows_per_game && e.rows_per_game <= e.rows_high_95);
    }

    #[test]
    fn noisy_tail_gives_an_interval_around_the_estimate() {
        let mut histogram = geometric(1e9, 0.6, 16);
        // Perturb alternate heights by +-10%: the fit stays close and the interval widens.
        for (h, c) in histogram.counts.iter_mut().enumerate().skip(7) {
            *c = if h % 2 == 0 { *c * 11 / 10 } else { *c * 9 / 10 };
        }
        let e = estimate(&histogram, 20, 7..=15).unwrap();
        assert!((e.fit.slope - 0.6f64.ln()).abs() < 0.02, "{e:?}");
        assert!(e.rows_low_95 < e.rows_per_game * 0.99 && e.rows_high_95 > e.rows_per_game * 1.01, "{e:?}");
    }

    #[test]
    fn too_few_points_or_a_rising_tail_give_no_estimate() {
        let sparse = HeightHistogram { counts: vec![10, 5, 0, 0, 0, 0, 0, 3, 1], placements: 19, ..Default::default() };
        assert!(estimate(&sparse, 20, 7..=15).is_none());
        let rising =
            HeightHistogram { counts: vec![0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8], placements: 15, ..Default::default() };
        assert!(estimate(&rising, 20, 7..=15).is_none());
    }

    #[test]
    fn default_window_is_faheys_on_twenty_rows_and_starts_past_the_mode() {
        assert_eq!(default_fit_heights(20), 7..=15);
        assert_eq!(default_fit_heights(10), 4..=8);
        let low_mode = HeightHistogram { counts: vec![1, 5, 9, 4, 2, 1], placements: 22, ..Default::default() };
        assert_eq!(fit_heights(&low_mode, 20), 7..=15);
        assert_eq!(fit_heights(&low_mode, 10), 4..=8);
        let high_mode = HeightHistogram { counts: vec![1, 2, 3, 5, 9, 4, 2], placements: 26, ..Default::default() };
        assert_eq!(fit_heights(&high_mode, 10), 6..=8);
        assert_eq!(fit_heights(&high_mode, 6), 6..=8);
    }
}
