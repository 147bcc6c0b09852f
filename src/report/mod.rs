//! Reporting: summary statistics, CSV writers and (later) plots.

pub mod fahey;
pub mod stats;
