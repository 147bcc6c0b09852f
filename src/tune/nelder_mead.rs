//! Nelder-Mead simplex: argmin's `NelderMead`, driven ask/tell by replaying its
//! iterations (see `replay.rs`). One generation is one round of points the method needs:
//! the initial simplex, a reflection, then an expansion or contraction, or a shrink.
//! Defaults are the standard coefficients (Nelder and Mead 1965, argmin's defaults):
//! reflection 1, expansion 2, contraction 0.5, shrink 0.5. The initial simplex is the
//! start point plus `step` along each axis. Fragile on noisy fitness: best on a
//! deterministic objective.

use super::replay::{Replay, Step};
use super::{Maximize, Optimizer, Space};
use anyhow::{bail, Result};
use argmin::core::{IterState, Solver, State};
use argmin::solver::neldermead;
use serde::{Deserialize, Serialize};

/// `[optimizer]` options for `kind = "nelder-mead"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    pub reflection: f64,
    pub expansion: f64,
    pub contraction: f64,
    pub shrink: f64,
    /// Offset of the initial simplex's vertices from the start point, the same along
    /// every axis; default a tenth of each weight's range, or of |start| (1 if 0).
    pub step: Option<f64>,
}

impl Default for Options {
    fn default() -> Options {
        Options { reflection: 1.0, expansion: 2.0, contraction: 0.5, shrink: 0.5, step: None }
    }
}

impl Options {
    pub fn validate(&self, space: &Space) -> Result<()> {
        // argmin checks the same ranges but names them alpha, gamma, rho and sigma.
        let checks = [
            ("reflection", self.reflection, self.reflection > 0.0, "> 0"),
            ("expansion", self.expansion, self.expansion > 1.0, "> 1"),
            ("contraction", self.contraction, self.contraction > 0.0 && self.contraction <= 0.5, "in (0, 0.5]"),
            ("shrink", self.shrink, self.shrink > 0.0 && self.shrink <= 1.0, "in (0, 1]"),
        ];
        for (name, value, ok, wanted) in checks {
            if !ok || !value.is_finite() {
                bail!("optimizer.{name} must be {wanted}, found {value}");
            }
        }
        self.solver(space).map(|_| ())
    }

    fn simplex(&self, space: &Space) -> Result<Vec<Vec<f64>>> {
        if let Some(step) = self.step {
            if !(step.is_finite() && step != 0.0) {
                bail!("optimizer.step must be a non-zero number, found {step}");
            }
        }
        let mut simplex = vec![space.start.clone()];
        for i in 0..space.dimension() {
            let step = self.step.unwrap_or_else(|| match space.ranges[i] {
                Some((low, high)) if high > low => 0.1 * (high - low),
                _ if space.start[i] != 0.0 => 0.1 * space.start[i].abs(),
                _ => 1.0,
            });
            let mut vertex = space.start.clone();
            vertex[i] += step;
            simplex.push(vertex);
        }
        Ok(simplex)
    }

    fn solver(&self, space: &Space) -> Result<Simplex> {
        if space.dimension() == 0 {
            bail!("nelder-mead needs at least one tuned weight");
        }
        neldermead::NelderMead::new(self.simplex(space)?)
            .with_alpha(self.reflection)
            .and_then(|s| s.with_gamma(self.expansion))
            .and_then(|s| s.with_rho(self.contraction))
            .and_then(|s| s.with_sigma(self.shrink))
            .map_err(|e| anyhow::anyhow!("optimizer options: {e}"))
    }
}

type Simplex = neldermead::NelderMead<Vec<f64>, f64>;
type SimplexState = IterState<Vec<f64>, (), (), (), (), f64>;

#[derive(Clone, Serialize, Deserialize)]
pub struct NelderMead {
    #[serde(deserialize_with = "simplex_from_checkpoint")]
    solver: Simplex,
    /// The initial simplex until it has been evaluated (argmin's `init` unwraps its cost
    /// calls, so its points are asked directly rather than discovered by a replay).
    initial: Option<Vec<Vec<f64>>>,
    /// The best vertex after the last completed iteration.
    best: Option<Vec<f64>>,
    replay: Replay,
}

/// Reads the solver back from a checkpoint. Until the initial simplex is evaluated,
/// argmin keeps its vertices' costs as NaN, which JSON writes as `null` and cannot read
/// back as a number: those costs are read as 0. Nothing reads them: the first iteration
/// (`init`) evaluates every vertex afresh.
fn simplex_from_checkpoint<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Simplex, D::Error> {
    let mut value = serde_json::Value::deserialize(deserializer)?;
    if let Some(vertices) = value.get_mut("params").and_then(|p| p.as_array_mut()) {
        for vertex in vertices {
            if let Some(cost) = vertex.get_mut(1).filter(|cost| cost.is_null()) {
                *cost = serde_json::Value::from(0.0);
            }
        }
    }
    serde_json::from_value(value).map_err(serde::de::Error::custom)
}

impl NelderMead {
    pub fn new(options: &Options, space: &Space, _seed: u64) -> Result<NelderMead> {
        Ok(NelderMead {
            solver: options.solver(space)?,
            initial: Some(options.simplex(space)?),
            best: None,
            replay: Replay::default(),
        })
    }

    fn attempt(&self) -> Result<Step<(Simplex, SimplexState)>> {
        let mut solver = self.solver.clone();
        let initial = self.initial.is_some();
        let step = self.replay.run(|problem| {
            // argmin's Nelder-Mead reads nothing from the state it is given, so a fresh
            // one per iteration loses nothing (and keeps infinities out of checkpoints).
            if initial {
                solver.init(problem, SimplexState::new())
            } else {
                solver.next_iter(problem, SimplexState::new())
            }
        })?;
        Ok(match step {
            Step::Needs(points) => Step::Needs(points),
            Step::Done((state, _)) => Step::Done((solver, state)),
        })
    }
}

impl Optimizer for NelderMead {
    fn ask(&mut self) -> Result<Vec<Vec<f64>>> {
        if self.replay.pending.is_empty() {
            if let Some(initial) = &self.initial {
                self.replay.pending = initial.clone();
            } else {
                match self.attempt()? {
                    Step::Needs(points) => self.replay.pending = points,
                    Step::Done(_) => bail!("nelder-mead: an iteration needed no evaluation"),
                }
            }
        }
        Ok(self.replay.pending.clone())
    }

    fn tell(&mut self, fitness: &[Maximize]) -> Result<()> {
        self.replay.tell(fitness)?;
        match self.attempt()? {
            Step::Needs(points) => self.replay.pending = points,
            Step::Done((solver, mut state)) => {
                self.solver = solver;
                self.best = state.take_param();
                self.initial = None;
                self.replay.known.clear();
            }
        }
        Ok(())
    }

    fn recommendation(&self) -> Option<Vec<f64>> {
        self.best.clone()
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
    fn converges_on_sphere_and_rosenbrock() {
        let mut simplex = NelderMead::new(&Options::default(), &space(3, (-5.0, 5.0), 3.0), 0).unwrap();
        let (best, x) = minimize(&mut simplex, sphere, 400);
        assert!(best < 1e-8, "sphere: best {best} at {x:?}");
        let options = Options { step: Some(0.5), ..Options::default() };
        let mut simplex = NelderMead::new(&options, &space(2, (-2.0, 2.0), -1.0), 0).unwrap();
        let (best, x) = minimize(&mut simplex, rosenbrock, 600);
        assert!(best < 1e-6, "rosenbrock: best {best} at {x:?}");
        assert!((simplex.recommendation().unwrap()[0] - 1.0).abs() < 1e-2);
    }

    #[test]
    fn a_checkpoint_before_the_first_evaluation_resumes_to_the_same_search() {
        let mut fresh = NelderMead::new(&Options::default(), &space(3, (-5.0, 5.0), 3.0), 0).unwrap();
        let saved = fresh.save().unwrap();
        let mut restored: NelderMead = serde_json::from_value(saved).expect("a fresh simplex reads back");
        let (a, _) = minimize(&mut fresh, sphere, 60);
        let (b, _) = minimize(&mut restored, sphere, 60);
        assert_eq!(a.to_bits(), b.to_bits());
    }

    #[test]
    fn bad_coefficients_are_refused() {
        let options = Options { contraction: 0.9, ..Options::default() };
        let e = options.validate(&space(2, (0.0, 1.0), 0.0)).unwrap_err().to_string();
        assert!(e.contains("optimizer.contraction must be in (0, 0.5]"), "{e}");
    }
}
