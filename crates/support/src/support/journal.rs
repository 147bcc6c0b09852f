//! Append-only files of a long command's finished steps, so that a run of many hours can
//! be stopped at any moment and continued without losing a finished step: the whole lines
//! a file holds ([`open_lines`]; a line cut short by a kill is dropped), and the
//! [`Journal`] of one run's steps, fingerprinted so that another run's are never taken.

use anyhow::{bail, Context, Result};
use std::fs::{File, OpenOptions};
use std::io::{Read as _, Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// A file of lines opened to append to ([`open_lines`]): the whole lines it holds, read.
pub struct Lines {
    file: File,
    path: PathBuf,
    /// The whole lines.
    pub text: String,
    /// Bytes after the last newline: a line being written when a run was stopped.
    tail: usize,
}

/// Opens `path` to append lines to, creating it if it does not exist, and reads the whole
/// lines it holds. Everything up to the last newline is whole lines; a tail without one
/// was being written when a run was stopped, and [`Lines::appender`] cuts it off the file
/// (nothing is changed before the caller has read the lines and accepted the file).
pub fn open_lines(path: &Path) -> Result<Lines> {
    let mut file = OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .open(path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    let mut text = String::new();
    file.read_to_string(&mut text).with_context(|| format!("cannot read {}", path.display()))?;
    let whole = text.rfind('\n').map_or(0, |end| end + 1);
    let tail = text.len() - whole;
    text.truncate(whole);
    Ok(Lines { file, path: path.to_path_buf(), text, tail })
}

impl Lines {
    /// The file to append to, any cut-short last line removed first, and the whole lines.
    pub fn appender(mut self) -> Result<(File, String)> {
        if self.tail > 0 {
            self.file
                .set_len(self.text.len() as u64)
                .with_context(|| format!("cannot repair {}", self.path.display()))?;
            self.file.seek(SeekFrom::End(0))?;
        }
        Ok((self.file, self.text))
    }
}

/// What kind of [`Journal`] a file is: its title (the fingerprint follows it on the first
/// line), its header (the second line), and what to tell a user whose file belongs to
/// another run.
pub struct JournalKind {
    pub title: &'static str,
    pub header: &'static str,
    /// Completes "{path} keeps ...", e.g. "the searches of another comparison (other sides
    /// or settings): give another --csv, or delete it to start afresh".
    pub another_run: &'static str,
}

/// An append-only file of a long command's finished steps, for one run: a title line with
/// the run's fingerprint (what makes two runs the same, so that one may use the other's
/// steps), a header, then one line per step, appended and flushed whole as it ends. A kill
/// can cut the last line short (it is dropped when the file is opened again, the step done
/// again), or the first two (what is missing of them is written again).
pub struct Journal {
    path: PathBuf,
    file: Mutex<File>,
}

impl Journal {
    /// Opens the journal at `path` for the run `fingerprint`, creating it if missing, and
    /// returns the steps an earlier run of the same settings wrote, each read by `parse`
    /// (an error names the file and line). A file of another run, or not a journal of
    /// `kind`, is an error and is left as it is.
    pub fn open<T>(
        path: &Path,
        kind: &JournalKind,
        fingerprint: &str,
        parse: impl Fn(&str) -> Result<T>,
    ) -> Result<(Journal, Vec<T>)> {
        let title = format!("{}{fingerprint}", kind.title);
        let lines = open_lines(path)?;
        let mut read = lines.text.lines();
        let mut steps = Vec::new();
        let new = match read.next() {
            None => true,
            Some(first) if first == title => {
                for (number, line) in read.enumerate() {
                    if !(number == 0 && line == kind.header) {
                        let step = parse(line).with_context(|| {
                            format!("{}, line {}: {}", path.display(), number + 2, crate::names::Quoted(line))
                        })?;
                        steps.push(step);
                    }
                }
                false
            }
            Some(first) if first.starts_with(kind.title) => bail!("{} keeps {}", path.display(), kind.another_run),
            Some(_) => {
                bail!("{}: not a file of {} (its first line)", path.display(), kind.title.trim_matches([' ', '#', ':']))
            }
        };
        let (mut file, text) = lines.appender()?;
        let write = |file: &mut File, text: &str| {
            file.write_all(text.as_bytes()).with_context(|| format!("cannot write {}", path.display()))
        };
        if new {
            write(&mut file, &format!("{title}\n{}\n", kind.header))?;
        } else if text.lines().nth(1).is_none() {
            write(&mut file, &format!("{}\n", kind.header))?;
        }
        Ok((Journal { path: path.to_path_buf(), file: Mutex::new(file) }, steps))
    }

    /// Appends one step's line (whole, one write) and hands it to the system.
    pub fn append(&self, line: &str) -> Result<()> {
        let mut file = self.file.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        file.write_all(format!("{line}\n").as_bytes())
            .and_then(|()| file.flush())
            .with_context(|| format!("cannot write {}", self.path.display()))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Closes and removes the file (its steps are in the run's output now), with any
    /// temporary beside it; returns where it was.
    pub fn remove(self) -> PathBuf {
        let Journal { path, file } = self;
        drop(file);
        crate::support::atomic_file::remove_with_temporaries(&path);
        path
    }
}
