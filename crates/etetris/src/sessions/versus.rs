//! Two E-Tetris searches compared beyond chance (`tetris-lab etetris versus A B`).
//!
//! One search is deterministic, so two searches compared once differ by the idea and by
//! chance together: weights within 1 % of each other play other games, hundreds of points
//! apart. A paired comparison separates the two. Each jitter seed multiplies the weights
//! of both sides by the same factors ([`Weights::jittered`]), so a pair differs only by
//! what A and B differ by; over several seeds, the mean of the paired gains `B - A` and its
//! 95 % interval (Student's t) say whether B beats A beyond chance, and the spread of each
//! side's scores is the chance a single comparison would have faced.
//!
//! Every search is [`check`]ed: its record is written and replayed by the game, and the
//! score reported is the game's count. The searches run side by side on the rayon pool;
//! each is deterministic, so the figures do not depend on the thread count.

use crate::etetris::checked::{check, solve_saving, Saved, Saving};
use crate::etetris::game::{sequence, Spawn};
use crate::etetris::search_state::SearchState;
use crate::etetris::solver::{MoveSet, Options, Progress, Refinements};
use crate::etetris::weights::Weights;
use crate::support::stats::{Quantity, Summary};
use anyhow::Result;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// One side of a comparison: evaluator weights and the search's refinements.
#[derive(Clone, Debug, PartialEq)]
pub struct Side {
    pub weights: Weights,
    pub refinements: Refinements,
}

/// What both sides share.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub beam: usize,
    pub moves: MoveSet,
    /// Pieces of the contest sequence to place (10,000: the whole game).
    pub pieces: usize,
    /// The jitter seeds, one pair of searches each (never 0: [`Weights::jittered`]'s seed 0
    /// is a jitter like any other, but `solve --jitter 0` means off, so 0 is kept for that).
    pub seeds: Vec<u64>,
    /// The largest change of a weight, as a fraction (0.01: 1 %).
    pub jitter: f64,
}

/// The two searches of one jitter seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pair {
    pub seed: u64,
    /// The replayed scores of A's and B's searches.
    pub a: u64,
    pub b: u64,
    /// Pieces placed (fewer than asked when every kept board topped out).
    pub a_pieces: usize,
    pub b_pieces: usize,
}

impl Pair {
    /// B's score minus A's.
    pub fn gain(&self) -> i64 {
        self.b as i64 - self.a as i64
    }
}

/// One finished search of a comparison: its jitter seed, its side (0: A, 1: B), and the
/// replayed score and pieces placed. Each search depends on nothing else, so one read back
/// from an earlier, stopped run stands for the search itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Finished {
    pub seed: u64,
    pub side: usize,
    pub score: u64,
    pub pieces: usize,
}

/// Where a comparison keeps its work as it goes (`versus --csv`): each search as it ends,
/// and now and then the state of each search in progress, so that a comparison of many
/// hours stopped at any moment loses at most the last stretch of the searches in progress.
pub trait Keep: Sync {
    /// Searches finished by an earlier, stopped run of the same comparison.
    fn earlier(&self) -> &[Finished];
    /// Keeps a search that has just finished.
    fn finished(&self, search: &Finished) -> Result<()>;
    /// The state an earlier run saved of the search of `seed` and `side`, if any.
    fn saved(&self, seed: u64, side: usize) -> Result<Option<SearchState>>;
    /// Saves the state of the search of `seed` and `side`, in progress.
    fn save(&self, seed: u64, side: usize, state: &SearchState) -> Result<()>;
    /// How long between two saves of a search's state.
    fn every(&self) -> Duration;
    /// Set from elsewhere (Ctrl-C): every search saves after its piece in progress and stops.
    fn stop(&self) -> &AtomicBool;
    /// Hears of a save that failed on the way (the search goes on).
    fn warn(&self, message: &str);
}

/// Keeps nothing: [`run`]'s comparison, which cannot be stopped.
struct KeepNothing(AtomicBool);

impl Keep for KeepNothing {
    fn earlier(&self) -> &[Finished] {
        &[]
    }
    fn finished(&self, _: &Finished) -> Result<()> {
        Ok(())
    }
    fn saved(&self, _: u64, _: usize) -> Result<Option<SearchState>> {
        Ok(None)
    }
    fn save(&self, _: u64, _: usize, _: &SearchState) -> Result<()> {
        Ok(())
    }
    fn every(&self) -> Duration {
        Duration::MAX
    }
    fn stop(&self) -> &AtomicBool {
        &self.0
    }
    fn warn(&self, _: &str) {}
}

/// Runs the `2 x seeds` searches, side by side, calling `on_pieces` with the pieces placed
/// as they are (for a progress bar). The pairs come back in the order of the seeds.
pub fn run(a: &Side, b: &Side, settings: &Settings, on_pieces: &(dyn Fn(usize) + Sync)) -> Result<Vec<Pair>> {
    let pairs = run_keeping(a, b, settings, &KeepNothing(AtomicBool::new(false)), on_pieces)?;
    Ok(pairs.expect("a comparison keeping nothing is never stopped"))
}

/// [`run`] keeping its work in `keep`: the searches of [`Keep::earlier`] are not searched
/// again, a search with a saved state goes on from it (`on_pieces` hears of the pieces it
/// had placed), and each search saves its state and its end as it goes. `None` when
/// [`Keep::stop`] stopped it (every search in progress saved). A comparison continued
/// from what a stopped one kept ends as one never stopped.
pub fn run_keeping(
    a: &Side,
    b: &Side,
    settings: &Settings,
    keep: &dyn Keep,
    on_pieces: &(dyn Fn(usize) + Sync),
) -> Result<Option<Vec<Pair>>> {
    let spawns = sequence(settings.pieces);
    let jobs: Vec<(u64, usize, &Side)> = settings.seeds.iter().flat_map(|&seed| [(seed, 0, a), (seed, 1, b)]).collect();
    let results = jobs
        .par_iter()
        .map(|&(seed, side_index, side)| {
            if let Some(done) = keep.earlier().iter().find(|f| (f.seed, f.side) == (seed, side_index)) {
                return Ok(Some((done.score, done.pieces)));
            }
            if keep.stop().load(Ordering::SeqCst) {
                return Ok(None);
            }
            search(side, (seed, side_index), settings, &spawns, keep, on_pieces)
        })
        .collect::<Result<Vec<_>>>()?;
    let Some(results) = results.into_iter().collect::<Option<Vec<_>>>() else {
        return Ok(None);
    };
    Ok(Some(
        settings
            .seeds
            .iter()
            .zip(results.chunks(2))
            .map(|(&seed, two)| Pair { seed, a: two[0].0, b: two[1].0, a_pieces: two[0].1, b_pieces: two[1].1 })
            .collect(),
    ))
}

/// One checked search of `side` with its weights jittered by `seed`, kept in `keep`: the
/// replayed score and the pieces placed, or `None` when stopped.
fn search(
    side: &Side,
    (seed, side_index): (u64, usize),
    settings: &Settings,
    spawns: &[Spawn],
    keep: &dyn Keep,
    on_pieces: &(dyn Fn(usize) + Sync),
) -> Result<Option<(u64, usize)>> {
    let weights = side.weights.jittered(seed, settings.jitter);
    let options = Options { refinements: side.refinements, ..Options::new(settings.beam, settings.moves, weights) };
    let resume = keep.saved(seed, side_index)?;
    on_pieces(resume.as_ref().map_or(0, SearchState::pieces));
    let warn = |message: &str| keep.warn(message);
    let saving = Saving { every: keep.every(), stop_after: None, stop: keep.stop(), warn: &warn };
    let mut on_step = |_: &Progress| on_pieces(1);
    let mut save = |state: &SearchState| keep.save(seed, side_index, state);
    let solution = match solve_saving(options, spawns, resume, saving, &mut on_step, &mut save)? {
        Saved::Finished(solution) => solution,
        Saved::Stopped(_) => return Ok(None),
    };
    let (_, replayed) = check(spawns, &solution, settings.moves)?;
    keep.finished(&Finished { seed, side: side_index, score: replayed.score, pieces: replayed.pieces })?;
    Ok(Some((replayed.score, replayed.pieces)))
}

/// What the pairs say.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verdict {
    /// The scores of each side over the seeds (their spread is chance alone).
    pub a: Summary,
    pub b: Summary,
    /// The paired gains `B - A`: mean, 95 % interval of the mean, least and most.
    pub gain: Summary,
    /// Whether every pair gained more than either side's spread (max - min): the
    /// plain-words test the README's comparisons use beside the interval.
    pub every_gain_beats_spread: bool,
}

/// How the interval of the mean gain reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// The 95 % interval of the mean gain lies above 0.
    BBetter,
    /// It lies below 0.
    ABetter,
    /// It holds 0 (or there is one pair: nothing to measure chance with).
    WithinChance,
}

impl Verdict {
    pub fn of(pairs: &[Pair]) -> Verdict {
        let scores = |side: fn(&Pair) -> u64| pairs.iter().map(|p| side(p) as f64).collect::<Vec<_>>();
        let (a, b) = (
            Summary::of(&scores(|p| p.a), Quantity::NonNegative),
            Summary::of(&scores(|p| p.b), Quantity::NonNegative),
        );
        let gain = Summary::of(&pairs.iter().map(|p| p.gain() as f64).collect::<Vec<_>>(), Quantity::Signed);
        let spread = (a.max - a.min).max(b.max - b.min);
        let every_gain_beats_spread = pairs.len() > 1
            && pairs.iter().all(|p| p.gain().unsigned_abs() as f64 > spread)
            && (gain.min > 0.0 || gain.max < 0.0);
        Verdict { a, b, gain, every_gain_beats_spread }
    }

    pub fn reading(&self) -> Reading {
        if self.gain.count < 2 {
            Reading::WithinChance
        } else if self.gain.low_95() > 0.0 {
            Reading::BBetter
        } else if self.gain.high_95() < 0.0 {
            Reading::ABetter
        } else {
            Reading::WithinChance
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::etetris::{BeamSearch, Grid};
    use std::sync::atomic::AtomicU64;

    /// A [`Keep`] in memory, saving at every piece.
    #[derive(Default)]
    struct Memory {
        earlier: Vec<Finished>,
        finished: std::sync::Mutex<Vec<Finished>>,
        states: std::sync::Mutex<std::collections::HashMap<(u64, usize), SearchState>>,
        stop: AtomicBool,
    }

    impl Keep for Memory {
        fn earlier(&self) -> &[Finished] {
            &self.earlier
        }
        fn finished(&self, search: &Finished) -> Result<()> {
            self.finished.lock().unwrap().push(*search);
            Ok(())
        }
        fn saved(&self, seed: u64, side: usize) -> Result<Option<SearchState>> {
            Ok(self.states.lock().unwrap().get(&(seed, side)).cloned())
        }
        fn save(&self, seed: u64, side: usize, state: &SearchState) -> Result<()> {
            self.states.lock().unwrap().insert((seed, side), state.clone());
            Ok(())
        }
        fn every(&self) -> Duration {
            Duration::ZERO
        }
        fn stop(&self) -> &AtomicBool {
            &self.stop
        }
        fn warn(&self, _: &str) {}
    }

    fn pair(seed: u64, a: u64, b: u64) -> Pair {
        Pair { seed, a, b, a_pieces: 10_000, b_pieces: 10_000 }
    }

    #[test]
    fn a_gain_beyond_the_spread_reads_as_better() {
        // Gains 100, 120, 80, 100: mean 100, sd 16.33, t(3) 3.182 -> half-width 25.98.
        let pairs = [pair(1, 1000, 1100), pair(2, 1010, 1130), pair(3, 1020, 1100), pair(4, 990, 1090)];
        let verdict = Verdict::of(&pairs);
        assert_eq!(verdict.gain.mean, 100.0);
        assert!((verdict.gain.high_95 - verdict.gain.mean - 25.98).abs() < 0.01, "{:?}", verdict.gain);
        assert_eq!((verdict.gain.min, verdict.gain.max), (80.0, 120.0));
        // The spreads are 30 (A) and 40 (B): every gain beats them.
        assert!(verdict.every_gain_beats_spread);
        assert_eq!(verdict.reading(), Reading::BBetter);
        let swapped: Vec<Pair> = pairs.iter().map(|p| pair(p.seed, p.b, p.a)).collect();
        assert_eq!(Verdict::of(&swapped).reading(), Reading::ABetter);
        assert!(Verdict::of(&swapped).every_gain_beats_spread);
    }

    #[test]
    fn gains_of_both_signs_or_one_pair_are_within_chance() {
        let mixed = [pair(1, 1000, 1100), pair(2, 1000, 900), pair(3, 1000, 1050)];
        let verdict = Verdict::of(&mixed);
        assert_eq!(verdict.reading(), Reading::WithinChance);
        assert!(!verdict.every_gain_beats_spread);
        let one = Verdict::of(&[pair(1, 1000, 2000)]);
        assert_eq!(one.reading(), Reading::WithinChance, "one pair cannot measure chance");
        assert!(!one.every_gain_beats_spread);
    }

    #[test]
    fn a_gain_inside_the_spread_does_not_beat_it() {
        // Gains 50 and 60, but A's scores lie 200 apart.
        let verdict = Verdict::of(&[pair(1, 1000, 1050), pair(2, 1200, 1260)]);
        assert!(!verdict.every_gain_beats_spread);
    }

    #[test]
    fn pairs_are_the_jittered_searches_of_each_side_and_do_not_depend_on_the_threads() {
        let settings = Settings { beam: 20, moves: MoveSet::Full, pieces: 300, seeds: vec![1, 2], jitter: 0.05 };
        let a = Side { weights: Weights::default(), refinements: Refinements::default() };
        let b = Side { refinements: Refinements { lookahead: 2, ..Refinements::default() }, ..a.clone() };
        let counted = AtomicU64::new(0);
        let pool = |threads| rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let pairs = pool(2)
            .install(|| run(&a, &b, &settings, &|n| _ = counted.fetch_add(n as u64, Ordering::Relaxed)))
            .unwrap();
        let placed: usize = pairs.iter().map(|p| p.a_pieces + p.b_pieces).sum();
        // At this width one search tops out early (A at seed 1): pieces placed are counted.
        assert_eq!(counted.load(Ordering::Relaxed), placed as u64, "every piece of the four searches");
        assert!(pairs.iter().any(|p| p.a_pieces < 300) && pairs[1].b_pieces == 300, "{pairs:?}");
        assert_eq!(pool(1).install(|| run(&a, &b, &settings, &|_| {})).unwrap(), pairs);
        // Each score is solve's: the weights jittered by the pair's seed, the side's search.
        let spawns = sequence(300);
        for p in &pairs {
            for (side, score) in [(&a, p.a), (&b, p.b)] {
                let options = Options {
                    refinements: side.refinements,
                    ..Options::new(20, MoveSet::Full, side.weights.jittered(p.seed, 0.05))
                };
                let solution = BeamSearch::new(options).solve(Grid::default(), &spawns, &mut |_| {});
                assert_eq!(solution.score as u64, score);
            }
        }
        assert_ne!(pairs[0].a, pairs[1].a, "two seeds, two games");
        assert_ne!(pairs[0].a, pairs[0].b, "the lookahead changes the game");
        // Kept as it goes: every search handed out as it ends, and its state now and then.
        let memory = Memory::default();
        assert_eq!(run_keeping(&a, &b, &settings, &memory, &|_| {}).unwrap(), Some(pairs.clone()));
        let mut kept = memory.finished.into_inner().unwrap();
        kept.sort_by_key(|f| (f.seed, f.side));
        let expected: Vec<Finished> = pairs
            .iter()
            .flat_map(|p| {
                [
                    Finished { seed: p.seed, side: 0, score: p.a, pieces: p.a_pieces },
                    Finished { seed: p.seed, side: 1, score: p.b, pieces: p.b_pieces },
                ]
            })
            .collect();
        assert_eq!(kept, expected);
        let states = memory.states.into_inner().unwrap();
        assert_eq!(states.len(), 4, "every search saved its state (at a zero cadence)");
        // Given back, the finished searches are not searched again, and a search with a
        // saved state goes on from it: here the last one from piece 150.
        let memory = Memory { earlier: kept[..3].to_vec(), ..Memory::default() };
        let mut halfway = None;
        let never = AtomicBool::new(false);
        let saving = Saving { every: Duration::MAX, stop_after: Some(150), stop: &never, warn: &|_| {} };
        let weights = b.weights.jittered(2, 0.05);
        let options = Options { refinements: b.refinements, ..Options::new(20, MoveSet::Full, weights) };
        let stopped = solve_saving(options, &sequence(300), None, saving, &mut |_| {}, &mut |state| {
            halfway = Some(state.clone());
            Ok(())
        })
        .unwrap();
        assert!(matches!(stopped, Saved::Stopped(150)));
        memory.states.lock().unwrap().insert((2, 1), halfway.unwrap());
        let pieces = AtomicU64::new(0);
        let count = |n: usize| _ = pieces.fetch_add(n as u64, Ordering::Relaxed);
        let again = run_keeping(&a, &b, &settings, &memory, &count).unwrap();
        assert_eq!(again, Some(pairs.clone()));
        assert_eq!(pieces.load(Ordering::Relaxed), pairs[1].b_pieces as u64, "150 given back, the rest placed");
        assert_eq!(memory.finished.into_inner().unwrap(), [expected[3]], "only the last search ends here");
        // Stopped, every search in progress is saved and the comparison ends with `None`.
        let memory = Memory::default();
        memory.stop.store(true, Ordering::SeqCst);
        assert_eq!(run_keeping(&a, &b, &settings, &memory, &|_| {}).unwrap(), None);
    }
}
