//! The game: the piece shapes, the bitboard, every piece generator, where a piece lands,
//! the board features (one file per published family), evaluators, the frame-accurate
//! guideline game, one file per rule set, how a placement is chosen, the one game loop
//! every command uses, and the named published systems built into games. A module uses
//! only the modules before it in this list (`tests/layers.rs` checks it).

pub(crate) use tetris_support::{limits, names};

pub mod board;
pub mod eval;
pub mod features;
pub mod guideline;
pub mod piece;
pub mod placement;
pub mod policy;
pub mod presets;
pub mod randomizer;
pub mod rules;
pub mod sim;
