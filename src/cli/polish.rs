//! `tetris-lab polish RECORD`: the second stage of a two-stage search
//! ([`crate::etetris::polish`]). Searches the record's game window by window for better
//! ways back to its own boards, writes the improved record (never worse; replayed and
//! checked) and prints the score before and after; shows a progress bar on stderr.

use super::solve::{
    checked_options, prepare_record_path, thread_pool, weights_json, write_record_and_manifest, SearchArgs,
};
use crate::etetris::checked::pieces_bar;
use crate::etetris::game::PIECE_LIMIT;
use crate::etetris::polish::{polish, Line, Windows};
use crate::etetris::record::Record;
use crate::etetris::solver::MoveSet;
use anyhow::{ensure, Context, Result};
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The record to improve (bare, or the contest's JavaScript line).
    pub file: PathBuf,
    /// Boards kept after each piece of a window's search.
    #[arg(long, default_value_t = 1000)]
    pub beam: usize,
    /// The first window's first piece (0-based; the pieces before it stay as they are):
    /// e.g. the game's last stretch alone, whose window may end on any board.
    #[arg(long, default_value_t = 0)]
    pub from: usize,
    /// Pieces in a window.
    #[arg(long, default_value_t = 100)]
    pub window: usize,
    /// Pieces from one window's start to the next one's [default: the window].
    #[arg(long)]
    pub stride: Option<usize>,
    /// Add this to a window board's key for each cell it differs from the record's board
    /// after the same piece (0: off): keeps the search near the record, where the ways back
    /// to its boards are.
    #[arg(long, default_value_t = 10.0)]
    pub guide: f64,
    /// Worker threads (0: one per core). The result is the same at any count.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Where to write the improved record [default: results/<the record's name>-polished.txt].
    #[arg(long)]
    pub record: Option<PathBuf>,
    /// Evaluator weights of the windows' search (as `solve --weights`) [default: the seed's].
    #[arg(long)]
    pub weights: Option<PathBuf>,
    /// Move set of the detours (the record's own pieces keep their key presses).
    #[arg(long, value_enum, default_value_t = MoveSet::Seed)]
    pub moves: MoveSet,
    #[command(flatten)]
    pub search: SearchArgs,
}

pub fn run(args: Args) -> Result<()> {
    let mut options = checked_options(args.beam, PIECE_LIMIT, args.weights.as_deref(), args.moves)?;
    options.refinements = args.search.refinements()?;
    let stride = args.stride.unwrap_or(args.window);
    ensure!((1..=PIECE_LIMIT).contains(&args.window), "--window must be in 1..={PIECE_LIMIT}, got {}", args.window);
    ensure!((1..=PIECE_LIMIT).contains(&stride), "--stride must be in 1..={PIECE_LIMIT}, got {stride}");
    ensure!(args.guide.is_finite() && args.guide >= 0.0, "--guide must be a number of at least 0, got {}", args.guide);
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("cannot read record file {}", args.file.display()))?;
    let record = Record::parse(&text).with_context(|| format!("record file {}", args.file.display()))?;
    let before = Line::new(&record);
    ensure!(before.pieces() > 0, "record file {}: no piece locks", args.file.display());
    ensure!(
        args.from < before.pieces(),
        "--from {} is past the record's last piece (it has {} pieces, numbered from 0)",
        args.from,
        before.pieces()
    );
    let path = args.record.unwrap_or_else(|| {
        let stem = args.file.file_stem().map_or("record".into(), |s| s.to_string_lossy().into_owned());
        PathBuf::from(format!("results/{stem}-polished.txt"))
    });
    let same =
        |a: &PathBuf, b: &PathBuf| a == b || matches!((a.canonicalize(), b.canonicalize()), (Ok(a), Ok(b)) if a == b);
    ensure!(
        !same(&path, &args.file),
        "--record {} is the record being polished: write the improved one elsewhere",
        path.display()
    );
    prepare_record_path(&path)?;
    let pool = thread_pool(args.threads)?;
    let bar = pieces_bar(before.pieces(), true);
    let started = Instant::now();
    let mut detours = 0;
    let before_score = before.score();
    let windows = Windows { from: args.from, length: args.window, stride, guide: args.guide };
    let after = pool.install(|| {
        polish(options, before, windows, &mut |window| {
            detours += (window.gain > 0) as usize;
            bar.set_position((window.first + window.pieces) as u64);
            bar.set_message(format!("score {} (+{}), {detours} detours", window.score, window.score - before_score));
        })
    })?;
    bar.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();
    let manifest = serde_json::json!({
        "polished": args.file.display().to_string(),
        "score_before": before_score,
        "moves": args.moves.name(),
        "beam": args.beam,
        "from": args.from,
        "window": args.window,
        "stride": stride,
        "guide": args.guide,
        "refinements": options.refinements,
        "weights_file": args.weights.as_ref().map(|p| p.display().to_string()),
        "weights": weights_json(&options.weights),
        "threads": pool.current_num_threads(),
        "seconds": seconds,
        "score": after.score(),
        "detours": detours,
        "pieces_played": after.pieces(),
    });
    write_record_and_manifest(&path, &after.record(), "polish", manifest)?;
    println!(
        "score={} before={} gain={} detours={detours} pieces={} seconds={seconds:.2} record={}",
        after.score(),
        before_score,
        after.score() - before_score,
        after.pieces(),
        path.display()
    );
    Ok(())
}
