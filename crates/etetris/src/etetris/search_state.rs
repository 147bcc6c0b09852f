//! A beam search stopped between two pieces, with everything it needs to go on and end
//! exactly as a search never stopped: the kept boards in their order (the merge's
//! tie-break and the fixed chunks read it), the tree of placements that leads to them, and
//! the distinct boards counted so far. [`BeamSearch::solve_resumable`] saves and resumes
//! it; its bytes ([`SearchState::to_bytes`], [`SearchState::from_bytes`]) are what
//! `solve`'s checkpoint files hold, checked whole on reading (a checksum, then every
//! index), so a damaged file is an error, never a panic or a different game.
//!
//! [`BeamSearch::solve_resumable`]: super::solver::BeamSearch::solve_resumable

use super::game::{Grid, Placement, FULL_ROW, HEIGHT, WIDTH};
use crate::checksum::fnv1a;
use anyhow::{bail, ensure, Context, Result};

/// The node of a board placed straight on the start (no placement before it).
pub(super) const ROOT: u32 = u32::MAX;

/// The most points one piece can score: ten times a full board's cells (a four-row clear
/// counts the cells on the board).
const MAX_POINTS_PER_PIECE: u64 = 10 * (WIDTH * HEIGHT) as u64;

/// The bytes' first eight: a name and the layout's version (bump it when the layout changes).
const MAGIC: &[u8; 8] = b"TLBEAM\x00\x01";

/// See the module's documentation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchState {
    /// Pieces placed.
    pub(super) pieces: usize,
    /// The kept boards in the beam's order: board, score, node in the tree ([`ROOT`]: none).
    pub(super) boards: Vec<(Grid, u32, u32)>,
    /// The tree: each node's parent ([`ROOT`] or an earlier node) and its placement.
    pub(super) parents: Vec<u32>,
    pub(super) placements: Vec<Placement>,
    /// Distinct boards after each piece placed (one per piece).
    pub(super) distinct_boards: Vec<usize>,
}

impl SearchState {
    /// Pieces placed when the search stopped.
    pub fn pieces(&self) -> usize {
        self.pieces
    }

    /// Boards kept when the search stopped.
    pub fn boards(&self) -> usize {
        self.boards.len()
    }

    /// The highest score among the kept boards.
    pub fn best_score(&self) -> u32 {
        self.boards.iter().map(|b| b.1).max().unwrap_or(0)
    }

    /// The bytes, with the caller's `note` (`solve` keeps its settings there, as JSON),
    /// which [`SearchState::from_bytes`] gives back. The little-endian layout: [`MAGIC`];
    /// the note (UTF-8); the pieces; the boards (20 rows of 16 bits, score, node); the
    /// nodes (parent, x, y, state); the distinct board counts; each list after its length
    /// (64 bits), and last a 64-bit FNV-1a checksum of all before it.
    pub fn to_bytes(&self, note: &str) -> Vec<u8> {
        let nodes = self.parents.len();
        let mut out =
            Vec::with_capacity(64 + note.len() + self.boards.len() * 48 + nodes * 7 + self.distinct_boards.len() * 8);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(note.len() as u64).to_le_bytes());
        out.extend_from_slice(note.as_bytes());
        out.extend_from_slice(&(self.pieces as u64).to_le_bytes());
        out.extend_from_slice(&(self.boards.len() as u64).to_le_bytes());
        for (grid, score, node) in &self.boards {
            for row in grid.rows() {
                out.extend_from_slice(&row.to_le_bytes());
            }
            out.extend_from_slice(&score.to_le_bytes());
            out.extend_from_slice(&node.to_le_bytes());
        }
        out.extend_from_slice(&(nodes as u64).to_le_bytes());
        for (parent, placement) in self.parents.iter().zip(&self.placements) {
            out.extend_from_slice(&parent.to_le_bytes());
            out.extend_from_slice(&[placement.x as u8, placement.y as u8, placement.state]);
        }
        out.extend_from_slice(&(self.distinct_boards.len() as u64).to_le_bytes());
        for &count in &self.distinct_boards {
            out.extend_from_slice(&(count as u64).to_le_bytes());
        }
        let checksum = fnv1a(&out);
        out.extend_from_slice(&checksum.to_le_bytes());
        out
    }

    /// Reads [`SearchState::to_bytes`] back, with its note, refusing bytes that are not a
    /// whole state: a wrong name or version, a checksum that does not match, a note that
    /// is not UTF-8, a board with a full row (one the game would have cleared), a node
    /// whose parent is not before it, a board's node past the tree or at another depth
    /// than the pieces placed, a score more than the pieces can make, a placement off the
    /// grid, or not one distinct board count per piece.
    pub fn from_bytes(bytes: &[u8]) -> Result<(SearchState, String)> {
        ensure!(bytes.len() >= MAGIC.len() + 8, "too short to be a search state ({} bytes)", bytes.len());
        if bytes[..6] != MAGIC[..6] {
            bail!("not a search state (it does not start with the search state's name)");
        }
        ensure!(
            bytes[..8] == MAGIC[..],
            "search state layout {} is not this build's {}",
            u16::from_be_bytes([bytes[6], bytes[7]]),
            u16::from_be_bytes([MAGIC[6], MAGIC[7]])
        );
        let (body, tail) = bytes.split_at(bytes.len() - 8);
        let stored = u64::from_le_bytes(tail.try_into().expect("eight bytes"));
        ensure!(fnv1a(body) == stored, "the search state is damaged (its checksum does not match)");
        let mut reader = Reader { bytes: body, at: MAGIC.len() };
        let note_length = reader.length("note bytes", body.len())?;
        let note = body.get(reader.at..reader.at + note_length).context("the search state is cut short")?;
        let note = String::from_utf8(note.to_vec()).context("the search state's note is not UTF-8")?;
        reader.at += note_length;
        let pieces = reader.length("pieces", usize::MAX)?;
        let board_count = reader.length("boards", body.len() / 48)?;
        let mut boards = Vec::with_capacity(board_count);
        for index in 0..board_count {
            let mut rows = [0u16; HEIGHT];
            for row in rows.iter_mut() {
                *row = u16::from_le_bytes(reader.take::<2>()?);
            }
            ensure!(
                rows.iter().all(|&row| row & !FULL_ROW == 0 && row != FULL_ROW),
                "board {index} is not a board of the game (a row past the grid's {WIDTH} columns, or a full row)"
            );
            let score = u32::from_le_bytes(reader.take::<4>()?);
            let node = u32::from_le_bytes(reader.take::<4>()?);
            boards.push((Grid::from_rows(&rows), score, node));
        }
        let node_count = reader.length("nodes", body.len() / 7)?;
        ensure!(node_count < ROOT as usize, "{node_count} nodes are more than a tree holds");
        let (mut parents, mut placements) = (Vec::with_capacity(node_count), Vec::with_capacity(node_count));
        for index in 0..node_count {
            let parent = u32::from_le_bytes(reader.take::<4>()?);
            ensure!(parent == ROOT || (parent as usize) < index, "node {index}'s parent {parent} is not before it");
            let [x, y, state] = reader.take::<3>()?;
            let placement = Placement { x: x as i8, y: y as i8, state };
            ensure!(
                (-2..WIDTH as i8 + 2).contains(&placement.x)
                    && (-2..HEIGHT as i8 + 2).contains(&placement.y)
                    && placement.state < 4,
                "node {index}'s placement {placement:?} is off the grid"
            );
            parents.push(parent);
            placements.push(placement);
        }
        // Each node is one piece further than its parent, and every kept board holds all
        // the pieces placed.
        let mut depth = Vec::with_capacity(node_count);
        for &parent in &parents {
            depth.push(if parent == ROOT { 1 } else { depth[parent as usize] + 1 });
        }
        for (index, &(_, score, node)) in boards.iter().enumerate() {
            ensure!(node == ROOT || (node as usize) < node_count, "board {index}'s node {node} is past the tree");
            let placed = if node == ROOT { 0 } else { depth[node as usize] };
            ensure!(placed == pieces, "board {index} is {placed} pieces from the start, not the {pieces} placed");
            ensure!(
                score as u64 <= MAX_POINTS_PER_PIECE * pieces as u64,
                "board {index}'s score {score} is more than {pieces} pieces can score"
            );
        }
        let count = reader.length("distinct board counts", body.len() / 8)?;
        ensure!(count == pieces, "{count} distinct board counts for {pieces} pieces placed (one per piece)");
        let distinct_boards =
            (0..count).map(|_| Ok(u64::from_le_bytes(reader.take::<8>()?) as usize)).collect::<Result<Vec<_>>>()?;
        ensure!(reader.at == body.len(), "{} bytes past the end of the search state", body.len() - reader.at);
        ensure!(!boards.is_empty() || pieces == 0, "no board kept after {pieces} pieces");
        Ok((SearchState { pieces, boards, parents, placements, distinct_boards }, note))
    }
}

/// Reads fixed-size fields in order, failing on a cut.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N]> {
        let field =
            self.bytes.get(self.at..self.at + N).ok_or_else(|| anyhow::anyhow!("the search state is cut short"))?;
        self.at += N;
        Ok(field.try_into().expect("N bytes"))
    }

    /// A list's length, at most `limit` (what the bytes left could hold).
    fn length(&mut self, what: &str, limit: usize) -> Result<usize> {
        let length = u64::from_le_bytes(self.take::<8>()?);
        ensure!(length <= limit as u64, "{length} {what} are more than the search state holds");
        Ok(length as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> SearchState {
        let grid = Grid::parse("#####.....").expect("a grid");
        SearchState {
            pieces: 2,
            boards: vec![(grid, 7, 1), (Grid::default(), 3, 2)],
            parents: vec![ROOT, 0, 0],
            placements: vec![
                Placement { x: 3, y: 18, state: 1 },
                Placement { x: -1, y: 17, state: 0 },
                Placement { x: 5, y: 16, state: 2 },
            ],
            distinct_boards: vec![5, 9],
        }
    }

    #[test]
    fn round_trips_through_bytes() {
        let state = state();
        let note = "{\"settings\": \"été\"}";
        assert_eq!(SearchState::from_bytes(&state.to_bytes(note)).expect("reads back"), (state, note.to_string()));
    }

    #[test]
    fn every_cut_and_every_flipped_byte_is_refused() {
        let bytes = state().to_bytes("a note");
        for cut in 0..bytes.len() {
            assert!(SearchState::from_bytes(&bytes[..cut]).is_err(), "cut at {cut} accepted");
        }
        for at in 0..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x10;
            assert!(SearchState::from_bytes(&damaged).is_err(), "flipped byte {at} accepted");
        }
    }

    #[test]
    fn inconsistent_states_are_refused_with_their_cause() {
        let refused = |change: fn(&mut SearchState), cause: &str| {
            let mut state = state();
            change(&mut state);
            let error = SearchState::from_bytes(&state.to_bytes("")).expect_err("refused").to_string();
            assert!(error.contains(cause), "{error:?} does not say {cause:?}");
        };
        refused(|s| s.parents[0] = 1, "node 0's parent 1 is not before it");
        refused(|s| s.boards[0].2 = 3, "board 0's node 3 is past the tree");
        refused(|s| s.boards[0].2 = 0, "board 0 is 1 pieces from the start, not the 2 placed");
        refused(|s| s.boards[1].2 = ROOT, "board 1 is 0 pieces from the start, not the 2 placed");
        refused(|s| s.boards[1].1 = 4001, "board 1's score 4001 is more than 2 pieces can score");
        refused(|s| s.distinct_boards.truncate(1), "1 distinct board counts for 2 pieces");
        refused(|s| s.placements[1].state = 4, "node 1's placement");
        refused(|s| s.boards[1].0 = Grid::from_rows(&[FULL_ROW; HEIGHT]), "board 1 is not a board of the game");
        let mut other = state().to_bytes("");
        other[7] = 9;
        let error = SearchState::from_bytes(&other).expect_err("refused").to_string();
        assert!(error.contains("layout 9 is not this build's 1"), "{error}");
    }
}
