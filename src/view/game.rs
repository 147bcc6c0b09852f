//! Watching a game of the one game loop: [`watch_game`] plays game `index` of a master
//! seed exactly as `play` does (same seeding, same loop, `sim::play_game_watched`) and
//! hands every move to the caller as a [`MoveShot`]; a [`Scene`] turns a shot into a
//! [`Picture`] with the evaluator's feature values for the chosen placement.

use super::Picture;
use crate::board::Board;
use crate::eval::Evaluator;
use crate::features::FeatureContext;
use crate::placement::Placement;
use crate::presets::Built;
use crate::rules::{HoldRule, Outcome, RuleSet};
use crate::sim::{self, GameLimits, GameRecord, MoveRecord, SteppedGame};
use crate::support::text::format_number;

/// One move as the game loop made it, with the boards around it: cheap to keep (no
/// allocation), so pictures are drawn only for the moves shown.
#[derive(Clone, Copy, Debug)]
pub struct MoveShot {
    pub record: MoveRecord,
    /// The board before the move.
    pub before: Board,
    /// The board after the lock (rows removed).
    pub after: Board,
    pub outcome: Outcome,
    /// Rows cleared and points scored so far, this move included.
    pub lines: u64,
    pub score: u64,
}

impl MoveShot {
    /// The rows this move's lock removed (bit y), as the plain lock removes them.
    pub fn cleared_rows(&self) -> u64 {
        cleared_rows(&self.before, &self.record.placement)
    }

    /// The cells of the placed piece (x, y from the floor) before rows were removed.
    pub fn placed_cells(&self) -> Vec<(usize, usize)> {
        placed_cells(&self.record.placement)
    }
}

/// The rows locking `placement` on `before` removes (bit y), as the plain lock removes them.
fn cleared_rows(before: &Board, placement: &Placement) -> u64 {
    let mut board = *before;
    placement.write(&mut board);
    board.full_rows()
}

/// The cells of `placement`'s piece (x, y from the floor) before rows were removed.
fn placed_cells(placement: &Placement) -> Vec<(usize, usize)> {
    let masks = placement.shape.masks_at(placement.left as usize);
    let mut cells = Vec::new();
    for (j, mask) in masks.iter().enumerate().take(placement.shape.height as usize) {
        for x in 0..16 {
            if mask >> x & 1 == 1 {
                cells.push((x, placement.bottom as usize + j));
            }
        }
    }
    cells
}

/// The characters of a [`stepped_picture`]'s panel lines.
pub const STEPPED_PANEL_WIDTH: usize = 20;

/// The picture of a game played one move at a time ([`SteppedGame`]): the board, the
/// piece just placed highlighted as `watch` draws it, and a panel with the piece to place,
/// the preview and the counters. Every picture of a game has the same lines, each padded
/// to [`STEPPED_PANEL_WIDTH`] characters, so its images share one size (as video frames
/// must).
pub fn stepped_picture(game: &SteppedGame, title: String) -> Picture {
    let board = game.board();
    let current = if game.is_over() { "-".to_string() } else { game.current().to_string() };
    let next: Vec<String> = game.preview().iter().map(|p| p.to_string()).collect();
    let mut panel = vec![format!("move   {}", game.pieces()), format!("piece  {current}")];
    if !next.is_empty() {
        panel.push(format!("next   {}", next.join(" ")));
    }
    panel.push(format!("lines  {}", game.lines()));
    panel.push(format!("score  {}", game.score()));
    panel.push(if game.is_over() { "game over".to_string() } else { String::new() });
    let panel = panel.into_iter().map(|line| format!("{line:<STEPPED_PANEL_WIDTH$}")).collect();
    let (placed, cleared) = match game.last_move() {
        Some((before, placement)) => (placed_cells(&placement), cleared_rows(&before, &placement)),
        None => (Vec::new(), 0),
    };
    Picture::after_lock(title, (board.width(), board.height()), |x, y| board.is_filled(x, y), &placed, cleared, panel)
}

/// Plays game `index` of `master_seed` (the game `play --seed master_seed` plays as its
/// game `index`) and calls `on_shot` after every move.
pub fn watch_game(
    built: &Built,
    master_seed: u64,
    index: u64,
    limits: GameLimits,
    on_shot: &mut dyn FnMut(&MoveShot),
) -> GameRecord {
    let driver = built.driver();
    let seed = sim::batch_game_seed(driver, master_seed, index);
    let mut before = built.rules.new_board();
    // Filled before each lock, read after it: a cell, since both callbacks hold it.
    let pending: std::cell::Cell<Option<MoveRecord>> = std::cell::Cell::new(None);
    let (mut lines, mut score) = (0u64, 0u64);
    sim::play_game_watched(driver, seed, limits, &mut |record| pending.set(Some(*record)), &mut |after, outcome| {
        let record = pending.take().expect("the loop reports a move before its lock");
        lines += outcome.info.rows_cleared as u64;
        score += outcome.score;
        on_shot(&MoveShot { record, before, after: *after, outcome: *outcome, lines, score });
        before = *after;
    })
}

/// What a picture of a move shows besides the board: the title, the rule set (hold and
/// preview), the evaluator whose features are listed, and how many rows to draw.
pub struct Scene<'a> {
    pub title: String,
    pub rules: &'a dyn RuleSet,
    pub evaluator: &'a Evaluator,
    /// Rows drawn from the floor up (the guideline game's hidden rows are left out).
    pub rows: usize,
}

impl Scene<'_> {
    /// The scene of a built preset: every row of a placement game; the 20 visible rows and
    /// the two hidden ones pieces spawn in of the guideline game.
    pub fn of<'a>(built: &'a Built, title: String) -> Scene<'a> {
        let rows = match &built.frame {
            Some(_) => crate::guideline::game::VISIBLE_ROWS + 2,
            None => built.rules.new_board().height(),
        };
        Scene { title, rules: built.rules.as_ref(), evaluator: built.policy.evaluator(), rows }
    }

    /// The picture of a move: the board after it, the piece highlighted, the counters and
    /// the evaluator's features on the board the chosen placement leaves, as the rule set
    /// shows it to the player (the policy's value may be a lookahead's best leaf).
    pub fn picture(&self, shot: &MoveShot) -> Picture {
        let record = &shot.record;
        let placement = &record.placement;
        let mut panel = vec![
            format!("move   {}", record.index + 1),
            format!("piece  {} orientation {} column {}", placement.piece, placement.orientation, placement.column),
        ];
        if self.rules.hold() != HoldRule::None || record.held.is_some() {
            let held = record.held.map(|p| p.to_string()).unwrap_or_else(|| "-".into());
            panel.push(format!("hold   {held}{}", if record.hold { " (held this move)" } else { "" }));
        }
        if !record.preview.pieces().is_empty() {
            let next: Vec<String> = record.preview.pieces().iter().map(|p| p.to_string()).collect();
            panel.push(format!("next   {}", next.join(" ")));
        }
        panel.push(format!("lines  {}", shot.lines));
        panel.push(format!("score  {}", shot.score));
        panel.push(format!("value  {}", format_number(record.value)));
        panel.push(String::new());
        // The evaluator's terms on the board the placement leaves, as the player saw it.
        let mut seen = shot.before;
        let info = self.rules.apply(&mut seen, placement);
        let context = FeatureContext::new(&seen, info);
        let width = self.evaluator.terms.iter().map(|(f, _)| f.name.len()).max().unwrap_or(0);
        for (feature, weight) in &self.evaluator.terms {
            let value = (feature.compute)(&context);
            panel.push(format!("{:<width$} {:>5} x {}", feature.name, format_number(value), format_number(*weight)));
        }
        panel.push(format!("{:<width$} {:>5}", "sum", format_number(self.evaluator.value(&context))));
        let after = shot.after;
        Picture::after_lock(
            self.title.clone(),
            (after.width(), self.rows.min(after.height())),
            |x, y| after.is_filled(x, y),
            &shot.placed_cells(),
            shot.cleared_rows(),
            panel,
        )
    }
}

/// The line `watch` ends with: the game's end and counters, the words of `play --csv`.
pub fn summary(index: u64, record: &GameRecord) -> String {
    format!(
        "game {index} (seed {}): {}, lines {}, pieces {}, score {}{}",
        record.seed,
        record.end.as_str(),
        record.lines,
        record.pieces,
        record.score,
        record.level.map(|l| format!(", level {l}")).unwrap_or_default()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets;

    #[test]
    fn a_stepped_game_is_drawn_as_watch_draws_a_move_one_size_throughout() {
        use crate::view::Cell;
        let rules = crate::rules::build("simplified", Some((6, 8))).unwrap();
        let mut game = SteppedGame::new(rules.as_ref(), 5);
        let first = stepped_picture(&game, "t".into());
        assert!(first.panel.iter().all(|line| line.chars().count() == STEPPED_PANEL_WIDTH));
        let size = crate::view::image::rgb_pixels(&first).0;
        let placed = |picture: &Picture| {
            (0..8)
                .flat_map(|y| (0..6).map(move |x| (x, y)))
                .filter(|&(x, y)| picture.cell(x, y) == Cell::Placed)
                .count()
        };
        assert_eq!(placed(&first), 0, "nothing placed yet");
        while !game.is_over() {
            game.step(rules.as_ref(), 0);
            let picture = stepped_picture(&game, "t".into());
            // The piece just placed, less its cells in rows its lock removed.
            let cleared = game.last_placement().piece_cells_cleared as usize;
            assert_eq!(placed(&picture), 4 - cleared);
            assert_eq!(crate::view::image::rgb_pixels(&picture).0, size, "one image size for the game");
        }
        assert!(stepped_picture(&game, "t".into()).panel.iter().any(|line| line.trim() == "game over"));
    }

    #[test]
    fn the_watched_game_is_the_batch_game_and_its_shots_add_up() {
        for name in ["bcts", "erikko", "lee", "el-tetris", "dellacherie", "pygame-lee"] {
            let built = presets::find(name).unwrap().build(None, None).unwrap();
            let limits = GameLimits { max_pieces: Some(40) };
            let mut shots = Vec::new();
            let record = watch_game(&built, 3, 2, limits, &mut |shot| shots.push(*shot));
            assert_eq!(record, sim::play_game_of_batch(built.driver(), 3, 2, limits, None), "{name}");
            assert_eq!(shots.len() as u64, record.pieces, "{name}");
            let last = shots.last().unwrap();
            assert_eq!((last.lines, last.score), (record.lines, record.score), "{name}");
            let scene = Scene::of(&built, name.into());
            let picture = scene.picture(last);
            let placed = (0..picture.height)
                .flat_map(|y| (0..picture.width).map(move |x| (x, y)))
                .filter(|&(x, y)| picture.cell(x, y) == super::super::Cell::Placed)
                .count();
            let first = scene.picture(&shots[0]);
            let placed_first = (0..first.width).filter(|&x| first.cell(x, 0) == super::super::Cell::Placed).count();
            assert!(placed_first > 0 && placed <= 4, "{name}: the first piece lies on the floor, highlighted");
            assert!(picture.panel.iter().any(|l| l.starts_with("sum")), "{name}");
        }
    }
}
