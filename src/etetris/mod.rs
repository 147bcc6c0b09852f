//! E-Tetris, the 2021 contest game: its rules ([`game`]), records ([`record`]) and what
//! their points are made of ([`breakdown`]), the seed's beam solver made fast ([`solver`]),
//! its checked solve ([`checked`]), the state a stopped search resumes from
//! ([`search_state`]), the second stage that polishes a finished record
//! ([`polish`]), the recombination of records ([`splice`]) and the bridges between them
//! ([`bridge`]), the full move set ([`full`]) and the evaluator's weights ([`weights`]).
//! Every rule and figure is in `shared/spec/etetris.md`.

pub mod breakdown;
pub mod bridge;
pub mod checked;
pub mod full;
pub mod game;
pub mod polish;
pub mod record;
pub mod runs;
pub mod search_state;
pub mod solver;
pub mod splice;
pub mod weights;

pub use game::{sequence, Game, Grid, Placement, Spawn, PIECE_LIMIT};
pub use record::{replay, Record, Replay};
pub use search_state::SearchState;
pub use solver::{BeamSearch, MoveSet, Options, Solution};
pub use weights::Weights;
