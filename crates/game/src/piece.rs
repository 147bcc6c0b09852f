//! Piece kinds and the shape data every rule set builds its orientation tables from.
//! A [`Shape`] is four cells relative to an origin; [`DropShape`] is the same cells packed
//! into row masks with per-column bottoms, so a straight drop is `max(height - bottom)`.

use std::fmt;

/// The seven tetrominoes. The discriminant is the index used by tables throughout
/// (I, O, T, S, Z, J, L): rule sets with another order map explicitly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Piece {
    I = 0,
    O = 1,
    T = 2,
    S = 3,
    Z = 4,
    J = 5,
    L = 6,
}

impl Piece {
    pub const ALL: [Piece; 7] = [Piece::I, Piece::O, Piece::T, Piece::S, Piece::Z, Piece::J, Piece::L];

    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }
    #[inline]
    pub fn from_index(i: usize) -> Piece {
        Piece::ALL[i]
    }
    pub fn letter(self) -> char {
        ['I', 'O', 'T', 'S', 'Z', 'J', 'L'][self.index()]
    }
    /// Parses a piece letter (case-insensitive).
    pub fn from_letter(c: char) -> Option<Piece> {
        Piece::ALL.iter().copied().find(|p| p.letter() == c.to_ascii_uppercase())
    }
    /// Parses a piece name with a clear error.
    pub fn parse(s: &str) -> anyhow::Result<Piece> {
        let mut chars = s.trim().chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => Piece::from_letter(c)
                .ok_or_else(|| anyhow::anyhow!("unknown piece {s:?}: expected one of I, O, T, S, Z, J, L")),
            _ => anyhow::bail!("unknown piece {s:?}: expected one of I, O, T, S, Z, J, L"),
        }
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// Four cells as (column, row) offsets from an origin, rows **up**.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub cells: [(i8, i8); 4],
}

impl Shape {
    pub const fn new(cells: [(i8, i8); 4]) -> Shape {
        Shape { cells }
    }
    /// Rotates clockwise by quarter turns about the origin: (x, y) -> (y, -x).
    pub fn rotated_clockwise(&self, turns: usize) -> Shape {
        let mut cells = self.cells;
        for _ in 0..turns % 4 {
            for c in cells.iter_mut() {
                *c = (c.1, -c.0);
            }
        }
        Shape { cells }
    }
    pub fn min_x(&self) -> i8 {
        self.cells.iter().map(|c| c.0).min().unwrap()
    }
    pub fn max_x(&self) -> i8 {
        self.cells.iter().map(|c| c.0).max().unwrap()
    }
    pub fn min_y(&self) -> i8 {
        self.cells.iter().map(|c| c.1).min().unwrap()
    }
    pub fn max_y(&self) -> i8 {
        self.cells.iter().map(|c| c.1).max().unwrap()
    }
    /// The cells as a sorted set relative to the bounding box (to compare shapes).
    pub fn normalized(&self) -> [(i8, i8); 4] {
        let (mx, my) = (self.min_x(), self.min_y());
        let mut c = self.cells.map(|(x, y)| (x - mx, y - my));
        c.sort();
        c
    }
    /// Packs the shape for straight drops.
    pub fn drop_shape(&self) -> DropShape {
        DropShape::from_shape(self)
    }
}

/// A shape packed relative to its bounding box: row masks from the box's bottom row,
/// and per box column the lowest and highest filled row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DropShape {
    /// Bounding-box width in columns.
    pub width: u8,
    /// Bounding-box height in rows.
    pub height: u8,
    /// Row masks, bit `j` = box column `j`, index 0 = box bottom row.
    pub rows: [u16; 4],
    /// Lowest filled row of each box column.
    pub bottom: [u8; 4],
    /// Highest filled row of each box column.
    pub top: [u8; 4],
    /// Box left and bottom relative to the shape's origin.
    pub origin_to_left: i8,
    pub origin_to_bottom: i8,
}

impl DropShape {
    pub fn from_shape(shape: &Shape) -> DropShape {
        let (mx, my) = (shape.min_x(), shape.min_y());
        let width = (shape.max_x() - mx + 1) as u8;
        let height = (shape.max_y() - my + 1) as u8;
        let mut rows = [0u16; 4];
        let mut bottom = [u8::MAX; 4];
        let mut top = [0u8; 4];
        for &(x, y) in &shape.cells {
            let (bx, by) = ((x - mx) as usize, (y - my) as usize);
            rows[by] |= 1 << bx;
            bottom[bx] = bottom[bx].min(by as u8);
            top[bx] = top[bx].max(by as u8);
        }
        DropShape { width, height, rows, bottom, top, origin_to_left: mx, origin_to_bottom: my }
    }

    /// The row masks shifted to box column `left`.
    #[inline]
    pub fn masks_at(&self, left: usize) -> [u16; 4] {
        [self.rows[0] << left, self.rows[1] << left, self.rows[2] << left, self.rows[3] << left]
    }

    /// Row of the box bottom after a straight drop from above the board at box column
    /// `left`: the lowest row where no cell is at or below its column's top.
    #[inline]
    pub fn drop_row(&self, heights: &[u8; 16], left: usize) -> usize {
        let mut y = 0i32;
        for j in 0..self.width as usize {
            let need = heights[left + j] as i32 - self.bottom[j] as i32;
            if need > y {
                y = need;
            }
        }
        y as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_and_packing() {
        // T pointing up: cells left, centre, right and above the centre.
        let t = Shape::new([(0, 0), (-1, 0), (1, 0), (0, 1)]);
        let d = t.drop_shape();
        assert_eq!((d.width, d.height), (3, 2));
        assert_eq!(d.rows[0], 0b111);
        assert_eq!(d.rows[1], 0b010);
        let r = t.rotated_clockwise(1).drop_shape();
        assert_eq!((r.width, r.height), (2, 3));
        assert_eq!(t.rotated_clockwise(4), t);
    }

    #[test]
    fn drop_row_uses_lowest_resting_point() {
        let s = Shape::new([(0, 0), (1, 0), (1, 1), (2, 1)]).drop_shape(); // S lying
        let mut h = [0u8; 16];
        h[0] = 2;
        h[1] = 1;
        assert_eq!(s.drop_row(&h, 0), 2);
        assert_eq!(s.drop_row(&h, 1), 1);
    }

    #[test]
    fn parse_piece() {
        assert_eq!(Piece::parse("t").unwrap(), Piece::T);
        assert!(Piece::parse("Q").unwrap_err().to_string().contains("unknown piece"));
    }
}
