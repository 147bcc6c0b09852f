//! `tetris-lab play`: plays seeded games of a preset in parallel and summarises them.

use crate::eval::presets;
use crate::report::progress::with_progress;
use crate::report::stats::Summary;
use crate::sim::{self, GameLimits, GameRecord};
use anyhow::{bail, Context, Result};
use clap::Args;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Args, Debug)]
pub struct PlayArgs {
    /// Preset to play (see `tetris-lab list`).
    #[arg(long)]
    pub preset: String,
    /// Number of games.
    #[arg(long, default_value_t = 100)]
    pub games: u64,
    /// Master seed: game i is seeded from (seed, i), whatever the thread count (erikko:
    /// game i is the original program's `java.util.Random` seed seed+i).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Play the preset's evaluator and policy under another rule set (e.g.
    /// `simplified-lines-after-overflow`).
    #[arg(long)]
    pub rules: Option<String>,
    /// Board size WxH (rule sets that allow it, e.g. `simplified`).
    #[arg(long, value_parser = parse_size)]
    pub board: Option<(usize, usize)>,
    /// Stop each game (alive) after this many pieces.
    #[arg(long)]
    pub max_pieces: Option<u64>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Replace the preset's weights with those in this TOML file.
    #[arg(long)]
    pub weights: Option<PathBuf>,
    /// Write one row per game to this CSV file.
    #[arg(long)]
    pub csv: Option<PathBuf>,
}

/// Parses `WxH`.
pub fn parse_size(s: &str) -> Result<(usize, usize), String> {
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(|| format!("board size {s:?} is not WxH (e.g. 10x20)"))?;
    let w: usize = w.trim().parse().map_err(|_| format!("board width {w:?} is not a number"))?;
    let h: usize = h.trim().parse().map_err(|_| format!("board height {h:?} is not a number"))?;
    crate::board::Board::check_size(w, h).map_err(|e| e.to_string())?;
    Ok((w, h))
}

/// A rayon pool of `threads` workers (all cores when `None`; more than the cores is capped
/// to them, see [`crate::limits::threads`]).
pub fn thread_pool(threads: Option<usize>) -> Result<rayon::ThreadPool> {
    let threads = crate::limits::threads(threads, false)?;
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().context("cannot start worker threads")
}

/// A file written under a temporary name in the target's folder and renamed into place by
/// [`AtomicFile::commit`], so a failed run leaves any existing file untouched and no
/// temporary behind (it is removed when the `AtomicFile` is dropped, commit failing
/// included). Creating it checks the folder is writable before any work. The temporary
/// name keeps the target's extension, for writers that choose the format by it.
pub struct AtomicFile {
    target: PathBuf,
    file: tempfile::NamedTempFile,
}

impl AtomicFile {
    pub fn create(target: &Path) -> Result<AtomicFile> {
        let cannot = || format!("cannot write {}", target.display());
        let name = target.file_name().with_context(|| format!("{} is not a file path", target.display()))?;
        if target.is_dir() {
            bail!("cannot write {}: it is a folder", target.display());
        }
        let folder = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let extension = target.extension().map(|e| format!(".{}", e.to_string_lossy())).unwrap_or_default();
        // Cut so that a target name near the file system's limit still has a temporary.
        let short: String = name.to_string_lossy().chars().take(100).collect();
        let prefix = format!(".{short}.partial-");
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(&extension);
        // The umask's permissions, as `File::create` gives, not the temporary's own 0600.
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        let file = builder.tempfile_in(folder).with_context(cannot)?;
        Ok(AtomicFile { target: target.to_path_buf(), file })
    }
    /// Checks that `target` can be written, before long work whose result goes there: the
    /// temporary is made and removed at once, so an interrupted run leaves nothing behind.
    pub fn check_writable(target: &Path) -> Result<()> {
        AtomicFile::create(target).map(drop)
    }
    pub fn writer(&mut self) -> &mut std::fs::File {
        self.file.as_file_mut()
    }
    /// Where the temporary file is, for writers that open a path themselves.
    pub fn temporary_path(&self) -> &Path {
        self.file.path()
    }
    /// Renames the temporary file over the target; on failure the temporary is removed.
    pub fn commit(self) -> Result<()> {
        self.file.as_file().sync_all().ok();
        let target = self.target;
        self.file
            .persist(&target)
            .map_err(|e| e.error)
            .with_context(|| format!("cannot write {}", target.display()))?;
        Ok(())
    }
}

pub fn run(args: PlayArgs) -> Result<()> {
    crate::limits::check_count("--games", args.games, crate::limits::MAX_GAMES)?;
    if args.max_pieces == Some(0) {
        bail!("--max-pieces must be at least 1");
    }
    let preset = presets::find(&args.preset)?;
    let built = preset.build_with_rules(args.rules.as_deref(), args.board, args.weights.as_deref())?;
    let pool = thread_pool(args.threads)?;
    if let Some(path) = &args.csv {
        AtomicFile::check_writable(path)?;
    }

    let rules = built.rules.as_ref();
    let policy = built.policy.as_ref();
    // Say which weights play: the published ones, or the file's.
    let weights = match &args.weights {
        Some(path) => format!("weights from {}", path.display()),
        None => "published weights".to_string(),
    };
    eprintln!(
        "preset {} | {weights} | {} | policy {} | {} games, master seed {}{}",
        preset.name,
        rules.describe(),
        policy.name(),
        args.games,
        args.seed,
        args.max_pieces.map(|m| format!(", at most {m} pieces per game")).unwrap_or_default()
    );
    let start = Instant::now();
    let limits = GameLimits { max_pieces: args.max_pieces };
    let records = with_progress("games", args.games, false, |pieces, bar| {
        pool.install(|| sim::play_batch(rules, policy, args.seed, args.games, limits, Some(pieces), &|_| bar.inc(1)))
    });
    let seconds = start.elapsed().as_secs_f64();

    if let Some(path) = &args.csv {
        let mut out = AtomicFile::create(path)?;
        write_csv(out.writer(), &records).with_context(|| format!("cannot write {}", path.display()))?;
        out.commit()?;
        eprintln!("per-game CSV written to {}", args.csv.as_ref().expect("a CSV path").display());
    }
    print_summary(&records, seconds, pool.current_num_threads(), rules.name() == "erikko");
    Ok(())
}

fn write_csv(out: &mut std::fs::File, records: &[GameRecord]) -> Result<()> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record(["game", "seed", "lines", "pieces", "score", "end", "level"])?;
    for (i, r) in records.iter().enumerate() {
        w.write_record([
            i.to_string(),
            r.seed.to_string(),
            r.lines.to_string(),
            r.pieces.to_string(),
            r.score.to_string(),
            r.end.as_str().to_string(),
            r.level.map(|l| l.to_string()).unwrap_or_default(),
        ])?;
    }
    w.flush()?;
    Ok(())
}

fn print_summary(records: &[GameRecord], seconds: f64, threads: usize, turns_metric: bool) {
    let column = |f: fn(&GameRecord) -> u64| records.iter().map(|r| f(r) as f64).collect::<Vec<_>>();
    let lines = Summary::of(&column(|r| r.lines));
    let pieces = Summary::of(&column(|r| r.pieces));
    let scores = column(|r| r.score);
    let capped = records.iter().filter(|r| r.end == sim::GameEnd::PieceCap).count();
    println!("games      {}  ({} ended by the piece cap)", records.len(), capped);
    print_row("lines", &lines);
    if scores.iter().any(|&s| s > 0.0) {
        print_row("score", &Summary::of(&scores));
    }
    print_row(if turns_metric { "turns" } else { "pieces" }, &pieces);
    let levels: Vec<u32> = records.iter().filter_map(|r| r.level).collect();
    if !levels.is_empty() {
        print_row("level", &Summary::of(&levels.iter().map(|&l| l as f64).collect::<Vec<_>>()));
        println!("levels     at the end: {}", level_counts(&levels));
    }
    let total_pieces: u64 = records.iter().map(|r| r.pieces).sum();
    println!(
        "time       {seconds:.2} s on {threads} thread(s), {:.0} pieces/s ({:.0} per thread)",
        total_pieces as f64 / seconds,
        total_pieces as f64 / seconds / threads as f64
    );
}

/// "level: games" pairs in level order, e.g. `18: 2, 19: 5`.
fn level_counts(levels: &[u32]) -> String {
    let mut counts = std::collections::BTreeMap::new();
    for &l in levels {
        *counts.entry(l).or_insert(0) += 1;
    }
    counts.iter().map(|(l, n)| format!("{l}: {n}")).collect::<Vec<_>>().join(", ")
}

fn print_row(name: &str, s: &Summary) {
    println!(
        "{name:<10} mean {:.1}  95% interval [{:.1}, {:.1}] (+-{:.1}%)  median {:.1}  sd {:.1}  min {:.0}  max {:.0}",
        s.mean,
        s.low_95(),
        s.high_95(),
        if s.mean != 0.0 { 100.0 * s.half_width_95 / s.mean } else { 0.0 },
        s.median,
        s.standard_deviation,
        s.min,
        s.max
    );
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
}
