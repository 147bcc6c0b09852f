//! The seed's beam solver (MaxDumbledore's `Solver.cpp`) reproduced rule for rule, then
//! made fast. One step per piece: expand every kept board with every placement, merge
//! equal boards keeping the highest score, keep the `beam` boards with the smallest
//! `evaluate(board) - score / divisor`; the answer is the best-scored board at the end.
//!
//! Speed without changing the result: placements are scored incrementally (no new board
//! is built unless a line clears) on rayon over fixed chunks of the beam, into reused
//! buffers (no allocation per candidate); `select_nth_unstable` keeps the best-valued
//! ones, and only those become 40-byte [`Grid`] keys, hashed and merged; the final cut
//! breaks ties by the board. The chunk count is fixed, so the outcome is the same at any
//! thread count. See [`BeamSearch`] for why the early cut is exact.
//!
//! Beyond the seed, opt in ([`Options::refinements`]): a one-piece lookahead that ranks the cut by
//! each board's best placement of the next piece (optionally blended with the board's own
//! value), a cap on the boards kept per parent, a quota on the boards of one phase (the rows
//! cleared so far), and an endgame that weighs the score more over the last pieces.

use super::full;
use super::game::{
    orientations, row_transitions as row_transitions_of, Grid, Orientation, Placement, Spawn, FULL_ROW, HEIGHT,
    PIECE_LIMIT, SPAWN_X, WIDTH,
};
use super::record::{Op, Record, MAX_STEPS_PER_PIECE};
use super::search_state::{SearchState, ROOT};
use super::weights::{term_index, Weights, EXTRA_TERMS, SEED_TERMS};
use crate::piece::Piece;
use anyhow::{bail, ensure, Context, Result};
use rayon::prelude::*;
use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};
use std::ops::ControlFlow;

/// The place of `almost_full_rows` among the extra terms: the one the expansion counts from
/// the changed rows alone.
const ALMOST_FULL: usize = term_index("almost_full_rows") - SEED_TERMS;

/// Which placements a piece may take (`--moves` and a tuning experiment's `moves`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MoveSet {
    /// The seed's: rotate at the spawn point, shift along the top row, drop straight down.
    #[default]
    Seed,
    /// Every resting position the game's single steps reach (slides under overhangs,
    /// rotations at depth), plus mid-air locks that clear rows.
    Full,
}

impl MoveSet {
    /// Every move set, in the order a listing shows them.
    pub const ALL: [MoveSet; 2] = [MoveSet::Seed, MoveSet::Full];

    /// The move set of a [`MoveSet::name`].
    pub fn from_name(name: &str) -> Option<MoveSet> {
        MoveSet::ALL.into_iter().find(|moves| moves.name() == name)
    }

    /// The name `--moves` and experiment files use.
    pub fn name(self) -> &'static str {
        match self {
            MoveSet::Seed => "seed",
            MoveSet::Full => "full",
        }
    }
}

// The solver and its weights can be shared across threads.
const _: fn() = || {
    fn is_send_sync<T: Send + Sync>() {}
    is_send_sync::<BeamSearch>();
    is_send_sync::<Weights>();
};

/// Opt-in changes to the seed's search (`etetris solve --lookahead`, `--children-per-parent`,
/// `--lookahead-blend`, `--endgame`, `--second-ply`, `--phase-quota`, `--phase-pool`; an
/// experiment file's `[etetris]` keys of the same names), the field [`Options::refinements`].
/// The default changes nothing: the search stays the seed's, bit for bit. Its serde form
/// (the field names, each 0 if left out) is the one the experiment files and manifests use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Refinements {
    /// 0: off. Otherwise the best-valued `lookahead x beam` new boards (never fewer than the
    /// seed's merge already builds) are ranked for the cut by the value of their best
    /// placement of the next piece (the sequence is known), so a board that sets up a
    /// clear survives the cut that its own value would lose. A board that cannot take the
    /// next piece ranks last.
    pub lookahead: usize,
    /// 0: off. Otherwise the cut keeps, in key order, at most this many boards grown from
    /// the same parent, then fills any places left in key order: a diversity rule, so one
    /// good board cannot fill the beam with its near-copies.
    pub children_per_parent: usize,
    /// 0: off. Otherwise, with the lookahead, the pool is ranked by
    /// `(100 - P)% x lookahead value + P% x the board's own value` (P in 1..=100), so a
    /// board whose own value is poor pays for it even when its next piece fits well.
    pub lookahead_blend: u32,
    /// 0: off. Otherwise, over the last N pieces, the board's value fades against the score
    /// (its weight falls to `remaining / (N + 1)` of itself): near the end a safe board is
    /// worth less than points banked, as the game ends after the last piece whatever the board.
    pub endgame: usize,
    /// 0: off. Otherwise, with the lookahead, each pooled board's best `second_ply`
    /// placements of the next piece are each followed by every placement of the piece
    /// after, and the board ranks by the best value two pieces on: a deeper look at the
    /// known sequence for about `1 + second_ply` times the lookahead's work.
    pub second_ply: usize,
    /// 0: off. Otherwise the cut keeps, in its order, at most this percentage of the beam
    /// from boards of one phase, then fills any places left in its order. After a piece
    /// every board holds the same pieces, so its cell count says how many rows it has
    /// cleared: a phase is a cell count. The key weighs rows cleared against points with
    /// one rate, and left alone the cut lets one phase fill the beam (at beam 3,000, 2,885
    /// of the boards kept after piece 5,000); the quota keeps boards that cleared earlier
    /// or will clear later alive. The pool it chooses from: `phase_pool`.
    pub phase_quota: u32,
    /// With `phase_quota`: the best-valued `phase_pool x beam` new boards (never fewer than
    /// the merge already builds, nor than the lookahead's pool) are the cut's pool;
    /// 0 means [`DEFAULT_PHASE_POOL`].
    pub phase_pool: usize,
}

/// The phase quota's pool when `phase_pool` is 0, in beams.
pub const DEFAULT_PHASE_POOL: usize = 2;

/// The widest lookahead pool, in beams (each pooled board costs a board's expansion).
pub const MAX_LOOKAHEAD: usize = 16;

/// The most placements of the next piece the second ply follows (each costs about one
/// more lookahead).
pub const MAX_SECOND_PLY: usize = 16;

impl Refinements {
    /// Each refinement by its field name, with its value (0: off), in the order of the fields.
    pub fn named(&self) -> [(&'static str, usize); 7] {
        [
            ("lookahead", self.lookahead),
            ("children_per_parent", self.children_per_parent),
            ("lookahead_blend", self.lookahead_blend as usize),
            ("endgame", self.endgame),
            ("second_ply", self.second_ply),
            ("phase_quota", self.phase_quota as usize),
            ("phase_pool", self.phase_pool),
        ]
    }

    /// Refuses what the search cannot do: a lookahead or phase pool above [`MAX_LOOKAHEAD`]
    /// beams, a blend or quota above 100 %, an endgame longer than the game, a second ply
    /// above [`MAX_SECOND_PLY`], or a blend, second ply or phase pool without the lookahead
    /// or quota they change. The
    /// messages name each setting by `name` of its field name (`solve` gives `--second-ply`
    /// for `second_ply`, an experiment file `[etetris] second_ply`).
    pub fn check(&self, name: impl Fn(&str) -> String) -> Result<()> {
        let (lookahead, blend, endgame, second_ply) =
            (name("lookahead"), name("lookahead_blend"), name("endgame"), name("second_ply"));
        let (quota, pool) = (name("phase_quota"), name("phase_pool"));
        ensure!(
            self.lookahead <= MAX_LOOKAHEAD,
            "{lookahead} = {} is more than the limit of {MAX_LOOKAHEAD}",
            self.lookahead
        );
        ensure!(self.lookahead_blend <= 100, "{blend} must be in 0..=100, got {}", self.lookahead_blend);
        ensure!(
            self.lookahead_blend == 0 || self.lookahead > 0,
            "{blend} blends the lookahead's ranking: give {lookahead} too"
        );
        ensure!(self.endgame <= PIECE_LIMIT, "{endgame} must be in 0..={PIECE_LIMIT}, got {}", self.endgame);
        ensure!(
            self.second_ply <= MAX_SECOND_PLY,
            "{second_ply} = {} is more than the limit of {MAX_SECOND_PLY}",
            self.second_ply
        );
        ensure!(
            self.second_ply == 0 || self.lookahead > 0,
            "{second_ply} deepens the lookahead's ranking: give {lookahead} too"
        );
        ensure!(self.phase_quota <= 100, "{quota} must be in 0..=100, got {}", self.phase_quota);
        ensure!(
            self.phase_pool <= MAX_LOOKAHEAD,
            "{pool} = {} is more than the limit of {MAX_LOOKAHEAD}",
            self.phase_pool
        );
        ensure!(self.phase_pool == 0 || self.phase_quota > 0, "{pool} sets the pool of {quota}: give {quota} too");
        Ok(())
    }
}

/// What the solver is asked to do.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Boards kept after each piece (`usize::MAX`: no cut).
    pub beam: usize,
    pub moves: MoveSet,
    pub weights: Weights,
    /// Opt-in changes to the seed's search (the default is the seed's, bit for bit).
    pub refinements: Refinements,
}

impl Options {
    /// The seed's search at this width, move set and weights (no refinements).
    pub fn new(beam: usize, moves: MoveSet, weights: Weights) -> Options {
        Options { beam, moves, weights, refinements: Refinements::default() }
    }
}

/// Reported after each piece.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Pieces placed so far.
    pub pieces: usize,
    /// Distinct boards merged (see [`Solution::distinct_boards`]).
    pub boards: usize,
    /// Placements generated for this piece (before merging).
    pub candidates: usize,
    /// Highest score among the kept boards.
    pub best_score: u32,
}

/// The answer.
#[derive(Clone, Debug)]
pub struct Solution {
    /// The score the solver counted (the game's rules: the 10,000th piece scores nothing).
    pub score: u32,
    /// The chosen placement of every piece placed.
    pub placements: Vec<Placement>,
    /// Distinct boards after each piece, before the cut: exact when the beam cuts
    /// nothing; otherwise those among the best-valued placements (at least the beam).
    pub distinct_boards: Vec<usize>,
    /// The kept boards and their scores after the last piece.
    pub final_boards: Vec<(Grid, u32)>,
}

/// A better way through part of a finished game, found by [`BeamSearch::find_detour`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(in crate::etetris) struct Detour {
    /// Points gained over the game's own way.
    pub gain: u32,
    /// The placements from the search's start, one per piece, up to the board it rejoins
    /// the game on (or the end of the game).
    pub placements: Vec<Placement>,
}

/// A board [`BeamSearch::find_bridge`] may end on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(in crate::etetris) struct Landing {
    /// A way onto it counts if it scores more than this from the search's start.
    pub needs: u32,
    /// The points the game goes on to score from it.
    pub then: u64,
}

/// Where a way [`BeamSearch::find_bridge`] found starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// On the search's start board.
    Search,
    /// On a board carried into the beam after `piece` pieces, the `index`th of
    /// [`BridgeTargets::carried`] then.
    Carried { piece: usize, index: usize },
}

/// A way [`BeamSearch::find_bridge`] found: where it starts, then one placement per piece
/// from there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Branch {
    pub start: Start,
    pub placements: Vec<Placement>,
}

/// A way [`BeamSearch::find_bridge`] found onto a landing, with what it is worth.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(in crate::etetris) struct Landed {
    /// Its points and the landing's [`then`](Landing::then).
    pub total: u64,
    /// Its points over what the landing [`needs`](Landing::needs).
    pub gain: u32,
    pub branch: Branch,
}

/// What [`BeamSearch::find_bridge`] looks for after each piece of its window (one entry
/// per piece in each, `carried` possibly shorter).
#[derive(Clone, Copy, Debug)]
pub(in crate::etetris) struct BridgeTargets<'a> {
    /// The boards the guide pulls towards (the nearest of them).
    pub aims: &'a [Vec<Grid>],
    /// The boards worth landing on, each with the points a way onto it needs.
    pub landings: &'a [HashMap<Grid, Landing>],
    /// Boards carried into the beam, sorted by board, each with its points from the
    /// search's start (empty: none).
    pub carried: &'a [Vec<(Grid, u32)>],
}

/// Adds `guide` times the cells each merged board differs from the nearest of `targets` to
/// its key (and to its lookahead rank with `lookahead`): keeps the beam near them.
fn pull_towards(merged: &mut [Merged], targets: &[Grid], guide: f64, lookahead: bool) {
    if guide == 0.0 || targets.is_empty() {
        return;
    }
    for m in merged.iter_mut() {
        let cells = targets.iter().map(|target| m.grid.distance(target)).min().unwrap_or(0);
        let pull = guide * cells as f64;
        m.value += pull;
        if lookahead {
            m.lookahead += pull;
        }
    }
}

/// Where a search's pieces are in the game: the first one's index, and the game's length
/// (the endgame counts the pieces left to it).
#[derive(Clone, Copy)]
struct Span {
    first: usize,
    game_pieces: usize,
}

/// Sees a step's merged boards before the cut (with the step's index in the search, the
/// beam they grew from and its paths), and may change their keys.
type MergedHook<'a> = dyn FnMut(usize, &mut [Merged], &[Entry], &Paths) + 'a;
/// Sees the progress after each piece, with a function that returns the search's state
/// then, and says whether to go on ([`BeamSearch::solve_resumable`]).
pub type StepCallback<'a> = dyn FnMut(&Progress, &dyn Fn() -> SearchState) -> ControlFlow<()> + 'a;
/// Sees the beam after each step's cut (with the step's index in the search) and its
/// paths, and may add boards to it ([`BeamSearch::find_bridge`]'s carried boards).
type CutHook<'a> = dyn FnMut(usize, &mut Vec<Entry>, &mut Paths) + 'a;
/// [`MergedHook`] within one step.
type StepHook<'a> = dyn FnMut(&mut [Merged], &[Entry], &Paths) + 'a;

/// The seed's move generator. For each of the shape's distinct orientations in turn
/// (rotating at the spawn point): stop if the piece cannot drop from column 4 without
/// sticking out of the top; sweep left from column 4 and right from column 5, stopping a
/// sweep at the first column where it would stick out; emit the straight drop when its
/// top cell rests on row 1 or lower. `surface` is [`Grid::surface`] of `grid`.
#[inline]
pub fn seed_placements(surface: &[i8; WIDTH], spawn: Spawn, mut emit: impl FnMut(Placement)) {
    let table = orientations(spawn.shape);
    for turns in 0..spawn.distinct_states() {
        let state = (spawn.state + turns) % 4;
        let orientation = &table[state];
        let top = orientation.top as i32;
        // The pivot row where a straight drop stops: the rows cannot be passed through
        // from above because no cell of a piece at the spawn row lies below an empty
        // column top (the top row is always empty).
        let drop = |x: i32| -> i32 {
            let mut y = i32::MAX;
            for (i, &bottom) in orientation.column_bottom.iter().enumerate() {
                if bottom != i8::MIN {
                    y = y.min(surface[(x + i as i32 - 2) as usize] as i32 - 1 - bottom as i32);
                }
            }
            y
        };
        if drop(SPAWN_X) + top < 0 {
            break;
        }
        let mut sweep = |x: i32| -> bool {
            let y = drop(x);
            if y + top < 0 {
                return false;
            }
            if y + top > 0 {
                emit(Placement { x: x as i8, y: y as i8, state: state as u8 });
            }
            true
        };
        for x in (-orientation.left as i32..=SPAWN_X).rev() {
            if !sweep(x) {
                break;
            }
        }
        for x in SPAWN_X + 1..WIDTH as i32 - orientation.right as i32 {
            if !sweep(x) {
                break;
            }
        }
    }
}

/// The steps of a placement: the seed's `C o, L/R n, D y`, or the shortest path for the
/// full move set.
pub fn placement_steps(grid: &Grid, spawn: Spawn, placement: Placement, moves: MoveSet) -> Result<Vec<Op>> {
    let steps = match moves {
        MoveSet::Seed => {
            let turns = (placement.state as usize + 4 - spawn.state) % 4;
            let shift = placement.x as i32 - SPAWN_X;
            let mut steps = Vec::new();
            if turns > 0 {
                steps.push(Op::Rotate(turns as u32));
            }
            match shift.cmp(&0) {
                Ordering::Less => steps.push(Op::Left(-shift as u32)),
                Ordering::Greater => steps.push(Op::Right(shift as u32)),
                Ordering::Equal => {}
            }
            steps.push(Op::Down(placement.y as u32));
            steps
        }
        MoveSet::Full => full::shortest_steps(grid, spawn, placement)
            .with_context(|| format!("placement {placement:?} of {spawn} is unreachable"))?,
    };
    let total: u32 = steps.iter().map(|op| op.steps()).sum();
    ensure!((1..=MAX_STEPS_PER_PIECE).contains(&total), "placement {placement:?} of {spawn} takes {total} steps");
    Ok(steps)
}

/// The record of a solution: replays `placements` from `start` and writes each piece's
/// steps.
pub fn write_record(start: Grid, spawns: &[Spawn], placements: &[Placement], moves: MoveSet) -> Result<Record> {
    let mut grid = start;
    let mut record = Record::default();
    for (i, (&spawn, &placement)) in spawns.iter().zip(placements).enumerate() {
        // A placement from outside the search (a checkpoint's path) may not fit the board.
        let fits = |orientation: &Orientation| grid.fits(orientation, placement.x as i32, placement.y as i32);
        let orientation = orientations(spawn.shape).get(placement.state as usize).filter(|o| fits(o));
        let Some(orientation) = orientation else {
            bail!("piece {}: placement {placement:?} of {spawn} does not fit the board", i + 1);
        };
        let steps = placement_steps(&grid, spawn, placement, moves).with_context(|| format!("piece {}", i + 1))?;
        record.push_piece(&steps);
        grid.lock(orientation, placement.x as i32, placement.y as i32);
    }
    Ok(record)
}

/// Most chunks the beam is cut into for expansion (fixed: the result must not depend on
/// the thread count, and the output order is the chunk order).
const CHUNKS: usize = 64;

#[derive(Clone, Copy)]
struct Entry {
    grid: Grid,
    score: u32,
    /// This board's node in [`Paths`].
    node: u32,
}

/// A placement of one kept board, scored without building the new board.
#[derive(Clone, Copy)]
struct Scored {
    /// The beam key of the board it leads to (0 when there is no cut).
    value: f64,
    score: u32,
    /// Index of the parent in the beam.
    parent: u32,
    placement: Placement,
}

/// A distinct new board, with its best way in.
#[derive(Clone, Copy)]
struct Merged {
    grid: Grid,
    value: f64,
    /// The lookahead's value, which ranks before `value` in the cut (0 without lookahead).
    lookahead: f64,
    score: u32,
    parent: u32,
    placement: Placement,
}

impl Merged {
    /// The placements from the search's start to this board: its parent's way in `paths`,
    /// then its own placement.
    fn path(&self, beam: &[Entry], paths: &Paths) -> Vec<Placement> {
        let mut placements = paths.path(beam[self.parent as usize].node);
        placements.push(self.placement);
        placements
    }

    /// The cut's order: the lookahead value (all 0 without it), the value, then the board.
    fn cut_order(a: &Merged, b: &Merged) -> Ordering {
        a.lookahead.total_cmp(&b.lookahead).then_with(|| a.value.total_cmp(&b.value)).then_with(|| a.grid.cmp(&b.grid))
    }

    /// Merge rule: the higher score wins; among equal scores the lower parent, then the
    /// lower placement (a fixed rule, so the record does not depend on scheduling).
    fn beats(&self, other: &Merged) -> bool {
        (self.score, other.parent, other.placement) > (other.score, self.parent, self.placement)
    }
}

/// The placements of the kept boards as a tree (each node points at its parent's),
/// compacted now and then so that only the paths of live boards stay.
#[derive(Default)]
struct Paths {
    parent: Vec<u32>,
    placement: Vec<Placement>,
    live_after_compaction: usize,
}

impl Paths {
    fn push(&mut self, parent: u32, placement: Placement) -> u32 {
        self.parent.push(parent);
        self.placement.push(placement);
        (self.parent.len() - 1) as u32
    }

    /// A way that starts on a board carried into the beam after `piece` pieces, the
    /// `index`th of them: two nodes holding the marks [`Branch::of_path`] reads (only
    /// [`BeamSearch::find_bridge`] carries boards, and only its paths are read so).
    fn carry(&mut self, piece: usize, index: usize) -> u32 {
        let node = self.push(ROOT, carried_mark(piece));
        self.push(node, carried_mark(index))
    }

    /// Nodes below which the tree is never compacted.
    const COMPACTION_FLOOR: usize = 1 << 22;

    fn compact_if_large(&mut self, beam: &mut [Entry]) {
        if self.parent.len() >= Self::COMPACTION_FLOOR.max(2 * self.live_after_compaction) {
            self.compact(beam);
        }
    }

    /// Keeps only the nodes on the paths of `beam`, renumbered in their order.
    fn compact(&mut self, beam: &mut [Entry]) {
        let (parent, placement, new_index) = self.live(beam);
        for entry in beam.iter_mut() {
            if entry.node != ROOT {
                entry.node = new_index[entry.node as usize];
            }
        }
        self.live_after_compaction = parent.len();
        self.parent = parent;
        self.placement = placement;
    }

    /// The nodes on the paths of `beam`, renumbered in their order (so a parent stays
    /// before its children): their parents and placements, and each old node's new number
    /// ([`ROOT`] for a node dropped).
    fn live(&self, beam: &[Entry]) -> (Vec<u32>, Vec<Placement>, Vec<u32>) {
        let mut new_index = vec![ROOT; self.parent.len()];
        const MARKED: u32 = ROOT - 1;
        for entry in beam.iter() {
            let mut node = entry.node;
            while node != ROOT && new_index[node as usize] == ROOT {
                new_index[node as usize] = MARKED;
                node = self.parent[node as usize];
            }
        }
        let mut kept = 0u32;
        for slot in new_index.iter_mut() {
            if *slot == MARKED {
                *slot = kept;
                kept += 1;
            }
        }
        let mut parent = Vec::with_capacity(kept as usize);
        let mut placement = Vec::with_capacity(kept as usize);
        for (old, &new) in new_index.iter().enumerate() {
            if new != ROOT {
                let up = self.parent[old];
                parent.push(if up == ROOT { ROOT } else { new_index[up as usize] });
                placement.push(self.placement[old]);
            }
        }
        (parent, placement, new_index)
    }

    /// The search's state after `pieces` pieces, with `beam` kept (see [`SearchState`]).
    fn state(&self, pieces: usize, beam: &[Entry], distinct_boards: &[usize]) -> SearchState {
        let (parents, placements, new_index) = self.live(beam);
        let node = |node: u32| if node == ROOT { ROOT } else { new_index[node as usize] };
        SearchState {
            pieces,
            boards: beam.iter().map(|e| (e.grid, e.score, node(e.node))).collect(),
            parents,
            placements,
            distinct_boards: distinct_boards.to_vec(),
        }
    }

    fn path(&self, mut node: u32) -> Vec<Placement> {
        let mut path = Vec::new();
        while node != ROOT {
            path.push(self.placement[node as usize]);
            node = self.parent[node as usize];
        }
        path.reverse();
        path
    }
}

/// A number below 2^16 as a placement no piece takes (`x` is [`i8::MIN`]): the tree of
/// paths marks a way from a carried board by two of these at its root ([`Paths::carry`]).
fn carried_mark(number: usize) -> Placement {
    assert!(number < 1 << 16, "carried marks hold numbers below 2^16, got {number}");
    Placement { x: i8::MIN, y: (number >> 8) as u8 as i8, state: (number & 0xff) as u8 }
}

impl Branch {
    /// The way a path of [`Paths`] spells: from a carried board when it starts with two
    /// [`carried_mark`]s, else from the search's start.
    fn of_path(mut path: Vec<Placement>) -> Branch {
        let read =
            |mark: &Placement| (mark.x == i8::MIN).then(|| usize::from(mark.y as u8) << 8 | usize::from(mark.state));
        match path.get(..2).map(|marks| (read(&marks[0]), read(&marks[1]))) {
            Some((Some(piece), Some(index))) => {
                path.drain(..2);
                Branch { start: Start::Carried { piece, index }, placements: path }
            }
            _ => Branch { start: Start::Search, placements: path },
        }
    }
}

/// The beam search with its reusable buffers.
///
/// A step scores every placement of every kept board *incrementally* (features of the
/// new board from the parent's and the at most four changed rows; only a line clear
/// builds the board), keeps the `m` best-valued placements (plus every tie with the
/// m-th), and only then builds, hashes and merges those boards. This is exact: a board's
/// best-scored duplicate has the smallest value of its duplicates, so it is among the
/// kept placements whenever any duplicate is; and when the merged boards number at least
/// `beam`, they contain every board the full merge-then-cut would keep (otherwise `m`
/// doubles and the step is redone).
pub struct BeamSearch {
    options: Options,
    /// The weights of the current step: the options' own, except in the endgame.
    weights: Weights,
    /// The next piece's placements of each merged board and, for the second ply, the
    /// placements of the piece after, per chunk (lookahead only).
    lookahead_chunks: Vec<(Vec<Scored>, Vec<Scored>)>,
    /// The lookahead value of each merged board.
    lookahead_values: Vec<f64>,
    /// Kept boards per parent (children_per_parent only).
    children: Vec<u32>,
    chunks: Vec<Vec<Scored>>,
    scored: Vec<Scored>,
    merged: Vec<Merged>,
    slots: Vec<u32>,
    paths: Paths,
}

impl BeamSearch {
    pub fn new(options: Options) -> BeamSearch {
        assert!(options.beam >= 1, "the beam keeps at least one board");
        BeamSearch {
            options,
            weights: options.weights,
            lookahead_chunks: (0..CHUNKS).map(|_| (Vec::new(), Vec::new())).collect(),
            lookahead_values: Vec::new(),
            children: Vec::new(),
            chunks: (0..CHUNKS).map(|_| Vec::new()).collect(),
            scored: Vec::new(),
            merged: Vec::new(),
            slots: Vec::new(),
            paths: Paths::default(),
        }
    }

    /// Places `spawns` in turn from `start`. Piece `i` of the list is the game's piece
    /// `i`, so the 10,000th scores nothing. Stops early if no board can take a piece.
    pub fn solve(&mut self, start: Grid, spawns: &[Spawn], on_step: &mut dyn FnMut(&Progress)) -> Solution {
        let mut go_on = |progress: &Progress, _: &dyn Fn() -> SearchState| {
            on_step(progress);
            ControlFlow::Continue(())
        };
        match self.solve_resumable(start, spawns, None, &mut go_on) {
            Ok(Some(solution)) => solution,
            _ => unreachable!("a search that starts afresh and always goes on finishes"),
        }
    }

    /// [`BeamSearch::solve`] that can stop and go on. It starts from `resume`, the state
    /// a search with the same options, start and pieces saved (see [`SearchState`]), or
    /// afresh. After each piece, `on_step` sees the progress and a function that returns
    /// the search's state then (costing a walk of the paths: call it only to save it), and
    /// says whether to go on. Returns `None` when `on_step` stopped the search; a search
    /// resumed from any state it saved ends as one never stopped. Fails only when
    /// `resume` placed more pieces than `spawns` holds.
    pub fn solve_resumable(
        &mut self,
        start: Grid,
        spawns: &[Spawn],
        resume: Option<SearchState>,
        on_step: &mut StepCallback,
    ) -> Result<Option<Solution>> {
        if let Some(state) = &resume {
            ensure!(
                state.pieces <= spawns.len(),
                "the search state has placed {} pieces, more than the {} to place",
                state.pieces,
                spawns.len()
            );
        }
        let span = Span { first: 0, game_pieces: spawns.len() };
        Ok(self.run(start, spawns, spawns.len(), span, resume, on_step, &mut |_, _, _, _| {}, &mut |_, _, _| {}))
    }

    /// The second stage of a two-stage search: searches the window of the game's pieces
    /// from `first` on (of `game_pieces` in all), one piece per target, from `start`, a
    /// board of a finished game, for a better way to one of that game's later boards.
    /// `spawns` are the game's pieces from `first` to its end (those past the window are
    /// read only by the [`Overflow`](super::weights::Overflow) term's look for the next I).
    /// `targets[i]` is the game's board after piece `first + i` and the points it scored
    /// since `start`. Returns the way that gains the most (the earliest of equal gains),
    /// if any gains: since it ends on the game's own board, the rest of the game stays as
    /// it was and the gain is the game's. When the window reaches the end of the game, any
    /// final board will do.
    ///
    /// `guide` (0: off) adds `guide` times the cells a board differs from the game's board
    /// after the same piece to the cut's key, so the beam stays near the game, where the
    /// ways back to it are.
    pub(in crate::etetris) fn find_detour(
        &mut self,
        start: Grid,
        spawns: &[Spawn],
        (first, game_pieces): (usize, usize),
        targets: &[(Grid, u32)],
        guide: f64,
    ) -> Option<Detour> {
        assert!(spawns.len() >= targets.len(), "one target per piece of the window");
        let window = targets.len();
        let mut best: Option<Detour> = None;
        let mut consider = |detour: Detour| {
            if best.as_ref().is_none_or(|b| detour.gain > b.gain) {
                best = Some(detour);
            }
        };
        let span = Span { first, game_pieces };
        let ranks_by_lookahead = self.options.refinements.lookahead > 0;
        let free_end = first + window == game_pieces;
        self.run_window(
            start,
            spawns,
            (window, span),
            &mut |step, merged, beam, paths| {
                let (target, points) = targets[step];
                let last = step + 1 == window;
                pull_towards(merged, std::slice::from_ref(&target), guide, ranks_by_lookahead && !last);
                let reached = if free_end && last {
                    // The game ends here: the best-scored board will do, whatever it is.
                    merged.iter().max_by(|a, b| a.score.cmp(&b.score).then_with(|| b.grid.cmp(&a.grid)))
                } else {
                    merged.iter().find(|m| m.grid == target)
                };
                if let Some(m) = reached.filter(|m| m.score > points) {
                    consider(Detour { gain: m.score - points, placements: m.path(beam, paths) });
                }
            },
            &mut |_, _, _| {},
        );
        best
    }

    /// A bridge between games: searches the pieces from `first` on (of `game_pieces`), one
    /// per entry of `targets`' landings, from `start` for a way onto any board of
    /// `targets.landings[i]` after piece `first + i` that scores more than that landing
    /// [`needs`](Landing::needs), and returns the one leading to the most points, its own
    /// and the landing's [`then`](Landing::then) (the earliest among equals), with that
    /// total; with `keep` above 1, the ways of the `keep` largest totals, one way each (the
    /// earliest), the largest first (a way kept, followed on along a record, reaches the
    /// same total and is not kept again). `guide` (0: off) pulls the beam towards the
    /// nearest board of `targets.aims[i]` as [`BeamSearch::find_detour`]'s towards its
    /// game. `spawns` as there.
    ///
    /// `targets.carried[i]` (sorted by board; empty: none) are boards carried into the
    /// beam after piece `first + i`, each with its points from `start`'s: one the cut left
    /// out joins the beam, one kept with fewer points takes the carried points. A way from
    /// a carried board says so in its [`Start`].
    pub(in crate::etetris) fn find_bridge(
        &mut self,
        start: Grid,
        spawns: &[Spawn],
        (first, game_pieces): (usize, usize),
        targets: &BridgeTargets,
        guide: f64,
        keep: usize,
    ) -> Vec<Landed> {
        let BridgeTargets { aims, landings, carried } = *targets;
        assert!(spawns.len() >= landings.len() && aims.len() == landings.len(), "one aim and landing set per piece");
        let window = landings.len();
        // The ways found, by their totals (the earliest of equal totals).
        let mut found: BTreeMap<u64, (u32, Vec<Placement>)> = BTreeMap::new();
        let keep = keep.max(1);
        let span = Span { first, game_pieces };
        let ranks_by_lookahead = self.options.refinements.lookahead > 0;
        let mut present: Vec<bool> = Vec::new();
        self.run_window(
            start,
            spawns,
            (window, span),
            &mut |step, merged, beam, paths| {
                pull_towards(merged, &aims[step], guide, ranks_by_lookahead && step + 1 < window);
                let mut here: Option<(u64, usize, u32)> = None;
                for (index, m) in merged.iter().enumerate() {
                    let Some(landing) = landings[step].get(&m.grid).filter(|landing| m.score > landing.needs) else {
                        continue;
                    };
                    let total = u64::from(m.score) + landing.then;
                    if here.is_none_or(|(most, _, _)| total > most) {
                        here = Some((total, index, m.score - landing.needs));
                    }
                }
                let worth = |total: u64| {
                    !found.contains_key(&total)
                        && (found.len() < keep || found.first_key_value().is_some_and(|(least, _)| total > *least))
                };
                if let Some((total, index, gain)) = here.filter(|&(total, _, _)| worth(total)) {
                    found.insert(total, (gain, merged[index].path(beam, paths)));
                    if found.len() > keep {
                        found.pop_first();
                    }
                }
            },
            &mut |step, beam, paths| {
                let Some(boards) = carried.get(step).filter(|boards| !boards.is_empty()) else {
                    return;
                };
                present.clear();
                present.resize(boards.len(), false);
                let after = first + step + 1;
                for entry in beam.iter_mut() {
                    let Ok(index) = boards.binary_search_by(|(board, _)| board.cmp(&entry.grid)) else {
                        continue;
                    };
                    present[index] = true;
                    if boards[index].1 > entry.score {
                        *entry = Entry { grid: entry.grid, score: boards[index].1, node: paths.carry(after, index) };
                    }
                }
                for (index, &(grid, score)) in boards.iter().enumerate() {
                    if !present[index] {
                        beam.push(Entry { grid, score, node: paths.carry(after, index) });
                    }
                }
            },
        );
        found
            .into_iter()
            .rev()
            .map(|(total, (gain, path))| Landed { total, gain, branch: Branch::of_path(path) })
            .collect()
    }

    /// [`BeamSearch::run`] over `window` pieces from `start`, from the beginning and to the
    /// end (the second stages' searches: [`BeamSearch::find_detour`] and
    /// [`BeamSearch::find_bridge`]).
    fn run_window(
        &mut self,
        start: Grid,
        spawns: &[Spawn],
        (window, span): (usize, Span),
        on_merged: &mut MergedHook,
        on_cut: &mut CutHook,
    ) {
        let mut go_on = |_: &Progress, _: &dyn Fn() -> SearchState| ControlFlow::Continue(());
        self.run(start, spawns, window, span, None, &mut go_on, on_merged, on_cut);
    }

    /// The search behind [`BeamSearch::solve_resumable`] and [`BeamSearch::find_detour`]:
    /// places the first `count` of `spawns` (the rest are read only by the overflow term),
    /// from `resume` if given. `on_merged` sees each step's merged boards (with the beam
    /// they grew from and its paths) before the cut, and may change their keys. `None`
    /// when `on_step` stopped it.
    #[allow(clippy::too_many_arguments)]
    fn run(
        &mut self,
        start: Grid,
        spawns: &[Spawn],
        count: usize,
        span: Span,
        resume: Option<SearchState>,
        on_step: &mut StepCallback,
        on_merged: &mut MergedHook,
        on_cut: &mut CutHook,
    ) -> Option<Solution> {
        let (first, mut beam, mut distinct_boards) = match resume {
            Some(state) => {
                self.paths = Paths {
                    live_after_compaction: state.parents.len(),
                    parent: state.parents,
                    placement: state.placements,
                };
                let beam = state.boards.iter().map(|&(grid, score, node)| Entry { grid, score, node }).collect();
                (state.pieces, beam, state.distinct_boards)
            }
            None => {
                self.paths = Paths::default();
                (0, vec![Entry { grid: start, score: 0, node: ROOT }], Vec::with_capacity(count))
            }
        };
        let mut next = Vec::new();
        let (spawns, known) = (&spawns[..count], spawns);
        for (i, &spawn) in spawns.iter().enumerate().skip(first) {
            let piece = span.first + i;
            let following = spawns.get(i + 1).map(|&s| (s, piece + 2 < PIECE_LIMIT));
            let after_following = spawns.get(i + 2).map(|&s| (s, piece + 3 < PIECE_LIMIT));
            self.weights = self.step_weights(span.game_pieces.saturating_sub(piece), &known[i + 1..]);
            let (boards, candidates) = self.step(
                &beam,
                spawn,
                piece + 1 < PIECE_LIMIT,
                [following, after_following],
                &mut next,
                &mut |merged, beam, paths| on_merged(i, merged, beam, paths),
            );
            if next.is_empty() {
                break;
            }
            distinct_boards.push(boards);
            std::mem::swap(&mut beam, &mut next);
            on_cut(i, &mut beam, &mut self.paths);
            self.paths.compact_if_large(&mut beam);
            let best_score = beam.iter().map(|e| e.score).max().unwrap_or(0);
            let progress = Progress { pieces: i + 1, boards, candidates, best_score };
            if on_step(&progress, &|| self.paths.state(i + 1, &beam, &distinct_boards)).is_break() {
                return None;
            }
        }
        let best = beam
            .iter()
            .max_by(|a, b| a.score.cmp(&b.score).then_with(|| b.grid.cmp(&a.grid)))
            .copied()
            .unwrap_or(Entry { grid: start, score: 0, node: ROOT });
        Some(Solution {
            score: best.score,
            placements: self.paths.path(best.node),
            distinct_boards,
            final_boards: beam.iter().map(|e| (e.grid, e.score)).collect(),
        })
    }

    /// The weights for a step with `remaining` pieces left (this one included) and `later`
    /// pieces known after it: the options' own, with the overflow term's limit set from
    /// the next I among `later` (when the term is on), and in the endgame a smaller score
    /// divisor, which weighs the board `remaining / (endgame + 1)` times as much against
    /// the score as before.
    fn step_weights(&self, remaining: usize, later: &[Spawn]) -> Weights {
        let endgame = self.options.refinements.endgame;
        let mut weights = self.options.weights;
        if endgame > 0 && remaining <= endgame {
            weights.score_divisor *= remaining as f64 / (endgame + 1) as f64;
        }
        if weights.overflow.weight != 0.0 {
            weights.overflow.limit = weights.overflow.limit_for(pieces_to_next_i(later));
        }
        weights
    }

    /// One piece: score every placement, keep the best-valued, build and merge their
    /// boards, cut to the beam. `following` is the next piece and whether it scores (for
    /// the lookahead), then the piece after it (for its second ply). Returns the numbers
    /// of merged boards and of placements.
    fn step(
        &mut self,
        beam: &[Entry],
        spawn: Spawn,
        scores: bool,
        [following, after_following]: [Option<(Spawn, bool)>; 2],
        next: &mut Vec<Entry>,
        on_merged: &mut StepHook,
    ) -> (usize, usize) {
        let Options { beam: width, moves, .. } = self.options;
        let weights = self.weights;
        let cut = width != usize::MAX;
        let chunk_len = beam.len().div_ceil(CHUNKS).max(1);
        self.chunks.par_iter_mut().enumerate().for_each(|(chunk, out)| {
            out.clear();
            let start = (chunk * chunk_len).min(beam.len());
            let end = (start + chunk_len).min(beam.len());
            for (offset, entry) in beam[start..end].iter().enumerate() {
                score_placements(entry, (start + offset) as u32, spawn, moves, scores, cut.then_some(&weights), out);
            }
        });
        self.scored.clear();
        for chunk in &self.chunks {
            self.scored.extend_from_slice(chunk);
        }
        let candidates = self.scored.len();

        // How many placements to build: a little more than the beam, to absorb duplicates.
        let mut wanted = if cut { width.saturating_add(width / 8 + 16).min(candidates) } else { candidates };
        let lookahead = cut && self.options.refinements.lookahead > 0 && following.is_some();
        if lookahead {
            wanted = wanted.max(width.saturating_mul(self.options.refinements.lookahead)).min(candidates);
        }
        let phase_quota = cut && self.options.refinements.phase_quota > 0;
        if phase_quota {
            let pool = match self.options.refinements.phase_pool {
                0 => DEFAULT_PHASE_POOL,
                pool => pool,
            };
            wanted = wanted.max(width.saturating_mul(pool)).min(candidates);
        }
        loop {
            let taken = if wanted < candidates { self.best_valued(wanted) } else { candidates };
            self.merge(beam, spawn, taken);
            if self.merged.len() >= width || taken == candidates {
                break;
            }
            wanted = (2 * wanted).min(candidates);
        }
        let boards = self.merged.len();
        if boards > width && lookahead {
            if let Some(following) = following {
                self.rank_by_lookahead(following, after_following);
            }
        }
        on_merged(&mut self.merged, beam, &self.paths);
        if boards > width && (self.options.refinements.children_per_parent > 0 || phase_quota) {
            self.cut_with_limits(beam.len(), width);
        } else if boards > width {
            self.merged.select_nth_unstable_by(width - 1, Merged::cut_order);
            self.merged.truncate(width);
        }
        next.clear();
        for m in &self.merged {
            let node = self.paths.push(beam[m.parent as usize].node, m.placement);
            next.push(Entry { grid: m.grid, score: m.score, node });
        }
        (boards, candidates)
    }

    /// Sets each merged board's lookahead value, the smallest value among its placements
    /// of `following` (infinite when it has none), which the cut ranks before the board's
    /// own value: the lookahead refinement. With the second ply, the smallest value among
    /// the placements of `after_following` on the boards of its best placements instead.
    /// The search's own weights and move set judge both pieces. Each piece comes with
    /// whether it scores.
    fn rank_by_lookahead(&mut self, (following, scores): (Spawn, bool), after_following: Option<(Spawn, bool)>) {
        let moves = self.options.moves;
        let weights = self.weights;
        let second_ply = if after_following.is_some() { self.options.refinements.second_ply } else { 0 };
        let merged = &self.merged;
        let chunk_len = merged.len().div_ceil(CHUNKS).max(1);
        self.lookahead_values.clear();
        self.lookahead_values.resize(merged.len(), f64::INFINITY);
        self.lookahead_values.par_chunks_mut(chunk_len).zip(self.lookahead_chunks.par_iter_mut()).enumerate().for_each(
            |(chunk, (values, (out, deeper)))| {
                for (offset, value) in values.iter_mut().enumerate() {
                    let m = &merged[chunk * chunk_len + offset];
                    let entry = Entry { grid: m.grid, score: m.score, node: ROOT };
                    out.clear();
                    score_placements(&entry, 0, following, moves, scores, Some(&weights), out);
                    *value = match after_following {
                        Some((after, after_scores)) if second_ply > 0 && !out.is_empty() => {
                            let branches = second_ply.min(out.len());
                            out.select_nth_unstable_by(branches - 1, |a, b| {
                                a.value.total_cmp(&b.value).then_with(|| a.placement.cmp(&b.placement))
                            });
                            let table = orientations(following.shape);
                            let mut best = f64::INFINITY;
                            for s in &out[..branches] {
                                let mut grid = m.grid;
                                grid.lock(
                                    &table[s.placement.state as usize],
                                    s.placement.x as i32,
                                    s.placement.y as i32,
                                );
                                deeper.clear();
                                let entry = Entry { grid, score: s.score, node: ROOT };
                                score_placements(&entry, 0, after, moves, after_scores, Some(&weights), deeper);
                                best = deeper.iter().map(|s| s.value).fold(best, f64::min);
                            }
                            best
                        }
                        _ => out.iter().map(|s| s.value).fold(f64::INFINITY, f64::min),
                    };
                }
            },
        );
        let blend = self.options.refinements.lookahead_blend.min(100) as f64 / 100.0;
        for (m, &value) in self.merged.iter_mut().zip(&self.lookahead_values) {
            m.lookahead =
                if blend > 0.0 && value.is_finite() { (1.0 - blend) * value + blend * m.value } else { value };
        }
    }

    /// The cut with at most `children_per_parent` boards from one parent and at most
    /// `phase_quota` % of the beam from one phase (each limit when set), in the cut's
    /// order, then the best of the rest to fill the beam.
    fn cut_with_limits(&mut self, parents: usize, width: usize) {
        let refinements = self.options.refinements;
        let per_parent = if refinements.children_per_parent > 0 { refinements.children_per_parent } else { usize::MAX };
        let per_phase = if refinements.phase_quota > 0 {
            (width * refinements.phase_quota as usize / 100).max(1)
        } else {
            usize::MAX
        };
        self.merged.sort_unstable_by(Merged::cut_order);
        self.children.clear();
        self.children.resize(parents, 0);
        let mut phases = [0u32; WIDTH * HEIGHT + 1];
        let mut kept = 0;
        for i in 0..self.merged.len() {
            let parent = self.merged[i].parent as usize;
            let phase = self.merged[i].grid.cells() as usize;
            if (self.children[parent] as usize) < per_parent && (phases[phase] as usize) < per_phase {
                self.children[parent] += 1;
                phases[phase] += 1;
                self.merged.swap(kept, i);
                kept += 1;
                if kept == width {
                    break;
                }
            }
        }
        if kept < width {
            // The skipped boards are still in key order only among themselves after the
            // swaps, so sort them again before filling.
            self.merged[kept..].sort_unstable_by(Merged::cut_order);
        }
        self.merged.truncate(width);
    }

    /// Moves the `wanted` smallest values, and every value tied with the largest of them,
    /// to the front of `scored`; returns their number.
    fn best_valued(&mut self, wanted: usize) -> usize {
        let scored = &mut self.scored;
        scored.select_nth_unstable_by(wanted - 1, |a, b| a.value.total_cmp(&b.value));
        let threshold = scored[wanted - 1].value;
        let mut end = wanted;
        for i in wanted..scored.len() {
            if scored[i].value.total_cmp(&threshold) == Ordering::Equal {
                scored.swap(i, end);
                end += 1;
            }
        }
        end
    }

    /// Builds the boards of `scored[..taken]` and merges equal ones into `merged`.
    fn merge(&mut self, beam: &[Entry], spawn: Spawn, taken: usize) {
        let capacity = (2 * taken).next_power_of_two().max(16);
        let mask = capacity - 1;
        self.slots.clear();
        self.slots.resize(capacity, u32::MAX);
        self.merged.clear();
        let table = orientations(spawn.shape);
        for s in &self.scored[..taken] {
            let p = s.placement;
            let mut grid = beam[s.parent as usize].grid;
            grid.lock(&table[p.state as usize], p.x as i32, p.y as i32);
            let candidate =
                Merged { grid, value: s.value, lookahead: 0.0, score: s.score, parent: s.parent, placement: p };
            let mut slot = grid.hash64() as usize & mask;
            loop {
                let index = self.slots[slot];
                if index == u32::MAX {
                    self.slots[slot] = self.merged.len() as u32;
                    self.merged.push(candidate);
                    break;
                }
                let held = &mut self.merged[index as usize];
                if held.grid == grid {
                    if candidate.beats(held) {
                        *held = candidate;
                    }
                    break;
                }
                slot = (slot + 1) & mask;
            }
        }
    }
}

/// How many pieces on the first I piece of `later` comes (1: the first of them), if any.
fn pieces_to_next_i(later: &[Spawn]) -> Option<usize> {
    later.iter().position(|s| s.piece() == Piece::I).map(|index| index + 1)
}

/// Scores every placement of `spawn` on the entry's board into `out`: the new score and,
/// when `weights` is given, the value of the new board, computed from the parent's
/// features and the changed rows (a line clear builds the board instead).
#[inline]
fn score_placements(
    entry: &Entry,
    parent: u32,
    spawn: Spawn,
    moves: MoveSet,
    scores: bool,
    weights: Option<&Weights>,
    out: &mut Vec<Scored>,
) {
    let grid = entry.grid;
    let mut rows = [FULL_ROW; HEIGHT + 1]; // with the floor below the last row
    rows[..HEIGHT].copy_from_slice(&grid.rows());
    let surface = grid.surface();
    let base = grid.features();
    let score_weight = weights.map_or(0.0, Weights::score_weight);
    let extra = weights.is_some_and(Weights::has_extra_features);
    // When only almost_full_rows weighs something, it follows from the changed rows (the
    // other terms need the whole board).
    let only_almost_full = extra
        && weights.is_some_and(|w| w.extra_features.iter().enumerate().all(|(i, &x)| i == ALMOST_FULL || x == 0.0));
    let base_almost_full = if only_almost_full { grid.almost_full_rows() as i32 } else { 0 };
    let table = orientations(spawn.shape);
    let mut push = |placement: Placement| {
        let orientation = &table[placement.state as usize];
        let (x, y) = (placement.x as i32, placement.y as i32);
        let first = (y + orientation.top as i32) as usize; // >= 1: never the top row
        let mut changed = [0u16; 4];
        let mut has_full_row = false;
        for (j, new) in changed.iter_mut().enumerate() {
            let row = rows[(first + j).min(HEIGHT)];
            *new = if first + j < HEIGHT { row | orientation.row_mask(j, x) } else { row };
            has_full_row |= first + j < HEIGHT && *new == FULL_ROW;
        }
        let (features, score, built, almost_full) = if has_full_row {
            let mut after = grid;
            let lock = after.lock(orientation, x, y);
            let almost_full = if only_almost_full { after.almost_full_rows() as i32 } else { 0 };
            (after.features(), entry.score + if scores { lock.points() } else { 0 }, Some(after), almost_full)
        } else {
            let Some(_) = weights else {
                out.push(Scored { value: 0.0, score: entry.score, parent, placement });
                return;
            };
            let mut f = base;
            f.cells += 4;
            let new_row = |r: usize| {
                if (first..first + 4).contains(&r) {
                    changed[r - first]
                } else {
                    rows[r]
                }
            };
            let mut row_transitions = f.row_transitions as i32;
            let mut column_transitions = f.column_transitions as i32;
            for r in first..(first + 4).min(HEIGHT) {
                row_transitions += row_transitions_of(changed[r - first]) as i32 - row_transitions_of(rows[r]) as i32;
            }
            for r in first - 1..(first + 4).min(HEIGHT) {
                column_transitions +=
                    (new_row(r) ^ new_row(r + 1)).count_ones() as i32 - (rows[r] ^ rows[r + 1]).count_ones() as i32;
            }
            let mut covered = 0i32;
            for (i, &top) in orientation.column_top.iter().enumerate() {
                if top != i8::MAX {
                    covered += (surface[(x + i as i32 - 2) as usize] as i32 - (y + top as i32)).max(0);
                }
            }
            f.row_transitions = row_transitions as u32;
            f.column_transitions = column_transitions as u32;
            f.holes = (f.holes as i32 + covered - 4) as u32;
            let mut almost_full = base_almost_full;
            if only_almost_full {
                let nine = |row: u16| (row.count_ones() == WIDTH as u32 - 1) as i32;
                for r in first..(first + 4).min(HEIGHT) {
                    almost_full += nine(changed[r - first]) - nine(rows[r]);
                }
            }
            (f, entry.score, None, almost_full)
        };
        let value = weights.map_or(0.0, |w| {
            if extra {
                // A term that weighs 0 adds 0 whatever its count, so only almost_full_rows
                // is counted when it alone weighs something; otherwise every term is
                // counted on the built board.
                let counts = if only_almost_full {
                    let mut counts = [0.0; EXTRA_TERMS];
                    counts[ALMOST_FULL] = almost_full as f64;
                    counts
                } else {
                    built
                        .unwrap_or_else(|| {
                            let mut after = grid;
                            after.put(orientation, x, y);
                            after
                        })
                        .extra_features()
                };
                w.evaluate_with_extra(&features, &counts) - score as f64 * score_weight
            } else {
                w.evaluate(&features) - score as f64 * score_weight
            }
        });
        out.push(Scored { value, score, parent, placement });
    };
    match moves {
        MoveSet::Seed => seed_placements(&surface, spawn, &mut push),
        MoveSet::Full => full::placements(&grid, spawn, &mut push),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::etetris::game::sequence;
    use crate::etetris::record::replay;
    use crate::etetris::weights::{Overflow, OVERFLOW_HORIZON};

    fn options(beam: usize, moves: MoveSet) -> Options {
        Options::new(beam, moves, Weights::default())
    }

    /// A path read from outside the search (a checkpoint) may hold placements that do not
    /// fit: writing its record is an error, not a panic.
    #[test]
    fn a_placement_that_does_not_fit_cannot_be_written() {
        let spawns = sequence(2);
        let fits = Placement { x: 4, y: 18, state: spawns[0].state as u8 };
        assert!(write_record(Grid::default(), &spawns[..1], &[fits], MoveSet::Seed).is_ok());
        for placement in
            [Placement { x: 4, y: 21, ..fits }, Placement { x: -2, ..fits }, Placement { state: 5, ..fits }]
        {
            let error = write_record(Grid::default(), &spawns, &[fits, placement], MoveSet::Seed).unwrap_err();
            assert!(error.to_string().contains("piece 2: placement"), "{error}");
            assert!(error.to_string().contains("does not fit the board"), "{error}");
        }
    }

    /// `name` is what `--moves` and the experiment files spell: `from_name`'s and serde's names.
    #[test]
    fn the_move_sets_names_are_the_command_lines_and_the_files() {
        for moves in MoveSet::ALL {
            assert_eq!(MoveSet::from_name(moves.name()), Some(moves));
            assert_eq!(serde_json::to_value(moves).unwrap(), moves.name());
        }
    }

    /// A path from a carried board reads back where it was carried, without its marks;
    /// any other path is a way from the search's start.
    #[test]
    fn a_path_from_a_carried_board_reads_back_where_it_was_carried() {
        let placed = vec![Placement { x: 3, y: 17, state: 1 }, Placement { x: -1, y: 18, state: 0 }];
        for (piece, index) in [(0, 0), (255, 256), (9_999, 1), (65_535, 65_535)] {
            let mut paths = Paths::default();
            let mut node = paths.carry(piece, index);
            for &placement in &placed {
                node = paths.push(node, placement);
            }
            assert_eq!(
                Branch::of_path(paths.path(node)),
                Branch { start: Start::Carried { piece, index }, placements: placed.clone() }
            );
        }
        assert_eq!(Branch::of_path(placed.clone()), Branch { start: Start::Search, placements: placed.clone() });
        let one_mark = vec![carried_mark(3), placed[0]];
        assert_eq!(Branch::of_path(one_mark.clone()), Branch { start: Start::Search, placements: one_mark });
        assert_eq!(Branch::of_path(Vec::new()), Branch { start: Start::Search, placements: Vec::new() });
        assert!(std::panic::catch_unwind(|| carried_mark(1 << 16)).is_err());
    }

    /// The pull is towards the nearest target: a board 2 cells from one and 6 from the
    /// other is pulled by 2 cells' worth, in its key and (with the lookahead) its rank.
    #[test]
    fn the_pull_is_towards_the_nearest_target() {
        let board = Grid::parse("##........\n####......\n").unwrap();
        let near = Grid::parse("####......\n####......\n").unwrap();
        let far = Grid::parse("..........\n.........#\n").unwrap();
        assert_eq!((board.distance(&near), board.distance(&far)), (2, 7));
        let merged = || {
            let placement = Placement { x: 0, y: 0, state: 0 };
            vec![Merged { grid: board, value: 1.0, lookahead: 3.0, score: 0, parent: 0, placement }]
        };
        let pulled = |targets: &[Grid], guide: f64, lookahead: bool| {
            let mut merged = merged();
            pull_towards(&mut merged, targets, guide, lookahead);
            (merged[0].value, merged[0].lookahead)
        };
        assert_eq!(pulled(&[far, near], 0.5, false), (2.0, 3.0));
        assert_eq!(pulled(&[near, far], 0.5, true), (2.0, 4.0));
        assert_eq!(pulled(&[far], 0.5, false), (4.5, 3.0));
        assert_eq!(pulled(&[far, near], 0.0, true), (1.0, 3.0));
        assert_eq!(pulled(&[], 0.5, true), (1.0, 3.0));
    }

    #[test]
    fn distinct_boards_without_a_cut_match_the_spec() {
        let spawns = sequence(5);
        let solution = BeamSearch::new(options(usize::MAX, MoveSet::Seed)).solve(Grid::default(), &spawns, &mut |_| {});
        assert_eq!(solution.distinct_boards, vec![17, 289, 2601, 44217, 1_502_950]);
        // The best score after a sixth piece, over every board.
        let sixth = sequence(6)[5];
        let table = orientations(sixth.shape);
        let best = solution
            .final_boards
            .iter()
            .map(|(grid, score)| {
                let mut best = 0;
                seed_placements(&grid.surface(), sixth, |p| {
                    let mut after = *grid;
                    let lock = after.lock(&table[p.state as usize], p.x as i32, p.y as i32);
                    best = best.max(score + lock.points());
                });
                best
            })
            .max();
        assert_eq!(best, Some(24));
    }

    #[test]
    #[ignore = "needs about 6 GB and minutes: 25 million boards"]
    fn six_pieces_without_a_cut() {
        let spawns = sequence(6);
        let solution = BeamSearch::new(options(usize::MAX, MoveSet::Seed)).solve(Grid::default(), &spawns, &mut |_| {});
        assert_eq!(solution.distinct_boards[5], 25_442_600);
        assert_eq!(solution.score, 24);
    }

    #[test]
    fn seed_placements_never_touch_the_top_row_and_all_fit() {
        let spawns = sequence(200);
        let solution = BeamSearch::new(options(3, MoveSet::Seed)).solve(Grid::default(), &spawns, &mut |_| {});
        let mut grid = Grid::default();
        for (spawn, p) in spawns.iter().zip(&solution.placements) {
            let orientation = &orientations(spawn.shape)[p.state as usize];
            assert!(grid.fits(orientation, p.x as i32, p.y as i32));
            assert!(!grid.fits(orientation, p.x as i32, p.y as i32 + 1), "rests on something");
            assert!(!grid.lock(orientation, p.x as i32, p.y as i32).top_touched);
        }
    }

    #[test]
    fn records_replay_to_the_solver_score_with_both_move_sets() {
        let spawns = sequence(PIECE_LIMIT);
        // k = 100 lasts the whole game, so the 10,000th piece's zero score is checked too;
        // narrow beams die early, and the record must still replay to what was counted.
        for (moves, beam, pieces) in
            [(MoveSet::Seed, 100, PIECE_LIMIT), (MoveSet::Seed, 12, 2000), (MoveSet::Full, 12, 2000)]
        {
            let solution = BeamSearch::new(options(beam, moves)).solve(Grid::default(), &spawns[..pieces], &mut |_| {});
            assert!(solution.score > 0);
            let record = write_record(Grid::default(), &spawns, &solution.placements, moves).unwrap();
            let result = replay(&record);
            assert_eq!(
                (result.pieces, result.score),
                (solution.placements.len(), solution.score as u64),
                "{moves:?} k={beam}"
            );
            if beam == 100 {
                assert_eq!(result.pieces, PIECE_LIMIT);
                assert!(result.is_over, "the 10,000th piece ends the game");
            }
        }
    }

    #[test]
    fn incremental_values_equal_values_of_the_built_boards() {
        let spawns = sequence(300);
        let solution = BeamSearch::new(options(20, MoveSet::Seed)).solve(Grid::default(), &spawns, &mut |_| {});
        let seed = Weights::default();
        let extra = seed.with("wells", 0.7).with("rows_with_holes", 3.0).with("almost_full_rows", -1.25);
        let almost_full = seed.with("almost_full_rows", -0.5);
        // A low limit, so boards of more than 40 cells pay the term.
        let overflow = Weights { overflow: Overflow { weight: 0.3, capacity: 150.0, limit: 40.0 }, ..almost_full };
        let mut grid = Grid::default();
        let mut score = 0;
        for (spawn, p) in spawns.iter().zip(&solution.placements).take(250) {
            let entry = Entry { grid, score, node: ROOT };
            for (moves, weights) in
                [seed, extra, almost_full, overflow].into_iter().flat_map(|w| [(MoveSet::Seed, w), (MoveSet::Full, w)])
            {
                let mut out = Vec::new();
                score_placements(&entry, 0, *spawn, moves, true, Some(&weights), &mut out);
                for s in &out {
                    let mut after = grid;
                    let q = s.placement;
                    let lock = after.lock(&orientations(spawn.shape)[q.state as usize], q.x as i32, q.y as i32);
                    assert_eq!(s.score, score + lock.points());
                    assert_eq!(
                        s.value.to_bits(),
                        weights.value_of(&after, s.score).to_bits(),
                        "{moves:?} {q:?}{grid:?}"
                    );
                }
            }
            let lock = grid.lock(&orientations(spawn.shape)[p.state as usize], p.x as i32, p.y as i32);
            score += lock.points();
        }
    }

    #[test]
    fn the_overflow_term_counts_the_pieces_to_the_next_i() {
        // The sequence starts Z0 I1 O2 S3 L0 Z1 S2 I3 (spec): after the Z the next piece is
        // an I; after the O, the I comes five pieces on; the last pieces have none.
        let spawns = sequence(30);
        assert_eq!(pieces_to_next_i(&spawns[1..]), Some(1));
        assert_eq!(pieces_to_next_i(&spawns[3..]), Some(5));
        assert_eq!(pieces_to_next_i(&spawns[30..]), None);
        let overflow = Overflow::new(0.25, 170.0);
        assert_eq!(overflow.limit_for(Some(5)), 150.0);
        assert_eq!(overflow.limit_for(Some(100)), 170.0 - 4.0 * OVERFLOW_HORIZON as f64);
        assert_eq!(overflow.limit_for(None), 170.0 - 4.0 * OVERFLOW_HORIZON as f64);
    }

    #[test]
    fn the_overflow_term_changes_the_game_and_does_not_depend_on_the_thread_count() {
        let spawns = sequence(300);
        let weights = Weights::default().with("almost_full_rows", -0.5);
        let solve = |weights: Weights, threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| {
                BeamSearch::new(Options::new(20, MoveSet::Full, weights)).solve(Grid::default(), &spawns, &mut |_| {})
            })
        };
        let plain = solve(weights, 1);
        // A capacity of 100 cells, so the term bites on this short game's low boards.
        let overflow = Weights { overflow: Overflow::new(0.5, 100.0), ..weights };
        let (one, two) = (solve(overflow, 1), solve(overflow, 2));
        assert_eq!(one.placements, two.placements);
        assert_eq!(one.final_boards, two.final_boards);
        assert_ne!(one.placements, plain.placements, "the term changes the search");
        let record = write_record(Grid::default(), &spawns, &one.placements, MoveSet::Full).unwrap();
        let result = replay(&record);
        assert_eq!((result.pieces, result.score), (one.placements.len(), one.score as u64));
        // Off, it is the search without it, move for move.
        let off = Weights { overflow: Overflow { weight: 0.0, ..Overflow::new(0.5, 100.0) }, ..weights };
        assert_eq!(solve(off, 1).placements, plain.placements);
    }

    #[test]
    fn compaction_keeps_the_paths_of_live_boards() {
        let mut paths = Paths::default();
        let mut beam: Vec<Entry> = (0..4).map(|_| Entry { grid: Grid::default(), score: 0, node: ROOT }).collect();
        let mut random = 7u64;
        for step in 0..50u8 {
            let mut next = Vec::new();
            for i in 0..beam.len() {
                random = random.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let parent = beam[(random >> 33) as usize % beam.len()].node;
                let node = paths.push(parent, Placement { x: i as i8, y: step as i8, state: 0 });
                next.push(Entry { node, ..beam[i] });
            }
            beam = next;
        }
        let before: Vec<Vec<Placement>> = beam.iter().map(|e| paths.path(e.node)).collect();
        let nodes = paths.parent.len();
        paths.compact(&mut beam);
        assert!(paths.parent.len() < nodes, "dead branches are dropped");
        let after: Vec<Vec<Placement>> = beam.iter().map(|e| paths.path(e.node)).collect();
        assert_eq!(before, after);
        assert!(after.iter().all(|path| path.len() == 50));
    }

    #[test]
    fn refined_searches_replay_change_the_game_and_do_not_depend_on_the_thread_count() {
        let spawns = sequence(300);
        let weights = Weights::default().with("almost_full_rows", -0.5);
        let plain =
            BeamSearch::new(Options::new(20, MoveSet::Full, weights)).solve(Grid::default(), &spawns, &mut |_| {});
        for refinements in [
            Refinements { lookahead: 2, ..Refinements::default() },
            Refinements { children_per_parent: 2, ..Refinements::default() },
            Refinements { lookahead: 1, children_per_parent: 3, ..Refinements::default() },
            Refinements { lookahead: 2, lookahead_blend: 50, ..Refinements::default() },
            Refinements { endgame: 100, ..Refinements::default() },
            Refinements { lookahead: 2, second_ply: 2, ..Refinements::default() },
            Refinements { phase_quota: 40, ..Refinements::default() },
            Refinements { phase_quota: 60, phase_pool: 3, lookahead: 2, ..Refinements::default() },
        ] {
            let run = |threads: usize| {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                pool.install(|| {
                    BeamSearch::new(Options { refinements, ..Options::new(20, MoveSet::Full, weights) }).solve(
                        Grid::default(),
                        &spawns,
                        &mut |_| {},
                    )
                })
            };
            let (one, two) = (run(1), run(2));
            assert_eq!(one.placements, two.placements, "{refinements:?}");
            assert_eq!(one.final_boards, two.final_boards, "{refinements:?}");
            assert_ne!(one.placements, plain.placements, "{refinements:?} changes the search");
            let record = write_record(Grid::default(), &spawns, &one.placements, MoveSet::Full).unwrap();
            let result = replay(&record);
            // A narrow beam may die early; the record must still replay to what was counted.
            assert_eq!((result.pieces, result.score), (one.placements.len(), one.score as u64), "{refinements:?}");
        }
    }

    /// The boards a search over `spawns` ends with, as a lookahead pool: each valued by
    /// the weights, its lookahead still to be found.
    fn pool_after(options: Options, spawns: &[Spawn]) -> Vec<Merged> {
        let solution = BeamSearch::new(options).solve(Grid::default(), spawns, &mut |_| {});
        solution
            .final_boards
            .iter()
            .enumerate()
            .map(|(i, &(grid, score))| Merged {
                grid,
                value: options.weights.value_of(&grid, score),
                lookahead: 0.0,
                score,
                parent: i as u32,
                placement: Placement { x: 0, y: 0, state: 0 },
            })
            .collect()
    }

    #[test]
    fn lookahead_values_are_the_best_next_placement_values() {
        let spawns = sequence(40);
        let weights = Weights::default().with("almost_full_rows", -0.5);
        let options = Options::new(30, MoveSet::Full, weights);
        let mut search = BeamSearch::new(options);
        search.merged = pool_after(options, &spawns[..39]);
        let following = spawns[39];
        search.rank_by_lookahead((following, true), None);
        let table = orientations(following.shape);
        for m in &search.merged {
            let mut best = f64::INFINITY;
            full::placements(&m.grid, following, |p| {
                let mut after = m.grid;
                let lock = after.lock(&table[p.state as usize], p.x as i32, p.y as i32);
                best = best.min(weights.value_of(&after, m.score + lock.points()));
            });
            assert_eq!(m.lookahead.to_bits(), best.to_bits(), "{:?}", m.grid);
        }
    }

    #[test]
    fn second_ply_values_are_the_best_values_two_pieces_on_through_the_best_branches() {
        let spawns = sequence(41);
        let weights = Weights::default().with("almost_full_rows", -0.5);
        let options = Options::new(30, MoveSet::Full, weights);
        let merged = pool_after(options, &spawns[..39]);
        let (following, after) = (spawns[39], spawns[40]);
        let ranked = |second_ply: usize| {
            let refinements = Refinements { lookahead: 2, second_ply, ..Refinements::default() };
            let mut search = BeamSearch::new(Options { refinements, ..options });
            search.merged = merged.clone();
            search.rank_by_lookahead((following, true), Some((after, true)));
            search.merged.iter().map(|m| m.lookahead).collect::<Vec<f64>>()
        };
        let (one_ply, two, every) = (ranked(0), ranked(2), ranked(1000));
        let (table, after_table) = (orientations(following.shape), orientations(after.shape));
        let mut deeper_differs = false;
        for (i, m) in merged.iter().enumerate() {
            // Every placement of the next piece, by value, then the best of the piece after.
            let mut branches = Vec::new();
            full::placements(&m.grid, following, |p| {
                let mut grid = m.grid;
                let score = m.score + grid.lock(&table[p.state as usize], p.x as i32, p.y as i32).points();
                let mut best = f64::INFINITY;
                full::placements(&grid, after, |q| {
                    let mut last = grid;
                    let lock = last.lock(&after_table[q.state as usize], q.x as i32, q.y as i32);
                    best = best.min(weights.value_of(&last, score + lock.points()));
                });
                branches.push((weights.value_of(&grid, score), (p.x, p.y, p.state), best));
            });
            branches.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let best_of = |n: usize| branches.iter().take(n).map(|b| b.2).fold(f64::INFINITY, f64::min);
            assert_eq!(one_ply[i].to_bits(), branches.first().map_or(f64::INFINITY, |b| b.0).to_bits());
            assert_eq!(two[i].to_bits(), best_of(2).to_bits(), "{:?}", m.grid);
            assert_eq!(every[i].to_bits(), best_of(usize::MAX).to_bits(), "{:?}", m.grid);
            deeper_differs |= two[i] != one_ply[i];
        }
        assert!(deeper_differs, "the second ply changes the ranking");
    }

    #[test]
    fn the_blend_ranks_the_pool_between_the_lookahead_and_the_own_value() {
        let spawns = sequence(40);
        let weights = Weights::default().with("almost_full_rows", -0.5);
        let options = Options::new(30, MoveSet::Full, weights);
        let merged = pool_after(options, &spawns[..39]);
        let ranked = |blend: u32| {
            let refinements = Refinements { lookahead: 2, lookahead_blend: blend, ..Refinements::default() };
            let mut search = BeamSearch::new(Options { refinements, ..options });
            search.merged = merged.clone();
            search.rank_by_lookahead((spawns[39], true), None);
            search.merged.iter().map(|m| m.lookahead).collect::<Vec<f64>>()
        };
        let (pure, half, own) = (ranked(0), ranked(50), ranked(100));
        for ((m, &p), (&h, &o)) in merged.iter().zip(&pure).zip(half.iter().zip(&own)) {
            if p.is_finite() {
                assert_eq!(h.to_bits(), (0.5 * p + 0.5 * m.value).to_bits());
                assert_eq!(o.to_bits(), m.value.to_bits());
            } else {
                // A board that cannot take the next piece still ranks last.
                assert_eq!((h, o), (f64::INFINITY, f64::INFINITY));
            }
        }
        assert!(pure.iter().filter(|p| p.is_finite()).count() > pure.len() / 2, "most boards take the next piece");
    }

    #[test]
    fn the_endgame_weighs_the_board_less_over_its_last_pieces_only() {
        let weights = Weights::default().with("almost_full_rows", -0.5);
        let options = Options::new(30, MoveSet::Full, weights);
        let off = BeamSearch::new(options);
        let on =
            BeamSearch::new(Options { refinements: Refinements { endgame: 9, ..Refinements::default() }, ..options });
        for remaining in [1, 5, 9, 10, 10_000] {
            assert_eq!(off.step_weights(remaining, &[]).score_divisor, weights.score_divisor);
        }
        assert_eq!(on.step_weights(10, &[]).score_divisor, weights.score_divisor, "before the endgame");
        assert_eq!(on.step_weights(9, &[]).score_divisor, weights.score_divisor * 0.9);
        assert_eq!(on.step_weights(1, &[]).score_divisor, weights.score_divisor * 0.1);
        // Only the divisor moves.
        assert_eq!(on.step_weights(1, &[]).features, weights.features);
        assert_eq!(on.step_weights(1, &[]).extra_features, weights.extra_features);
    }

    #[test]
    fn the_per_parent_cut_keeps_at_most_the_limit_from_a_parent_then_fills_in_key_order() {
        let refinements = Refinements { children_per_parent: 2, ..Refinements::default() };
        let mut search = BeamSearch::new(Options { refinements, ..options(5, MoveSet::Seed) });
        // Parent 0 holds the four best keys, parent 1 the next two, parent 2 the worst.
        let parents = [0, 0, 0, 0, 1, 1, 2];
        search.merged = parents
            .iter()
            .enumerate()
            .map(|(i, &parent)| {
                let mut grid = Grid::default();
                grid.put(&orientations(0)[0], i as i32, 10);
                Merged {
                    grid,
                    value: i as f64,
                    lookahead: 0.0,
                    score: 0,
                    parent,
                    placement: Placement { x: i as i8, y: 10, state: 0 },
                }
            })
            .collect();
        search.cut_with_limits(3, 5);
        let kept: Vec<f64> = search.merged.iter().map(|m| m.value).collect();
        // Two of parent 0, both of parent 1, parent 2's, and none left to fill.
        assert_eq!(kept, vec![0.0, 1.0, 4.0, 5.0, 6.0]);
        search.options.refinements.children_per_parent = 1;
        search.merged.push(Merged { value: 2.0, parent: 0, ..search.merged[0] });
        search.cut_with_limits(3, 4);
        let kept: Vec<f64> = search.merged.iter().map(|m| m.value).collect();
        // One each of parents 0, 1, 2, then the best left: parent 0's second.
        assert_eq!(kept, vec![0.0, 4.0, 6.0, 1.0]);
    }

    #[test]
    fn the_phase_quota_keeps_at_most_its_share_from_one_cell_count_then_fills_in_key_order() {
        // Boards of 4, 8 and 12 cells (one, two and three vertical I pieces), by key:
        // the four best hold 4 cells, then two of 8, then one of 12.
        let cells = [4, 4, 4, 4, 8, 8, 12];
        let board = |i: usize, pieces: usize| {
            let mut grid = Grid::default();
            for column in 0..pieces {
                grid.put(&orientations(0)[0], (column + i * 3) as i32 % WIDTH as i32, 10);
            }
            grid
        };
        let merged: Vec<Merged> = cells
            .iter()
            .enumerate()
            .map(|(i, &count)| Merged {
                grid: board(i, count / 4),
                value: i as f64,
                lookahead: 0.0,
                score: 0,
                parent: i as u32,
                placement: Placement { x: i as i8, y: 10, state: 0 },
            })
            .collect();
        for (m, &count) in merged.iter().zip(&cells) {
            assert_eq!(m.grid.cells() as usize, count);
        }
        // 40 % of a beam of 5 is 2 boards a phase: two of 4 cells, both of 8, the one of
        // 12, nothing left to fill.
        let refinements = Refinements { phase_quota: 40, ..Refinements::default() };
        let mut search = BeamSearch::new(Options { refinements, ..options(5, MoveSet::Seed) });
        search.merged = merged.clone();
        search.cut_with_limits(7, 5);
        let kept: Vec<f64> = search.merged.iter().map(|m| m.value).collect();
        assert_eq!(kept, vec![0.0, 1.0, 4.0, 5.0, 6.0]);
        // 25 % of a beam of 4 is one a phase: one of each, then the best left.
        search.options.refinements.phase_quota = 25;
        search.merged = merged.clone();
        search.cut_with_limits(7, 4);
        let kept: Vec<f64> = search.merged.iter().map(|m| m.value).collect();
        assert_eq!(kept, vec![0.0, 4.0, 6.0, 1.0]);
        // With a per-parent limit too, both hold. Board 0 is parent 0's, the rest parent
        // 1's; at a beam of 3, one board a parent and one a phase: board 0, then board 4
        // (boards 1 to 3 are of board 0's phase), then the best left, board 1.
        search.options.refinements = Refinements { phase_quota: 40, children_per_parent: 1, ..Refinements::default() };
        search.merged = merged.iter().map(|m| Merged { parent: m.parent.min(1), ..*m }).collect();
        search.cut_with_limits(2, 3);
        let kept: Vec<f64> = search.merged.iter().map(|m| m.value).collect();
        assert_eq!(kept, vec![0.0, 4.0, 1.0]);
    }

    #[test]
    fn phase_settings_are_checked() {
        let name = |field: &str| format!("--{}", field.replace('_', "-"));
        let error = |r: Refinements| r.check(name).unwrap_err().to_string();
        assert!(Refinements { phase_quota: 60, phase_pool: 3, ..Refinements::default() }.check(name).is_ok());
        assert!(error(Refinements { phase_quota: 101, ..Refinements::default() })
            .contains("--phase-quota must be in 0..=100"));
        assert!(error(Refinements { phase_quota: 50, phase_pool: 17, ..Refinements::default() })
            .contains("--phase-pool = 17 is more than the limit of 16"));
        assert!(error(Refinements { phase_pool: 2, ..Refinements::default() }).contains("give --phase-quota too"));
    }

    #[test]
    fn a_search_resumed_from_any_saved_state_ends_as_one_never_stopped() {
        let spawns = sequence(240);
        let overflow = Weights { overflow: Overflow::new(0.5, 150.0), ..Weights::default() };
        for options in [
            options(30, MoveSet::Seed),
            Options {
                refinements: Refinements {
                    lookahead: 2,
                    second_ply: 2,
                    phase_quota: 60,
                    endgame: 50,
                    children_per_parent: 3,
                    ..Refinements::default()
                },
                ..Options::new(20, MoveSet::Full, overflow)
            },
        ] {
            fn in_pool(threads: usize, run: impl FnOnce() -> Option<Solution> + Send) -> Option<Solution> {
                rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(run)
            }
            let saved_at = [1, 57, 150, 239, 240];
            let mut saved = Vec::new();
            let whole = in_pool(2, || {
                let mut save = |progress: &Progress, state: &dyn Fn() -> SearchState| {
                    if saved_at.contains(&progress.pieces) {
                        saved.push(state().to_bytes(""));
                    }
                    ControlFlow::Continue(())
                };
                BeamSearch::new(options).solve_resumable(Grid::default(), &spawns, None, &mut save).unwrap()
            })
            .expect("never stopped");
            assert_eq!(whole.placements.len(), 240, "the test's searches survive");
            assert_eq!(saved.len(), saved_at.len());
            for (bytes, pieces) in saved.iter().zip(saved_at) {
                let (state, _) = SearchState::from_bytes(bytes).expect("reads back");
                assert_eq!(state.pieces(), pieces);
                let resumed = in_pool(1, || {
                    let mut go_on = |_: &Progress, _: &dyn Fn() -> SearchState| ControlFlow::Continue(());
                    let mut search = BeamSearch::new(options);
                    search.solve_resumable(Grid::default(), &spawns, Some(state.clone()), &mut go_on).unwrap()
                })
                .expect("never stopped");
                assert_eq!(resumed.score, whole.score, "resumed after {pieces} pieces");
                assert_eq!(resumed.placements, whole.placements, "resumed after {pieces} pieces");
                assert_eq!(resumed.distinct_boards, whole.distinct_boards, "resumed after {pieces} pieces");
                assert_eq!(resumed.final_boards, whole.final_boards, "resumed after {pieces} pieces");
            }
            // A stop is a stop: no solution, and the state saved then resumes as above.
            let mut stop = |progress: &Progress, _: &dyn Fn() -> SearchState| {
                if progress.pieces == 10 {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            };
            let stopped = BeamSearch::new(options).solve_resumable(Grid::default(), &spawns, None, &mut stop).unwrap();
            assert!(stopped.is_none());
            let (too_far, _) = SearchState::from_bytes(&saved[4]).unwrap();
            let error = BeamSearch::new(options)
                .solve_resumable(Grid::default(), &spawns[..200], Some(too_far), &mut stop)
                .expect_err("more pieces placed than the game holds");
            assert!(error.to_string().contains("placed 240 pieces, more than the 200 to place"), "{error}");
        }
    }

    #[test]
    fn results_do_not_depend_on_the_thread_count() {
        let spawns = sequence(300);
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| BeamSearch::new(options(50, MoveSet::Seed)).solve(Grid::default(), &spawns, &mut |_| {}))
        };
        let (one, two) = (run(1), run(2));
        assert_eq!(one.placements, two.placements);
        assert_eq!(one.final_boards, two.final_boards);
    }

    #[test]
    fn seed_placements_are_full_placements() {
        // Every seed placement is also a full placement.
        let spawns = sequence(400);
        let solution = BeamSearch::new(options(4, MoveSet::Seed)).solve(Grid::default(), &spawns, &mut |_| {});
        let mut grid = Grid::default();
        for (spawn, p) in spawns.iter().zip(&solution.placements) {
            let mut full_set = Vec::new();
            full::placements(&grid, *spawn, |q| full_set.push(q));
            let d = spawn.distinct_states() as u8;
            let normal = Placement { state: p.state % d, ..*p };
            assert!(full_set.contains(&normal), "{spawn} {p:?}{grid:?}");
            grid.lock(&orientations(spawn.shape)[p.state as usize], p.x as i32, p.y as i32);
        }
    }
}
