//! Run folders that never reuse an earlier run's: `name`, else `name-2`, `name-3`, ...

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

/// Creates a new folder `parent/name` (or `name-2`, ...); `parent` must exist.
/// `create_dir` fails on an existing folder, so two runs can never share one.
pub fn create_unique(parent: &Path, name: &str) -> Result<PathBuf> {
    for attempt in 1..1000 {
        let candidate = if attempt == 1 { name.to_string() } else { format!("{name}-{attempt}") };
        let dir = parent.join(candidate);
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e).with_context(|| format!("cannot create run folder {}", dir.display())),
        }
    }
    bail!("cannot find a free run folder name for {name} in {}", parent.display())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_second_run_gets_a_suffix() {
        let temp = tempfile::tempdir().unwrap();
        let first = super::create_unique(temp.path(), "run").unwrap();
        let second = super::create_unique(temp.path(), "run").unwrap();
        assert_eq!(first.file_name().unwrap(), "run");
        assert_eq!(second.file_name().unwrap(), "run-2");
    }
}
