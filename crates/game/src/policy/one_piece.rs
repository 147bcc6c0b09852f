//! One-piece placement: every placement of the current piece is evaluated on the board it
//! leaves (rows removed), and the best wins under the preset's tie-break.

use super::{Decision, GameView, Policy, Scratch};
use crate::eval::{Evaluator, Sense};
use crate::features::incremental::{
    full_score, mixed_prune_margin, prunable, rows_are_runs, DropBound, HeightsAfter, Landing, ParentSummary,
    PruneBounds, PruneRounding, Scored, ShapeCells, ALL_SET, BCTS_MDPTETRIS_SET, BCTS_SET, BERTSEKAS_SET,
    DELLACHERIE_SET, DROP_BOUND_SET, DT_SET, ELTETRIS_SET, FEATURE_COUNT, WITH_HEIGHTS,
};

/// Stand-in integer weights for the scorers that sum reals.
const NO_INTEGER_WEIGHTS: [i64; FEATURE_COUNT] = [0; FEATURE_COUNT];
/// Stand-in heights for evaluators without Bertsekas' features.
const NO_HEIGHTS: HeightsAfter = HeightsAfter { heights: [0; crate::board::MAX_WIDTH], width: 0 };
use crate::board::Board;
use crate::features::FeatureContext;
use crate::piece::DropShape;
use crate::placement::Placement;
use crate::rules::{OrientationTable, RuleSet};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TieBreak {
    /// The first best in the rule set's loop order stays (strict `>`).
    FirstBest,
    /// Fahey: on equal rating the higher priority
    /// `100 |dx| + (10 if dx < 0) - (orientation - 1)` replaces the best (orientation from 1);
    /// on equal priority the first stays.
    FaheyPriority,
}

pub struct OnePiece {
    evaluator: Evaluator,
    tie_break: TieBreak,
    /// Whether the straight-drop walk may skip placements that cannot win
    /// ([`ParentSummary::score_or_prune`]): the evaluator maximises a sum of the fast
    /// path's features in index order, summed in reals, every weight but the cleared-row
    /// features' at or below zero.
    prune: bool,
    /// The same for an evaluator whose sums are in integers (Dellacherie's), its features
    /// all bounded by [`DropBound`]: its bound is then exact.
    prune_integer_sums: bool,
    /// The margin that lets the walk prune where some weights are above zero (D-T's):
    /// [`PruneRounding::Mixed`], when `prune` is off.
    mixed_margin: Option<f64>,
    /// The same for evaluators whose terms read the column heights (Bertsekas'): their
    /// height terms are exact in the bound.
    heights_margin: Option<f64>,
}

impl OnePiece {
    pub fn new(evaluator: Evaluator, tie_break: TieBreak) -> OnePiece {
        let signs_allow = evaluator.sense == Sense::Maximize
            && evaluator.fast_weights().is_some_and(|(weights, set)| prunable(weights, *set));
        let prune = signs_allow && evaluator.fast_integer_weights().is_none();
        let prune_integer_sums = signs_allow
            && evaluator.fast_integer_weights().is_some()
            && evaluator.fast_weights().is_some_and(|(_, set)| set & !DROP_BOUND_SET == 0);
        let mixed_margin = (evaluator.sense == Sense::Maximize && !prune && evaluator.fast_integer_weights().is_none())
            .then(|| evaluator.fast_weights().and_then(|(weights, set)| mixed_prune_margin(weights, *set)))
            .flatten();
        let heights_margin = (evaluator.sense == Sense::Maximize)
            .then(|| evaluator.slot_weights().and_then(|weights| weights.prune_margin()))
            .flatten();
        OnePiece { evaluator, tie_break, prune, prune_integer_sums, mixed_margin, heights_margin }
    }

    /// The same policy with pruning off: the same choices, every placement scored (the
    /// reference of the tests).
    pub fn without_pruning(mut self) -> OnePiece {
        self.prune = false;
        self.prune_integer_sums = false;
        self.mixed_margin = None;
        self.heights_margin = None;
        self
    }
}

impl OnePiece {
    /// Whether `rating` for `p` replaces `best` under the tie-break.
    #[inline(always)]
    fn replaces(&self, rating: f64, p: &Placement, best: &Option<(f64, i32, Placement)>) -> bool {
        match (best, self.tie_break) {
            (None, _) => true,
            (Some((b, _, _)), TieBreak::FirstBest) => rating > *b,
            (Some((b, prio, _)), TieBreak::FaheyPriority) => rating > *b || (rating == *b && fahey_priority(p) > *prio),
        }
    }

    #[inline]
    fn decision(&self, best: Option<(f64, i32, Placement)>) -> Option<Decision> {
        best.map(|(rating, _, placement)| Decision {
            hold: false,
            placement,
            value: self.evaluator.value_of_utility(rating),
        })
    }

    /// Every candidate the rules list, scored by the fast path where it covers it, with the
    /// scorer of the evaluator's feature set (see [`OnePiece::choose_straight_drops`]).
    fn choose_listed(&self, rules: &dyn RuleSet, view: &GameView, scratch: &mut Scratch) -> Option<Decision> {
        let no = &NO_INTEGER_WEIGHTS;
        match (self.evaluator.fast_weights(), self.evaluator.fast_integer_weights()) {
            (Some(&(weights, set)), Some(integer)) if set & !DELLACHERIE_SET == 0 => {
                self.score_listed::<DELLACHERIE_SET, true>(rules, view, scratch, &weights, integer)
            }
            (Some(&(weights, set)), _) if set & !DELLACHERIE_SET == 0 => {
                self.score_listed::<DELLACHERIE_SET, false>(rules, view, scratch, &weights, no)
            }
            (Some(&(weights, set)), _) if set & !BCTS_SET == 0 => {
                self.score_listed::<BCTS_SET, false>(rules, view, scratch, &weights, no)
            }
            (Some(&(weights, set)), _) if set & !BCTS_MDPTETRIS_SET == 0 => {
                self.score_listed::<BCTS_MDPTETRIS_SET, false>(rules, view, scratch, &weights, no)
            }
            (Some(&(weights, set)), _) if set & !ELTETRIS_SET == 0 => {
                self.score_listed::<ELTETRIS_SET, false>(rules, view, scratch, &weights, no)
            }
            (Some(&(weights, set)), _) if set & !DT_SET == 0 => {
                self.score_listed::<DT_SET, false>(rules, view, scratch, &weights, no)
            }
            (Some(&(weights, _)), _) => self.score_listed::<ALL_SET, false>(rules, view, scratch, &weights, no),
            (None, _) => self.choose_listed_general(rules, view, scratch),
        }
    }

    /// [`OnePiece::choose_listed`] scoring the features of `SET`, summed in integers with
    /// `integer` when `INTEGER` (see [`WeightVector`](crate::features::incremental::WeightVector)). The candidates
    /// come orientation by orientation: each run of one shape is scored with its box size a
    /// constant, as [`OnePiece::walk_drops`] does.
    #[inline(always)]
    fn score_listed<const SET: u32, const INTEGER: bool>(
        &self,
        rules: &dyn RuleSet,
        view: &GameView,
        scratch: &mut Scratch,
        weights: &[f64; FEATURE_COUNT],
        integer: &[i64; FEATURE_COUNT],
    ) -> Option<Decision> {
        let board = view.board;
        let candidates = &mut scratch.depth[0];
        rules.candidates(board, view.current, candidates);
        let mut best: Option<(f64, i32, Placement)> = None;
        let summary = &mut scratch.summary;
        summary.refill::<SET>(board);
        summary.decline_clearing();
        let summary = &*summary;
        let mut start = 0;
        while start < candidates.len() {
            let shape = candidates[start].shape;
            let mut end = start + 1;
            while end < candidates.len() && candidates[end].shape == shape {
                end += 1;
            }
            let run = &candidates[start..end];
            let s = summary;
            match (shape.width as usize, shape.height as usize) {
                (4, 1) => self.score_run::<SET, INTEGER>(rules, board, s, run, 4, 1, weights, integer, &mut best),
                (1, 4) => self.score_run::<SET, INTEGER>(rules, board, s, run, 1, 4, weights, integer, &mut best),
                (2, 2) => self.score_run::<SET, INTEGER>(rules, board, s, run, 2, 2, weights, integer, &mut best),
                (3, 2) => self.score_run::<SET, INTEGER>(rules, board, s, run, 3, 2, weights, integer, &mut best),
                (2, 3) => self.score_run::<SET, INTEGER>(rules, board, s, run, 2, 3, weights, integer, &mut best),
                (w, h) => self.score_run::<SET, INTEGER>(rules, board, s, run, w, h, weights, integer, &mut best),
            }
            start = end;
        }
        self.decision(best)
    }

    /// A run of listed candidates of one shape (its box `piece_width` x `piece_height`)
    /// for [`OnePiece::score_listed`].
    #[allow(clippy::too_many_arguments)] // the run's rules, board, summary, both weight vectors and the best so far
    #[inline(always)]
    fn score_run<const SET: u32, const INTEGER: bool>(
        &self,
        rules: &dyn RuleSet,
        board: &Board,
        summary: &ParentSummary,
        run: &[Placement],
        piece_width: usize,
        piece_height: usize,
        weights: &[f64; FEATURE_COUNT],
        integer: &[i64; FEATURE_COUNT],
        best: &mut Option<(f64, i32, Placement)>,
    ) {
        let heights = board.heights();
        let cells = &ShapeCells::new(&run[0].shape);
        for p in run {
            let (left, bottom) = (p.left as usize, p.bottom as usize);
            // What `ParentSummary::covers` asks: resting on the column tops (the scorer
            // itself declines a placement that completes a row).
            let mut resting = true;
            let mut gaps = [0u32; 4];
            for j in 0..piece_width {
                let gap = (bottom + p.shape.bottom[j & 3] as usize) as i32 - heights[left + j] as i32;
                resting &= gap >= 0;
                gaps[j & 3] = gap as u32;
            }
            let landing = Landing { shape: cells, width: piece_width, height: piece_height, left, bottom, gaps: &gaps };
            let fast = if !resting {
                None
            } else if INTEGER {
                summary.score_at::<SET, _>(board, landing, integer)
            } else {
                summary.score_at::<SET, _>(board, landing, weights)
            };
            let rating = match fast {
                Some(value) => self.evaluator.utility_of_value(value),
                None => {
                    let mut after = *board;
                    let info = rules.apply(&mut after, p);
                    self.evaluator.utility_of_value(full_score::<SET>(&after, &info, weights))
                }
            };
            if self.replaces(rating, p, best) {
                *best = Some((rating, fahey_priority(p), *p));
            }
        }
    }

    /// Every candidate the rules list, scored by the fast path's general sum where it covers
    /// it, by the evaluator otherwise: for evaluators whose terms are out of index order,
    /// and the reference of the tests.
    fn choose_listed_general(&self, rules: &dyn RuleSet, view: &GameView, scratch: &mut Scratch) -> Option<Decision> {
        let candidates = &mut scratch.depth[0];
        rules.candidates(view.board, view.current, candidates);
        let mut best: Option<(f64, i32, Placement)> = None;
        let summary = self.evaluator.has_fast_path().then(|| ParentSummary::new(view.board));
        for p in candidates.iter() {
            let rating = match &summary {
                Some(s) if s.covers(view.board, p) => {
                    let heights = if self.evaluator.fast_needs_heights() { s.heights_after(p) } else { NO_HEIGHTS };
                    self.evaluator.fast_utility(&s.features_after(view.board, p), &heights)
                }
                _ => {
                    let mut board = *view.board;
                    let info = rules.apply(&mut board, p);
                    self.evaluator.utility(&FeatureContext::new(&board, info))
                }
            };
            if self.replaces(rating, p, &best) {
                best = Some((rating, fahey_priority(p), *p));
            }
        }
        self.decision(best)
    }

    /// The same choice for rules whose candidates are the straight drops of `table`
    /// ([`RuleSet::straight_drops`]), walked in the same order without building the list:
    /// each drop row is found once, each orientation is prepared once for all its columns,
    /// and completing a row is detected while scoring. The evaluator's feature set picks a
    /// scorer that computes only those features (see [`ParentSummary::score_at`]).
    fn choose_straight_drops(
        &self,
        rules: &dyn RuleSet,
        table: &OrientationTable,
        view: &GameView,
        summary: &mut ParentSummary,
        bounds: &mut PruneBounds,
    ) -> Option<Decision> {
        let no = &NO_INTEGER_WEIGHTS;
        let (s, b) = (summary, bounds);
        let r = PruneRounding::NON_POSITIVE;
        match (self.evaluator.fast_weights(), self.evaluator.fast_integer_weights()) {
            (Some(&(weights, set)), Some(integer)) if set & !DELLACHERIE_SET == 0 => {
                if self.prune_integer_sums {
                    self.walk_drops::<DELLACHERIE_SET, true, true>(rules, table, view, s, b, &weights, integer, r)
                } else {
                    self.walk_drops::<DELLACHERIE_SET, true, false>(rules, table, view, s, b, &weights, integer, r)
                }
            }
            (Some(&(weights, set)), _) if set & !DELLACHERIE_SET == 0 => {
                self.walk_real_drops::<DELLACHERIE_SET>(rules, table, view, s, b, &weights)
            }
            (Some(&(weights, set)), _) if set & !BCTS_SET == 0 => {
                self.walk_real_drops::<BCTS_SET>(rules, table, view, s, b, &weights)
            }
            (Some(&(weights, set)), _) if set & !BCTS_MDPTETRIS_SET == 0 => {
                self.walk_real_drops::<BCTS_MDPTETRIS_SET>(rules, table, view, s, b, &weights)
            }
            (Some(&(weights, set)), _) if set & !ELTETRIS_SET == 0 => {
                self.walk_real_drops::<ELTETRIS_SET>(rules, table, view, s, b, &weights)
            }
            (Some(&(weights, set)), _) if set & !DT_SET == 0 => {
                self.walk_real_drops::<DT_SET>(rules, table, view, s, b, &weights)
            }
            (Some(&(weights, _)), _) => self.walk_real_drops::<ALL_SET>(rules, table, view, s, b, &weights),
            // Bertsekas' features with BCTS' or the rows cleared: their sum, in the
            // evaluator's order.
            (None, _)
                if self.evaluator.fast_needs_heights()
                    && self.evaluator.fast_value_set() & !(BERTSEKAS_SET & !WITH_HEIGHTS) == 0 =>
            {
                let zero = &[0.0; FEATURE_COUNT];
                match self.heights_margin {
                    Some(margin) => {
                        let r = PruneRounding::mixed(margin);
                        self.walk_drops::<BERTSEKAS_SET, false, true>(rules, table, view, s, b, zero, no, r)
                    }
                    None => self.walk_drops::<BERTSEKAS_SET, false, false>(rules, table, view, s, b, zero, no, r),
                }
            }
            // Terms out of index order: the general sum, in the evaluator's order.
            (None, _) => self.walk_drops::<0, false, false>(rules, table, view, s, b, &[0.0; FEATURE_COUNT], no, r),
        }
    }

    /// [`OnePiece::walk_drops`] summing reals, pruning when the policy may.
    #[inline(always)]
    fn walk_real_drops<const SET: u32>(
        &self,
        rules: &dyn RuleSet,
        table: &OrientationTable,
        view: &GameView,
        summary: &mut ParentSummary,
        bounds: &mut PruneBounds,
        weights: &[f64; FEATURE_COUNT],
    ) -> Option<Decision> {
        let no = &NO_INTEGER_WEIGHTS;
        let rounding = PruneRounding::NON_POSITIVE;
        if self.prune {
            self.walk_drops::<SET, false, true>(rules, table, view, summary, bounds, weights, no, rounding)
        } else if let Some(margin) = self.mixed_margin {
            let rounding = PruneRounding::mixed(margin);
            self.walk_drops::<SET, false, true>(rules, table, view, summary, bounds, weights, no, rounding)
        } else {
            self.walk_drops::<SET, false, false>(rules, table, view, summary, bounds, weights, no, rounding)
        }
    }

    /// [`OnePiece::choose_straight_drops`] scoring the features of `SET` (0: every feature,
    /// summed by [`Evaluator::fast_utility`]), summed in integers with `integer` when
    /// `INTEGER`, skipping the placements that cannot win when `PRUNE`. Out of line, one
    /// function per scorer: what is loaded once per decision stays out of the loops.
    #[allow(clippy::too_many_arguments)] // the walk's rules, table, view, summary, bounds and both weight vectors
    #[inline(never)]
    fn walk_drops<const SET: u32, const INTEGER: bool, const PRUNE: bool>(
        &self,
        rules: &dyn RuleSet,
        table: &OrientationTable,
        view: &GameView,
        summary: &mut ParentSummary,
        bounds: &mut PruneBounds,
        weights: &[f64; FEATURE_COUNT],
        integer: &[i64; FEATURE_COUNT],
        rounding: PruneRounding,
    ) -> Option<Decision> {
        let board = view.board;
        summary.refill::<SET>(board);
        let mut drop_bound = DropBound::default();
        if PRUNE {
            summary.fill_prune_bounds(board.stack_top(), bounds);
            if INTEGER && SET & !DROP_BOUND_SET == 0 {
                drop_bound = summary.drop_bound::<SET>(weights, board.stack_top());
            }
        }
        let bounds = &*bounds;
        let drop_bound = &drop_bound;
        // Bertsekas' height terms of the board, for the bounds of its drops.
        let heights_sum = match self.evaluator.slot_weights() {
            Some(weights) if PRUNE && SET & WITH_HEIGHTS != 0 => weights.heights_sum(board.heights(), board.width()),
            _ => 0.0,
        };
        let mut best: Option<(f64, i32, Placement)> = None;
        let cells_of = table.cells_of(view.current);
        for (k, ((_, shape), cells)) in table.of(view.current).iter().zip(cells_of).enumerate() {
            let summary = &*summary;
            // Every tetromino orientation's box, as constants: the per-row and per-column
            // loops of the scorer unroll.
            match (shape.width as usize, shape.height as usize) {
                (4, 1) => self.walk_columns::<SET, INTEGER, PRUNE, 4, 1>(
                    rules,
                    view,
                    summary,
                    bounds,
                    drop_bound,
                    heights_sum,
                    k,
                    shape,
                    cells,
                    weights,
                    integer,
                    rounding,
                    &mut best,
                ),
                (1, 4) => self.walk_columns::<SET, INTEGER, PRUNE, 1, 4>(
                    rules,
                    view,
                    summary,
                    bounds,
                    drop_bound,
                    heights_sum,
                    k,
                    shape,
                    cells,
                    weights,
                    integer,
                    rounding,
                    &mut best,
                ),
                (2, 2) => self.walk_columns::<SET, INTEGER, PRUNE, 2, 2>(
                    rules,
                    view,
                    summary,
                    bounds,
                    drop_bound,
                    heights_sum,
                    k,
                    shape,
                    cells,
                    weights,
                    integer,
                    rounding,
                    &mut best,
                ),
                (3, 2) => self.walk_columns::<SET, INTEGER, PRUNE, 3, 2>(
                    rules,
                    view,
                    summary,
                    bounds,
                    drop_bound,
                    heights_sum,
                    k,
                    shape,
                    cells,
                    weights,
                    integer,
                    rounding,
                    &mut best,
                ),
                (2, 3) => self.walk_columns::<SET, INTEGER, PRUNE, 2, 3>(
                    rules,
                    view,
                    summary,
                    bounds,
                    drop_bound,
                    heights_sum,
                    k,
                    shape,
                    cells,
                    weights,
                    integer,
                    rounding,
                    &mut best,
                ),
                _ => self.walk_columns::<SET, INTEGER, PRUNE, 0, 0>(
                    rules,
                    view,
                    summary,
                    bounds,
                    drop_bound,
                    heights_sum,
                    k,
                    shape,
                    cells,
                    weights,
                    integer,
                    rounding,
                    &mut best,
                ),
            }
        }
        // The next decision's board is this one with the chosen piece locked: if it clears
        // no row, its summary is this one with the piece's rows and columns updated.
        if let Some((_, _, placement)) = &best {
            summary.advance::<SET>(board, placement);
        }
        self.decision(best)
    }

    /// Every column of one orientation (number `k` of the piece's table, its box
    /// `WIDTH` x `HEIGHT` as constants, 0 for the shape's own) for [`OnePiece::walk_drops`].
    #[allow(clippy::too_many_arguments)] // as walk_drops, with the orientation and the best so far
    #[inline(always)]
    fn walk_columns<const SET: u32, const INTEGER: bool, const PRUNE: bool, const WIDTH: usize, const HEIGHT: usize>(
        &self,
        rules: &dyn RuleSet,
        view: &GameView,
        summary: &ParentSummary,
        bounds: &PruneBounds,
        drop_bound: &DropBound,
        heights_sum: f64,
        k: usize,
        shape: &DropShape,
        cells: &ShapeCells,
        weights: &[f64; FEATURE_COUNT],
        integer: &[i64; FEATURE_COUNT],
        rounding: PruneRounding,
        best: &mut Option<(f64, i32, Placement)>,
    ) {
        let piece_width = if WIDTH == 0 { shape.width as usize } else { WIDTH };
        let piece_height = if HEIGHT == 0 { shape.height as usize } else { HEIGHT };
        let board = view.board;
        let piece = view.current;
        let heights = board.heights();
        // The row-transition bound holds for shapes whose rows are runs of cells.
        let prune = PRUNE && rows_are_runs(shape);
        let highest = board.stack_top() as u8;
        for left in 0..=(board.width() - piece_width) {
            // `DropShape::drop_row` with the box width a constant, and the gaps the drop
            // leaves under the piece (`incremental::gaps_at`) from the same differences.
            let column_heights = &heights[left..left + piece_width];
            let mut need = [0i32; 4];
            let mut bottom = 0;
            for j in 0..piece_width {
                need[j & 3] = column_heights[j] as i32 - shape.bottom[j & 3] as i32;
                bottom = bottom.max(need[j & 3]);
            }
            let mut gaps = [0u32; 4];
            for j in 0..piece_width {
                gaps[j & 3] = (bottom - need[j & 3]) as u32;
            }
            let bottom = bottom as usize;
            if bottom + piece_height > board.height() {
                continue;
            }
            let placement = || Placement::straight(piece, k, left, bottom, *shape);
            let landing = Landing { shape: cells, width: piece_width, height: piece_height, left, bottom, gaps: &gaps };
            let fast = if SET & WITH_HEIGHTS != 0 {
                // Bertsekas' terms: the drop's bound, its height terms exact (the board's
                // and the change in the piece's columns), its features from
                // `ParentSummary::features_bound`.
                if let (true, Some((threshold, _, _)), Some(slot_weights)) =
                    (prune, &*best, self.evaluator.slot_weights())
                {
                    if !completes_row(board, shape, left, bottom) {
                        let mut tops = [0u32; 4];
                        for j in 0..piece_width {
                            tops[j & 3] = bottom as u32 + cells.column_tops()[j & 3];
                        }
                        let change =
                            slot_weights.heights_change(heights, board.width(), highest, left, &tops[..piece_width]);
                        let features = summary.features_bound::<SET>(board, landing, bounds, &slot_weights.features);
                        if rounding.raises(heights_sum + change + features) < *threshold {
                            continue;
                        }
                    }
                }
                summary
                    .features_and_heights_for::<SET>(board, landing)
                    .map(|(values, heights)| self.evaluator.fast_utility(&values, &heights))
            } else if SET == 0 {
                summary.features_at(board, landing).map(|values| {
                    let heights =
                        if self.evaluator.fast_needs_heights() { summary.heights_at(landing) } else { NO_HEIGHTS };
                    self.evaluator.fast_utility(&values, &heights)
                })
            } else if PRUNE && INTEGER && SET & !DROP_BOUND_SET == 0 {
                // Integer sums, bounded before any feature is counted (real sums bound a
                // drop with its column features counted, sharing them with its value: fewer
                // instructions where about a third of the drops are scored whole). The
                // evaluator maximises: utilities are values.
                if let Some((threshold, _, _)) = best {
                    let clears =
                        drop_bound.may_complete(bottom, piece_height) && completes_row(board, shape, left, bottom);
                    if prune && !clears && drop_bound.below::<SET>(summary, bounds, heights, landing, *threshold) {
                        continue;
                    }
                }
                summary.score_at::<SET, _>(board, landing, integer)
            } else if INTEGER {
                summary.score_at::<SET, _>(board, landing, integer).map(|value| self.evaluator.utility_of_value(value))
            } else if PRUNE {
                // The evaluator maximises: utilities are values.
                let threshold = match best {
                    Some((b, _, _)) if prune => *b,
                    _ => f64::NEG_INFINITY,
                };
                match summary.score_or_prune::<SET>(board, landing, weights, bounds, threshold, rounding) {
                    Scored::Value(value) => Some(value),
                    Scored::Pruned => continue,
                    Scored::Declined => None,
                }
            } else {
                summary.score_at::<SET, _>(board, landing, weights).map(|value| self.evaluator.utility_of_value(value))
            };
            let rating = match fast {
                Some(rating) => rating,
                None => {
                    let mut after = *board;
                    let info = rules.apply(&mut after, &placement());
                    if SET == 0 || SET & WITH_HEIGHTS != 0 {
                        self.evaluator.utility(&FeatureContext::new(&after, info))
                    } else {
                        self.evaluator.utility_of_value(full_score::<SET>(&after, &info, weights))
                    }
                }
            };
            // `replaces`, with the placement built only when it is needed.
            let replace = match (&*best, self.tie_break) {
                (None, _) => true,
                (Some((b, _, _)), TieBreak::FirstBest) => rating > *b,
                (Some((b, prio, _)), TieBreak::FaheyPriority) => {
                    rating > *b || (rating == *b && fahey_priority(&placement()) > *prio)
                }
            };
            if replace {
                let p = placement();
                *best = Some((rating, fahey_priority(&p), p));
            }
        }
    }
}

/// Whether `shape` with its box at (`left`, `bottom`) completes a row of `board`.
#[inline(always)]
fn completes_row(board: &Board, shape: &DropShape, left: usize, bottom: usize) -> bool {
    let full = board.full_row();
    let rows = &board.rows()[bottom..bottom + shape.height as usize];
    rows.iter().zip(shape.rows).any(|(&row, piece_row)| row | piece_row << left == full)
}

/// Fahey's move priority (see [`TieBreak::FaheyPriority`]).
#[inline]
pub fn fahey_priority(p: &Placement) -> i32 {
    let dx = p.shift as i32;
    100 * dx.abs() + if dx < 0 { 10 } else { 0 } - p.orientation as i32
}

impl Policy for OnePiece {
    fn name(&self) -> &'static str {
        match self.tie_break {
            TieBreak::FirstBest => "one-piece",
            TieBreak::FaheyPriority => "one-piece-fahey",
        }
    }
    fn evaluator(&self) -> &Evaluator {
        &self.evaluator
    }
    fn choose(&self, rules: &dyn RuleSet, view: &GameView, scratch: &mut Scratch) -> Option<Decision> {
        match rules.straight_drops() {
            Some(table) if self.evaluator.has_fast_path() => {
                self.choose_straight_drops(rules, table, view, &mut scratch.summary, &mut scratch.bounds)
            }
            _ => self.choose_listed(rules, view, scratch),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::Sense;
    use crate::presets;
    use crate::randomizer::{Randomizer, RandomizerKind};
    use crate::rules::simplified::Simplified;

    /// The straight-drop walk from fresh scratch (no summary kept from an earlier move).
    fn walk_fresh(
        policy: &OnePiece,
        rules: &dyn RuleSet,
        table: &OrientationTable,
        view: &GameView,
    ) -> Option<Decision> {
        policy.choose_straight_drops(rules, table, view, &mut ParentSummary::default(), &mut PruneBounds::default())
    }

    /// On the rule sets that list their candidates (pieces shifted at spawn height, slid
    /// under overhangs), the specialised scorers choose as the general sum and the
    /// evaluator, at every move of played games.
    #[test]
    fn listed_scorers_choose_as_the_general_sum() {
        let mut checked = 0;
        let presets = [
            ("dellacherie", "standard"),
            ("el-tetris", "eltetris"),
            ("bcts", "standard"),
            ("bcts-mdptetris", "standard"),
            ("dt-10", "standard"),
            ("dt-20", "standard"),
        ];
        for (preset, rule_set) in presets {
            let built = presets::find(preset).unwrap().build_with_rules(Some(rule_set), None, None).unwrap();
            let evaluator = built.policy.evaluator().clone();
            for tie_break in [TieBreak::FirstBest, TieBreak::FaheyPriority] {
                let policy = OnePiece::new(evaluator.clone(), tie_break);
                let rules = built.rules.as_ref();
                let mut board = rules.new_board();
                let mut pieces = Randomizer::new(RandomizerKind::Uniform, 7);
                let mut scratch = Scratch::default();
                for _ in 0..600 {
                    let view = GameView {
                        board: &board,
                        current: pieces.next_piece(),
                        preview: &[],
                        hold: None,
                        can_hold: false,
                    };
                    let general = policy.choose_listed_general(rules, &view, &mut scratch);
                    let specialised = policy.choose_listed(rules, &view, &mut scratch);
                    assert_eq!(
                        general.map(|d| (d.placement, d.value.to_bits())),
                        specialised.map(|d| (d.placement, d.value.to_bits())),
                        "{preset} on {rule_set}"
                    );
                    let Some(decision) = general else { break };
                    if rules.lock(&mut board, &decision.placement).game_over {
                        break;
                    }
                    checked += 1;
                }
            }
        }
        assert!(checked > 2000, "{checked}");
    }

    /// Bertsekas' features on the fast path (read from the column heights after the drop)
    /// choose as the full features do on the board each placement leaves, rows cleared or
    /// not, on boards narrower and wider than the features' 10 columns; and the general
    /// sum over the listed candidates agrees.
    #[test]
    fn column_height_terms_choose_as_the_full_features() {
        let mut checked = 0;
        let mut cleared = 0;
        let bdu = presets::find("bdu").unwrap().build(None, None).unwrap().policy.evaluator().clone();
        let mut terms: Vec<(&str, f64)> = crate::features::bertsekas::names(10)
            .into_iter()
            .zip([-1.0, -0.25, 0.5, -2.0].into_iter().cycle())
            .collect();
        terms.push(("rows_cleared", 3.0));
        let bertsekas = Evaluator::from_names(&terms, Sense::Maximize, None).unwrap();
        for (name, evaluator, sizes) in
            [("bdu", bdu, &[(10, 10), (10, 16)][..]), ("bertsekas", bertsekas, &[(10, 12), (6, 8), (13, 10)][..])]
        {
            assert!(evaluator.has_fast_path() && evaluator.fast_needs_heights(), "{name}");
            let policy = OnePiece::new(evaluator.clone(), TieBreak::FirstBest);
            for (seed, &(width, height)) in sizes.iter().enumerate() {
                let rules = Simplified::new(width, height, false);
                let table = rules.straight_drops().unwrap();
                let mut board = rules.new_board();
                let mut pieces = Randomizer::new(RandomizerKind::Uniform, seed as u64 + 11);
                let mut scratch = Scratch::default();
                let mut candidates = Vec::new();
                for _ in 0..300 {
                    let piece = pieces.next_piece();
                    let view = GameView { board: &board, current: piece, preview: &[], hold: None, can_hold: false };
                    // The full features on every candidate's board, the first best kept.
                    rules.candidates(&board, piece, &mut candidates);
                    let mut full: Option<(f64, Placement)> = None;
                    for p in &candidates {
                        let mut after = board;
                        let info = rules.apply(&mut after, p);
                        cleared += (info.rows_cleared > 0) as usize;
                        let rating = evaluator.utility(&FeatureContext::new(&after, info));
                        if full.is_none_or(|(best, _)| rating > best) {
                            full = Some((rating, *p));
                        }
                    }
                    let walked = walk_fresh(&policy, &rules, table, &view);
                    let listed = policy.choose_listed_general(&rules, &view, &mut scratch);
                    let walked = walked.map(|d| (d.value.to_bits(), d.placement));
                    assert_eq!(walked, full.map(|(v, p)| (v.to_bits(), p)), "{name} {width}x{height}");
                    assert_eq!(walked, listed.map(|d| (d.value.to_bits(), d.placement)), "{name} {width}x{height}");
                    let Some((_, placement)) = walked else { break };
                    if rules.lock(&mut board, &placement).game_over {
                        break;
                    }
                    checked += 1;
                }
            }
        }
        assert!(checked > 600 && cleared > 300, "{checked} moves, {cleared} clearing candidates");
    }

    /// Pruning is on only where its bound holds: an evaluator that maximises real sums with
    /// every weight but the cleared-row features' at or below zero.
    #[test]
    fn pruning_only_where_the_signs_allow() {
        let preset_evaluator =
            |name: &str| presets::find(name).unwrap().build(None, None).unwrap().policy.evaluator().clone();
        let prunes = |evaluator: Evaluator| OnePiece::new(evaluator, TieBreak::FirstBest).prune;
        assert!(prunes(preset_evaluator("bcts")));
        assert!(prunes(preset_evaluator("bcts-mdptetris")));
        assert!(prunes(preset_evaluator("el-tetris")));
        // D-T's weights of `holes` and `pattern_diversity` are positive.
        assert!(!prunes(preset_evaluator("dt-10")));
        assert!(!prunes(preset_evaluator("dt-20")));
        // Integer weights are summed in integers, without pruning.
        assert!(!prunes(preset_evaluator("dellacherie-simplified")));
        let build = |terms: &[(&str, f64)], sense| Evaluator::from_names(terms, sense, None).unwrap();
        assert!(prunes(build(&[("eroded_cells", 2.5), ("holes", -1.5)], Sense::Maximize)));
        assert!(!prunes(build(&[("eroded_cells", 2.5), ("holes", 1.5)], Sense::Maximize)));
        assert!(!prunes(build(&[("holes", -1.5)], Sense::Minimize)));
        // Terms out of index order: the general sum.
        assert!(!prunes(build(&[("holes", -1.5), ("landing_height", -0.5)], Sense::Maximize)));
        assert!(!OnePiece::new(preset_evaluator("bcts"), TieBreak::FirstBest).without_pruning().prune);
    }

    /// Where some weights are above zero (D-T's `holes` and `pattern_diversity`, exact in
    /// the bound), the walk prunes with a margin for the sums' rounding; not where a feature
    /// bounded from below weighs above zero, nor without pruning.
    #[test]
    fn mixed_signs_prune_with_a_margin() {
        let preset_evaluator =
            |name: &str| presets::find(name).unwrap().build(None, None).unwrap().policy.evaluator().clone();
        let margin = |evaluator: Evaluator| OnePiece::new(evaluator, TieBreak::FirstBest).mixed_margin;
        assert!(margin(preset_evaluator("dt-10")).is_some_and(|m| m > 0.0 && m < 1e-3));
        assert!(margin(preset_evaluator("dt-20")).is_some());
        // Every weight at or below zero: the plain bound instead.
        assert!(margin(preset_evaluator("bcts")).is_none());
        let build = |terms: &[(&str, f64)]| Evaluator::from_names(terms, Sense::Maximize, None).unwrap();
        // Terms in index order (the specialised sums).
        assert!(margin(build(&[("row_transitions", -1.0), ("holes", 1.5)])).is_some());
        assert!(margin(build(&[("row_transitions", 1.0), ("holes", -1.5)])).is_none());
        assert!(margin(build(&[("holes", 1.5), ("dt_wells", 0.5)])).is_none());
        assert!(OnePiece::new(preset_evaluator("dt-10"), TieBreak::FirstBest).without_pruning().mixed_margin.is_none());
        // Bertsekas' height terms are exact in their bound: BDU prunes with a margin too.
        let bdu = OnePiece::new(preset_evaluator("bdu"), TieBreak::FirstBest);
        assert!(bdu.heights_margin.is_some() && bdu.without_pruning().heights_margin.is_none());
        assert!(OnePiece::new(preset_evaluator("bcts"), TieBreak::FirstBest).heights_margin.is_none());
    }

    /// Walking the straight drops gives the same decision as scoring the listed
    /// candidates (same placement, same value bits) at every move of played games, for
    /// every evaluator the fast path covers and both tie-breaks.
    #[test]
    fn straight_drops_choose_as_the_listed_candidates() {
        let mut checked = 0;
        let preset_evaluator =
            |name: &str| presets::find(name).unwrap().build(None, None).unwrap().policy.evaluator().clone();
        // The presets (each its own specialised scorer), a set no preset has (the scorer of
        // every feature) and terms out of index order (the general sum).
        let evaluators = [
            ("dellacherie-simplified", preset_evaluator("dellacherie-simplified")),
            ("el-tetris", preset_evaluator("el-tetris")),
            ("bcts", preset_evaluator("bcts")),
            ("bcts-mdptetris", preset_evaluator("bcts-mdptetris")),
            ("dt-10", preset_evaluator("dt-10")),
            ("dt-20", preset_evaluator("dt-20")),
            ("bdu", preset_evaluator("bdu")),
            (
                "mixed",
                Evaluator::from_names(
                    &[("landing_height_0", -3.0), ("column_transitions_nosky", -2.5), ("hole_depth", -1.25)],
                    Sense::Minimize,
                    None,
                )
                .unwrap(),
            ),
            (
                "reversed",
                Evaluator::from_names(
                    &[("rows_with_holes", -7.0), ("cumulative_wells", -1.0), ("landing_height", -0.5)],
                    Sense::Maximize,
                    None,
                )
                .unwrap(),
            ),
        ];
        for (preset, evaluator) in evaluators {
            assert!(evaluator.has_fast_path(), "{preset}");
            for tie_break in [TieBreak::FirstBest, TieBreak::FaheyPriority] {
                let policy = OnePiece::new(evaluator.clone(), tie_break);
                for (size, seed) in [((10, 10), 1), ((6, 8), 2), ((10, 20), 3), ((16, 12), 4), ((4, 6), 5)] {
                    let rules = Simplified::new(size.0, size.1, false);
                    let table = rules.straight_drops().unwrap();
                    let mut board = rules.new_board();
                    let mut pieces = Randomizer::new(RandomizerKind::Uniform, seed);
                    let mut scratch = Scratch::default();
                    for _ in 0..400 {
                        let view = GameView {
                            board: &board,
                            current: pieces.next_piece(),
                            preview: &[],
                            hold: None,
                            can_hold: false,
                        };
                        let listed = policy.choose_listed_general(&rules, &view, &mut scratch);
                        let specialised = policy.choose_listed(&rules, &view, &mut scratch);
                        let walked = walk_fresh(&policy, &rules, table, &view);
                        assert_eq!(
                            listed.map(|d| (d.placement, d.value.to_bits())),
                            specialised.map(|d| (d.placement, d.value.to_bits())),
                            "{preset} {size:?}"
                        );
                        match (listed, walked) {
                            (None, None) => break,
                            (Some(a), Some(b)) => {
                                assert_eq!(a.placement, b.placement, "{preset} {size:?}");
                                assert_eq!(a.value.to_bits(), b.value.to_bits(), "{preset} {size:?}");
                                rules.lock(&mut board, &a.placement);
                                checked += 1;
                            }
                            (a, b) => panic!("{preset} {size:?}: {a:?} vs {b:?}"),
                        }
                    }
                }
            }
        }
        assert!(checked > 2000, "{checked}");
    }
}
