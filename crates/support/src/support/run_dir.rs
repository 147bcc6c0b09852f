//! Run folders that never reuse an earlier run's (`name`, else `name-2`, `name-3`, ...),
//! and what every run records of where it came from: UTC times and the git commit.

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

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

/// Refuses a name that would not be one plain folder inside its parent (`..`, `a/b`, a
/// leading dot, spaces): the names of experiments, which name their results' folders.
pub fn check_folder_name(name: &str) -> Result<()> {
    if name.len() > 100 {
        let start: String = name.chars().take(20).collect();
        bail!("name {start:?}... is longer than 100 characters (it names the results folder)");
    }
    if name.is_empty() || name.starts_with('.') || !name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
    {
        bail!("name {name:?} must be letters, digits, '-', '_' or '.' (it names the results folder)");
    }
    Ok(())
}

/// Refuses a study whose experiment `name` holds the folder of a repetition past its
/// `runs` (`run-07` of 5): its study file (at `study_file`) was edited after runs were made.
pub fn check_repetitions(study: &Path, name: &str, runs: u64, study_file: &Path) -> Result<()> {
    let made = std::fs::read_dir(study.join(name)).into_iter().flatten().flatten().filter(|entry| {
        let folder = entry.file_name().to_string_lossy().into_owned();
        folder.strip_prefix("run-").and_then(|n| n.parse::<u64>().ok()).is_some_and(|n| n > runs)
    });
    if let Some(extra) = made.map(|entry| entry.file_name()).next() {
        bail!(
            "{}: experiment {name} has {runs} runs, yet its folder holds {}: the file was edited",
            study_file.display(),
            extra.to_string_lossy()
        );
    }
    Ok(())
}

/// (year, month, day, hour, minute, second) in UTC; callers choose the format.
pub fn utc_parts(time: SystemTime) -> (i64, u32, u32, u32, u32, u32) {
    let seconds = time.duration_since(UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0);
    let (days, rest) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era = (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * month_index + 2) / 5 + 1) as u32;
    let month = if month_index < 10 { month_index + 3 } else { month_index - 9 } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day, (rest / 3600) as u32, (rest % 3600 / 60) as u32, (rest % 60) as u32)
}

/// `YYYYMMDD-HHMMSS` in UTC: the one stamp every new run folder starts with (sortable,
/// safe in a file name). Folders made by earlier versions with other stamps
/// (`20261129T124100Z-seed1`) are still read: nothing parses a folder's name.
pub fn stamp(time: SystemTime) -> String {
    let (y, mo, d, h, mi, s) = utc_parts(time);
    format!("{y:04}{mo:02}{d:02}-{h:02}{mi:02}{s:02}")
}

/// ISO 8601 in UTC (`2026-12-03T06:40:00Z`).
pub fn utc_iso(time: SystemTime) -> String {
    let (y, mo, d, h, mi, s) = utc_parts(time);
    format!("{y}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z")
}

/// Where a run that writes one file (a CSV of games, an E-Tetris record) records where it
/// came from: beside it, the same name with `.manifest.json` for its extension
/// (`games.csv` -> `games.manifest.json`). Never the file itself.
pub fn manifest_beside(output: &Path) -> PathBuf {
    output.with_extension("manifest.json")
}

/// What every run records: the subcommand and its arguments, the crate's version, the
/// commit, the time it finished (UTC), then `fields`, the run's own (its master seed, preset,
/// rule set and rule set version, results).
pub fn provenance(command: &str, fields: serde_json::Value) -> serde_json::Value {
    let manifest = serde_json::json!({
        "command": command,
        "arguments": std::env::args().skip(1).collect::<Vec<_>>(),
        "crate_version": env!("CARGO_PKG_VERSION"),
        "git_hash": git_hash().unwrap_or_else(|| "unknown".into()),
        "finished_utc": utc_iso(SystemTime::now()),
    });
    merged(manifest, fields)
}

/// `base` with the keys of `more` added (replacing its own of the same names); both JSON
/// objects.
pub fn merged(mut base: serde_json::Value, more: serde_json::Value) -> serde_json::Value {
    if let (Some(all), serde_json::Value::Object(own)) = (base.as_object_mut(), more) {
        all.extend(own);
    }
    base
}

/// Writes [`provenance`] to [`manifest_beside`] `output` (atomically) and returns its path.
pub fn write_manifest_beside(output: &Path, command: &str, fields: serde_json::Value) -> Result<PathBuf> {
    prepare_manifest_beside(output, command, fields)?.commit()?;
    Ok(manifest_beside(output))
}

/// The manifest of [`write_manifest_beside`], written under its temporary name and not yet
/// renamed into place: a command commits it with its output, once both are whole.
pub fn prepare_manifest_beside(
    output: &Path,
    command: &str,
    fields: serde_json::Value,
) -> Result<super::atomic_file::AtomicFile> {
    let path = manifest_beside(output);
    let mut file = super::atomic_file::AtomicFile::create(&path)?;
    serde_json::to_writer_pretty(file.writer(), &provenance(command, fields))
        .with_context(|| format!("cannot write {}", path.display()))?;
    std::io::Write::write_all(file.writer(), b"\n").with_context(|| format!("cannot write {}", path.display()))?;
    Ok(file)
}

/// The build's commit, as the program registered it ([`set_git_hash`]).
static GIT_HASH: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Registers the commit the program was built from (the binary's `build.rs` stamps it, with
/// `-dirty` when tracked files differed; `unknown` outside a git checkout). Stamped in the
/// program rather than here, so that a change of the stamp rebuilds the program alone.
pub fn set_git_hash(hash: &str) {
    let _ = GIT_HASH.set(hash.to_string());
}

/// The commit the program was built from ([`set_git_hash`]); `None` when unknown.
pub fn git_hash() -> Option<String> {
    GIT_HASH.get().filter(|hash| hash.as_str() != "unknown").cloned()
}

/// Creates `<out>/<UTC stamp>-seed<seed>` (and `out` if need be), adding `-2`, `-3`, ...
/// when that exists, so a run never writes into an earlier one.
pub fn create_run_folder(out: &Path, started: SystemTime, seed: u64) -> Result<PathBuf> {
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    create_unique(out, &format!("{}-seed{}", stamp(started), seed))
}

#[cfg(test)]
mod tests {
    #[test]
    fn stamps_are_utc_and_sortable() {
        use std::time::{Duration, UNIX_EPOCH};
        assert_eq!(super::stamp(UNIX_EPOCH), "19700101-000000");
        // 2026-11-29 12:41:00 UTC.
        assert_eq!(super::stamp(UNIX_EPOCH + Duration::from_secs(1_795_956_060)), "20261129-124100");
    }

    #[test]
    fn manifests_sit_beside_their_output_and_never_replace_it() {
        use std::path::Path;
        assert_eq!(super::manifest_beside(Path::new("out/games.csv")), Path::new("out/games.manifest.json"));
        assert_eq!(super::manifest_beside(Path::new("k1000")), Path::new("k1000.manifest.json"));
        let odd = Path::new("a.manifest.json");
        assert_ne!(super::manifest_beside(odd), odd);
        let manifest = super::provenance("play", serde_json::json!({"master_seed": 7}));
        assert_eq!(manifest["command"], "play");
        assert_eq!(manifest["master_seed"], 7);
        assert_eq!(manifest["crate_version"], env!("CARGO_PKG_VERSION"));
        assert!(manifest["finished_utc"].as_str().unwrap().ends_with('Z'));
    }

    #[test]
    fn a_second_run_gets_a_suffix() {
        let temp = tempfile::tempdir().unwrap();
        let first = super::create_unique(temp.path(), "run").unwrap();
        let second = super::create_unique(temp.path(), "run").unwrap();
        assert_eq!(first.file_name().unwrap(), "run");
        assert_eq!(second.file_name().unwrap(), "run-2");
    }
}
