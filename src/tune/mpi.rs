//! Campaigns across many machines (cargo feature `mpi`): `mpirun -n N tetris-lab tune ...`.
//!
//! Rank 0 is the coordinator: it runs the optimizer and the driver (logs, checkpoints,
//! plots) exactly as a single process does, and evaluates jobs with its own thread pool.
//! Every other rank is a worker that only evaluates jobs. A round's jobs are handed out in
//! small batches on demand, so a rank that finishes early takes the next batch and slow
//! and fast machines mix. Results are put back in job order, and a job's result depends
//! only on the job (its seed comes from the master seed, not from who plays it), so the
//! outputs are bit-identical to a single-process run with any number of ranks or threads.
//!
//! Only rank 0 touches the file system: workers receive the experiment text from it, so
//! `--resume` works with any number of ranks and the run folder need not be shared.
//!
//! Faults: Open MPI ends the whole job when a rank dies. Rank 0 then receives SIGTERM,
//! says which run folder holds the last checkpoint and how to resume, and exits; the
//! checkpoint, written atomically after every generation, loses at most the generation in
//! flight.
//!
//! All MPI calls are made by each process's main thread (`MPI_THREAD_FUNNELED`); the
//! coordinator's own share of the jobs runs on a second thread meanwhile.

use super::experiment::{build_objective, Experiment};
use super::objective::{Executor, ExperimentText, Objective, Played, Players, Round};
use anyhow::{anyhow, bail, Context, Result};
use mpi::point_to_point::MatchedReceiveVec;
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::{Destination, Source};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// Messages from rank 0 to a worker.
#[derive(Serialize, Deserialize)]
enum ToWorker {
    /// A campaign starts: its experiment file, from which the worker builds its objective.
    Campaign {
        name: String,
        text: String,
    },
    /// A round starts; the worker asks for batches until it gets `RoundDone`.
    Round(Round),
    /// Play jobs `first..first + count` of the current round.
    Batch {
        first: u64,
        count: u64,
    },
    RoundDone,
    /// The command is over: leave.
    Quit,
}

/// Messages from a worker to rank 0.
#[derive(Serialize, Deserialize)]
enum ToCoordinator {
    /// Sent once at start-up.
    Hello { threads: usize, host: String },
    /// Ready for a batch of the current round (sent once per round, then with each result).
    Ready,
    /// The results of a batch; `None` if the worker was stopped before it finished.
    Results { first: u64, results: Option<Vec<Played>> },
}

fn encode<T: Serialize>(message: &T) -> Vec<u8> {
    serde_json::to_vec(message).expect("messages serialize")
}

fn decode<T: for<'a> Deserialize<'a>>(bytes: &[u8], from: i32) -> Result<T> {
    serde_json::from_slice(bytes).with_context(|| format!("MPI rank {from} sent a message this version cannot read"))
}

/// Waits for the next message from `source` without spinning: Open MPI's blocking
/// receive polls at full speed, which would take a core from the games (rank 0 waits for
/// workers during every round). Polling with a sleep that backs off to 1 ms costs at most
/// a millisecond per batch.
fn receive(source: &impl Source) -> (Vec<u8>, i32) {
    let mut pause = Duration::from_micros(20);
    loop {
        if let Some(probed) = source.immediate_matched_probe() {
            let (bytes, status) = probed.matched_receive_vec::<u8>();
            return (bytes, status.source_rank());
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(1));
    }
}

/// The name of this machine, for the manifest.
fn host_name() -> String {
    let mut buffer = [0u8; 256];
    // SAFETY: the buffer is valid for its length; gethostname writes at most that much.
    let ok = unsafe { libc::gethostname(buffer.as_mut_ptr().cast(), buffer.len()) } == 0;
    let end = buffer.iter().position(|&b| b == 0).unwrap_or(buffer.len());
    if ok {
        String::from_utf8_lossy(&buffer[..end]).into_owned()
    } else {
        "unknown".into()
    }
}

/// The work loop of ranks other than 0. Returns when rank 0 says `Quit`.
pub fn work(world: &SimpleCommunicator, pool: &rayon::ThreadPool) -> Result<()> {
    let coordinator = world.process_at_rank(0);
    coordinator.send(&encode(&ToCoordinator::Hello { threads: pool.current_num_threads(), host: host_name() })[..]);
    // Ctrl-C reaches every rank; workers leave stopping to rank 0 and finish their batch.
    let never = AtomicBool::new(false);
    let live = AtomicU64::new(0);
    let mut objective: Option<Box<dyn Objective>> = None;
    loop {
        let (bytes, _) = receive(&coordinator);
        match decode::<ToWorker>(&bytes, 0)? {
            ToWorker::Campaign { name, text } => {
                let experiment = Experiment::parse(&text, &name).context("the experiment rank 0 sent")?;
                objective = Some(build_objective(&experiment)?);
            }
            ToWorker::Round(round) => {
                let objective =
                    objective.as_deref().ok_or_else(|| anyhow!("rank 0 sent a round before its campaign"))?;
                let players = Players { objective, pool, stop: &never, live: &live };
                coordinator.send(&encode(&ToCoordinator::Ready)[..]);
                loop {
                    let (bytes, _) = receive(&coordinator);
                    match decode::<ToWorker>(&bytes, 0)? {
                        ToWorker::Batch { first, count } => {
                            let results = players.run_jobs(&round, first, count)?;
                            coordinator.send(&encode(&ToCoordinator::Results { first, results })[..]);
                        }
                        ToWorker::RoundDone => break,
                        _ => bail!("rank 0 broke the protocol: expected a batch or the end of a round"),
                    }
                }
            }
            ToWorker::Quit => return Ok(()),
            _ => bail!("rank 0 broke the protocol: a batch outside a round"),
        }
    }
}

/// A worker as rank 0 knows it.
#[derive(Clone, Debug, Serialize)]
struct Worker {
    rank: i32,
    threads: usize,
    host: String,
}

/// Rank 0's [`Executor`]: hands batches to the workers and plays its own share.
pub struct Coordinator<'w> {
    world: &'w SimpleCommunicator,
    workers: Vec<Worker>,
    local_threads: usize,
    quit_sent: std::cell::Cell<bool>,
    /// Jobs each rank has played, by rank (reported when the workers leave).
    jobs_by_rank: std::cell::RefCell<Vec<u64>>,
}

impl<'w> Coordinator<'w> {
    /// Waits for every worker's hello.
    pub fn new(world: &'w SimpleCommunicator, local_threads: usize) -> Result<Coordinator<'w>> {
        let mut workers = Vec::new();
        for rank in 1..world.size() {
            let (bytes, _) = receive(&world.process_at_rank(rank));
            match decode::<ToCoordinator>(&bytes, rank)? {
                ToCoordinator::Hello { threads, host } => workers.push(Worker { rank, threads, host }),
                _ => bail!("MPI rank {rank} did not start with a hello"),
            }
        }
        Ok(Coordinator {
            world,
            workers,
            local_threads,
            quit_sent: std::cell::Cell::new(false),
            jobs_by_rank: std::cell::RefCell::new(vec![0; world.size() as usize]),
        })
    }

    /// Tells every worker to leave (also done on drop) and says how the jobs were shared.
    pub fn quit(&self) {
        if !self.quit_sent.replace(true) {
            for worker in &self.workers {
                self.world.process_at_rank(worker.rank).send(&encode(&ToWorker::Quit)[..]);
            }
            if !self.workers.is_empty() && self.jobs_by_rank.borrow().iter().any(|&jobs| jobs > 0) {
                let shares: Vec<String> = self
                    .jobs_by_rank
                    .borrow()
                    .iter()
                    .enumerate()
                    .map(|(rank, jobs)| format!("rank {rank}: {jobs}"))
                    .collect();
                eprintln!("MPI: jobs played by {}", shares.join(", "));
            }
        }
    }

    /// Jobs per batch: about eight batches per thread in the whole job, so the last
    /// batches are short and no rank waits long for a straggler.
    fn batch_size(&self, jobs: u64) -> u64 {
        let threads = self.local_threads + self.workers.iter().map(|w| w.threads).sum::<usize>();
        (jobs / (8 * threads as u64)).max(1)
    }
}

impl Drop for Coordinator<'_> {
    fn drop(&mut self) {
        self.quit();
    }
}

/// Hands out `first..first + count` batches of a round from one counter shared by every
/// rank, rank 0's own thread included.
struct Batches {
    next: AtomicU64,
    jobs: u64,
    size: u64,
}

impl Batches {
    fn take(&self) -> Option<(u64, u64)> {
        let first = self.next.fetch_add(self.size, Ordering::Relaxed);
        (first < self.jobs).then(|| (first, self.size.min(self.jobs - first)))
    }
}

impl Executor for Coordinator<'_> {
    fn begin(&self, experiment: &ExperimentText, run_dir: &Path) -> Result<()> {
        set_termination_message(run_dir);
        let message =
            encode(&ToWorker::Campaign { name: experiment.name.to_string(), text: experiment.text.to_string() });
        for worker in &self.workers {
            self.world.process_at_rank(worker.rank).send(&message[..]);
        }
        Ok(())
    }

    fn run(&self, round: &Round, players: &Players) -> Result<Option<Vec<Played>>> {
        let (stop, live) = (players.stop, players.live);
        let jobs = round.jobs();
        let batches = Batches { next: AtomicU64::new(0), jobs, size: self.batch_size(jobs) };
        let results: Mutex<Vec<Option<Played>>> = Mutex::new(vec![None; jobs as usize]);
        let local_error: Mutex<Option<anyhow::Error>> = Mutex::new(None);
        let store = |first: u64, played: &[Played]| {
            let mut results = results.lock().expect("no panics while holding the lock");
            for (slot, p) in results[first as usize..].iter_mut().zip(played) {
                *slot = Some(*p);
            }
        };
        let stopped = AtomicBool::new(false);
        let local_jobs = AtomicU64::new(0);
        let message = encode(&ToWorker::Round(round.clone()));
        for worker in &self.workers {
            self.world.process_at_rank(worker.rank).send(&message[..]);
        }
        std::thread::scope(|scope| -> Result<()> {
            // Rank 0's own share, on its pool, while this thread serves the workers.
            scope.spawn(|| {
                while let Some((first, count)) = batches.take() {
                    match players.run_jobs(round, first, count) {
                        Ok(Some(played)) => {
                            local_jobs.fetch_add(count, Ordering::Relaxed);
                            store(first, &played)
                        }
                        Ok(None) => {
                            stopped.store(true, Ordering::Relaxed);
                            break;
                        }
                        Err(error) => {
                            // The workers finish their batches; the round then fails.
                            *local_error.lock().expect("no panics while holding the lock") = Some(error);
                            stopped.store(true, Ordering::Relaxed);
                            break;
                        }
                    }
                }
            });
            let mut active = self.workers.len();
            while active > 0 {
                let (bytes, from) = receive(&self.world.any_process());
                match decode::<ToCoordinator>(&bytes, from)? {
                    ToCoordinator::Ready => {}
                    ToCoordinator::Results { first, results: Some(played) } => {
                        if first + played.len() as u64 > jobs {
                            bail!("MPI rank {from} returned results for jobs this round does not have");
                        }
                        live.fetch_add(played.iter().map(|p| p.pieces).sum(), Ordering::Relaxed);
                        store(first, &played);
                        self.jobs_by_rank.borrow_mut()[from as usize] += played.len() as u64;
                    }
                    ToCoordinator::Results { results: None, .. } => stopped.store(true, Ordering::Relaxed),
                    ToCoordinator::Hello { .. } => bail!("MPI rank {from} said hello twice"),
                }
                let next =
                    if stop.load(Ordering::Relaxed) || stopped.load(Ordering::Relaxed) { None } else { batches.take() };
                let reply = match next {
                    Some((first, count)) => ToWorker::Batch { first, count },
                    None => {
                        active -= 1;
                        ToWorker::RoundDone
                    }
                };
                self.world.process_at_rank(from).send(&encode(&reply)[..]);
            }
            Ok(())
        })?;
        if let Some(error) = local_error.into_inner().expect("no panics while holding the lock") {
            return Err(error);
        }
        self.jobs_by_rank.borrow_mut()[0] += local_jobs.into_inner();
        let results = results.into_inner().expect("no panics while holding the lock");
        if stopped.load(Ordering::Relaxed) || stop.load(Ordering::Relaxed) && results.iter().any(Option::is_none) {
            return Ok(None);
        }
        let results: Option<Vec<Played>> = results.into_iter().collect();
        results.map(Some).ok_or_else(|| anyhow!("internal error: a round ended with jobs nobody played"))
    }

    fn describe(&self) -> serde_json::Value {
        serde_json::json!({
            "kind": "mpi",
            "ranks": self.world.size(),
            "rank0": { "threads": self.local_threads, "host": host_name() },
            "workers": self.workers,
        })
    }
}

/// What rank 0 prints if it is terminated (under `mpirun`: Ctrl-C, or another rank died),
/// prepared in advance because a signal handler may not allocate or lock. It is a leaked
/// `&'static [u8]` behind an atomic pointer: the handler reads it with one atomic load, so
/// it never sees a message half replaced (a replaced message is leaked, once per run).
static TERMINATION_MESSAGE: AtomicPtr<&'static [u8]> = AtomicPtr::new(std::ptr::null_mut());

fn set_termination_message(run_dir: &Path) {
    let text = format!(
        "\ntetris-lab: terminated by mpirun (Ctrl-C, or an MPI rank died). The run keeps every \
         generation up to its last checkpoint; continue it (with any number of ranks): \
         mpirun -n N tetris-lab tune --resume {}\n",
        run_dir.display()
    );
    let bytes: &'static [u8] = Box::leak(text.into_bytes().into_boxed_slice());
    TERMINATION_MESSAGE.store(Box::into_raw(Box::new(bytes)), Ordering::SeqCst);
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: the handler only loads an atomic pointer to bytes that are never freed,
        // writes them and exits: all async-signal-safe.
        unsafe {
            libc::signal(libc::SIGTERM, on_terminate as *const () as libc::sighandler_t);
        }
    });
}

extern "C" fn on_terminate(_signal: libc::c_int) {
    let message = TERMINATION_MESSAGE.load(Ordering::SeqCst);
    if !message.is_null() {
        // SAFETY: a non-null pointer was made by Box::into_raw of a leaked slice and is
        // never freed; writing a valid buffer to stderr.
        unsafe {
            let bytes: &[u8] = *message;
            libc::write(2, bytes.as_ptr().cast(), bytes.len());
        }
    }
    // SAFETY: _exit is async-signal-safe; the checkpoint on disk is always whole.
    unsafe { libc::_exit(143) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_cover_every_job_once() {
        let batches = Batches { next: AtomicU64::new(0), jobs: 10, size: 4 };
        assert_eq!(batches.take(), Some((0, 4)));
        assert_eq!(batches.take(), Some((4, 4)));
        assert_eq!(batches.take(), Some((8, 2)));
        assert_eq!(batches.take(), None);
        assert_eq!(batches.take(), None);
    }

    #[test]
    fn messages_round_trip_exactly() {
        let played = vec![Played { fitness: 0.1 + 0.2, pieces: 7, seconds: 1e-300 }];
        let bytes = encode(&ToCoordinator::Results { first: 3, results: Some(played.clone()) });
        match decode::<ToCoordinator>(&bytes, 1).unwrap() {
            ToCoordinator::Results { first: 3, results: Some(back) } => assert_eq!(back, played),
            _ => panic!("wrong message"),
        }
        let round = Round { weights: vec![vec![-1.0 / 3.0, 2.5e-17]], master: u64::MAX, games: 4, held_out: true };
        match decode::<ToWorker>(&encode(&ToWorker::Round(round.clone())), 0).unwrap() {
            ToWorker::Round(back) => assert_eq!(back, round),
            _ => panic!("wrong message"),
        }
    }
}
