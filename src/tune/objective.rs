//! What a campaign measures, cut into jobs that can run anywhere.
//!
//! An evaluation [`Round`] is a list of full weight vectors, each played on the same
//! `games` seeds derived from one master seed (common random numbers). Job `j` of a round
//! is weight vector `j / games` on game `j % games`; its result depends on nothing but
//! the job, so a round can be split across threads, or across processes
//! ([`crate::tune::mpi`]), and reassembled in job order with identical results.
//!
//! An [`Objective`] plays one job. [`GameObjective`] plays a game of a preset under its
//! rule set; [`super::etetris_objective::ETetrisObjective`] runs the E-Tetris beam search;
//! [`super::experiment::build_objective`] picks one for an experiment.

use crate::eval::Evaluator;
use crate::guideline::FrameGame;
use crate::policy::{self, PolicyKind};
use crate::randomizer::game_seed;
use crate::rules::RuleSet;
use crate::sim::{self, GameDriver, GameLimits};
use anyhow::{Context, Result};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

/// One evaluation round: every weight vector on the same `games` seeds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Round {
    /// Full weight vectors, in the experiment's feature order.
    pub weights: Vec<Vec<f64>>,
    /// Game `i` plays seed `game_seed(master, i)`.
    pub master: u64,
    pub games: u64,
    /// The final scoring on held-out seeds (an objective may measure it differently, e.g.
    /// with a wider search).
    pub held_out: bool,
}

impl Round {
    pub fn jobs(&self) -> u64 {
        self.weights.len() as u64 * self.games
    }

    /// The weight vector and seed of job `job`.
    pub fn job(&self, job: u64) -> (&[f64], u64) {
        (&self.weights[(job / self.games) as usize], game_seed(self.master, job % self.games))
    }
}

/// What one job measured.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Played {
    pub fitness: f64,
    pub pieces: u64,
    /// CPU seconds the job took (informative only: the one field that differs run to run).
    pub seconds: f64,
}

/// Measures one job. Must be deterministic in `(weights, seed, held_out)`.
pub trait Objective: Send + Sync {
    /// `live` counts pieces as they are placed (for progress bars).
    /// Fails where the measurement cannot be trusted (an E-Tetris record that replays to
    /// another score); the campaign stops with the error.
    fn play(&self, weights: &[f64], seed: u64, held_out: bool, live: &AtomicU64) -> Result<Played>;
}

/// What one game contributes to a candidate's fitness (the mean over its games).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fitness {
    /// Rows cleared.
    #[default]
    Rows,
    /// Points scored (rule sets that score); for `etetris`, the contest score.
    Score,
    /// Pieces placed (turns survived).
    Turns,
    /// Level reached when the game ended (rule sets with levels: the guideline game).
    Level,
}

impl Fitness {
    pub fn of(self, record: &crate::sim::GameRecord) -> f64 {
        match self {
            Fitness::Rows => record.lines as f64,
            Fitness::Score => record.score as f64,
            Fitness::Turns => record.pieces as f64,
            Fitness::Level => record.level.unwrap_or(0) as f64,
        }
    }
    /// What a game's fitness is, for the interval of a mean of them (`memoryless`: see
    /// [`crate::support::stats::Quantity::length`]).
    pub fn quantity(self, memoryless: bool) -> crate::support::stats::Quantity {
        use crate::support::stats::Quantity;
        match self {
            Fitness::Rows | Fitness::Turns => Quantity::length(memoryless),
            Fitness::Score | Fitness::Level => Quantity::NonNegative,
        }
    }
    /// The fitness named `text` (`rows`, `turns`, `score`, `level`).
    pub fn parse(text: &str) -> Result<Fitness, String> {
        [Fitness::Rows, Fitness::Turns, Fitness::Score, Fitness::Level]
            .into_iter()
            .find(|f| f.as_str() == text)
            .ok_or_else(|| format!("{text:?} is not a fitness: rows, turns, score or level"))
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Fitness::Rows => "rows",
            Fitness::Score => "score",
            Fitness::Turns => "turns",
            Fitness::Level => "level",
        }
    }
}

/// A game of a preset: its rule set and policy, the weights put into its evaluator.
pub struct GameObjective {
    pub rules: Box<dyn RuleSet>,
    pub evaluator: Evaluator,
    pub policy: PolicyKind,
    /// The frame game the preset plays instead of `rules` and `policy`, if it has one
    /// (its evaluator is replaced by each job's weights).
    pub frame: Option<FrameGame>,
    pub limits: GameLimits,
    pub fitness: Fitness,
}

impl Objective for GameObjective {
    fn play(&self, weights: &[f64], seed: u64, _held_out: bool, live: &AtomicU64) -> Result<Played> {
        let start = Instant::now();
        let evaluator = self.evaluator.with_weights(weights);
        let record = match &self.frame {
            Some(frame) => {
                let frame = FrameGame { spawn_frame: frame.spawn_frame, evaluator };
                sim::play_game(GameDriver::Frame(&frame), seed, self.limits, Some(live))
            }
            None => {
                let policy = policy::build(self.policy, evaluator);
                let driver = GameDriver::Placement { rules: self.rules.as_ref(), policy: policy.as_ref() };
                sim::play_game(driver, seed, self.limits, Some(live))
            }
        };
        Ok(Played { fitness: self.fitness.of(&record), pieces: record.pieces, seconds: start.elapsed().as_secs_f64() })
    }
}

/// An experiment as its file says it: what a remote worker needs to build the same
/// objective.
#[derive(Clone, Copy, Debug)]
pub struct ExperimentText<'a> {
    pub name: &'a str,
    pub text: &'a str,
}

/// What a process brings to a round: the objective and the threads that play it.
pub struct Players<'a> {
    pub objective: &'a dyn Objective,
    pub pool: &'a rayon::ThreadPool,
    /// Raised by Ctrl-C: jobs not yet started are skipped.
    pub stop: &'a AtomicBool,
    /// Pieces placed so far (for progress bars).
    pub live: &'a AtomicU64,
}

impl Players<'_> {
    /// Runs jobs `first..first + count` of `round` on the pool, in job order. `None` if
    /// `stop` was raised before they all ran; the first failed job's error (in job order)
    /// if one failed.
    pub fn run_jobs(&self, round: &Round, first: u64, count: u64) -> Result<Option<Vec<Played>>> {
        let results: Vec<Option<Result<Played>>> = self.pool.install(|| {
            (first..first + count)
                .into_par_iter()
                .map(|job| {
                    if self.stop.load(Ordering::Relaxed) {
                        return None;
                    }
                    let (weights, seed) = round.job(job);
                    Some(
                        self.objective
                            .play(weights, seed, round.held_out, self.live)
                            .with_context(|| format!("job {job} (seed {seed})")),
                    )
                })
                .collect()
        });
        let mut played = Vec::with_capacity(results.len());
        let mut stopped = false;
        for result in results {
            match result {
                Some(result) => played.push(result?),
                None => stopped = true,
            }
        }
        Ok((!stopped).then_some(played))
    }
}

/// Which campaign a round belongs to, as its executor numbered it in [`Executor::begin`]
/// (an executor may serve several campaigns at once: a study's repetitions side by side).
pub type CampaignId = u64;

/// Where a round's jobs run: this machine ([`Local`]) or a cluster (`tune::mpi`). Either
/// way the results come back in job order, identical. `Sync`: a study may run several
/// campaigns at once on one executor, each on its own thread.
pub trait Executor: Sync {
    /// A campaign of `experiment` writing to `run_dir` starts (remote workers build its
    /// objective from the experiment's text); its rounds are run under the id returned.
    fn begin(&self, _experiment: &ExperimentText, _run_dir: &std::path::Path) -> Result<CampaignId> {
        Ok(0)
    }
    /// Runs every job of `round` of `campaign`; `None` if Ctrl-C stopped it before they
    /// all ran.
    fn run(&self, campaign: CampaignId, round: &Round, players: &Players) -> Result<Option<Vec<Played>>>;
    /// The campaign is over: remote workers may drop its objective.
    fn end(&self, _campaign: CampaignId) {}
    /// How many campaigns it takes to keep every worker busy: a study runs that many
    /// repetitions side by side (one on a single machine, whose pool one campaign fills).
    fn side_by_side(&self) -> usize {
        1
    }
    /// How the work is spread, for the manifest.
    fn describe(&self) -> serde_json::Value;
}

/// Every job on this machine's thread pool.
pub struct Local;

impl Executor for Local {
    fn run(&self, _campaign: CampaignId, round: &Round, players: &Players) -> Result<Option<Vec<Played>>> {
        players.run_jobs(round, 0, round.jobs())
    }
    fn describe(&self) -> serde_json::Value {
        serde_json::json!({ "kind": "local" })
    }
}
