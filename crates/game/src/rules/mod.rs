//! Rule sets: what a game is (board size, pieces, randomizer, preview, hold), which
//! placements a piece can reach, and what locking one does (clears, score, game over).
//! One file per rule set; [`REGISTRY`] lists them for the CLI and the presets.

use crate::board::Board;
use crate::features::incremental::ShapeCells;
use crate::guideline::SpawnFrame;
use crate::piece::{DropShape, Piece, Shape};
use crate::placement::{Placement, PlacementInfo};
use crate::randomizer::RandomizerKind;
use anyhow::Result;

pub mod eltetris;
pub mod erikko;
pub mod guideline;
pub mod lee;
pub mod simplified;
pub mod standard;

/// The result of locking a placement.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    pub info: PlacementInfo,
    /// Points scored, for rule sets that score (0 otherwise).
    pub score: u64,
    /// The game ended with this placement.
    pub game_over: bool,
}

/// How a rule set lets a player hold a piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HoldRule {
    None,
    /// Once per piece: no second hold before the held piece locks.
    OncePerPiece,
    /// Any turn (the 7-term bot's simulator).
    EveryTurn,
}

/// A rule set. Implementations are immutable values shared by all threads.
pub trait RuleSet: Send + Sync {
    /// Short name used in presets, experiment files and logs.
    fn name(&self) -> &'static str;
    /// Changes whenever the behaviour changes; recorded with every run.
    fn version(&self) -> &'static str;
    /// One line for `tetris-lab list` and run manifests (size included).
    fn describe(&self) -> String;
    /// An empty board of the rule set's size.
    fn new_board(&self) -> Board;
    fn randomizer(&self) -> RandomizerKind;
    /// Pieces visible after the current one.
    fn preview(&self) -> usize {
        0
    }
    fn hold(&self) -> HoldRule {
        HoldRule::None
    }
    /// Pieces the generator deals and throws away for every move a policy tries (reported
    /// in [`crate::policy::Scratch::tried_moves`]): 0 but where the original simulator's
    /// search shares the game's generator (`erikko`).
    fn draws_per_tried_move(&self) -> u32 {
        0
    }
    /// What a game's move count counts, in the words of the rule set's original program:
    /// `"pieces"`, or `"turns"` where a turn may be a hold (`erikko`).
    fn move_unit(&self) -> &'static str {
        "pieces"
    }
    /// The orientation table when [`RuleSet::candidates`] is exactly
    /// `drop_candidates(table, board, piece, false, out)` and [`RuleSet::apply`] is
    /// [`Placement::apply`]: a policy may then walk the straight drops itself, in the same
    /// order, without building the list. `None` (the default) otherwise.
    fn straight_drops(&self) -> Option<&OrientationTable> {
        None
    }
    /// Whether a new `piece` can enter the board; `false` ends the game.
    fn can_spawn(&self, _board: &Board, _piece: Piece) -> bool {
        true
    }
    /// Appends (after clearing `out`) every placement of `piece` the rules let a player
    /// reach, in the rule set's own loop order (tie-breaks depend on it).
    fn candidates(&self, board: &Board, piece: Piece, out: &mut Vec<Placement>);
    /// What a player of these rules sees when evaluating a candidate: the board after the
    /// placement and what it did. Rule sets whose original rates moves on a board cleared
    /// differently from the real game (Fahey's `standard`) override it.
    fn apply(&self, board: &mut Board, placement: &Placement) -> PlacementInfo {
        placement.apply(board)
    }
    /// Locks a placement returned by [`RuleSet::candidates`]: writes it, removes full
    /// rows, scores, and decides whether the game is over.
    fn lock(&self, board: &mut Board, placement: &Placement) -> Outcome {
        let info = placement.apply(board);
        Outcome { info, score: 0, game_over: false }
    }
    /// The spawn-frame rule of a rule set whose games go frame by frame (the guideline
    /// game): such games are played by a frame-game driver (`guideline::FrameGame`), not by
    /// a policy choosing placements. `None` (the default) for placement games.
    fn frame_rules(&self) -> Option<SpawnFrame> {
        None
    }
}

/// The distinct orientations of each piece, packed for straight drops, in the order a
/// rule set loops over them.
#[derive(Clone, Debug)]
pub struct OrientationTable {
    /// `shapes[piece][k]` = orientation `k` of `piece`.
    shapes: [Vec<(Shape, DropShape)>; 7],
    /// What the one-piece walk needs of each orientation, computed once (same indices).
    cells: [Vec<ShapeCells>; 7],
}

impl OrientationTable {
    /// The table of these orientations, `shapes[piece][k]` orientation `k` of `piece`.
    pub fn new(shapes: [Vec<(Shape, DropShape)>; 7]) -> OrientationTable {
        let cells = std::array::from_fn(|piece| shapes[piece].iter().map(|(_, drop)| ShapeCells::new(drop)).collect());
        OrientationTable { shapes, cells }
    }

    /// Builds the table from pictures of every orientation of every piece, in the order
    /// the candidates are tried: rows top first, `X` a cell, `.` empty, `/` between rows.
    pub fn from_pictures(pictures: &[(Piece, &[&str])]) -> OrientationTable {
        let mut shapes: [Vec<(Shape, DropShape)>; 7] = Default::default();
        for &(piece, list) in pictures {
            for picture in list {
                let shape = shape_from_picture(picture);
                shapes[piece.index()].push((shape, shape.drop_shape()));
            }
        }
        OrientationTable::new(shapes)
    }
    #[inline]
    pub fn of(&self, piece: Piece) -> &[(Shape, DropShape)] {
        &self.shapes[piece.index()]
    }
    /// [`ShapeCells`] of every orientation of `piece`, in the order of [`OrientationTable::of`].
    #[inline]
    pub fn cells_of(&self, piece: Piece) -> &[ShapeCells] {
        &self.cells[piece.index()]
    }
}

/// The shape drawn by `picture` (see [`OrientationTable::from_pictures`]), its bottom-left
/// corner at the origin.
fn shape_from_picture(picture: &str) -> Shape {
    let rows: Vec<&str> = picture.split('/').collect();
    let mut cells = [(0i8, 0i8); 4];
    let mut count = 0;
    for (from_top, row) in rows.iter().enumerate() {
        for (x, c) in row.chars().enumerate() {
            if c == 'X' {
                assert!(count < 4, "a tetromino has four cells: {picture}");
                cells[count] = (x as i8, (rows.len() - 1 - from_top) as i8);
                count += 1;
            }
        }
    }
    assert_eq!(count, 4, "a tetromino has four cells: {picture}");
    Shape::new(cells)
}

/// The rule set the research literature's figures mean when they name only a board
/// (Bertsekas-Tsitsiklis' rules as MdpTetris plays them).
pub const RESEARCH: &str = simplified::ENTRY.name;

/// Builds a rule set; the size overrides the board where the rule set allows it.
pub type RuleSetBuilder = fn(size: Option<(usize, usize)>) -> Result<Box<dyn RuleSet>>;

/// One entry of the rule-set registry.
pub struct RuleSetEntry {
    pub name: &'static str,
    pub summary: &'static str,
    /// Builds the rule set; `size` overrides the board where the rule set allows it.
    pub build: RuleSetBuilder,
}

/// Every rule set, in the order `tetris-lab list` shows them.
pub static REGISTRY: &[RuleSetEntry] = &[
    simplified::ENTRY,
    simplified::LINES_AFTER_OVERFLOW,
    eltetris::ENTRY,
    lee::ENTRY,
    erikko::ENTRY,
    standard::ENTRY,
    guideline::ENTRY,
    guideline::GRAVITY_FIRST_ENTRY,
];

/// Looks a rule set up by name, with a "did you mean" on a miss.
pub fn build(name: &str, size: Option<(usize, usize)>) -> Result<Box<dyn RuleSet>> {
    match REGISTRY.iter().find(|e| e.name == name) {
        Some(e) => (e.build)(size),
        None => Err(crate::names::unknown("rule set", name, REGISTRY.iter().map(|e| e.name))),
    }
}

/// Error for rule sets whose board size is fixed.
pub fn fixed_size(name: &str, size: Option<(usize, usize)>, fixed: (usize, usize)) -> Result<()> {
    match size {
        Some(s) if s != fixed => {
            anyhow::bail!(
                "rule set {name} has a fixed {}x{} board; --board {}x{} is only for `simplified`",
                fixed.0,
                fixed.1,
                s.0,
                s.1
            )
        }
        _ => Ok(()),
    }
}

/// Straight-drop candidates from above the board over every box column, orientations in
/// table order. Placements whose cells would rise above the top are skipped unless
/// `keep_overflow`.
#[inline]
pub fn drop_candidates(
    table: &OrientationTable,
    board: &Board,
    piece: Piece,
    keep_overflow: bool,
    out: &mut Vec<Placement>,
) {
    out.clear();
    let width = board.width();
    let height = board.height();
    for (k, (_, shape)) in table.of(piece).iter().enumerate() {
        for left in 0..=(width - shape.width as usize) {
            let bottom = shape.drop_row(board.heights(), left);
            if !keep_overflow && bottom + shape.height as usize > height {
                continue;
            }
            out.push(Placement::straight(piece, k, left, bottom, *shape));
        }
    }
}
