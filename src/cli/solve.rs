//! `tetris-lab solve`: the E-Tetris beam solver over the contest's 10,000 pieces. Prints
//! the score as the game counts it (checked by replaying the written record) and the
//! seconds taken; writes the record; shows a progress bar on stderr.

use crate::etetris::checked::{check, solve_with_progress};
use crate::etetris::game::{sequence, PIECE_LIMIT};
use crate::etetris::solver::{MoveSet, Options, Refinements};
use crate::etetris::weights::Weights;
use crate::report::atomic_file::AtomicFile;
use crate::report::run_dir::{manifest_beside, merged, write_manifest_beside};
use anyhow::{ensure, Context, Result};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Boards kept after each piece.
    #[arg(long, default_value_t = 1000)]
    pub beam: usize,
    /// Worker threads (0: one per core). The result is the same at any count.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Where to write the record [default: results/etetris-<moves>-k<beam>.txt].
    #[arg(long)]
    pub record: Option<PathBuf>,
    /// Evaluator weights (TOML: cells, row_transitions, column_transitions, holes,
    /// score_divisor; optional wells, rows_with_holes, almost_full_rows, 0 if left out;
    /// optional overflow with overflow_capacity, the term that reads the sequence)
    /// [default: the seed's].
    #[arg(long)]
    pub weights: Option<PathBuf>,
    /// Move set: the seed's rotate-shift-drop, or every placement the game allows.
    #[arg(long, value_enum, default_value_t = MoveSet::Seed)]
    pub moves: MoveSet,
    /// Pieces to place (the game has 10,000).
    #[arg(long, default_value_t = PIECE_LIMIT)]
    pub pieces: usize,
    #[command(flatten)]
    pub search: SearchArgs,
    #[command(flatten)]
    pub jitter: JitterArgs,
}

/// `--jitter SEED [--jitter-percent P]` (shared by `solve` and `polish`).
#[derive(clap::Args, Debug)]
pub struct JitterArgs {
    /// Jitter the weights: every term but cells times 1 + u x JITTER_PERCENT / 100, u
    /// uniform in [-1, 1) drawn from this seed (0: off, the weights as given). Searches
    /// with nearby weights play other games: their spread measures chance.
    #[arg(long, default_value_t = 0)]
    pub jitter: u64,
    /// With --jitter: the largest change of a weight, in percent [default: 1].
    #[arg(long)]
    pub jitter_percent: Option<f64>,
}

impl JitterArgs {
    /// Checks the two flags and jitters `weights` as they say, printing the weights used
    /// on stderr (nothing when `--jitter` is 0).
    pub fn apply(&self, weights: &mut Weights) -> Result<()> {
        let percent = self.jitter_percent.unwrap_or(1.0);
        check_jitter_percent(percent)?;
        ensure!(
            self.jitter != 0 || self.jitter_percent.is_none(),
            "--jitter-percent sets the size of --jitter: give --jitter SEED too"
        );
        if self.jitter != 0 {
            *weights = weights.jittered(self.jitter, percent / 100.0);
            eprintln!(
                "weights jittered (seed {}, up to {percent}%): {}",
                self.jitter,
                weights.to_toml().trim_end().replace('\n', ", ")
            );
        }
        Ok(())
    }
}

/// The opt-in refinements of the search (`solve` and `polish`).
#[derive(clap::Args, Debug)]
pub struct SearchArgs {
    /// Rank the best-valued LOOKAHEAD x beam new boards by their best placement of the
    /// next piece before the cut (0: off, the seed's cut).
    #[arg(long, default_value_t = 0)]
    pub lookahead: usize,
    /// Keep at most this many boards grown from one parent, then fill the beam in key
    /// order (0: off, the seed's cut).
    #[arg(long, default_value_t = 0)]
    pub children_per_parent: usize,
    /// With --lookahead: rank the pool by (100 - P)% of the lookahead value plus P% of
    /// the board's own value (0: off, the lookahead value alone).
    #[arg(long, default_value_t = 0)]
    pub lookahead_blend: u32,
    /// Over the last N pieces, weigh the board less against the score, down to
    /// 1 / (N + 1) of its weight at the last piece (0: off, the seed's weights throughout).
    #[arg(long, default_value_t = 0)]
    pub endgame: usize,
    /// With --lookahead: follow each pooled board's best N placements of the next piece
    /// with the piece after, and rank the board by the best value two pieces on (0: off).
    #[arg(long, default_value_t = 0)]
    pub second_ply: usize,
    /// Keep at most this percentage of the beam from boards of one phase (the same cell
    /// count: the same rows cleared so far), then fill the beam in key order (0: off).
    #[arg(long, default_value_t = 0)]
    pub phase_quota: u32,
    /// With --phase-quota: the cut chooses from the best-valued PHASE_POOL x beam new boards
    /// [default: 2].
    #[arg(long)]
    pub phase_pool: Option<usize>,
}

impl SearchArgs {
    /// The refinements, checked (each named by its flag).
    pub fn refinements(&self) -> Result<Refinements> {
        let refinements = Refinements {
            lookahead: self.lookahead,
            children_per_parent: self.children_per_parent,
            lookahead_blend: self.lookahead_blend,
            endgame: self.endgame,
            second_ply: self.second_ply,
            phase_quota: self.phase_quota,
            phase_pool: self.phase_pool.unwrap_or(0),
        };
        refinements.check(|field| format!("--{}", field.replace('_', "-")))?;
        Ok(refinements)
    }
}

/// Checks `--beam` and `--pieces` (shared by `solve`, `bench` and `versus`).
pub fn check_beam_and_pieces(beam: usize, pieces: usize) -> Result<()> {
    crate::limits::check_count("--beam", beam, crate::limits::MAX_BEAM)?;
    ensure!((1..=PIECE_LIMIT).contains(&pieces), "--pieces must be in 1..={PIECE_LIMIT}, got {pieces}");
    Ok(())
}

/// Checks `--jitter-percent` (shared by `solve` and `versus`).
pub fn check_jitter_percent(percent: f64) -> Result<()> {
    ensure!(
        percent.is_finite() && percent > 0.0 && percent <= 50.0,
        "--jitter-percent must be above 0 and at most 50, got {percent}"
    );
    Ok(())
}

/// Checks the options shared by `solve` and `bench` and reads the weights.
pub fn checked_options(beam: usize, pieces: usize, weights: Option<&Path>, moves: MoveSet) -> Result<Options> {
    check_beam_and_pieces(beam, pieces)?;
    let weights = match weights {
        Some(path) => Weights::load(path)?,
        None => Weights::default(),
    };
    Ok(Options::new(beam, moves, weights))
}

/// Makes the record's folder if missing and checks the record and its manifest can be
/// written there, before the search, so an unwritable path fails at once.
pub fn prepare_record_path(path: &Path) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty() && !d.exists()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        eprintln!("created folder {} for the record (--record FILE writes it elsewhere)", dir.display());
    }
    AtomicFile::check_writable(path)?;
    AtomicFile::check_writable(&manifest_beside(path))
}

/// The weights as a JSON table keyed by term (the `--weights` file's keys and values).
pub fn weights_json(weights: &Weights) -> serde_json::Value {
    let table: toml::Table = toml::from_str(&weights.to_toml()).expect("Weights::to_toml writes TOML");
    serde_json::to_value(table).expect("a TOML table of numbers is JSON")
}

/// Writes a record (atomically).
pub fn write_record(path: &Path, record: &crate::etetris::record::Record) -> Result<()> {
    let mut out = AtomicFile::create(path)?;
    writeln!(out.writer(), "{record}").with_context(|| format!("cannot write record file {}", path.display()))?;
    out.commit()
}

/// An E-Tetris run's manifest fields: the game's (rule set, its version, the sequence),
/// then `fields`, the run's own. A record file holds only key presses, in the contest's
/// format: its manifest says what made it.
pub fn etetris_manifest(fields: serde_json::Value) -> serde_json::Value {
    let game = serde_json::json!({
        "rule_set": "etetris",
        "rule_set_version": crate::etetris::game::RULES_VERSION,
        "sequence": "the contest's fixed piece sequence (no seed)",
    });
    merged(game, fields)
}

/// Builds a pool of `threads` workers (0: one per core; more than the cores is capped to
/// them, see [`crate::limits::threads`]).
pub fn thread_pool(threads: usize) -> Result<rayon::ThreadPool> {
    let threads = crate::limits::threads(Some(threads), true)?;
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().context("cannot start the worker threads")
}

pub fn run(args: Args) -> Result<()> {
    let mut options = checked_options(args.beam, args.pieces, args.weights.as_deref(), args.moves)?;
    args.jitter.apply(&mut options.weights)?;
    let refinements = args.search.refinements()?;
    let pool = thread_pool(args.threads)?;
    let moves = args.moves.name();
    let path = args.record.unwrap_or_else(|| PathBuf::from(format!("results/etetris-{moves}-k{}.txt", args.beam)));
    prepare_record_path(&path)?;
    let started = Instant::now();
    options.refinements = refinements;
    let solution = pool.install(|| solve_with_progress(options, args.pieces, true));
    let seconds = started.elapsed().as_secs_f64();
    let (record, replayed) = check(&sequence(args.pieces), &solution, args.moves)?;
    let manifest = etetris_manifest(serde_json::json!({
        "record": path.display().to_string(),
        "moves": moves,
        "beam": args.beam,
        "pieces": args.pieces,
        "refinements": refinements,
        "weights_file": args.weights.as_ref().map(|p| p.display().to_string()),
        "weights": weights_json(&options.weights),
        "jitter_seed": args.jitter.jitter,
        "threads": pool.current_num_threads(),
        "seconds": seconds,
        "score": replayed.score,
        "pieces_played": replayed.pieces,
    }));
    write_record(&path, &record)?;
    write_manifest_beside(&path, "solve", manifest)?;
    if replayed.pieces < args.pieces {
        // The game is not over for lack of pieces: every kept board was dead.
        eprintln!(
            "the search ended after {} of {} pieces: no kept board could place piece {} without touching \
             the top row (a wider --beam keeps more boards alive)",
            replayed.pieces,
            args.pieces,
            replayed.pieces + 1
        );
    }
    println!("score={} pieces={} seconds={seconds:.2} record={}", replayed.score, replayed.pieces, path.display());
    Ok(())
}
