//! Watching games: a [`Picture`] of one move (the board with the piece just placed, a side
//! panel of counters, the evaluator's view of the move), drawn from the one game loop
//! ([`game`], placement games and frame games alike) or from an E-Tetris record
//! ([`etetris`]); pictures as text for the terminal ([`text`]) or as GIF and PNG images
//! ([`image`]); and game traces, the moves of one game in a text file that a replay checks
//! ([`trace`]).

pub mod etetris;
pub mod game;
pub mod image;
pub mod text;
pub mod trace;

/// What a cell of a picture shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    Empty,
    Filled,
    /// A cell of the piece just placed (highlighted).
    Placed,
}

/// One moment of a game as `watch` shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Picture {
    pub title: String,
    pub width: usize,
    pub height: usize,
    /// Row by row from the floor up, `width` cells a row.
    cells: Vec<Cell>,
    /// Lines beside the board, top first.
    pub panel: Vec<String>,
}

impl Picture {
    /// The board after a lock, with the locked piece highlighted. `filled(x, y)` is the
    /// board after the lock (y from the floor), `placed` the piece's cells where it locked
    /// (before rows were removed) and `cleared` the rows its lock removed (bit y): the
    /// piece's cells that survive are moved down as the rows below them went.
    pub fn after_lock(
        title: String,
        (width, height): (usize, usize),
        filled: impl Fn(usize, usize) -> bool,
        placed: &[(usize, usize)],
        cleared: u64,
        panel: Vec<String>,
    ) -> Picture {
        let mut cells = vec![Cell::Empty; width * height];
        for y in 0..height {
            for x in 0..width {
                if filled(x, y) {
                    cells[y * width + x] = Cell::Filled;
                }
            }
        }
        for &(x, y) in placed {
            if y >= 64 || cleared >> y & 1 == 1 {
                continue;
            }
            let moved = y - (cleared & ((1u64 << y) - 1)).count_ones() as usize;
            // Only where the board has the cell: a rule set that removes rows otherwise
            // loses the highlight, never the board's truth.
            if x < width && moved < height && cells[moved * width + x] == Cell::Filled {
                cells[moved * width + x] = Cell::Placed;
            }
        }
        Picture { title, width, height, cells, panel }
    }

    /// The cell at column `x`, row `y` from the floor.
    pub fn cell(&self, x: usize, y: usize) -> Cell {
        self.cells[y * self.width + x]
    }

    /// The same picture with `line` added to the panel.
    pub fn with_panel_line(mut self, line: String) -> Picture {
        self.panel.push(line);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_placed_piece_follows_the_rows_its_lock_removed() {
        // A 4-wide board: row 0 was full after the lock (removed); the piece had cells on
        // rows 0 and 1, so its row-1 cells are now on row 0.
        let after = [(0, 0), (1, 0), (3, 0)];
        let picture = Picture::after_lock(
            "t".into(),
            (4, 3),
            |x, y| after.contains(&(x, y)),
            &[(0, 0), (1, 0), (0, 1), (1, 1)],
            0b1,
            vec![],
        );
        assert_eq!(picture.cell(0, 0), Cell::Placed);
        assert_eq!(picture.cell(1, 0), Cell::Placed);
        assert_eq!(picture.cell(3, 0), Cell::Filled);
        assert_eq!(picture.cell(2, 0), Cell::Empty);
        assert_eq!(picture.cell(0, 1), Cell::Empty);
    }
}
