//! Reporting: summary statistics, CSV writers and (later) plots.

pub mod extrapolation;
pub mod ledger;
pub mod progress;
pub mod run_dir;
pub mod stats;
