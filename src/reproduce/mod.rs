//! `reproduce`'s measurements: the plan (which preset, board, method and count), the
//! published figures it compares with, and the code that measures one line of the plan
//! (full or capped games, an extrapolation over board heights, or the E-Tetris beam
//! search) and makes its table row. Every game goes to the run's ledger as it ends, so a
//! measurement of hours continues where it stopped. The command (`cli::reproduce`) reads
//! the arguments, prints and writes the files.
//!
//! What is measured is data: [`PLAN`] has one line per measurement, so a new preset is one
//! line. Presets of the registry without a line get [`default_plan`]; presets of the plan
//! or registry whose rule set does not build yet are listed as "not available".

pub mod files;

use crate::presets::{self, Preset};
use crate::report::extrapolation::{HeightFit, HeightSample, Prediction};
use crate::report::ledger::Ledger;
use crate::sim::{self, GameDriver, GameLimits, GameRecord};
use crate::support::progress::with_progress;
use crate::support::stats::{Quantity, Summary};
use crate::support::text::{figure_text, group};
use anyhow::Result;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// What to measure: presets (none: all), the mode, and the testing overrides.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    pub presets: Vec<String>,
    /// `--full` rather than `--quick`.
    pub full: bool,
    /// Games in every game measurement (per height in an extrapolation).
    pub games: Option<u64>,
    /// The heights of every extrapolation, `(lowest, highest)`.
    pub heights: Option<(usize, usize)>,
    /// The board of every measurement on a resizable board.
    pub board: Option<(usize, usize)>,
}

/// How a figure is measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Games played to their end.
    FullGames,
    /// Games stopped (alive) after this many pieces: the mean is a lower bound.
    PieceCap(u64),
    /// The mean on the measurement's board carried on from full games at the heights
    /// `lowest..=highest` of the same width (`report::extrapolation`): the log-mean is
    /// fitted as a line in the height. The plan's game count is per height.
    Extrapolated { lowest: usize, highest: usize },
}

/// An estimate whose interval's upper end is more than this many times its lower end
/// gets no verdict ("too wide"): an interval that spans everything proves nothing.
const MAX_INFORMATIVE_WIDTH: f64 = 10.0;

/// How many rows below the top height the self-check's fit stops: the check predicts the
/// top height from the heights up to `top - CHECK_DISTANCE`. Two rows leave the fit five
/// heights of `--quick`'s seven, enough for an interval that can fail; the 10x20 figure is
/// carried six rows, so the README's validation goes further (up to 10x16 from 10x8..10x12).
const CHECK_DISTANCE: usize = 2;

/// What the mean is taken of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    Rows,
    /// Pieces placed (the 7-term bot's fitness).
    Turns,
    /// Points (the E-Tetris contest).
    Score,
}

impl Metric {
    pub fn as_str(self) -> &'static str {
        match self {
            Metric::Rows => "rows",
            Metric::Turns => "turns",
            Metric::Score => "score",
        }
    }
    /// What a game's value is, for the interval of a mean of them (`memoryless`: see
    /// [`Quantity::length`]).
    fn quantity(self, memoryless: bool) -> Quantity {
        match self {
            Metric::Rows | Metric::Turns => Quantity::length(memoryless),
            Metric::Score => Quantity::NonNegative,
        }
    }
    fn of(self, record: &GameRecord) -> f64 {
        (match self {
            Metric::Rows => record.lines,
            Metric::Turns => record.pieces,
            Metric::Score => record.score,
        }) as f64
    }
}

/// A published figure as a number: `value`, give or take `tolerance` (relative) when the
/// source states one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Published {
    pub value: f64,
    pub tolerance: Option<f64>,
    /// Where the figure comes from, short.
    pub source: &'static str,
}

/// One measurement of the plan.
#[derive(Clone, Copy, Debug)]
pub struct Measurement {
    pub preset: &'static str,
    /// `None`: the rule set's own board.
    pub board: Option<(usize, usize)>,
    pub method: Method,
    pub metric: Metric,
    /// Games (per height for an extrapolation) under `--quick`; 0 = not part of `--quick`.
    pub quick: u64,
    /// Games (per height for an extrapolation) under `--full`; 0 = not part of `--full`.
    pub full: u64,
    pub published: Option<Published>,
}

const fn line(
    preset: &'static str,
    board: Option<(usize, usize)>,
    method: Method,
    quick: u64,
    full: u64,
    published: Option<Published>,
) -> Measurement {
    Measurement { preset, board, method, metric: Metric::Rows, quick, full, published }
}

const fn figure(value: f64, tolerance: Option<f64>, source: &'static str) -> Option<Published> {
    Some(Published { value, tolerance, source })
}

const FAHEY_DELLACHERIE: Option<Published> =
    figure(630_000.0, Some(0.27), "Fahey 2003: 600,000-660,000 over 56 games, +-27% at 95%");
const THIERY_DELLACHERIE: Option<Published> = figure(5_200_000.0, Some(0.20), "Thiery-Scherrer 2009, 10x20, +-20%");
const THIERY_BCTS: Option<Published> = figure(35_000_000.0, Some(0.20), "Thiery-Scherrer 2009, 10x20, +-20%");
/// The heights `--quick` extrapolates from, and `--full`'s (whose top, 10x16, the check
/// predicts from 10x8..10x12).
const QUICK_HEIGHTS: Method = Method::Extrapolated { lowest: 8, highest: 14 };
const FULL_HEIGHTS: Method = Method::Extrapolated { lowest: 8, highest: 16 };
const THIERY_BCTS_10X10: Option<Published> = figure(3_800.0, None, "Thiery-Scherrer, 10x10");
/// JMLR15's Table 1 (Scherrer et al. 2015): the best policies' mean over 10,000 games.
const JMLR_DT10_10X10: Option<Published> = figure(5_000.0, None, "Scherrer et al. JMLR 2015, Table 1, 10x10");
const JMLR_DT10_10X20: Option<Published> = figure(29_000_000.0, None, "Scherrer et al. JMLR 2015, Table 1, 10x20");
const JMLR_DT20_10X10: Option<Published> = figure(4_300.0, None, "Scherrer et al. JMLR 2015, Table 1, 10x10");
const JMLR_DT20_10X20: Option<Published> = figure(51_000_000.0, None, "Scherrer et al. JMLR 2015, Table 1, 10x20");
const JMLR_BDU_10X10: Option<Published> = figure(4_200.0, None, "Scherrer et al. JMLR 2015, Table 1, 10x10");
const JMLR_BDU_10X20: Option<Published> = figure(36_000_000.0, None, "Scherrer et al. JMLR 2015, Table 1, 10x20");

/// Every measurement, in the order of the table. `--quick` (the default) runs the lines
/// with a non-zero `quick`; `--full` those with a non-zero `full`. Fahey's standard rules
/// end Dellacherie's games within about a million pieces, so even `--quick` plays them to
/// the end on the published board. The research rules' 10x20 games are 10,000 times
/// longer: `--quick` extrapolates them from full games on 10x8..10x14 (see
/// `report::extrapolation` and the README for how far that was checked), and `--full` plays
/// them. The 10x10 board is the literature's cheap check; Dellacherie's 10x10 figure could
/// not be pinned to a source, so it prints n/a rather than a guess.
pub static PLAN: &[Measurement] = &[
    line("dellacherie", None, Method::FullGames, 100, 100, FAHEY_DELLACHERIE),
    line("dellacherie-simplified", Some((10, 10)), Method::FullGames, 100, 1_000, None),
    line("dellacherie-simplified", Some((10, 20)), QUICK_HEIGHTS, 300, 0, THIERY_DELLACHERIE),
    line("dellacherie-simplified", Some((10, 20)), FULL_HEIGHTS, 0, 1_000, THIERY_DELLACHERIE),
    line("dellacherie-simplified", Some((10, 20)), Method::FullGames, 0, 100, THIERY_DELLACHERIE),
    // El-Tetris' board is fixed at 10x20 and nothing pins its figure: capped games.
    line("el-tetris", None, Method::PieceCap(100_000), 10, 0, None),
    line("el-tetris", None, Method::PieceCap(2_000_000), 0, 100, None),
    line("bcts", Some((10, 10)), Method::FullGames, 100, 1_000, THIERY_BCTS_10X10),
    line("bcts", Some((10, 20)), QUICK_HEIGHTS, 200, 0, THIERY_BCTS),
    line("bcts", Some((10, 20)), FULL_HEIGHTS, 0, 300, THIERY_BCTS),
    line("bcts", Some((10, 20)), Method::FullGames, 0, 20, THIERY_BCTS),
    // The approximate-dynamic-programming papers' best policies (JMLR15, Tables 1 and 2).
    // Their policies clear millions of rows on 10x20, and BDU sums 28 terms a placement
    // (several times slower than BCTS): `--quick` plays their 10x10 games only, `--full`
    // estimates 10x20 too.
    line("dt-10", Some((10, 10)), Method::FullGames, 100, 1_000, JMLR_DT10_10X10),
    line("dt-10", Some((10, 20)), FULL_HEIGHTS, 0, 300, JMLR_DT10_10X20),
    line("dt-20", Some((10, 10)), Method::FullGames, 100, 1_000, JMLR_DT20_10X10),
    line("dt-20", Some((10, 20)), FULL_HEIGHTS, 0, 300, JMLR_DT20_10X20),
    line("bdu", Some((10, 10)), Method::FullGames, 100, 1_000, JMLR_BDU_10X10),
    line("bdu", Some((10, 20)), FULL_HEIGHTS, 0, 300, JMLR_BDU_10X20),
    // Lee's player "clears lines indefinitely": only a piece cap ends its games.
    line("lee", None, Method::PieceCap(2_000), 10, 0, None),
    line("lee", None, Method::PieceCap(100_000), 0, 100, None),
    // Tops out within a few dozen lines at high gravity: full games are cheap.
    line("pygame-lee", None, Method::FullGames, 5, 100, None),
    Measurement {
        preset: "erikko",
        board: None,
        method: Method::PieceCap(10_000),
        metric: Metric::Turns,
        quick: 10,
        full: 0,
        published: None,
    },
    Measurement {
        preset: "erikko",
        board: None,
        method: Method::FullGames,
        metric: Metric::Turns,
        quick: 0,
        full: 100,
        published: None,
    },
    // One deterministic game over the known sequence; "1.30 M" is rounded to 0.01 M.
    Measurement {
        preset: "etetris",
        board: None,
        method: Method::FullGames,
        metric: Metric::Score,
        quick: 1,
        full: 1,
        published: figure(1_300_000.0, Some(0.004), "contest solver, 1,000 kept boards"),
    },
];

/// The measurements of a registry preset the plan does not name: capped games, since
/// nothing says how long its games are.
pub fn default_plan(preset: &'static str) -> [Measurement; 2] {
    [
        line(preset, None, Method::PieceCap(2_000), 10, 0, None),
        line(preset, None, Method::PieceCap(100_000), 0, 100, None),
    ]
}

/// Scores grow about 2.5x per board row (`tuning.md`); used only to size `--full`.
const GROWTH_PER_ROW: f64 = 2.5;

/// One row of the output table.
#[derive(Clone, Debug)]
pub struct Row {
    pub preset: String,
    pub rule_set: String,
    pub board: String,
    /// Games played (`100 x 7 heights` for an extrapolation).
    pub count: String,
    pub metric: &'static str,
    pub mean: Option<f64>,
    pub interval: Option<(f64, f64)>,
    pub published: Option<Published>,
    pub verdict: String,
    /// What kind of figure the mean is, in a few words: [`kind`].
    pub kind: &'static str,
    pub method: String,
    pub seconds: f64,
}

/// A measurement with the counts of the chosen mode and the test overrides applied.
#[derive(Clone, Copy, Debug)]
pub struct Planned {
    pub measurement: Measurement,
    pub count: u64,
    pub board: Option<(usize, usize)>,
    /// The board was replaced by `--board`: the published figure no longer applies.
    pub overridden: bool,
}

/// The measurements to run, in plan order, after checking every named preset exists.
pub fn select(args: &Selection) -> Result<Vec<Planned>> {
    let full = args.full;
    let mut known: Vec<&'static str> = presets::REGISTRY.iter().map(|p| p.name).collect();
    for m in PLAN {
        if !known.contains(&m.preset) {
            known.push(m.preset);
        }
    }
    let mut wanted: Vec<&'static str> = Vec::new();
    for name in &args.presets {
        let Some(found) = known.iter().find(|k| *k == name) else {
            return Err(crate::names::unknown("preset", name, known.iter().copied()));
        };
        if !wanted.contains(found) {
            wanted.push(found);
        }
    }
    if wanted.is_empty() {
        wanted = known.clone();
    }
    if let Some(games) = args.games {
        crate::limits::check_count("--games", games, crate::limits::MAX_GAMES)?;
    }
    // Plan order, then registry presets the plan does not name, so the table reads the
    // same whichever way the presets were given.
    let mut lines: Vec<Measurement> = PLAN.to_vec();
    for preset in presets::REGISTRY {
        if !PLAN.iter().any(|m| m.preset == preset.name) {
            lines.extend(default_plan(preset.name));
        }
    }
    let selection = lines
        .into_iter()
        .filter(|m| wanted.contains(&m.preset))
        .filter_map(|m| {
            let count = if full { m.full } else { m.quick };
            if count == 0 {
                return None;
            }
            let count = args.games.unwrap_or(count);
            let overridden = args.board.is_some() && m.board.is_some() && args.board != m.board;
            let board = if m.board.is_some() { args.board.or(m.board) } else { None };
            let mut measurement = m;
            if let (Method::Extrapolated { .. }, Some((lowest, highest))) = (m.method, args.heights) {
                measurement.method = Method::Extrapolated { lowest, highest };
            }
            Some(Planned { measurement, count, board, overridden })
        })
        .collect();
    Ok(selection)
}

/// The E-Tetris contest: not a game of the game loop but the seed's beam search over the
/// known sequence with its published weights and 1,000 kept boards, scored by replaying the
/// record it writes (the game's own count). Deterministic, so the "interval" is the point.
fn measure_etetris(mut row: Row, planned: &Planned, rule_sets: &mut BTreeMap<String, String>) -> Row {
    use crate::etetris::game::PIECE_LIMIT;
    use crate::etetris::solver::{MoveSet, Options};
    const BEAM: usize = 1_000;
    let start = Instant::now();
    let options = Options::new(BEAM, MoveSet::Seed, Default::default());
    let score = match crate::etetris::checked::solve_checked(options, PIECE_LIMIT, true) {
        Ok((_, _, replayed)) => replayed.score as f64,
        Err(e) => {
            row.method = format!("not available: {e}");
            return row;
        }
    };
    rule_sets.insert("etetris 10x20".into(), "etetris (contest rules)".into());
    let summary = Summary::of(&[score], Quantity::NonNegative);
    row.rule_set = "etetris".into();
    row.board = "10x20".into();
    row.count = planned.count.to_string();
    row.mean = Some(score);
    row.interval = Some((score, score));
    row.verdict = verdict(row.interval, &summary, row.published, Method::FullGames);
    row.method = format!(
        "beam search, {BEAM} kept boards, the contest solver's moves and weights; score of the replayed record"
    );
    row.seconds = start.elapsed().as_secs_f64();
    row
}

/// What every measurement of a run shares: the master seed, its place in the run (the
/// ledger's key), and the ledger of finished games.
pub struct Measuring<'a> {
    pub seed: u64,
    pub index: usize,
    pub ledger: &'a Ledger,
}

/// What kind of figure a measurement gives, as the table's "kind" column says it: `full`
/// games on the published board, full games on a `reduced` (smaller) board, an `estimate`,
/// `capped` games (a lower bound), or the E-Tetris `search`.
pub fn kind(planned: &Planned) -> &'static str {
    let m = &planned.measurement;
    if m.preset == "etetris" {
        return "search";
    }
    match m.method {
        Method::PieceCap(_) => "capped",
        Method::Extrapolated { .. } => "estimate",
        Method::FullGames if smaller_than_published(planned) => "reduced",
        Method::FullGames => "full",
    }
}

/// Whether the measurement's board is shorter than its rule set's own (published) board:
/// the one test behind the "reduced" kind and the "reduced board" note.
fn smaller_than_published(planned: &Planned) -> bool {
    let Some((_, height)) = planned.board else { return false };
    let rule_set = presets::REGISTRY.iter().find(|p| p.name == planned.measurement.preset).map(|p| p.rule_set);
    let own_height = rule_set.and_then(|name| crate::rules::build(name, None).ok()).map(|r| r.new_board().height());
    own_height.is_some_and(|own| height < own)
}

/// Plays one measurement and makes its table row; a preset that is not in this build or
/// whose rule set does not build becomes a "not available" row. Fails only when the
/// ledger cannot be written.
pub fn measure(
    planned: &Planned,
    context: &Measuring,
    games_csv: &mut Vec<(usize, String, String, GameRecord)>,
    rule_sets: &mut BTreeMap<String, String>,
) -> Result<Row> {
    let m = &planned.measurement;
    let published = if planned.overridden { None } else { m.published };
    let mut row = Row {
        preset: m.preset.to_string(),
        rule_set: "-".into(),
        board: planned.board.map(|(w, h)| format!("{w}x{h}")).unwrap_or_else(|| "-".into()),
        count: "-".into(),
        metric: m.metric.as_str(),
        mean: None,
        interval: None,
        published,
        verdict: "n/a".into(),
        kind: kind(planned),
        method: String::new(),
        seconds: 0.0,
    };
    if m.preset == "etetris" {
        return Ok(measure_etetris(row, planned, rule_sets));
    }
    let Some(preset) = presets::REGISTRY.iter().find(|p| p.name == m.preset) else {
        row.method = "not available: not in this build yet".into();
        return Ok(row);
    };
    row.rule_set = preset.rule_set.to_string();
    let built = match preset.build(planned.board, None) {
        Ok(built) => built,
        Err(e) => {
            // The root cause without the list of known names: "unknown rule set "lee"".
            let cause = e.root_cause().to_string();
            row.method = format!("not available: {}", first_line(&cause).split(';').next().unwrap_or(""));
            return Ok(row);
        }
    };
    let rules = built.rules.as_ref();
    let board = rules.new_board();
    row.board = format!("{}x{}", board.width(), board.height());
    rule_sets.insert(format!("{} {}", rules.name(), row.board), rules.version().to_string());
    row.method = describe_method(planned, preset, rules.frame_rules().is_none());

    let start = Instant::now();
    match m.method {
        Method::FullGames | Method::PieceCap(_) => {
            let limits = GameLimits {
                max_pieces: match m.method {
                    Method::PieceCap(cap) => Some(cap),
                    _ => None,
                },
            };
            let games = Games {
                key: Games::key(m.preset, &row.board, context.seed, limits),
                label: format!("{} {} ({} games)", m.preset, row.board, planned.count),
                seed: context.seed,
                count: planned.count,
                limits,
                expected_pieces: expected_pieces(planned, board.width(), board.height()),
            };
            let records = play_games(built.driver(), &games, context.ledger)?;
            let values: Vec<f64> = records.iter().map(|r| m.metric.of(r)).collect();
            let summary = Summary::of(&values, m.metric.quantity(rules.frame_rules().is_none()));
            // A cap bounds the mean: its pieces, and the rows they can clear.
            let summary = match (m.method, m.metric) {
                (Method::PieceCap(cap), Metric::Turns) => summary.at_most(cap as f64),
                (Method::PieceCap(cap), Metric::Rows) => summary.at_most_rows(cap, board.width()),
                _ => summary,
            };
            row.count = planned.count.to_string();
            row.mean = Some(summary.mean);
            row.interval = Some((summary.low_95(), summary.high_95()));
            row.verdict = verdict(Some((summary.low_95(), summary.high_95())), &summary, published, m.method);
            for r in records {
                games_csv.push((context.index + 1, m.preset.to_string(), row.board.clone(), r));
            }
        }
        Method::Extrapolated { lowest, highest } => {
            let target = (board.width(), board.height());
            let (samples, records) = play_heights(preset, planned, target, (lowest, highest), context)?;
            for (height, games) in records {
                let board = format!("{}x{height}", target.0);
                games_csv
                    .extend(games.into_iter().map(|r| (context.index + 1, m.preset.to_string(), board.clone(), r)));
            }
            row.count = format!("{} games x {} heights", planned.count, highest - lowest + 1);
            match HeightFit::fit(&samples) {
                Ok(fit) => {
                    let prediction = fit.predict(target.1);
                    row.mean = Some(prediction.mean);
                    row.interval = Some((prediction.low, prediction.high));
                    let summary = Summary::of(&[prediction.mean], Quantity::NonNegative);
                    row.verdict = verdict(row.interval, &summary, published, m.method);
                    if published.is_some() && prediction.width_factor() > MAX_INFORMATIVE_WIDTH {
                        // Containing the published figure proves nothing then.
                        row.verdict = "too wide".into();
                    }
                    row.method.push_str(&describe_fit(&fit, &prediction, &samples, target.0));
                }
                Err(e) => row.method.push_str(&format!("; no estimate: {e}")),
            }
        }
    }
    row.seconds = start.elapsed().as_secs_f64();
    Ok(row)
}

/// The games of one measurement on one board.
struct Games {
    /// The ledger's name for these games: [`Games::key`].
    key: String,
    label: String,
    seed: u64,
    count: u64,
    limits: GameLimits,
    /// Pieces all `count` games should take, when known: the progress bar then follows
    /// pieces, so its ETA holds for a few long games too.
    expected_pieces: Option<f64>,
}

impl Games {
    /// Everything that decides game `i`, besides `i`: preset, board, master seed and
    /// piece cap. Measurements that share it share their games (the quick extrapolation's
    /// games at a height are the first of the full one's), and a plan changed between a
    /// stop and `--resume` reuses exactly the games that are still valid.
    fn key(preset: &str, board: &str, seed: u64, limits: GameLimits) -> String {
        let cap = limits.max_pieces.map_or("none".to_string(), |cap| cap.to_string());
        format!("{preset}:{board}:seed {seed}:cap {cap}")
    }
}

/// Plays games `0..count` seeded from (seed, i) exactly as [`sim::play_batch`] does,
/// taking the ones an earlier run finished from the ledger and appending each new one to
/// it as it ends.
fn play_games(driver: GameDriver, games: &Games, ledger: &Ledger) -> Result<Vec<GameRecord>> {
    let done: Vec<Option<GameRecord>> = (0..games.count).map(|i| ledger.get(&games.key, i)).collect();
    let missing: Vec<u64> = (0..games.count).filter(|&i| done[i as usize].is_none()).collect();
    let expected = games.expected_pieces.map(|pieces| (pieces * missing.len() as f64 / games.count as f64) as u64);
    let label = if missing.len() < games.count as usize {
        format!("{}, {} kept from the ledger", games.label, games.count as usize - missing.len())
    } else {
        games.label.clone()
    };
    let played: Vec<(u64, GameRecord)> =
        with_progress(&label, expected.unwrap_or(missing.len() as u64), expected.is_some(), |pieces, bar| {
            missing
                .par_iter()
                .map(|&i| {
                    let record = sim::play_game_of_batch(driver, games.seed, i, games.limits, Some(pieces));
                    ledger.append(&games.key, i, &record)?;
                    if expected.is_none() {
                        bar.inc(1);
                    }
                    Ok((i, record))
                })
                .collect::<Result<Vec<_>>>()
        })?;
    let mut records = done;
    for (i, record) in played {
        records[i as usize] = Some(record);
    }
    Ok(records.into_iter().map(|r| r.expect("every game played or kept")).collect())
}

/// A master seed for each height of an extrapolation, so that the heights' games are
/// independent (the fit treats them so) and still depend only on the run's seed.
fn height_seed(seed: u64, height: usize) -> u64 {
    let mut state = seed ^ (height as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    crate::randomizer::splitmix64(&mut state)
}

/// Full games at every height `lowest..=highest` of the target's width; the samples for
/// the fit and the games, per height.
#[allow(clippy::type_complexity)]
fn play_heights(
    preset: &Preset,
    planned: &Planned,
    target: (usize, usize),
    (lowest, highest): (usize, usize),
    context: &Measuring,
) -> Result<(Vec<HeightSample>, Vec<(usize, Vec<GameRecord>)>)> {
    let m = &planned.measurement;
    let mut samples: Vec<HeightSample> = Vec::new();
    let mut records = Vec::new();
    for height in lowest..=highest {
        let built = preset.build(Some((target.0, height)), None)?;
        // Sized from the heights already played (rows grow about 2.5x a row), so the bar's
        // ETA is right from the first height on.
        let expected_rows = match samples.last() {
            Some(last) => last.mean * GROWTH_PER_ROW.powi((height - last.height) as i32),
            None => 10.0 * GROWTH_PER_ROW.powi(height as i32 - 4),
        };
        let seed = height_seed(context.seed, height);
        let games = Games {
            key: Games::key(m.preset, &format!("{}x{height}", target.0), seed, GameLimits::default()),
            label: format!("{} {}x{height} ({} games)", m.preset, target.0, planned.count),
            seed,
            count: planned.count,
            limits: GameLimits::default(),
            expected_pieces: Some(expected_rows * planned.count as f64 * target.0 as f64 / 4.0),
        };
        let played = play_games(built.driver(), &games, context.ledger)?;
        let summary =
            Summary::of(&played.iter().map(|r| m.metric.of(r)).collect::<Vec<f64>>(), m.metric.quantity(true));
        samples.push(HeightSample {
            height,
            games: played.len(),
            mean: summary.mean,
            standard_deviation: summary.standard_deviation,
        });
        records.push((height, played));
    }
    Ok((samples, records))
}

/// `x1.8`, `x250`, `x3e18`: how many times the upper end of an interval is the lower one.
fn times(factor: f64) -> String {
    if !factor.is_finite() {
        "unbounded".into()
    } else if factor < 100.0 {
        format!("x{factor:.1}")
    } else if factor < 1e6 {
        format!("x{}", group(factor, 0))
    } else {
        format!("x{factor:.0e}")
    }
}

/// The fit as the table's "how measured" says it, with the self-check: the top height
/// predicted from the heights up to [`CHECK_DISTANCE`] rows below it, against the games
/// played there.
fn describe_fit(fit: &HeightFit, prediction: &Prediction, samples: &[HeightSample], width: usize) -> String {
    let (growth, growth_low, growth_high) = fit.growth_per_row();
    let mut text = format!(
        "; log-mean a line in the height: x{growth:.2} a row [{growth_low:.2}, {growth_high:.2}], fit p = {:.2}; \
         interval {} wide",
        fit.fit_p_value,
        times(prediction.width_factor())
    );
    let top = samples[samples.len() - 1];
    let below: Vec<HeightSample> =
        samples.iter().copied().filter(|s| s.height + CHECK_DISTANCE <= top.height).collect();
    if let Ok(check) = HeightFit::fit(&below) {
        let predicted = check.predict(top.height);
        let inside = (predicted.low..=predicted.high).contains(&top.mean);
        text.push_str(&format!(
            "; check: {width}x{} predicted from {width}x{}..{width}x{} as {} [{}, {}], measured {} ({})",
            top.height,
            below[0].height,
            below[below.len() - 1].height,
            figure_text(predicted.mean),
            figure_text(predicted.low),
            figure_text(predicted.high),
            figure_text(top.mean),
            if inside { "inside" } else { "outside" }
        ));
    }
    text
}

pub fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

/// "full games", "reduced board", "piece cap N", "estimate: ..." as the table says it.
fn describe_method(planned: &Planned, preset: &Preset, memoryless: bool) -> String {
    let mut parts = Vec::new();
    let reduced = smaller_than_published(planned) && !matches!(planned.measurement.method, Method::Extrapolated { .. });
    let interval = format!("{} interval", planned.measurement.metric.quantity(memoryless).interval_method());
    match planned.measurement.method {
        Method::FullGames => parts.extend(["full games".to_string(), interval]),
        Method::PieceCap(cap) => parts.extend([format!("piece cap {}", group(cap as f64, 0)), interval]),
        Method::Extrapolated { lowest, highest } => {
            let width = planned.board.map_or(10, |(w, _)| w);
            parts.push(format!("estimate from full games on {width}x{lowest}..{width}x{highest}"))
        }
    }
    if reduced {
        parts.push("reduced board".into());
    }
    if planned.overridden {
        parts.push("board overridden, published figure not comparable".into());
    }
    if preset.rule_set != crate::rules::RESEARCH && planned.board.is_some() {
        parts.push(format!("rules {}", preset.rule_set));
    }
    parts.join(", ")
}

/// Whether the published figure lies in the measured 95% interval: "yes", "no", "overlap"
/// (outside, but the published figure's own interval overlaps ours), or "n/a".
fn verdict(interval: Option<(f64, f64)>, summary: &Summary, published: Option<Published>, method: Method) -> String {
    let (Some(p), Some((low, high))) = (published, interval) else {
        return "n/a".into();
    };
    if let Method::PieceCap(_) = method {
        // A capped mean is a lower bound of the uncapped one, not a measurement of it.
        return "n/a (capped)".into();
    }
    if (low..=high).contains(&p.value) {
        return "yes".into();
    }
    if let Some(t) = p.tolerance {
        let (p_low, p_high) = (p.value * (1.0 - t), p.value * (1.0 + t));
        if p_low <= high && low <= p_high {
            return "overlap".into();
        }
    }
    format!("no (x{:.2})", summary.mean / p.value)
}

pub fn method_name(method: Method) -> &'static str {
    match method {
        Method::FullGames => "full games",
        Method::PieceCap(_) => "piece cap",
        Method::Extrapolated { .. } => "extrapolated",
    }
}

/// Pieces per thread-second over about a quarter of a second of play (new seeded games
/// as games end).
pub fn warm_up(driver: sim::GameDriver) -> f64 {
    let start = Instant::now();
    let mut pieces = 0u64;
    let mut game = 0;
    while start.elapsed() < Duration::from_millis(250) {
        let record = sim::play_game(driver, game, GameLimits { max_pieces: Some(2_000) }, None);
        pieces += record.pieces.max(1);
        game += 1;
    }
    pieces as f64 / start.elapsed().as_secs_f64()
}

/// Expected pieces for a measurement: the games of every height for an extrapolation,
/// the cap for capped games,
/// and for full games the published rows (or the preset's figure on another board, scaled
/// by 2.5x per row) times `width / 4` pieces per row (4 cells a piece, `width` a row).
pub fn expected_pieces(planned: &Planned, width: usize, height: usize) -> Option<f64> {
    let m = &planned.measurement;
    let games = planned.count as f64;
    match m.method {
        Method::Extrapolated { lowest, highest } => {
            // Rows grow about 2.5x a row, so the top height costs most: the sum over
            // heights is about 1.7 times the top's games, sized from the published
            // figure (or 10 rows at height 4).
            let rows_at = |h: usize| match m.published.filter(|_| !planned.overridden) {
                Some(p) => p.value * GROWTH_PER_ROW.powi(h as i32 - height as i32),
                None => 10.0 * GROWTH_PER_ROW.powi(h as i32 - 4),
            };
            Some((lowest..=highest).map(|h| games * rows_at(h) * width as f64 / 4.0).sum())
        }
        Method::PieceCap(cap) => Some(games * cap as f64),
        Method::FullGames => {
            if m.metric != Metric::Rows {
                return None;
            }
            let rows = m.published.filter(|_| !planned.overridden).map(|p| p.value).or_else(|| {
                PLAN.iter().filter(|o| o.preset == m.preset && o.method == Method::FullGames).find_map(|o| {
                    let (_, other_height) = o.board?;
                    let p = o.published?;
                    Some(p.value * GROWTH_PER_ROW.powi(height as i32 - other_height as i32))
                })
            })?;
            Some(games * rows * width as f64 / 4.0)
        }
    }
}

/// The published mean rows of a preset's full games on a `width x height` board under its
/// own rule set and weights: the plan's figure for that board, or one on a board of the
/// same width scaled by [`GROWTH_PER_ROW`] per row (`None` when nothing sizes them).
pub fn published_rows(preset: &str, width: usize, height: usize) -> Option<f64> {
    let built_board = |m: &Measurement| -> Option<(usize, usize)> {
        match m.board {
            Some(board) => Some(board),
            None => {
                let board = presets::find(m.preset).ok()?.build(None, None).ok()?.rules.new_board();
                Some((board.width(), board.height()))
            }
        }
    };
    PLAN.iter()
        .filter(|m| m.preset == preset && m.metric == Metric::Rows && m.method == Method::FullGames)
        .filter_map(|m| Some((built_board(m)?, m.published?.value)))
        .filter(|&((w, _), _)| w == width)
        .min_by_key(|&((_, h), _)| h.abs_diff(height))
        .map(|((_, h), rows)| rows * GROWTH_PER_ROW.powi(height as i32 - h as i32))
}

/// What a batch of games is expected to cost before it starts: its pieces from the
/// published mean rows (4 cells a piece, `width` a row, at most the cap), its time from a
/// quarter-second warm-up on this machine.
#[derive(Clone, Copy, Debug)]
pub struct Cost {
    pub games: u64,
    /// The board (width, height) the games are played on.
    pub board: (usize, usize),
    pub rows_per_game: f64,
    pub pieces: f64,
    pub pieces_per_thread_second: f64,
    pub seconds: f64,
}

/// Costs above this many seconds are said before a batch starts.
pub const LONG_BATCH_SECONDS: f64 = 180.0;

impl Cost {
    /// The cost of `games` games of `preset` (its own rules and weights) on `width x
    /// height` with `threads` threads, when the published figures size them and they
    /// would place over ten million pieces (fewer are never slow enough to say).
    pub fn of_batch(
        preset: &str,
        driver: GameDriver,
        width: usize,
        height: usize,
        games: u64,
        max_pieces: Option<u64>,
        threads: usize,
    ) -> Option<Cost> {
        let rows_per_game = published_rows(preset, width, height)?;
        let per_game = (rows_per_game * width as f64 / 4.0).min(max_pieces.map_or(f64::INFINITY, |cap| cap as f64));
        let pieces = per_game * games as f64;
        if pieces < 1e7 {
            return None;
        }
        let speed = warm_up(driver);
        let parallel = threads.min(games as usize).max(1) as f64;
        Some(Cost {
            games,
            board: (width, height),
            rows_per_game,
            pieces,
            pieces_per_thread_second: speed,
            seconds: pieces / (speed * parallel),
        })
    }

    /// Whether to say it before starting.
    pub fn is_long(&self) -> bool {
        self.seconds > LONG_BATCH_SECONDS
    }

    /// One line: what it will cost and how to make it smaller (`smaller`, e.g. "--board
    /// 10x10, --games N or --max-pieces N").
    pub fn note(&self, smaller: &str) -> String {
        format!(
            "note: about {} pieces to play ({} games, published mean {} rows a game on {}x{}), about {} at {} \
             pieces/s per thread here; {smaller} make it smaller",
            figure_text(self.pieces),
            group(self.games as f64, 0),
            figure_text(self.rows_per_game),
            self.board.0,
            self.board.1,
            duration(self.seconds),
            group(self.pieces_per_thread_second, 0),
        )
    }
}

/// What is left of a measurement when a run continues: the expected pieces of the games
/// not yet in the ledger (the estimate of [`expected_pieces`], shared out per height for an
/// extrapolation), and the games finished and planned.
pub fn remaining_pieces(planned: &Planned, width: usize, height: usize, seed: u64, ledger: &Ledger) -> Remaining {
    let m = &planned.measurement;
    let count = planned.count;
    match m.method {
        Method::Extrapolated { lowest, highest } => {
            let mut remaining = Remaining { pieces: Some(0.0), finished: 0, planned: 0 };
            for h in lowest..=highest {
                let key = Games::key(m.preset, &format!("{width}x{h}"), height_seed(seed, h), GameLimits::default());
                let finished = ledger.finished(&key, count);
                let one_height = Planned {
                    measurement: Measurement { method: Method::Extrapolated { lowest: h, highest: h }, ..*m },
                    ..*planned
                };
                let pieces = expected_pieces(&one_height, width, height).unwrap_or(0.0);
                remaining.pieces = remaining.pieces.map(|p| p + pieces * (count - finished) as f64 / count as f64);
                remaining.finished += finished;
                remaining.planned += count;
            }
            remaining
        }
        Method::FullGames | Method::PieceCap(_) => {
            let limits = GameLimits {
                max_pieces: match m.method {
                    Method::PieceCap(cap) => Some(cap),
                    _ => None,
                },
            };
            let finished = ledger.finished(&Games::key(m.preset, &format!("{width}x{height}"), seed, limits), count);
            Remaining {
                pieces: expected_pieces(planned, width, height).map(|p| p * (count - finished) as f64 / count as f64),
                finished,
                planned: count,
            }
        }
    }
}

/// See [`remaining_pieces`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Remaining {
    pub pieces: Option<f64>,
    pub finished: u64,
    pub planned: u64,
}

pub fn duration(seconds: f64) -> String {
    if seconds < 120.0 {
        format!("{seconds:.0} s")
    } else if seconds < 7200.0 {
        format!("{:.0} min", seconds / 60.0)
    } else {
        format!("{:.1} h", seconds / 3600.0)
    }
}

pub fn published_text(p: Option<Published>) -> String {
    match p {
        Some(Published { value, tolerance: Some(t), .. }) => {
            format!(
                "{} +-{}%",
                figure_text(value),
                if t < 0.01 { format!("{:.1}", t * 100.0) } else { format!("{:.0}", t * 100.0) }
            )
        }
        Some(Published { value, tolerance: None, .. }) => figure_text(value),
        None => "n/a".into(),
    }
}

pub const HEADERS: [&str; 12] = [
    "preset",
    "rule set",
    "board",
    "kind",
    "games",
    "metric",
    "mean",
    "95% interval",
    "published",
    "inside",
    "how measured",
    "seconds",
];

fn cells(row: &Row) -> [String; 12] {
    [
        row.preset.clone(),
        row.rule_set.clone(),
        row.board.clone(),
        row.kind.to_string(),
        row.count.clone(),
        row.metric.to_string(),
        row.mean.map(figure_text).unwrap_or_else(|| "-".into()),
        row.interval.map(|(l, h)| format!("[{}, {}]", figure_text(l), figure_text(h))).unwrap_or_else(|| "-".into()),
        published_text(row.published),
        row.verdict.clone(),
        row.method.clone(),
        format!("{:.1}", row.seconds),
    ]
}

/// The table as aligned text for the terminal: the figures in columns narrow enough for
/// a terminal (about 110 characters), then how each row was measured, one numbered line
/// each (that column alone is up to 130 characters wide; the CSV and Markdown files keep
/// every column in one table).
pub fn text_table(rows: &[Row]) -> String {
    const COLUMNS: [&str; 9] =
        ["#", "preset", "board", "kind", "mean", "95% interval", "published", "inside", "seconds"];
    let body: Vec<[String; 9]> = rows
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let c = cells(row);
            [
                (i + 1).to_string(),
                c[0].clone(),
                c[2].clone(),
                c[3].clone(),
                format!("{} {}", c[6], c[5]),
                c[7].clone(),
                c[8].clone(),
                c[9].clone(),
                c[11].clone(),
            ]
        })
        .collect();
    let mut widths = COLUMNS.map(str::len);
    for r in &body {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = String::new();
    let mut line = |cells: &[String]| {
        let text: Vec<String> = cells.iter().zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect();
        let _ = writeln!(out, "{}", text.join("  ").trim_end());
    };
    line(&COLUMNS.map(String::from));
    for r in &body {
        line(r);
    }
    let _ = writeln!(out, "\nhow measured:");
    for (i, row) in rows.iter().enumerate() {
        let count = format!("{} {}", row.count, count_unit(row));
        let _ = writeln!(
            out,
            "{:>w$}  {} ({} rules, {}): {}",
            i + 1,
            row.preset,
            row.rule_set,
            count.trim_end(),
            row.method,
            w = widths[0]
        );
    }
    out
}

/// `games`, or nothing where the count already names its unit (`100 games x 7 heights`).
fn count_unit(row: &Row) -> &'static str {
    if row.count.contains(' ') {
        ""
    } else if row.count == "1" {
        "game"
    } else {
        "games"
    }
}

pub fn markdown_table(rows: &[Row]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "| {} |", HEADERS.join(" | "));
    let _ = writeln!(out, "|{}", "---|".repeat(HEADERS.len()));
    for r in rows {
        let _ = writeln!(out, "| {} |", cells(r).map(|c| c.replace('|', "\\|")).join(" | "));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grouping() {
        assert_eq!(group(5_200_000.0, 0), "5,200,000");
        assert_eq!(group(999.0, 0), "999");
        assert_eq!(group(1234.56, 1), "1,234.6");
        assert_eq!(group(-1234.0, 0), "-1,234");
    }

    #[test]
    fn verdicts() {
        let s = Summary::of(&[90.0, 110.0, 100.0, 95.0, 105.0], Quantity::NonNegative);
        let interval = Some((s.low_95(), s.high_95()));
        let p = |value, tolerance| Some(Published { value, tolerance, source: "" });
        assert_eq!(verdict(interval, &s, p(100.0, None), Method::FullGames), "yes");
        assert_eq!(verdict(interval, &s, p(120.0, Some(0.2)), Method::FullGames), "overlap");
        assert_eq!(verdict(interval, &s, p(200.0, None), Method::FullGames), "no (x0.50)");
        assert_eq!(verdict(interval, &s, None, Method::FullGames), "n/a");
        assert_eq!(verdict(interval, &s, p(100.0, None), Method::PieceCap(10)), "n/a (capped)");
    }

    #[test]
    fn kinds_and_widths() {
        let planned = |preset, board, method| Planned {
            measurement: Measurement {
                preset,
                board,
                method,
                metric: Metric::Rows,
                quick: 1,
                full: 1,
                published: None,
            },
            count: 1,
            board,
            overridden: false,
        };
        assert_eq!(kind(&planned("dellacherie", None, Method::FullGames)), "full");
        assert_eq!(kind(&planned("bcts", Some((10, 10)), Method::FullGames)), "reduced");
        assert_eq!(kind(&planned("bcts", Some((10, 20)), Method::FullGames)), "full");
        assert_eq!(kind(&planned("bcts", Some((10, 20)), QUICK_HEIGHTS)), "estimate");
        assert_eq!(kind(&planned("lee", None, Method::PieceCap(5))), "capped");
        assert_eq!(kind(&planned("etetris", None, Method::FullGames)), "search");
        assert_eq!(times(1.84), "x1.8");
        assert_eq!(times(2_500.0), "x2,500");
        assert_eq!(times(3.2e18), "x3e18");
        assert_eq!(figure_text(35_000_000.0), "35.0 M");
        assert_eq!(figure_text(5_200_000.0), "5,200,000");
    }

    #[test]
    fn height_seeds_differ_by_height_and_seed() {
        let seeds: Vec<u64> = (8..=16).flat_map(|h| [height_seed(1, h), height_seed(2, h)]).collect();
        let mut unique = seeds.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), seeds.len());
    }

    #[test]
    fn every_plan_line_names_a_spec_preset_and_runs_somewhere() {
        let spec = [
            "dellacherie",
            "dellacherie-simplified",
            "el-tetris",
            "bcts",
            "dt-10",
            "dt-20",
            "bdu",
            "lee",
            "pygame-lee",
            "erikko",
            "etetris",
        ];
        for m in PLAN {
            assert!(spec.contains(&m.preset), "{}", m.preset);
            assert!(m.quick > 0 || m.full > 0, "{} runs in no mode", m.preset);
        }
        for name in spec {
            assert!(PLAN.iter().any(|m| m.preset == name && m.quick > 0), "{name} missing from --quick");
        }
    }

    #[test]
    fn full_games_are_sized_from_the_published_figure_or_a_scaled_one() {
        let find = |preset, height, method| {
            *PLAN
                .iter()
                .find(|m| m.preset == preset && m.board.map(|b| b.1) == Some(height) && m.method == method)
                .unwrap()
        };
        let planned = |m: Measurement| Planned { measurement: m, count: 10, board: m.board, overridden: false };
        let bcts = find("bcts", 10, Method::FullGames);
        assert_eq!(expected_pieces(&planned(bcts), 10, 10), Some(10.0 * 3_800.0 * 2.5));
        // Dellacherie has no 10x10 figure: 5.2 M on 10x20 scaled down by 2.5^10.
        let dellacherie = find("dellacherie-simplified", 10, Method::FullGames);
        let expected = 10.0 * 5_200_000.0 / 2.5f64.powi(10) * 2.5;
        assert!((expected_pieces(&planned(dellacherie), 10, 10).unwrap() / expected - 1.0).abs() < 1e-9);
    }

    #[test]
    fn a_resumed_run_is_estimated_from_the_games_left() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::open(&dir.path().join("ledger.csv")).unwrap();
        let bcts =
            *PLAN.iter().find(|m| m.preset == "bcts" && matches!(m.method, Method::Extrapolated { .. })).unwrap();
        let Method::Extrapolated { lowest, highest } = bcts.method else { unreachable!() };
        let planned = Planned { measurement: bcts, count: 4, board: bcts.board, overridden: false };
        let whole = expected_pieces(&planned, 10, 20).unwrap();
        let fresh = remaining_pieces(&planned, 10, 20, 7, &ledger);
        assert_eq!((fresh.finished, fresh.planned), (0, 4 * (highest - lowest + 1) as u64));
        assert!((fresh.pieces.unwrap() / whole - 1.0).abs() < 1e-12);
        // Three of the four games of the top height are done: three quarters of its share go.
        let record =
            sim::GameRecord { seed: 1, lines: 1, pieces: 1, score: 0, end: sim::GameEnd::GameOver, level: None };
        let key = Games::key("bcts", &format!("10x{highest}"), height_seed(7, highest), GameLimits::default());
        for game in [0, 1, 3] {
            ledger.append(&key, game, &record).unwrap();
        }
        let top = Planned {
            measurement: Measurement { method: Method::Extrapolated { lowest: highest, highest }, ..bcts },
            ..planned
        };
        let top_share = expected_pieces(&top, 10, 20).unwrap();
        let left = remaining_pieces(&planned, 10, 20, 7, &ledger);
        assert_eq!(left.finished, 3);
        assert!((left.pieces.unwrap() - (whole - 0.75 * top_share)).abs() < 1e-6 * whole);
        // Another seed's games are other games.
        assert_eq!(remaining_pieces(&planned, 10, 20, 8, &ledger).finished, 0);
        // Full games: done when every game is in the ledger.
        let full = *PLAN
            .iter()
            .find(|m| m.preset == "bcts" && m.method == Method::FullGames && m.full > 0 && m.board == Some((10, 20)))
            .expect("--full plays BCTS on the published board");
        let planned = Planned { measurement: full, count: 2, board: full.board, overridden: false };
        let key = Games::key("bcts", "10x20", 7, GameLimits::default());
        assert_eq!(remaining_pieces(&planned, 10, 20, 7, &ledger).finished, 0);
        ledger.append(&key, 0, &record).unwrap();
        ledger.append(&key, 1, &record).unwrap();
        let done = remaining_pieces(&planned, 10, 20, 7, &ledger);
        assert_eq!((done.finished, done.planned, done.pieces), (2, 2, Some(0.0)));
    }
}
