//! `reproduce`'s measurements: the plan (which preset, board, method and count), the
//! published figures it compares with, and the code that measures one line of the plan
//! (games, Fahey's estimate, or the E-Tetris beam search) and makes its table row. The
//! command (`cli::reproduce`) reads the arguments, prints and writes the files.

use crate::presets::{self, Preset};
use crate::report::fahey;
use crate::report::progress::with_progress;
use crate::report::stats::Summary;
use crate::sim::{self, GameLimits, GameRecord};
use anyhow::Result;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// What to measure: presets (none: all), the mode, and the testing overrides.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    pub presets: Vec<String>,
    /// `--full` rather than `--quick`.
    pub full: bool,
    /// Games in every game measurement.
    pub games: Option<u64>,
    /// Moves in every estimate.
    pub moves: Option<u64>,
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
    /// Fahey's estimate from the stack-height histogram of a fixed number of moves.
    Estimate,
}

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
    /// Games (moves for an estimate) under `--quick`; 0 = not part of `--quick`.
    pub quick: u64,
    /// Games (moves for an estimate) under `--full`; 0 = not part of `--full`.
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
const THIERY_BCTS_10X10: Option<Published> = figure(3_800.0, None, "Thiery-Scherrer, 10x10");

/// Every measurement, in the order of the table. `--quick` (the default) runs the lines
/// with a non-zero `quick`; `--full` those with a non-zero `full`. The 10x10 and 10x16
/// boards are the literature's cheap checks (scores grow about 2.5x per row, so a 10x10
/// game is about 10,000 times shorter than a 10x20 one); Dellacherie's 10x10 and 10x16
/// figures could not be pinned to a source, so they print as n/a rather than a guess.
pub static PLAN: &[Measurement] = &[
    line("dellacherie", None, Method::Estimate, 1_000_000, 20_000_000, FAHEY_DELLACHERIE),
    line("dellacherie", None, Method::FullGames, 0, 56, FAHEY_DELLACHERIE),
    line("dellacherie-simplified", Some((10, 10)), Method::FullGames, 100, 1_000, None),
    // The estimate where full games are cheap too: how far the estimate is from a measurement.
    line("dellacherie-simplified", Some((10, 10)), Method::Estimate, 1_000_000, 20_000_000, None),
    line("dellacherie-simplified", Some((10, 16)), Method::FullGames, 0, 100, None),
    line("dellacherie-simplified", Some((10, 20)), Method::Estimate, 1_000_000, 20_000_000, THIERY_DELLACHERIE),
    line("dellacherie-simplified", Some((10, 20)), Method::FullGames, 0, 100, THIERY_DELLACHERIE),
    line("el-tetris", None, Method::Estimate, 1_000_000, 20_000_000, None),
    line("bcts", Some((10, 10)), Method::FullGames, 100, 1_000, THIERY_BCTS_10X10),
    line("bcts", Some((10, 10)), Method::Estimate, 1_000_000, 20_000_000, THIERY_BCTS_10X10),
    line("bcts", Some((10, 16)), Method::FullGames, 0, 100, None),
    line("bcts", Some((10, 20)), Method::Estimate, 1_000_000, 20_000_000, THIERY_BCTS),
    line("bcts", Some((10, 20)), Method::FullGames, 0, 100, THIERY_BCTS),
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

/// Estimates are split into this many independent streams, whatever the thread count,
/// so that the result depends only on the seed.
pub const ESTIMATE_STREAMS: u64 = 16;

/// Scores grow about 2.5x per board row (`tuning.md`); used only to size `--full`.
const GROWTH_PER_ROW: f64 = 2.5;

/// One row of the output table.
#[derive(Clone, Debug)]
pub struct Row {
    pub preset: String,
    pub rule_set: String,
    pub board: String,
    /// Games played, or moves for an estimate.
    pub count: String,
    pub metric: &'static str,
    pub mean: Option<f64>,
    pub interval: Option<(f64, f64)>,
    pub published: Option<Published>,
    pub verdict: String,
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
    if let Some(moves) = args.moves {
        crate::limits::check_count("--moves", moves, crate::limits::MAX_MOVES)?;
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
            let count = match m.method {
                Method::Estimate => args.moves.unwrap_or(count),
                _ => args.games.unwrap_or(count),
            };
            let overridden = args.board.is_some() && m.board.is_some() && args.board != m.board;
            let board = if m.board.is_some() { args.board.or(m.board) } else { None };
            Some(Planned { measurement: m, count, board, overridden })
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
    let options = Options { beam: BEAM, moves: MoveSet::Seed, weights: Default::default() };
    let score = match crate::etetris::checked::solve_checked(options, PIECE_LIMIT, true) {
        Ok((_, _, replayed)) => replayed.score as f64,
        Err(e) => {
            row.method = format!("not available: {e}");
            return row;
        }
    };
    rule_sets.insert("etetris 10x20".into(), "etetris (contest rules)".into());
    let summary = Summary::of(&[score]);
    row.rule_set = "etetris".into();
    row.board = "10x20".into();
    row.count = planned.count.to_string();
    row.mean = Some(score);
    row.interval = Some((score, score));
    row.verdict = verdict(row.interval, &summary, row.published, Method::FullGames);
    row.method =
        format!("beam search, {BEAM} kept boards, seed moves, published weights; score of the replayed record");
    row.seconds = start.elapsed().as_secs_f64();
    row
}

/// Plays one measurement and makes its table row; a preset that is not in this build or
/// whose rule set does not build becomes a "not available" row.
pub fn measure(
    planned: &Planned,
    seed: u64,
    games_csv: &mut Vec<(String, String, GameRecord)>,
    rule_sets: &mut BTreeMap<String, String>,
) -> Row {
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
        method: String::new(),
        seconds: 0.0,
    };
    if m.preset == "etetris" {
        return measure_etetris(row, planned, rule_sets);
    }
    let Some(preset) = presets::REGISTRY.iter().find(|p| p.name == m.preset) else {
        row.method = "not available: not in this build yet".into();
        return row;
    };
    row.rule_set = preset.rule_set.to_string();
    let built = match preset.build(planned.board, None) {
        Ok(built) => built,
        Err(e) => {
            // The root cause without the list of known names: "unknown rule set "lee"".
            let cause = e.root_cause().to_string();
            row.method = format!("not available: {}", first_line(&cause).split(';').next().unwrap_or(""));
            return row;
        }
    };
    let rules = built.rules.as_ref();
    let board = rules.new_board();
    row.board = format!("{}x{}", board.width(), board.height());
    rule_sets.insert(format!("{} {}", rules.name(), row.board), rules.version().to_string());
    row.method = describe_method(planned, preset);

    let start = Instant::now();
    match m.method {
        Method::FullGames | Method::PieceCap(_) => {
            let limits = GameLimits {
                max_pieces: match m.method {
                    Method::PieceCap(cap) => Some(cap),
                    _ => None,
                },
            };
            let label = format!("{} {} ({} games)", m.preset, row.board, planned.count);
            let records = with_progress(&label, planned.count, false, |pieces, bar| {
                sim::play_batch(built.driver(), seed, planned.count, limits, Some(pieces), &|_| bar.inc(1))
            });
            let values: Vec<f64> = records.iter().map(|r| m.metric.of(r)).collect();
            let summary = Summary::of(&values);
            row.count = planned.count.to_string();
            row.mean = Some(summary.mean);
            row.interval = Some((summary.low_95(), summary.high_95()));
            row.verdict = verdict(Some((summary.low_95(), summary.high_95())), &summary, published, m.method);
            for r in records {
                games_csv.push((m.preset.to_string(), row.board.clone(), r));
            }
        }
        Method::Estimate => {
            let label = format!("{} {} (estimate, {} moves)", m.preset, row.board, planned.count);
            let histogram = with_progress(&label, planned.count, true, |pieces, _| {
                fahey::sample(built.driver(), seed, planned.count, ESTIMATE_STREAMS, Some(pieces))
            });
            row.count = format!("{} moves", group(planned.count as f64, 0));
            let heights = fahey::fit_heights(&histogram, board.height());
            row.method.push_str(&format!(", height histogram {}..{} extrapolated", heights.start(), heights.end()));
            match fahey::estimate(&histogram, board.height(), heights.clone()) {
                Some(e) => {
                    row.mean = Some(e.rows_per_game);
                    row.interval = Some((e.rows_low_95, e.rows_high_95));
                    let summary = Summary::of(&[e.rows_per_game]);
                    row.verdict = verdict(row.interval, &summary, published, m.method);
                }
                None => {
                    row.verdict = "n/a".into();
                    row.method.push_str(&format!(
                        "; no estimate: fewer than 3 heights of {}..{} seen or no decreasing tail",
                        heights.start(),
                        heights.end()
                    ));
                }
            }
            if histogram.games_lost > 0 {
                // Losses seen in the sample give a direct figure too (rows per loss), a
                // check on the extrapolation wherever games are short enough to end.
                row.method.push_str(&format!(
                    "; {} game(s) lost in the sample: {} rows per loss",
                    histogram.games_lost,
                    figure_text(histogram.rows as f64 / histogram.games_lost as f64)
                ));
            }
        }
    }
    row.seconds = start.elapsed().as_secs_f64();
    row
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

/// "full games", "reduced board", "piece cap N", "estimate (Fahey ...)" as the table says it.
fn describe_method(planned: &Planned, preset: &Preset) -> String {
    let mut parts = Vec::new();
    let own_height = crate::rules::build(preset.rule_set, None).map(|r| r.new_board().height()).ok();
    let reduced = planned.board.is_some_and(|(_, h)| own_height.is_some_and(|own| h < own));
    match planned.measurement.method {
        Method::FullGames => parts.push("full games".to_string()),
        Method::PieceCap(cap) => parts.push(format!("piece cap {}", group(cap as f64, 0))),
        Method::Estimate => parts.push("estimate (Fahey)".into()),
    }
    if reduced {
        parts.push("reduced board".into());
    }
    if planned.overridden {
        parts.push("board overridden, published figure not comparable".into());
    }
    if preset.rule_set != "simplified" && planned.board.is_some() {
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
        Method::Estimate => "estimate",
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

/// Expected pieces for a measurement: moves for an estimate, the cap for capped games,
/// and for full games the published rows (or the preset's figure on another board, scaled
/// by 2.5x per row) times `width / 4` pieces per row (4 cells a piece, `width` a row).
pub fn expected_pieces(planned: &Planned, width: usize, height: usize) -> Option<f64> {
    let m = &planned.measurement;
    let games = planned.count as f64;
    match m.method {
        Method::Estimate => Some(games),
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

pub fn duration(seconds: f64) -> String {
    if seconds < 120.0 {
        format!("{seconds:.0} s")
    } else if seconds < 7200.0 {
        format!("{:.0} min", seconds / 60.0)
    } else {
        format!("{:.1} h", seconds / 3600.0)
    }
}

/// `1234567.8` -> `1,234,568` (with `decimals` after the point).
pub fn group(value: f64, decimals: usize) -> String {
    if !value.is_finite() {
        return format!("{value}");
    }
    let text = format!("{:.*}", decimals, value.abs());
    let (whole, fraction) = text.split_once('.').map(|(w, f)| (w, Some(f))).unwrap_or((&text, None));
    let mut grouped = String::new();
    for (i, digit) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    let sign = if value < 0.0 && text.chars().any(|c| c.is_ascii_digit() && c != '0') { "-" } else { "" };
    match fraction {
        Some(f) => format!("{sign}{grouped}.{f}"),
        None => format!("{sign}{grouped}"),
    }
}

/// A figure with one decimal below 100 and none above.
pub fn figure_text(value: f64) -> String {
    group(value, if value.abs() < 100.0 { 1 } else { 0 })
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

pub const HEADERS: [&str; 11] = [
    "preset",
    "rule set",
    "board",
    "games",
    "metric",
    "mean",
    "95% interval",
    "published",
    "inside",
    "how measured",
    "seconds",
];

fn cells(row: &Row) -> [String; 11] {
    [
        row.preset.clone(),
        row.rule_set.clone(),
        row.board.clone(),
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
        ["#", "preset", "board", "metric", "mean", "95% interval", "published", "inside", "seconds"];
    let body: Vec<[String; 9]> = rows
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let c = cells(row);
            [
                (i + 1).to_string(),
                c[0].clone(),
                c[2].clone(),
                c[4].clone(),
                c[5].clone(),
                c[6].clone(),
                c[7].clone(),
                c[8].clone(),
                c[10].clone(),
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

/// `games`, or nothing where the count already names its unit (`1,000,000 moves`).
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
        let s = Summary::of(&[90.0, 110.0, 100.0, 95.0, 105.0]);
        let interval = Some((s.low_95(), s.high_95()));
        let p = |value, tolerance| Some(Published { value, tolerance, source: "" });
        assert_eq!(verdict(interval, &s, p(100.0, None), Method::FullGames), "yes");
        assert_eq!(verdict(interval, &s, p(120.0, Some(0.2)), Method::FullGames), "overlap");
        assert_eq!(verdict(interval, &s, p(200.0, None), Method::FullGames), "no (x0.50)");
        assert_eq!(verdict(interval, &s, None, Method::FullGames), "n/a");
        assert_eq!(verdict(interval, &s, p(100.0, None), Method::PieceCap(10)), "n/a (capped)");
    }

    #[test]
    fn every_plan_line_names_a_spec_preset_and_runs_somewhere() {
        let spec =
            ["dellacherie", "dellacherie-simplified", "el-tetris", "bcts", "lee", "pygame-lee", "erikko", "etetris"];
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
}
