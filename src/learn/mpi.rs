//! Learning across MPI ranks (cargo feature `mpi`): `mpirun -n N tetris-lab learn ...`.
//!
//! Rank 0 runs the command as a single process does (files, studies, resume, every
//! output). When it starts a run it sends the other ranks the run (the experiment's text,
//! the learner's state and the rows so far); each then runs the same run in lockstep,
//! writing nothing, and every job list a learner hands to
//! [`World::map`](super::World::map) is split by index among the ranks and gathered in
//! index order on every rank ([`super::spread`]). No file needs to be shared. All MPI
//! calls are made on the main thread.

use super::run;
use super::spread::{RunStart, Spread};
use super::Stopped;
use anyhow::{bail, Context, Result};
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::{Destination, Source};
use std::sync::atomic::{AtomicU64, Ordering};

const RUN: u8 = 0;
const RESULTS: u8 = 1;
const STOP: u8 = 2;
const QUIT: u8 = 3;
const SHARE: u8 = 4;

/// A message: its kind, the exchange it belongs to, samples, and items (each bytes).
struct Message {
    kind: u8,
    exchange: u64,
    samples: u64,
    items: Vec<Vec<u8>>,
}

impl Message {
    fn new(kind: u8) -> Message {
        Message { kind, exchange: 0, samples: 0, items: Vec::new() }
    }

    fn encode(&self) -> Vec<u8> {
        let size: usize = self.items.iter().map(|item| item.len() + 8).sum();
        let mut bytes = Vec::with_capacity(25 + size);
        bytes.push(self.kind);
        for number in [self.exchange, self.samples, self.items.len() as u64] {
            bytes.extend_from_slice(&number.to_le_bytes());
        }
        for item in &self.items {
            bytes.extend_from_slice(&(item.len() as u64).to_le_bytes());
            bytes.extend_from_slice(item);
        }
        bytes
    }

    fn decode(bytes: &[u8], from: i32) -> Result<Message> {
        let bad = || anyhow::anyhow!("MPI rank {from} sent a message this version cannot read");
        let mut at = 1;
        let number = |at: &mut usize| -> Result<u64> {
            let field = bytes.get(*at..*at + 8).ok_or_else(bad)?;
            *at += 8;
            Ok(u64::from_le_bytes(field.try_into().expect("8 bytes")))
        };
        let kind = *bytes.first().ok_or_else(bad)?;
        let (exchange, samples, count) = (number(&mut at)?, number(&mut at)?, number(&mut at)?);
        let mut items = Vec::new();
        for _ in 0..count {
            let length = number(&mut at)? as usize;
            items.push(bytes.get(at..at.checked_add(length).ok_or_else(bad)?).ok_or_else(bad)?.to_vec());
            at += length;
        }
        Ok(Message { kind, exchange, samples, items })
    }
}

/// The next message from `source` (waiting as tune's ranks wait, without spinning).
fn receive(source: &impl Source, from: i32) -> Result<Message> {
    Message::decode(&crate::tune::mpi::receive(source).0, from)
}

/// Rank 0's side.
pub struct Coordinator {
    world: SimpleCommunicator,
    /// The exchanges of the current run so far (the other ranks count them too).
    exchange: AtomicU64,
    /// The jobs each rank has played.
    played: std::cell::RefCell<Vec<u64>>,
}

impl Coordinator {
    pub fn new(world: SimpleCommunicator) -> Coordinator {
        let ranks = world.size() as usize;
        Coordinator { world, exchange: AtomicU64::new(0), played: std::cell::RefCell::new(vec![0; ranks]) }
    }

    fn send_all(&self, message: &Message) {
        let bytes = message.encode();
        for rank in 1..self.world.size() {
            self.world.process_at_rank(rank).send(&bytes[..]);
        }
    }

    /// Tells the other ranks to leave, and says how the jobs were shared.
    pub fn finish(&self) {
        self.send_all(&Message::new(QUIT));
        let played = self.played.borrow();
        let shares: Vec<String> =
            played.iter().enumerate().map(|(rank, jobs)| format!("rank {rank}: {jobs}")).collect();
        eprintln!("MPI: jobs played by {}", shares.join(", "));
    }
}

impl Spread for Coordinator {
    fn ranks(&self) -> (usize, usize) {
        (0, self.world.size() as usize)
    }

    fn begin(&self, start: &RunStart) -> Result<()> {
        self.exchange.store(0, Ordering::SeqCst);
        let mut message = Message::new(RUN);
        message.items.push(serde_json::to_vec(start)?);
        self.send_all(&message);
        Ok(())
    }

    fn end(&self) {
        self.send_all(&Message::new(STOP));
    }

    fn exchange(&self, count: usize, mine: Vec<Vec<u8>>, samples: u64) -> Result<(Vec<Vec<u8>>, u64)> {
        let exchange = self.exchange.fetch_add(1, Ordering::SeqCst);
        let ranks = self.world.size() as usize;
        let mut shares: Vec<Option<Vec<Vec<u8>>>> = vec![None; ranks];
        self.played.borrow_mut()[0] += mine.len() as u64;
        shares[0] = Some(mine);
        let mut total = samples;
        for (rank, share) in shares.iter_mut().enumerate().skip(1) {
            let from = self.world.process_at_rank(rank as i32);
            // A share of an exchange this run has left behind (a run stopped early) is
            // dropped.
            let message = loop {
                let message = receive(&from, rank as i32)?;
                if message.kind == SHARE && message.exchange == exchange {
                    break message;
                }
            };
            total += message.samples;
            self.played.borrow_mut()[rank] += message.items.len() as u64;
            *share = Some(message.items);
        }
        if super::stopping() {
            self.end();
            return Err(Stopped.into());
        }
        let mut shares: Vec<std::vec::IntoIter<Vec<u8>>> =
            shares.into_iter().map(|share| share.unwrap_or_default().into_iter()).collect();
        let mut items = Vec::with_capacity(count);
        for index in 0..count {
            items.push(shares[index % ranks].next().context("a rank sent too few results")?);
        }
        let message = Message { kind: RESULTS, exchange, samples: total, items };
        self.send_all(&message);
        Ok((message.items, total))
    }
}

/// The side of the other ranks.
struct Follower {
    world: SimpleCommunicator,
    exchange: AtomicU64,
}

impl Spread for Follower {
    fn ranks(&self) -> (usize, usize) {
        (self.world.rank() as usize, self.world.size() as usize)
    }

    fn begin(&self, _start: &RunStart) -> Result<()> {
        Ok(())
    }

    fn end(&self) {}

    fn exchange(&self, _count: usize, mine: Vec<Vec<u8>>, samples: u64) -> Result<(Vec<Vec<u8>>, u64)> {
        let exchange = self.exchange.fetch_add(1, Ordering::SeqCst);
        let coordinator = self.world.process_at_rank(0);
        coordinator.send(&Message { kind: SHARE, exchange, samples, items: mine }.encode()[..]);
        let message = receive(&coordinator, 0)?;
        match message.kind {
            RESULTS if message.exchange == exchange => Ok((message.items, message.samples)),
            STOP => Err(Stopped.into()),
            kind => bail!("rank 0 sent message {kind} during exchange {exchange}"),
        }
    }
}

/// The loop of ranks other than 0: follow each run rank 0 starts, leave on `Quit`.
pub fn work(world: SimpleCommunicator) -> Result<()> {
    let follower = std::rc::Rc::new(Follower { world, exchange: AtomicU64::new(0) });
    super::spread::set(follower.clone());
    let coordinator = follower.world.process_at_rank(0);
    loop {
        let message = receive(&coordinator, 0)?;
        match message.kind {
            RUN => {
                let start: RunStart = serde_json::from_slice(message.items.first().context("an empty run")?)
                    .context("the run rank 0 sent")?;
                follower.exchange.store(0, Ordering::SeqCst);
                match run::follow(&start) {
                    Ok(()) => {}
                    Err(e) if e.is::<Stopped>() => {}
                    Err(e) => return Err(e),
                }
            }
            // The end of a run this rank has already followed to its end.
            STOP => {}
            QUIT => return Ok(()),
            kind => bail!("rank 0 sent message {kind} between runs"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip_and_damage_is_refused() {
        let message =
            Message { kind: SHARE, exchange: 7, samples: 1 << 40, items: vec![vec![1, 2, 3], vec![], vec![9]] };
        let bytes = message.encode();
        let back = Message::decode(&bytes, 1).unwrap();
        assert_eq!((back.kind, back.exchange, back.samples, back.items), (SHARE, 7, 1 << 40, message.items));
        assert!(Message::decode(&bytes[..bytes.len() - 1], 1).is_err());
        assert!(Message::decode(&[], 1).is_err());
    }
}
