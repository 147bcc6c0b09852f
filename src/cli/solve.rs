//! `tetris-lab solve`: the E-Tetris beam solver over the contest's 10,000 pieces. Prints
//! the score as the game counts it (checked by replaying the written record) and the
//! seconds taken; writes the record; shows a progress bar on stderr. A long search saves
//! its state beside the record now and then (`<record>.checkpoint`), and when stopped
//! (Ctrl-C, `--stop-after`) or killed, `solve --resume` continues it from there to the
//! record a search never stopped writes.

use super::Ended;
use crate::etetris::checked::{check, pieces_bar, solve_saving, Saved, Saving};
use crate::etetris::game::{sequence, PIECE_LIMIT};
use crate::etetris::search_state::SearchState;
use crate::etetris::solver::{MoveSet, Options, Progress, Refinements};
use crate::etetris::weights::Weights;
use crate::interrupt::{stop_flag, stop_on_ctrl_c};
use crate::support::atomic_file::{check_distinct, remove_with_temporaries, AtomicFile};
use crate::support::run_dir::{manifest_beside, merged, provenance};
use crate::support::threads::thread_pool;
use anyhow::{anyhow, bail, ensure, Context, Result};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// The flags of [`SearchArgs`] and [`JitterArgs`], which `solve` and `polish` share: with
/// their own settings, what `--resume` reads back, so each conflicts with `--resume`.
const SEARCH_SETTINGS: [&str; 9] = [
    "lookahead",
    "children_per_parent",
    "lookahead_blend",
    "endgame",
    "second_ply",
    "phase_quota",
    "phase_pool",
    "jitter",
    "jitter_percent",
];

/// `solve`'s own settings that `--resume` reads back (and those of the search).
const SETTINGS: [&str; 5] = ["beam", "record", "weights", "moves", "pieces"];

/// `own` settings and [`SEARCH_SETTINGS`]: what a `--resume` conflicts with.
pub(super) fn resume_conflicts(own: &[&'static str]) -> Vec<&'static str> {
    own.iter().chain(&SEARCH_SETTINGS).copied().collect()
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Boards kept after each piece.
    #[arg(long, default_value_t = 1000)]
    pub beam: usize,
    /// Worker threads (default: all cores). The result is the same at any count.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Where to write the record [default: results/etetris-<moves>-k<beam>.txt].
    #[arg(long)]
    pub record: Option<PathBuf>,
    /// Evaluator weights (TOML: cells, row_transitions, column_transitions, holes,
    /// score_divisor; optional wells, rows_with_holes, almost_full_rows, 0 if left out;
    /// optional overflow with overflow_capacity, the term that reads the sequence)
    /// [default: the contest solver's published weights].
    #[arg(long)]
    pub weights: Option<PathBuf>,
    /// Move set: `seed`, the contest solver's rotate-shift-drop (MaxDumbledore's), or `full`, every
    /// placement the game allows.
    #[arg(long, value_enum, default_value_t = MoveSet::Seed)]
    pub moves: MoveSet,
    /// Pieces to place (the game has 10,000).
    #[arg(long, default_value_t = PIECE_LIMIT)]
    pub pieces: usize,
    #[command(flatten)]
    pub search: SearchArgs,
    #[command(flatten)]
    pub jitter: JitterArgs,
    /// Save the search's state to <record>.checkpoint when this many seconds have passed
    /// since the last save (0: after every piece). Removed when the record is written.
    #[arg(long, default_value_t = 60.0)]
    pub checkpoint_every: f64,
    /// Stop once this many pieces are placed, saving the checkpoint: `--resume` continues.
    #[arg(long)]
    pub stop_after: Option<usize>,
    /// Continue the solve that saved CHECKPOINT (stopped by Ctrl-C or --stop-after, or
    /// killed): its settings and weights are read from it, and it writes the record beside
    /// it. Only --threads, --checkpoint-every and --stop-after may be given again.
    #[arg(long, value_name = "CHECKPOINT", conflicts_with_all = resume_conflicts(&SETTINGS))]
    pub resume: Option<PathBuf>,
}

/// Parses a solve's own arguments back (`--resume` reads them from its checkpoint).
#[derive(clap::Parser)]
#[command(name = "solve")]
struct Stored {
    #[command(flatten)]
    args: Args,
}

/// `--jitter SEED [--jitter-percent P]` (shared by `solve`, `polish` and `splice --bridge`).
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
    /// next piece before the cut (0: off, the contest solver's cut).
    #[arg(long, default_value_t = 0)]
    pub lookahead: usize,
    /// Keep at most this many boards grown from one parent, then fill the beam in key
    /// order (0: off, the contest solver's cut).
    #[arg(long, default_value_t = 0)]
    pub children_per_parent: usize,
    /// With --lookahead: rank the pool by (100 - P)% of the lookahead value plus P% of
    /// the board's own value (0: off, the lookahead value alone).
    #[arg(long, default_value_t = 0)]
    pub lookahead_blend: u32,
    /// Over the last N pieces, weigh the board less against the score, down to
    /// 1 / (N + 1) of its weight at the last piece (0: off, the same weights throughout).
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
    #[arg(long, value_parser = positive_count)]
    pub phase_pool: Option<usize>,
}

/// A count of 1 or more (`--phase-pool 0` would name no pool: leave the flag out for the
/// default).
fn positive_count(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1 (leave the flag out for the default, 2)".into()),
        Ok(count) => Ok(count),
        Err(e) => Err(e.to_string()),
    }
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
    prepare_record(path, record)?.commit()
}

/// A record written under its temporary name, not yet renamed into place.
fn prepare_record(path: &Path, record: &crate::etetris::record::Record) -> Result<AtomicFile> {
    let mut out = AtomicFile::create(path)?;
    writeln!(out.writer(), "{record}").with_context(|| format!("cannot write record file {}", path.display()))?;
    Ok(out)
}

/// Writes a record and its manifest beside it, both whole before either replaces an earlier
/// file of the same name.
pub fn write_record_with_manifest(
    path: &Path,
    record: &crate::etetris::record::Record,
    command: &str,
    manifest: serde_json::Value,
) -> Result<()> {
    let record_file = prepare_record(path, record)?;
    let manifest_file = crate::support::run_dir::prepare_manifest_beside(path, command, manifest)?;
    record_file.commit()?;
    manifest_file.commit()
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

/// `path` with `suffix` added to its name (`r.txt` -> `r.txt.checkpoint`): the files a
/// run keeps beside its output.
pub(super) fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Where a solve writing `record` saves its state.
pub fn checkpoint_beside(record: &Path) -> PathBuf {
    with_suffix(record, ".checkpoint")
}

/// Checks `--checkpoint-every` (shared by `solve` and `versus`) and returns it as a
/// duration; one beyond what a duration holds (1e30 seconds) means never by time.
pub(super) fn checkpoint_cadence(seconds: f64) -> Result<Duration> {
    ensure!(
        seconds.is_finite() && seconds >= 0.0,
        "--checkpoint-every must be a number of seconds of at least 0, got {seconds}"
    );
    Ok(Duration::try_from_secs_f64(seconds).unwrap_or(Duration::MAX))
}

/// Makes Ctrl-C set [`stop_flag`]: `solve` then saves its state after the piece being
/// placed, `polish` stops after the window being searched, `versus` saves its searches in
/// progress, and each exits 130 ready to continue. A second Ctrl-C exits at once, the
/// last saved files kept.
pub(super) fn install_ctrl_c() {
    stop_on_ctrl_c(
        "Ctrl-C: stopping where the same command can continue (press again to exit at once)",
        Some("second Ctrl-C: exiting now (what was last saved stays)"),
    );
}

pub fn run(args: Args) -> Result<Ended> {
    if let Some(checkpoint) = args.resume.clone() {
        return resume(&checkpoint, args);
    }
    let mut options = checked_options(args.beam, args.pieces, args.weights.as_deref(), args.moves)?;
    let moves = args.moves.name();
    let record =
        args.record.clone().unwrap_or_else(|| PathBuf::from(format!("results/etetris-{moves}-k{}.txt", args.beam)));
    let checkpoint = checkpoint_beside(&record);
    let manifest = manifest_beside(&record);
    check_distinct(
        &[
            ("--record", Some(&record)),
            ("the manifest beside --record", Some(&manifest)),
            ("the checkpoint beside --record", Some(&checkpoint)),
        ],
        &[("the --weights file", args.weights.as_deref())],
    )?;
    ensure!(
        !checkpoint.exists(),
        "{} holds a stopped solve: `tetris-lab solve --resume {}` continues it (delete it to start afresh)",
        checkpoint.display(),
        checkpoint.display()
    );
    args.jitter.apply(&mut options.weights)?;
    options.refinements = args.search.refinements()?;
    let job = Job { arguments: std::env::args().skip(1).collect(), args, options, record, seconds: 0.0, resumes: 0 };
    solve_job(job, None)
}

/// A solve's settings, carried from its start through every resume.
struct Job {
    /// The arguments the solve was started with (`--resume` parses them back), and as
    /// parsed, with `--threads`, `--checkpoint-every` and `--stop-after` those of this process.
    arguments: Vec<String>,
    args: Args,
    /// The search's options, the weights as played (jittered) included.
    options: Options,
    record: PathBuf,
    /// Seconds spent and resumes made before this process.
    seconds: f64,
    resumes: u64,
}

impl Job {
    /// What a checkpoint holds beside the search's state: all `--resume` needs.
    fn note(&self, seconds: f64) -> String {
        provenance(
            "solve",
            serde_json::json!({
                "solve_arguments": self.arguments,
                "weights_toml": self.options.weights.to_toml(),
                "seconds": seconds,
                "resumes": self.resumes,
            }),
        )
        .to_string()
    }
}

/// Saves `state` with `note` to `path` (atomically).
fn save_checkpoint(path: &Path, state: &SearchState, note: &str) -> Result<()> {
    let mut out = AtomicFile::create(path)?;
    out.writer().write_all(&state.to_bytes(note)).with_context(|| format!("cannot write {}", path.display()))?;
    out.commit()
}

/// Runs `job`'s search from `resume` (or afresh), saving checkpoints as it goes; writes the
/// record and its manifest when it finishes, or leaves the checkpoint when it stops.
fn solve_job(job: Job, resume: Option<SearchState>) -> Result<Ended> {
    let (args, record) = (&job.args, &job.record);
    let checkpoint = checkpoint_beside(record);
    let placed = resume.as_ref().map_or(0, SearchState::pieces);
    let every = checkpoint_cadence(args.checkpoint_every)?;
    if let Some(stop) = args.stop_after {
        ensure!(
            stop > placed && stop < args.pieces,
            "--stop-after must be above the {placed} pieces placed and below the game's {} (--pieces), got {stop}",
            args.pieces
        );
    }
    let pool = thread_pool(args.threads)?;
    prepare_record_path(record)?;
    AtomicFile::check_writable(&checkpoint)?;
    if let Some(state) = &resume {
        eprintln!(
            "resuming the solve of {} after {placed} of {} pieces (best score {} so far)",
            record.display(),
            args.pieces,
            state.best_score()
        );
    }
    install_ctrl_c();
    let spawns = sequence(args.pieces);
    let started = Instant::now();
    let bar = pieces_bar(args.pieces, true);
    bar.set_position(placed as u64);
    let warn = |message: &str| bar.println(message);
    let saving = Saving { every, stop_after: args.stop_after, stop: stop_flag(), warn: &warn };
    let mut on_step = |progress: &Progress| {
        if progress.pieces.is_multiple_of(32) || progress.pieces == args.pieces {
            bar.set_position(progress.pieces as u64);
            bar.set_message(format!("best score {}, {} boards", progress.best_score, progress.boards));
        }
    };
    let mut save = |state: &SearchState| {
        let note = job.note(job.seconds + started.elapsed().as_secs_f64());
        save_checkpoint(&checkpoint, state, &note)
    };
    let saved = pool.install(|| solve_saving(job.options, &spawns, resume, saving, &mut on_step, &mut save))?;
    bar.finish_and_clear();
    let seconds = job.seconds + started.elapsed().as_secs_f64();
    let solution = match saved {
        Saved::Finished(solution) => solution,
        Saved::Stopped(pieces) => {
            eprintln!(
                "stopped after {pieces} of {} pieces; `tetris-lab solve --resume {}` continues",
                args.pieces,
                checkpoint.display()
            );
            println!(
                "stopped={pieces} pieces={} seconds={seconds:.2} checkpoint={}",
                args.pieces,
                checkpoint.display()
            );
            if stop_flag().load(Ordering::SeqCst) {
                // Stopped by Ctrl-C: exit non-zero like any interrupted command.
                return Ok(Ended::Interrupted);
            }
            return Ok(Ended::Finished);
        }
    };
    let (game_record, replayed) = check(&spawns, &solution, args.moves)?;
    let manifest = etetris_manifest(serde_json::json!({
        "record": record.display().to_string(),
        "moves": args.moves.name(),
        "beam": args.beam,
        "pieces": args.pieces,
        "refinements": job.options.refinements,
        "weights_file": args.weights.as_ref().map(|p| p.display().to_string()),
        "weights": weights_json(&job.options.weights),
        "jitter_seed": args.jitter.jitter,
        "threads": pool.current_num_threads(),
        "seconds": seconds,
        "resumes": job.resumes,
        "solve_arguments": job.arguments,
        "score": replayed.score,
        "pieces_played": replayed.pieces,
    }));
    write_record_with_manifest(record, &game_record, "solve", manifest)?;
    // Only now: a kill before this leaves the checkpoint, whose resume writes the same record.
    remove_with_temporaries(&checkpoint);
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
    println!("score={} pieces={} seconds={seconds:.2} record={}", replayed.score, replayed.pieces, record.display());
    Ok(Ended::Finished)
}

/// `solve --resume CHECKPOINT`: the solve that saved CHECKPOINT, continued with the
/// settings and weights it holds, writing the record beside it.
fn resume(checkpoint: &Path, args: Args) -> Result<Ended> {
    let fail = |cause: String| anyhow!("cannot resume {}: {cause}", checkpoint.display());
    let record = checkpoint
        .to_str()
        .and_then(|name| name.strip_suffix(".checkpoint"))
        .filter(|name| !name.is_empty() && !name.ends_with('/'))
        .map(PathBuf::from)
        .ok_or_else(|| fail("a solve's checkpoint is named <record>.checkpoint".into()))?;
    let bytes = std::fs::read(checkpoint).map_err(|e| fail(e.to_string()))?;
    let (state, note) = SearchState::from_bytes(&bytes).map_err(|e| fail(format!("{e:#}")))?;
    let note: serde_json::Value = serde_json::from_str(&note).map_err(|e| fail(format!("its settings: {e}")))?;
    let field = |name: &str| note.get(name).ok_or_else(|| fail(format!("its settings have no \"{name}\"")));
    ensure!(field("command")?.as_str() == Some("solve"), fail("not a solve's checkpoint".into()));
    let arguments: Vec<String> = serde_json::from_value(field("solve_arguments")?.clone())
        .map_err(|e| fail(format!("\"solve_arguments\": {e}")))?;
    let stored = <Stored as clap::Parser>::try_parse_from(&arguments)
        .map_err(|e| fail(format!("its arguments no longer parse: {}", super::clap_error_line(&e))))?;
    let weights = field("weights_toml")?.as_str().ok_or_else(|| fail("\"weights_toml\" is not text".into()))?;
    let weights = Weights::from_toml(weights).map_err(|e| fail(format!("its weights: {e:#}")))?;
    let seconds = field("seconds")?.as_f64().ok_or_else(|| fail("\"seconds\" is not a number".into()))?;
    let resumes = field("resumes")?.as_u64().ok_or_else(|| fail("\"resumes\" is not a count".into()))?;
    let mut settings = stored.args;
    check_beam_and_pieces(settings.beam, settings.pieces).map_err(|e| fail(format!("{e:#}")))?;
    if state.pieces() > settings.pieces {
        bail!(fail(format!("it placed {} pieces of a game of {}", state.pieces(), settings.pieces)));
    }
    let mut options = Options::new(settings.beam, settings.moves, weights);
    options.refinements = settings.search.refinements().map_err(|e| fail(format!("{e:#}")))?;
    settings.threads = args.threads;
    settings.checkpoint_every = args.checkpoint_every;
    settings.stop_after = args.stop_after;
    let job = Job { arguments, args: settings, options, record, seconds, resumes: resumes + 1 };
    solve_job(job, Some(state))
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Checks that every flag of `command` but the `allowed` ones conflicts with
    /// `--resume` (`conflicts`): a flag added that `--resume` reads back and does not refuse
    /// would be silently ignored by a resume.
    pub(in crate::cli) fn assert_resume_refuses_all(command: clap::Command, allowed: &[&str], conflicts: &[&str]) {
        for argument in command.get_arguments() {
            let id = argument.get_id().as_str();
            assert!(allowed.contains(&id) || conflicts.contains(&id), "--resume does not refuse {id}");
        }
    }

    #[test]
    fn resume_refuses_every_setting_it_reads_back() {
        let command = <Stored as clap::CommandFactory>::command();
        let allowed = ["threads", "checkpoint_every", "stop_after", "resume", "help"];
        assert_resume_refuses_all(command, &allowed, &resume_conflicts(&SETTINGS));
    }

    #[test]
    fn every_refinement_has_its_flag() {
        // `SearchArgs` repeats the refinements' fields as flags: a refinement added to one
        // and not the other fails.
        let names = serde_json::to_value(Refinements::default()).unwrap();
        let fields: Vec<(String, u64)> = names.as_object().unwrap().keys().cloned().zip(2..).collect();
        let mut arguments = vec!["solve".to_string()];
        for (name, value) in &fields {
            arguments.push(format!("--{}", name.replace('_', "-")));
            arguments.push(value.to_string());
        }
        let stored = <Stored as clap::Parser>::try_parse_from(&arguments).unwrap_or_else(|e| panic!("{e}"));
        let carried = serde_json::to_value(stored.args.search.refinements().unwrap()).unwrap();
        for (name, value) in &fields {
            assert_eq!(carried[name], *value, "{name}");
        }
    }
}
