//! Reporting: summary statistics and paired tests, CSV writers, the game ledger, run
//! folders.

pub mod atomic_file;
pub mod extrapolation;
pub mod height_games;
pub mod ledger;
pub mod paired;
pub mod run_dir;
pub mod stats;
pub mod text;
