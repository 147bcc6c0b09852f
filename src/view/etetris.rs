//! Pictures of an E-Tetris record as it replays (`replay FILE --watch`): the board after
//! each piece locks, the piece highlighted, its steps in the record and the score.

use super::Picture;
use crate::etetris::game::{GAME_ORDER, HEIGHT, PIECE_LIMIT, WIDTH};
use crate::etetris::record::LockStep;

/// The picture of one locked piece. The game counts rows from the top; pictures count
/// them from the floor.
pub fn picture(title: &str, step: &LockStep) -> Picture {
    let falling = step.falling;
    let orientation = falling.orientation();
    let to_floor = |y_from_top: usize| HEIGHT - 1 - y_from_top;
    let mut placed = Vec::new();
    let mut written = *step.before;
    written.put(orientation, falling.x, falling.y);
    for &(dx, dy) in &orientation.cells {
        let (x, y) = (falling.x + dx as i32, falling.y + dy as i32);
        if (0..WIDTH as i32).contains(&x) && (0..HEIGHT as i32).contains(&y) {
            placed.push((x as usize, to_floor(y as usize)));
        }
    }
    let mut cleared = 0u64;
    for y in 0..HEIGHT {
        if written.row(y) == crate::etetris::game::FULL_ROW {
            cleared |= 1 << to_floor(y);
        }
    }
    let steps: Vec<String> = step.ops.iter().map(|op| op.to_string()).collect();
    let grid = step.game.grid;
    let mut panel = vec![
        format!("piece  {} of {PIECE_LIMIT}", step.game.pieces),
        format!("shape  {} state {}", GAME_ORDER[falling.shape], falling.state),
        format!("steps  N,{}", steps.join(",")),
        format!("rows   {} cleared", cleared.count_ones()),
        format!("score  {}", step.game.score),
    ];
    if step.game.is_over {
        panel.push("game over".into());
    }
    Picture::after_lock(
        title.to_string(),
        (WIDTH, HEIGHT),
        |x, y| grid.is_filled(x, to_floor(y)),
        &placed,
        cleared,
        panel,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::etetris::game::Game;
    use crate::etetris::record::{replay, replay_game_observed, Record};
    use crate::view::Cell;

    #[test]
    fn every_lock_is_drawn_and_the_replay_is_unchanged() {
        let record = Record::parse(&std::fs::read_to_string("data/etetris/published_1378178.txt").unwrap()).unwrap();
        let mut pictures = Vec::new();
        let observed = replay_game_observed(&record, Game::default(), &mut |step| {
            if pictures.len() < 50 {
                pictures.push(picture("t", step));
            }
        });
        assert_eq!(observed, replay(&record));
        // The first piece (Z) lies on the floor, all four cells highlighted.
        let first = &pictures[0];
        let placed =
            (0..2).flat_map(|y| (0..WIDTH).map(move |x| (x, y))).filter(|&(x, y)| first.cell(x, y) == Cell::Placed);
        assert_eq!(placed.count(), 4);
        assert!(first.panel[2].starts_with("steps  N,"), "{:?}", first.panel);
    }
}
