//! A placement and what locking it did: the data every layer above the board shares.
//! Rule sets produce placements, features read what they did, policies choose among them,
//! and the game loop locks them; none of those needs the others to name these types.

use crate::board::Board;
use crate::piece::{DropShape, Piece};

/// A placement reachable under some rule set: the piece, how the rules label it
/// (orientation index and column), and where its bounding box lands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    pub piece: Piece,
    /// Orientation index as the rule set counts it (0 = spawn / first orientation).
    pub orientation: u8,
    /// Column as the rule set reports it (its piece origin; the box's left column for
    /// rule sets without an origin).
    pub column: i8,
    /// Columns moved from the spawn column (negative = left); 0 where there is no spawn.
    pub shift: i8,
    /// Bounding-box left column on the board.
    pub left: u8,
    /// Bounding-box bottom row after the drop (0 = floor).
    pub bottom: u8,
    pub shape: DropShape,
}

impl Placement {
    /// A piece dropped straight down in orientation `orientation` with its box at column
    /// `left` (the rule sets without a spawn column: column = left, no shift).
    #[inline]
    pub fn straight(piece: Piece, orientation: usize, left: usize, bottom: usize, shape: DropShape) -> Placement {
        Placement {
            piece,
            orientation: orientation as u8,
            column: left as i8,
            shift: 0,
            left: left as u8,
            bottom: bottom as u8,
            shape,
        }
    }
    /// Lowest row holding a cell of the piece.
    #[inline]
    pub fn lowest_row(&self) -> usize {
        self.bottom as usize
    }
    /// Highest row holding a cell of the piece.
    #[inline]
    pub fn highest_row(&self) -> usize {
        self.bottom as usize + self.shape.height as usize - 1
    }
    /// Writes the piece into `board` without clearing rows.
    #[inline]
    pub fn write(&self, board: &mut Board) {
        board.place_shape(&self.shape, self.left as usize, self.bottom as usize);
    }
    /// Writes the piece, removes the rows it completed, and says what happened (the
    /// values placement-dependent features need).
    #[inline]
    pub fn apply(&self, board: &mut Board) -> PlacementInfo {
        self.write(board);
        let full = board.full_rows_in(self.bottom as usize, self.shape.height as usize);
        let mut eroded = 0;
        if full != 0 {
            let masks = self.shape.masks_at(self.left as usize);
            for (i, mask) in masks.iter().enumerate().take(self.shape.height as usize) {
                if full >> (self.bottom as usize + i) & 1 == 1 {
                    eroded += mask.count_ones();
                }
            }
            board.remove_rows(full);
        }
        PlacementInfo {
            placed: true,
            lowest_row: self.bottom,
            highest_row: self.highest_row() as u8,
            rows_cleared: full.count_ones() as u8,
            piece_cells_cleared: eroded as u8,
        }
    }
}

/// What a placement did, as the placement-dependent features need it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlacementInfo {
    /// Whether a placement produced the board (false for a bare board, where the
    /// placement features read 0).
    pub placed: bool,
    /// Lowest and highest row of the piece's cells before rows were removed (0 = floor).
    pub lowest_row: u8,
    pub highest_row: u8,
    /// Rows removed by this placement.
    pub rows_cleared: u8,
    /// The placed piece's own cells that were in the removed rows.
    pub piece_cells_cleared: u8,
}
