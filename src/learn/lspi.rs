//! LSPI, least-squares policy iteration (Lagoudakis and Parr, JMLR 2003; on Tetris,
//! Lagoudakis, Parr and Littman, 2002), over after-states: Q(s, a) = r(s, a) + phi(x)' w with
//! x the board placement a leaves, so the greedy policy is the one lambda-PI plays.
//!
//! The samples are drawn once: `samples` after-states x_i from a behaviour's games (a
//! uniformly random player by default), each with the piece that came next in its game.
//! Each iteration, LSTDQ with the current policy: each of the seven next pieces (as
//! MdpTetris' LSPI does; or only the sampled one) is placed greedily on x_i, giving the
//! reward r' and the after-state x' (phi(x') = 0 if the game ends), and w solves
//! sum_i phi(x_i) (phi(x_i) - mean phi(x'))' w = sum_i phi(x_i) mean r'. The samples counted
//! are the behaviour's pieces (once) and the placements of the next pieces each iteration.
//!
//! The 2002 paper's text could not be found: its basis over state-action pairs (MdpTetris'
//! `lagoudakis_initial.dat`: max height, holes, summed height differences, mean height, the
//! changes the action makes to those four, rows removed, a constant) is not reproduced;
//! the after-state features are the experiment's (Bertsekas' by default).

use super::linear::Normal;
use super::states::State;
use super::{feature_vector, greedy, resolve_features, Entry, Learner, Settings, Transition, World};
use crate::piece::Piece;
use crate::placement::PlacementInfo;
use crate::policy::{GameView, Policy, Scratch};
use crate::randomizer::{game_seed, Xoshiro256};
use anyhow::{bail, Context, Result};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

pub const ENTRY: Entry = Entry {
    name: "lspi",
    summary: "least-squares policy iteration (LSTDQ over after-states) on samples drawn once",
    source: "Lagoudakis and Parr (2003); Lagoudakis, Parr and Littman (2002)",
    check: |settings| Lspi::from_settings(settings).map(drop),
    start: |settings| Ok(Box::new(Lspi::from_settings(settings)?)),
    restore: |settings, saved| {
        let fresh = Lspi::from_settings(settings)?;
        let saved: Lspi = serde_json::from_value(saved)?;
        super::restored::same("options", &saved.options, &fresh.options)?;
        super::restored::same("names", &saved.names, &fresh.names)?;
        super::restored::same("samples_seed", &saved.samples_seed, &fresh.samples_seed)?;
        super::restored::weights("weights", &saved.weights, fresh.weights.len())?;
        Ok(Box::new(saved))
    },
};

/// Samples gathered by one behaviour game at most (a good behaviour's games are long).
const MAX_PIECES_PER_GAME: usize = 10_000;
/// Samples per chunk of the accumulation (a fixed size: the sums do not depend on threads).
const CHUNK: usize = 1024;

/// `[options]` of `lspi`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Options {
    #[serde(default = "bertsekas")]
    pub features: Vec<String>,
    /// The after-states drawn once.
    #[serde(default = "samples")]
    pub samples: usize,
    /// `random`, or the preset whose games give the samples.
    #[serde(default = "random")]
    pub behaviour: String,
    /// The next piece of LSTDQ's target: `all` averages over the seven (as MdpTetris'
    /// LSPI does), `sampled` takes the one that came in the sample's game.
    #[serde(default)]
    pub next_piece: NextPiece,
}

/// Which next pieces LSTDQ's target looks at.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NextPiece {
    #[default]
    All,
    Sampled,
}

fn bertsekas() -> Vec<String> {
    vec!["bertsekas".into()]
}
fn samples() -> usize {
    100_000
}
fn random() -> String {
    "random".into()
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Lspi {
    options: Options,
    names: Vec<String>,
    /// w: one weight per feature, then the constant's.
    weights: Vec<f64>,
    /// The seed of the samples' games.
    samples_seed: u64,
    /// Whether the samples' own pieces have been counted (in the first iteration).
    counted: bool,
}

impl Lspi {
    fn from_settings(settings: &Settings) -> Result<Lspi> {
        let options: Options = settings.options()?;
        if !(1..=10_000_000).contains(&options.samples) {
            bail!("samples must be 1 to 10,000,000, found {}", options.samples);
        }
        if options.behaviour != "random" {
            // Its games are played on this board: a preset of another game is refused now.
            crate::presets::find(&options.behaviour)
                .and_then(|preset| preset.build(Some(settings.size()?), None))
                .context("behaviour")?;
        }
        let features = resolve_features(&options.features, settings.size()?.0).context("features")?;
        let names: Vec<String> = features.iter().map(|f| f.name.to_string()).collect();
        Ok(Lspi {
            weights: vec![0.0; names.len() + 1],
            names,
            options,
            samples_seed: game_seed(settings.seed, 0x15B1),
            counted: false,
        })
    }

    /// The samples: after-states and the piece that came next (the same every iteration).
    fn draw(&self, world: &World) -> Result<(Vec<(State, Piece)>, u64)> {
        let rules = world.rules.as_ref();
        let behaviour: Option<Box<dyn Policy>> = match self.options.behaviour.as_str() {
            "random" => None,
            name => {
                let board = rules.new_board();
                Some(crate::presets::find(name)?.build(Some((board.width(), board.height())), None)?.policy)
            }
        };
        let mut samples = Vec::with_capacity(self.options.samples);
        let mut pieces_locked = 0;
        let mut scratch = Scratch::default();
        let mut placements = Vec::new();
        let mut game = 0;
        while samples.len() < self.options.samples {
            let mut pieces = world.pieces(game_seed(self.samples_seed, game));
            let mut choices = Xoshiro256::new(game_seed(self.samples_seed, game | 1 << 63));
            game += 1;
            let mut state = State { board: rules.new_board(), info: PlacementInfo::default() };
            for _ in 0..MAX_PIECES_PER_GAME {
                let piece = pieces.next_piece();
                if samples.len() == self.options.samples {
                    break;
                }
                samples.push((state, piece));
                if !rules.can_spawn(&state.board, piece) {
                    break;
                }
                let placement = match &behaviour {
                    Some(policy) => {
                        let view =
                            GameView { board: &state.board, current: piece, preview: &[], hold: None, can_hold: false };
                        policy.choose(rules, &view, &mut scratch).map(|d| d.placement)
                    }
                    None => {
                        rules.candidates(&state.board, piece, &mut placements);
                        (!placements.is_empty()).then(|| placements[choices.below(placements.len() as u64) as usize])
                    }
                };
                let Some(placement) = placement else { break };
                pieces_locked += 1;
                let outcome = rules.lock(&mut state.board, &placement);
                if outcome.game_over {
                    break;
                }
                state.info = outcome.info;
            }
        }
        Ok((samples, pieces_locked))
    }
}

impl Learner for Lspi {
    fn iterate(&mut self, world: &World, _seed: u64) -> Result<String> {
        let (samples, behaviour_pieces) = self.draw(world)?;
        if !self.counted {
            world.count(behaviour_pieces);
            self.counted = true;
        }
        let features = resolve_features(&self.names, world.rules.new_board().width())?;
        let policy = greedy(&self.policy())?;
        let dimension = self.weights.len();
        let chunks: Vec<Normal> = samples
            .par_chunks(CHUNK)
            .map(|chunk| {
                let mut normal = Normal::new(dimension);
                let mut scratch = Scratch::default();
                let (mut phi, mut next, mut difference) = (Vec::new(), Vec::new(), vec![0.0; dimension]);
                for (state, piece) in chunk {
                    phi.clear();
                    next.clear();
                    feature_vector(&features, &state.board, state.info, true, &mut phi);
                    let pieces: &[Piece] = match self.options.next_piece {
                        NextPiece::All => &Piece::ALL,
                        NextPiece::Sampled => std::slice::from_ref(piece),
                    };
                    // The mean over the next pieces of phi(x') and r'.
                    let mut reward = 0.0;
                    difference.copy_from_slice(&phi);
                    for next_piece in pieces {
                        let mut board = state.board;
                        if let Transition::Locked { rows, info } =
                            world.play(&mut board, *next_piece, policy.as_ref(), &mut scratch)
                        {
                            next.clear();
                            feature_vector(&features, &board, info, true, &mut next);
                            reward += rows as f64 / pieces.len() as f64;
                            for (d, y) in difference.iter_mut().zip(&next) {
                                *d -= y / pieces.len() as f64;
                            }
                        }
                    }
                    normal.add(&phi, &difference, reward);
                }
                normal
            })
            .collect();
        super::check_stop()?;
        let mut normal = Normal::new(dimension);
        for chunk in &chunks {
            normal.merge(chunk);
        }
        let weights = normal.solve().context("the LSTDQ system is singular")?;
        let change: f64 = weights.iter().zip(&self.weights).map(|(a, b)| (a - b).powi(2)).sum::<f64>().sqrt();
        self.weights = weights;
        Ok(format!("{} samples, weights moved by {change:.3}", samples.len()))
    }

    fn policy(&self) -> Vec<(String, f64)> {
        super::value_policy(&self.names, &self.weights)
    }

    fn save(&self) -> Result<serde_json::Value> {
        Ok(serde_json::to_value(self)?)
    }
}
