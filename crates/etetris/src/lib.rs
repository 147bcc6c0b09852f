//! The E-Tetris contest game: its rules and records, the beam solvers and the tools that
//! replay, polish and splice records, and the long runs that keep a journal (splice with
//! bridges, versus). It depends on the game and the plumbing only.

pub(crate) use tetris_game::piece;
pub(crate) use tetris_support::{checksum, interrupt, limits, names, support};

pub mod etetris;
pub mod sessions;
