//! `eltetris`: El-Tetris' own game (10 x 20, uniform pieces, no hold or preview). Candidates
//! are the distinct orientations at box columns 0..W-width, dropped from the top; the game
//! ends when the dropped piece would stick out above the top row.

use super::{
    drop_candidates, fixed_size, flat_first_shapes, OrientationTable, Outcome, Placement, RuleSet, RuleSetEntry,
};
use crate::board::Board;
use crate::piece::Piece;
use crate::randomizer::RandomizerKind;

pub const ENTRY: RuleSetEntry = RuleSetEntry {
    name: "eltetris",
    summary: "El-Tetris' game: 10x20, uniform pieces, drop from the top, game over when a piece sticks out",
    build: |size| {
        fixed_size("eltetris", size, (10, 20))?;
        Ok(Box::new(ElTetris::new()))
    },
};

pub struct ElTetris {
    table: OrientationTable,
}

impl ElTetris {
    pub fn new() -> ElTetris {
        ElTetris { table: OrientationTable::distinct_rotations(&flat_first_shapes()) }
    }
}

impl Default for ElTetris {
    fn default() -> Self {
        Self::new()
    }
}

impl RuleSet for ElTetris {
    fn name(&self) -> &'static str {
        "eltetris"
    }
    fn version(&self) -> &'static str {
        "eltetris/1"
    }
    fn describe(&self) -> String {
        "eltetris 10x20 (uniform pieces, drop from the top)".into()
    }
    fn new_board(&self) -> Board {
        Board::new(10, 20)
    }
    fn randomizer(&self) -> RandomizerKind {
        RandomizerKind::Uniform
    }
    fn candidates(&self, board: &Board, piece: Piece, out: &mut Vec<Placement>) {
        drop_candidates(&self.table, board, piece, true, out);
    }
    fn lock(&self, board: &mut Board, placement: &Placement) -> Outcome {
        let game_over = placement.highest_row() >= board.height();
        let info = placement.apply(board);
        Outcome { info, score: 0, game_over }
    }
}
