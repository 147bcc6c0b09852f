//! `tetris-lab etetris splice RECORD...`: the best game through the boards of several records
//! ([`crate::etetris::records::splice`]): where two records have the same board after the
//! same piece, either may go on from there, so the game takes, between such meeting points,
//! the stretch that scores most. Writes the record (replayed and checked) and its manifest,
//! and prints the score against the best record given. With `--bridge` it first searches
//! bridges between the records where they never meet ([`crate::etetris::records::bridge`])
//! and splices them in too; the run, its files and the journal of its searches that a
//! stopped run goes on from are [`crate::sessions::splice`]'s.

use super::{aim_parser, install_ctrl_c, moves_parser, JitterArgs, SearchArgs};
use crate::cli::Ended;
use crate::etetris::game::PIECE_LIMIT;
use crate::etetris::records::bridge::{Aim, BridgeFlags, Bridging};
use crate::etetris::solver::{MoveSet, Refinements};
use crate::sessions::splice::{splice_run, BridgeSettings, SpliceOutcome, SpliceSettings};
use anyhow::{ensure, Result};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The records to recombine (bare, or the contest's JavaScript line); two or more.
    #[arg(required = true, num_args = 2.., value_name = "RECORD")]
    pub files: Vec<PathBuf>,
    /// Where to write the spliced record [default: results/etetris-spliced.txt].
    #[arg(long)]
    pub record: Option<PathBuf>,
    /// Also search bridges where the records never meet: from a board of one to a later
    /// board of another with as many cells after the same piece, by a beam search; the
    /// splice then takes the best game through the records and the bridges.
    #[arg(long)]
    pub bridge: bool,
    /// With --bridge: boards kept after each piece of a bridge's search.
    #[arg(long, default_value_t = 1000, requires = "bridge")]
    pub beam: usize,
    /// With --bridge: pieces a bridge may take [default: 80].
    #[arg(long, requires = "bridge")]
    pub window: Option<usize>,
    /// With --bridge: start a bridge every N pieces along the splice's game instead of at
    /// the plan's jumps (0: at the jumps): from its board onto any of the records' later
    /// boards with more points than the best way there, pulled towards its own boards (a
    /// polish pass that may land on every record).
    #[arg(long, default_value_t = 0, requires = "bridge")]
    pub every: usize,
    /// With --bridge: start a bridge every N pieces along the plan's detours instead (where
    /// the plan's board is not the splice's game's; 0: off): from the plan's board, pulled
    /// towards the plan's later boards, onto any of the records' later boards with more
    /// points than the best way there.
    #[arg(long, default_value_t = 0, requires = "bridge")]
    pub detours: usize,
    /// With --bridge: search only the starts at pieces A..B (A included, B not), a region
    /// of the game searched closely; with --carry, one search from the splice's game's
    /// board after piece A, its records' boards carried up to piece B [default: all].
    #[arg(long, value_name = "A..B", value_parser = parse_piece_range, requires = "bridge")]
    pub within: Option<(usize, usize)>,
    /// With --bridge: add this to a searched board's key for each cell it differs from the
    /// board the bridge aims at after the same piece (0: off), as `polish --guide`.
    #[arg(long, default_value_t = 10.0, requires = "bridge")]
    pub guide: f64,
    /// With --bridge: the boards the guide pulls towards, at the jumps and along the
    /// detours: the plan's (on a detour, the detour's own until it ends), the splice's
    /// game's (from a detour, straight back onto the game), or after each piece the nearer
    /// of the two (either) [default: plan].
    #[arg(long, value_parser = aim_parser(), requires = "bridge")]
    pub aim: Option<Aim>,
    /// With --bridge: each bridge found joins the records at once, so later searches start
    /// from its boards (its points banked) and may land on it: a way into a record and a way
    /// back out of it can then be found in the same run.
    #[arg(long, requires = "bridge")]
    pub chain: bool,
    /// With --bridge: one search from the empty board over the whole game instead, with
    /// the records' boards carried along (after each piece each joins the beam with the
    /// points of the best way to it): it keeps the ways onto a record's board with more
    /// points than the best way there known (of the 64 largest totals), from whichever
    /// record's board they branched. With --within A..B, from the splice's game's board
    /// after piece A over pieces A to B only.
    #[arg(long, requires = "bridge")]
    pub carry: bool,
    /// With --detours: also start on the splice's game within this many pieces before each
    /// detour, pulled towards the plan's boards (a way into a detour, with room to turn the
    /// game's stacking into the detour's) [default: 0, on the detours only].
    #[arg(long, default_value_t = 0, requires = "bridge")]
    pub lead: usize,
    /// With --bridge: evaluator weights of the bridges' search (as `solve --weights`)
    /// [default: the contest solver's published weights].
    #[arg(long, requires = "bridge")]
    pub weights: Option<PathBuf>,
    /// With --bridge: move set of the bridges (the records' own pieces keep their key
    /// presses).
    #[arg(long, value_parser = moves_parser(), default_value = "seed", requires = "bridge")]
    pub moves: MoveSet,
    /// With --bridge: worker threads (default: all cores). The result is the same at any count.
    #[arg(long, requires = "bridge")]
    pub threads: Option<usize>,
    /// With --bridge: the refinements of the bridges' search (as `solve`'s).
    #[command(flatten)]
    pub search: SearchArgs,
    /// With --bridge: jitter the bridges' weights (as `solve --jitter`): a round with
    /// another seed searches from the same starts with nearby weights and finds other ways.
    #[command(flatten)]
    pub jitter: JitterArgs,
}

pub fn run(args: Args) -> Result<Ended> {
    let bridges = if args.bridge {
        let bridging = Bridging::new(BridgeFlags {
            window: args.window,
            every: args.every,
            detours: args.detours,
            lead: args.lead,
            aim: args.aim,
            carry: args.carry,
            chain: args.chain,
            guide: args.guide,
            within: args.within,
        })?;
        Some(BridgeSettings {
            bridging,
            beam: args.beam,
            weights_file: args.weights.clone(),
            moves: args.moves,
            refinements: args.search.refinements()?,
            jitter: args.jitter.jitter,
            jitter_percent: args.jitter.jitter_percent,
            threads: args.threads,
        })
    } else {
        ensure!(
            args.search.refinements()? == Refinements::default(),
            "the search's refinements (--lookahead, --endgame, ...) are the bridges': give --bridge too"
        );
        ensure!(
            args.jitter.jitter == 0 && args.jitter.jitter_percent.is_none(),
            "--jitter jitters the bridges' weights: give --bridge too"
        );
        None
    };
    let record = args.record.clone().unwrap_or_else(|| PathBuf::from("results/etetris-spliced.txt"));
    let settings = SpliceSettings { files: args.files.clone(), record, bridges };
    if settings.bridges.is_some() {
        install_ctrl_c();
    }
    let outcome = splice_run(&settings)?;
    print(&settings, &outcome);
    if outcome.stopped() {
        let report = outcome.bridges.as_ref().expect("stopped bridges");
        eprintln!(
            "stopped by {} after {} of {} jumps; {} holds the best game found so far, and the same \
             command run again searches the rest (the jumps searched are kept in {})",
            crate::interrupt::signal_name(),
            report.attempts,
            report.jumps,
            settings.record.display(),
            outcome.journal.as_deref().unwrap_or(settings.record.as_path()).display()
        );
        return Ok(Ended::Interrupted);
    }
    Ok(Ended::Finished)
}

/// Prints each record's share on stderr and the result's line on stdout.
fn print(settings: &SpliceSettings, outcome: &SpliceOutcome) {
    let spliced = &outcome.spliced;
    for ((file, line), pieces) in settings.files.iter().zip(&outcome.lines).zip(&outcome.pieces_given) {
        eprintln!("{:>9}  {pieces:>5} pieces given  {}", line.score(), file.display());
    }
    let bridged = outcome.bridges.as_ref().map_or(String::new(), |report| {
        format!(" bridges={}/{} without={} plan={}", report.found, report.attempts, report.plain, report.plan)
    });
    println!(
        "score={} before={} gain={} switches={} pieces={}{bridged} best={} record={}",
        spliced.line.score(),
        outcome.best_score,
        spliced.line.score() - outcome.best_score,
        spliced.switches(),
        spliced.line.pieces(),
        settings.files[outcome.best].display(),
        settings.record.display()
    );
}

/// `A..B`, pieces A (included) to B (not), A < B <= the game's pieces.
fn parse_piece_range(text: &str) -> Result<(usize, usize), String> {
    let (first, end) = crate::cli::parse_range(text, "A..B")?;
    if first >= end || end > PIECE_LIMIT {
        return Err(format!("{}: a range A..B needs A < B <= {PIECE_LIMIT}", crate::names::Quoted(text)));
    }
    Ok((first, end))
}
