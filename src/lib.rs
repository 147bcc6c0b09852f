//! tetris-lab: a workbench for tuning and studying Tetris-playing AIs.
//!
//! The crate map, from the ground up:
//! - [`board`], [`piece`]: the bitboard and the piece shapes;
//! - [`randomizer`]: every piece generator, always seeded;
//! - [`rules`]: one file per rule set (sizes, spawn, candidates, game over);
//! - [`features`]: the board features, one file per published family;
//! - [`guideline`]: the frame-accurate guideline game and its key-press AI (`pygame-lee`);
//! - [`eval`]: evaluators (named features + weights) and the named presets;
//! - [`policy`]: how a placement is chosen (one piece, lookahead, hold-aware);
//! - [`sim`]: the one game loop every command uses;
//! - [`report`]: statistics, CSV output, Fahey's estimate;
//! - [`reproduce`]: the measurement plan, the published figures and their measuring code;
//! - [`benchmark`]: the simulator's speed figures (`cargo bench --bench simulator`);
//! - [`etetris`]: the E-Tetris contest game, its records and beam solvers;
//! - [`tune`]: optimizers (ask/tell), experiment files, the campaign driver, plots;
//! - [`limits`]: the upper bounds on every count a user gives;
//! - [`cli`]: one file per subcommand; `main.rs` only calls [`cli::main`].

pub mod benchmark;
pub mod board;
pub mod cli;
pub mod etetris;
pub mod eval;
pub mod features;
pub mod guideline;
pub mod limits;
pub mod names;
pub mod piece;
pub mod placement;
pub mod policy;
pub mod presets;
pub mod randomizer;
pub mod report;
pub mod reproduce;
pub mod rules;
pub mod sim;
pub mod tune;
