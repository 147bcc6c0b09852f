//! The board: one `u16` bitmask per row (bit `c` = column `c`, row 0 = floor) plus cached
//! column heights, so that dropping a piece costs four lookups and a line clear a few shifts.
//! Widths 4..=16, heights up to [`MAX_HEIGHT`]. Every rule set and feature works on this type.

use anyhow::{bail, Result};
use std::fmt;

/// The tallest board any rule set uses (the guideline game: 20 visible + 20 hidden rows),
/// with room to spare.
pub const MAX_HEIGHT: usize = 44;
/// Rows stored: the board plus headroom so a piece sticking out above the top can be
/// written before the rules decide what that means.
pub const ROW_CAPACITY: usize = 48;
/// The widest board supported (one `u16` per row).
pub const MAX_WIDTH: usize = 16;

/// A Tetris board. `Copy` so that search can branch on it without allocating.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Board {
    width: u8,
    height: u8,
    /// Row bitmasks from the floor up; rows at or above `height` are only used transiently.
    rows: [u16; ROW_CAPACITY],
    /// Height of every column: index of its highest filled cell + 1, 0 when empty.
    heights: [u8; MAX_WIDTH],
}

/// What one line clear removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClearInfo {
    /// Number of full rows removed.
    pub rows: u32,
    /// Bitmask of the removed rows' indices (before removal).
    pub row_mask: u64,
}

impl Board {
    /// An empty board. Panics on sizes outside 4..=16 x 1..=MAX_HEIGHT (callers validate
    /// user input with [`Board::check_size`] first).
    pub fn new(width: usize, height: usize) -> Board {
        assert!((4..=MAX_WIDTH).contains(&width), "board width {width} out of range");
        assert!((1..=MAX_HEIGHT).contains(&height), "board height {height} out of range");
        Board { width: width as u8, height: height as u8, rows: [0; ROW_CAPACITY], heights: [0; MAX_WIDTH] }
    }

    /// Validates a user-supplied size.
    pub fn check_size(width: usize, height: usize) -> Result<()> {
        if !(4..=MAX_WIDTH).contains(&width) {
            bail!("board width {width} is outside 4..={MAX_WIDTH}");
        }
        if !(4..=MAX_HEIGHT).contains(&height) {
            bail!("board height {height} is outside 4..={MAX_HEIGHT}");
        }
        Ok(())
    }

    #[inline]
    pub fn width(&self) -> usize {
        self.width as usize
    }
    #[inline]
    pub fn height(&self) -> usize {
        self.height as usize
    }
    /// Mask of a full row.
    #[inline]
    pub fn full_row(&self) -> u16 {
        ((1u32 << self.width) - 1) as u16
    }
    /// Row `y` (0 = floor). Rows above the stored capacity read as empty.
    #[inline]
    pub fn row(&self, y: usize) -> u16 {
        if y < ROW_CAPACITY {
            self.rows[y]
        } else {
            0
        }
    }
    /// All stored rows, floor first (includes the headroom above the board).
    #[inline]
    pub fn rows(&self) -> &[u16; ROW_CAPACITY] {
        &self.rows
    }
    /// Column height: index of the highest filled cell + 1, 0 for an empty column.
    #[inline]
    pub fn column_height(&self, x: usize) -> usize {
        self.heights[x] as usize
    }
    /// All column heights (only the first `width` entries are meaningful).
    #[inline]
    pub fn heights(&self) -> &[u8; MAX_WIDTH] {
        &self.heights
    }
    /// Highest column height.
    #[inline]
    pub fn max_height(&self) -> usize {
        self.heights[..self.width()].iter().copied().max().unwrap_or(0) as usize
    }
    #[inline]
    pub fn is_filled(&self, x: usize, y: usize) -> bool {
        self.row(y) >> x & 1 == 1
    }
    /// Number of filled cells.
    pub fn cell_count(&self) -> u32 {
        self.rows.iter().map(|r| r.count_ones()).sum()
    }
    pub fn is_empty(&self) -> bool {
        self.rows.iter().all(|&r| r == 0)
    }

    /// Fills one cell (test and parser helper; keeps heights right).
    pub fn set(&mut self, x: usize, y: usize) {
        self.rows[y] |= 1 << x;
        if self.heights[x] as usize <= y {
            self.heights[x] = (y + 1) as u8;
        }
    }

    /// Empties one cell (keeps heights right).
    pub fn clear_cell(&mut self, x: usize, y: usize) {
        self.rows[y] &= !(1 << x);
        if self.heights[x] as usize == y + 1 {
            self.recompute_heights();
        }
    }

    /// Whether `mask` (columns already shifted into place) overlaps the row `y`.
    /// Rows below the floor count as filled, rows above the capacity as empty.
    #[inline]
    pub fn collides_row(&self, y: isize, mask: u16) -> bool {
        if y < 0 {
            return mask != 0;
        }
        self.row(y as usize) & mask != 0
    }

    /// ORs a piece into the board: `masks[i]` goes to row `bottom + i`. Heights are kept.
    /// The caller guarantees no overlap (debug-checked) and `bottom + masks.len() <= ROW_CAPACITY`.
    #[inline]
    pub fn place_masks(&mut self, bottom: usize, masks: &[u16]) {
        for (i, &m) in masks.iter().enumerate() {
            if m == 0 {
                continue;
            }
            let y = bottom + i;
            debug_assert!(self.rows[y] & m == 0, "piece overlaps the stack");
            self.rows[y] |= m;
            let mut bits = m;
            while bits != 0 {
                let x = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if (self.heights[x] as usize) < y + 1 {
                    self.heights[x] = (y + 1) as u8;
                }
            }
        }
    }

    /// ORs a dropped shape into the board with its box at (`left`, `bottom`); heights are
    /// updated per column from the shape's column tops, not per cell.
    #[inline]
    pub fn place_shape(&mut self, shape: &crate::piece::DropShape, left: usize, bottom: usize) {
        for i in 0..shape.height as usize {
            debug_assert!(self.rows[bottom + i] & (shape.rows[i] << left) == 0, "piece overlaps the stack");
            self.rows[bottom + i] |= shape.rows[i] << left;
        }
        for j in 0..shape.width as usize {
            let top = (bottom + shape.top[j] as usize + 1) as u8;
            if self.heights[left + j] < top {
                self.heights[left + j] = top;
            }
        }
    }

    /// Full rows among `bottom..bottom+count` (the only rows a placement can complete).
    #[inline]
    pub fn full_rows_in(&self, bottom: usize, count: usize) -> u64 {
        let full = self.full_row();
        let mut mask = 0u64;
        for y in bottom..(bottom + count).min(ROW_CAPACITY) {
            if self.rows[y] == full {
                mask |= 1 << y;
            }
        }
        mask
    }

    /// All full rows on the board (headroom included).
    pub fn full_rows(&self) -> u64 {
        self.full_rows_in(0, ROW_CAPACITY)
    }

    /// Removes the rows in `row_mask`, letting everything above fall; heights are kept.
    pub fn remove_rows(&mut self, row_mask: u64) -> ClearInfo {
        if row_mask == 0 {
            return ClearInfo::default();
        }
        let top = self.stack_top();
        let first = row_mask.trailing_zeros() as usize;
        let mut write = first;
        for read in first..top {
            if row_mask >> read & 1 == 0 {
                self.rows[write] = self.rows[read];
                write += 1;
            }
        }
        for y in write..top {
            self.rows[y] = 0;
        }
        self.recompute_heights_below(write);
        ClearInfo { rows: row_mask.count_ones(), row_mask }
    }

    /// Removes every full row among `bottom..bottom+count`.
    #[inline]
    pub fn clear_full_rows_in(&mut self, bottom: usize, count: usize) -> ClearInfo {
        let mask = self.full_rows_in(bottom, count);
        self.remove_rows(mask)
    }

    /// Removes every full row.
    pub fn clear_full_rows(&mut self) -> ClearInfo {
        let mask = self.full_rows();
        self.remove_rows(mask)
    }

    /// One past the highest non-empty stored row (headroom included): the highest column,
    /// since no cell lies above its column's height.
    #[inline]
    pub fn stack_top(&self) -> usize {
        let mut top = 0u8;
        for &h in &self.heights {
            top = top.max(h);
        }
        top as usize
    }

    /// The same, found by scanning the rows (used while the heights are being rebuilt).
    #[inline]
    fn scan_top(&self) -> usize {
        let mut top = ROW_CAPACITY;
        while top > 0 && self.rows[top - 1] == 0 {
            top -= 1;
        }
        top
    }

    /// Recomputes the cached column heights from the rows.
    pub fn recompute_heights(&mut self) {
        self.recompute_heights_below(self.scan_top());
    }

    /// Recomputes the heights knowing that every row from `top` up is empty.
    fn recompute_heights_below(&mut self, top: usize) {
        self.heights = [0; MAX_WIDTH];
        let mut unknown = self.full_row();
        let mut y = top;
        while y > 0 && unknown != 0 {
            y -= 1;
            let mut hit = self.rows[y] & unknown;
            unknown &= !hit;
            while hit != 0 {
                let x = hit.trailing_zeros() as usize;
                hit &= hit - 1;
                self.heights[x] = (y + 1) as u8;
            }
        }
    }

    /// Whether any cell is filled at or above row `y`.
    #[inline]
    pub fn has_cells_from(&self, y: usize) -> bool {
        self.rows[y.min(ROW_CAPACITY)..].iter().any(|&r| r != 0)
    }

    /// The board mirrored left to right.
    pub fn mirrored(&self) -> Board {
        let mut out = *self;
        let w = self.width();
        for y in 0..ROW_CAPACITY {
            out.rows[y] = self.rows[y].reverse_bits() >> (16 - w);
        }
        out.recompute_heights();
        out
    }

    /// Parses a board in the text format of the spec: top row first, `#`/`X` filled,
    /// `.` empty; fewer lines than `height` leave the upper rows empty. `width` defaults
    /// to the length of the first line. Errors name the offending line (1-based, within
    /// the block).
    pub fn parse(text: &str, width: Option<usize>, height: usize) -> Result<Board> {
        let lines: Vec<&str> = text
            .lines()
            .map(|l| l.trim_end_matches('\r'))
            .filter(|l| !l.trim().is_empty() && !l.starts_with(';'))
            .collect();
        let width = match width {
            Some(w) => w,
            None => lines.first().map(|l| l.chars().count()).unwrap_or(10),
        };
        Board::check_size(width, height.max(4))?;
        if height == 0 {
            // Heights below 4 are allowed here (small test boards), but not no row at all.
            bail!("board height 0: a board has at least one row");
        }
        if lines.len() > height {
            bail!("board has {} rows but the rule set allows {}", lines.len(), height);
        }
        let mut board = Board::new(width, height);
        for (i, line) in lines.iter().enumerate() {
            let chars: Vec<char> = line.chars().collect();
            if chars.len() != width {
                bail!("row {} ({}) has {} cells, expected {width}", i + 1, crate::names::Quoted(line), chars.len());
            }
            let y = lines.len() - 1 - i;
            for (x, ch) in chars.iter().enumerate() {
                match ch {
                    '#' | 'X' | 'x' => board.set(x, y),
                    '.' => {}
                    other => bail!(
                        "row {} ({}) has the character {other:?}; use '#' or 'X' for filled and '.' for empty",
                        i + 1,
                        crate::names::Quoted(line)
                    ),
                }
            }
        }
        Ok(board)
    }

    /// Text form: top row first, `#` filled, `.` empty; only the lowest `rows` rows when
    /// given (all rows when `None`).
    pub fn to_text(&self, rows: Option<usize>) -> String {
        let h = self.height();
        let shown = rows.unwrap_or(h).min(ROW_CAPACITY);
        let mut s = String::new();
        for y in (0..shown).rev() {
            for x in 0..self.width() {
                s.push(if self.is_filled(x, y) { '#' } else { '.' });
            }
            s.push('\n');
        }
        s
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Board {}x{}", self.width, self.height)?;
        let top = self.stack_top().max(1);
        for y in (0..top).rev() {
            for x in 0..self.width() {
                write!(f, "{}", if self.is_filled(x, y) { '#' } else { '.' })?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

/// Splits a board file into named blocks: blank lines separate boards, a `; name` comment
/// directly before a board names it, otherwise boards are numbered from 1.
pub fn split_board_file(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut name: Option<String> = None;
    let mut body = String::new();
    let flush = |name: &mut Option<String>, body: &mut String, out: &mut Vec<(String, String)>| {
        if !body.is_empty() {
            let n = name.take().unwrap_or_else(|| (out.len() + 1).to_string());
            out.push((n, std::mem::take(body)));
        }
    };
    for raw in text.lines() {
        let line = raw.trim_end_matches('\r');
        if line.trim().is_empty() {
            flush(&mut name, &mut body, &mut out);
        } else if let Some(comment) = line.strip_prefix(';') {
            if body.is_empty() {
                let c = comment.trim();
                if !c.is_empty() {
                    name = Some(c.to_string());
                }
            }
        } else {
            body.push_str(line.trim());
            body.push('\n');
        }
    }
    flush(&mut name, &mut body, &mut out);
    out
}

/// Parses `WxH`.
pub fn parse_size(s: &str) -> Result<(usize, usize), String> {
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(|| format!("board size {s:?} is not WxH (e.g. 10x20)"))?;
    let w: usize = w.trim().parse().map_err(|_| format!("board width {w:?} is not a number"))?;
    let h: usize = h.trim().parse().map_err(|_| format!("board height {h:?} is not a number"))?;
    Board::check_size(w, h).map_err(|e| e.to_string())?;
    Ok((w, h))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_heights() {
        let b = Board::parse("X.........\nX...X.....\nXX.XXX.X..", None, 20).unwrap();
        assert_eq!(b.width(), 10);
        assert_eq!(b.column_height(0), 3);
        assert_eq!(b.column_height(1), 1);
        assert_eq!(b.column_height(2), 0);
        assert_eq!(b.column_height(4), 2);
        assert_eq!(b.cell_count(), 9);
        assert_eq!(b.to_text(Some(3)), "#.........\n#...#.....\n##.###.#..\n");
    }

    #[test]
    fn parse_errors_name_the_row() {
        let e = Board::parse("X...\nX..", None, 20).unwrap_err().to_string();
        assert!(e.contains("row 2"), "{e}");
        let e = Board::parse("X..Q", None, 20).unwrap_err().to_string();
        assert!(e.contains("'Q'"), "{e}");
    }

    #[test]
    fn clears_fall_and_heights_follow() {
        let mut b = Board::parse(".X..\n####\n#..#\n####", None, 8).unwrap();
        let info = b.clear_full_rows();
        assert_eq!(info.rows, 2);
        assert_eq!(b.to_text(Some(2)), ".#..\n#..#\n");
        assert_eq!(&b.heights()[..4], &[1, 2, 0, 1]);
    }

    #[test]
    fn mirror() {
        let b = Board::parse("X...\nXX.X", None, 6).unwrap();
        assert_eq!(b.mirrored().to_text(Some(2)), "...#\n#.##\n");
    }

    #[test]
    fn split_names_and_numbers() {
        let blocks = split_board_file("; first\nX..\n\n...\nXX.\n\n; third\n.X.\n");
        assert_eq!(blocks.len(), 3);
        assert_eq!(blocks[0].0, "first");
        assert_eq!(blocks[1].0, "2");
        assert_eq!(blocks[2].0, "third");
    }
}
