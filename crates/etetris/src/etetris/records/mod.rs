//! The tools that improve and recombine records: the second stage that polishes a finished
//! record window by window ([`polish`], and [`polish_run`], the run that writes it as it goes and
//! resumes it from its manifest), the recombination of records where they meet ([`splice`]) and the
//! bridges searched between them where they never do ([`bridge`]). They play the game of
//! [`super::game`] with the beam search of [`super::solver`].

pub mod bridge;
pub mod polish;
pub mod polish_run;
pub mod splice;
