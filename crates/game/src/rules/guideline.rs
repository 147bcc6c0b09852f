//! The `guideline` rule set (seed 001, `rules.md`): the frame-accurate game of
//! [`crate::guideline`] behind the [`RuleSet`] interface. Its games go frame by frame
//! (gravity, lock delay and levels decide what a key press reaches), so presets pair it
//! with a frame game ([`RuleSet::frame_rules`] says which) that the game loop plays. Its
//! candidates, for commands that look at one board (`best`), are the distinct placements
//! the 44 key-press moves reach from the spawn at level 1. `guideline-gravity-first` is the
//! same game with keys ignored on the frame a piece appears (see [`SpawnFrame`]).

use super::{fixed_size, Outcome, RuleSet, RuleSetEntry};
use crate::board::Board;
use crate::guideline::ai::{all_moves, play_sequence, KeySequence};
use crate::guideline::game::{self, ActivePiece, Game, Keys, SpawnFrame};
use crate::guideline::srs;
use crate::piece::Piece;
use crate::placement::Placement;
use crate::randomizer::RandomizerKind;

pub struct Guideline {
    pub spawn_frame: SpawnFrame,
}

/// Name of the variant whose spawn frame ignores keys.
pub const GRAVITY_FIRST: &str = SpawnFrame::GravityOnly.rule_set();

pub const ENTRY: RuleSetEntry = RuleSetEntry {
    name: game::RULE_SET,
    summary: "the frame-accurate game of Mike's pygame Tetris: 10x20 + 20 hidden, 7-bag, hold, 3 previews, SRS, gravity by level",
    build: |size| {
        fixed_size(game::RULE_SET, size, (game::WIDTH, game::TOTAL_ROWS))?;
        Ok(Box::new(Guideline { spawn_frame: SpawnFrame::KeysAct }))
    },
};

pub const GRAVITY_FIRST_ENTRY: RuleSetEntry = RuleSetEntry {
    name: GRAVITY_FIRST,
    summary: "guideline, but keys are ignored on the frame a piece appears (gravity acts first)",
    build: |size| {
        fixed_size(GRAVITY_FIRST, size, (game::WIDTH, game::TOTAL_ROWS))?;
        Ok(Box::new(Guideline { spawn_frame: SpawnFrame::GravityOnly }))
    },
};

/// A locked piece as a [`Placement`]: orientation = SRS state (0, R, 2, L as 0..3), column =
/// rotation centre, shift from the spawn column.
pub fn placement_of(placed: &ActivePiece) -> Placement {
    let cells = placed.cells();
    let shape = srs::shape(placed.piece, placed.rotation).drop_shape();
    Placement {
        piece: placed.piece,
        orientation: placed.rotation.index() as u8,
        column: placed.x,
        shift: placed.x - 4,
        left: cells.iter().map(|c| c.0).min().unwrap() as u8,
        bottom: cells.iter().map(|c| c.1).min().unwrap() as u8,
        shape,
    }
}

/// A level-1 game on `board` about to spawn `current`, then `preview`.
pub fn position(board: &Board, current: Piece, preview: &[Piece], spawn_frame: SpawnFrame) -> Game {
    let mut game = Game::with_spawn_frame(0, 1, spawn_frame);
    game.set_board(*board);
    let mut coming = vec![current];
    coming.extend(preview.iter().take(game::PREVIEW).copied());
    game.set_upcoming(&coming);
    game
}

impl RuleSet for Guideline {
    fn name(&self) -> &'static str {
        self.spawn_frame.rule_set()
    }
    fn version(&self) -> &'static str {
        "1"
    }
    fn describe(&self) -> String {
        format!(
            "{} v{}: 10x{} visible + {} hidden rows, 7-bag, hold once per piece, {} previews, SRS, 60 frames/s",
            self.name(),
            game::RULE_SET_VERSION,
            game::VISIBLE_ROWS,
            game::HIDDEN_ROWS,
            game::PREVIEW
        )
    }
    fn new_board(&self) -> Board {
        Board::new(game::WIDTH, game::TOTAL_ROWS)
    }
    fn randomizer(&self) -> RandomizerKind {
        RandomizerKind::SevenBag
    }
    fn preview(&self) -> usize {
        game::PREVIEW
    }
    fn hold(&self) -> super::HoldRule {
        super::HoldRule::OncePerPiece
    }
    fn can_spawn(&self, board: &Board, piece: Piece) -> bool {
        let mut game = position(board, piece, &[], self.spawn_frame);
        game.step(Keys::NONE);
        !game.is_over()
    }
    fn candidates(&self, board: &Board, piece: Piece, out: &mut Vec<Placement>) {
        out.clear();
        let game = position(board, piece, &[], self.spawn_frame);
        let mut seen = Vec::new();
        for m in all_moves() {
            if let Some(outcome) = play_sequence(&game, &KeySequence::for_game(m, &game)) {
                if !seen.contains(&outcome.placement) {
                    seen.push(outcome.placement);
                    out.push(placement_of(&outcome.game.last_lock().expect("locked").placed));
                }
            }
        }
    }
    /// Writes the piece and removes full rows; scores as at level 1 (a bare placement has
    /// no level); ends the game on a lock above the visible field.
    fn lock(&self, board: &mut Board, placement: &Placement) -> Outcome {
        let info = placement.apply(board);
        Outcome {
            info,
            score: game::LINE_POINTS[info.rows_cleared as usize],
            game_over: info.lowest_row as usize >= game::VISIBLE_ROWS,
        }
    }
    fn frame_rules(&self) -> Option<SpawnFrame> {
        Some(self.spawn_frame)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_are_the_distinct_key_press_placements() {
        // On an empty board: O 9 columns; I 7 flat + 10 upright; T 8 + 9 + 8 + 9.
        let rules = Guideline { spawn_frame: SpawnFrame::KeysAct };
        let board = rules.new_board();
        let mut out = Vec::new();
        for (piece, count) in [(Piece::O, 9), (Piece::I, 17), (Piece::T, 34)] {
            rules.candidates(&board, piece, &mut out);
            assert_eq!(out.len(), count, "{piece}");
            assert!(out.iter().all(|p| p.bottom == 0 && p.piece == piece));
        }
    }

    #[test]
    fn spawn_is_blocked_by_a_stack_at_row_20() {
        let rules = Guideline { spawn_frame: SpawnFrame::KeysAct };
        let mut board = rules.new_board();
        assert!(rules.can_spawn(&board, Piece::T));
        board.set(4, 20);
        assert!(!rules.can_spawn(&board, Piece::T));
    }
}
