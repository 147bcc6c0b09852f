//! Reporting: summary statistics, CSV writers, the game ledger and (later) plots.

pub mod atomic_file;
pub mod extrapolation;
pub mod height_games;
pub mod ledger;
pub mod progress;
pub mod run_dir;
pub mod stats;
pub mod text;
