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

/// A rayon pool of `threads` workers (all cores when `None`).
pub fn thread_pool(threads: Option<usize>) -> Result<rayon::ThreadPool> {
    if threads == Some(0) {
        bail!("--threads must be at least 1");
    }
    rayon::ThreadPoolBuilder::new().num_threads(threads.unwrap_or(0)).build().context("cannot start worker threads")
}

/// A file written under a temporary name and renamed into place on success, so a failed
/// run leaves any existing file untouched. Creating it checks the path is writable.
pub struct AtomicFile {
    target: PathBuf,
    temporary: PathBuf,
    file: Option<std::fs::File>,
}

impl AtomicFile {
    pub fn create(target: &Path) -> Result<AtomicFile> {
        let name = target.file_name().with_context(|| format!("{} is not a file path", target.display()))?;
        let temporary = target.with_file_name(format!(".{}.partial-{}", name.to_string_lossy(), std::process::id()));
        let file = std::fs::File::create(&temporary).with_context(|| format!("cannot write {}", target.display()))?;
        Ok(AtomicFile { target: target.to_path_buf(), temporary, file: Some(file) })
    }
    pub fn writer(&mut self) -> &mut std::fs::File {
        self.file.as_mut().expect("file open until commit")
    }
    pub fn commit(mut self) -> Result<()> {
        let file = self.file.take().expect("commit once");
        file.sync_all().ok();
        drop(file);
        std::fs::rename(&self.temporary, &self.target)
            .with_context(|| format!("cannot write {}", self.target.display()))
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.file.is_some() {
            let _ = std::fs::remove_file(&self.temporary);
        }
    }
}

pub fn run(args: PlayArgs) -> Result<()> {
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    if args.max_pieces == Some(0) {
        bail!("--max-pieces must be at least 1");
    }
    let preset = presets::find(&args.preset)?;
    let built = preset.build_with_rules(args.rules.as_deref(), args.board, args.weights.as_deref())?;
    let pool = thread_pool(args.threads)?;
    let mut csv_out = args.csv.as_deref().map(AtomicFile::create).transpose()?;

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

    if let Some(out) = csv_out.as_mut() {
        write_csv(out.writer(), &records)
            .with_context(|| format!("cannot write {}", args.csv.as_ref().unwrap().display()))?;
    }
    if let Some(out) = csv_out {
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
