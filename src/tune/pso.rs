//! Particle swarm optimization: argmin's `ParticleSwarm`, driven ask/tell by replaying
//! its iterations (see `replay.rs`) and seeded from a ChaCha8 RNG kept in the solver.
//! Defaults are SPSO-2011's constants (Clerc, "Standard Particle Swarm Optimisation",
//! 2011): inertia 1/(2 ln 2), cognitive = social = 0.5 + ln 2, 40 particles; every tuned
//! weight needs a range (positions are clamped to it). argmin samples each pull per
//! coordinate (the classic update), not SPSO-2011's hypersphere.

use super::replay::{Replay, Step};
use super::{Maximize, Optimizer, Space};
use anyhow::{bail, Result};
use argmin::core::{PopulationState, Solver, State};
use argmin::solver::particleswarm::{self, Particle};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// `[optimizer]` options for `kind = "pso"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    pub particles: usize,
    pub inertia: f64,
    pub cognitive: f64,
    pub social: f64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            particles: 40,
            inertia: 1.0 / (2.0 * std::f64::consts::LN_2),
            cognitive: 0.5 + std::f64::consts::LN_2,
            social: 0.5 + std::f64::consts::LN_2,
        }
    }
}

impl Options {
    pub fn validate(&self, space: &Space) -> Result<()> {
        if self.particles < 2 {
            bail!("optimizer.particles must be at least 2");
        }
        for (name, value) in [("inertia", self.inertia), ("cognitive", self.cognitive), ("social", self.social)] {
            if !(value.is_finite() && value >= 0.0) {
                bail!("optimizer.{name} must be a number >= 0, found {value}");
            }
        }
        space.bounds("pso")?;
        Ok(())
    }
}

type Swarm = particleswarm::ParticleSwarm<Vec<f64>, f64, ChaCha8Rng>;
type SwarmState = PopulationState<Particle<Vec<f64>, f64>, f64>;

/// What argmin's state carries from one iteration to the next. argmin's own
/// `PopulationState` holds infinities before its first iteration, which JSON cannot
/// store, so only these fields are kept and the state is rebuilt for each iteration.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Carried {
    best: Particle<Vec<f64>, f64>,
    best_cost: f64,
    population: Vec<Particle<Vec<f64>, f64>>,
}

#[derive(Clone, Serialize, Deserialize)]
pub struct ParticleSwarm {
    solver: Swarm,
    carried: Option<Carried>,
    replay: Replay,
}

impl ParticleSwarm {
    pub fn new(options: &Options, space: &Space, seed: u64) -> Result<ParticleSwarm> {
        options.validate(space)?;
        let bounds = space.bounds("pso")?;
        // `ParticleSwarm::new` draws an OS-seeded RNG that `with_rng_generator` replaces
        // at once: no unseeded number is ever used.
        let solver = particleswarm::ParticleSwarm::new(bounds, options.particles)
            .with_rng_generator(ChaCha8Rng::seed_from_u64(seed))
            .with_inertia_factor(options.inertia)
            .and_then(|s| s.with_cognitive_factor(options.cognitive))
            .and_then(|s| s.with_social_factor(options.social))
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        Ok(ParticleSwarm { solver, carried: None, replay: Replay::default() })
    }

    fn attempt(&self) -> Result<Step<(Swarm, Carried)>> {
        let mut solver = self.solver.clone();
        let carried = self.carried.clone();
        let step = self.replay.run(|problem| match carried {
            None => solver.init(problem, SwarmState::new()),
            Some(c) => solver
                .next_iter(problem, SwarmState::new().individual(c.best).cost(c.best_cost).population(c.population)),
        })?;
        Ok(match step {
            Step::Needs(points) => Step::Needs(points),
            Step::Done((mut state, _)) => {
                let best_cost = state.get_cost();
                let carried = Carried {
                    best: state.take_individual().expect("argmin's swarm keeps its best particle"),
                    best_cost,
                    population: state.take_population().expect("argmin's swarm keeps its particles"),
                };
                Step::Done((solver, carried))
            }
        })
    }
}

impl Optimizer for ParticleSwarm {
    fn ask(&mut self) -> Result<Vec<Vec<f64>>> {
        if self.replay.pending.is_empty() {
            match self.attempt()? {
                Step::Needs(points) => self.replay.pending = points,
                Step::Done(_) => bail!("particle swarm: an iteration needed no evaluation"),
            }
        }
        Ok(self.replay.pending.clone())
    }

    fn tell(&mut self, fitness: &[Maximize]) -> Result<()> {
        self.replay.tell(fitness)?;
        match self.attempt()? {
            Step::Needs(points) => self.replay.pending = points,
            Step::Done((solver, carried)) => {
                self.solver = solver;
                self.carried = Some(carried);
                self.replay.known.clear();
            }
        }
        Ok(())
    }

    fn recommendation(&self) -> Option<Vec<f64>> {
        self.carried.as_ref().map(|c| c.best.position.clone())
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
    fn converges_on_sphere() {
        let mut swarm = ParticleSwarm::new(&Options::default(), &space(3, (-5.0, 5.0), 0.0), 11).unwrap();
        let (best, x) = minimize(&mut swarm, sphere, 60);
        assert!(best < 1e-4, "best {best} at {x:?}");
    }

    #[test]
    fn gets_close_on_rosenbrock() {
        let mut swarm = ParticleSwarm::new(&Options::default(), &space(2, (-2.0, 2.0), 0.0), 3).unwrap();
        let (best, x) = minimize(&mut swarm, rosenbrock, 150);
        assert!(best < 1e-2, "best {best} at {x:?}");
    }

    #[test]
    fn a_saved_swarm_continues_identically() {
        let s = space(2, (-5.0, 5.0), 0.0);
        let mut a = ParticleSwarm::new(&Options::default(), &s, 5).unwrap();
        minimize(&mut a, sphere, 3);
        let saved = serde_json::to_string(&a.save().unwrap()).unwrap();
        let mut b: ParticleSwarm = serde_json::from_str(&saved).unwrap();
        assert_eq!(minimize(&mut a, sphere, 5), minimize(&mut b, sphere, 5));
    }
}
