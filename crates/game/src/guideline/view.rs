//! Text view of a guideline game for `tetris-lab watch`: the 20 visible rows plus the two
//! hidden rows pieces spawn in, the hold slot, the preview and the counters.

use super::game::{Game, VISIBLE_ROWS, WIDTH};
use crate::piece::Piece;

/// Hidden rows shown above the field, so a piece is visible from its spawn frame.
const SHOWN_HIDDEN_ROWS: usize = 2;

/// Renders the game: `##` stack, `[]` the piece in play, ` .` empty.
pub fn render(game: &Game, title: &str) -> String {
    let active: Vec<(i8, i8)> = game.active().map(|p| p.cells().to_vec()).unwrap_or_default();
    let row = |y: usize, empty: &str| -> String {
        (0..WIDTH)
            .map(|x| {
                if active.contains(&(x as i8, y as i8)) {
                    "[]"
                } else if game.board().is_filled(x, y) {
                    "##"
                } else {
                    empty
                }
            })
            .collect()
    };
    let letters = |pieces: &[Piece]| pieces.iter().map(|p| p.letter().to_string()).collect::<Vec<_>>().join(" ");
    let panel = [
        format!("hold   {}", game.held().map(|p| p.letter().to_string()).unwrap_or_else(|| "-".into())),
        format!("next   {}", letters(game.preview())),
        String::new(),
        format!("level  {}", game.level()),
        format!("lines  {}", game.lines()),
        format!("score  {}", game.score()),
        format!("pieces {}", game.pieces()),
        format!("frame  {}", game.frame()),
    ];
    let border = format!(" +{}+", "-".repeat(2 * WIDTH));
    let mut out = format!("{title}\n");
    for y in (VISIBLE_ROWS..VISIBLE_ROWS + SHOWN_HIDDEN_ROWS).rev() {
        out.push_str(format!("  {}", row(y, "  ")).trim_end());
        out.push('\n');
    }
    out.push_str(&border);
    out.push('\n');
    for y in (0..VISIBLE_ROWS).rev() {
        let side = panel.get(VISIBLE_ROWS - 1 - y).map(String::as_str).unwrap_or("");
        out.push_str(format!(" |{}|   {side}", row(y, " .")).trim_end());
        out.push('\n');
    }
    out.push_str(&border);
    out.push('\n');
    if let Some(end) = game.game_over() {
        out.push_str(&format!("game over ({})\n", end.name()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guideline::Keys;

    #[test]
    fn shows_the_piece_the_panel_and_the_stack() {
        let mut game = Game::new(2, 1);
        game.step(Keys::HARD_DROP);
        game.step(Keys::NONE);
        let text = render(&game, "title");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "title");
        assert_eq!(lines.len(), 1 + 2 + 1 + 20 + 1);
        assert!(lines[1..3].iter().any(|l| l.contains("[]")), "the spawned piece shows in the hidden rows:\n{text}");
        assert!(lines[23].contains("##"), "the dropped piece lies on the floor:\n{text}");
        assert!(text.contains("next   ") && text.contains("score  40") && text.contains("pieces 1"), "{text}");
    }
}
