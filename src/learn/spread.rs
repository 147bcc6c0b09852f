//! Where a learner's independent jobs run: on this process's threads, or across MPI ranks
//! (`mpirun -n N tetris-lab learn ...`, the `mpi` build; see `learn::mpi`).
//!
//! A learner hands its parallel work (rollouts, learning games, candidates' games, the
//! classifier's loss, the scoring games) to [`World::map`](super::World::map) as jobs
//! `0..count`, each a function of its index alone. On one process they run on the thread
//! pool. Across ranks every rank runs the same run in lockstep: each plays the jobs whose
//! index is its rank modulo the ranks, the results are gathered in index order on every
//! rank, and every rank goes on from the same state. A job's result does not depend on
//! where it ran, so a run gives the single process's results at any number of ranks.

use super::run::Row;
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A run as rank 0 starts it, sent to the other ranks.
#[derive(Serialize, Deserialize)]
pub struct RunStart {
    pub text: String,
    pub learner: serde_json::Value,
    pub rows: Vec<Row>,
}

/// A way of running a run's jobs on several processes. Results travel as bytes (each
/// job's result encoded by [`World::map`](super::World::map)), in index order.
pub trait Spread {
    /// This process's rank and the number of ranks.
    fn ranks(&self) -> (usize, usize);
    /// A run starts on rank 0: the others are told to follow it.
    fn begin(&self, start: &RunStart) -> Result<()>;
    /// The run on rank 0 has ended (finished, stopped or failed).
    fn end(&self);
    /// Exchanges this rank's results (of jobs `rank, rank + ranks, ...` of `count`, in
    /// that order) and the samples they counted; returns every job's result in index
    /// order and the samples counted by all ranks. Fails with [`super::Stopped`] when the
    /// run is being stopped.
    fn exchange(&self, count: usize, mine: Vec<Vec<u8>>, samples: u64) -> Result<(Vec<Vec<u8>>, u64)>;
}

thread_local! {
    static CURRENT: RefCell<Option<Rc<dyn Spread>>> = const { RefCell::new(None) };
}

/// Whether some thread of this process has a spread: a job list handed over on another
/// thread would run on this rank alone and break the lockstep.
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Makes `spread` the way the learning runs of this thread run their jobs (set by the
/// command line under `mpirun`, on the main thread, where every run is driven).
pub fn set(spread: Rc<dyn Spread>) {
    ACTIVE.store(true, Ordering::SeqCst);
    CURRENT.with(|current| *current.borrow_mut() = Some(spread));
}

/// The spread set on this thread, if any (none: the jobs run on this process's threads).
pub fn current() -> Option<Rc<dyn Spread>> {
    let spread = CURRENT.with(|current| current.borrow().clone());
    assert!(
        spread.is_some() || !ACTIVE.load(Ordering::SeqCst),
        "a learner handed out jobs off the thread that drives the run across MPI ranks"
    );
    spread
}
