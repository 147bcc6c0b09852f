//! Upper bounds on every count a user gives (command-line options and experiment files),
//! checked before any work or any file, so that an absurd value is one clear error instead
//! of an allocation panic, hours of work or a hang. Each bound is far above what any
//! published measurement or the README's campaigns use.

use anyhow::{bail, Result};

/// Games of one `play`, one `reproduce` measurement, one candidate evaluation, a
/// re-evaluation or the held-out scoring (each game keeps a record in memory).
pub const MAX_GAMES: u64 = 10_000_000;
/// Games played in one generation of a campaign: candidates x games per candidate (the
/// results of a generation are held in memory together).
pub const MAX_GAMES_PER_GENERATION: u64 = 10_000_000;
/// Candidates per generation of an optimizer (population, particles).
pub const MAX_POPULATION: usize = 100_000;
/// Boards kept by the E-Tetris beam search (the README measures up to 3,000).
pub const MAX_BEAM: usize = 100_000;
/// Pieces `sequence` prints.
pub const MAX_SEQUENCE: usize = 1_000_000;
/// Pause between frames of `watch`, in milliseconds.
pub const MAX_DELAY_MS: u64 = 10_000;
/// Frames of a GIF of a game (`--gif-frames`): a few hundred keep a README picture small.
pub const MAX_GIF_FRAMES: u64 = 1_000;
/// Largest magnitude of a weight, in weights files and experiment files: far beyond any
/// published weight, and small enough that a weighted sum of features stays finite.
pub const MAX_WEIGHT: f64 = 1e12;

/// Checks `value` is in `1..=max`; `what` names the flag or key (`--games`, "field `games`").
pub fn check_count<T: PartialOrd + Copy + std::fmt::Display + From<u8>>(what: &str, value: T, max: T) -> Result<()> {
    if value < T::from(1) {
        bail!("{what} must be at least 1, got {value}");
    }
    if value > max {
        bail!("{what} = {value} is more than the limit of {max}");
    }
    Ok(())
}

/// Checks a weight is a finite number of magnitude at most [`MAX_WEIGHT`].
pub fn check_weight(what: &str, value: f64) -> Result<()> {
    if !value.is_finite() {
        bail!("{what} is {value}: weights must be finite numbers");
    }
    if value.abs() > MAX_WEIGHT {
        bail!("{what} is {value}: weights must be within +-{MAX_WEIGHT:e}");
    }
    Ok(())
}

/// The worker threads to start for `--threads`: `None` is
/// one per core; more than the cores is capped to them with a note on stderr, since extra
/// threads only compete for the same cores (results do not depend on the count).
pub fn threads(requested: Option<usize>) -> Result<usize> {
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    match requested {
        None => Ok(cores),
        Some(0) => bail!("--threads must be at least 1"),
        Some(n) if n > cores => {
            eprintln!("note: --threads {n} is more than the {cores} core(s) of this machine: using {cores}");
            Ok(cores)
        }
        Some(n) => Ok(n),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_outside_their_range_are_refused() {
        assert!(check_count("--games", 1u64, MAX_GAMES).is_ok());
        assert!(check_count("--games", MAX_GAMES, MAX_GAMES).is_ok());
        let e = check_count("--games", u64::MAX, MAX_GAMES).unwrap_err().to_string();
        assert!(e.contains("--games = 18446744073709551615 is more than the limit of 10000000"), "{e}");
        let e = check_count("--beam", 0usize, MAX_BEAM).unwrap_err().to_string();
        assert!(e.contains("--beam must be at least 1"), "{e}");
    }

    #[test]
    fn weights_must_be_finite_and_bounded() {
        assert!(check_weight("holes", -1e12).is_ok());
        for bad in [f64::NAN, f64::INFINITY, 1e13, -1e300] {
            assert!(check_weight("holes", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn thread_counts_are_capped_to_the_cores() {
        let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        assert_eq!(threads(Some(100_000)).unwrap(), cores);
        assert_eq!(threads(None).unwrap(), cores);
        assert!(threads(Some(0)).is_err());
        assert_eq!(threads(Some(1)).unwrap(), 1);
    }
}
