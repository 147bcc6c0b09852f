//! An append-only record of finished games, so that a measurement of many hours can be
//! stopped at any moment and continued without losing a finished game.
//!
//! Each game is one CSV line, appended and flushed to the operating system as the game
//! ends (from whichever worker thread finished it). Games are keyed by the measurement they
//! belong to and their index in it: game `i` is seeded from the master seed and `i` alone,
//! so a continued run plays exactly the games that are missing and ends with the results
//! an uninterrupted run would have. A line cut short by a kill is dropped when the ledger
//! is opened again (that game is simply played again).

use crate::sim::{GameEnd, GameRecord};
use crate::support::journal::open_lines;
use anyhow::{bail, Context, Result};
use std::collections::HashMap;
use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

const HEADER: &str = "measurement,game,seed,lines,pieces,score,end,level";

/// The games finished so far, and the file new ones are appended to.
pub struct Ledger {
    path: PathBuf,
    file: Mutex<File>,
    games: Mutex<HashMap<(String, u64), GameRecord>>,
    /// Games read from an earlier run's file.
    earlier: usize,
}

impl Ledger {
    /// Opens the ledger at `path`, creating it if it does not exist and reading the games
    /// of an earlier run if it does.
    pub fn open(path: &Path) -> Result<Ledger> {
        let lines = open_lines(path)?;
        let new = match lines.text.lines().next() {
            None => true,
            Some(HEADER) => false,
            Some(other) => bail!("{}: not a game ledger (first line {other:?})", path.display()),
        };
        let (mut file, text) = lines.appender()?;
        if new {
            writeln!(file, "{HEADER}").with_context(|| format!("cannot write {}", path.display()))?;
        }
        let mut games = HashMap::new();
        let lines = text.lines().skip(1);
        for (number, line) in lines.enumerate() {
            let (key, record) = parse_line(line)
                .with_context(|| format!("{}, line {}: {}", path.display(), number + 2, crate::names::Quoted(line)))?;
            games.insert(key, record);
        }
        file.flush()?;
        let earlier = games.len();
        Ok(Ledger { path: path.to_path_buf(), file: Mutex::new(file), games: Mutex::new(games), earlier })
    }

    /// The game `game` of `measurement`, if it was finished (by this run or an earlier one).
    pub fn get(&self, measurement: &str, game: u64) -> Option<GameRecord> {
        self.lock_games().get(&(measurement.to_string(), game)).copied()
    }

    /// How many of the games `0..count` of `measurement` are finished.
    pub fn finished(&self, measurement: &str, count: u64) -> u64 {
        let games = self.lock_games();
        (0..count).filter(|&game| games.contains_key(&(measurement.to_string(), game))).count() as u64
    }

    /// Where the ledger is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Games finished by earlier runs (read when the ledger was opened).
    pub fn earlier(&self) -> usize {
        self.earlier
    }

    /// Games finished in all.
    pub fn len(&self) -> usize {
        self.lock_games().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock_games(&self) -> std::sync::MutexGuard<'_, HashMap<(String, u64), GameRecord>> {
        self.games.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Appends a finished game (safe to call from several threads).
    pub fn append(&self, measurement: &str, game: u64, record: &GameRecord) -> Result<()> {
        if measurement.contains([',', '\n', '"']) {
            bail!("ledger keys may not contain commas, quotes or newlines: {measurement:?}");
        }
        let level = record.level.map(|l| l.to_string()).unwrap_or_default();
        let line = format!(
            "{measurement},{game},{},{},{},{},{},{level}\n",
            record.seed,
            record.lines,
            record.pieces,
            record.score,
            record.end.as_str()
        );
        let mut file = self.file.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        // One write call per line: a kill leaves at most one partial line, at the end.
        file.write_all(line.as_bytes()).with_context(|| format!("cannot write {}", self.path.display()))?;
        file.flush()?;
        drop(file);
        self.lock_games().insert((measurement.to_string(), game), *record);
        Ok(())
    }
}

fn parse_line(line: &str) -> Result<((String, u64), GameRecord)> {
    let fields: Vec<&str> = line.split(',').collect();
    let [measurement, game, seed, lines, pieces, score, end, level] = fields[..] else {
        bail!("expected 8 fields, found {}", fields.len());
    };
    let number = |name: &str, text: &str| -> Result<u64> {
        text.parse().with_context(|| format!("field {name}: {} is not a whole number", crate::names::Quoted(text)))
    };
    let end = match end {
        "game_over" => GameEnd::GameOver,
        "piece_cap" => GameEnd::PieceCap,
        other => bail!("field end: {other:?} is neither game_over nor piece_cap"),
    };
    let level = match level {
        "" => None,
        text => {
            Some(text.parse().with_context(|| format!("field level: {} is not a level", crate::names::Quoted(text)))?)
        }
    };
    let record = GameRecord {
        seed: number("seed", seed)?,
        lines: number("lines", lines)?,
        pieces: number("pieces", pieces)?,
        score: number("score", score)?,
        level,
        end,
    };
    Ok(((measurement.to_string(), number("game", game)?), record))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::OpenOptions;

    fn record(seed: u64, lines: u64) -> GameRecord {
        GameRecord {
            seed,
            lines,
            pieces: lines * 3 + 1,
            score: 7,
            level: seed.is_multiple_of(2).then_some(4),
            end: GameEnd::GameOver,
        }
    }

    #[test]
    fn games_survive_a_reopen_and_a_cut_line_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ledger.csv");
        {
            let ledger = Ledger::open(&path).unwrap();
            assert!(ledger.is_empty());
            ledger.append("1:bcts:10x8", 0, &record(10, 500)).unwrap();
            ledger.append("1:bcts:10x8", 3, &record(11, 600)).unwrap();
            ledger.append("2:bcts:10x9", 0, &record(12, 700)).unwrap();
        }
        // A kill in the middle of a write.
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(b"2:bcts:10x9,1,99,12").unwrap();
        drop(file);

        let ledger = Ledger::open(&path).unwrap();
        assert_eq!(ledger.len(), 3);
        assert_eq!(ledger.get("1:bcts:10x8", 3), Some(record(11, 600)));
        assert_eq!(ledger.get("2:bcts:10x9", 0), Some(record(12, 700)));
        assert_eq!(ledger.get("2:bcts:10x9", 1), None);
        ledger.append("2:bcts:10x9", 1, &record(13, 800)).unwrap();
        drop(ledger);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.ends_with("2:bcts:10x9,1,13,800,2401,7,game_over,\n"), "{text}");
        assert_eq!(Ledger::open(&path).unwrap().len(), 4);
    }

    #[test]
    fn another_file_is_refused_and_a_bad_line_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("table.csv");
        std::fs::write(&path, "preset,board\nbcts,10x10\n").unwrap();
        let error = Ledger::open(&path).err().unwrap().to_string();
        assert!(error.contains("not a game ledger"), "{error}");
        std::fs::write(&path, format!("{HEADER}\nm,0,1,2,3,4,game_over,\nm,x,1,2,3,4,game_over,\n")).unwrap();
        let error = format!("{:#}", Ledger::open(&path).err().unwrap());
        assert!(error.contains("line 3") && error.contains("field game"), "{error}");
    }
}
