//! A comparison across MPI ranks (cargo feature `mpi`): `mpirun -n N tetris-lab compare A B`.
//!
//! Rank 0 runs the comparison as a single process does (the ledger, the decision, every
//! file) and hands each batch's missing games out: game j of the batch to rank j mod N,
//! its own share played on its pool. A game's record depends only on its seed, and the
//! decision is taken pair by pair in pair order, so the result is the single process's at
//! any number of ranks. Workers get the controllers from rank 0 (presets and weights-file
//! texts), so no file needs to be shared. All MPI calls are made on the main thread.

use super::{Controller, Finished, Job, Local, Players, Setup, Sides};
use crate::sim::{GameEnd, GameRecord};
use crate::tune::objective::Fitness;
use anyhow::{bail, Context, Result};
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::{Destination, Source};
use serde::{Deserialize, Serialize};
use std::sync::atomic::AtomicU64;
use std::sync::Mutex;

/// A controller as rank 0 sends it: its preset and its weights file's name and text.
#[derive(Serialize, Deserialize)]
struct Side {
    preset: String,
    weights: Option<(String, String)>,
}

/// Messages from rank 0 to a worker.
#[derive(Serialize, Deserialize)]
enum ToWorker {
    /// What is compared (sent once, before the first batch).
    Setup {
        a: Side,
        b: Side,
        rules: Option<String>,
        board: Option<(usize, usize)>,
        seed: u64,
        max_pieces: Option<u64>,
        unpaired: bool,
    },
    /// Play these games (side B?, pair) and send their records.
    Batch { jobs: Vec<(bool, u64)> },
    /// The comparison is over: leave.
    Quit,
}

/// A game's record on the wire: seed, lines, pieces, score, level, capped.
type Wire = (u64, u64, u64, u64, Option<u32>, bool);

fn to_wire(r: &GameRecord) -> Wire {
    (r.seed, r.lines, r.pieces, r.score, r.level, r.end == GameEnd::PieceCap)
}

fn from_wire(w: Wire) -> GameRecord {
    let (seed, lines, pieces, score, level, capped) = w;
    GameRecord { seed, lines, pieces, score, level, end: if capped { GameEnd::PieceCap } else { GameEnd::GameOver } }
}

/// Messages from a worker to rank 0.
#[derive(Serialize, Deserialize)]
enum ToCoordinator {
    Hello { threads: usize },
    Results { records: Vec<Wire> },
}

fn encode<T: Serialize>(message: &T) -> Vec<u8> {
    serde_json::to_vec(message).expect("messages serialize")
}

fn decode<T: for<'a> Deserialize<'a>>(bytes: &[u8], from: i32) -> Result<T> {
    serde_json::from_slice(bytes).with_context(|| format!("MPI rank {from} sent a message this version cannot read"))
}

/// The next message from `source` (waiting as tune's ranks wait, without spinning).
fn receive(source: &impl Source) -> Vec<u8> {
    crate::tune::mpi::receive(source).0
}

/// The loop of ranks other than 0: build the comparison rank 0 sends, play the batches,
/// leave on `Quit`.
pub fn work(world: &SimpleCommunicator, pool: &rayon::ThreadPool) -> Result<()> {
    let coordinator = world.process_at_rank(0);
    coordinator.send(&encode(&ToCoordinator::Hello { threads: pool.current_num_threads() })[..]);
    let folder = tempfile::tempdir().context("cannot make a folder for the weights rank 0 sends")?;
    let mut compared: Option<(Setup, Sides)> = None;
    let live = AtomicU64::new(0);
    loop {
        match decode::<ToWorker>(&receive(&coordinator), 0)? {
            ToWorker::Setup { a, b, rules, board, seed, max_pieces, unpaired } => {
                let controller = |side: Side, name: &str| -> Result<Controller> {
                    let weights = match side.weights {
                        Some((file, text)) => {
                            let path = folder.path().join(name);
                            std::fs::write(&path, text).with_context(|| format!("cannot keep {file} here"))?;
                            Some(path)
                        }
                        None => None,
                    };
                    Ok(Controller { preset: crate::presets::find(&side.preset)?, weights })
                };
                let setup = Setup {
                    a: controller(a, "a.toml")?,
                    b: controller(b, "b.toml")?,
                    rules,
                    board,
                    seed,
                    // Not used here: rank 0 scores the games and decides.
                    fitness: Fitness::Rows,
                    max_pieces,
                    unpaired,
                    mode: super::Mode::Fixed { pairs: 0 },
                };
                let sides = setup.build().context("the comparison rank 0 sent")?;
                compared = Some((setup, sides));
            }
            ToWorker::Batch { jobs } => {
                let Some((setup, sides)) = &compared else { bail!("rank 0 sent a batch before the comparison") };
                let jobs: Vec<Job> = jobs.into_iter().map(|(b_side, pair)| Job { b_side, pair }).collect();
                let records = pool.install(|| Local.play(setup, sides, &jobs, &live, &|_, _| Ok(())))?;
                let records = records.iter().map(to_wire).collect();
                coordinator.send(&encode(&ToCoordinator::Results { records })[..]);
            }
            ToWorker::Quit => return Ok(()),
        }
    }
}

/// Rank 0's players: its own pool and every worker.
pub struct Ranks<'a> {
    world: &'a SimpleCommunicator,
    pool: &'a rayon::ThreadPool,
    /// Worker threads in all, rank 0's included.
    threads: usize,
    /// Games played by each rank, for the closing line.
    played: Mutex<Vec<u64>>,
    setup_sent: Mutex<bool>,
}

impl<'a> Ranks<'a> {
    /// Waits for every worker's hello.
    pub fn new(world: &'a SimpleCommunicator, pool: &'a rayon::ThreadPool) -> Result<Ranks<'a>> {
        let mut threads = pool.current_num_threads();
        for rank in 1..world.size() {
            match decode::<ToCoordinator>(&receive(&world.process_at_rank(rank)), rank)? {
                ToCoordinator::Hello { threads: t } => threads += t,
                _ => bail!("MPI rank {rank} did not start with a hello"),
            }
        }
        Ok(Ranks {
            world,
            pool,
            threads,
            played: Mutex::new(vec![0; world.size() as usize]),
            setup_sent: Mutex::new(false),
        })
    }

    /// Tells every worker to leave, and says how the games were shared.
    pub fn finish(&self) {
        for rank in 1..self.world.size() {
            self.world.process_at_rank(rank).send(&encode(&ToWorker::Quit)[..]);
        }
        let played = self.played.lock().expect("no panics while holding the lock");
        let shares: Vec<String> = played.iter().enumerate().map(|(r, n)| format!("rank {r}: {n}")).collect();
        eprintln!("MPI: games played by {}", shares.join(", "));
    }

    fn send_setup(&self, setup: &Setup) -> Result<()> {
        let side = |c: &Controller| -> Result<Side> {
            let weights = match &c.weights {
                Some(path) => Some((
                    path.display().to_string(),
                    std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?,
                )),
                None => None,
            };
            Ok(Side { preset: c.preset.name.to_string(), weights })
        };
        let message = encode(&ToWorker::Setup {
            a: side(&setup.a)?,
            b: side(&setup.b)?,
            rules: setup.rules.clone(),
            board: setup.board,
            seed: setup.seed,
            max_pieces: setup.max_pieces,
            unpaired: setup.unpaired,
        });
        for rank in 1..self.world.size() {
            self.world.process_at_rank(rank).send(&message[..]);
        }
        Ok(())
    }
}

impl Players for Ranks<'_> {
    fn threads(&self) -> usize {
        self.threads
    }

    fn play(
        &self,
        setup: &Setup,
        sides: &Sides,
        jobs: &[Job],
        live: &AtomicU64,
        finished: &Finished,
    ) -> Result<Vec<GameRecord>> {
        {
            let mut sent = self.setup_sent.lock().expect("no panics while holding the lock");
            if !*sent {
                self.send_setup(setup)?;
                *sent = true;
            }
        }
        let ranks = self.world.size() as usize;
        let shares: Vec<Vec<Job>> =
            (0..ranks).map(|rank| jobs.iter().skip(rank).step_by(ranks).copied().collect()).collect();
        for (rank, share) in shares.iter().enumerate().skip(1) {
            let batch: Vec<(bool, u64)> = share.iter().map(|j| (j.b_side, j.pair)).collect();
            self.world.process_at_rank(rank as i32).send(&encode(&ToWorker::Batch { jobs: batch })[..]);
        }
        let own_records = self.pool.install(|| Local.play(setup, sides, &shares[0], live, finished))?;
        let mut by_rank: Vec<Vec<GameRecord>> = vec![own_records];
        for (rank, expected) in shares.iter().enumerate().skip(1) {
            let records =
                match decode::<ToCoordinator>(&receive(&self.world.process_at_rank(rank as i32)), rank as i32)? {
                    ToCoordinator::Results { records } => records.into_iter().map(from_wire).collect::<Vec<_>>(),
                    _ => bail!("MPI rank {rank} sent something other than its results"),
                };
            if records.len() != expected.len() {
                bail!("MPI rank {rank} sent {} records for {} games", records.len(), expected.len());
            }
            for (job, record) in expected.iter().zip(&records) {
                finished(*job, record)?;
                live.fetch_add(record.pieces, std::sync::atomic::Ordering::Relaxed);
            }
            by_rank.push(records);
        }
        {
            let mut played = self.played.lock().expect("no panics while holding the lock");
            for (rank, records) in by_rank.iter().enumerate() {
                played[rank] += records.len() as u64;
            }
        }
        // Back in job order: job j was played by rank j mod N, as its (j / N)-th game.
        Ok((0..jobs.len()).map(|j| by_rank[j % ranks][j / ranks]).collect())
    }
}
