//! The E-Tetris objective: the contest evaluator's weights, scored by the beam search
//! they steer (`preset = "etetris"` in an experiment file).
//!
//! One job is one [`BeamSearch`] from the empty grid over the contest's known piece
//! sequence, exactly what `tetris-lab etetris solve --beam K --weights FILE` runs; its fitness is
//! the contest score it reaches (the game's count) and its pieces are the pieces placed
//! (fewer than 10,000 when every kept board tops out). The search is deterministic, so
//! the job's seed is ignored and a candidate plays one "game". The held-out round, the
//! final comparison of the tuned and the published weights, searches wider
//! (`held_out_beam`, default 1,000: the width of the published 1.30 M), and there the
//! score is checked by replaying the search's record, as `solve` does.
//!
//! The weight vector is the terms of [`TERMS`] (the extras 0 unless an experiment tunes or
//! fixes them), `score_divisor`, then `overflow` and
//! `overflow_capacity` (the [`Overflow`] term, off while `overflow` is 0). A vector `solve`
//! would refuse (a weight that is not finite, a score divisor that is not positive: the
//! beam key divides by it, or an overflow capacity outside 0..=200 cells while the term is
//! on) is not searched: its fitness is 0, the worst score there is, so every optimizer moves
//! away from it.

use super::objective::{Objective, Played};
use crate::etetris::checked::check;
use crate::etetris::game::{sequence, Grid, Spawn};
use crate::etetris::solver::{BeamSearch, MoveSet, Options, Refinements};
use crate::etetris::weights::{key_names, Overflow, Weights, TERMS};
use anyhow::{bail, Result};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// The experiment file's `[etetris]` table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "Table")]
pub struct Settings {
    /// Boards kept after each piece while tuning (`solve --beam`).
    pub beam: usize,
    /// The move set (`solve --moves`): `seed` or `full`.
    pub moves: MoveSet,
    /// Boards kept in the final scoring of the best and the published weights.
    pub held_out_beam: usize,
    /// The search's refinements while tuning and in the final scoring, as `etetris solve`'s
    /// flags of the same names (`--lookahead`, ...; see [`Refinements`]): 0 is off. Their
    /// keys stand in the table itself (`lookahead = 2`).
    #[serde(flatten)]
    pub refinements: Refinements,
    /// 0: off, one deterministic search a candidate. Otherwise each of a candidate's
    /// `games` is a search with its weights jittered by up to this many percent, as
    /// `solve --jitter SEED --jitter-percent P`, the game's seed drawing the jitter: the
    /// mean over a few such searches measures weights above the chance that moves a
    /// single search (see the README). The final scoring is not jittered.
    pub jitter_percent: f64,
}

/// [`Settings`] as the file holds it: its own keys and the refinements' flattened, any
/// other key refused as serde refuses an unknown field (naming the keys it expects, for a
/// did-you-mean).
#[derive(Deserialize)]
#[serde(default)]
struct Table {
    beam: usize,
    moves: MoveSet,
    held_out_beam: usize,
    jitter_percent: f64,
    #[serde(flatten)]
    refinements: Refinements,
    #[serde(flatten)]
    unknown: std::collections::BTreeMap<String, serde::de::IgnoredAny>,
}

impl Default for Table {
    fn default() -> Table {
        let Settings { beam, moves, held_out_beam, refinements, jitter_percent } = Settings::default();
        Table { beam, moves, held_out_beam, jitter_percent, refinements, unknown: Default::default() }
    }
}

impl TryFrom<Table> for Settings {
    type Error = String;

    fn try_from(table: Table) -> Result<Settings, String> {
        if let Some(key) = table.unknown.keys().next() {
            let own = ["beam", "moves", "held_out_beam", "jitter_percent"];
            let expected: Vec<String> = own
                .into_iter()
                .chain(Refinements::default().named().map(|(name, _)| name))
                .map(|name| format!("`{name}`"))
                .collect();
            return Err(format!("unknown field `{key}`, expected one of {}", expected.join(", ")));
        }
        let Table { beam, moves, held_out_beam, jitter_percent, refinements, .. } = table;
        Ok(Settings { beam, moves, held_out_beam, refinements, jitter_percent })
    }
}

impl Default for Settings {
    /// Tuning at 100 kept boards (about a second per candidate on one core, the
    /// smallest width of the README's benchmark); the final scoring at the published
    /// 1,000.
    fn default() -> Settings {
        Settings {
            beam: 100,
            moves: MoveSet::Seed,
            held_out_beam: 1000,
            refinements: Refinements::default(),
            jitter_percent: 0.0,
        }
    }
}

impl Settings {
    pub fn validate(&self) -> Result<()> {
        if self.beam == 0 {
            bail!("[etetris] beam = 0: the search keeps at least 1 board");
        }
        if self.held_out_beam == 0 {
            bail!("[etetris] held_out_beam = 0: the search keeps at least 1 board");
        }
        for (key, beam) in [("beam", self.beam), ("held_out_beam", self.held_out_beam)] {
            if beam > crate::limits::MAX_BEAM {
                bail!("[etetris] {key} = {beam} is more than the limit of {}", crate::limits::MAX_BEAM);
            }
        }
        self.refinements.check(|field| format!("[etetris] {field}"))?;
        if !(self.jitter_percent.is_finite() && (0.0..=50.0).contains(&self.jitter_percent)) {
            bail!("[etetris] jitter_percent = {}: must be in 0..=50 (0: off)", self.jitter_percent);
        }
        Ok(())
    }

    /// Whether a candidate's searches are jittered (then it may play several).
    pub fn is_jittered(&self) -> bool {
        self.jitter_percent > 0.0
    }
}

/// The weight names of a tuning vector, in its order.
pub fn weight_names() -> Vec<&'static str> {
    key_names()
}

/// Where the score divisor stands in a vector, after the terms (the overflow pair follows it).
pub const DIVISOR_INDEX: usize = TERMS.len();

/// A tuning vector as [`weight_names`] orders it.
pub fn vector(weights: &Weights) -> Vec<f64> {
    let overflow = [weights.overflow.weight, weights.overflow.capacity];
    weights.terms().chain([weights.score_divisor]).chain(overflow).collect()
}

/// The weights of a tuning vector, or `None` where `solve` would refuse them (see the
/// module doc).
pub fn weights(vector: &[f64]) -> Option<Weights> {
    assert_eq!(
        vector.len(),
        DIVISOR_INDEX + 3,
        "an E-Tetris vector has {DIVISOR_INDEX} weights, the score divisor and the overflow pair"
    );
    let score_divisor = vector[DIVISOR_INDEX];
    if !vector.iter().all(|w| w.is_finite()) || score_divisor <= 0.0 {
        return None;
    }
    let (weight, capacity) = (vector[DIVISOR_INDEX + 1], vector[DIVISOR_INDEX + 2]);
    let overflow = if weight == 0.0 {
        Overflow::OFF
    } else if Overflow::is_capacity(capacity) {
        Overflow::new(weight, capacity)
    } else {
        return None;
    };
    let mut weights = Weights { score_divisor, overflow, ..Weights::default() };
    for (weight, &value) in weights.terms_mut().zip(vector) {
        *weight = value;
    }
    Some(weights)
}

/// The coefficients of the beam key, `[w1, ..., wN, -1/score_divisor, overflow,
/// overflow_capacity]` (one `w` per term): what the search's choices depend on (the linear part up to a
/// positive factor), for comparing directions.
pub fn coefficients(vector: &[f64]) -> Vec<f64> {
    let mut coefficients = vector.to_vec();
    if let Some(divisor) = coefficients.get_mut(DIVISOR_INDEX) {
        *divisor = -1.0 / *divisor;
    }
    coefficients
}

/// Scores weight vectors by the beam search over the first `pieces` of the sequence.
pub struct ETetrisObjective {
    settings: Settings,
    spawns: Vec<Spawn>,
}

impl ETetrisObjective {
    /// `pieces` is the number of pieces of the sequence to place (the contest: 10,000).
    pub fn new(settings: Settings, pieces: usize) -> ETetrisObjective {
        ETetrisObjective { settings, spawns: sequence(pieces) }
    }
}

impl Objective for ETetrisObjective {
    /// The seed draws the jitter when the settings jitter the weights (not in the final
    /// scoring); otherwise it is ignored: the sequence is the contest's, and the search
    /// deterministic.
    fn play(&self, vector: &[f64], seed: u64, held_out: bool, live: &AtomicU64) -> Result<Played> {
        let start = Instant::now();
        let Some(weights) = weights(vector) else {
            return Ok(Played { fitness: 0.0, pieces: 0, seconds: 0.0 });
        };
        let beam = if held_out { self.settings.held_out_beam } else { self.settings.beam };
        let moves = self.settings.moves;
        // BeamSearch expands with rayon: inside the driver's pool this nests, so a
        // generation of few candidates still uses every thread.
        let weights = if self.settings.is_jittered() && !held_out {
            weights.jittered(seed, self.settings.jitter_percent / 100.0)
        } else {
            weights
        };
        let options = Options { refinements: self.settings.refinements, ..Options::new(beam, moves, weights) };
        let solution = BeamSearch::new(options).solve(Grid::default(), &self.spawns, &mut |_| {
            live.fetch_add(1, Ordering::Relaxed);
        });
        if held_out {
            // The reported figure is the game's own count of the record, as `solve` prints.
            check(&self.spawns, &solution, moves)?;
        }
        Ok(Played {
            fitness: solution.score as f64,
            pieces: solution.placements.len() as u64,
            seconds: start.elapsed().as_secs_f64(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::etetris::weights::{term_index, EXTRA_TERMS, SEED_TERMS};

    const PIECES: usize = 400;

    fn direct(weights: Weights, beam: usize) -> (u32, usize) {
        let solution = BeamSearch::new(Options::new(beam, MoveSet::Seed, weights)).solve(
            Grid::default(),
            &sequence(PIECES),
            &mut |_| {},
        );
        (solution.score, solution.placements.len())
    }

    #[test]
    fn plays_what_the_beam_search_plays() {
        let settings = Settings { beam: 40, moves: MoveSet::Seed, held_out_beam: 60, ..Settings::default() };
        let objective = ETetrisObjective::new(settings, PIECES);
        let published = vector(&Weights::default());
        let live = AtomicU64::new(0);
        let tuning = objective.play(&published, 1, false, &live).unwrap();
        let (score, pieces) = direct(Weights::default(), 40);
        assert!(score > 10_000, "a search that scores little checks little: {score}");
        assert_eq!((tuning.fitness, tuning.pieces), (score as f64, pieces as u64));
        assert_eq!(live.load(Ordering::Relaxed), pieces as u64);
        // Deterministic: another seed, another run, the same score.
        let again = objective.play(&published, 99, false, &live).unwrap();
        assert_eq!((again.fitness, again.pieces), (tuning.fitness, tuning.pieces));
        // The held-out round searches `held_out_beam` boards (and replays its record).
        let held_out = objective.play(&published, 1, true, &live).unwrap();
        let (wide, _) = direct(Weights::default(), 60);
        assert_ne!(score, wide, "beams 40 and 60 must differ for this check to mean something");
        assert_eq!(held_out.fitness, wide as f64);
        // Other weights, another search.
        let mut other = published.clone();
        other[term_index("holes")] = 2.0;
        let changed = objective.play(&other, 1, false, &live).unwrap();
        let expected = direct(weights(&other).unwrap(), 40).0;
        assert_ne!(expected, score);
        assert_eq!(changed.fitness, expected as f64);
        // An extra term steers the search too.
        let mut wells = published.clone();
        wells[term_index("wells")] = 2.0;
        let steered = objective.play(&wells, 1, false, &live).unwrap();
        let expected = direct(weights(&wells).unwrap(), 40).0;
        assert_ne!(expected, score, "a weight on wells must change the search");
        assert_eq!(steered.fitness, expected as f64);
    }

    #[test]
    fn jittered_refined_searches_are_solves_searches_drawn_by_the_games_seed() {
        let settings = Settings { beam: 20, moves: MoveSet::Full, held_out_beam: 20, ..Settings::default() };
        let refinements = Refinements { lookahead: 2, endgame: 50, second_ply: 2, ..Refinements::default() };
        let refined = Settings { refinements, jitter_percent: 5.0, ..settings.clone() };
        let objective = ETetrisObjective::new(refined.clone(), 300);
        let live = AtomicU64::new(0);
        let published = vector(&Weights::default());
        let solve = |weights: Weights| {
            let options = Options { refinements: refined.refinements, ..Options::new(20, MoveSet::Full, weights) };
            BeamSearch::new(options).solve(Grid::default(), &sequence(300), &mut |_| {}).score as f64
        };
        let (one, two) = (Weights::default().jittered(7, 0.05), Weights::default().jittered(8, 0.05));
        let (seven, eight) = (solve(one), solve(two));
        assert_ne!(seven, eight, "two jitters, two games");
        assert_eq!(objective.play(&published, 7, false, &live).unwrap().fitness, seven);
        assert_eq!(objective.play(&published, 7, false, &live).unwrap().fitness, seven, "the same seed, the same game");
        assert_eq!(objective.play(&published, 8, false, &live).unwrap().fitness, eight);
        // The final scoring searches the weights as given, with the refinements.
        let plain = solve(Weights::default());
        assert_eq!(objective.play(&published, 7, true, &live).unwrap().fitness, plain);
        assert_eq!(objective.play(&published, 8, true, &live).unwrap().fitness, plain);
        // Without jitter the seed is ignored, as before.
        let unjittered = ETetrisObjective::new(Settings { jitter_percent: 0.0, ..refined }, 300);
        assert_eq!(unjittered.play(&published, 7, false, &live).unwrap().fitness, plain);
        assert_eq!(unjittered.play(&published, 8, false, &live).unwrap().fitness, plain);
    }

    #[test]
    fn vectors_solve_would_refuse_score_zero() {
        let objective = ETetrisObjective::new(Settings::default(), PIECES);
        let live = AtomicU64::new(0);
        let mut vector = vector(&Weights::default());
        let divisor = DIVISOR_INDEX;
        for (index, bad) in [
            (divisor, 0.0),
            (divisor, -38.0),
            (divisor, f64::INFINITY),
            (1, f64::NAN),
            (0, f64::NEG_INFINITY),
            (term_index("rows_with_holes"), f64::NAN),
        ] {
            let mut v = vector.clone();
            v[index] = bad;
            assert!(weights(&v).is_none(), "{v:?}");
            let played = objective.play(&v, 1, false, &live).unwrap();
            assert_eq!((played.fitness, played.pieces), (0.0, 0), "{v:?}");
        }
        assert_eq!(live.load(Ordering::Relaxed), 0);
        vector[divisor] = 1e-9;
        assert!(weights(&vector).is_some());
    }

    #[test]
    fn vectors_and_weights_line_up() {
        let published = Weights::default();
        let v = vector(&published);
        // The keys of a weights file (whose order weights.rs pins), the divisor after the terms.
        assert_eq!(weight_names(), key_names());
        assert_eq!(weight_names()[DIVISOR_INDEX], crate::etetris::weights::SCORE_DIVISOR);
        let divisor = DIVISOR_INDEX;
        assert_eq!(weights(&v), Some(published));
        assert_eq!(coefficients(&v)[divisor], -1.0 / 38.0);
        assert_eq!(&coefficients(&v)[divisor + 1..], &[0.0, 0.0], "the overflow term is off");
        let with = Weights { overflow: Overflow::new(0.25, 170.0), ..published };
        assert_eq!(&vector(&with)[divisor + 1..], &[0.25, 170.0]);
        assert_eq!(weights(&vector(&with)), Some(with));
        // A capacity that is no cell count is refused while the term is on, ignored when off.
        let mut wide = vector(&with);
        wide[divisor + 2] = 250.0;
        assert_eq!(weights(&wide), None);
        wide[divisor + 1] = 0.0;
        assert_eq!(weights(&wide), Some(published));
        assert_eq!(&coefficients(&v)[SEED_TERMS..divisor], &[0.0; EXTRA_TERMS]);
        assert_eq!(&coefficients(&v)[..SEED_TERMS], &published.features);
        let tuned = published.with("almost_full_rows", -0.5);
        assert_eq!(weights(&vector(&tuned)), Some(tuned));
    }

    /// The refinements' names, each with a distinct value that passes their check.
    fn every_refinement() -> Vec<(String, u64)> {
        let names = serde_json::to_value(Refinements::default()).unwrap();
        names.as_object().unwrap().keys().cloned().zip(2..).collect()
    }

    #[test]
    fn the_table_has_every_refinement_and_carries_it_to_the_search() {
        // `[etetris]` holds the refinements' keys (flattened): each is read and carried.
        let fields = every_refinement();
        let table: String = fields.iter().map(|(name, value)| format!("{name} = {value}\n")).collect();
        let settings: Settings = toml::from_str(&table).unwrap_or_else(|e| panic!("{table}: {e}"));
        let carried = serde_json::to_value(settings.refinements).unwrap();
        for (name, value) in &fields {
            assert_eq!(carried[name], *value, "{name}");
        }
        settings.validate().unwrap();
    }

    #[test]
    fn settings_are_checked() {
        assert!(Settings::default().validate().is_ok());
        let zero = Settings { beam: 0, ..Settings::default() };
        assert!(zero.validate().unwrap_err().to_string().contains("beam = 0"));
        let zero = Settings { held_out_beam: 0, ..Settings::default() };
        assert!(zero.validate().unwrap_err().to_string().contains("held_out_beam = 0"));
    }
}
