//! SRS (Super Rotation System) data for the guideline game: the piece cells of every
//! rotation state and the JLSTZ, I and O offset tables. Kicks are derived from the offset
//! tables as cold-clear does (kick = from-state offset minus to-state offset), so the I and
//! O pieces can rotate about a cell like the others and the tables put them where SRS does.

use crate::piece::{Piece, Shape};

/// A rotation state: spawn, one turn clockwise (R), two turns, one turn counter-clockwise (L).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rotation {
    North = 0,
    East = 1,
    South = 2,
    West = 3,
}

impl Rotation {
    pub const ALL: [Rotation; 4] = [Rotation::North, Rotation::East, Rotation::South, Rotation::West];

    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }
    #[inline]
    pub fn clockwise(self) -> Rotation {
        Rotation::ALL[(self.index() + 1) % 4]
    }
    #[inline]
    pub fn counter_clockwise(self) -> Rotation {
        Rotation::ALL[(self.index() + 3) % 4]
    }
    /// The short name used in frames files and the terminal view.
    pub fn name(self) -> &'static str {
        ["0", "R", "2", "L"][self.index()]
    }
    pub fn parse(text: &str) -> Option<Rotation> {
        Rotation::ALL.iter().copied().find(|r| r.name() == text)
    }
}

/// Spawn-state cells relative to the rotation centre, rows up. J, L, S, T, Z turn about
/// their centre cell; I and O turn about a cell too and their offset tables move them back
/// to the SRS position.
const SPAWN_CELLS: [[(i8, i8); 4]; 7] = [
    [(-1, 0), (0, 0), (1, 0), (2, 0)],  // I
    [(0, 0), (1, 0), (0, 1), (1, 1)],   // O
    [(-1, 0), (0, 0), (1, 0), (0, 1)],  // T
    [(-1, 0), (0, 0), (0, 1), (1, 1)],  // S
    [(-1, 1), (0, 1), (0, 0), (1, 0)],  // Z
    [(-1, 1), (-1, 0), (0, 0), (1, 0)], // J
    [(1, 1), (-1, 0), (0, 0), (1, 0)],  // L
];

/// Offsets of J, L, S, T, Z per state (North, East, South, West), five tests each.
const JLSTZ_OFFSETS: [[(i8, i8); 5]; 4] = [
    [(0, 0), (0, 0), (0, 0), (0, 0), (0, 0)],
    [(0, 0), (1, 0), (1, -1), (0, 2), (1, 2)],
    [(0, 0), (0, 0), (0, 0), (0, 0), (0, 0)],
    [(0, 0), (-1, 0), (-1, -1), (0, 2), (-1, 2)],
];

/// Offsets of I per state, five tests each.
const I_OFFSETS: [[(i8, i8); 5]; 4] = [
    [(0, 0), (-1, 0), (2, 0), (-1, 0), (2, 0)],
    [(-1, 0), (0, 0), (0, 0), (0, 1), (0, -2)],
    [(-1, 1), (1, 1), (-2, 1), (1, 0), (-2, 0)],
    [(0, 1), (0, 1), (0, 1), (0, -1), (0, 2)],
];

/// Offsets of O per state: a single test that cancels the turn about a corner cell.
const O_OFFSETS: [(i8, i8); 4] = [(0, 0), (0, -1), (-1, -1), (-1, 0)];

/// Every piece's cells in every state, computed once at compile time.
const CELLS: [[[(i8, i8); 4]; 4]; 7] = {
    let mut table = [[[(0i8, 0i8); 4]; 4]; 7];
    let mut piece = 0;
    while piece < 7 {
        let mut state = 0;
        let mut cells = SPAWN_CELLS[piece];
        while state < 4 {
            table[piece][state] = cells;
            // Clockwise quarter turn, rows up: (x, y) -> (y, -x), as `Shape::rotated_clockwise`.
            let mut i = 0;
            while i < 4 {
                cells[i] = (cells[i].1, -cells[i].0);
                i += 1;
            }
            state += 1;
        }
        piece += 1;
    }
    table
};

/// The four cells of `piece` in `state`, relative to its rotation centre (rows up).
#[inline]
pub fn cells(piece: Piece, state: Rotation) -> &'static [(i8, i8); 4] {
    &CELLS[piece.index()][state.index()]
}

/// A state's cells packed into row masks, so a fit test is a few ANDs instead of four cell
/// lookups (the AI's search spends most of its time testing fits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packed {
    /// Offsets of the leftmost / rightmost column and lowest / highest row from the centre.
    pub min_dx: i8,
    pub max_dx: i8,
    pub min_dy: i8,
    pub max_dy: i8,
    /// `rows[i]`: the cells of row `min_dy + i`, bit 0 = column `min_dx`.
    pub rows: [u16; 4],
}

const PACKED: [[Packed; 4]; 7] = {
    let mut table = [[Packed { min_dx: 0, max_dx: 0, min_dy: 0, max_dy: 0, rows: [0; 4] }; 4]; 7];
    let mut piece = 0;
    while piece < 7 {
        let mut state = 0;
        while state < 4 {
            let cells = CELLS[piece][state];
            let (mut min_dx, mut max_dx, mut min_dy, mut max_dy) = (i8::MAX, i8::MIN, i8::MAX, i8::MIN);
            let mut i = 0;
            while i < 4 {
                let (x, y) = cells[i];
                if x < min_dx {
                    min_dx = x;
                }
                if x > max_dx {
                    max_dx = x;
                }
                if y < min_dy {
                    min_dy = y;
                }
                if y > max_dy {
                    max_dy = y;
                }
                i += 1;
            }
            let mut rows = [0u16; 4];
            let mut i = 0;
            while i < 4 {
                let (x, y) = cells[i];
                rows[(y - min_dy) as usize] |= 1 << (x - min_dx);
                i += 1;
            }
            table[piece][state] = Packed { min_dx, max_dx, min_dy, max_dy, rows };
            state += 1;
        }
        piece += 1;
    }
    table
};

/// The cells of `piece` in `state` as row masks.
#[inline]
pub fn packed(piece: Piece, state: Rotation) -> &'static Packed {
    &PACKED[piece.index()][state.index()]
}

/// The same cells as a [`Shape`] (for code that works with shapes).
pub fn shape(piece: Piece, state: Rotation) -> Shape {
    Shape::new(*cells(piece, state))
}

/// The kick tests, in order, for turning `piece` from `from` to `to`: translations to add
/// to the centre after the turn. The first one where the piece fits wins. O has one test
/// (repeated so every piece returns five; a repeated test changes nothing).
pub fn kicks(piece: Piece, from: Rotation, to: Rotation) -> [(i8, i8); 5] {
    let (a, b) = (from.index(), to.index());
    let mut out = [(0i8, 0i8); 5];
    for (i, kick) in out.iter_mut().enumerate() {
        let (from_offset, to_offset) = match piece {
            Piece::I => (I_OFFSETS[a][i], I_OFFSETS[b][i]),
            Piece::O => (O_OFFSETS[a], O_OFFSETS[b]),
            _ => (JLSTZ_OFFSETS[a][i], JLSTZ_OFFSETS[b][i]),
        };
        *kick = (from_offset.0 - to_offset.0, from_offset.1 - to_offset.1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The SRS wiki's kick table for J, L, S, T, Z (rows up), keyed by (from, to).
    fn wiki_jlstz(from: Rotation, to: Rotation) -> [(i8, i8); 5] {
        use Rotation::*;
        match (from, to) {
            (North, East) | (South, East) => [(0, 0), (-1, 0), (-1, 1), (0, -2), (-1, -2)],
            (East, North) | (East, South) => [(0, 0), (1, 0), (1, -1), (0, 2), (1, 2)],
            (South, West) | (North, West) => [(0, 0), (1, 0), (1, 1), (0, -2), (1, -2)],
            (West, South) | (West, North) => [(0, 0), (-1, 0), (-1, -1), (0, 2), (-1, 2)],
            _ => unreachable!(),
        }
    }

    /// The SRS wiki's kick table for I, relative to turning inside its 4x4 box.
    fn wiki_i(from: Rotation, to: Rotation) -> [(i8, i8); 5] {
        use Rotation::*;
        match (from, to) {
            (North, East) => [(0, 0), (-2, 0), (1, 0), (-2, -1), (1, 2)],
            (East, North) => [(0, 0), (2, 0), (-1, 0), (2, 1), (-1, -2)],
            (East, South) => [(0, 0), (-1, 0), (2, 0), (-1, 2), (2, -1)],
            (South, East) => [(0, 0), (1, 0), (-2, 0), (1, -2), (-2, 1)],
            (South, West) => [(0, 0), (2, 0), (-1, 0), (2, 1), (-1, -2)],
            (West, South) => [(0, 0), (-2, 0), (1, 0), (-2, -1), (1, 2)],
            (West, North) => [(0, 0), (1, 0), (-2, 0), (1, -2), (-2, 1)],
            (North, West) => [(0, 0), (-1, 0), (2, 0), (-1, 2), (2, -1)],
            _ => unreachable!(),
        }
    }

    /// The I piece's cells in its 4x4 box (box bottom-left = (0, 0), rows up), per the wiki.
    fn i_box(state: Rotation) -> Vec<(i8, i8)> {
        match state {
            Rotation::North => (0..4).map(|x| (x, 2)).collect(),
            Rotation::East => (0..4).map(|y| (2, y)).collect(),
            Rotation::South => (0..4).map(|x| (x, 1)).collect(),
            Rotation::West => (0..4).map(|y| (1, y)).collect(),
        }
    }

    fn sorted(mut v: Vec<(i8, i8)>) -> Vec<(i8, i8)> {
        v.sort();
        v
    }

    fn turns() -> Vec<(Rotation, Rotation)> {
        Rotation::ALL.iter().flat_map(|&r| [(r, r.clockwise()), (r, r.counter_clockwise())]).collect()
    }

    #[test]
    fn jlstz_kicks_match_the_published_table() {
        for piece in [Piece::J, Piece::L, Piece::S, Piece::T, Piece::Z] {
            for (from, to) in turns() {
                assert_eq!(kicks(piece, from, to), wiki_jlstz(from, to), "{piece} {from:?}->{to:?}");
            }
        }
    }

    #[test]
    fn i_kicks_match_the_published_table() {
        // Our I turns about a cell; placed with its centre at (5, 10), the 4x4 box's
        // bottom-left corner is at (4, 8) in the spawn state. Each of our tests must put the
        // cells where the wiki's box turn plus its test puts them.
        let centre = (5i8, 10i8);
        let box_corner = (4i8, 8i8);
        for (from, to) in turns() {
            let ours_before = sorted(cells(Piece::I, from).iter().map(|c| (c.0 + centre.0, c.1 + centre.1)).collect());
            let wiki_before = sorted(i_box(from).iter().map(|c| (c.0 + box_corner.0, c.1 + box_corner.1)).collect());
            // Align the box with our piece in the `from` state (the box moves with the piece).
            let shift = (ours_before[0].0 - wiki_before[0].0, ours_before[0].1 - wiki_before[0].1);
            assert_eq!(
                ours_before,
                sorted(wiki_before.iter().map(|c| (c.0 + shift.0, c.1 + shift.1)).collect()),
                "box of {from:?}"
            );
            let (ours, wiki) = (kicks(Piece::I, from, to), wiki_i(from, to));
            for test in 0..5 {
                let ours_after = sorted(
                    cells(Piece::I, to)
                        .iter()
                        .map(|c| (c.0 + centre.0 + ours[test].0, c.1 + centre.1 + ours[test].1))
                        .collect(),
                );
                let wiki_after = sorted(
                    i_box(to)
                        .iter()
                        .map(|c| {
                            (c.0 + box_corner.0 + shift.0 + wiki[test].0, c.1 + box_corner.1 + shift.1 + wiki[test].1)
                        })
                        .collect(),
                );
                assert_eq!(ours_after, wiki_after, "I {from:?}->{to:?} test {}", test + 1);
            }
        }
    }

    #[test]
    fn o_does_not_move_when_turned() {
        for (from, to) in turns() {
            let k = kicks(Piece::O, from, to)[0];
            let before = sorted(cells(Piece::O, from).to_vec());
            let after = sorted(cells(Piece::O, to).iter().map(|c| (c.0 + k.0, c.1 + k.1)).collect());
            assert_eq!(before, after, "O {from:?}->{to:?}");
        }
    }

    #[test]
    fn four_turns_come_back() {
        for piece in Piece::ALL {
            assert_eq!(shape(piece, Rotation::North).rotated_clockwise(1), shape(piece, Rotation::East));
            assert_eq!(shape(piece, Rotation::North).rotated_clockwise(4), shape(piece, Rotation::North));
        }
    }
}
