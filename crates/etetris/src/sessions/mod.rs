//! E-Tetris runs that keep a journal ([`crate::support::journal::Journal`]) so that one
//! stopped at any moment goes on where it stopped: the splice of records with its bridges'
//! searches ([`splice`]), and the paired comparison of two searches ([`versus`]) with the
//! files it keeps ([`versus_files`]).

pub mod splice;
pub mod versus;
pub mod versus_files;
