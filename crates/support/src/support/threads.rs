//! The one builder of worker-thread pools: every command's `--threads` goes through it.

use anyhow::{Context, Result};

/// A rayon pool of `threads` workers (all cores when `None`; more than the cores is capped
/// to them, see [`crate::limits::threads`]).
pub fn thread_pool(threads: Option<usize>) -> Result<rayon::ThreadPool> {
    let threads = crate::limits::threads(threads)?;
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().context("cannot start worker threads")
}
