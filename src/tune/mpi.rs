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
//! Several campaigns can be served at once: a study runs one repetition per rank side by
//! side ([`Executor::side_by_side`]), each on its own thread of rank 0, and the workers
//! take batches from whichever round is waiting, oldest first. Campaigns with small
//! rounds (Nelder-Mead evaluates one or two points at a time) then keep every rank busy
//! instead of waiting for each other's rounds.
//!
//! Only rank 0 touches the file system: workers receive the experiment text from it, so
//! `--resume` works with any number of ranks and the run folder need not be shared.
//!
//! Faults: Open MPI ends the whole job when a rank dies. Rank 0 says at the start which
//! run (or study) folder to resume; on SIGTERM it says it again and exits; the checkpoint, written atomically after every generation, loses at most the
//! generation in flight.
//!
//! All MPI calls are made by each process's main thread (`MPI_THREAD_FUNNELED`): on rank 0
//! the main thread runs [`Coordinator::serve`], the campaigns run on other threads and
//! talk to it through the coordinator's shared state. Rank 0 sends a worker a message only
//! while that worker waits for one, so no send blocks on a busy rank.

use super::experiment::{build_objective, Experiment};
use super::objective::{CampaignId, Executor, ExperimentText, Objective, Played, Players, Round};
use super::study;
use anyhow::{anyhow, bail, Context, Result};
use mpi::point_to_point::MatchedReceiveVec;
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::{Destination, Source};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

/// Messages from rank 0 to a worker.
#[derive(Serialize, Deserialize)]
enum ToWorker {
    /// A campaign the worker will play rounds of: its experiment file, from which the
    /// worker builds its objective.
    Campaign { id: CampaignId, name: String, text: String },
    /// The campaign is over: drop its objective.
    Forget { id: CampaignId },
    /// A round the worker will play batches of.
    Round { id: u64, campaign: CampaignId, round: Round },
    /// The round is over: drop it.
    ForgetRound { id: u64 },
    /// Play jobs `first..first + count` of round `round`, then send the results.
    Batch { round: u64, first: u64, count: u64 },
    /// The command is over: leave.
    Quit,
}

/// Messages from a worker to rank 0.
#[derive(Serialize, Deserialize)]
enum ToCoordinator {
    /// Sent once at start-up; the worker then waits for work.
    Hello { threads: usize, host: String },
    /// The results of a batch; `None` if the worker was stopped before it finished.
    Results { round: u64, first: u64, results: Option<Vec<Played>> },
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
pub(crate) fn receive(source: &impl Source) -> (Vec<u8>, i32) {
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
    let mut objectives: BTreeMap<CampaignId, Box<dyn Objective>> = BTreeMap::new();
    let mut rounds: BTreeMap<u64, (CampaignId, Round)> = BTreeMap::new();
    loop {
        let (bytes, _) = receive(&coordinator);
        match decode::<ToWorker>(&bytes, 0)? {
            ToWorker::Campaign { id, name, text } => {
                let experiment = Experiment::parse(&text, &name).context("the experiment rank 0 sent")?;
                objectives.insert(id, build_objective(&experiment)?);
            }
            ToWorker::Forget { id } => {
                objectives.remove(&id);
            }
            ToWorker::Round { id, campaign, round } => {
                rounds.insert(id, (campaign, round));
            }
            ToWorker::ForgetRound { id } => {
                rounds.remove(&id);
            }
            ToWorker::Batch { round, first, count } => {
                let (campaign, played) = rounds
                    .get(&round)
                    .ok_or_else(|| anyhow!("rank 0 sent a batch of round {round} before the round"))?;
                let objective = objectives
                    .get(campaign)
                    .ok_or_else(|| anyhow!("rank 0 sent a round of campaign {campaign} before the campaign"))?;
                let players = Players { objective: objective.as_ref(), pool, stop: &never, live: &live };
                let results = players.run_jobs(played, first, count)?;
                coordinator.send(&encode(&ToCoordinator::Results { round, first, results })[..]);
            }
            ToWorker::Quit => return Ok(()),
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

/// What rank 0's main thread keeps of each worker.
#[derive(Default)]
struct Seat {
    /// Playing a batch (rank 0 sends nothing until its results come).
    busy: bool,
    campaigns: BTreeSet<CampaignId>,
    rounds: BTreeSet<u64>,
}

/// A round being played.
struct Active {
    id: u64,
    campaign: CampaignId,
    round: Round,
    jobs: u64,
    /// Jobs per batch.
    size: u64,
    /// The first job not handed out yet.
    next: u64,
    /// Batches handed out (to a worker or to rank 0's own threads) and not back yet.
    outstanding: u64,
    results: Vec<Option<Played>>,
    /// Pieces the workers played, not yet told to the campaign's progress bar.
    pieces: u64,
    /// Ctrl-C, or an error: no more batches are handed out.
    stopped: bool,
    error: Option<anyhow::Error>,
}

impl Active {
    fn new(id: u64, campaign: CampaignId, round: Round, size: u64) -> Active {
        let jobs = round.jobs();
        Active {
            id,
            campaign,
            round,
            jobs,
            size,
            next: 0,
            outstanding: 0,
            results: vec![None; jobs as usize],
            pieces: 0,
            stopped: false,
            error: None,
        }
    }

    /// The next batch, if any is left.
    fn take(&mut self) -> Option<(u64, u64)> {
        if self.stopped || self.next >= self.jobs {
            return None;
        }
        let first = self.next;
        let count = self.size.min(self.jobs - first);
        self.next += count;
        self.outstanding += 1;
        Some((first, count))
    }

    fn store(&mut self, first: u64, played: &[Played]) {
        for (slot, p) in self.results[first as usize..].iter_mut().zip(played) {
            *slot = Some(*p);
        }
    }
}

/// What rank 0's threads share: the campaigns and the rounds waiting to be played.
#[derive(Default)]
struct State {
    next_campaign: CampaignId,
    /// The campaigns running, with their experiment's name and text.
    campaigns: BTreeMap<CampaignId, (String, String)>,
    next_round: u64,
    /// Rounds being played, oldest first.
    rounds: Vec<Active>,
    /// Run folders of the campaigns running, for the termination message.
    run_dirs: BTreeMap<CampaignId, std::path::PathBuf>,
    /// The folders last named as the ones to resume (printed when they change).
    resume_folders: String,
    /// Jobs each rank has played, by rank.
    jobs_by_rank: Vec<u64>,
    /// The command is over: `serve` returns once no worker is busy.
    finished: bool,
}

/// Rank 0's [`Executor`]. The campaigns (one, or a study's repetitions side by side) call
/// it from their threads; [`Coordinator::serve`], on the main thread, hands batches to
/// the workers and collects their results.
pub struct Coordinator {
    ranks: usize,
    workers: Vec<Worker>,
    local_threads: usize,
    state: Mutex<State>,
    /// Signalled when a batch comes back.
    changed: Condvar,
}

impl Coordinator {
    /// Waits for every worker's hello.
    pub fn new(world: &SimpleCommunicator, local_threads: usize) -> Result<Coordinator> {
        let mut workers = Vec::new();
        for rank in 1..world.size() {
            let (bytes, _) = receive(&world.process_at_rank(rank));
            match decode::<ToCoordinator>(&bytes, rank)? {
                ToCoordinator::Hello { threads, host } => workers.push(Worker { rank, threads, host }),
                _ => bail!("MPI rank {rank} did not start with a hello"),
            }
        }
        let state = State { jobs_by_rank: vec![0; world.size() as usize], ..State::default() };
        Ok(Coordinator {
            ranks: world.size() as usize,
            workers,
            local_threads,
            state: Mutex::new(state),
            changed: Condvar::new(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().expect("no panics while holding the lock")
    }

    /// Runs `command` (the campaigns) on a second thread while this one serves the
    /// workers; then tells the workers to leave and says how the jobs were shared.
    pub fn run_with<T: Send>(&self, world: &SimpleCommunicator, command: impl FnOnce() -> T + Send) -> Result<T> {
        std::thread::scope(|scope| {
            let campaigns = scope.spawn(|| {
                let result = command();
                self.lock().finished = true;
                result
            });
            let served = self.serve(world);
            if served.is_err() {
                // The campaigns' rounds would wait forever for the workers: stop them.
                let mut state = self.lock();
                state.finished = true;
                for active in &mut state.rounds {
                    active.stopped = true;
                    active.outstanding = 0;
                    active.error.get_or_insert_with(|| anyhow!("the MPI coordinator failed"));
                }
                drop(state);
                self.changed.notify_all();
            }
            let result = campaigns.join().map_err(|_| anyhow!("a campaign thread panicked"))?;
            served.map(|_| result)
        })
    }

    /// The main thread's loop: receives results, hands out batches, and tells workers
    /// what they need (campaigns, rounds) and what they can drop. Returns when the
    /// campaigns are over and no worker is busy, after telling every worker to leave.
    fn serve(&self, world: &SimpleCommunicator) -> Result<()> {
        let mut seats: Vec<Seat> = self.workers.iter().map(|_| Seat::default()).collect();
        let mut pause = Duration::from_micros(20);
        loop {
            let mut progress = false;
            while let Some(probed) = world.any_process().immediate_matched_probe() {
                let (bytes, status) = probed.matched_receive_vec::<u8>();
                let from = status.source_rank();
                let seat = seats
                    .get_mut((from - 1) as usize)
                    .ok_or_else(|| anyhow!("a message from MPI rank {from}, which is not a worker"))?;
                match decode::<ToCoordinator>(&bytes, from)? {
                    ToCoordinator::Results { round, first, results } => {
                        if !seat.busy {
                            bail!("MPI rank {from} sent results it was not asked for");
                        }
                        seat.busy = false;
                        let mut state = self.lock();
                        let active = state
                            .rounds
                            .iter_mut()
                            .find(|a| a.id == round)
                            .ok_or_else(|| anyhow!("MPI rank {from} returned results of a round that is over"))?;
                        active.outstanding -= 1;
                        match results {
                            Some(played) => {
                                if first + played.len() as u64 > active.jobs {
                                    bail!("MPI rank {from} returned results for jobs this round does not have");
                                }
                                active.pieces += played.iter().map(|p| p.pieces).sum::<u64>();
                                active.store(first, &played);
                                state.jobs_by_rank[from as usize] += played.len() as u64;
                            }
                            None => active.stopped = true,
                        }
                        drop(state);
                        self.changed.notify_all();
                    }
                    ToCoordinator::Hello { .. } => bail!("MPI rank {from} said hello twice"),
                }
                progress = true;
            }
            let (messages, over) = self.dispatch(&mut seats);
            progress |= !messages.is_empty();
            for (rank, message) in messages {
                world.process_at_rank(rank).send(&encode(&message)[..]);
            }
            if over {
                break;
            }
            if progress {
                pause = Duration::from_micros(20);
            } else {
                // Open MPI's blocking receive polls at full speed, which would take a core
                // from the games: poll with a sleep that backs off to 1 ms instead.
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(1));
            }
        }
        for worker in &self.workers {
            world.process_at_rank(worker.rank).send(&encode(&ToWorker::Quit)[..]);
        }
        let state = self.lock();
        if !self.workers.is_empty() && state.jobs_by_rank.iter().any(|&jobs| jobs > 0) {
            let shares: Vec<String> =
                state.jobs_by_rank.iter().enumerate().map(|(rank, jobs)| format!("rank {rank}: {jobs}")).collect();
            eprintln!("MPI: jobs played by {}", shares.join(", "));
        }
        Ok(())
    }

    /// The messages to send to idle workers now: what they should forget, what they need,
    /// and a batch each while batches are left (oldest round first); and whether the
    /// command is over (nothing left to serve).
    fn dispatch(&self, seats: &mut [Seat]) -> (Vec<(i32, ToWorker)>, bool) {
        let mut state = self.lock();
        let mut messages = Vec::new();
        for (worker, seat) in self.workers.iter().zip(seats.iter_mut()) {
            if seat.busy {
                continue;
            }
            let gone: Vec<u64> =
                seat.rounds.iter().copied().filter(|id| !state.rounds.iter().any(|a| a.id == *id)).collect();
            for id in gone {
                seat.rounds.remove(&id);
                messages.push((worker.rank, ToWorker::ForgetRound { id }));
            }
            let ended: Vec<CampaignId> =
                seat.campaigns.iter().copied().filter(|id| !state.campaigns.contains_key(id)).collect();
            for id in ended {
                seat.campaigns.remove(&id);
                messages.push((worker.rank, ToWorker::Forget { id }));
            }
            let Some(active) = state.rounds.iter_mut().find(|a| !a.stopped && a.next < a.jobs) else { continue };
            let (first, count) = active.take().expect("a round with jobs left");
            let (round_id, campaign) = (active.id, active.campaign);
            if seat.rounds.insert(round_id) {
                if seat.campaigns.insert(campaign) {
                    let (name, text) = state.campaigns.get(&campaign).cloned().unwrap_or_default();
                    messages.push((worker.rank, ToWorker::Campaign { id: campaign, name, text }));
                }
                let round = state.rounds.iter().find(|a| a.id == round_id).expect("found above").round.clone();
                messages.push((worker.rank, ToWorker::Round { id: round_id, campaign, round }));
            }
            messages.push((worker.rank, ToWorker::Batch { round: round_id, first, count }));
            seat.busy = true;
        }
        let over = state.finished && seats.iter().all(|seat| !seat.busy);
        (messages, over)
    }

    /// Jobs per batch: about eight batches per thread in the whole job, so the last
    /// batches are short and no rank waits long for a straggler.
    fn batch_size(&self, jobs: u64) -> u64 {
        let threads = self.local_threads + self.workers.iter().map(|w| w.threads).sum::<usize>();
        (jobs / (8 * threads as u64)).max(1)
    }

    fn set_termination_message(&self, state: &mut State) {
        // A study's repetitions are resumed together, from the study folder.
        let folders: BTreeSet<std::path::PathBuf> = state
            .run_dirs
            .values()
            .map(|dir| match dir.parent().and_then(Path::parent).filter(|d| study::is_study(d)) {
                Some(study) => study.to_path_buf(),
                None => dir.clone(),
            })
            .collect();
        let folders: Vec<String> = folders.iter().map(|f| f.display().to_string()).collect();
        let folders = folders.join(" and ");
        if folders != state.resume_folders {
            // Said now as well as on SIGTERM: when a rank dies, mpirun may end rank 0 and
            // its output before the termination message gets through.
            eprintln!("if the job stops, continue it with: mpirun -n N tetris-lab tune --resume {folders}");
            set_termination_message(&folders);
            state.resume_folders = folders;
        }
    }
}

impl Executor for Coordinator {
    fn begin(&self, experiment: &ExperimentText, run_dir: &Path) -> Result<CampaignId> {
        let mut state = self.lock();
        let id = state.next_campaign;
        state.next_campaign += 1;
        state.campaigns.insert(id, (experiment.name.to_string(), experiment.text.to_string()));
        state.run_dirs.insert(id, run_dir.to_path_buf());
        self.set_termination_message(&mut state);
        Ok(id)
    }

    fn end(&self, campaign: CampaignId) {
        let mut state = self.lock();
        state.campaigns.remove(&campaign);
        state.run_dirs.remove(&campaign);
    }

    fn side_by_side(&self) -> usize {
        self.ranks
    }

    fn run(&self, campaign: CampaignId, round: &Round, players: &Players) -> Result<Option<Vec<Played>>> {
        let jobs = round.jobs();
        let id = {
            let mut state = self.lock();
            let id = state.next_round;
            state.next_round += 1;
            state.rounds.push(Active::new(id, campaign, round.clone(), self.batch_size(jobs)));
            id
        };
        let find = |state: &mut State| -> usize {
            state.rounds.iter().position(|a| a.id == id).expect("a round stays until its campaign takes it back")
        };
        // Rank 0's own share, on this campaign's pool, while the main thread serves the
        // workers.
        loop {
            let batch = {
                let mut state = self.lock();
                let index = find(&mut state);
                let active = &mut state.rounds[index];
                if players.stop.load(Ordering::Relaxed) {
                    active.stopped = true;
                }
                active.take()
            };
            let Some((first, count)) = batch else { break };
            let played = players.run_jobs(round, first, count);
            let mut state = self.lock();
            let index = find(&mut state);
            let active = &mut state.rounds[index];
            active.outstanding -= 1;
            match played {
                Ok(Some(played)) => {
                    active.store(first, &played);
                    state.jobs_by_rank[0] += count;
                }
                Ok(None) => active.stopped = true,
                Err(error) => {
                    // The workers finish their batches; the round then fails.
                    active.stopped = true;
                    active.error.get_or_insert(error);
                }
            }
        }
        // The workers' batches.
        let mut state = self.lock();
        let active = loop {
            let index = find(&mut state);
            let active = &mut state.rounds[index];
            players.live.fetch_add(std::mem::take(&mut active.pieces), Ordering::Relaxed);
            if players.stop.load(Ordering::Relaxed) {
                active.stopped = true;
            }
            if active.outstanding == 0 && (active.stopped || active.next >= active.jobs) {
                break state.rounds.remove(index);
            }
            state = self
                .changed
                .wait_timeout(state, Duration::from_millis(100))
                .expect("no panics while holding the lock")
                .0;
        };
        drop(state);
        if let Some(error) = active.error {
            return Err(error);
        }
        let results: Option<Vec<Played>> = active.results.into_iter().collect();
        match results {
            Some(results) => Ok(Some(results)),
            None if active.stopped => Ok(None),
            None => Err(anyhow!("internal error: a round ended with jobs nobody played")),
        }
    }

    fn describe(&self) -> serde_json::Value {
        serde_json::json!({
            "kind": "mpi",
            "ranks": self.ranks,
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

fn set_termination_message(folders: &str) {
    let text = format!(
        "\ntetris-lab: terminated by mpirun (Ctrl-C, or an MPI rank died). The run keeps every \
         generation up to its last checkpoint; continue it (with any number of ranks): \
         mpirun -n N tetris-lab tune --resume {folders}\n"
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

    fn active(jobs: u64, size: u64) -> Active {
        Active::new(0, 0, Round { weights: vec![vec![0.0]], master: 1, games: jobs, held_out: false }, size)
    }

    #[test]
    fn batches_cover_every_job_once() {
        let mut batches = active(10, 4);
        assert_eq!(batches.take(), Some((0, 4)));
        assert_eq!(batches.take(), Some((4, 4)));
        assert_eq!(batches.take(), Some((8, 2)));
        assert_eq!(batches.take(), None);
        assert_eq!(batches.take(), None);
        assert_eq!(batches.outstanding, 3);
    }

    #[test]
    fn a_stopped_round_hands_out_nothing() {
        let mut batches = active(10, 4);
        assert_eq!(batches.take(), Some((0, 4)));
        batches.stopped = true;
        assert_eq!(batches.take(), None);
        assert_eq!(batches.outstanding, 1);
    }

    #[test]
    fn messages_round_trip_exactly() {
        let played = vec![Played { fitness: 0.1 + 0.2, pieces: 7, seconds: 1e-300 }];
        let bytes = encode(&ToCoordinator::Results { round: 5, first: 3, results: Some(played.clone()) });
        match decode::<ToCoordinator>(&bytes, 1).unwrap() {
            ToCoordinator::Results { round: 5, first: 3, results: Some(back) } => assert_eq!(back, played),
            _ => panic!("wrong message"),
        }
        let round = Round { weights: vec![vec![-1.0 / 3.0, 2.5e-17]], master: u64::MAX, games: 4, held_out: true };
        match decode::<ToWorker>(&encode(&ToWorker::Round { id: 2, campaign: 1, round: round.clone() }), 0).unwrap() {
            ToWorker::Round { id: 2, campaign: 1, round: back } => assert_eq!(back, round),
            _ => panic!("wrong message"),
        }
    }
}
