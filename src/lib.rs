//! tetris-lab: a workbench for tuning and studying Tetris-playing AIs.
//!
//! The workspace's crates are its architecture (docs/architecture.md): `tetris-support`
//! (the plumbing), `tetris-game` (the game, through [`presets`]), `tetris-etetris` (the
//! contest game) and this one, the lab and the command line, which re-exports the others'
//! modules so that the library reads as one. The map, from the ground up: a module uses
//! only the modules above it in this list (`tests/layers.rs` checks it).
//! - [`piece`], [`names`], [`limits`], [`interrupt`], [`checksum`]: the piece shapes; names
//!   and "did you mean"; the upper bounds on every count a user gives; Ctrl-C as a request
//!   to stop; the checksum of saved states;
//! - [`support`]: generic plumbing (atomic files, run folders and manifests, progress bars,
//!   statistics, number formatting, the thread pool), used by every part above;
//! - [`board`], [`randomizer`]: the bitboard; every piece generator, always seeded;
//! - [`placement`]: where a piece lands and what locking it did;
//! - [`features`]: the board features, one file per published family;
//! - [`eval`]: evaluators (named features + weights);
//! - [`guideline`]: the frame-accurate guideline game and its key-press AI (`pygame-lee`);
//! - [`rules`]: one file per rule set (sizes, spawn, candidates, game over);
//! - [`policy`]: how a placement is chosen (one piece, lookahead, hold-aware);
//! - [`sim`]: the one game loop every command uses (placement games and frame games);
//! - [`presets`]: the named published systems, built into games;
//! - [`report`], [`etetris`]: the game ledger, paired tests, the extrapolation over board
//!   heights; the E-Tetris contest game, its records and beam solvers;
//! - [`reproduce`], [`tune`], [`benchmark`], [`view`], [`sessions`]: the measurement plan,
//!   the published figures and their measuring code; optimizers (ask/tell), experiment
//!   files, the campaign driver, plots; the simulator's speed figures (`cargo bench --bench
//!   simulator`); watching games (pictures of each move as text, GIF and PNG; game traces);
//!   the E-Tetris runs that keep a journal (splice with bridges, versus);
//! - [`compare`], [`learn`]: sequential comparisons of controllers; the learners
//!   (lambda-PI, LSPI, CBMPI and DPI, cross-entropy) behind one iteration interface, their
//!   runs and studies;
//! - [`cli`]: one file per subcommand; `main.rs` only calls [`cli::main`].

pub use tetris_etetris::{etetris, sessions};
pub use tetris_game::{board, eval, features, guideline, piece, placement, policy, presets, randomizer, rules, sim};
pub use tetris_support::{checksum, interrupt, limits, names, support};

pub mod benchmark;
pub mod cli;
pub mod compare;
pub mod learn;
pub mod report;
pub mod reproduce;
pub mod tune;
pub mod view;
