//! Reporting: summary statistics, CSV writers and (later) plots.

pub mod stats;
