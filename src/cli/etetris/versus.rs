//! `tetris-lab etetris versus A B`: two E-Tetris searches compared beyond chance
//! ([`crate::tune::versus`]). Each side is a weights file, optionally followed by the
//! search's refinement flags; both run under the same jitter seeds, and the paired gains
//! say whether B beats A. Prints a table and the verdict; `--csv` writes the pairs, and
//! keeps each search as it ends in `<csv>.searches`, so a comparison stopped at any
//! moment continues, when run again with the same arguments, without searching again.

use super::{install_ctrl_c, moves_parser, SearchArgs};
use crate::cli::Ended;
use crate::etetris::checked::pieces_bar;
use crate::etetris::game::PIECE_LIMIT;
use crate::etetris::runs::{
    check_beam_and_pieces, check_jitter_percent, checkpoint_cadence, etetris_manifest, with_suffix,
};
use crate::etetris::search_state::SearchState;
use crate::etetris::solver::MoveSet;
use crate::etetris::weights::Weights;
use crate::interrupt::stop_flag;
use crate::report::ledger::{Journal, JournalKind};
use crate::support::atomic_file::{check_distinct, remove_with_temporaries, target_of_temporary, AtomicFile};
use crate::support::run_dir::{manifest_beside, write_manifest_beside};
use crate::support::text::group;
use crate::support::threads::thread_pool;
use crate::tune::versus::{run_keeping, Finished, Keep, Pair, Reading, Settings, Side, Verdict};
use anyhow::{anyhow, bail, ensure, Context, Result};
use clap::Parser;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Side A: a weights file (`seed`: the contest solver's published weights), optionally followed by solve's
    /// refinement flags, quoted as one argument: "weights/etetris-full.toml --lookahead 2".
    pub a: String,
    /// Side B, the same way: the idea measured against A.
    pub b: String,
    /// Boards kept after each piece, both sides.
    #[arg(long, default_value_t = 1000)]
    pub beam: usize,
    /// Move set, both sides.
    #[arg(long, value_parser = moves_parser(), default_value = "seed")]
    pub moves: MoveSet,
    /// Pieces to place (the game has 10,000).
    #[arg(long, default_value_t = PIECE_LIMIT)]
    pub max_pieces: usize,
    /// Pairs of searches: jitter seeds 1 to N, each jittering both sides' weights alike.
    #[arg(long, default_value_t = 4)]
    pub jitters: u64,
    /// The largest change of a weight, in percent (as `solve --jitter-percent`).
    #[arg(long, default_value_t = 1.0)]
    pub jitter_percent: f64,
    /// Worker threads (default: all cores). The figures are the same at any count.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Write one row per pair (seed, a, b, gain, a_pieces, b_pieces) to this CSV file.
    /// Each search is also kept as it ends in <csv>.searches, and the state of each search
    /// in progress in <csv>.searches.<seed>-<side>.checkpoint (all removed once the CSV is
    /// written): the same command run again after a stop searches only what is missing.
    #[arg(long)]
    pub csv: Option<PathBuf>,
    /// With --csv: save the state of each search in progress when this many seconds have
    /// passed since its last save (0: after every piece).
    #[arg(long, default_value_t = 60.0, requires = "csv")]
    pub checkpoint_every: f64,
}

/// One side's argument: a weights file and solve's refinement flags.
#[derive(Parser, Debug)]
#[command(no_binary_name = true)]
struct SideArgs {
    weights: String,
    #[command(flatten)]
    search: SearchArgs,
}

/// Reads one side ("FILE [FLAGS]"), every error naming the side.
fn side(name: &str, text: &str) -> Result<Side> {
    let fail = |cause: String| anyhow!("side {name} (\"{text}\"): {cause}");
    ensure!(!text.trim().is_empty(), fail("empty: give a weights file (or `seed`), then any refinement flags".into()));
    let parsed =
        SideArgs::try_parse_from(text.split_whitespace()).map_err(|e| fail(crate::cli::clap_error_line(&e)))?;
    let weights = if parsed.weights == "seed" {
        Weights::default()
    } else if !Path::new(&parsed.weights).exists() && crate::names::closest(&parsed.weights, &["seed"]).is_some() {
        // A mistyped `seed` reads better as such than as a missing file.
        return Err(fail(format!(
            "no weights file {:?} (did you mean \"seed\", the contest solver's published weights?)",
            parsed.weights
        )));
    } else {
        Weights::load(Path::new(&parsed.weights)).map_err(|e| fail(format!("{e:#}")))?
    };
    let refinements = parsed.search.refinements().map_err(|e| fail(format!("{e:#}")))?;
    Ok(Side { weights, refinements })
}

pub fn run(args: Args) -> Result<Ended> {
    check_beam_and_pieces(args.beam, args.max_pieces)?;
    ensure!((1..=1000).contains(&args.jitters), "--jitters must be in 1..=1000, got {}", args.jitters);
    check_jitter_percent(args.jitter_percent)?;
    let every = checkpoint_cadence(args.checkpoint_every)?;
    let (a, b) = (side("A", &args.a)?, side("B", &args.b)?);
    if let Some(path) = &args.csv {
        let (manifest, searches) = (manifest_beside(path), searches_beside(path));
        // A side's first word is its weights file, unless it is `seed`.
        let file = |text: &str| text.split_whitespace().next().filter(|&word| word != "seed").map(PathBuf::from);
        let (file_a, file_b) = (file(&args.a), file(&args.b));
        check_distinct(
            &[
                ("--csv", Some(path)),
                ("the manifest beside --csv", Some(&manifest)),
                ("the searches kept beside --csv", Some(&searches)),
            ],
            &[("side A's weights", file_a.as_deref()), ("side B's weights", file_b.as_deref())],
        )?;
        AtomicFile::check_writable(path)?;
        AtomicFile::check_writable(&manifest)?;
        // The files kept beside it while it runs, the longest name last (the last seed's).
        AtomicFile::check_writable(&searches)?;
        AtomicFile::check_writable(&with_suffix(&searches, &format!(".{}-B.checkpoint", args.jitters)))?;
    }
    let settings = Settings {
        beam: args.beam,
        moves: args.moves,
        pieces: args.max_pieces,
        seeds: (1..=args.jitters).collect(),
        jitter: args.jitter_percent / 100.0,
    };
    println!("A: {}\nB: {}", args.a, args.b);
    println!(
        "beam {}, moves {}, {} pieces; both sides' weights jittered by up to {}% with seeds 1 to {}",
        args.beam,
        args.moves.name(),
        args.max_pieces,
        args.jitter_percent,
        args.jitters
    );
    let pool = thread_pool(args.threads)?;
    let searches = 2 * args.jitters as usize;
    let fingerprint = fingerprint(&args, &a, &b);
    let kept = match &args.csv {
        Some(csv) => Some(Searches::open(&searches_beside(csv), &fingerprint)?),
        None => None,
    };
    let earlier = kept.as_ref().map_or(Vec::new(), |k| k.wanted(&settings.seeds));
    if let (Some(kept), false) = (&kept, earlier.is_empty()) {
        eprintln!(
            "{} of the {searches} searches read from {} (a stopped run of this comparison)",
            earlier.len(),
            kept.journal.path().display()
        );
    }
    if kept.is_some() {
        install_ctrl_c();
    }
    let bar = pieces_bar(searches * args.max_pieces, true);
    bar.set_message(format!("{searches} searches"));
    bar.set_position(earlier.iter().map(|f| f.pieces).sum::<usize>() as u64);
    let started = Instant::now();
    let keeper = Keeper { searches: kept.as_ref(), earlier, fingerprint: &fingerprint, every, bar: &bar };
    let pairs = pool.install(|| run_keeping(&a, &b, &settings, &keeper, &|pieces| bar.inc(pieces as u64)))?;
    bar.finish_and_clear();
    let Some(pairs) = pairs else {
        let kept = kept.expect("only a comparison that keeps its searches stops");
        eprintln!(
            "stopped: the finished searches and the state of those in progress are kept beside {}; \
             the same command continues",
            kept.journal.path().display()
        );
        return Ok(Ended::Interrupted);
    };
    let seconds = started.elapsed().as_secs_f64();
    print!("{}", table(&pairs));
    for p in pairs.iter().filter(|p| p.a_pieces < args.max_pieces || p.b_pieces < args.max_pieces) {
        println!(
            "seed {}: a search ended early (A placed {}, B {} of {} pieces: every kept board topped out)",
            p.seed, p.a_pieces, p.b_pieces, args.max_pieces
        );
    }
    print!("{}", verdict(&Verdict::of(&pairs)));
    if let Some(path) = &args.csv {
        write_csv(path, &pairs)?;
        let manifest = etetris_manifest(serde_json::json!({
            "a": args.a,
            "b": args.b,
            "moves": args.moves.name(),
            "beam": args.beam,
            "pieces": args.max_pieces,
            "jitter_seeds": settings.seeds,
            "jitter_percent": args.jitter_percent,
            "threads": pool.current_num_threads(),
            "seconds": seconds,
            "csv": path.display().to_string(),
        }));
        write_manifest_beside(path, "versus", manifest)?;
        if let Some(kept) = kept {
            // Only now: a stop before this leaves every search kept.
            kept.remove();
        }
    }
    println!("seconds={seconds:.2}");
    Ok(Ended::Finished)
}

fn signed(x: f64) -> String {
    if x > 0.0 {
        format!("+{}", group(x, 0))
    } else {
        group(x, 0)
    }
}

fn table(pairs: &[Pair]) -> String {
    let mut out = format!("{:>6} {:>11} {:>11} {:>9}\n", "seed", "A", "B", "B - A");
    for p in pairs {
        out += &format!(
            "{:>6} {:>11} {:>11} {:>9}\n",
            p.seed,
            group(p.a as f64, 0),
            group(p.b as f64, 0),
            signed(p.gain() as f64)
        );
    }
    out
}

fn verdict(v: &Verdict) -> String {
    let spread = |s: &crate::support::stats::Summary| group(s.max - s.min, 0);
    let mut out = format!(
        "A: mean {}, spread {} (max - min); B: mean {}, spread {}\n",
        group(v.a.mean, 0),
        spread(&v.a),
        group(v.b.mean, 0),
        spread(&v.b)
    );
    if v.gain.count > 1 {
        out += &format!(
            "gain B - A: mean {}, 95% interval [{}, {}] (Student's t, {} degrees of freedom), least {}, most {}\n",
            signed(v.gain.mean),
            signed(v.gain.low_95()),
            signed(v.gain.high_95()),
            v.gain.count - 1,
            signed(v.gain.min),
            signed(v.gain.max)
        );
    }
    let beats_spread =
        if v.every_gain_beats_spread { ", and every pair's gain is larger than either side's spread" } else { "" };
    out += &match v.reading() {
        Reading::BBetter => format!("verdict: B beats A beyond chance (the interval lies above 0{beats_spread})\n"),
        Reading::ABetter => format!("verdict: A beats B beyond chance (the interval lies below 0{beats_spread})\n"),
        Reading::WithinChance if v.gain.count < 2 => {
            "verdict: one pair cannot tell an idea from chance (--jitters 2 or more)\n".to_string()
        }
        Reading::WithinChance => "verdict: within chance (the interval holds 0)\n".to_string(),
    };
    out
}

fn write_csv(path: &Path, pairs: &[Pair]) -> Result<()> {
    let mut file = AtomicFile::create(path)?;
    {
        let mut writer = csv::Writer::from_writer(file.writer());
        writer.write_record(["seed", "a", "b", "gain", "a_pieces", "b_pieces"])?;
        for p in pairs {
            writer.write_record([
                p.seed.to_string(),
                p.a.to_string(),
                p.b.to_string(),
                p.gain().to_string(),
                p.a_pieces.to_string(),
                p.b_pieces.to_string(),
            ])?;
        }
        writer.flush().with_context(|| format!("cannot write {}", path.display()))?;
    }
    file.commit()
}

/// Where `versus --csv FILE` keeps its finished searches.
fn searches_beside(csv: &Path) -> PathBuf {
    with_suffix(csv, ".searches")
}

/// What makes two runs the same comparison, so that one may use the other's searches:
/// both sides (as given and as read: weights and refinements), the beam, move set, pieces,
/// jitter size, the game's rules version and the crate's version. Not the number of
/// jitters: seed `s` is the same pair whatever their number, so a run may add seeds.
fn fingerprint(args: &Args, a: &Side, b: &Side) -> String {
    serde_json::json!({
        "a": args.a,
        "b": args.b,
        "a_weights": a.weights.to_toml(),
        "b_weights": b.weights.to_toml(),
        "a_refinements": a.refinements,
        "b_refinements": b.refinements,
        "beam": args.beam,
        "moves": args.moves.name(),
        "pieces": args.max_pieces,
        "jitter_percent": args.jitter_percent,
        "rule_set_version": crate::etetris::game::RULES_VERSION,
        "crate_version": env!("CARGO_PKG_VERSION"),
    })
    .to_string()
}

/// The journal of a comparison's finished searches: one line `seed,side,score,pieces` per
/// search, appended as it ends.
const SEARCHES: JournalKind = JournalKind {
    title: "# tetris-lab etetris versus searches: ",
    header: "seed,side,score,pieces",
    another_run: "the searches of another comparison (other sides or settings): give another --csv, \
                  or delete it to start afresh",
};

/// A comparison's finished searches ([`SEARCHES`]), read back and appended to.
struct Searches {
    journal: Journal,
    finished: Vec<Finished>,
}

impl Searches {
    /// Opens the file at `path` for the comparison `fingerprint`, creating it if missing;
    /// one of another comparison is an error (and is left as it is).
    fn open(path: &Path, fingerprint: &str) -> Result<Searches> {
        let (journal, finished) = Journal::open(path, &SEARCHES, fingerprint, parse_search)?;
        Ok(Searches { journal, finished })
    }

    /// The searches read back whose seed is among `seeds`.
    fn wanted(&self, seeds: &[u64]) -> Vec<Finished> {
        self.finished.iter().filter(|f| seeds.contains(&f.seed)).copied().collect()
    }

    /// Appends one finished search (whole, one write) and hands it to the system.
    fn append(&self, f: &Finished) -> Result<()> {
        self.journal.append(&format!("{},{},{},{}", f.seed, ["A", "B"][f.side], f.score, f.pieces))
    }

    /// Where the state of the search of `seed` and `side` in progress is saved.
    fn checkpoint(&self, seed: u64, side: usize) -> PathBuf {
        with_suffix(self.journal.path(), &format!(".{seed}-{}.checkpoint", ["A", "B"][side]))
    }

    /// Removes the file (its searches are in the CSV now) and any search's checkpoint left
    /// beside it (of seeds an earlier, stopped run asked for and this one did not).
    fn remove(self) {
        let path = self.journal.remove();
        let (Some(folder), Some(name)) = (path.parent(), path.file_name()) else { return };
        let folder = if folder.as_os_str().is_empty() { Path::new(".") } else { folder };
        let prefix = format!("{}.", name.to_string_lossy());
        for entry in std::fs::read_dir(folder).into_iter().flatten().flatten() {
            // A checkpoint, or the temporary of one whose first save a `kill -9` cut short
            // (removing its checkpoint removes it).
            let checkpoint = target_of_temporary(&entry.path()).unwrap_or_else(|| entry.path());
            let file = checkpoint.file_name().unwrap_or_default().to_string_lossy().into_owned();
            if file.starts_with(&prefix) && file.ends_with(".checkpoint") {
                remove_with_temporaries(&checkpoint);
            }
        }
    }
}

/// `versus`'s [`Keep`]: with `--csv`, the searches file and a checkpoint per search in
/// progress; without, nothing.
struct Keeper<'a> {
    searches: Option<&'a Searches>,
    earlier: Vec<Finished>,
    fingerprint: &'a str,
    every: Duration,
    bar: &'a indicatif::ProgressBar,
}

impl Keeper<'_> {
    /// What a search's checkpoint holds beside its state: the comparison and the search.
    fn note(&self, seed: u64, side: usize) -> String {
        format!("{} seed {seed} side {}", self.fingerprint, ["A", "B"][side])
    }
}

impl Keep for Keeper<'_> {
    fn earlier(&self) -> &[Finished] {
        &self.earlier
    }

    fn finished(&self, search: &Finished) -> Result<()> {
        let Some(searches) = self.searches else { return Ok(()) };
        searches.append(search)?;
        // Only now: a stop before the line is written leaves the state to go on from.
        remove_with_temporaries(&searches.checkpoint(search.seed, search.side));
        Ok(())
    }

    fn saved(&self, seed: u64, side: usize) -> Result<Option<SearchState>> {
        let Some(searches) = self.searches else { return Ok(None) };
        let path = searches.checkpoint(seed, side);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        };
        let (state, note) = SearchState::from_bytes(&bytes).with_context(|| format!("{}", path.display()))?;
        ensure!(
            note == self.note(seed, side),
            "{} holds a search of another comparison: delete it to search again",
            path.display()
        );
        Ok(Some(state))
    }

    fn save(&self, seed: u64, side: usize, state: &SearchState) -> Result<()> {
        let Some(searches) = self.searches else { return Ok(()) };
        let path = searches.checkpoint(seed, side);
        let mut out = AtomicFile::create(&path)?;
        out.writer()
            .write_all(&state.to_bytes(&self.note(seed, side)))
            .with_context(|| format!("cannot write {}", path.display()))?;
        out.commit()
    }

    fn every(&self) -> Duration {
        if self.searches.is_some() {
            self.every
        } else {
            Duration::MAX
        }
    }

    fn stop(&self) -> &AtomicBool {
        stop_flag()
    }

    fn warn(&self, message: &str) {
        self.bar.println(message);
    }
}

/// One line of the searches file: `seed,side,score,pieces`, side `A` or `B`.
fn parse_search(line: &str) -> Result<Finished> {
    let fields: Vec<&str> = line.split(',').collect();
    let [seed, side, score, pieces] = fields[..] else {
        bail!("expected 4 fields (seed,side,score,pieces), found {}", fields.len());
    };
    let number = |name: &str, text: &str| -> Result<u64> {
        text.parse().with_context(|| format!("{name} {} is not a count", crate::names::Quoted(text)))
    };
    let side = match side {
        "A" => 0,
        "B" => 1,
        other => bail!("side {other:?} is not A or B"),
    };
    let pieces = number("pieces", pieces)?;
    ensure!(pieces <= PIECE_LIMIT as u64, "pieces {pieces} is more than the game's {PIECE_LIMIT}");
    Ok(Finished { seed: number("seed", seed)?, side, score: number("score", score)?, pieces: pieces as usize })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kill while the file's first two lines were being written leaves them cut: the
    /// file opens as the same comparison's, with its title and header whole again.
    #[test]
    fn a_searches_file_cut_in_its_first_lines_is_mended() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pairs.csv.searches");
        let title = format!("{}sides A and B", SEARCHES.title);
        let whole = format!("{title}\n{}\n", SEARCHES.header);
        for cut in [3, title.len(), title.len() + 1, title.len() + 6, whole.len()] {
            std::fs::write(&path, &whole[..cut]).unwrap();
            let searches = Searches::open(&path, "sides A and B").unwrap();
            assert!(searches.finished.is_empty());
            searches.append(&Finished { seed: 1, side: 1, score: 1000, pieces: 10 }).unwrap();
            drop(searches);
            assert_eq!(std::fs::read_to_string(&path).unwrap(), format!("{whole}1,B,1000,10\n"), "cut at {cut}");
            let again = Searches::open(&path, "sides A and B").unwrap();
            assert_eq!(again.finished.len(), 1, "cut at {cut}");
        }
    }
}
