//! `tetris-lab etetris solve`: the E-Tetris beam solver over the contest's 10,000 pieces. Prints
//! the score as the game counts it (checked by replaying the written record) and the
//! seconds taken; writes the record; shows a progress bar on stderr. A long search saves
//! its state beside the record now and then (`<record>.checkpoint`), and when stopped
//! (Ctrl-C, `--stop-after`) or killed, `etetris solve --resume RECORD` continues it from
//! there to the record a search never stopped writes.

use super::{install_ctrl_c, moves_parser, resume_conflicts, weights_help, weights_long_help, JitterArgs, SearchArgs};
use crate::cli::Ended;
use crate::etetris::checked::{check, pieces_bar, solve_saving, Saved, Saving};
use crate::etetris::game::{sequence, PIECE_LIMIT};
use crate::etetris::runs::{
    check_beam_and_pieces, checked_options, checkpoint_beside, checkpoint_cadence, etetris_manifest,
    prepare_record_path, weights_json, write_record_with_manifest,
};
use crate::etetris::search_state::SearchState;
use crate::etetris::solver::{MoveSet, Options, Progress};
use crate::etetris::weights::Weights;
use crate::interrupt::stop_flag;
use crate::support::atomic_file::{check_distinct, remove_with_temporaries, AtomicFile};
use crate::support::run_dir::{manifest_beside, provenance};
use crate::support::threads::thread_pool;
use anyhow::{anyhow, bail, ensure, Context, Result};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Instant;

/// `solve`'s own settings that `--resume` reads back (and those of the search).
const SETTINGS: [&str; 5] = ["beam", "record", "weights", "moves", "max_pieces"];

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
    // Its help names the keys (from the table of terms, `etetris::weights::TERMS`).
    #[arg(long, help = weights_help(), long_help = weights_long_help())]
    pub weights: Option<PathBuf>,
    /// Move set: `seed`, the contest solver's rotate-shift-drop (MaxDumbledore's), or `full`, every
    /// placement the game allows.
    #[arg(long, value_parser = moves_parser(), default_value = "seed")]
    pub moves: MoveSet,
    /// Pieces to place (the game has 10,000).
    #[arg(long, default_value_t = PIECE_LIMIT)]
    pub max_pieces: usize,
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
    /// Continue the solve that was writing RECORD (stopped by Ctrl-C or --stop-after, or
    /// killed): its settings and weights are read from RECORD.checkpoint, the state it
    /// saved. Only --threads, --checkpoint-every and --stop-after may be given again.
    #[arg(long, value_name = "RECORD", conflicts_with_all = resume_conflicts(&SETTINGS))]
    pub resume: Option<PathBuf>,
}

/// Its own arguments parsed back (what `--resume` reads).
type Stored = crate::cli::Stored<Args>;

pub fn run(args: Args) -> Result<Ended> {
    if let Some(record) = args.resume.clone() {
        return resume(&record, args);
    }
    let mut options = checked_options(args.beam, args.max_pieces, args.weights.as_deref(), args.moves)?;
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
        "{} holds a stopped solve: `tetris-lab etetris solve --resume {}` continues it (delete it to start afresh)",
        checkpoint.display(),
        record.display()
    );
    args.jitter.apply(&mut options.weights)?;
    options.refinements = args.search.refinements()?;
    // From the command's name on (`solve --beam ...`), as `--resume` parses them back.
    let arguments = std::env::args().skip(2).collect();
    let job = Job { arguments, args, options, record, seconds: 0.0, resumes: 0 };
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
            stop > placed && stop < args.max_pieces,
            "--stop-after must be above the {placed} pieces placed and below the game's {} (--max-pieces), got {stop}",
            args.max_pieces
        );
    }
    let pool = thread_pool(args.threads)?;
    prepare_record_path(record)?;
    AtomicFile::check_writable(&checkpoint)?;
    if let Some(state) = &resume {
        eprintln!(
            "resuming the solve of {} after {placed} of {} pieces (best score {} so far)",
            record.display(),
            args.max_pieces,
            state.best_score()
        );
    }
    install_ctrl_c();
    let spawns = sequence(args.max_pieces);
    let started = Instant::now();
    let bar = pieces_bar(args.max_pieces, true);
    bar.set_position(placed as u64);
    let warn = |message: &str| bar.println(message);
    let saving = Saving { every, stop_after: args.stop_after, stop: stop_flag(), warn: &warn };
    let mut on_step = |progress: &Progress| {
        if progress.pieces.is_multiple_of(32) || progress.pieces == args.max_pieces {
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
                "stopped after {pieces} of {} pieces; `tetris-lab etetris solve --resume {}` continues",
                args.max_pieces,
                record.display()
            );
            println!(
                "stopped={pieces} pieces={} seconds={seconds:.2} checkpoint={}",
                args.max_pieces,
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
        "pieces": args.max_pieces,
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
    if replayed.pieces < args.max_pieces {
        // The game is not over for lack of pieces: every kept board was dead.
        eprintln!(
            "the search ended after {} of {} pieces: no kept board could place piece {} without touching \
             the top row (a wider --beam keeps more boards alive)",
            replayed.pieces,
            args.max_pieces,
            replayed.pieces + 1
        );
    }
    println!("score={} pieces={} seconds={seconds:.2} record={}", replayed.score, replayed.pieces, record.display());
    Ok(Ended::Finished)
}

/// `solve --resume RECORD`: the solve that was writing RECORD, continued from the state,
/// settings and weights its checkpoint beside RECORD holds.
fn resume(record: &Path, args: Args) -> Result<Ended> {
    let checkpoint = checkpoint_beside(record);
    let fail = |cause: String| anyhow!("cannot resume {}: {cause}", record.display());
    let bytes = match std::fs::read(&checkpoint) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            bail!(fail(format!("no {} (the state a stopped solve of it leaves)", checkpoint.display())))
        }
        read => read.map_err(|e| fail(format!("{}: {e}", checkpoint.display())))?,
    };
    let (state, note) =
        SearchState::from_bytes(&bytes).map_err(|e| fail(format!("{}: {e:#}", checkpoint.display())))?;
    let note: serde_json::Value = serde_json::from_str(&note).map_err(|e| fail(format!("its settings: {e}")))?;
    let field = |name: &str| note.get(name).ok_or_else(|| fail(format!("its settings have no \"{name}\"")));
    ensure!(field("command")?.as_str() == Some("solve"), fail("not a solve's checkpoint".into()));
    let arguments: Vec<String> = serde_json::from_value(field("solve_arguments")?.clone())
        .map_err(|e| fail(format!("\"solve_arguments\": {e}")))?;
    let stored = <Stored as clap::Parser>::try_parse_from(&arguments)
        .map_err(|e| fail(format!("its arguments no longer parse: {}", crate::cli::clap_error_line(&e))))?;
    let weights = field("weights_toml")?.as_str().ok_or_else(|| fail("\"weights_toml\" is not text".into()))?;
    let weights = Weights::from_toml(weights).map_err(|e| fail(format!("its weights: {e:#}")))?;
    let seconds = field("seconds")?.as_f64().ok_or_else(|| fail("\"seconds\" is not a number".into()))?;
    let resumes = field("resumes")?.as_u64().ok_or_else(|| fail("\"resumes\" is not a count".into()))?;
    let mut settings = stored.args;
    check_beam_and_pieces(settings.beam, settings.max_pieces).map_err(|e| fail(format!("{e:#}")))?;
    if state.pieces() > settings.max_pieces {
        bail!(fail(format!("it placed {} pieces of a game of {}", state.pieces(), settings.max_pieces)));
    }
    let mut options = Options::new(settings.beam, settings.moves, weights);
    options.refinements = settings.search.refinements().map_err(|e| fail(format!("{e:#}")))?;
    settings.threads = args.threads;
    settings.checkpoint_every = args.checkpoint_every;
    settings.stop_after = args.stop_after;
    let job = Job { arguments, args: settings, options, record: record.to_path_buf(), seconds, resumes: resumes + 1 };
    solve_job(job, Some(state))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resume_refuses_every_setting_it_reads_back() {
        let command = <Stored as clap::CommandFactory>::command();
        let allowed = ["threads", "checkpoint_every", "stop_after", "resume", "help"];
        super::super::tests::assert_resume_refuses_all(command, &allowed, &resume_conflicts(&SETTINGS));
    }
}
