//! Files written whole or not at all: every command and campaign that writes a result
//! goes through [`AtomicFile`], so an interrupted or failed run never leaves half a file.

use anyhow::{bail, Context, Result};
use std::io::BufWriter;
use std::path::{Path, PathBuf};

/// A file written under a temporary name in the target's folder and renamed into place by
/// [`AtomicFile::commit`], so a failed run leaves any existing file untouched and no
/// temporary behind (it is removed when the `AtomicFile` is dropped, commit failing
/// included). Creating it checks the folder is writable before any work. The temporary
/// name keeps the target's extension, for writers that choose the format by it.
pub struct AtomicFile {
    target: PathBuf,
    /// Buffered: serde and csv write a field at a time, and a checkpoint written one
    /// system call per field costs thousands of calls.
    file: BufWriter<tempfile::NamedTempFile>,
    /// Registered with `interrupt`, so an exit on a second Ctrl-C removes the temporary.
    writing: crate::interrupt::Writing,
}

impl AtomicFile {
    pub fn create(target: &Path) -> Result<AtomicFile> {
        let cannot = || format!("cannot write {}", target.display());
        let (prefix, extension) =
            temporary_name(target).with_context(|| format!("{} is not a file path", target.display()))?;
        if target.is_dir() {
            bail!("cannot write {}: it is a folder", target.display());
        }
        // Checked here, before any work: the temporary's name is cut short, so making it
        // would not find a final name the file system refuses.
        let name_bytes = target.file_name().map_or(0, |name| name.len());
        if name_bytes > MAX_NAME_BYTES {
            bail!(
                "cannot write {}: its name has {name_bytes} bytes, more than the {MAX_NAME_BYTES} a file name may have",
                crate::names::Quoted(&target.display().to_string())
            );
        }
        let folder = folder_of(target);
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(&extension);
        // The umask's permissions, as `File::create` gives, not the temporary's own 0600.
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        if !folder.is_dir() {
            bail!("cannot write {}: there is no folder {}", target.display(), folder.display());
        }
        remove_stale_temporaries(folder, &prefix, &extension);
        // The error without the temporary's name, which the user never asked for.
        let (file, writing) = crate::interrupt::writing(|| builder.tempfile_in(folder), |file| file.path())
            .map_err(|e| std::io::Error::from(e.kind()))
            .with_context(cannot)?;
        Ok(AtomicFile { target: target.to_path_buf(), file: BufWriter::new(file), writing })
    }
    /// Checks that `target` can be written, before long work whose result goes there: the
    /// temporary is made and removed at once, so an interrupted run leaves nothing behind.
    pub fn check_writable(target: &Path) -> Result<()> {
        AtomicFile::create(target).map(drop)
    }
    pub fn writer(&mut self) -> &mut BufWriter<tempfile::NamedTempFile> {
        &mut self.file
    }
    /// Where the temporary file is, for writers that open a path themselves.
    pub fn temporary_path(&self) -> &Path {
        self.file.get_ref().path()
    }
    /// Writes `target` whole with `write`, or leaves it as it was: an error from `write`
    /// (with the context "cannot write <target>") drops the temporary unrenamed.
    pub fn write_with(
        target: &Path,
        write: impl FnOnce(&mut BufWriter<tempfile::NamedTempFile>) -> Result<()>,
    ) -> Result<()> {
        let mut file = AtomicFile::create(target)?;
        write(file.writer()).with_context(|| format!("cannot write {}", target.display()))?;
        file.commit()
    }
    /// Renames the temporary file over the target; on failure the temporary is removed.
    pub fn commit(self) -> Result<()> {
        let AtomicFile { target, file, writing } = self;
        let file = file
            .into_inner()
            .map_err(|e| e.into_error())
            .with_context(|| format!("cannot write {}", target.display()))?;
        file.as_file().sync_all().ok();
        // The rename (or the removal on its failure) with a second Ctrl-C's exit held off.
        writing
            .finish(|| file.persist(&target).map(drop).map_err(|e| e.error))
            .with_context(|| format!("cannot write {}", target.display()))?;
        Ok(())
    }
}

/// The longest file name (not path) Linux's file systems take, in bytes.
const MAX_NAME_BYTES: usize = 255;

/// The folder a path is in (`.` for a bare name).
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(folder) if !folder.as_os_str().is_empty() => folder,
        _ => Path::new("."),
    }
}

/// The prefix and suffix of the temporaries of `target` (`.NAME.partial-` and `.EXT`;
/// `tempfile` puts six random characters between them); `None` for a path with no name.
fn temporary_name(target: &Path) -> Option<(String, String)> {
    let name = target.file_name()?;
    // Cut so that a target name near the file system's limit still has a temporary.
    let short: String = name.to_string_lossy().chars().take(100).collect();
    let extension = target.extension().map(|e| format!(".{}", e.to_string_lossy())).unwrap_or_default();
    Some((format!(".{short}.partial-"), extension))
}

/// The target whose temporary `path` is (its name as [`temporary_name`] makes it), if it
/// is one.
pub fn target_of_temporary(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_str()?;
    let (target, random_and_extension) = name.strip_prefix('.')?.rsplit_once(".partial-")?;
    let target = folder_of(path).join(target);
    let (_, extension) = temporary_name(&target)?;
    (random_and_extension.len() == 6 + extension.len() && random_and_extension.ends_with(&extension)).then_some(target)
}

/// Removes the temporaries of the target a prefix names that no one in this process is
/// writing: those a process killed while writing (`kill -9`, which nothing can catch) left
/// beside the target. Once per target and process, at its first write (or check): the
/// next run of the same command cleans up after the killed one.
fn remove_stale_temporaries(folder: &Path, prefix: &str, extension: &str) {
    static CLEANED: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());
    let key = folder.join(prefix);
    {
        let mut cleaned = CLEANED.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if cleaned.contains(&key) {
            return;
        }
        cleaned.push(key);
    }
    let Ok(entries) = std::fs::read_dir(folder) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let ours =
            name.len() == prefix.len() + 6 + extension.len() && name.starts_with(prefix) && name.ends_with(extension);
        let path = entry.path();
        if ours && path.is_file() && !crate::interrupt::is_being_written(&path) {
            let _ = std::fs::remove_file(&path);
        }
    }
}

/// Removes `target` if it is there, and any temporary a killed writer left beside it
/// (a warning if the target cannot be removed: what it kept is done).
pub fn remove_with_temporaries(target: &Path) {
    match std::fs::remove_file(target) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            eprintln!("warning: cannot remove {}: {e}", target.display())
        }
        _ => {}
    }
    if let Some((prefix, extension)) = temporary_name(target) {
        remove_stale_temporaries(folder_of(target), &prefix, &extension);
    }
}

/// Refuses, before any work, an output that is another output or a file the command reads
/// (each output named by its flag, e.g. `("--csv", path)`, each input as the error says
/// it, e.g. `("the --weights file", path)`): the last written would replace the
/// other without a word, or the input would be lost. Paths are compared as the files they
/// name (`out.csv` and `./dir/../out.csv` are one), whether or not they exist yet; a file
/// not given (`None`, an optional flag left out) is skipped.
pub fn check_distinct(outputs: &[(&str, Option<&Path>)], inputs: &[(&str, Option<&Path>)]) -> Result<()> {
    let given = |files: &[(&str, Option<&Path>)]| -> Vec<(String, PathBuf, PathBuf)> {
        files
            .iter()
            .filter_map(|&(name, path)| Some((name.to_string(), path?.to_path_buf(), identity(path?))))
            .collect()
    };
    let (outputs, inputs) = (given(outputs), given(inputs));
    for (i, (flag, path, named)) in outputs.iter().enumerate() {
        if let Some((other, _, _)) = outputs[..i].iter().find(|(_, _, other)| other == named) {
            bail!("{flag} {} is also {other}: give each output a file of its own", path.display());
        }
        if let Some((input, _, _)) = inputs.iter().find(|(_, _, input)| input == named) {
            bail!("{flag} {} is {input}, which this command reads: write it elsewhere", path.display());
        }
    }
    Ok(())
}

/// The file a path names: the path resolved when it exists, else its folder resolved (when
/// that exists) joined with its name, else the path made absolute.
fn identity(path: &Path) -> PathBuf {
    if let Ok(resolved) = path.canonicalize() {
        return resolved;
    }
    match (folder_of(path).canonicalize(), path.file_name()) {
        (Ok(folder), Some(name)) => folder.join(name),
        _ => std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn names_in(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    }

    #[test]
    fn an_atomic_file_replaces_the_target_only_on_commit() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.csv");
        std::fs::write(&target, "old").unwrap();
        let mut file = AtomicFile::create(&target).unwrap();
        write!(file.writer(), "new").unwrap();
        assert!(file.temporary_path().to_string_lossy().ends_with(".csv"));
        drop(file);
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
        assert_eq!(names_in(dir.path()), ["out.csv"]);
        let mut file = AtomicFile::create(&target).unwrap();
        write!(file.writer(), "new").unwrap();
        file.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        assert_eq!(names_in(dir.path()), ["out.csv"]);
    }

    #[test]
    fn an_atomic_file_onto_a_folder_fails_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("folder")).unwrap();
        let error = AtomicFile::create(&dir.path().join("folder")).err().unwrap().to_string();
        assert!(error.contains("it is a folder"), "{error}");
        assert!(AtomicFile::check_writable(&dir.path().join("missing/out.csv")).is_err());
        AtomicFile::check_writable(&dir.path().join("out.csv")).unwrap();
        assert_eq!(names_in(dir.path()), ["folder"]);
    }

    #[test]
    fn a_writer_that_fails_halfway_leaves_the_target_and_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("games.csv");
        std::fs::write(&target, "precious\n").unwrap();
        let error = AtomicFile::write_with(&target, |file| {
            write!(file, "game,seed\n0,1\n")?;
            anyhow::bail!("disk full (simulated)")
        })
        .expect_err("the writer's error");
        assert!(format!("{error:#}").contains("disk full (simulated)"), "{error:#}");
        assert!(error.to_string().starts_with("cannot write"), "{error}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious\n");
        assert_eq!(names_in(dir.path()), ["games.csv"]);
        AtomicFile::write_with(&target, |file| Ok(write!(file, "new")?)).unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        assert_eq!(names_in(dir.path()), ["games.csv"]);
    }

    #[test]
    fn an_output_may_be_neither_another_output_nor_an_input() {
        let dir = tempfile::tempdir().unwrap();
        let weights = dir.path().join("weights.toml");
        std::fs::write(&weights, "holes = -1").unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let csv = dir.path().join("out.csv");
        let same_csv = dir.path().join("sub/../out.csv");
        let error =
            check_distinct(&[("--csv", Some(&csv)), ("--trace", Some(&same_csv))], &[]).unwrap_err().to_string();
        assert!(error.starts_with("--trace ") && error.contains("is also --csv"), "{error}");
        let error = check_distinct(&[("--csv", Some(&weights))], &[("the --weights file", Some(&weights))])
            .unwrap_err()
            .to_string();
        assert!(error.contains("is the --weights file, which this command reads"), "{error}");
        let trace = dir.path().join("game.trace");
        check_distinct(
            &[("--csv", Some(&csv)), ("--trace", Some(&trace)), ("--png", None)],
            &[("the --weights file", Some(&weights))],
        )
        .unwrap();
        // A relative path and the absolute one name one file.
        let here = std::env::current_dir().unwrap();
        let relative = Path::new("a-file-that-is-not-there.csv");
        let error =
            check_distinct(&[("--csv", Some(relative)), ("--trace", Some(&here.join(relative)))], &[]).unwrap_err();
        assert!(error.to_string().contains("is also --csv"), "{error}");
        assert_eq!(names_in(dir.path()), ["sub", "weights.toml"]);
    }

    #[test]
    fn a_killed_writer_s_temporaries_go_at_the_next_write_of_the_target() {
        let dir = tempfile::tempdir().unwrap();
        let stale = [".out.csv.partial-AbC123.csv", ".out.csv.partial-zzzzzz.csv"];
        let kept = [".other.csv.partial-AbC123.csv", ".out.csv.partial-toolong1.csv", "out.csv.partial-AbC123.csv"];
        for name in stale.iter().chain(&kept) {
            std::fs::write(dir.path().join(name), "left by a killed run").unwrap();
        }
        // One of this process's own writes of the same target is left alone.
        let (_, writing) = crate::interrupt::writing(
            || {
                std::fs::write(dir.path().join(".out.csv.partial-mine00.csv"), "")
                    .map(|_| dir.path().join(".out.csv.partial-mine00.csv"))
            },
            |path| path.as_path(),
        )
        .unwrap();
        AtomicFile::write_with(&dir.path().join("out.csv"), |file| Ok(write!(file, "new")?)).unwrap();
        drop(writing);
        let mut expected: Vec<&str> = kept.to_vec();
        expected.extend([".out.csv.partial-mine00.csv", "out.csv"]);
        expected.sort();
        assert_eq!(names_in(dir.path()), expected);
        // Removing a target takes its stale temporaries with it.
        std::fs::write(dir.path().join("state.checkpoint"), "state").unwrap();
        std::fs::write(dir.path().join(".state.checkpoint.partial-XyZ789.checkpoint"), "cut").unwrap();
        remove_with_temporaries(&dir.path().join("state.checkpoint"));
        assert!(!names_in(dir.path()).iter().any(|n| n.contains("state")), "{:?}", names_in(dir.path()));
    }
}
