//! Reporting: summary statistics, CSV writers and (later) plots.

pub mod atomic_file;
pub mod fahey;
pub mod progress;
pub mod run_dir;
pub mod stats;
