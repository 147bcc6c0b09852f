//! `tetris-lab play`: plays seeded games of a preset in parallel and summarises them.

use crate::board::parse_size;
use crate::presets;
use crate::reproduce::Cost;
use crate::sim::{self, GameLimits, GameRecord};
use crate::support::atomic_file::{check_distinct, AtomicFile};
use crate::support::progress::with_progress_noting;
use crate::support::run_dir::{manifest_beside, prepare_manifest_beside};
use crate::support::stats::{Quantity, Summary};
use crate::support::threads::thread_pool;
use crate::view::trace::write_trace;
use anyhow::{bail, ensure, Context, Result};
use clap::Args;
use std::path::PathBuf;
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
    /// Write one row per game to this CSV file (and what the run was, its seed, preset, rule
    /// set version, crate version and commit, to the same name with `.manifest.json`).
    #[arg(long)]
    pub csv: Option<PathBuf>,
    /// Write the moves of one game (--game, default 0) to this trace file (format: docs/watching.md;
    /// `watch --replay` replays it).
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// The game of the batch --trace writes (from 0).
    #[arg(long)]
    pub game: Option<u64>,
}

pub fn run(args: PlayArgs) -> Result<()> {
    crate::limits::check_count("--games", args.games, crate::limits::MAX_GAMES)?;
    if args.max_pieces == Some(0) {
        bail!("--max-pieces must be at least 1");
    }
    let preset = presets::find(&args.preset)?;
    let built = preset.build_with_rules(args.rules.as_deref(), args.board, args.weights.as_deref())?;
    let pool = thread_pool(args.threads)?;
    let manifest = args.csv.as_deref().map(manifest_beside);
    check_distinct(
        &[
            ("--csv", args.csv.as_deref()),
            ("the manifest beside --csv", manifest.as_deref()),
            ("--trace", args.trace.as_deref()),
        ],
        &[("the --weights file", args.weights.as_deref())],
    )?;
    for path in [&args.csv, &manifest].into_iter().flatten() {
        AtomicFile::check_writable(path)?;
    }
    let traced = args.game.unwrap_or(0);
    if let (Some(game), None) = (args.game, &args.trace) {
        bail!("--game {game}: it picks the game --trace writes, and no --trace FILE is given");
    }
    if let Some(path) = &args.trace {
        if traced >= args.games {
            bail!(
                "--game {traced} is not a game of the batch: --games {} numbers them 0 to {}",
                args.games,
                args.games - 1
            );
        }
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
    let limits = GameLimits { max_pieces: args.max_pieces };
    // Before a long batch starts, what it will cost; where nothing sizes the games, a note
    // when none has ended after a while.
    let board = rules.new_board();
    let cost = (args.weights.is_none() && args.rules.is_none())
        .then(|| {
            let threads = pool.current_num_threads();
            Cost::of_batch(
                preset.name,
                built.driver(),
                board.width(),
                board.height(),
                args.games,
                args.max_pieces,
                threads,
            )
        })
        .flatten()
        .filter(Cost::is_long);
    if let Some(cost) = cost {
        eprintln!("{}", cost.note("--board 10x10, --games N or --max-pieces N"));
    }
    let slow = cost.is_none().then(|| {
        "note: no game has ended in 10 s: a strong controller's games on a big board can last hours \
         (BCTS on 10x20: tens of millions of rows each); --board 10x10 or --max-pieces N keep them short"
            .to_string()
    });
    let start = Instant::now();
    let records = with_progress_noting("games", args.games, false, slow, |pieces, bar| {
        pool.install(|| sim::play_batch(built.driver(), args.seed, args.games, limits, Some(pieces), &|_| bar.inc(1)))
    });
    let seconds = start.elapsed().as_secs_f64();

    if let Some(path) = &args.csv {
        let mut csv = AtomicFile::create(path)?;
        write_csv(csv.writer(), &records).with_context(|| format!("cannot write {}", path.display()))?;
        let manifest = serde_json::json!({
            "master_seed": args.seed,
            "games": args.games,
            "max_pieces": args.max_pieces,
            "preset": preset.name,
            "rule_set": rules.name(),
            "rule_set_version": rules.version(),
            "rules": rules.describe(),
            "policy": policy.name(),
            "weights": args.weights.as_ref().map(|p| p.display().to_string()).unwrap_or_else(|| "published".into()),
            "threads": pool.current_num_threads(),
            "seconds": seconds,
            "csv": path.display().to_string(),
        });
        // Both whole before either replaces an earlier run's file.
        let manifest_file = prepare_manifest_beside(path, "play", manifest)?;
        csv.commit()?;
        manifest_file.commit()?;
        let manifest = manifest_beside(path);
        eprintln!("per-game CSV written to {} (the run: {})", path.display(), manifest.display());
    }
    if let Some(path) = &args.trace {
        // The traced game is played again alone, by the same loop with the same seed: it
        // must be the batch's game, which the check below makes sure of.
        AtomicFile::write_with(path, |file| {
            let mut out = std::io::BufWriter::new(file);
            let record = write_trace(&mut out, preset.name, &built, args.seed, traced, limits)?;
            ensure!(record == records[traced as usize], "the traced game differs from the batch's game {traced}");
            Ok(())
        })?;
        eprintln!("game {traced}'s moves written to {}", path.display());
    }
    let shape =
        Shape { memoryless: rules.frame_rules().is_none(), max_pieces: args.max_pieces, width: board.width() as u64 };
    print_summary(&records, seconds, pool.current_num_threads(), rules.move_unit(), shape);
    Ok(())
}

fn write_csv(out: &mut impl std::io::Write, records: &[GameRecord]) -> Result<()> {
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

/// What bounds the games' lengths, for their intervals.
#[derive(Clone, Copy)]
struct Shape {
    /// Not a frame game (see [`Quantity::length`]).
    memoryless: bool,
    max_pieces: Option<u64>,
    width: u64,
}

fn print_summary(records: &[GameRecord], seconds: f64, threads: usize, move_unit: &str, shape: Shape) {
    let column = |f: fn(&GameRecord) -> u64| records.iter().map(|r| f(r) as f64).collect::<Vec<_>>();
    let length = Quantity::length(shape.memoryless);
    let (mut lines, mut pieces) =
        (Summary::of(&column(|r| r.lines), length), Summary::of(&column(|r| r.pieces), length));
    if let Some(cap) = shape.max_pieces {
        // A cap bounds the means: its pieces, and the rows they can clear.
        pieces = pieces.at_most(cap as f64);
        lines = lines.at_most_rows(cap, shape.width as usize);
    }
    let scores = column(|r| r.score);
    let capped = records.iter().filter(|r| r.end == sim::GameEnd::PieceCap).count();
    println!("games      {}  ({} ended by the piece cap)", records.len(), capped);
    print_row("lines", &lines);
    if scores.iter().any(|&s| s > 0.0) {
        print_row("score", &Summary::of(&scores, Quantity::NonNegative));
    }
    print_row(move_unit, &pieces);
    let levels: Vec<u32> = records.iter().filter_map(|r| r.level).collect();
    if !levels.is_empty() {
        print_row("level", &Summary::of(&levels.iter().map(|&l| l as f64).collect::<Vec<_>>(), Quantity::NonNegative));
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
        "{name:<10} mean {:.1}  95% interval [{:.1}, {:.1}] ({})  median {:.1}  sd {:.1}  min {:.0}  max {:.0}",
        s.mean,
        s.low_95(),
        s.high_95(),
        s.quantity.interval_method(),
        s.median,
        s.standard_deviation,
        s.min,
        s.max
    );
}
