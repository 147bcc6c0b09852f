//! A [`Picture`] as text, in the guideline view's style: `##` the stack, `[]` the piece
//! just placed, ` .` an empty cell, the panel to the right of the board. On a terminal the
//! placed piece is also drawn in a bright colour (ANSI).

use super::{Cell, Picture};

/// Bright yellow on, attributes off.
const HIGHLIGHT: (&str, &str) = ("\x1b[1;93m", "\x1b[0m");

/// Renders `picture`; `ansi` colours the placed piece.
pub fn render(picture: &Picture, ansi: bool) -> String {
    let border = format!(" +{}+", "-".repeat(2 * picture.width));
    let mut out = format!("{}\n{border}\n", picture.title);
    let rows = picture.height.max(picture.panel.len());
    for line in 0..rows {
        let mut text = String::new();
        if line < picture.height {
            let y = picture.height - 1 - line;
            text.push_str(" |");
            for x in 0..picture.width {
                match picture.cell(x, y) {
                    Cell::Empty => text.push_str(" ."),
                    Cell::Filled => text.push_str("##"),
                    Cell::Placed if ansi => text.push_str(&format!("{}[]{}", HIGHLIGHT.0, HIGHLIGHT.1)),
                    Cell::Placed => text.push_str("[]"),
                }
            }
            text.push('|');
        } else {
            // Panel lines below the board keep their column.
            text.push_str(&" ".repeat(2 * picture.width + 3));
        }
        if let Some(side) = picture.panel.get(line) {
            text.push_str("   ");
            text.push_str(side);
        }
        out.push_str(text.trim_end());
        out.push('\n');
        if line + 1 == picture.height {
            out.push_str(&border);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_panel_and_highlight() {
        let picture =
            Picture::after_lock("title".into(), (3, 2), |x, y| y == 0 && x < 2, &[(1, 0)], 0, vec!["rows 1".into()]);
        let plain = render(&picture, false);
        assert_eq!(plain, "title\n +------+\n | . . .|   rows 1\n |##[] .|\n +------+\n");
        let ansi = render(&picture, true);
        assert!(ansi.contains("\x1b[1;93m[]\x1b[0m"), "{ansi}");
    }

    #[test]
    fn a_panel_longer_than_the_board_continues_below_it() {
        let picture = Picture::after_lock("t".into(), (2, 1), |_, _| false, &[], 0, vec!["a".into(), "b".into()]);
        assert_eq!(render(&picture, false), "t\n +----+\n | . .|   a\n +----+\n          b\n");
    }
}
