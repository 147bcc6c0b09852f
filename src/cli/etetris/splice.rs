//! `tetris-lab etetris splice RECORD...`: the best game through the boards of several records
//! ([`crate::etetris::records::splice`]): where two records have the same board after the same
//! piece, either may go on from there, so the game takes, between such meeting points,
//! the stretch that scores most. Writes the record (replayed and checked) and its manifest,
//! and prints the score against the best record given. With `--bridge` it first searches
//! bridges between the records where they never meet ([`crate::etetris::records::bridge`]) and
//! splices them in too (started at the plan's jumps, along the game with `--every`, along
//! the plan's detours with `--detours`; chained with `--chain`); the record is rewritten
//! as each bridge is found, so a stopped run (Ctrl-C, a kill) leaves the best game found
//! so far, and each jump's search is kept in `<record>.bridges` as it ends, so the same
//! command run again searches only the rest.

use super::{aim_parser, install_ctrl_c, moves_parser, JitterArgs, SearchArgs};
use crate::cli::Ended;
use crate::etetris::game::PIECE_LIMIT;
use crate::etetris::record::{replay, Record};
use crate::etetris::records::bridge::{bridge_along, plan, Aim, Bridging, Detour, Plan, Searched};
use crate::etetris::records::polish::Line;
use crate::etetris::records::splice::{meetings, splice, Spliced};
use crate::etetris::runs::{
    checked_options, etetris_manifest, prepare_record_path, weights_json, with_suffix, write_record_with_manifest,
};
use crate::etetris::solver::{MoveSet, Refinements};
use crate::interrupt::stop_flag;
use crate::report::ledger::{Journal, JournalKind};
use crate::support::atomic_file::check_distinct;
use crate::support::run_dir::manifest_beside;
use crate::support::threads::thread_pool;
use anyhow::{ensure, Context, Result};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Instant;

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
    /// With --bridge: pieces a bridge may take.
    #[arg(long, default_value_t = 80, requires = "bridge")]
    pub window: usize,
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
    #[arg(long, default_value_t = 0, requires = "bridge", conflicts_with = "every")]
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
    /// of the two (either).
    #[arg(long, value_parser = aim_parser(), default_value = "plan", requires = "bridge", conflicts_with = "every")]
    pub aim: Aim,
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
    #[arg(long, requires = "bridge", conflicts_with_all = ["every", "detours", "window", "lead"])]
    pub carry: bool,
    /// With --detours: also start on the splice's game within this many pieces before each
    /// detour, pulled towards the plan's boards (a way into a detour, with room to turn the
    /// game's stacking into the detour's) [default: 0, on the detours only].
    #[arg(long, default_value_t = 0, requires = "detours")]
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
    let path = args.record.clone().unwrap_or_else(|| PathBuf::from("results/etetris-spliced.txt"));
    let manifest = manifest_beside(&path);
    let kept = args.bridge.then(|| with_suffix(&path, ".bridges"));
    let mut inputs: Vec<(&str, Option<&Path>)> =
        args.files.iter().map(|file| ("a record being spliced", Some(file.as_path()))).collect();
    inputs.push(("the --weights file", args.weights.as_deref()));
    check_distinct(
        &[
            ("--record", Some(&path)),
            ("the manifest beside --record", Some(&manifest)),
            ("the bridges kept beside --record", kept.as_deref()),
        ],
        &inputs,
    )?;
    let mut lines = Vec::with_capacity(args.files.len());
    // What makes two bridge runs the same (see `fingerprint`): the records, byte for byte.
    let mut record_sums = Vec::with_capacity(args.files.len());
    for file in &args.files {
        let text =
            std::fs::read_to_string(file).with_context(|| format!("cannot read record file {}", file.display()))?;
        if args.bridge {
            record_sums.push(format!("{:016x}", crate::checksum::fnv1a(text.as_bytes())));
        }
        let record = Record::parse(&text).with_context(|| format!("record file {}", file.display()))?;
        let line = Line::new(&record);
        ensure!(line.pieces() > 0, "record file {}: no piece locks", file.display());
        lines.push(line);
    }
    let (best, best_score) = lines
        .iter()
        .enumerate()
        .map(|(index, line)| (index, line.score()))
        .fold((0, 0), |best, this| if this.1 > best.1 { this } else { best });
    let bridging = if args.bridge {
        ensure!((1..=PIECE_LIMIT).contains(&args.window), "--window must be in 1..={PIECE_LIMIT}, got {}", args.window);
        ensure!(args.every < PIECE_LIMIT, "--every must be below {PIECE_LIMIT}, got {}", args.every);
        ensure!(args.detours < PIECE_LIMIT, "--detours must be below {PIECE_LIMIT}, got {}", args.detours);
        ensure!(args.lead < PIECE_LIMIT, "--lead must be below {PIECE_LIMIT}, got {}", args.lead);
        ensure!(
            args.guide.is_finite() && args.guide >= 0.0,
            "--guide must be a number of at least 0, got {}",
            args.guide
        );
        if let Some((first, _)) = args.within {
            // A region past the records' end holds no start: refused, as a carried search is.
            let longest = lines.iter().map(Line::pieces).max().unwrap_or(0);
            ensure!(
                first + 1 < longest,
                "--within {first}..: the searches start after piece {first}, and the records have {longest} pieces"
            );
        }
        let mut options = checked_options(args.beam, PIECE_LIMIT, args.weights.as_deref(), args.moves)?;
        options.refinements = args.search.refinements()?;
        args.jitter.apply(&mut options.weights)?;
        Some(options)
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
    let pool = thread_pool(args.threads)?;
    prepare_record_path(&path)?;
    if let Some(kept) = &kept {
        crate::support::atomic_file::AtomicFile::check_writable(kept)?;
    }
    // The jumps a stopped run of the same bridges searched, read before anything is written.
    let journal = match (&kept, &bridging) {
        (Some(kept), Some(options)) => {
            let fingerprint = fingerprint(&args, &record_sums, &weights_json(&options.weights), &options.refinements);
            Some(Journal::open(kept, &BRIDGES, &fingerprint, Searched::parse)?)
        }
        _ => None,
    };
    let out = Output { args: &args, path: &path, inputs: &lines, best_score, meetings: meetings(&lines) };
    let spliced = splice(&lines).expect("at least two records");
    let (Some(options), Some((journal, earlier))) = (bridging, journal) else {
        out.write(&spliced, None)?;
        out.print(&spliced, best, None);
        return Ok(Ended::Finished);
    };
    // Spliced without bridges first: a run stopped before its first bridge leaves this.
    let plain = spliced.line.score();
    let plan = plan(&lines).expect("at least two records");
    let detours = plan.detours(&spliced.line);
    print_detours(&plan, &detours, &args.files);
    let mut report = BridgeReport {
        plain,
        plan: plan.score,
        detours: detours_json(&detours, &args.files),
        jumps: 0,
        attempts: 0,
        found: 0,
        games: 0,
        seconds: 0.0,
        threads: pool.current_num_threads(),
        finished: false,
        earlier: earlier.len(),
        refinements: options.refinements,
        weights: weights_json(&options.weights),
    };
    if earlier.is_empty() {
        out.write(&spliced, Some(&report))?;
    } else {
        // The stopped run's record stays until the searches read back are spliced in.
        eprintln!(
            "{} jumps' searches read from {} (a stopped run of these bridges)",
            earlier.len(),
            journal.path().display()
        );
    }
    install_ctrl_c();
    let bar = crate::support::progress::counting_bar(0, "jumps", true);
    let started = Instant::now();
    let mut best_so_far = spliced.clone();
    let mut failure = None;
    let bridging = Bridging {
        window: args.window,
        every: args.every,
        detours: args.detours,
        within: args.within.unwrap_or((0, PIECE_LIMIT)),
        guide: args.guide,
        chain: args.chain,
        lead: args.lead,
        aim: args.aim,
        carry: args.carry,
    };
    // A bridge found and not yet spliced in (those read back are spliced in once, after the
    // last of them).
    let mut unspliced = false;
    let bridged = pool
        .install(|| {
            bridge_along(plan, &spliced.line, options, &lines, bridging, &earlier, &mut |attempt, games| {
                bar.set_length(attempt.jumps as u64);
                bar.set_position(attempt.index as u64 + 1);
                report.attempts = attempt.index + 1;
                report.jumps = attempt.jumps;
                report.seconds = started.elapsed().as_secs_f64();
                if !attempt.earlier {
                    let searched = Searched { piece: attempt.jump.piece, ways: attempt.ways.clone() };
                    if let Err(e) = journal.append(&searched.to_line()) {
                        failure = Some(e);
                        return ControlFlow::Break(());
                    }
                }
                report.games = games.len();
                if attempt.gain.is_some() {
                    report.found += 1;
                    unspliced = true;
                }
                if unspliced && (!attempt.earlier || attempt.index + 1 == earlier.len()) {
                    unspliced = false;
                    let all: Vec<Line> = lines.iter().chain(games).cloned().collect();
                    best_so_far = splice(&all).expect("records given");
                    // Saved as found: a run stopped later keeps every gain so far.
                    if let Err(e) = out.write(&best_so_far, Some(&report)) {
                        failure = Some(e);
                        return ControlFlow::Break(());
                    }
                }
                bar.set_message(format!(
                    "{} bridges, score {} (+{})",
                    report.found,
                    best_so_far.line.score(),
                    best_so_far.line.score() - best_score
                ));
                if stop_flag().load(Ordering::SeqCst) {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            })
        })
        .with_context(|| match earlier.len() {
            0 => String::from("bridges"),
            kept => format!("bridges, with {kept} searches read back from {}", journal.path().display()),
        })?;
    bar.finish_and_clear();
    if let Some(e) = failure {
        return Err(e);
    }
    if unspliced {
        let all: Vec<Line> = lines.iter().chain(&bridged.games).cloned().collect();
        best_so_far = splice(&all).expect("records given");
    }
    report.jumps = bridged.starts;
    report.attempts = bridged.attempts;
    report.seconds = started.elapsed().as_secs_f64();
    report.finished = bridged.attempts == bridged.starts;
    out.write(&best_so_far, Some(&report))?;
    out.print(&best_so_far, best, Some(&report));
    if !report.finished {
        eprintln!(
            "stopped by Ctrl-C after {} of {} jumps; {} holds the best game found so far, and the same \
             command run again searches the rest (the jumps searched are kept in {})",
            report.attempts,
            report.jumps,
            path.display(),
            journal.path().display()
        );
        return Ok(Ended::Interrupted);
    }
    // Every search is in the record and its manifest now.
    journal.remove();
    Ok(Ended::Finished)
}

/// `A..B`, pieces A (included) to B (not), A < B <= the game's pieces.
fn parse_piece_range(text: &str) -> Result<(usize, usize), String> {
    let (first, end) = crate::cli::parse_range(text, "A..B")?;
    if first >= end || end > PIECE_LIMIT {
        return Err(format!("{}: a range A..B needs A < B <= {PIECE_LIMIT}", crate::names::Quoted(text)));
    }
    Ok((first, end))
}

/// The journal of a bridge run's searches: one line per jump searched, as [`Searched`]
/// writes it.
const BRIDGES: JournalKind = JournalKind {
    title: "# tetris-lab etetris splice bridges: ",
    header: "piece placements",
    another_run: "the bridges of another run (other records, their order, or other settings): \
                  give another --record, or delete it to start afresh",
};

/// What makes two bridge runs the same, so that one may go on with the other's searches:
/// the records (byte for byte, in order) and every setting but the thread count.
fn fingerprint(args: &Args, record_sums: &[String], weights: &serde_json::Value, refinements: &Refinements) -> String {
    let mut fields = serde_json::json!({
        "records": record_sums,
        "refinements": refinements,
        "beam": args.beam,
        "window": args.window,
        "every": args.every,
        "guide": args.guide,
        "moves": args.moves.name(),
        "weights": weights,
        "rule_set_version": crate::etetris::game::RULES_VERSION,
        "crate_version": env!("CARGO_PKG_VERSION"),
    });
    // Only when set, so that journals written before the flag existed still match.
    if args.chain {
        fields["chain"] = true.into();
    }
    if args.detours > 0 {
        fields["detours"] = args.detours.into();
    }
    if let Some((first, end)) = args.within {
        fields["within"] = serde_json::json!([first, end]);
    }
    if args.lead > 0 {
        fields["lead"] = args.lead.into();
    }
    if args.aim != Aim::Plan {
        fields["aim"] = args.aim.name().into();
    }
    if args.carry {
        // 2: the ways written as `@piece:index ... | ...` (1, written `true`, kept them as
        // placements no piece takes, which this reading refuses).
        fields["carry"] = 2.into();
    }
    fields.to_string()
}

/// The plan's detours as the manifest lists them: pieces, points over the splice's game,
/// the records played (their files) and whether the detour leaves where a record meets
/// the game.
fn detours_json(detours: &[Detour], files: &[PathBuf]) -> serde_json::Value {
    detours
        .iter()
        .map(|detour| {
            serde_json::json!({
                "first": detour.first,
                "back": detour.back,
                "gain": detour.gain,
                "records": record_names(detour, files),
                "at_meeting": detour.at_meeting,
            })
        })
        .collect()
}

/// The files of the records a detour plays.
fn record_names(detour: &Detour, files: &[PathBuf]) -> Vec<String> {
    detour.records.iter().map(|&index| files[index].display().to_string()).collect()
}

/// One line on stderr: where the plan's points over the splice are.
fn print_detours(plan: &Plan, detours: &[Detour], files: &[PathBuf]) {
    let at_meeting = detours.iter().filter(|detour| detour.at_meeting).count();
    let largest = detours.iter().max_by_key(|detour| (detour.gain, std::cmp::Reverse(detour.first)));
    let largest = largest.map_or(String::new(), |detour| {
        format!(
            ", the largest {:+} over pieces {}..{} ({})",
            detour.gain,
            detour.first,
            detour.back,
            record_names(detour, files).join(", ")
        )
    });
    eprintln!(
        "plan={}: {} detours from the splice's game ({at_meeting} leave where a record meets it){largest} \
         (all in the manifest's plan_detours)",
        plan.score,
        detours.len()
    );
}

/// What the bridges did, for the manifest and the printed line.
struct BridgeReport {
    /// The splice without bridges, and the plan's score (see [`crate::etetris::records::bridge::plan`]).
    plain: u32,
    plan: u64,
    /// The plan's jumps, the jumps searched, and the bridges found.
    jumps: usize,
    attempts: usize,
    found: usize,
    /// The games the bridges found make (one per bridge; with --carry, one per way kept).
    games: usize,
    seconds: f64,
    threads: usize,
    finished: bool,
    /// Jumps whose searches were read from a stopped run's journal.
    earlier: usize,
    /// The plan's detours from the splice without bridges ([`Detour`]), for the manifest.
    detours: serde_json::Value,
    refinements: Refinements,
    weights: serde_json::Value,
}

/// Where and how a splice is written.
struct Output<'a> {
    args: &'a Args,
    path: &'a Path,
    inputs: &'a [Line],
    best_score: u32,
    /// The records' [`meetings`].
    meetings: (usize, usize),
}

impl Output<'_> {
    /// The pieces each game gives `spliced`: the records', then each bridge game's.
    fn pieces_given(&self, spliced: &Spliced) -> Vec<usize> {
        let games = spliced.sources.iter().map(|&source| source + 1).max().unwrap_or(0);
        spliced.pieces_from(games.max(self.inputs.len()))
    }

    /// Writes the spliced game's record (after checking it replays to its score) and its
    /// manifest.
    fn write(&self, spliced: &Spliced, bridges: Option<&BridgeReport>) -> Result<()> {
        let record = spliced.record();
        // The game's own count, not the splice's sum, is the score written.
        let replayed = replay(&record);
        ensure!(
            replayed.score == u64::from(spliced.line.score()) && replayed.pieces == spliced.line.pieces(),
            "the spliced game replays to {} in {} pieces, not the {} in {} pieces its records add up to",
            replayed.score,
            replayed.pieces,
            spliced.line.score(),
            spliced.line.pieces()
        );
        let given = self.pieces_given(spliced);
        let sources: Vec<serde_json::Value> = self
            .args
            .files
            .iter()
            .zip(self.inputs)
            .zip(&given)
            .map(|((file, line), pieces)| {
                serde_json::json!({"record": file.display().to_string(), "score": line.score(), "pieces_given": pieces})
            })
            .collect();
        let mut fields = serde_json::json!({
            "record": self.path.display().to_string(),
            "spliced": sources,
            "score_before": self.best_score,
            "score": spliced.line.score(),
            "switches": spliced.switches(),
            "pieces_played": spliced.line.pieces(),
            "pieces_met": self.meetings.0,
            "meeting_stretches": self.meetings.1,
        });
        if let Some(report) = bridges {
            let args = self.args;
            fields["bridges"] = serde_json::json!({
                "beam": args.beam,
                "window": args.window,
                "every": args.every,
                "detours": args.detours,
                "within": args.within.map(|(first, end)| [first, end]),
                "guide": args.guide,
                "chain": args.chain,
                "lead": args.lead,
                "aim": args.aim.name(),
                "carry": args.carry,
                "moves": args.moves.name(),
                "weights_file": args.weights.as_ref().map(|p| p.display().to_string()),
                "jitter": args.jitter.jitter,
                "jitter_percent": args.jitter.jitter_percent,
                "weights": report.weights,
                "refinements": report.refinements,
                "threads": report.threads,
                "score_without": report.plain,
                "plan_score": report.plan,
                "plan_detours": report.detours,
                "jumps": report.jumps,
                "jumps_searched": report.attempts,
                "jumps_read_from_a_stopped_run": report.earlier,
                "found": report.found,
                "games": report.games,
                "pieces_given": given[self.inputs.len()..].iter().sum::<usize>(),
                "seconds": report.seconds,
                "finished": report.finished,
            });
        }
        write_record_with_manifest(self.path, &record, "splice", etetris_manifest(fields))
    }

    /// Prints each record's share on stderr and the result's line on stdout.
    fn print(&self, spliced: &Spliced, best: usize, bridges: Option<&BridgeReport>) {
        let given = self.pieces_given(spliced);
        for ((file, line), pieces) in self.args.files.iter().zip(self.inputs).zip(&given) {
            eprintln!("{:>9}  {pieces:>5} pieces given  {}", line.score(), file.display());
        }
        let bridged = bridges.map_or(String::new(), |report| {
            format!(" bridges={}/{} without={} plan={}", report.found, report.attempts, report.plain, report.plan)
        });
        println!(
            "score={} before={} gain={} switches={} pieces={}{bridged} best={} record={}",
            spliced.line.score(),
            self.best_score,
            spliced.line.score() - self.best_score,
            spliced.switches(),
            spliced.line.pieces(),
            self.args.files[best].display(),
            self.path.display()
        );
    }
}
