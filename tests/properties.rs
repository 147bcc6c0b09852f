//! Invariants checked on random boards and games (proptest).

use proptest::prelude::*;
use tetris_lab::board::Board;
use tetris_lab::features::{self, FeatureContext};
use tetris_lab::piece::Piece;
use tetris_lab::presets;
use tetris_lab::rules::{self, RuleSet};
use tetris_lab::sim::{self, GameLimits};

/// A random board: each column filled up to a random height with random holes.
fn arbitrary_board() -> impl Strategy<Value = Board> {
    (4usize..=12, 6usize..=22).prop_flat_map(|(w, h)| {
        proptest::collection::vec(proptest::collection::vec(any::<bool>(), h - 2), w).prop_map(move |cols| {
            let mut b = Board::new(w, h);
            for (x, col) in cols.iter().enumerate() {
                for (y, &filled) in col.iter().enumerate() {
                    // Thin the top half so boards look like stacks, not noise.
                    if filled && (y < (h - 2) / 2 || x % 3 == 0) {
                        b.set(x, y);
                    }
                }
            }
            b
        })
    })
}

fn heights_from_cells(b: &Board) -> Vec<usize> {
    (0..b.width()).map(|x| (0..b.height()).rev().find(|&y| b.is_filled(x, y)).map_or(0, |y| y + 1)).collect()
}

proptest! {
    #[test]
    fn heights_match_cells_after_placements(board in arbitrary_board(), piece in 0usize..7, pick in any::<prop::sample::Index>()) {
        let rules = rules::simplified::Simplified::new(board.width(), board.height(), false);
        let mut out = Vec::new();
        rules.candidates(&board, Piece::from_index(piece), &mut out);
        prop_assume!(!out.is_empty());
        let p = out[pick.index(out.len())];
        let mut after = board;
        let before_cells = board.cell_count();
        let info = p.apply(&mut after);
        prop_assert_eq!(heights_from_cells(&after), after.heights()[..after.width()].iter().map(|&h| h as usize).collect::<Vec<_>>());
        // Cells are conserved: four added, a full row's worth removed per cleared row.
        prop_assert_eq!(after.cell_count() + info.rows_cleared as u32 * board.width() as u32, before_cells + 4);
        // Every row the piece completed was removed.
        if board.full_rows() == 0 {
            prop_assert_eq!(after.full_rows(), 0);
        }
    }

    #[test]
    fn mirrored_boards_have_equal_symmetric_features(board in arbitrary_board()) {
        let mirrored = board.mirrored();
        prop_assert_eq!(mirrored.mirrored(), board);
        for name in ["row_transitions", "column_transitions", "column_transitions_nosky", "holes", "cumulative_wells",
                     "hole_depth", "rows_with_holes", "aggregate_height", "complete_lines", "bumpiness"] {
            let f = features::find(name).unwrap();
            let a = (f.compute)(&FeatureContext::board(&board));
            let b = (f.compute)(&FeatureContext::board(&mirrored));
            prop_assert_eq!(a, b, "{}", name);
        }
    }

    #[test]
    fn same_seed_same_game(seed in any::<u64>()) {
        let preset = presets::find("dellacherie-simplified").unwrap();
        let built = preset.build(Some((8, 8)), None).unwrap();
        let limits = GameLimits { max_pieces: Some(300) };
        let a = sim::play_game(built.driver(), seed, limits, None);
        let b = sim::play_game(built.driver(), seed, limits, None);
        prop_assert_eq!(a, b);
    }
}

proptest! {
    /// The one-piece fast path scores every placement exactly as the full-board features do.
    #[test]
    fn fast_path_matches_full_board_features(board in arbitrary_board(), piece in 0usize..7) {
        use tetris_lab::features::incremental::{ParentSummary, SUPPORTED};
        let rules = rules::simplified::Simplified::new(board.width(), board.height(), false);
        let summary = ParentSummary::new(&board);
        let mut out = Vec::new();
        rules.candidates(&board, Piece::from_index(piece), &mut out);
        // Placements that clear rows too (scored from the squeezed column bitmasks).
        for p in &out {
            let fast = summary.features_after(&board, p);
            let mut after = board;
            let info = p.apply(&mut after);
            let ctx = FeatureContext::new(&after, info);
            for (i, name) in SUPPORTED.iter().enumerate() {
                prop_assert_eq!(fast[i], (features::find(name).unwrap().compute)(&ctx), "{}", name);
            }
        }
    }
}

proptest! {
    /// The specialised scorers of the one-piece policy give the evaluator's own value, bit
    /// for bit, on random boards: `score_at` on every placement that clears no row (the
    /// only ones it scores), `full_score` on every placement.
    #[test]
    fn feature_set_scorers_match_the_evaluator(board in arbitrary_board(), piece in 0usize..7) {
        use tetris_lab::features::incremental::{
            full_score, gaps_at, Landing, ParentSummary, ShapeCells, BCTS_MDPTETRIS_SET, BCTS_SET, DELLACHERIE_SET, DT_SET,
            ELTETRIS_SET,
        };
        let rules = rules::simplified::Simplified::new(board.width(), board.height(), false);
        let summary = ParentSummary::new(&board);
        let mut out = Vec::new();
        rules.candidates(&board, Piece::from_index(piece), &mut out);
        for preset in ["dellacherie-simplified", "bcts", "bcts-mdptetris", "el-tetris", "dt-10", "dt-20"] {
            let evaluator = presets::find(preset).unwrap().evaluator().unwrap();
            let (weights, _) = *evaluator.fast_weights().expect("terms in index order");
            for p in &out {
                let mut after = board;
                let info = p.apply(&mut after);
                let expected = evaluator.value(&FeatureContext::new(&after, info));
                let cells = ShapeCells::new(&p.shape);
                let (width, height, left, bottom) =
                    (p.shape.width as usize, p.shape.height as usize, p.left as usize, p.bottom as usize);
                let gaps = gaps_at(board.heights(), &cells, width, left, bottom);
                let landing = Landing { shape: &cells, width, height, left, bottom, gaps: &gaps };
                let (fast, full) = match preset {
                    "dellacherie-simplified" => (
                        summary.score_at::<DELLACHERIE_SET, _>(&board, landing, &weights),
                        full_score::<DELLACHERIE_SET>(&after, &info, &weights),
                    ),
                    "bcts" => (
                        summary.score_at::<BCTS_SET, _>(&board, landing, &weights),
                        full_score::<BCTS_SET>(&after, &info, &weights),
                    ),
                    "bcts-mdptetris" => (
                        summary.score_at::<BCTS_MDPTETRIS_SET, _>(&board, landing, &weights),
                        full_score::<BCTS_MDPTETRIS_SET>(&after, &info, &weights),
                    ),
                    "el-tetris" => (
                        summary.score_at::<ELTETRIS_SET, _>(&board, landing, &weights),
                        full_score::<ELTETRIS_SET>(&after, &info, &weights),
                    ),
                    _ => (
                        summary.score_at::<DT_SET, _>(&board, landing, &weights),
                        full_score::<DT_SET>(&after, &info, &weights),
                    ),
                };
                prop_assert_eq!(full.to_bits(), expected.to_bits(), "{} full", preset);
                // Integer weights (Dellacherie's): the integer sum gives the same bits.
                if let Some(integer) = evaluator.fast_integer_weights() {
                    let sum = summary.score_at::<DELLACHERIE_SET, _>(&board, landing, integer);
                    prop_assert_eq!(sum.map(f64::to_bits), fast.map(f64::to_bits), "{} integer", preset);
                }
                match fast {
                    Some(value) => prop_assert_eq!(value.to_bits(), expected.to_bits(), "{} fast", preset),
                    None => prop_assert!(p.highest_row() >= board.height(), "{} declined a placement on the board", preset),
                }
            }
        }
    }
}

proptest! {
    /// The column engine (Lee's, Mike's and the 7-term features) gives the full-board values
    /// on every resting placement of random boards, rows kept (Lee's search) and rows
    /// removed, and the evaluators built on it give their own value bit for bit.
    #[test]
    fn column_engine_matches_full_board_features(board in arbitrary_board(), piece in 0usize..7) {
        use tetris_lab::features::columns::{ColumnSummary, ALL_SET, SUPPORTED};
        use tetris_lab::placement::PlacementInfo;
        let rules = rules::simplified::Simplified::new(board.width(), board.height(), false);
        let summary = ColumnSummary::new(&board);
        let mut out = Vec::new();
        rules.candidates(&board, Piece::from_index(piece), &mut out);
        let evaluators: Vec<_> =
            ["lee", "erikko", "pygame-lee"].iter().map(|p| presets::find(p).unwrap().evaluator().unwrap()).collect();
        for p in &out {
            for keep in [false, true] {
                let mut after = board;
                let info = if keep {
                    p.write(&mut after);
                    PlacementInfo { placed: true, lowest_row: p.bottom, highest_row: p.highest_row() as u8, ..Default::default() }
                } else {
                    p.apply(&mut after)
                };
                let Some(fast) = summary.after::<ALL_SET>(&board, p, keep) else {
                    prop_assert!(!keep && info.rows_cleared > 0, "declined a placement that clears nothing");
                    continue;
                };
                let ctx = FeatureContext::new(&after, info);
                for (i, name) in SUPPORTED.iter().enumerate() {
                    prop_assert_eq!(fast.values[i], (features::find(name).unwrap().compute)(&ctx), "{} keep {}", name, keep);
                }
                for evaluator in &evaluators {
                    // Through the evaluator's own scorer (the 7-term penalty: the column arrays).
                    let own = summary.after_for(evaluator.column_set(), &board, p, keep).expect("as ALL_SET");
                    prop_assert_eq!(evaluator.column_utility(&own).to_bits(), evaluator.utility(&ctx).to_bits());
                    prop_assert_eq!(evaluator.column_utility(&fast).to_bits(), evaluator.utility(&ctx).to_bits());
                }
            }
        }
    }
}

proptest! {
    /// The one-piece walk's parent summary carried across moves (`ParentSummary::advance`
    /// after each move, `refill` before the next) is exactly the summary built afresh from
    /// the board, for every feature set, and it is kept (not rebuilt) after every move that
    /// cleared no row.
    #[test]
    fn carried_parent_summary_is_the_rebuilt_one(
        board in arbitrary_board(),
        moves in proptest::collection::vec((0usize..7, any::<prop::sample::Index>()), 1..40),
    ) {
        use tetris_lab::features::incremental::{
            ParentSummary, ALL_SET, BCTS_MDPTETRIS_SET, BCTS_SET, DELLACHERIE_SET, DT_SET, ELTETRIS_SET,
        };
        fn check<const SET: u32>(start: &Board, moves: &[(usize, prop::sample::Index)]) -> Result<(), TestCaseError> {
            let rules = rules::simplified::Simplified::new(start.width(), start.height(), false);
            let mut board = *start;
            let mut carried = ParentSummary::default();
            let mut out = Vec::new();
            let mut cleared_nothing = false;
            for (step, &(piece, pick)) in moves.iter().enumerate() {
                let kept = carried.refill::<SET>(&board);
                prop_assert_eq!(kept, cleared_nothing, "set {} step {}", SET, step);
                prop_assert_eq!(&carried, &ParentSummary::for_set::<SET>(&board), "set {} step {}", SET, step);
                rules.candidates(&board, Piece::from_index(piece), &mut out);
                if out.is_empty() {
                    break;
                }
                let p = out[pick.index(out.len())];
                carried.advance::<SET>(&board, &p);
                let outcome = rules.lock(&mut board, &p);
                if outcome.game_over {
                    break;
                }
                cleared_nothing = outcome.info.rows_cleared == 0;
            }
            Ok(())
        }
        check::<DELLACHERIE_SET>(&board, &moves)?;
        check::<BCTS_SET>(&board, &moves)?;
        check::<BCTS_MDPTETRIS_SET>(&board, &moves)?;
        check::<ELTETRIS_SET>(&board, &moves)?;
        check::<DT_SET>(&board, &moves)?;
        check::<ALL_SET>(&board, &moves)?;
        check::<0>(&board, &moves)?;
    }
}

proptest! {
    /// The one-piece walk that skips the placements whose bound is below the best so far
    /// chooses exactly as the walk that scores them all (same placement, same value bits),
    /// move after move from random boards, for every feature set it prunes with (random
    /// weights at or below zero, the cleared-row features' of either sign) and both
    /// tie-breaks.
    #[test]
    fn pruned_walk_chooses_as_the_full_walk(
        board in arbitrary_board(),
        pieces in proptest::collection::vec(0usize..7, 1..25),
        weights in proptest::collection::vec(-30.0f64..0.0, 14),
        cleared_weights in (-10.0f64..10.0, -10.0f64..10.0),
    ) {
        use tetris_lab::eval::{Evaluator, Sense};
        use tetris_lab::features::incremental::SUPPORTED;
        use tetris_lab::policy::one_piece::{OnePiece, TieBreak};
        use tetris_lab::policy::{GameView, Policy, Scratch};
        let weight_of = |name: &str| match name {
            "eroded_cells" => cleared_weights.0,
            "rows_cleared" => cleared_weights.1,
            _ => weights[SUPPORTED.iter().position(|n| *n == name).unwrap()],
        };
        let sets: [&[&str]; 6] = [
            &["landing_height", "eroded_cells", "row_transitions", "column_transitions", "holes", "cumulative_wells"],
            &[
                "landing_height", "eroded_cells", "row_transitions", "column_transitions", "holes",
                "cumulative_wells", "hole_depth", "rows_with_holes",
            ],
            &[
                "landing_height", "eroded_cells", "row_transitions", "column_transitions", "holes",
                "cumulative_wells", "cells_above_holes", "rows_with_holes",
            ],
            &["landing_height_0", "rows_cleared", "row_transitions", "column_transitions_nosky", "holes", "cumulative_wells"],
            &tetris_lab::features::dt::DT_NAMES,
            &SUPPORTED,
        ];
        let rules = rules::simplified::Simplified::new(board.width(), board.height(), false);
        for names in sets {
            let terms: Vec<_> = names.iter().map(|name| (*name, weight_of(name))).collect();
            let evaluator = Evaluator::from_names(&terms, Sense::Maximize, None).unwrap();
            for tie_break in [TieBreak::FirstBest, TieBreak::FaheyPriority] {
                let pruned = OnePiece::new(evaluator.clone(), tie_break);
                let full = OnePiece::new(evaluator.clone(), tie_break).without_pruning();
                let (mut pruned_scratch, mut full_scratch) = (Scratch::default(), Scratch::default());
                let mut board = board;
                for &piece in &pieces {
                    let view = GameView { board: &board, current: Piece::from_index(piece), preview: &[], hold: None, can_hold: false };
                    let a = pruned.choose(&rules, &view, &mut pruned_scratch);
                    let b = full.choose(&rules, &view, &mut full_scratch);
                    prop_assert_eq!(
                        a.map(|d| (d.placement, d.value.to_bits())),
                        b.map(|d| (d.placement, d.value.to_bits())),
                        "{:?} {:?}", names, tie_break
                    );
                    let Some(decision) = a else { break };
                    if rules.lock(&mut board, &decision.placement).game_over {
                        break;
                    }
                }
            }
        }
    }
}
