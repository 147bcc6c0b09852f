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
    /// The one-piece fast path scores every non-clearing placement exactly as the full-board
    /// features do.
    #[test]
    fn fast_path_matches_full_board_features(board in arbitrary_board(), piece in 0usize..7) {
        use tetris_lab::features::incremental::{ParentSummary, SUPPORTED};
        let rules = rules::simplified::Simplified::new(board.width(), board.height(), false);
        let summary = ParentSummary::new(&board);
        let mut out = Vec::new();
        rules.candidates(&board, Piece::from_index(piece), &mut out);
        for p in &out {
            if summary.clears_rows(&board, p) {
                continue;
            }
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
            full_score, ParentSummary, ShapeCells, BCTS_SET, DELLACHERIE_SET, ELTETRIS_SET,
        };
        let rules = rules::simplified::Simplified::new(board.width(), board.height(), false);
        let summary = ParentSummary::new(&board);
        let mut out = Vec::new();
        rules.candidates(&board, Piece::from_index(piece), &mut out);
        for preset in ["dellacherie-simplified", "bcts", "el-tetris"] {
            let evaluator = presets::find(preset).unwrap().evaluator().unwrap();
            let (weights, _) = *evaluator.fast_weights().expect("terms in index order");
            for p in &out {
                let mut after = board;
                let info = p.apply(&mut after);
                let expected = evaluator.value(&FeatureContext::new(&after, info));
                let cells = ShapeCells::new(&p.shape);
                let (width, height, left, bottom) =
                    (p.shape.width as usize, p.shape.height as usize, p.left as usize, p.bottom as usize);
                let (fast, full) = match preset {
                    "dellacherie-simplified" => (
                        summary.score_at::<DELLACHERIE_SET>(&board, &cells, width, height, left, bottom, &weights),
                        full_score::<DELLACHERIE_SET>(&after, &info, &weights),
                    ),
                    "bcts" => (
                        summary.score_at::<BCTS_SET>(&board, &cells, width, height, left, bottom, &weights),
                        full_score::<BCTS_SET>(&after, &info, &weights),
                    ),
                    _ => (
                        summary.score_at::<ELTETRIS_SET>(&board, &cells, width, height, left, bottom, &weights),
                        full_score::<ELTETRIS_SET>(&after, &info, &weights),
                    ),
                };
                prop_assert_eq!(full.to_bits(), expected.to_bits(), "{} full", preset);
                match fast {
                    Some(value) => prop_assert_eq!(value.to_bits(), expected.to_bits(), "{} fast", preset),
                    None => prop_assert!(info.rows_cleared > 0, "{} declined a placement that clears nothing", preset),
                }
            }
        }
    }
}
