//! Generic plumbing every part uses, E-Tetris included: files written whole or not at all,
//! append-only journals of finished steps, run folders and their manifests, progress bars,
//! summary statistics and their intervals, number formatting, the worker-thread pool. It
//! knows nothing of Tetris.

pub mod atomic_file;
pub mod journal;
pub mod progress;
pub mod run_dir;
pub mod stats;
pub mod text;
pub mod threads;
