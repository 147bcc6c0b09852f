//! Least squares for the learners: normal equations accumulated in a fixed order (so the
//! solution does not depend on the thread count) and solved by Gaussian elimination with
//! partial pivoting, with a tiny ridge so that a feature constant on the data (a column
//! that never moves on a small board) leaves the system solvable.

/// The ridge added to the diagonal, relative to its largest entry.
const RIDGE: f64 = 1e-9;

/// Normal equations `A x = b` of a least-squares problem, built row by row.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Normal {
    dimension: usize,
    /// Row-major `dimension x dimension`.
    a: Vec<f64>,
    b: Vec<f64>,
}

impl Normal {
    pub fn new(dimension: usize) -> Normal {
        Normal { dimension, a: vec![0.0; dimension * dimension], b: vec![0.0; dimension] }
    }

    /// Adds `left (right)' x = target`'s contribution: `A += left right'`, `b += left target`.
    /// Ordinary least squares passes the same vector twice; LSTD passes the feature vector
    /// and its temporal difference.
    pub fn add(&mut self, left: &[f64], right: &[f64], target: f64) {
        let d = self.dimension;
        for (i, l) in left.iter().enumerate() {
            if *l == 0.0 {
                continue;
            }
            let row = &mut self.a[i * d..(i + 1) * d];
            for (entry, r) in row.iter_mut().zip(right) {
                *entry += l * r;
            }
            self.b[i] += l * target;
        }
    }

    /// Adds another accumulation (of a chunk of the data).
    pub fn merge(&mut self, other: &Normal) {
        for (x, y) in self.a.iter_mut().zip(&other.a) {
            *x += y;
        }
        for (x, y) in self.b.iter_mut().zip(&other.b) {
            *x += y;
        }
    }

    /// The solution, or `None` when the system is singular even with the ridge.
    pub fn solve(&self) -> Option<Vec<f64>> {
        let d = self.dimension;
        let scale = (0..d).map(|i| self.a[i * d + i].abs()).fold(0.0, f64::max).max(1.0);
        let mut m: Vec<Vec<f64>> = (0..d)
            .map(|i| {
                let mut row = self.a[i * d..(i + 1) * d].to_vec();
                row[i] += RIDGE * scale;
                row.push(self.b[i]);
                row
            })
            .collect();
        for column in 0..d {
            let pivot = (column..d).max_by(|&x, &y| m[x][column].abs().total_cmp(&m[y][column].abs()))?;
            if m[pivot][column].abs() < 1e-300 {
                return None;
            }
            m.swap(column, pivot);
            let (top, below) = m.split_at_mut(column + 1);
            let pivot_row = &top[column];
            for row in below.iter_mut() {
                let factor = row[column] / pivot_row[column];
                if factor != 0.0 {
                    for (entry, p) in row[column..].iter_mut().zip(&pivot_row[column..]) {
                        *entry -= factor * p;
                    }
                }
            }
        }
        let mut x = vec![0.0; d];
        for row in (0..d).rev() {
            let rest: f64 = (row + 1..d).map(|k| m[row][k] * x[k]).sum();
            x[row] = (m[row][d] - rest) / m[row][row];
        }
        x.iter().all(|v| v.is_finite()).then_some(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_a_line_exactly() {
        // y = 3 x - 2 on x = 0..5, features (x, 1).
        let mut normal = Normal::new(2);
        for x in 0..5 {
            let row = [x as f64, 1.0];
            normal.add(&row, &row, 3.0 * x as f64 - 2.0);
        }
        let solution = normal.solve().unwrap();
        assert!((solution[0] - 3.0).abs() < 1e-6 && (solution[1] + 2.0).abs() < 1e-6, "{solution:?}");
    }

    #[test]
    fn a_constant_column_does_not_break_it() {
        // The second feature is always 0: its weight stays 0, the first is still fitted.
        let mut normal = Normal::new(2);
        for x in 1..4 {
            normal.add(&[x as f64, 0.0], &[x as f64, 0.0], 2.0 * x as f64);
        }
        let solution = normal.solve().unwrap();
        assert!((solution[0] - 2.0).abs() < 1e-6 && solution[1] == 0.0, "{solution:?}");
    }

    #[test]
    fn chunks_merge_to_the_whole() {
        let rows: Vec<[f64; 2]> = (0..10).map(|i| [i as f64, (i * i) as f64]).collect();
        let mut whole = Normal::new(2);
        let mut parts = [Normal::new(2), Normal::new(2)];
        for (i, row) in rows.iter().enumerate() {
            whole.add(row, row, i as f64);
            parts[i % 2].add(row, row, i as f64);
        }
        parts[0].merge(&parts[1].clone());
        assert_eq!(parts[0].solve(), whole.solve());
    }
}
