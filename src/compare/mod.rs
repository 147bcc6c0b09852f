//! `compare`: is controller B better than A? Pairs of games (game i of both on the same
//! pieces) played in parallel, in batches, until a fixed number of pairs is reached or the
//! sequential test ([`crate::report::paired`]) decides. Every finished game goes to a
//! ledger as it ends, so a stopped comparison resumes without losing one; the decision is
//! taken pair by pair in pair order, so it is the same at any thread count and batch size.

pub mod files;
#[cfg(feature = "mpi")]
pub mod mpi;

use crate::presets::{self, Built, Preset};
use crate::report::ledger::Ledger;
use crate::report::paired::{Decision, Sequential, Sums, MIN_PAIRS};
use crate::reproduce::Cost;
use crate::sim::{self, GameLimits, GameRecord};
use crate::tune::objective::Fitness;
use anyhow::{bail, Context, Result};
use rayon::prelude::*;
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;

/// Game indices of B's games when the pairing is turned off: far from A's, so that no game
/// of B has A's pieces.
const UNPAIRED_OFFSET: u64 = 1 << 40;

/// A side of the comparison: a preset, with its published weights or a weights file's.
#[derive(Clone)]
pub struct Controller {
    pub preset: &'static Preset,
    pub weights: Option<PathBuf>,
}

impl Controller {
    /// `PRESET` or `PRESET:WEIGHTS_FILE`.
    pub fn parse(text: &str) -> Result<Controller> {
        let (name, weights) = match text.split_once(':') {
            Some((name, file)) if !file.is_empty() => (name, Some(PathBuf::from(file))),
            Some((name, _)) => bail!("{name}: no weights file after ':' (PRESET or PRESET:WEIGHTS_FILE)"),
            None => (text, None),
        };
        Ok(Controller { preset: presets::find(name)?, weights })
    }

    /// `bcts (published weights)`, `bcts (weights from best.toml)`.
    pub fn describe(&self) -> String {
        match &self.weights {
            Some(path) => format!("{} (weights from {})", self.preset.name, path.display()),
            None => format!("{} (published weights)", self.preset.name),
        }
    }

    fn build(&self, rules: Option<&str>, board: Option<(usize, usize)>) -> Result<Built> {
        self.preset.build_with_rules(rules, board, self.weights.as_deref())
    }
}

/// How many pairs, and when to stop.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mode {
    /// Exactly this many pairs, then the estimate.
    Fixed { pairs: u64 },
    /// Until the test decides, or at most `max_pairs`.
    Sequential { test: Sequential, max_pairs: u64 },
}

impl Mode {
    /// The most pairs the comparison can take.
    pub fn max_pairs(&self) -> u64 {
        match *self {
            Mode::Fixed { pairs } => pairs,
            Mode::Sequential { max_pairs, .. } => max_pairs,
        }
    }
}

/// Everything that decides what a comparison measures.
#[derive(Clone)]
pub struct Setup {
    pub a: Controller,
    pub b: Controller,
    pub rules: Option<String>,
    pub board: Option<(usize, usize)>,
    pub seed: u64,
    pub fitness: Fitness,
    pub max_pieces: Option<u64>,
    /// B plays other pieces than A (to see what the pairing saves).
    pub unpaired: bool,
    pub mode: Mode,
}

/// Both sides built on the same rule set and board.
pub struct Sides {
    pub a: Built,
    pub b: Built,
}

impl Setup {
    /// Builds both sides; they must play the same game (rule set and board), so that a pair
    /// shares its pieces.
    pub fn build(&self) -> Result<Sides> {
        let a =
            self.a.build(self.rules.as_deref(), self.board).with_context(|| format!("A = {}", self.a.preset.name))?;
        let b =
            self.b.build(self.rules.as_deref(), self.board).with_context(|| format!("B = {}", self.b.preset.name))?;
        let describe = |built: &Built| built.rules.describe();
        if describe(&a) != describe(&b) || a.driver().randomizer() != b.driver().randomizer() {
            bail!(
                "A plays {} and B plays {}: a pair must be the same game; choose one with --rules",
                a.rules.name(),
                b.rules.name()
            );
        }
        if self.fitness == Fitness::Level && a.rules.frame_rules().is_none() {
            bail!("--fitness level needs a rule set with levels (the guideline game), not {}", a.rules.name());
        }
        Ok(Sides { a, b })
    }

    /// What the least number of pairs it can take is expected to cost, sized by the
    /// published figures of a side playing its preset's own rules and weights (the other
    /// side taken to play as long), when that is long enough to say before starting.
    pub fn cost(&self, sides: &Sides, threads: usize) -> Option<Cost> {
        if self.rules.is_some() {
            return None;
        }
        let (controller, built) = [(&self.a, &sides.a), (&self.b, &sides.b)]
            .into_iter()
            .find(|(controller, _)| controller.weights.is_none())?;
        let pairs = match self.mode {
            Mode::Fixed { pairs } => pairs,
            Mode::Sequential { max_pairs, .. } => max_pairs.min(MIN_PAIRS),
        };
        let board = built.rules.new_board();
        let (width, height) = (board.width(), board.height());
        let cost =
            Cost::of_batch(controller.preset.name, built.driver(), width, height, 2 * pairs, self.max_pieces, threads)?;
        cost.is_long().then_some(cost)
    }

    fn game_index(&self, side: Side, pair: u64) -> u64 {
        match side {
            Side::B if self.unpaired => pair + UNPAIRED_OFFSET,
            _ => pair,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    A,
    B,
}

impl Side {
    fn key(self) -> &'static str {
        match self {
            Side::A => "a",
            Side::B => "b",
        }
    }
}

/// One pair's games.
#[derive(Clone, Copy, Debug)]
pub struct Pair {
    pub a: GameRecord,
    pub b: GameRecord,
}

/// How a comparison ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The fixed number of pairs was played.
    Fixed,
    /// The sequential test crossed a bound.
    Decided(Decision),
    /// The sequential test reached `max_pairs` undecided.
    Budget,
}

/// What the pairs played so far say, for a progress line.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub sums: Sums,
    pub llr: Option<f64>,
}

/// A finished comparison: every pair in order, their sums and how it ended.
pub struct Outcome {
    pub pairs: Vec<Pair>,
    pub sums: Sums,
    pub ending: Ending,
    /// The sequential test's log-likelihood ratio after each pair (empty in fixed mode).
    pub llr: Vec<f64>,
}

impl Outcome {
    pub fn pieces(&self) -> u64 {
        self.pairs.iter().map(|p| p.a.pieces + p.b.pieces).sum()
    }
}

/// One game of the comparison: a side and a pair index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Job {
    pub b_side: bool,
    pub pair: u64,
}

impl Job {
    fn side(self) -> Side {
        if self.b_side {
            Side::B
        } else {
            Side::A
        }
    }
}

/// Plays `job` (on the calling thread), counting its pieces into `live`.
pub fn play_job(setup: &Setup, sides: &Sides, job: Job, live: &AtomicU64) -> GameRecord {
    let limits = GameLimits { max_pieces: setup.max_pieces };
    let built = if job.b_side { &sides.b } else { &sides.a };
    sim::play_game_of_batch(built.driver(), setup.seed, setup.game_index(job.side(), job.pair), limits, Some(live))
}

/// Hears of each game of a batch as it ends (rank 0 puts it in the ledger).
pub type Finished<'a> = dyn Fn(Job, &GameRecord) -> Result<()> + Sync + 'a;

/// Who plays a batch's games: this machine's pool ([`Local`]) or, under MPI, every rank.
pub trait Players {
    /// Worker threads in all, to size the batches.
    fn threads(&self) -> usize;
    /// Plays `jobs`, calling `finished` for each game as it ends (or as its result
    /// arrives), and returns their records in job order.
    fn play(
        &self,
        setup: &Setup,
        sides: &Sides,
        jobs: &[Job],
        live: &AtomicU64,
        finished: &Finished,
    ) -> Result<Vec<GameRecord>>;
}

/// Every game on the current rayon pool.
pub struct Local;

impl Players for Local {
    fn threads(&self) -> usize {
        rayon::current_num_threads()
    }
    fn play(
        &self,
        setup: &Setup,
        sides: &Sides,
        jobs: &[Job],
        live: &AtomicU64,
        finished: &Finished,
    ) -> Result<Vec<GameRecord>> {
        jobs.par_iter()
            .map(|&job| {
                let record = play_job(setup, sides, job, live);
                finished(job, &record)?;
                Ok(record)
            })
            .collect()
    }
}

/// Every game on the given pool (the caller's thread hands the batch to it).
pub struct Pool<'a>(pub &'a rayon::ThreadPool);

impl Players for Pool<'_> {
    fn threads(&self) -> usize {
        self.0.current_num_threads()
    }
    fn play(
        &self,
        setup: &Setup,
        sides: &Sides,
        jobs: &[Job],
        live: &AtomicU64,
        finished: &Finished,
    ) -> Result<Vec<GameRecord>> {
        self.0.install(|| Local.play(setup, sides, jobs, live, finished))
    }
}

/// Plays the comparison with `players`, taking every game the ledger already holds and
/// appending every new one as it ends. `live` counts pieces for a progress bar;
/// `on_batch` hears how things stand after each batch.
pub fn run(
    setup: &Setup,
    sides: &Sides,
    ledger: &Ledger,
    players: &dyn Players,
    live: &AtomicU64,
    on_batch: &mut dyn FnMut(&Progress),
) -> Result<Outcome> {
    let max_pairs = setup.mode.max_pairs();
    let mut pairs = Vec::new();
    let mut sums = Sums::default();
    let mut llr = Vec::new();
    let mut batch = (8 * players.threads() as u64).max(32);
    let key = |job: Job| (job.side().key(), setup.game_index(job.side(), job.pair));
    loop {
        let start = pairs.len() as u64;
        let end = (start + batch).min(max_pairs);
        batch = (batch * 2).min(1024);
        let jobs: Vec<Job> =
            (start..end).flat_map(|pair| [Job { b_side: false, pair }, Job { b_side: true, pair }]).collect();
        let known: Vec<Option<GameRecord>> = jobs.iter().map(|&job| ledger.get(key(job).0, key(job).1)).collect();
        let missing: Vec<Job> = jobs.iter().zip(&known).filter(|(_, k)| k.is_none()).map(|(&job, _)| job).collect();
        let finished = |job: Job, record: &GameRecord| ledger.append(key(job).0, key(job).1, record);
        let mut new = players.play(setup, sides, &missing, live, &finished)?.into_iter();
        let played: Vec<GameRecord> = known
            .into_iter()
            .map(|k| k.unwrap_or_else(|| new.next().expect("a record for every missing job")))
            .collect();
        for pair in played.chunks(2) {
            let pair = Pair { a: pair[0], b: pair[1] };
            sums.push(setup.fitness.of(&pair.a), setup.fitness.of(&pair.b));
            pairs.push(pair);
            if let Mode::Sequential { test, .. } = setup.mode {
                llr.push(test.llr(&sums));
                if let Some(decision) = test.decide(&sums) {
                    return Ok(Outcome { pairs, sums, ending: Ending::Decided(decision), llr });
                }
            }
        }
        on_batch(&Progress { sums, llr: llr.last().copied() });
        if pairs.len() as u64 >= max_pairs {
            let ending = match setup.mode {
                Mode::Fixed { .. } => Ending::Fixed,
                Mode::Sequential { .. } => Ending::Budget,
            };
            return Ok(Outcome { pairs, sums, ending, llr });
        }
    }
}

/// Refuses a ledger (of a stopped comparison) holding a game this comparison could not have
/// played ([`check_recorded`]), before anything is played or printed.
pub fn check_ledger(setup: &Setup, sides: &Sides, ledger: &Ledger) -> Result<()> {
    for pair in 0..setup.mode.max_pairs() {
        for job in [Job { b_side: false, pair }, Job { b_side: true, pair }] {
            let Some(record) = ledger.get(job.side().key(), setup.game_index(job.side(), pair)) else { continue };
            check_recorded(setup, sides, job, &record).map_err(|e| {
                anyhow::anyhow!(
                    "{}: {e}: the ledger was altered or holds another comparison's games (delete it to play them \
                     again)",
                    ledger.path().display()
                )
            })?;
        }
    }
    Ok(())
}

/// Refuses a game read from the ledger that this comparison could not have played: another
/// seed, more pieces than the cap, an ending that does not fit the cap, more rows than its
/// pieces can clear.
fn check_recorded(setup: &Setup, sides: &Sides, job: Job, record: &GameRecord) -> Result<()> {
    let (side, built) = match job.side() {
        Side::A => ("A", &sides.a),
        Side::B => ("B", &sides.b),
    };
    let index = setup.game_index(job.side(), job.pair);
    let game = format!("{side}'s game {index}");
    let seed = sim::batch_game_seed(built.driver(), setup.seed, index);
    if record.seed != seed {
        bail!("{game} has seed {} where this comparison's has {seed}", record.seed);
    }
    let capped = record.end == sim::GameEnd::PieceCap;
    match setup.max_pieces {
        Some(cap) if record.pieces > cap || capped && record.pieces != cap => {
            bail!("{game} has {} pieces, which the cap of {cap} does not allow", record.pieces)
        }
        None if capped => bail!("{game} ended by a piece cap where this comparison has none"),
        _ => {}
    }
    let width = built.rules.new_board().width() as u128;
    if record.lines as u128 * width > 4 * record.pieces as u128 {
        bail!("{game} has {} rows, more than its {} pieces can clear", record.lines, record.pieces);
    }
    Ok(())
}

/// The seeds of pair `index`'s games (A's, B's).
pub fn pair_seeds(setup: &Setup, sides: &Sides, index: u64) -> (u64, u64) {
    (
        sim::batch_game_seed(sides.a.driver(), setup.seed, setup.game_index(Side::A, index)),
        sim::batch_game_seed(sides.b.driver(), setup.seed, setup.game_index(Side::B, index)),
    )
}
