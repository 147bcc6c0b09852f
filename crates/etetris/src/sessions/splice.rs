//! A splice of records as a run (`tetris-lab etetris splice`): the spliced record
//! ([`crate::etetris::records::splice`]) written with its manifest and, with bridges
//! ([`crate::etetris::records::bridge`]), rewritten as each bridge is found, so a stopped
//! run (Ctrl-C, a kill) leaves the best game found so far; each jump's search is kept in
//! `<record>.bridges` (a [`Journal`]) as it ends, so the same run started again searches
//! only the rest.

use crate::etetris::game::PIECE_LIMIT;
use crate::etetris::record::{replay, Record};
use crate::etetris::records::bridge::{
    bridge_along, plan, Aim, Bridging, Detour, Plan, Searched, Starts, DEFAULT_WINDOW,
};
use crate::etetris::records::polish::Line;
use crate::etetris::records::splice::{meetings, splice, Spliced};
use crate::etetris::runs::{
    checked_options, etetris_manifest, jitter, prepare_record_path, weights_json, with_suffix,
    write_record_with_manifest,
};
use crate::etetris::solver::{MoveSet, Refinements};
use crate::interrupt::stop_flag;
use crate::support::atomic_file::check_distinct;
use crate::support::journal::{Journal, JournalKind};
use crate::support::run_dir::manifest_beside;
use crate::support::threads::thread_pool;
use anyhow::{ensure, Context, Result};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Instant;

/// What a splice is of, and where it goes.
#[derive(Clone, Debug)]
pub struct SpliceSettings {
    /// The records to recombine (two or more), in order.
    pub files: Vec<PathBuf>,
    /// Where the spliced record goes (its manifest beside it).
    pub record: PathBuf,
    /// How bridges are searched (`None`: no bridges, the records alone).
    pub bridges: Option<BridgeSettings>,
}

/// How a splice's bridges are searched.
#[derive(Clone, Debug)]
pub struct BridgeSettings {
    /// Where they start and how they are pulled ([`Bridging::new`] checked the flags).
    pub bridging: Bridging,
    /// The search: beam, weights file (`None`: built in), move set, refinements, jitter
    /// seed (0: off) and its size in percent.
    pub beam: usize,
    pub weights_file: Option<PathBuf>,
    pub moves: MoveSet,
    pub refinements: Refinements,
    pub jitter: u64,
    pub jitter_percent: Option<f64>,
    /// Worker threads (`None`: all cores); the result is the same at any count.
    pub threads: Option<usize>,
}

/// How a splice ended.
#[derive(Clone, Debug)]
pub struct SpliceOutcome {
    /// The spliced game written.
    pub spliced: Spliced,
    /// Each record's game, the best record's index and its score.
    pub lines: Vec<Line>,
    pub best: usize,
    pub best_score: u32,
    /// The pieces each record gives the game written, in order.
    pub pieces_given: Vec<usize>,
    /// What the bridges did (`None`: no bridges).
    pub bridges: Option<BridgeReport>,
    /// With bridges, the journal of the searches, kept when the run stopped early.
    pub journal: Option<PathBuf>,
}

impl SpliceOutcome {
    /// Stopped (by the stop flag) before every jump was searched.
    pub fn stopped(&self) -> bool {
        self.bridges.as_ref().is_some_and(|report| !report.finished)
    }
}

/// Splices the records `settings` names, writes the result and its manifest (replayed and
/// checked), and with bridges searches them first, rewriting the record as each is found
/// and stopping after the jump being searched when the stop flag is raised
/// ([`crate::interrupt::stop_flag`]).
pub fn splice_run(settings: &SpliceSettings) -> Result<SpliceOutcome> {
    let path = &settings.record;
    let manifest = manifest_beside(path);
    let kept = settings.bridges.is_some().then(|| with_suffix(path, ".bridges"));
    let weights_file = settings.bridges.as_ref().and_then(|b| b.weights_file.as_deref());
    let mut inputs: Vec<(&str, Option<&Path>)> =
        settings.files.iter().map(|file| ("a record being spliced", Some(file.as_path()))).collect();
    inputs.push(("the --weights file", weights_file));
    check_distinct(
        &[
            ("--record", Some(path)),
            ("the manifest beside --record", Some(&manifest)),
            ("the bridges kept beside --record", kept.as_deref()),
        ],
        &inputs,
    )?;
    let mut lines = Vec::with_capacity(settings.files.len());
    // What makes two bridge runs the same (see `fingerprint`): the records, byte for byte.
    let mut record_sums = Vec::with_capacity(settings.files.len());
    for file in &settings.files {
        let text =
            std::fs::read_to_string(file).with_context(|| format!("cannot read record file {}", file.display()))?;
        if settings.bridges.is_some() {
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
    let options = match &settings.bridges {
        Some(bridges) => {
            if let Some((first, _)) = bridges.bridging.within() {
                // A region past the records' end holds no start: refused, as a carried search is.
                let longest = lines.iter().map(Line::pieces).max().unwrap_or(0);
                ensure!(
                    first + 1 < longest,
                    "--within {first}..: the searches start after piece {first}, and the records have {longest} pieces"
                );
            }
            let mut options =
                checked_options(bridges.beam, PIECE_LIMIT, bridges.weights_file.as_deref(), bridges.moves)?;
            options.refinements = bridges.refinements;
            jitter(&mut options.weights, bridges.jitter, bridges.jitter_percent)?;
            Some(options)
        }
        None => None,
    };
    let pool = thread_pool(settings.bridges.as_ref().and_then(|b| b.threads))?;
    prepare_record_path(path)?;
    if let Some(kept) = &kept {
        crate::support::atomic_file::AtomicFile::check_writable(kept)?;
    }
    // The jumps a stopped run of the same bridges searched, read before anything is written.
    let journal = match (&kept, &settings.bridges, &options) {
        (Some(kept), Some(bridges), Some(options)) => {
            let fingerprint = fingerprint(bridges, &record_sums, &weights_json(&options.weights), &options.refinements);
            Some(Journal::open(kept, &BRIDGES, &fingerprint, Searched::parse)?)
        }
        _ => None,
    };
    let out = Output { settings, inputs: &lines, best_score, meetings: meetings(&lines) };
    let spliced = splice(&lines).expect("at least two records");
    let (Some(bridges), Some(options), Some((journal, earlier))) = (&settings.bridges, options, journal) else {
        out.write(&spliced, None)?;
        let pieces_given = out.pieces_given(&spliced)[..lines.len()].to_vec();
        return Ok(SpliceOutcome { spliced, lines, best, best_score, pieces_given, bridges: None, journal: None });
    };
    // Spliced without bridges first: a run stopped before its first bridge leaves this.
    let plain = spliced.line.score();
    let plan = plan(&lines).expect("at least two records");
    let detours = plan.detours(&spliced.line);
    print_detours(&plan, &detours, &settings.files);
    let mut report = BridgeReport {
        plain,
        plan: plan.score,
        detours: detours_json(&detours, &settings.files),
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
    let bar = crate::support::progress::counting_bar(0, "jumps", true);
    let started = Instant::now();
    let mut best_so_far = spliced.clone();
    let mut failure = None;
    // A bridge found and not yet spliced in (those read back are spliced in once, after the
    // last of them).
    let mut unspliced = false;
    let bridged = pool
        .install(|| {
            bridge_along(plan, &spliced.line, options, &lines, bridges.bridging, &earlier, &mut |attempt, games| {
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
    let pieces_given = out.pieces_given(&best_so_far)[..lines.len()].to_vec();
    let journal_path = journal.path().to_path_buf();
    if report.finished {
        // Every search is in the record and its manifest now.
        journal.remove();
    }
    Ok(SpliceOutcome {
        spliced: best_so_far,
        lines,
        best,
        best_score,
        pieces_given,
        bridges: Some(report),
        journal: Some(journal_path),
    })
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
fn fingerprint(
    bridges: &BridgeSettings,
    record_sums: &[String],
    weights: &serde_json::Value,
    refinements: &Refinements,
) -> String {
    let flags = Flags::of(&bridges.bridging);
    let mut fields = serde_json::json!({
        "records": record_sums,
        "refinements": refinements,
        "beam": bridges.beam,
        "window": flags.window,
        "every": flags.every,
        "guide": bridges.bridging.guide(),
        "moves": bridges.moves.name(),
        "weights": weights,
        "rule_set_version": crate::etetris::game::RULES_VERSION,
        "crate_version": env!("CARGO_PKG_VERSION"),
    });
    // Only when set, so that journals written before the flag existed still match.
    if bridges.bridging.chain() {
        fields["chain"] = true.into();
    }
    if flags.detours > 0 {
        fields["detours"] = flags.detours.into();
    }
    if let Some((first, end)) = bridges.bridging.within() {
        fields["within"] = serde_json::json!([first, end]);
    }
    if flags.lead > 0 {
        fields["lead"] = flags.lead.into();
    }
    if flags.aim != Aim::Plan {
        fields["aim"] = flags.aim.name().into();
    }
    if flags.carry {
        // 2: the ways written as `@piece:index ... | ...` (1, written `true`, kept them as
        // placements no piece takes, which this reading refuses).
        fields["carry"] = 2.into();
    }
    fields.to_string()
}

/// The start flags as the manifest and the fingerprint write them, as the command line
/// had them: 0 for a mode's count not given, the window's default with `--carry` (which
/// reads none) and the plan's aim along the game (which aims at the game).
struct Flags {
    window: usize,
    every: usize,
    detours: usize,
    lead: usize,
    aim: Aim,
    carry: bool,
}

impl Flags {
    fn of(bridging: &Bridging) -> Flags {
        let starts = bridging.starts();
        let (every, detours, lead) = match starts {
            Starts::Every { every, .. } => (every, 0, 0),
            Starts::Detours { every, lead, .. } => (0, every, lead),
            Starts::Jumps { .. } | Starts::Carry { .. } => (0, 0, 0),
        };
        Flags {
            window: starts.window().unwrap_or(DEFAULT_WINDOW),
            every,
            detours,
            lead,
            aim: starts.aim().unwrap_or_default(),
            carry: matches!(starts, Starts::Carry { .. }),
        }
    }
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
#[derive(Clone, Debug)]
pub struct BridgeReport {
    /// The splice without bridges, and the plan's score (see [`crate::etetris::records::bridge::plan`]).
    pub plain: u32,
    pub plan: u64,
    /// The plan's jumps, the jumps searched, and the bridges found.
    pub jumps: usize,
    pub attempts: usize,
    pub found: usize,
    /// The games the bridges found make (one per bridge; with --carry, one per way kept).
    pub games: usize,
    pub seconds: f64,
    pub threads: usize,
    pub finished: bool,
    /// Jumps whose searches were read from a stopped run's journal.
    pub earlier: usize,
    /// The plan's detours from the splice without bridges ([`Detour`]), for the manifest.
    detours: serde_json::Value,
    refinements: Refinements,
    weights: serde_json::Value,
}

/// Where and how a splice is written.
struct Output<'a> {
    settings: &'a SpliceSettings,
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
            .settings
            .files
            .iter()
            .zip(self.inputs)
            .zip(&given)
            .map(|((file, line), pieces)| {
                serde_json::json!({"record": file.display().to_string(), "score": line.score(), "pieces_given": pieces})
            })
            .collect();
        let mut fields = serde_json::json!({
            "record": self.settings.record.display().to_string(),
            "spliced": sources,
            "score_before": self.best_score,
            "score": spliced.line.score(),
            "switches": spliced.switches(),
            "pieces_played": spliced.line.pieces(),
            "pieces_met": self.meetings.0,
            "meeting_stretches": self.meetings.1,
        });
        if let (Some(report), Some(bridges)) = (bridges, &self.settings.bridges) {
            let flags = Flags::of(&bridges.bridging);
            fields["bridges"] = serde_json::json!({
                "beam": bridges.beam,
                "window": flags.window,
                "every": flags.every,
                "detours": flags.detours,
                "within": bridges.bridging.within().map(|(first, end)| [first, end]),
                "guide": bridges.bridging.guide(),
                "chain": bridges.bridging.chain(),
                "lead": flags.lead,
                "aim": flags.aim.name(),
                "carry": flags.carry,
                "moves": bridges.moves.name(),
                "weights_file": bridges.weights_file.as_ref().map(|p| p.display().to_string()),
                "jitter": bridges.jitter,
                "jitter_percent": bridges.jitter_percent,
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
        write_record_with_manifest(&self.settings.record, &record, "splice", etetris_manifest(fields))
    }
}
