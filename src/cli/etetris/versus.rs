//! `tetris-lab etetris versus A B`: two E-Tetris searches compared beyond chance
//! ([`crate::sessions::versus`]). Each side is a weights file, optionally followed by the
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
use crate::etetris::solver::MoveSet;
use crate::etetris::weights::Weights;
use crate::sessions::versus::{run_keeping, Pair, Reading, Settings, Side, Verdict};
use crate::sessions::versus_files::{searches_beside, write_csv, Keeper, Searches};
use crate::support::atomic_file::{check_distinct, AtomicFile};
use crate::support::run_dir::{manifest_beside, write_manifest_beside};
use crate::support::text::group;
use crate::support::threads::thread_pool;
use anyhow::{anyhow, ensure, Result};
use clap::Parser;
use std::path::{Path, PathBuf};
use std::time::Instant;

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
