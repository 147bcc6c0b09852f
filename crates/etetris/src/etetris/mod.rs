//! E-Tetris, the 2021 contest game: its rules ([`game`]), records ([`record`]) and what
//! their points are made of ([`breakdown`]), the seed's beam solver made fast ([`solver`]),
//! its checked solve ([`checked`]), the state a stopped search resumes from
//! ([`search_state`]), the tools that improve and recombine records ([`records`]: the
//! polish of a finished record, the splice of several and the bridges between them), the
//! full move set ([`full`]), the evaluator's weights ([`weights`]) and the files an
//! E-Tetris run writes ([`runs`]).
//! Every rule and figure is in `shared/spec/etetris.md`.

pub mod breakdown;
pub mod checked;
pub mod full;
pub mod game;
pub mod record;
pub mod records;
pub mod runs;
pub mod search_state;
pub mod solver;
pub mod weights;

pub use game::{sequence, Game, Grid, Placement, Spawn, PIECE_LIMIT};
pub use record::{replay, Record, Replay};
pub use search_state::SearchState;
pub use solver::{BeamSearch, MoveSet, Options, Solution};
pub use weights::Weights;
