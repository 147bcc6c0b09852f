//! The beam's evaluator as data: one weight per term plus the score divisor, read from a
//! TOML table. The beam keeps the boards with the smallest
//! `value = sum(weight x count) - score / score_divisor` (lower is better).
//!
//! [`TERMS`] is the one list of the terms: each one's key, what it counts and whether it is
//! one of the contest solver's four ([`Part::Seed`], a required key) or an optional extra
//! ([`Part::Extra`], 0 when left out, which leaves the search exactly the seed's: a zero
//! extra weight is not even computed). Parsing, writing, the jitter, the tuning vector and
//! the `--weights` help all read it; a new term is a line there plus its count in
//! [`Grid::extra_features`]. Beside the terms stand the score divisor and the one term that
//! reads the known sequence, [`Overflow`] (keys `overflow` and `overflow_capacity`, given
//! together).
//!
//! ```toml
//! cells = -1.0
//! row_transitions = 3.2178882868487753
//! column_transitions = 9.348695305445199
//! holes = 7.899265427351652
//! score_divisor = 38.0
//! ```

use super::game::{Features, Grid, HEIGHT, WIDTH};
use anyhow::{bail, Context, Result};
use std::path::Path;

/// Which of the evaluator's two groups a term belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// One of the contest solver's four (a required key, counted by [`Grid::features`]).
    Seed,
    /// An optional extra (0 when left out, counted by [`Grid::extra_features`] only when
    /// some extra weighs something).
    Extra,
}

/// One term of the evaluator: its key in a weights file (and its name in a tuning vector),
/// what it counts on a board after clearing, and its [`Part`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Term {
    pub name: &'static str,
    pub counts: &'static str,
    pub part: Part,
}

/// Every term, in the order of a weights file and a tuning vector: the seed's four (in the
/// order of [`Features::as_array`]), then the extras (in the order of
/// [`Grid::extra_features`]).
pub const TERMS: &[Term] = &[
    Term { name: "cells", counts: "filled cells", part: Part::Seed },
    Term {
        name: "row_transitions",
        counts: "changes between horizontally adjacent cells, walls filled",
        part: Part::Seed,
    },
    Term {
        name: "column_transitions",
        counts: "changes between each row and the one below, floor filled",
        part: Part::Seed,
    },
    Term { name: "holes", counts: "empty cells with a filled cell above them in their column", part: Part::Seed },
    Term {
        name: "wells",
        counts: "open empty cells with both neighbours filled (walls count), each weighing its depth in its well",
        part: Part::Extra,
    },
    Term { name: "rows_with_holes", counts: "rows with a hole", part: Part::Extra },
    Term { name: "almost_full_rows", counts: "rows with exactly one empty cell", part: Part::Extra },
];

/// How many terms of [`TERMS`] belong to `part`.
const fn count(part: Part) -> usize {
    let (mut i, mut n) = (0, 0);
    while i < TERMS.len() {
        n += (TERMS[i].part as u8 == part as u8) as usize;
        i += 1;
    }
    n
}

/// The names of the terms of `part`, in their order.
const fn names<const N: usize>(part: Part) -> [&'static str; N] {
    let (mut out, mut i, mut j) = ([""; N], 0, 0);
    while i < TERMS.len() {
        if TERMS[i].part as u8 == part as u8 {
            out[j] = TERMS[i].name;
            j += 1;
        }
        i += 1;
    }
    out
}

/// The place of the term `name` in [`TERMS`] (a compile-time error, used in a constant,
/// when there is no such term).
pub const fn term_index(name: &str) -> usize {
    let mut i = 0;
    while i < TERMS.len() {
        let (a, b) = (TERMS[i].name.as_bytes(), name.as_bytes());
        if a.len() == b.len() {
            let mut k = 0;
            while k < a.len() && a[k] == b[k] {
                k += 1;
            }
            if k == a.len() {
                return i;
            }
        }
        i += 1;
    }
    panic!("no such E-Tetris term")
}

/// The contest solver's terms (4) and the extras.
pub const SEED_TERMS: usize = count(Part::Seed);
pub const EXTRA_TERMS: usize = count(Part::Extra);
// The seed's terms come first, and they are the four of `Features`.
const _: () = {
    assert!(SEED_TERMS == 4, "the contest solver weighs four terms (Features)");
    let mut i = 0;
    while i < TERMS.len() {
        assert!((TERMS[i].part as u8 == Part::Seed as u8) == (i < SEED_TERMS), "the seed's terms come first");
        i += 1;
    }
};

/// The seed's term names, in the order of [`Features::as_array`].
pub const FEATURE_NAMES: [&str; SEED_TERMS] = names(Part::Seed);
/// The optional terms beyond the seed's four, in the order of [`Grid::extra_features`].
pub const EXTRA_FEATURE_NAMES: [&str; EXTRA_TERMS] = names(Part::Extra);
/// The key of the score divisor.
pub const SCORE_DIVISOR: &str = "score_divisor";
/// The keys of the [`Overflow`] term: its weight and its capacity in cells.
pub const OVERFLOW: &str = "overflow";
pub const OVERFLOW_CAPACITY: &str = "overflow_capacity";

/// Every key of a weights file, in the order of a tuning vector: the terms, the score
/// divisor, then the overflow pair.
pub fn key_names() -> Vec<&'static str> {
    TERMS.iter().map(|term| term.name).chain([SCORE_DIVISOR, OVERFLOW, OVERFLOW_CAPACITY]).collect()
}

/// The keys of a weights file in one line, for the `--weights` help: "cells, ...,
/// score_divisor; optional wells, ..., 0 if left out; optional overflow with
/// overflow_capacity, the term that reads the sequence".
pub fn keys_summary() -> String {
    format!(
        "{}, {SCORE_DIVISOR}; optional {}, 0 if left out; optional {OVERFLOW} with {OVERFLOW_CAPACITY}, the term \
         that reads the sequence",
        FEATURE_NAMES.join(", "),
        EXTRA_FEATURE_NAMES.join(", ")
    )
}

/// One line per key of a weights file, saying what it weighs (the long `--weights` help).
pub fn keys_explained() -> String {
    let mut text = String::new();
    for term in TERMS {
        let part = match term.part {
            Part::Seed => "required",
            Part::Extra => "optional, 0 if left out",
        };
        text += &format!("{}: {} ({part})\n", term.name, term.counts);
    }
    text += &format!("{SCORE_DIVISOR}: the score is divided by it and subtracted (required, positive)\n");
    text += &format!(
        "{OVERFLOW}, {OVERFLOW_CAPACITY}: cells the board would hold when the next I comes beyond a capacity of \
         0 to {} (optional, together)",
        WIDTH * HEIGHT
    );
    text
}

/// Cells a piece brings to the board.
pub const CELLS_PER_PIECE: f64 = 4.0;
/// The farthest the overflow term looks for the next I piece, in pieces: beyond it, the
/// board is judged as if the I came this many pieces on.
pub const OVERFLOW_HORIZON: usize = 60;

/// A term that reads the known sequence: the cells a board would hold when the next I
/// piece comes, were every piece before it to stay on the board, beyond `capacity`:
/// `max(0, cells + 4 x pieces until the next I - capacity)`, times `weight`.
///
/// Why: the game pays `cells x k(k+1)/2` for `k` rows, so a row cleared by an I (four at a
/// time) is worth 2.5 times the board's cells, by a J (three) 2 times, by an O or Z (two)
/// 1.5 times. The seed's key prices a row kept on the board at one rate whatever comes
/// next, but a full board far from the next I will have to clear rows two or three at a
/// time before it comes, and a row kept then is worth less. The search sets `limit`
/// (`capacity - 4 x pieces until the next I`, at most [`OVERFLOW_HORIZON`] pieces) before
/// each piece; cells above it weigh `weight` each, against the `-1` of every cell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Overflow {
    /// 0: off (then it is never computed).
    pub weight: f64,
    /// The cells the board can hold when the I comes.
    pub capacity: f64,
    /// The cell count above which a board pays `weight` per cell at this step: set by the
    /// search; `capacity` (as if the next piece were an I) until then.
    pub limit: f64,
}

impl Overflow {
    /// The term switched off.
    pub const OFF: Overflow = Overflow { weight: 0.0, capacity: 0.0, limit: 0.0 };

    /// Whether `capacity` is a cell count the board can hold (0 to 200).
    pub fn is_capacity(capacity: f64) -> bool {
        (0.0..=(WIDTH * HEIGHT) as f64).contains(&capacity)
    }

    /// The term with `weight` and `capacity`, its limit set as if the next piece were an I.
    pub fn new(weight: f64, capacity: f64) -> Overflow {
        Overflow { weight, capacity, limit: capacity }
    }

    /// The limit before a piece when the next I comes `pieces_to_next_i` pieces on
    /// (`None`: not within the sequence known).
    pub fn limit_for(&self, pieces_to_next_i: Option<usize>) -> f64 {
        let pieces = pieces_to_next_i.unwrap_or(OVERFLOW_HORIZON).min(OVERFLOW_HORIZON);
        self.capacity - CELLS_PER_PIECE * pieces as f64
    }

    /// What a board of `cells` cells pays at the current limit.
    #[inline]
    pub fn penalty(&self, cells: u32) -> f64 {
        self.weight * (cells as f64 - self.limit).max(0.0)
    }
}

/// Weights aligned with [`TERMS`] (the seed's four in `features`, the extras in
/// `extra_features`), and the divisor of the cumulative score.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Weights {
    pub features: [f64; SEED_TERMS],
    pub extra_features: [f64; EXTRA_TERMS],
    pub score_divisor: f64,
    pub overflow: Overflow,
}

impl Default for Weights {
    /// The seed's hand-tuned weights (MaxDumbledore's `BoardEvaluator::params`, score
    /// weight 1/38).
    fn default() -> Self {
        Weights {
            features: [-1.0, 3.2178882868487753, 9.348695305445199, 7.899265427351652],
            extra_features: [0.0; EXTRA_TERMS],
            score_divisor: 38.0,
            overflow: Overflow::OFF,
        }
    }
}

impl Weights {
    /// The weights of the terms, in the order of [`TERMS`].
    pub fn terms(&self) -> impl Iterator<Item = f64> + '_ {
        self.features.iter().chain(&self.extra_features).copied()
    }

    /// The weights of the terms to set, in the order of [`TERMS`].
    pub fn terms_mut(&mut self) -> impl Iterator<Item = &mut f64> {
        self.features.iter_mut().chain(self.extra_features.iter_mut())
    }

    /// The weights with the term `name` weighing `weight` (panics when there is no such
    /// term: for constants and tests).
    pub fn with(mut self, name: &str, weight: f64) -> Weights {
        let index = TERMS.iter().position(|term| term.name == name).unwrap_or_else(|| panic!("no term {name:?}"));
        *self.terms_mut().nth(index).expect("one weight per term") = weight;
        self
    }

    /// `sum(weight x feature)` of a board (lower is better), plus the [`Overflow`] term at
    /// its current limit when it weighs something.
    #[inline]
    pub fn evaluate(&self, features: &Features) -> f64 {
        // Summed left to right, as the seed does, so the keys match it bit for bit.
        let mut total = 0.0;
        for (weight, value) in self.features.iter().zip(features.as_array()) {
            total += weight * value;
        }
        if self.overflow.weight != 0.0 {
            total += self.overflow.penalty(features.cells);
        }
        total
    }

    /// Whether any extra term weighs something (else the search never computes them).
    #[inline]
    pub fn has_extra_features(&self) -> bool {
        self.extra_features.iter().any(|&w| w != 0.0)
    }

    /// [`Weights::evaluate`] plus the extra terms, summed on after the seed's four.
    #[inline]
    pub fn evaluate_with_extra(&self, features: &Features, extra: &[f64; EXTRA_TERMS]) -> f64 {
        let mut total = self.evaluate(features);
        for (weight, value) in self.extra_features.iter().zip(extra) {
            total += weight * value;
        }
        total
    }

    /// The weight of one point of score, `1 / score_divisor` (the seed multiplies by this
    /// rounded constant, so the beam keys here are bit for bit the seed's).
    #[inline]
    pub fn score_weight(&self) -> f64 {
        1.0 / self.score_divisor
    }

    /// The beam key of a board reached with `score` points (lower is kept first).
    #[inline]
    pub fn value(&self, features: &Features, score: u32) -> f64 {
        self.evaluate(features) - score as f64 * self.score_weight()
    }

    /// The beam key of a board, extra terms included when they weigh something.
    pub fn value_of(&self, grid: &Grid, score: u32) -> f64 {
        if self.has_extra_features() {
            self.evaluate_with_extra(&grid.features(), &grid.extra_features()) - score as f64 * self.score_weight()
        } else {
            self.value(&grid.features(), score)
        }
    }

    /// The weights with every term but `cells` (the scale the others are measured in)
    /// multiplied by `1 + fraction x u`, each `u` drawn uniformly from [-1, 1) by a
    /// generator seeded with `seed`: the same seed gives the same weights. Terms that weigh
    /// 0 stay 0 (off). `solve --jitter` uses it to measure how far chance alone moves a
    /// search: nearby weights give other games, whose spread is the noise an idea's gain
    /// must beat.
    pub fn jittered(&self, seed: u64, fraction: f64) -> Weights {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut factor = move || 1.0 + fraction * rng.random_range(-1.0..1.0);
        let mut weights = *self;
        // Every term but the first, cells, in the order of TERMS.
        for weight in weights.terms_mut().skip(1) {
            *weight *= factor();
        }
        weights.score_divisor *= factor();
        // Drawn last, so the other terms are jittered as before the term existed.
        if weights.overflow.weight != 0.0 {
            weights.overflow.weight *= factor();
        }
        weights
    }

    /// Parses the TOML table; the seed's four terms ([`Part::Seed`]) and the divisor are
    /// required, the extra terms default to 0, and `overflow` comes with `overflow_capacity` (0 to 200 cells);
    /// unknown keys and non-finite numbers are errors naming the key, and the divisor must
    /// be positive.
    pub fn from_toml(text: &str) -> Result<Weights> {
        let table: toml::Table = toml::from_str(text).map_err(|e| crate::names::explain_toml_error(text, &e))?;
        let known = key_names();
        for key in table.keys() {
            if !known.contains(&key.as_str()) {
                let closest = known.iter().copied().max_by(|a, b| {
                    strsim::jaro_winkler(key, a)
                        .partial_cmp(&strsim::jaro_winkler(key, b))
                        .unwrap_or(std::cmp::Ordering::Equal)
                });
                match closest.filter(|name| strsim::jaro_winkler(key, name) > 0.7) {
                    Some(name) => bail!("unknown key {key:?} (did you mean {name:?}?)"),
                    None => bail!("unknown key {key:?} (expected one of {})", known.join(", ")),
                }
            }
        }
        let number = |key: &str| -> Result<f64> {
            let value = table.get(key).with_context(|| format!("missing key {key:?}"))?;
            let number = match value {
                toml::Value::Float(f) => *f,
                toml::Value::Integer(i) => *i as f64,
                other => bail!("key {key:?}: expected a number, found {}", other.type_str()),
            };
            crate::limits::check_weight(&format!("key {key:?}"), number)?;
            Ok(number)
        };
        let mut weights = Weights {
            features: [0.0; SEED_TERMS],
            extra_features: [0.0; EXTRA_TERMS],
            score_divisor: number(SCORE_DIVISOR)?,
            overflow: Overflow::OFF,
        };
        for (term, weight) in TERMS.iter().zip(weights.terms_mut()) {
            if term.part == Part::Seed || table.contains_key(term.name) {
                *weight = number(term.name)?;
            }
        }
        if weights.score_divisor <= 0.0 {
            bail!("key {SCORE_DIVISOR:?}: must be positive, found {}", weights.score_divisor);
        }
        match (table.contains_key(OVERFLOW), table.contains_key(OVERFLOW_CAPACITY)) {
            (true, true) => {
                let capacity = number(OVERFLOW_CAPACITY)?;
                if !Overflow::is_capacity(capacity) {
                    bail!(
                        "key {OVERFLOW_CAPACITY:?}: must be a cell count in 0..={}, found {capacity}",
                        WIDTH * HEIGHT
                    );
                }
                weights.overflow = Overflow::new(number(OVERFLOW)?, capacity);
            }
            (true, false) => bail!("key {OVERFLOW:?} needs {OVERFLOW_CAPACITY:?} (the cells the board can hold)"),
            (false, true) => bail!("key {OVERFLOW_CAPACITY:?} is the capacity of {OVERFLOW:?}: give {OVERFLOW:?} too"),
            (false, false) => {}
        }
        Ok(weights)
    }

    /// Reads a weights file; errors name the file.
    pub fn load(path: &Path) -> Result<Weights> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("cannot read weights file {}", path.display()))?;
        Weights::from_toml(&text).with_context(|| format!("weights file {}", path.display()))
    }

    /// The TOML form (what [`Weights::from_toml`] reads back); extra terms only when they
    /// weigh something, so the seed's files keep their five keys.
    pub fn to_toml(&self) -> String {
        let mut text = String::new();
        for (term, weight) in TERMS.iter().zip(self.terms()) {
            if term.part == Part::Seed || weight != 0.0 {
                text += &format!("{} = {weight:?}\n", term.name);
            }
        }
        text += &format!("{SCORE_DIVISOR} = {:?}\n", self.score_divisor);
        if self.overflow.weight != 0.0 {
            text += &format!(
                "{OVERFLOW} = {:?}\n{OVERFLOW_CAPACITY} = {:?}\n",
                self.overflow.weight, self.overflow.capacity
            );
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_terms_are_the_keys_in_the_files_order() {
        // The order of a weights file, a tuning vector and a tuning run's CSV columns.
        assert_eq!(
            key_names(),
            [
                "cells",
                "row_transitions",
                "column_transitions",
                "holes",
                "wells",
                "rows_with_holes",
                "almost_full_rows",
                "score_divisor",
                "overflow",
                "overflow_capacity"
            ]
        );
        assert_eq!(
            keys_summary(),
            "cells, row_transitions, column_transitions, holes, score_divisor; optional wells, rows_with_holes, \
             almost_full_rows, 0 if left out; optional overflow with overflow_capacity, the term that reads the sequence"
        );
        let names = key_names();
        for (i, name) in names.iter().enumerate() {
            assert!(!names[..i].contains(name), "{name} twice");
        }
        for (i, term) in TERMS.iter().enumerate() {
            assert_eq!(term_index(term.name), i);
            assert!(keys_explained().contains(&format!("{}: {}", term.name, term.counts)));
        }
        assert_eq!(Weights::default().with("holes", 2.0).features[3], 2.0);
    }

    #[test]
    fn round_trips_through_toml() {
        let weights = Weights::default();
        assert_eq!(Weights::from_toml(&weights.to_toml()).unwrap(), weights);
        assert!(!weights.to_toml().contains("wells"), "the seed's files keep their five keys");
        let extra = weights.with("wells", 0.5).with("almost_full_rows", -2.0);
        let text = extra.to_toml();
        assert!(text.contains("wells = 0.5") && text.contains("almost_full_rows = -2.0"), "{text}");
        assert!(!text.contains("rows_with_holes"), "{text}");
        assert_eq!(Weights::from_toml(&text).unwrap(), extra);
    }

    #[test]
    fn zero_extra_weights_give_the_seeds_values_bit_for_bit() {
        let grid = Grid::parse("#.#.......\n#.######.#\n#########.").unwrap();
        let seed = Weights::default();
        assert!(!seed.has_extra_features());
        assert_eq!(seed.value_of(&grid, 17).to_bits(), seed.value(&grid.features(), 17).to_bits());
        let with_wells = seed.with("wells", 1.5);
        // The grid's wells count 4.
        let difference = with_wells.value_of(&grid, 17) - seed.value_of(&grid, 17);
        assert!((difference - 6.0).abs() < 1e-9, "{difference}");
    }

    #[test]
    fn the_overflow_term_round_trips_and_weighs_cells_above_its_limit() {
        let with = Weights { overflow: Overflow::new(0.25, 170.0), ..Weights::default() };
        let text = with.to_toml();
        assert!(text.contains("overflow = 0.25\noverflow_capacity = 170.0"), "{text}");
        assert_eq!(Weights::from_toml(&text).unwrap(), with);
        assert!(!Weights::default().to_toml().contains("overflow"), "off, the files keep their keys");
        // Three rows of nine cells: 27 cells. Below the limit nothing changes; 7 cells
        // above a limit of 20 weigh 0.25 each.
        let grid = Grid::parse(".#########\n#.########\n########.#").unwrap();
        let seed = Weights::default();
        assert_eq!(with.value_of(&grid, 5), seed.value_of(&grid, 5), "limit 170: no cell above it");
        let near = Weights { overflow: Overflow { limit: 20.0, ..with.overflow }, ..seed };
        assert!((near.value_of(&grid, 5) - seed.value_of(&grid, 5) - 1.75).abs() < 1e-9);
        // The jitter moves the weight, never the capacity.
        let jittered = with.jittered(3, 0.1);
        assert_ne!(jittered.overflow.weight, 0.25);
        assert_eq!(jittered.overflow.capacity, 170.0);
    }

    #[test]
    fn the_overflow_keys_come_together_and_the_capacity_is_a_cell_count() {
        let good = Weights::default().to_toml();
        let error = |extra: &str| Weights::from_toml(&format!("{good}{extra}")).unwrap_err().to_string();
        assert!(error("overflow = 0.25\n").contains("key \"overflow\" needs \"overflow_capacity\""));
        assert!(error("overflow_capacity = 170\n").contains("give \"overflow\" too"));
        assert!(error("overflow = 0.25\noverflow_capacity = 201\n").contains("must be a cell count in 0..=200"));
        assert!(error("overflow = nan\noverflow_capacity = 170\n").contains("key \"overflow\""));
        assert!(error("overflow = 0.25\noverflow_capcity = 170\n").contains("did you mean \"overflow_capacity\""));
    }

    #[test]
    fn jitter_is_seeded_bounded_and_leaves_the_scale_and_zero_terms_alone() {
        let weights = Weights::default().with("almost_full_rows", -0.5);
        let a = weights.jittered(7, 0.01);
        assert_eq!(a, weights.jittered(7, 0.01), "the same seed gives the same weights");
        assert_ne!(a, weights.jittered(8, 0.01));
        assert_eq!(weights.jittered(7, 0.0), weights, "no jitter, no change");
        assert_eq!(a.features[0], -1.0, "cells is the scale");
        let terms = TERMS.iter().map(|term| term.name).zip(weights.terms().zip(a.terms())).skip(1);
        for (name, (before, after)) in terms.chain([(SCORE_DIVISOR, (weights.score_divisor, a.score_divisor))]) {
            if before == 0.0 {
                assert_eq!(after, 0.0, "{name}: terms that are off stay off");
                continue;
            }
            let ratio = after / before;
            assert!(ratio != 1.0 && (0.99..=1.01).contains(&ratio), "{name}: {before} -> {after}");
        }
    }

    #[test]
    fn rejects_unknown_missing_and_non_finite_keys() {
        let good = Weights::default().to_toml();
        let typo = good.replace("holes", "hole");
        let error = Weights::from_toml(&typo).unwrap_err().to_string();
        assert!(error.contains("unknown key \"hole\"") && error.contains("did you mean \"holes\""), "{error}");
        let missing: String = good.lines().filter(|l| !l.starts_with("cells")).map(|l| format!("{l}\n")).collect();
        assert!(Weights::from_toml(&missing).unwrap_err().to_string().contains("missing key \"cells\""));
        let nan = good.replace("holes = 7.899265427351652", "holes = nan");
        assert!(Weights::from_toml(&nan).unwrap_err().to_string().contains("key \"holes\""));
        let zero = good.replace("score_divisor = 38.0", "score_divisor = 0");
        assert!(Weights::from_toml(&zero).unwrap_err().to_string().contains("must be positive"));
    }
}
