//! Placement policies: given the game as a player sees it, choose a placement (and
//! whether to hold). Each policy owns its evaluator and its published tie-break.

use crate::board::Board;
use crate::eval::Evaluator;
use crate::features::incremental::{ParentSummary, PruneBounds};
use crate::piece::Piece;
use crate::placement::Placement;
use crate::rules::RuleSet;

pub mod hold_aware;
pub mod key_press;
pub mod one_piece;
pub mod two_piece;

/// What a player sees when choosing.
#[derive(Clone, Copy, Debug)]
pub struct GameView<'a> {
    pub board: &'a Board,
    pub current: Piece,
    /// The visible upcoming pieces, next first.
    pub preview: &'a [Piece],
    pub hold: Option<Piece>,
    /// Whether the rules allow a hold now.
    pub can_hold: bool,
}

/// A policy's choice.
#[derive(Clone, Copy, Debug)]
pub struct Decision {
    /// Hold first (the placement is then of the held or next piece).
    pub hold: bool,
    pub placement: Placement,
    /// The evaluator's value behind the choice (for lookahead, the best leaf), in the
    /// evaluator's own sense (a penalty for lower-is-better evaluators).
    pub value: f64,
}

/// Reusable buffers, one per search depth, so choosing allocates nothing after warm-up.
#[derive(Default, Debug)]
pub struct Scratch {
    pub depth: [Vec<Placement>; 3],
    /// Moves tried on a copy of the game since the game loop last looked (policies that
    /// replay a simulator whose search draws pieces report them; see
    /// [`RuleSet::draws_per_tried_move`]).
    pub tried_moves: u32,
    /// The one-piece search's parent summary: rebuilt in place every decision, or carried
    /// from the previous one (see [`ParentSummary::advance`]).
    pub summary: ParentSummary,
    /// The lower bounds the one-piece walk prunes with, filled every decision (see
    /// [`ParentSummary::score_or_prune`]).
    pub bounds: PruneBounds,
}

/// A placement policy.
pub trait Policy: Send + Sync {
    fn name(&self) -> &'static str;
    fn evaluator(&self) -> &Evaluator;
    /// The choice for this turn; `None` when no placement is possible (the game ends).
    fn choose(&self, rules: &dyn RuleSet, view: &GameView, scratch: &mut Scratch) -> Option<Decision>;
}

/// The policies presets can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PolicyKind {
    /// One piece; the first best placement in loop order wins (strict `>`).
    OnePieceFirstBest,
    /// One piece with Fahey's priority tie-break (Dellacherie as Fahey implemented it).
    OnePieceFaheyPriority,
    /// Current + one preview piece, no rows removed between the two placements (Lee).
    TwoPieceNoClear,
    /// The 7-term bot: hold no/yes x column x rotation, first lowest penalty, two shortcuts.
    HoldAware,
    /// 44 key-press moves played frame by frame on a copy of the guideline game.
    KeyPress,
}

/// Every policy kind with its name and a line for `tetris-lab list`.
pub static REGISTRY: &[(&str, PolicyKind, &str)] = &[
    ("one-piece", PolicyKind::OnePieceFirstBest, "every placement of the current piece; first best in loop order wins"),
    (
        "one-piece-fahey",
        PolicyKind::OnePieceFaheyPriority,
        "one piece; ties go to the higher Fahey priority (100|dx| + 10 if left - orientation)",
    ),
    (
        "two-piece-no-clear",
        PolicyKind::TwoPieceNoClear,
        "current + next piece, rows not removed between the two placements; first best wins (Lee)",
    ),
    (
        "hold-aware",
        PolicyKind::HoldAware,
        "hold no/yes x column x rotation, first best wins, the 7-term bot's two shortcuts (erikko)",
    ),
    (
        "key-press",
        PolicyKind::KeyPress,
        "44 moves (shift x turns) played as key presses on a copy of the guideline game, current + next",
    ),
];

/// Builds a policy of `kind` around `evaluator`.
pub fn build(kind: PolicyKind, evaluator: Evaluator) -> Box<dyn Policy> {
    match kind {
        PolicyKind::OnePieceFirstBest => Box::new(one_piece::OnePiece::new(evaluator, one_piece::TieBreak::FirstBest)),
        PolicyKind::OnePieceFaheyPriority => {
            Box::new(one_piece::OnePiece::new(evaluator, one_piece::TieBreak::FaheyPriority))
        }
        PolicyKind::TwoPieceNoClear => Box::new(two_piece::TwoPieceNoClear::new(evaluator)),
        PolicyKind::HoldAware => Box::new(hold_aware::HoldAware::new(evaluator)),
        PolicyKind::KeyPress => Box::new(key_press::KeyPress::new(evaluator)),
    }
}

impl PolicyKind {
    /// Whether the policy looks at the preview (its first piece).
    pub fn uses_preview(self) -> bool {
        self.previews_read() > 0
    }

    /// How many preview pieces the policy looks at: none for one piece, the next piece for
    /// the others (the two-piece search, the key-press search, and the hold-aware bot, which
    /// plays the next piece when it holds into an empty slot).
    pub fn previews_read(self) -> usize {
        match self {
            PolicyKind::OnePieceFirstBest | PolicyKind::OnePieceFaheyPriority => 0,
            PolicyKind::TwoPieceNoClear | PolicyKind::HoldAware | PolicyKind::KeyPress => 1,
        }
    }

    /// Whether the policy looks at the hold slot.
    pub fn uses_hold(self) -> bool {
        self == PolicyKind::HoldAware
    }
}

pub fn kind_name(kind: PolicyKind) -> &'static str {
    REGISTRY.iter().find(|(_, k, _)| *k == kind).map(|(n, _, _)| *n).unwrap_or("?")
}

#[allow(dead_code)]
fn assert_send_sync<T: Send + Sync + ?Sized>() {}
#[allow(dead_code)]
fn policies_are_send_and_sync() {
    assert_send_sync::<dyn Policy>();
    assert_send_sync::<one_piece::OnePiece>();
    assert_send_sync::<two_piece::TwoPieceNoClear>();
    assert_send_sync::<hold_aware::HoldAware>();
    assert_send_sync::<key_press::KeyPress>();
    assert_send_sync::<Evaluator>();
}
