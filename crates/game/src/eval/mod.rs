//! Evaluators: named features with weights (data, keyed by feature name), a sense
//! (higher-is-better score or lower-is-better penalty). The named presets that build
//! them into games are in [`crate::presets`].

use crate::board::{Board, MAX_WIDTH};
use crate::features::incremental::HeightsAfter;
use crate::features::{columns, incremental, penalty7, Feature, FeatureContext};
use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::path::Path;

/// Whether an evaluator's value is a score to maximise or a penalty to minimise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sense {
    /// Higher is better.
    Maximize,
    /// Lower is better (a penalty).
    Minimize,
}

/// How a feature is computed.
pub type FeatureFunction = fn(&FeatureContext) -> f64;

/// Slots of the fast path's values ([`Evaluator::fast_utility`]): its features by index, then the
/// column heights after the drop, the differences of neighbouring columns, and the highest
/// column (Bertsekas' features, read from [`HeightsAfter`]).
const HEIGHT_SLOTS: usize = incremental::FEATURE_COUNT;
const DIFFERENCE_SLOTS: usize = HEIGHT_SLOTS + MAX_WIDTH;
const MAX_HEIGHT_SLOT: usize = DIFFERENCE_SLOTS + MAX_WIDTH;

/// The slot of a feature on the fast path, if it has one.
fn fast_slot(name: &str) -> Option<usize> {
    if let Some(index) = incremental::index_of(name) {
        return Some(index);
    }
    if name == "max_height" {
        return Some(MAX_HEIGHT_SLOT);
    }
    let column = |prefix: &str| name.strip_prefix(prefix)?.parse::<usize>().ok().filter(|x| *x < MAX_WIDTH);
    column("column_height_")
        .map(|x| HEIGHT_SLOTS + x)
        .or_else(|| column("column_difference_").map(|x| DIFFERENCE_SLOTS + x))
}

/// The weights of an evaluator whose terms read the column heights after the drop
/// (Bertsekas'), by slot: what the one-piece walk bounds a drop's value with, the heights
/// of a drop that clears no row being the board's but in the piece's columns.
#[derive(Clone, Debug)]
pub struct SlotWeights {
    /// The fast path's features, by index.
    pub features: [f64; incremental::FEATURE_COUNT],
    /// Column `x`'s height and its difference with column `x + 1`.
    pub heights: [f64; MAX_WIDTH],
    pub differences: [f64; MAX_WIDTH],
    /// The highest column.
    pub highest: f64,
}

impl SlotWeights {
    /// The margin of [`PruneRounding::mixed`](incremental::PruneRounding::mixed) for
    /// bounds with these weights ([`incremental::mixed_prune_margin`] of the features, the
    /// height terms added to the total it scales: the heights and their differences are
    /// below 2^17 too); `None` where that gives none or a weight is not finite.
    pub fn prune_margin(&self) -> Option<f64> {
        let features = incremental::mixed_prune_margin(&self.features, incremental::ALL_SET)?;
        let heights = self.heights.iter().chain(&self.differences).chain([&self.highest]);
        let mut total = 0.0;
        for w in heights {
            if !w.is_finite() {
                return None;
            }
            total += w.abs();
        }
        Some(features + 1e-12 * (1u64 << 17) as f64 * total)
    }

    /// The height terms of the board's heights (`width` columns), summed.
    #[inline]
    pub fn heights_sum(&self, heights: &[u8; MAX_WIDTH], width: usize) -> f64 {
        let mut total = 0.0;
        for x in 0..width {
            total += self.heights[x] * heights[x] as f64;
            if x + 1 < width {
                total += self.differences[x] * heights[x].abs_diff(heights[x + 1]) as f64;
            }
        }
        total + self.highest * heights[..width].iter().copied().max().unwrap_or(0) as f64
    }

    /// What the height terms change by when the columns `left..left + tops.len()` of the
    /// board's heights (`width` columns, highest `highest`) rise to `tops` (a drop that
    /// clears no row).
    #[inline(always)]
    pub fn heights_change(
        &self,
        heights: &[u8; MAX_WIDTH],
        width: usize,
        highest: u8,
        left: usize,
        tops: &[u32],
    ) -> f64 {
        let height_after =
            |x: usize| if x.wrapping_sub(left) < tops.len() { tops[x - left] } else { heights[x] as u32 };
        let mut change = 0.0;
        let mut top = highest as u32;
        for (j, &new) in tops.iter().enumerate() {
            let x = left + j;
            change += self.heights[x] * (new - heights[x] as u32) as f64;
            top = top.max(new);
        }
        // The differences that involve a piece column.
        let first = left.saturating_sub(1);
        let last = (left + tops.len()).min(width - 1);
        for x in first..last {
            let before = heights[x].abs_diff(heights[x + 1]) as f64;
            let after = height_after(x).abs_diff(height_after(x + 1)) as f64;
            change += self.differences[x] * (after - before);
        }
        change + self.highest * (top - highest as u32) as f64
    }
}

/// A weighted sum of features.
#[derive(Clone, Debug)]
pub struct Evaluator {
    /// Every feature with its weight, in preset order (zero weights included, for CSVs).
    pub terms: Vec<(&'static Feature, f64)>,
    /// The non-zero terms, the only ones computed during play.
    active: Vec<(FeatureFunction, f64)>,
    /// The active terms as slots of the incremental fast path (its features by index, then
    /// Bertsekas' from the heights, as the full features compute them: a column past the width
    /// reads 0, and so does a difference without a second column), when it covers them all.
    fast: Option<Vec<(usize, f64)>>,
    /// Whether a fast term reads the column heights after the drop (Bertsekas').
    fast_needs_heights: bool,
    /// Whether a fast term is the highest column's height.
    fast_needs_highest: bool,
    /// The fast terms' weights by slot, when they read the column heights.
    slot_weights: Option<SlotWeights>,
    /// When the fast path's indices of the active terms ascend: the weights by index (zero
    /// elsewhere) and the set of active indices, for the specialised sums of
    /// [`incremental::ParentSummary::score_at`].
    fast_weights: Option<([f64; incremental::FEATURE_COUNT], u32)>,
    /// The same weights as integers, when they all are (Dellacherie's): the sums of
    /// [`incremental::ParentSummary::score_at`] in integers ([`incremental::WeightVector`]).
    fast_integer_weights: Option<[i64; incremental::FEATURE_COUNT]>,
    pub sense: Sense,
    /// A board with any cell at or above this row is the worst possible (the 7-term bot's
    /// hidden rows give +infinity).
    pub forbidden_from_row: Option<usize>,
    /// Weights when the terms are exactly the 7-term penalty's, in its order: the value is
    /// then summed in the original program's order, bit for bit (its ties depend on it).
    penalty7_weights: Option<[f64; 7]>,
    /// The active terms as indices of the column engine ([`columns`]), in term order, when
    /// it covers them all.
    column_terms: Option<Vec<(usize, f64)>>,
    /// The column engine's indices of the terms ([`columns::COLUMN_ARRAYS`] for the 7-term
    /// penalty, summed from the column arrays in its original order).
    column_set: u32,
}

impl Evaluator {
    pub fn new(terms: Vec<(&'static Feature, f64)>, sense: Sense, forbidden_from_row: Option<usize>) -> Evaluator {
        let active = terms.iter().filter(|(_, w)| *w != 0.0).map(|(f, w)| (f.compute, *w)).collect();
        let fast = if forbidden_from_row.is_none() {
            terms
                .iter()
                .filter(|(_, w)| *w != 0.0)
                .map(|(f, w)| fast_slot(f.name).map(|slot| (slot, *w)))
                .collect::<Option<Vec<_>>>()
        } else {
            None
        };
        let fast_needs_heights = fast.as_ref().is_some_and(|terms| terms.iter().any(|(slot, _)| *slot >= HEIGHT_SLOTS));
        let fast_needs_highest =
            fast.as_ref().is_some_and(|terms| terms.iter().any(|(slot, _)| *slot == MAX_HEIGHT_SLOT));
        let slot_weights = fast.as_ref().filter(|_| fast_needs_heights).map(|terms| {
            let mut weights = SlotWeights {
                features: [0.0; incremental::FEATURE_COUNT],
                heights: [0.0; MAX_WIDTH],
                differences: [0.0; MAX_WIDTH],
                highest: 0.0,
            };
            for &(slot, w) in terms {
                let weight = if slot < HEIGHT_SLOTS {
                    &mut weights.features[slot]
                } else if slot < DIFFERENCE_SLOTS {
                    &mut weights.heights[slot - HEIGHT_SLOTS]
                } else if slot < MAX_HEIGHT_SLOT {
                    &mut weights.differences[slot - DIFFERENCE_SLOTS]
                } else {
                    &mut weights.highest
                };
                *weight += w;
            }
            weights
        });
        // The specialised sums: the fast path's own features, in index order.
        let fast_indices = fast.as_ref().filter(|_| !fast_needs_heights);
        let fast_weights = fast_indices.and_then(|terms| {
            let ascending = terms.windows(2).all(|pair| pair[0].0 < pair[1].0);
            ascending.then(|| {
                let mut weights = [0.0; incremental::FEATURE_COUNT];
                let mut set = 0;
                for &(index, w) in terms {
                    weights[index] = w;
                    set |= 1 << index;
                }
                (weights, set)
            })
        });
        let fast_integer_weights = fast_weights.as_ref().and_then(|(weights, _)| incremental::integer_weights(weights));
        let is_penalty7 = terms.len() == 7 && terms.iter().zip(penalty7::NAMES).all(|((f, _), n)| f.name == n);
        let penalty7_weights = is_penalty7.then(|| std::array::from_fn(|i| terms[i].1));
        let column_terms = terms
            .iter()
            .filter(|(_, w)| *w != 0.0)
            .map(|(f, w)| columns::index_of(f.name).map(|i| (i, *w)))
            .collect::<Option<Vec<_>>>();
        // The 7-term penalty is summed from the column arrays, not from its seven values.
        let column_set = if penalty7_weights.is_some() {
            columns::COLUMN_ARRAYS
        } else {
            terms.iter().filter_map(|(f, _)| columns::index_of(f.name)).fold(0, |set, i| set | 1 << i)
        };
        Evaluator {
            terms,
            active,
            fast,
            fast_needs_heights,
            fast_needs_highest,
            slot_weights,
            fast_weights,
            fast_integer_weights,
            sense,
            forbidden_from_row,
            penalty7_weights,
            column_terms,
            column_set,
        }
    }

    /// Builds an evaluator from feature names and weights, checking the names.
    pub fn from_names(
        names_weights: &[(&str, f64)],
        sense: Sense,
        forbidden_from_row: Option<usize>,
    ) -> Result<Evaluator> {
        let mut terms = Vec::new();
        for &(name, w) in names_weights {
            terms.push((crate::features::find(name)?, w));
        }
        Ok(Evaluator::new(terms, sense, forbidden_from_row))
    }

    pub fn feature_names(&self) -> Vec<&'static str> {
        self.terms.iter().map(|(f, _)| f.name).collect()
    }
    pub fn weights(&self) -> Vec<f64> {
        self.terms.iter().map(|(_, w)| *w).collect()
    }

    /// The same features with other weights (same order).
    pub fn with_weights(&self, weights: &[f64]) -> Evaluator {
        assert_eq!(weights.len(), self.terms.len());
        let terms = self.terms.iter().zip(weights).map(|((f, _), &w)| (*f, w)).collect();
        Evaluator::new(terms, self.sense, self.forbidden_from_row)
    }

    /// The evaluator's own value: the weighted sum (a penalty for `Minimize`), or the worst
    /// value when the board reaches a forbidden row.
    #[inline]
    pub fn value(&self, ctx: &FeatureContext) -> f64 {
        if let Some(row) = self.forbidden_from_row {
            if ctx.board.has_cells_from(row) {
                return match self.sense {
                    Sense::Maximize => f64::NEG_INFINITY,
                    Sense::Minimize => f64::INFINITY,
                };
            }
        }
        if let Some(weights) = &self.penalty7_weights {
            return penalty7::original_order_penalty(ctx.board, weights);
        }
        let mut total = 0.0;
        for (compute, w) in &self.active {
            total += w * compute(ctx);
        }
        total
    }

    /// Higher is better whatever the sense: what policies compare.
    #[inline]
    pub fn utility(&self, ctx: &FeatureContext) -> f64 {
        match self.sense {
            Sense::Maximize => self.value(ctx),
            Sense::Minimize => -self.value(ctx),
        }
    }

    /// Whether every active feature is covered by the incremental fast path.
    #[inline]
    pub fn has_fast_path(&self) -> bool {
        self.fast.is_some()
    }

    /// The fast path's features among the terms, as a set of their indices.
    #[inline]
    pub fn fast_value_set(&self) -> u32 {
        self.fast.iter().flatten().filter(|(slot, _)| *slot < HEIGHT_SLOTS).fold(0, |set, (slot, _)| set | 1 << slot)
    }

    /// Whether [`Evaluator::fast_utility`] reads the column heights after the drop
    /// (Bertsekas' features): the caller computes them only then.
    #[inline]
    pub fn fast_needs_heights(&self) -> bool {
        self.fast_needs_heights
    }

    /// The utility from the fast path's raw feature values and, for Bertsekas' features,
    /// the column heights after the drop (any value when [`Evaluator::fast_needs_heights`]
    /// is false); the terms are summed in the same order as [`Evaluator::value`], so the
    /// result is bit-identical.
    #[inline]
    pub fn fast_utility(&self, values: &[f64; incremental::FEATURE_COUNT], heights: &HeightsAfter) -> f64 {
        let terms = self.fast.as_ref().expect("has_fast_path checked");
        let mut total = 0.0;
        if self.fast_needs_heights {
            // Every slot's value once, then the terms in order (no branches per term).
            let mut slots = [0.0; MAX_HEIGHT_SLOT + 1];
            slots[..HEIGHT_SLOTS].copy_from_slice(values);
            let width = heights.width.min(MAX_WIDTH);
            for x in 0..width {
                slots[HEIGHT_SLOTS + x] = heights.heights[x] as f64;
            }
            for x in 0..width.saturating_sub(1) {
                slots[DIFFERENCE_SLOTS + x] = heights.heights[x].abs_diff(heights.heights[x + 1]) as f64;
            }
            if self.fast_needs_highest {
                slots[MAX_HEIGHT_SLOT] = heights.heights.iter().copied().max().unwrap_or(0) as f64;
            }
            for &(slot, w) in terms {
                total += w * slots[slot];
            }
        } else {
            for &(index, w) in terms {
                total += w * values[index];
            }
        }
        match self.sense {
            Sense::Maximize => total,
            Sense::Minimize => -total,
        }
    }

    /// The fast terms' weights by slot, when they read the column heights (see
    /// [`SlotWeights`]).
    #[inline]
    pub fn slot_weights(&self) -> Option<&SlotWeights> {
        self.slot_weights.as_ref()
    }

    /// The fast path's weights by index and the set of active indices, when the active
    /// terms are in index order (see [`incremental::ParentSummary::score_at`]).
    #[inline]
    pub fn fast_weights(&self) -> Option<&([f64; incremental::FEATURE_COUNT], u32)> {
        self.fast_weights.as_ref()
    }

    /// The fast path's weights as integers, when they all are integers (see
    /// [`incremental::integer_weights`]).
    #[inline]
    pub fn fast_integer_weights(&self) -> Option<&[i64; incremental::FEATURE_COUNT]> {
        self.fast_integer_weights.as_ref()
    }

    /// A sum of the fast path as a utility (the sense applied).
    #[inline]
    pub fn utility_of_value(&self, value: f64) -> f64 {
        match self.sense {
            Sense::Maximize => value,
            Sense::Minimize => -value,
        }
    }

    /// Whether every active feature is covered by the column engine ([`columns`]).
    #[inline]
    pub fn has_column_path(&self) -> bool {
        self.column_terms.is_some()
    }

    /// The column engine's set of this evaluator's features (see
    /// [`columns::ColumnSummary::after_for`]).
    #[inline]
    pub fn column_set(&self) -> u32 {
        self.column_set
    }

    /// The utility of the board a placement leaves, from the column engine: the same
    /// checks and sums as [`Evaluator::value`] (forbidden rows, the 7-term penalty in its
    /// original order, the terms in term order), so the result is bit-identical.
    #[inline]
    pub fn column_utility(&self, after: &columns::ColumnsAfter) -> f64 {
        let terms = self.column_terms.as_ref().expect("has_column_path checked");
        let value = if self.forbidden_from_row.is_some_and(|row| after.stack_top > row) {
            match self.sense {
                Sense::Maximize => f64::NEG_INFINITY,
                Sense::Minimize => f64::INFINITY,
            }
        } else if let Some(weights) = &self.penalty7_weights {
            penalty7::original_order_penalty_of(after.width(), &after.heights, &after.covered, weights)
        } else {
            let mut total = 0.0;
            for &(index, w) in terms {
                total += w * after.values[index];
            }
            total
        };
        self.utility_of_value(value)
    }

    /// Converts a utility back to the evaluator's own value.
    pub fn value_of_utility(&self, utility: f64) -> f64 {
        match self.sense {
            Sense::Maximize => utility,
            Sense::Minimize => -utility,
        }
    }

    /// Every feature's value on a bare board, in term order.
    pub fn feature_values(&self, board: &Board) -> Vec<f64> {
        let ctx = FeatureContext::board(board);
        self.terms.iter().map(|(f, _)| (f.compute)(&ctx)).collect()
    }

    /// Replaces the weights from a TOML file: either `feature = weight` lines at the top
    /// level or a `[weights]` table (as `best.toml` writes). Every feature of this
    /// evaluator must be given, no other, each a finite number.
    ///
    /// `check_preset` sees the file's `preset` key, when it has one (the preset the weights
    /// were tuned for, as `best.toml` writes it), and may refuse it.
    pub fn load_weights_file(&self, path: &Path, check_preset: impl FnOnce(&str) -> Result<()>) -> Result<Evaluator> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("cannot read weights file {}", path.display()))?;
        let weights = parse_weights(&text, &self.feature_names(), check_preset)
            .with_context(|| format!("weights file {}", path.display()))?;
        Ok(self.with_weights(&weights))
    }
}

/// Parses weights for exactly `names` from TOML text (see [`Evaluator::load_weights_file`],
/// whose `check_preset` sees the `preset` key). Besides the weights, only the text keys of
/// [`METADATA_KEYS`] may appear at the top level.
pub fn parse_weights(text: &str, names: &[&str], check_preset: impl FnOnce(&str) -> Result<()>) -> Result<Vec<f64>> {
    let doc: toml::Table = toml::from_str(text).map_err(|e| crate::names::explain_toml_error(text, &e))?;
    for key in METADATA_KEYS {
        if let Some(value) = doc.get(*key).filter(|v| !v.is_str()) {
            bail!("key {key:?} must be a text, found {}", value.type_str());
        }
    }
    // The preset before the weights: weights written for another evaluator would otherwise
    // be refused for the first feature this one lacks.
    if let Some(preset) = doc.get("preset").and_then(toml::Value::as_str) {
        check_preset(preset).context("key \"preset\"")?;
    }
    let table = match doc.get("weights") {
        Some(toml::Value::Table(t)) => {
            // A key beside the table is a mistake (a weight meant for the table, a typo):
            // ignoring it would play other weights than the file seems to say.
            if let Some(key) = doc.keys().find(|k| *k != "weights" && !METADATA_KEYS.contains(&k.as_str())) {
                bail!(
                    "top-level key {key:?} beside the [weights] table: weights go in the table; \
                     the other keys allowed are {}",
                    METADATA_KEYS.join(", ")
                );
            }
            t.clone()
        }
        Some(_) => bail!("`weights` must be a table of feature = weight"),
        None => doc.into_iter().filter(|(k, _)| !METADATA_KEYS.contains(&k.as_str())).collect(),
    };
    let mut given: BTreeMap<String, f64> = BTreeMap::new();
    for (key, value) in &table {
        if !names.contains(&key.as_str()) {
            return Err(crate::names::unknown("feature", key, names.iter().copied())
                .context(format!("feature {key:?} is not used by this evaluator")));
        }
        let w = match value {
            toml::Value::Float(f) => *f,
            toml::Value::Integer(i) => *i as f64,
            other => bail!("weight {key:?} must be a number, found {}", other.type_str()),
        };
        crate::limits::check_weight(&format!("weight {key:?}"), w)?;
        given.insert(key.clone(), w);
    }
    let missing: Vec<&str> = names.iter().copied().filter(|n| !given.contains_key(*n)).collect();
    if !missing.is_empty() {
        bail!("missing weight(s) for {} (expected {} weights: {})", missing.join(", "), names.len(), names.join(", "));
    }
    Ok(names.iter().map(|n| given[*n]).collect())
}

/// Top-level keys a weights file may carry besides the weights.
const METADATA_KEYS: &[&str] = &["preset", "comment", "source", "fitness"];

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Vec<&'static str> {
        vec!["holes", "bumpiness"]
    }

    #[test]
    fn weights_table_or_top_level() {
        assert_eq!(parse_weights("holes = -1\nbumpiness = 0.5\n", &names(), |_| Ok(())).unwrap(), vec![-1.0, 0.5]);
        assert_eq!(
            parse_weights("preset = \"lee\"\n[weights]\nbumpiness = 2\nholes = 3.5\n", &names(), |_| Ok(())).unwrap(),
            vec![3.5, 2.0]
        );
    }

    #[test]
    fn bad_weights_are_refused() {
        let e = format!("{:#}", parse_weights("holes = -1\n", &names(), |_| Ok(())).unwrap_err());
        assert!(e.contains("missing weight(s) for bumpiness"), "{e}");
        let e = format!("{:#}", parse_weights("holes = -1\nbumpines = 1\n", &names(), |_| Ok(())).unwrap_err());
        assert!(e.contains("did you mean \"bumpiness\""), "{e}");
        let e = format!("{:#}", parse_weights("holes = nan\nbumpiness = 1\n", &names(), |_| Ok(())).unwrap_err());
        assert!(e.contains("finite"), "{e}");
        let e = format!("{:#}", parse_weights("holes = [1]\nbumpiness = 1\n", &names(), |_| Ok(())).unwrap_err());
        assert!(e.contains("must be a number"), "{e}");
        let e = format!("{:#}", parse_weights("holes = \n", &names(), |_| Ok(())).unwrap_err());
        assert!(e.contains("line 1, column") && !e.contains('\n'), "{e}");
        let e = format!(
            "{:#}",
            parse_weights("holse = nan\n[weights]\nholes = 1\nbumpiness = 2\n", &names(), |_| Ok(())).unwrap_err()
        );
        assert!(e.contains("top-level key \"holse\" beside the [weights] table"), "{e}");
        let e =
            format!("{:#}", parse_weights("preset = 3\nholes = 1\nbumpiness = 2\n", &names(), |_| Ok(())).unwrap_err());
        assert!(e.contains("key \"preset\" must be a text"), "{e}");
        let e = format!("{:#}", parse_weights("holes = 1e13\nbumpiness = 2\n", &names(), |_| Ok(())).unwrap_err());
        assert!(e.contains("within"), "{e}");
    }
}
