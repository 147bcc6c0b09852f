//! The files an E-Tetris comparison keeps (`tetris-lab etetris versus --csv FILE`): the
//! pairs' CSV, each finished search appended to `<csv>.searches` as it ends, and the state
//! of each search in progress beside it ([`Keeper`], the [`Keep`] of [`super::versus`]),
//! so that a comparison stopped at any moment continues without searching again.

use super::versus::{Finished, Keep, Pair};
use crate::etetris::game::PIECE_LIMIT;
use crate::etetris::runs::with_suffix;
use crate::etetris::search_state::SearchState;
use crate::interrupt::stop_flag;
use crate::support::atomic_file::{remove_with_temporaries, target_of_temporary, AtomicFile};
use crate::support::journal::{Journal, JournalKind};
use anyhow::{bail, ensure, Context, Result};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Writes one row per pair (seed, a, b, gain, a_pieces, b_pieces) to `path` (atomically).
pub fn write_csv(path: &Path, pairs: &[Pair]) -> Result<()> {
    let mut file = AtomicFile::create(path)?;
    {
        let mut writer = csv::Writer::from_writer(file.writer());
        writer.write_record(["seed", "a", "b", "gain", "a_pieces", "b_pieces"])?;
        for p in pairs {
            writer.write_record([
                p.seed.to_string(),
                p.a.to_string(),
                p.b.to_string(),
                p.gain().to_string(),
                p.a_pieces.to_string(),
                p.b_pieces.to_string(),
            ])?;
        }
        writer.flush().with_context(|| format!("cannot write {}", path.display()))?;
    }
    file.commit()
}

/// Where `versus --csv FILE` keeps its finished searches.
pub fn searches_beside(csv: &Path) -> PathBuf {
    with_suffix(csv, ".searches")
}

/// The journal of a comparison's finished searches: one line `seed,side,score,pieces` per
/// search, appended as it ends.
const SEARCHES: JournalKind = JournalKind {
    title: "# tetris-lab etetris versus searches: ",
    header: "seed,side,score,pieces",
    another_run: "the searches of another comparison (other sides or settings): give another --csv, \
                  or delete it to start afresh",
};

/// A comparison's finished searches ([`SEARCHES`]), read back and appended to.
pub struct Searches {
    pub journal: Journal,
    finished: Vec<Finished>,
}

impl Searches {
    /// Opens the file at `path` for the comparison `fingerprint`, creating it if missing;
    /// one of another comparison is an error (and is left as it is).
    pub fn open(path: &Path, fingerprint: &str) -> Result<Searches> {
        let (journal, finished) = Journal::open(path, &SEARCHES, fingerprint, parse_search)?;
        Ok(Searches { journal, finished })
    }

    /// The searches read back whose seed is among `seeds`.
    pub fn wanted(&self, seeds: &[u64]) -> Vec<Finished> {
        self.finished.iter().filter(|f| seeds.contains(&f.seed)).copied().collect()
    }

    /// Appends one finished search (whole, one write) and hands it to the system.
    fn append(&self, f: &Finished) -> Result<()> {
        self.journal.append(&format!("{},{},{},{}", f.seed, ["A", "B"][f.side], f.score, f.pieces))
    }

    /// Where the state of the search of `seed` and `side` in progress is saved.
    fn checkpoint(&self, seed: u64, side: usize) -> PathBuf {
        with_suffix(self.journal.path(), &format!(".{seed}-{}.checkpoint", ["A", "B"][side]))
    }

    /// Removes the file (its searches are in the CSV now) and any search's checkpoint left
    /// beside it (of seeds an earlier, stopped run asked for and this one did not).
    pub fn remove(self) {
        let path = self.journal.remove();
        let (Some(folder), Some(name)) = (path.parent(), path.file_name()) else { return };
        let folder = if folder.as_os_str().is_empty() { Path::new(".") } else { folder };
        let prefix = format!("{}.", name.to_string_lossy());
        for entry in std::fs::read_dir(folder).into_iter().flatten().flatten() {
            // A checkpoint, or the temporary of one whose first save a `kill -9` cut short
            // (removing its checkpoint removes it).
            let checkpoint = target_of_temporary(&entry.path()).unwrap_or_else(|| entry.path());
            let file = checkpoint.file_name().unwrap_or_default().to_string_lossy().into_owned();
            if file.starts_with(&prefix) && file.ends_with(".checkpoint") {
                remove_with_temporaries(&checkpoint);
            }
        }
    }
}

/// A comparison's [`Keep`]: with `--csv`, the searches file and a checkpoint per search in
/// progress; without, nothing.
pub struct Keeper<'a> {
    pub searches: Option<&'a Searches>,
    pub earlier: Vec<Finished>,
    pub fingerprint: &'a str,
    pub every: Duration,
    pub bar: &'a indicatif::ProgressBar,
}

impl Keeper<'_> {
    /// What a search's checkpoint holds beside its state: the comparison and the search.
    fn note(&self, seed: u64, side: usize) -> String {
        format!("{} seed {seed} side {}", self.fingerprint, ["A", "B"][side])
    }
}

impl Keep for Keeper<'_> {
    fn earlier(&self) -> &[Finished] {
        &self.earlier
    }

    fn finished(&self, search: &Finished) -> Result<()> {
        let Some(searches) = self.searches else { return Ok(()) };
        searches.append(search)?;
        // Only now: a stop before the line is written leaves the state to go on from.
        remove_with_temporaries(&searches.checkpoint(search.seed, search.side));
        Ok(())
    }

    fn saved(&self, seed: u64, side: usize) -> Result<Option<SearchState>> {
        let Some(searches) = self.searches else { return Ok(None) };
        let path = searches.checkpoint(seed, side);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        };
        let (state, note) = SearchState::from_bytes(&bytes).with_context(|| format!("{}", path.display()))?;
        ensure!(
            note == self.note(seed, side),
            "{} holds a search of another comparison: delete it to search again",
            path.display()
        );
        Ok(Some(state))
    }

    fn save(&self, seed: u64, side: usize, state: &SearchState) -> Result<()> {
        let Some(searches) = self.searches else { return Ok(()) };
        let path = searches.checkpoint(seed, side);
        let mut out = AtomicFile::create(&path)?;
        out.writer()
            .write_all(&state.to_bytes(&self.note(seed, side)))
            .with_context(|| format!("cannot write {}", path.display()))?;
        out.commit()
    }

    fn every(&self) -> Duration {
        if self.searches.is_some() {
            self.every
        } else {
            Duration::MAX
        }
    }

    fn stop(&self) -> &AtomicBool {
        stop_flag()
    }

    fn warn(&self, message: &str) {
        self.bar.println(message);
    }
}

/// One line of the searches file: `seed,side,score,pieces`, side `A` or `B`.
fn parse_search(line: &str) -> Result<Finished> {
    let fields: Vec<&str> = line.split(',').collect();
    let [seed, side, score, pieces] = fields[..] else {
        bail!("expected 4 fields (seed,side,score,pieces), found {}", fields.len());
    };
    let number = |name: &str, text: &str| -> Result<u64> {
        text.parse().with_context(|| format!("{name} {} is not a count", crate::names::Quoted(text)))
    };
    let side = match side {
        "A" => 0,
        "B" => 1,
        other => bail!("side {other:?} is not A or B"),
    };
    let pieces = number("pieces", pieces)?;
    ensure!(pieces <= PIECE_LIMIT as u64, "pieces {pieces} is more than the game's {PIECE_LIMIT}");
    Ok(Finished { seed: number("seed", seed)?, side, score: number("score", score)?, pieces: pieces as usize })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kill while the file's first two lines were being written leaves them cut: the
    /// file opens as the same comparison's, with its title and header whole again.
    #[test]
    fn a_searches_file_cut_in_its_first_lines_is_mended() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pairs.csv.searches");
        let title = format!("{}sides A and B", SEARCHES.title);
        let whole = format!("{title}\n{}\n", SEARCHES.header);
        for cut in [3, title.len(), title.len() + 1, title.len() + 6, whole.len()] {
            std::fs::write(&path, &whole[..cut]).unwrap();
            let searches = Searches::open(&path, "sides A and B").unwrap();
            assert!(searches.finished.is_empty());
            searches.append(&Finished { seed: 1, side: 1, score: 1000, pieces: 10 }).unwrap();
            drop(searches);
            assert_eq!(std::fs::read_to_string(&path).unwrap(), format!("{whole}1,B,1000,10\n"), "cut at {cut}");
            let again = Searches::open(&path, "sides A and B").unwrap();
            assert_eq!(again.finished.len(), 1, "cut at {cut}");
        }
    }
}
