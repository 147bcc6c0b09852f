//! What the E-Tetris commands share around a search: their settings checked (each error
//! naming its flag), and the files a run writes: a record with its manifest beside it, and
//! the files kept beside a record while it is being made (`<record>.checkpoint`, ...).

use super::game::PIECE_LIMIT;
use super::record::Record;
use super::solver::{MoveSet, Options};
use super::weights::Weights;
use crate::support::atomic_file::AtomicFile;
use crate::support::run_dir::{manifest_beside, merged, prepare_manifest_beside};
use anyhow::{ensure, Context, Result};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Checks `--beam` and `--max-pieces` (shared by `solve`, `bench` and `versus`).
pub fn check_beam_and_pieces(beam: usize, pieces: usize) -> Result<()> {
    crate::limits::check_count("--beam", beam, crate::limits::MAX_BEAM)?;
    ensure!((1..=PIECE_LIMIT).contains(&pieces), "--max-pieces must be in 1..={PIECE_LIMIT}, got {pieces}");
    Ok(())
}

/// Checks `--jitter-percent` (shared by `solve` and `versus`).
pub fn check_jitter_percent(percent: f64) -> Result<()> {
    ensure!(
        percent.is_finite() && percent > 0.0 && percent <= 50.0,
        "--jitter-percent must be above 0 and at most 50, got {percent}"
    );
    Ok(())
}

/// Checks the options shared by `solve` and `bench` and reads the weights.
pub fn checked_options(beam: usize, pieces: usize, weights: Option<&Path>, moves: MoveSet) -> Result<Options> {
    check_beam_and_pieces(beam, pieces)?;
    let weights = match weights {
        Some(path) => Weights::load(path)?,
        None => Weights::default(),
    };
    Ok(Options::new(beam, moves, weights))
}

/// Checks `--checkpoint-every` (shared by `solve` and `versus`) and returns it as a
/// duration; one beyond what a duration holds (1e30 seconds) means never by time.
pub fn checkpoint_cadence(seconds: f64) -> Result<Duration> {
    ensure!(
        seconds.is_finite() && seconds >= 0.0,
        "--checkpoint-every must be a number of seconds of at least 0, got {seconds}"
    );
    Ok(Duration::try_from_secs_f64(seconds).unwrap_or(Duration::MAX))
}

/// Makes the record's folder if missing and checks the record and its manifest can be
/// written there, before the search, so an unwritable path fails at once.
pub fn prepare_record_path(path: &Path) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty() && !d.exists()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        eprintln!("created folder {} for the record (--record FILE writes it elsewhere)", dir.display());
    }
    AtomicFile::check_writable(path)?;
    AtomicFile::check_writable(&manifest_beside(path))
}

/// The weights as a JSON table keyed by term (the `--weights` file's keys and values).
pub fn weights_json(weights: &Weights) -> serde_json::Value {
    let table: toml::Table = toml::from_str(&weights.to_toml()).expect("Weights::to_toml writes TOML");
    serde_json::to_value(table).expect("a TOML table of numbers is JSON")
}

/// Writes a record (atomically).
pub fn write_record(path: &Path, record: &Record) -> Result<()> {
    prepare_record(path, record)?.commit()
}

/// A record written under its temporary name, not yet renamed into place.
fn prepare_record(path: &Path, record: &Record) -> Result<AtomicFile> {
    let mut out = AtomicFile::create(path)?;
    writeln!(out.writer(), "{record}").with_context(|| format!("cannot write record file {}", path.display()))?;
    Ok(out)
}

/// Writes a record and its manifest beside it, both whole before either replaces an earlier
/// file of the same name.
pub fn write_record_with_manifest(
    path: &Path,
    record: &Record,
    command: &str,
    manifest: serde_json::Value,
) -> Result<()> {
    let record_file = prepare_record(path, record)?;
    let manifest_file = prepare_manifest_beside(path, command, manifest)?;
    record_file.commit()?;
    manifest_file.commit()
}

/// An E-Tetris run's manifest fields: the game's (rule set, its version, the sequence),
/// then `fields`, the run's own. A record file holds only key presses, in the contest's
/// format: its manifest says what made it.
pub fn etetris_manifest(fields: serde_json::Value) -> serde_json::Value {
    let game = serde_json::json!({
        "rule_set": "etetris",
        "rule_set_version": super::game::RULES_VERSION,
        "sequence": "the contest's fixed piece sequence (no seed)",
    });
    merged(game, fields)
}

/// `path` with `suffix` added to its name (`r.txt` -> `r.txt.checkpoint`): the files a
/// run keeps beside its output.
pub fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Where a solve writing `record` saves its state.
pub fn checkpoint_beside(record: &Path) -> PathBuf {
    with_suffix(record, ".checkpoint")
}

/// Reads and parses a record file, errors naming the file.
pub fn read_record(path: &Path) -> Result<Record> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read record file {}", path.display()))?;
    Record::parse(&text).with_context(|| format!("record file {}", path.display()))
}

/// Jitters `weights` with `seed` (0: off) by up to `percent` % [default: 1] (the flags
/// `--jitter SEED [--jitter-percent P]`), checking the two and printing the weights used on
/// stderr (nothing when `seed` is 0).
pub fn jitter(weights: &mut Weights, seed: u64, percent: Option<f64>) -> Result<()> {
    let size = percent.unwrap_or(1.0);
    check_jitter_percent(size)?;
    anyhow::ensure!(
        seed != 0 || percent.is_none(),
        "--jitter-percent sets the size of --jitter: give --jitter SEED too"
    );
    if seed != 0 {
        *weights = weights.jittered(seed, size / 100.0);
        eprintln!(
            "weights jittered (seed {seed}, up to {size}%): {}",
            weights.to_toml().trim_end().replace('\n', ", ")
        );
    }
    Ok(())
}
