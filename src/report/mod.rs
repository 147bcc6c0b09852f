//! Reporting on games: the game ledger (every game of a run, resumable), paired
//! differences and the sequential test, the extrapolation over board heights and the
//! games it plays.

pub mod extrapolation;
pub mod height_games;
pub mod ledger;
pub mod paired;
