//! E-Tetris runs that keep a journal of the report's ledger ([`crate::report::ledger::Journal`])
//! so that one stopped at any moment goes on where it stopped: the splice of records with
//! its bridges' searches ([`splice`]), and the paired comparison of two searches
//! ([`versus`]) with the files it keeps ([`versus_files`]). They sit above `etetris` and
//! `report`, which may not use each other.

pub mod splice;
pub mod versus;
pub mod versus_files;
