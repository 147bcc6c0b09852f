//! Fitness plots against the work done (pieces simulated): one run, or several overlaid,
//! PNG or SVG by the file's extension. Every curve is named in the legend with the words
//! of the `generations.csv` column it plots, so the plot, the CSV and the README agree:
//! - "incumbent" (`incumbent_mean`, with its 95% band `incumbent_low`..`incumbent_high`):
//!   the best point so far as re-evaluated on fresh games each generation. It can fall,
//!   because a generation's winner was picked on the very games that made it look good;
//! - "generation best so far" (`generation_best_so_far`, one run only): the highest score
//!   a candidate reached on its generation's games, optimistic for that reason;
//! - "generation mean" (`generation_mean`, one run only);
//! - "held-out" (the `tuned` row of `held_out.csv`, once the run has finished): the final
//!   weights on games tuning never saw, a point with its 95% interval at the last x.
//!
//! Log axes are labelled at 1, 2 and 5 times the powers of ten, so values between decades
//! can be read off. Lines and bands are clipped to the plotting area here, not by the
//! backend: the bitmap backend draws points outside the axes, over the margins.
//! PNG text uses DejaVu Sans, bundled by the `dejavu` crate and registered with plotters'
//! `ab_glyph` backend, so no system font is needed.

use anyhow::{bail, Context, Result};
use plotters::prelude::*;
use std::path::Path;

/// One run's curves, read from its `generations.csv`, `manifest.json` and (once it has
/// finished) `held_out.csv`.
#[derive(Clone, Debug)]
pub struct Series {
    pub label: String,
    pub experiment: String,
    pub optimizer: String,
    pub fitness: String,
    /// Pieces simulated so far, after each generation.
    pub work: Vec<f64>,
    pub incumbent: Vec<f64>,
    pub incumbent_low: Vec<f64>,
    pub incumbent_high: Vec<f64>,
    pub generation_mean: Vec<f64>,
    pub generation_best_so_far: Vec<f64>,
    /// The incumbent is re-measured on fresh games each generation (false where the
    /// experiment turns re-evaluation off, as deterministic E-Tetris campaigns do; then
    /// the incumbent is the generation best so far).
    pub reevaluated: bool,
    /// The final weights scored on held-out games; `None` while the run is tuning, and for
    /// runs made before `held_out.csv` existed.
    pub held_out: Option<HeldOut>,
    /// The preset's published weights on the same held-out games, when the run has them.
    pub published: Option<HeldOut>,
}

/// The final weights' held-out score.
#[derive(Clone, Debug, PartialEq)]
pub struct HeldOut {
    pub mean: f64,
    pub low: f64,
    pub high: f64,
    pub games: u64,
    /// How it was measured: "100 unseen games", "beam 1000".
    pub measured_on: String,
}

/// The columns `plot` reads from `generations.csv`, each with the names older runs wrote
/// (before the curves and columns were given the same names).
const WORK: &[&str] = &["pieces"];
const INCUMBENT: &[&str] = &["incumbent_mean"];
const INCUMBENT_LOW: &[&str] = &["incumbent_low"];
const INCUMBENT_HIGH: &[&str] = &["incumbent_high"];
const GENERATION_MEAN: &[&str] = &["generation_mean", "mean"];
const GENERATION_BEST_SO_FAR: &[&str] = &["generation_best_so_far", "best_so_far"];
const FITNESS: &[&str] = &["fitness"];

/// The index of the first of `names` among a CSV's headers.
fn find_column(path: &Path, headers: &csv::StringRecord, names: &[&str]) -> Result<usize> {
    names
        .iter()
        .find_map(|name| headers.iter().position(|h| h == *name))
        .with_context(|| format!("{} has no column {:?}", path.display(), names[0]))
}

/// The run folders directly inside `dir` (those with a `generations.csv`), if any: their
/// count and the newest (the last by name: run folders start with their time).
fn runs_inside(dir: &Path) -> Option<(usize, std::path::PathBuf)> {
    let mut runs: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.join("generations.csv").is_file())
        .collect();
    runs.sort();
    Some((runs.len(), runs.pop()?))
}

/// Reads a run folder's curves.
pub fn read_run(dir: &Path) -> Result<Series> {
    let path = dir.join("generations.csv");
    if !path.is_file() {
        if let Some((count, newest)) = runs_inside(dir) {
            bail!(
                "{} is not a run folder but holds {count} run folder(s): the newest is {} (give it, or several)",
                dir.display(),
                newest.display()
            );
        }
    }
    let mut reader = csv::Reader::from_path(&path)
        .with_context(|| format!("cannot read {}: is {} a run folder?", path.display(), dir.display()))?;
    let headers = reader.headers().with_context(|| format!("cannot read {}", path.display()))?.clone();
    let column = |names| find_column(&path, &headers, names);
    let columns = [WORK, INCUMBENT, INCUMBENT_LOW, INCUMBENT_HIGH, GENERATION_MEAN, GENERATION_BEST_SO_FAR]
        .map(column)
        .into_iter()
        .collect::<Result<Vec<usize>>>()?;
    let fitness = column(FITNESS)?;
    let manifest: serde_json::Value = std::fs::read_to_string(dir.join("manifest.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let text = |key: &str| manifest.get(key).and_then(|v| v.as_str()).unwrap_or("?").to_string();
    let reevaluated = super::experiment::Experiment::parse(&text("experiment_file"), &text("experiment"))
        .map(|e| e.reevaluation_games > 0)
        .unwrap_or(true);
    let mut values: Vec<Vec<f64>> = vec![Vec::new(); columns.len()];
    let mut fitness_name = "fitness".to_string();
    for (line, record) in reader.records().enumerate() {
        let record = record.with_context(|| format!("{} row {}", path.display(), line + 2))?;
        for (&i, list) in columns.iter().zip(&mut values) {
            let value = record.get(i).unwrap_or("");
            // A non-finite value (or one near f64's ends) would make the axis range
            // non-finite, and drawing it never ends.
            list.push(value.parse::<f64>().ok().filter(|v| v.is_finite() && v.abs() <= 1e100).with_context(|| {
                format!(
                    "{} row {}: {} is not a finite number within +-1e100",
                    path.display(),
                    line + 2,
                    crate::names::Quoted(value)
                )
            })?);
        }
        fitness_name = record.get(fitness).unwrap_or("fitness").to_string();
    }
    let [work, incumbent, incumbent_low, incumbent_high, generation_mean, generation_best_so_far]: [Vec<f64>; 6] =
        values.try_into().expect("one list per column");
    let run = dir.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let optimizer = text("optimizer");
    Ok(Series {
        label: format!("{optimizer} {run}"),
        experiment: text("experiment"),
        optimizer,
        fitness: fitness_name,
        work,
        incumbent,
        incumbent_low,
        incumbent_high,
        generation_mean,
        generation_best_so_far,
        reevaluated,
        held_out: read_held_out(dir)?,
        published: read_held_out_row(dir, "published")?,
    })
}

/// The `tuned` row of a run folder's `held_out.csv`, if the run has one.
fn read_held_out(dir: &Path) -> Result<Option<HeldOut>> {
    read_held_out_row(dir, "tuned")
}

/// The `weights` row (`tuned` or `published`) of a run folder's `held_out.csv`, if the run
/// has one: the one reader of that file (`plot` and studies).
pub fn read_held_out_row(dir: &Path, row: &str) -> Result<Option<HeldOut>> {
    let path = dir.join("held_out.csv");
    // A run still tuning, or one made before the file existed: no held-out point.
    if !path.exists() {
        return Ok(None);
    }
    let mut reader = csv::Reader::from_path(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let headers = reader.headers().with_context(|| format!("cannot read {}", path.display()))?.clone();
    let column = |name: &str| find_column(&path, &headers, &[name]);
    let (weights, games, mean, low, high, measured_on) = (
        column("weights")?,
        column("games")?,
        column("mean")?,
        column("low")?,
        column("high")?,
        column("measured_on")?,
    );
    for record in reader.records() {
        let record = record.with_context(|| format!("cannot read {}", path.display()))?;
        if record.get(weights) != Some(row) {
            continue;
        }
        let field = |i: usize| record.get(i).unwrap_or("");
        let number = |i: usize| -> Result<f64> {
            field(i)
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .with_context(|| format!("{}: {:?} is not a finite number", path.display(), field(i)))
        };
        return Ok(Some(HeldOut {
            mean: number(mean)?,
            low: number(low)?,
            high: number(high)?,
            games: field(games).parse().with_context(|| format!("{}: games {:?}", path.display(), field(games)))?,
            measured_on: field(measured_on).to_string(),
        }));
    }
    bail!("{} has no row for the {row} weights", path.display())
}

/// What the incumbent curves of `series` are, in the legend (one run) or the title (an
/// overlay).
pub fn describe_incumbent(series: &[Series]) -> &'static str {
    // A deterministic objective plays one game per candidate: a band of no width.
    let banded = series.iter().any(|s| s.incumbent_low.iter().zip(&s.incumbent_high).any(|(low, high)| low < high));
    match (series.len(), series.iter().all(|s| s.reevaluated), banded) {
        (1, true, _) => "incumbent, re-evaluated on fresh games (95% band)",
        (1, false, true) => "incumbent = generation best so far (95% band of its games)",
        (1, false, false) => "incumbent = generation best so far",
        (_, true, _) => "incumbents re-evaluated on fresh games (95% bands)",
        (_, false, _) => "incumbents",
    }
}

/// The legend text of a held-out point.
fn describe_held_out(h: &HeldOut) -> String {
    // One game (a deterministic objective) has no interval to show.
    if h.games <= 1 || h.low == h.high {
        format!("held-out ({}): {}", h.measured_on, figure(h.mean))
    } else {
        format!(
            "held-out ({}): {}, 95% interval [{}, {}]",
            h.measured_on,
            figure(h.mean),
            figure(h.low),
            figure(h.high)
        )
    }
}

/// Gives every series of a comparison a short distinct label: the optimizer when they
/// differ, else the experiment, else the run.
pub fn label_runs(series: &mut [Series]) {
    let distinct = |key: fn(&Series) -> &str| {
        let mut keys: Vec<&str> = series.iter().map(key).collect();
        keys.sort();
        keys.dedup();
        keys.len() == series.len()
    };
    if distinct(|s| &s.optimizer) {
        series.iter_mut().for_each(|s| s.label = s.optimizer.clone());
    } else if distinct(|s| &s.experiment) {
        series.iter_mut().for_each(|s| s.label = format!("{} ({})", s.experiment, s.optimizer));
    }
}

pub(crate) fn register_font() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular());
        let _ = plotters::style::register_font("sans-serif", FontStyle::Bold, dejavu::sans::bold());
    });
}

/// Category colors (Tableau 10), distinct for up to ten runs (or experiments of a study).
pub(crate) const COLORS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// How the fitness axis of a run's plot is drawn: linear, as the study plots are, unless a
/// logarithmic one is asked for (`plot --log-scale`), for runs whose scores span decades.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scale {
    #[default]
    Linear,
    Logarithmic,
}

/// Ticks for a linear axis from `low` to `high`, at most about `most`: the multiples of a
/// round step (1, 2, 2.5 or 5 times a power of ten) inside the range, and the step.
pub(crate) fn linear_ticks(low: f64, high: f64, most: usize) -> (Vec<f64>, f64) {
    let raw = (high - low) / most.max(1) as f64;
    if !(raw > 0.0 && raw.is_finite()) {
        return (vec![low], 0.0);
    }
    let power = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0].iter().map(|m| m * power).find(|s| *s >= raw * (1.0 - 1e-9)).unwrap_or(raw);
    let (first, last) = ((low / step).ceil() as i64, (high / step).floor() as i64);
    // 0 * step can be -0.0, which would print as "-0".
    (((first..=last).map(|k| k as f64 * step + 0.0)).collect(), step)
}

/// A linear axis whose labels sit on [`linear_ticks`]: plotters' own choice of points
/// cannot be told which step its labels use, and the labels need the step.
pub(crate) struct Ticked {
    range: plotters::coord::types::RangedCoordf64,
    ticks: Vec<f64>,
}

impl Ticked {
    /// The axis from `low` to `high` with at most about `most` labels, and their step.
    pub(crate) fn new(low: f64, high: f64, most: usize) -> (Ticked, f64) {
        let (ticks, step) = linear_ticks(low, high, most);
        (Ticked { range: (low..high).into(), ticks }, step)
    }
}

impl Ranged for Ticked {
    type FormatOption = plotters::coord::ranged1d::DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.range.map(value, limit)
    }

    fn key_points<Hint: plotters::coord::ranged1d::KeyPointHint>(&self, _hint: Hint) -> Vec<f64> {
        self.ticks.clone()
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.range.range()
    }
}

/// A tick label with as many decimals as the axis's step needs, the same for every tick of
/// the axis, so that they read alike (1.300M, 1.305M; 2,500; 0.5M, 1.0M). Values are in
/// millions (M) or billions (G) once the axis's largest value reaches `unit_from`, else
/// whole and grouped by thousands.
pub(crate) fn tick_label(x: f64, step: f64, largest: f64, unit_from: f64) -> String {
    let (scale, unit) = if largest >= unit_from.max(1e9) {
        (1e9, "G")
    } else if largest >= unit_from.max(1e6) {
        (1e6, "M")
    } else {
        (1.0, "")
    };
    let step = step / scale;
    // The fewest decimals that write the step exactly (2.5: one; 0.25: two).
    let decimals =
        (0..9).find(|&d| step <= 0.0 || ((step * 10f64.powi(d)) - (step * 10f64.powi(d)).round()).abs() < 1e-6);
    if x == 0.0 {
        return "0".into();
    }
    let text = crate::support::text::group(x / scale, decimals.unwrap_or(9) as usize);
    format!("{text}{unit}")
}

/// Short numbers for axes: 1.5k, 2M, 0.05.
fn human(x: f64) -> String {
    // One decimal below 100 of the unit (1.5k, 12.5), none above (250k), and below 0.1
    // as many as the first significant digit needs (0.05 on a log axis).
    let scaled = (x / suffix(x).0).abs();
    let digits = if scaled >= 100.0 {
        0
    } else if scaled >= 0.1 || scaled == 0.0 {
        1
    } else {
        ((-scaled.log10()).ceil() as usize).min(9)
    };
    human_with(x, digits)
}

/// A figure for a legend, in full with thousands separated (2,573, 1,307,702); one
/// decimal below 100 (12.5).
fn figure(x: f64) -> String {
    if !x.is_finite() || x.abs() < 100.0 {
        return human_with(x, 1);
    }
    let digits = format!("{:.0}", x.abs());
    let mut text = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            text.push(',');
        }
        text.push(digit);
    }
    if x < 0.0 {
        text.insert(0, '-');
    }
    text
}

/// The unit (1, k, M or G) to print `x` in, and its factor.
pub(crate) fn suffix(x: f64) -> (f64, &'static str) {
    let a = x.abs();
    if a >= 1e9 {
        (1e9, "G")
    } else if a >= 1e6 {
        (1e6, "M")
    } else if a >= 1e3 {
        (1e3, "k")
    } else {
        (1.0, "")
    }
}

/// `x` in its unit with at most `digits` decimals, trailing zeros dropped.
fn human_with(x: f64, digits: usize) -> String {
    let (scale, unit) = suffix(x);
    let mut text = format!("{:.*}", digits, x / scale);
    if text.contains('.') {
        text = text.trim_end_matches('0').trim_end_matches('.').to_string();
    }
    if text == "-0" {
        text = "0".into();
    }
    format!("{text}{unit}")
}

/// A point in data coordinates (pieces, fitness) or in a frame's straight coordinates.
type Point = (f64, f64);

/// The plotting area. Its straight coordinates are those in which the chart's lines are
/// straight: x as is, y as is or its logarithm. Clipping is done in them.
#[derive(Clone, Copy, Debug)]
struct Frame {
    x: (f64, f64),
    y: (f64, f64),
    logarithmic: bool,
}

impl Frame {
    fn straight(&self, (x, y): Point) -> Point {
        if !self.logarithmic {
            return (x, y);
        }
        // The logarithm of 0 or less is minus infinity: one plot height below the bottom
        // edge sends a line through the bottom edge, steeply, as it would go.
        let (bottom, top) = (self.y.0.log10(), self.y.1.log10());
        (x, if y > 0.0 { y.log10() } else { bottom - (top - bottom) })
    }

    fn data(&self, (x, y): Point) -> Point {
        let y = if self.logarithmic { 10f64.powf(y) } else { y };
        // Rounding in the logarithm can put a point on an edge a hair outside it.
        (x.clamp(self.x.0, self.x.1), y.clamp(self.y.0, self.y.1))
    }

    fn corners(&self) -> (Point, Point) {
        (self.straight((self.x.0, self.y.0)), self.straight((self.x.1, self.y.1)))
    }

    fn contains(&self, (x, y): Point) -> bool {
        (self.x.0..=self.x.1).contains(&x) && (self.y.0..=self.y.1).contains(&y)
    }

    /// The parts of a polyline inside the frame; a point that is not a number breaks it.
    fn clip_line(&self, points: &[Point]) -> Vec<Vec<Point>> {
        let (low, high) = self.corners();
        points
            .split(|&(x, y)| !(x.is_finite() && y.is_finite()))
            .flat_map(|run| clip_polyline(&run.iter().map(|&p| self.straight(p)).collect::<Vec<_>>(), low, high))
            .map(|piece| piece.into_iter().map(|p| self.data(p)).collect())
            .collect()
    }

    /// The part of a polygon inside the frame (points that are not numbers left out).
    fn clip_area(&self, points: &[Point]) -> Vec<Point> {
        let (low, high) = self.corners();
        let straight: Vec<Point> =
            points.iter().filter(|(x, y)| x.is_finite() && y.is_finite()).map(|&p| self.straight(p)).collect();
        clip_polygon(&straight, low, high).into_iter().map(|p| self.data(p)).collect()
    }
}

/// The part of segment `a`-`b` inside the rectangle from `low` to `high` (Liang-Barsky),
/// or `None`. Ends inside are returned exactly, so callers can tell whether the segment
/// was cut.
fn clip_segment(a: Point, b: Point, low: Point, high: Point) -> Option<(Point, Point)> {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let (mut enter, mut leave) = (0.0f64, 1.0f64);
    // For each edge: the direction across it and the distance inside it.
    for (direction, inside) in [(-dx, a.0 - low.0), (dx, high.0 - a.0), (-dy, a.1 - low.1), (dy, high.1 - a.1)] {
        if direction == 0.0 {
            if inside < 0.0 {
                return None;
            }
        } else {
            let t = inside / direction;
            if direction < 0.0 {
                enter = enter.max(t);
            } else {
                leave = leave.min(t);
            }
        }
    }
    if enter > leave {
        return None;
    }
    let at = |t: f64| {
        if t <= 0.0 {
            a
        } else if t >= 1.0 {
            b
        } else {
            (a.0 + t * dx, a.1 + t * dy)
        }
    };
    Some((at(enter), at(leave)))
}

/// The parts of a polyline inside the rectangle from `low` to `high`: one piece per stretch
/// inside.
fn clip_polyline(points: &[Point], low: Point, high: Point) -> Vec<Vec<Point>> {
    let inside = |(x, y): Point| (low.0..=high.0).contains(&x) && (low.1..=high.1).contains(&y);
    if let [only] = points {
        return if inside(*only) { vec![vec![*only]] } else { Vec::new() };
    }
    let mut pieces: Vec<Vec<Point>> = Vec::new();
    // Whether the last piece ends at the current point, so the next segment continues it.
    let mut open = false;
    for pair in points.windows(2) {
        match clip_segment(pair[0], pair[1], low, high) {
            None => open = false,
            Some((start, end)) => {
                if !open {
                    pieces.push(vec![start]);
                }
                pieces.last_mut().expect("pushed above").push(end);
                open = end == pair[1];
            }
        }
    }
    pieces
}

/// The part of a polygon inside the rectangle from `low` to `high` (Sutherland-Hodgman:
/// clipped against one edge after the other); empty when nothing is inside.
fn clip_polygon(points: &[Point], low: Point, high: Point) -> Vec<Point> {
    let mut output = points.to_vec();
    // Each edge: the coordinate it bounds (0 for x, 1 for y), where, and whether the
    // inside is above it.
    for (axis, bound, above) in [(0, low.0, true), (0, high.0, false), (1, low.1, true), (1, high.1, false)] {
        let coordinate = |p: Point| if axis == 0 { p.0 } else { p.1 };
        let inside = |p: Point| if above { coordinate(p) >= bound } else { coordinate(p) <= bound };
        // Where segment a-b crosses the edge, exactly on it.
        let cross = |a: Point, b: Point| {
            let t = (bound - coordinate(a)) / (coordinate(b) - coordinate(a));
            if axis == 0 {
                (bound, a.1 + t * (b.1 - a.1))
            } else {
                (a.0 + t * (b.0 - a.0), bound)
            }
        };
        let input = std::mem::take(&mut output);
        for (i, &current) in input.iter().enumerate() {
            let previous = input[(i + input.len() - 1) % input.len()];
            match (inside(previous), inside(current)) {
                (true, true) => output.push(current),
                (true, false) => output.push(cross(previous, current)),
                (false, true) => {
                    output.push(cross(previous, current));
                    output.push(current);
                }
                (false, false) => {}
            }
        }
    }
    output
}

/// A polyline's pieces as separate segments. The bitmap backend outlines a thick polyline
/// as one polygon, which for a zigzag of hundreds of generations crosses itself and is
/// filled in streaks below the line that are not data; a single segment is a plain
/// quadrilateral.
fn segments(pieces: &[Vec<Point>], style: ShapeStyle) -> Vec<PathElement<Point>> {
    pieces
        .iter()
        .flat_map(|piece| piece.windows(2))
        .map(|pair| PathElement::new(vec![pair[0], pair[1]], style))
        .collect()
}

/// Round joints for [`segments`]: a dot as wide as the line at each vertex.
fn joints(pieces: &[Vec<Point>], style: ShapeStyle) -> Vec<Circle<Point, u32>> {
    pieces.iter().flatten().map(|&p| Circle::new(p, style.stroke_width / 2, style.color.filled())).collect()
}

/// `color` as it shows at `opacity` on white, itself opaque: a translucent line drawn as
/// separate segments would be darker where they overlap.
fn faded(color: RGBColor, opacity: f64) -> RGBColor {
    let mix = |c: u8| (f64::from(c) * opacity + 255.0 * (1.0 - opacity)).round() as u8;
    RGBColor(mix(color.0), mix(color.1), mix(color.2))
}

/// A band from `low` to `high` over `work`, as (x, low, high), with the consecutive points
/// less than `bucket` from their group's first merged into one: their mean x, lowest low
/// and highest high, so the band still covers them all. The bitmap backend fills some
/// pixels more than once where several vertices of a polygon share a pixel column, which
/// turns a translucent band over hundreds of generations into dark streaks that are not
/// data.
fn envelope(work: &[f64], low: &[f64], high: &[f64], bucket: f64) -> Vec<(f64, f64, f64)> {
    // The group being merged: its first x, the sum of its x, its size, low and high.
    let mut group: Option<(f64, f64, f64, f64, f64)> = None;
    let mut merged = Vec::new();
    for ((&x, &l), &h) in work.iter().zip(low).zip(high) {
        match &mut group {
            Some((first, sum, count, group_low, group_high)) if x - *first < bucket => {
                *sum += x;
                *count += 1.0;
                *group_low = group_low.min(l);
                *group_high = group_high.max(h);
            }
            _ => {
                if let Some((_, sum, count, l, h)) = group {
                    merged.push((sum / count, l, h));
                }
                group = Some((x, x, 1.0, l, h));
            }
        }
    }
    if let Some((_, sum, count, l, h)) = group {
        merged.push((sum / count, l, h));
    }
    merged
}

/// Tick values for a log axis from `low` to `high`: 1, 2 and 5 times each power of ten, so
/// values between decades can be read off; when those would be more than `most`, 1 and 3
/// times, then the powers of ten, then every second, third, ... power.
fn log_ticks(low: f64, high: f64, most: usize) -> Vec<f64> {
    if !(low > 0.0 && high > low && most > 0) {
        return Vec::new();
    }
    let (first, last) = (low.log10().floor() as i32, high.log10().ceil() as i32);
    // Dividing for negative powers gives the nearest double to 0.2, 0.05, ...
    let value = |multiple: f64, power: i32| {
        if power >= 0 {
            multiple * 10f64.powi(power)
        } else {
            multiple / 10f64.powi(-power)
        }
    };
    let within = |v: &f64| *v >= low * (1.0 - 1e-12) && *v <= high * (1.0 + 1e-12);
    for multiples in [&[1.0, 2.0, 5.0][..], &[1.0, 3.0], &[1.0]] {
        let ticks: Vec<f64> =
            (first..=last).flat_map(|k| multiples.iter().map(move |&m| value(m, k))).filter(within).collect();
        if ticks.len() <= most {
            return ticks;
        }
    }
    let decades = (last - first + 1) as usize;
    let step = decades.div_ceil(most) as i32;
    (first..=last).filter(|k| k.rem_euclid(step) == 0).map(|k| value(1.0, k)).filter(within).collect()
}

/// Draws the series into `out` (`.png` or `.svg`).
pub fn draw(series: &[Series], title: &str, out: &Path, scale: Scale) -> Result<()> {
    register_font();
    if series.iter().all(|s| s.work.is_empty()) {
        bail!("nothing to plot yet: no generation finished");
    }
    let extension = out.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    let size = (1100, 650);
    // One run: its generation means, generation best so far and a dot per generation too.
    // Several: only the incumbent of each, so the chart stays readable; the axes scale to
    // what is drawn.
    let single = series.len() == 1;
    let curves = || {
        series
            .iter()
            .flat_map(|s| {
                let mean: &[f64] = if single { &s.generation_mean } else { &[] };
                // Without re-evaluation the incumbent is the generation best so far.
                let so_far: &[f64] = if single && s.reevaluated { &s.generation_best_so_far } else { &[] };
                let published = if single { s.published.as_ref().map(|h| &h.mean) } else { None };
                s.incumbent
                    .iter()
                    .chain(mean)
                    .chain(so_far)
                    .chain(s.held_out.as_ref().map(|h| &h.mean))
                    .chain(published)
            })
            .copied()
            .filter(|v| v.is_finite())
    };
    let bands = || {
        series
            .iter()
            .flat_map(|s| {
                s.incumbent_low.iter().chain(&s.incumbent_high).chain(s.held_out.iter().flat_map(|h| [&h.low, &h.high]))
            })
            .copied()
            .filter(|v| v.is_finite())
    };
    // A log axis only where asked for and the curves are positive. The ranges look at the
    // curves; bands reach as far as they go, but not below 0 where every curve is above it
    // (a band of a mean of counts can reach below 0; the rows cannot).
    let floor = 0.1;
    let curve_low = curves().fold(f64::INFINITY, f64::min);
    let curve_high = curves().fold(f64::NEG_INFINITY, f64::max);
    let max_work = series.iter().flat_map(|s| s.work.iter().copied()).fold(1.0, f64::max);
    let logarithmic = scale == Scale::Logarithmic && curve_high > 0.0;
    let (mut low, mut high) = bands().chain(curves()).fold((curve_low, curve_high), |(a, b), v| (a.min(v), b.max(v)));
    // The legend goes in the upper right, above the data: room for its lines (about 22
    // pixels each of the plotting area's 520) is kept free at the top.
    let legend_lines = if single {
        3 + usize::from(series.iter().any(|s| s.published.is_some()))
            + usize::from(series.iter().any(|s| s.held_out.is_some()))
    } else {
        series.len()
    };
    let legend_share = ((legend_lines as f64 * 22.0 + 30.0) / 520.0).min(0.6);
    if logarithmic {
        // Room below the lowest curve for its dots; bands reaching lower are clipped.
        low = curve_low.max(floor) / 1.5;
        high = 10f64.powf(low.log10() + (high * 1.2 / low).log10() / (1.0 - legend_share));
    } else {
        if curve_low >= 0.0 {
            low = low.max(0.0);
        }
        // A margin on both sides, so that a curve on 0 is not hidden by the axis.
        let pad = ((high - low) * 0.04).max(1e-9);
        low -= pad;
        high = low + (high + pad - low) / (1.0 - legend_share);
    }
    let frame = Frame { x: (0.0, max_work * 1.02), y: (low, high), logarithmic };
    // About one label per 30 pixels of the plotting area's height.
    let ticks = log_ticks(low, high, 16);
    let (x_axis, x_step) = Ticked::new(frame.x.0, frame.x.1, 10);
    let y_step = linear_ticks(low, high, 10).1;
    let largest = low.abs().max(high.abs());
    let band_alpha = if single { 0.15 } else { 0.07 };
    let fitness = series.first().map(|s| s.fitness.clone()).unwrap_or_default();
    let y_label = match fitness.as_str() {
        "rows" => "rows cleared per game",
        "score" => "score per game",
        "turns" => "pieces placed per game",
        _ => "fitness",
    };
    macro_rules! render {
        ($root:expr, $y:expr) => {{
            let root = $root.into_drawing_area();
            root.fill(&WHITE)?;
            let mut chart = ChartBuilder::on(&root)
                .caption(title, ("sans-serif", 26))
                .margin(20)
                .x_label_area_size(50)
                .y_label_area_size(100)
                .build_cartesian_2d(Ticked { range: x_axis.range.clone(), ticks: x_axis.ticks.clone() }, $y)?;
            chart
                .configure_mesh()
                .x_desc("pieces simulated (work done)")
                .y_desc(if logarithmic { format!("{y_label} (log scale)") } else { y_label.to_string() })
                .x_label_formatter(&|x| tick_label(*x, x_step, frame.x.1, 1e6))
                .y_label_formatter(&|y| if logarithmic { human(*y) } else { tick_label(*y, y_step, largest, 1e7) })
                .label_style(("sans-serif", 16))
                .axis_desc_style(("sans-serif", 18))
                .light_line_style(WHITE.mix(0.0))
                .bold_line_style(BLACK.mix(0.08))
                .draw()?;
            // Two pixels, in pieces simulated.
            let bucket = 2.0 * (frame.x.1 - frame.x.0) / f64::from(chart.plotting_area().dim_in_pixel().0.max(1));
            for (i, s) in series.iter().enumerate() {
                let color = COLORS[i % COLORS.len()];
                let points =
                    |values: &[f64]| -> Vec<Point> { s.work.iter().copied().zip(values.iter().copied()).collect() };
                let merged = envelope(&s.work, &s.incumbent_low, &s.incumbent_high, bucket);
                let mut band: Vec<Point> = merged.iter().map(|&(x, _, high)| (x, high)).collect();
                band.extend(merged.iter().rev().map(|&(x, low, _)| (x, low)));
                let band = frame.clip_area(&band);
                if band.len() >= 3 {
                    chart.draw_series(std::iter::once(Polygon::new(band, color.mix(band_alpha))))?;
                }
                if single {
                    let style = faded(color, 0.5).stroke_width(2);
                    let pieces = frame.clip_line(&points(&s.generation_mean));
                    chart.draw_series(joints(&pieces, style))?;
                    chart
                        .draw_series(segments(&pieces, style))?
                        .label("generation mean")
                        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], style));
                }
                // The published weights' held-out score: the level tuning is measured against.
                if let (true, Some(published)) = (single, &s.published) {
                    let gray = RGBColor(90, 90, 90);
                    let dash = (frame.x.1 - frame.x.0) / 80.0;
                    let dashes = (0..80).step_by(2).flat_map(|i| {
                        let x = frame.x.0 + i as f64 * dash;
                        frame.clip_line(&[(x, published.mean), (x + dash, published.mean)])
                    });
                    chart
                        .draw_series(
                            dashes.map(|piece| PathElement::new(piece, gray.stroke_width(2))).collect::<Vec<_>>(),
                        )?
                        .label(format!("published weights on the same held-out games: {}", figure(published.mean)))
                        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 10, y)], gray.stroke_width(2)));
                }
                if single && s.reevaluated {
                    let style = COLORS[1].stroke_width(2);
                    let pieces = frame.clip_line(&points(&s.generation_best_so_far));
                    chart.draw_series(joints(&pieces, style))?;
                    chart
                        .draw_series(segments(&pieces, style))?
                        .label("generation best so far (on the games that picked it)")
                        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], style));
                }
                let label = if single {
                    describe_incumbent(series).to_string()
                } else {
                    let held_out =
                        s.held_out.as_ref().map(|h| format!(", {}", describe_held_out(h))).unwrap_or_default();
                    format!("{} ({} generations){held_out}", s.label, s.work.len())
                };
                let style = color.stroke_width(3);
                let pieces = frame.clip_line(&points(&s.incumbent));
                chart.draw_series(joints(&pieces, style))?;
                chart
                    .draw_series(segments(&pieces, style))?
                    .label(label)
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], style));
                // A dot per generation shows where the measurements are.
                if single && s.work.len() <= 60 {
                    chart.draw_series(
                        points(&s.incumbent)
                            .into_iter()
                            .filter(|p| frame.contains(*p))
                            .map(|p| Circle::new(p, 3, color.filled())),
                    )?;
                }
                // The held-out score at the last x: a diamond with its 95% interval as an
                // error bar, black on one run's plot, the run's color in an overlay.
                if let (Some(h), Some(&x)) = (&s.held_out, s.work.last()) {
                    let marker = if single { BLACK } else { color };
                    let bar = marker.stroke_width(2);
                    chart.draw_series(
                        frame.clip_line(&[(x, h.low), (x, h.high)]).into_iter().map(|p| PathElement::new(p, bar)),
                    )?;
                    chart.draw_series(
                        [(x, h.low), (x, h.high)]
                            .into_iter()
                            .filter(|p| frame.contains(*p))
                            .map(|p| EmptyElement::at(p) + PathElement::new(vec![(-7, 0), (7, 0)], bar)),
                    )?;
                    let diamond =
                        chart.draw_series(std::iter::once((x, h.mean)).filter(|p| frame.contains(*p)).map(|p| {
                            EmptyElement::at(p) + Polygon::new(vec![(0, -7), (7, 0), (0, 7), (-7, 0)], marker.filled())
                        }))?;
                    if single {
                        diamond.label(describe_held_out(h)).legend(move |(x, y)| {
                            Polygon::new(
                                vec![(x + 12, y - 7), (x + 19, y), (x + 12, y + 7), (x + 5, y)],
                                marker.filled(),
                            )
                        });
                    }
                }
            }
            chart
                .configure_series_labels()
                .label_font(("sans-serif", 15))
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK.mix(0.3))
                .position(SeriesLabelPosition::UpperRight)
                .draw()?;
            root.present()?;
        }};
    }
    let result: Result<(), Box<dyn std::error::Error>> = (|| {
        let log_axis = || (low..high).log_scale().with_key_points(ticks.clone());
        match (extension.as_str(), logarithmic) {
            ("png", true) => render!(BitMapBackend::new(out, size), log_axis()),
            ("png", false) => render!(BitMapBackend::new(out, size), Ticked::new(low, high, 10).0),
            ("svg", true) => render!(SVGBackend::new(out, size), log_axis()),
            ("svg", false) => render!(SVGBackend::new(out, size), Ticked::new(low, high, 10).0),
            _ => return Err(format!("plot file {} must end in .png or .svg", out.display()).into()),
        }
        Ok(())
    })();
    result.map_err(|e| anyhow::anyhow!("cannot draw {}: {e}", out.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_numbers() {
        assert_eq!(human(0.0), "0");
        assert_eq!(human(1500.0), "1.5k");
        assert_eq!(human(2_000_000.0), "2M");
        assert_eq!(human(250_000.0), "250k");
        assert_eq!(human(12.5), "12.5");
        assert_eq!(human(1_250_000.0), "1.2M");
    }

    #[test]
    fn ticks_are_round_and_read_alike() {
        let (ticks, step) = linear_ticks(0.0, 9_000.0, 10);
        assert_eq!(step, 1000.0);
        assert_eq!(ticks.len(), 10);
        let (ticks, step) = linear_ticks(1_300_000.0, 1_324_000.0, 10);
        assert_eq!(step, 2500.0);
        let labels: Vec<String> = ticks.iter().map(|&t| tick_label(t, step, 1_324_000.0, 1e7)).collect();
        assert_eq!(labels[..3], ["1,300,000", "1,302,500", "1,305,000"]);
        // In millions, every label with the step's decimals: never 1.3M beside 1.305M.
        let labels: Vec<String> = ticks.iter().map(|&t| tick_label(t, step, 1_324_000.0, 1e6)).collect();
        assert_eq!(labels[..3], ["1.3000M", "1.3025M", "1.3050M"]);
        let (ticks, step) = linear_ticks(0.0, 5_500_000.0, 12);
        let labels: Vec<String> = ticks.iter().map(|&t| tick_label(t, step, 5_500_000.0, 1e6)).collect();
        assert_eq!(
            labels,
            ["0", "0.5M", "1.0M", "1.5M", "2.0M", "2.5M", "3.0M", "3.5M", "4.0M", "4.5M", "5.0M", "5.5M"]
        );
        let (ticks, _) = linear_ticks(-120.0, 3_400.0, 10);
        assert_eq!(ticks.first(), Some(&0.0));
        assert!(!tick_label(-0.0, 500.0, 3_400.0, 1e7).starts_with('-'));
    }

    #[test]
    fn small_numbers_keep_their_first_digit() {
        assert_eq!(human(0.5), "0.5");
        assert_eq!(human(0.05), "0.05");
        assert_eq!(human(0.002), "0.002");
    }

    #[test]
    fn legend_figures_are_grouped_by_thousands() {
        assert_eq!(figure(2573.4), "2,573");
        assert_eq!(figure(1_307_702.0), "1,307,702");
        assert_eq!(figure(999.6), "1,000");
        assert_eq!(figure(-12_345.0), "-12,345");
        assert_eq!(figure(123.0), "123");
        assert_eq!(figure(12.46), "12.5");
    }

    #[test]
    fn log_ticks_are_one_two_five_times_powers_of_ten() {
        assert_eq!(
            log_ticks(0.67, 13_500.0, 16),
            [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1e3, 2e3, 5e3, 1e4]
        );
        // Ends on a tick are kept; below 1 the ticks are the nearest doubles to 0.1, 0.2, 0.5.
        assert_eq!(log_ticks(0.1, 2.0, 16), [0.1, 0.2, 0.5, 1.0, 2.0]);
        assert_eq!(log_ticks(150.0, 4000.0, 16), [200.0, 500.0, 1e3, 2e3]);
        // Too many for the room: 1 and 3, then the powers alone, then every other power.
        assert_eq!(log_ticks(1.0, 1e6, 16), [1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1e3, 3e3, 1e4, 3e4, 1e5, 3e5, 1e6]);
        assert_eq!(log_ticks(1.0, 1e9, 16), [1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9]);
        assert_eq!(log_ticks(1.0, 1e9, 5), [1.0, 100.0, 1e4, 1e6, 1e8]);
        assert!(log_ticks(0.0, 10.0, 16).is_empty());
    }

    #[test]
    fn segments_are_cut_at_the_edges() {
        let (low, high) = ((0.0, 0.0), (10.0, 10.0));
        // Inside: unchanged. Outside: nothing.
        assert_eq!(clip_segment((1.0, 1.0), (9.0, 2.0), low, high), Some(((1.0, 1.0), (9.0, 2.0))));
        assert_eq!(clip_segment((11.0, 1.0), (12.0, 20.0), low, high), None);
        assert_eq!(clip_segment((-5.0, 1.0), (-1.0, 2.0), low, high), None);
        // From (2, 4) down to (4, -4): leaves through the bottom at x = 3.
        assert_eq!(clip_segment((2.0, 4.0), (4.0, -4.0), low, high), Some(((2.0, 4.0), (3.0, 0.0))));
        // Through the whole frame, from the left edge at y = 5 to the right edge at y = 10.
        assert_eq!(clip_segment((-10.0, 0.0), (20.0, 15.0), low, high), Some(((0.0, 5.0), (10.0, 10.0))));
        // Passing outside the top left corner (y = 11 at x = 0), and just inside it.
        assert_eq!(clip_segment((-2.0, 8.0), (2.0, 14.0), low, high), None);
        assert_eq!(clip_segment((-1.0, 8.0), (8.0, 17.0), low, high), Some(((0.0, 9.0), (1.0, 10.0))));
    }

    #[test]
    fn polylines_split_where_they_leave_the_frame() {
        let (low, high) = ((0.0, 0.0), (10.0, 10.0));
        let line = [(0.0, 5.0), (2.0, 5.0), (4.0, 15.0), (6.0, 15.0), (8.0, 5.0), (10.0, 5.0)];
        assert_eq!(
            clip_polyline(&line, low, high),
            [vec![(0.0, 5.0), (2.0, 5.0), (3.0, 10.0)], vec![(7.0, 10.0), (8.0, 5.0), (10.0, 5.0)]]
        );
        assert_eq!(clip_polyline(&[(5.0, 5.0)], low, high), [vec![(5.0, 5.0)]]);
        assert!(clip_polyline(&[(5.0, 50.0)], low, high).is_empty());
    }

    #[test]
    fn dense_bands_are_merged_into_their_envelope() {
        let work = [0.0, 1.0, 2.0, 10.0, 11.0, 30.0];
        let low = [5.0, 4.0, 6.0, 1.0, 2.0, 3.0];
        let high = [7.0, 9.0, 8.0, 3.0, 4.0, 5.0];
        assert_eq!(envelope(&work, &low, &high, 3.0), [(1.0, 4.0, 9.0), (10.5, 1.0, 4.0), (30.0, 3.0, 5.0)]);
        // Points a bucket apart or more are kept as they are.
        let kept: Vec<(f64, f64, f64)> = (0..6).map(|i| (work[i], low[i], high[i])).collect();
        assert_eq!(envelope(&work, &low, &high, 1.0), kept);
    }

    #[test]
    fn polygons_are_cut_to_the_frame() {
        let (low, high) = ((0.0, 0.0), (10.0, 10.0));
        // A band from y = -5 to y = 5 over x = 2..8 keeps its upper half.
        let band = [(2.0, 5.0), (8.0, 5.0), (8.0, -5.0), (2.0, -5.0)];
        let mut clipped = clip_polygon(&band, low, high);
        clipped.sort_by(|a, b| a.partial_cmp(b).unwrap());
        assert_eq!(clipped, [(2.0, 0.0), (2.0, 5.0), (8.0, 0.0), (8.0, 5.0)]);
        assert!(clip_polygon(&[(20.0, 1.0), (30.0, 1.0), (25.0, 5.0)], low, high).is_empty());
    }

    #[test]
    fn log_frames_send_zero_and_below_off_the_bottom() {
        let frame = Frame { x: (0.0, 10.0), y: (1.0, 1000.0), logarithmic: true };
        // From 0 at x = 0 to 100 at x = 6: 0 sits one plot height (3 decades) below the
        // bottom, so the line enters at 3/5 of the way, x = 3.6.
        let pieces = frame.clip_line(&[(0.0, 0.0), (6.0, 100.0)]);
        assert_eq!(pieces.len(), 1);
        let [(x, y), end] = pieces[0][..] else { panic!("{pieces:?}") };
        assert!((x - 3.6).abs() < 1e-9 && y == 1.0, "{pieces:?}");
        assert_eq!(end, (6.0, 100.0));
        // A value that is not a number breaks the line.
        assert_eq!(frame.clip_line(&[(1.0, 10.0), (2.0, f64::NAN), (3.0, 10.0), (4.0, 20.0)]).len(), 2);
        // Bands reaching 0 or below are cut at the bottom edge.
        let area = frame.clip_area(&[(1.0, 100.0), (5.0, 100.0), (5.0, -3.0), (1.0, -3.0)]);
        assert!(area.iter().all(|&p| frame.contains(p)) && area.contains(&(1.0, 1.0)), "{area:?}");
    }

    /// A run folder with a `generations.csv` of two rows under `header`.
    fn run_folder(header: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let row = |g: usize| -> String {
            header
                .iter()
                .enumerate()
                .map(|(i, name)| match *name {
                    "fitness" => "rows".to_string(),
                    _ => format!("{}", 1000 * (g + 1) + i),
                })
                .collect::<Vec<_>>()
                .join(",")
        };
        let text = format!("{}\n{}\n{}\n", header.join(","), row(0), row(1));
        std::fs::write(dir.path().join("generations.csv"), text).unwrap();
        dir
    }

    #[test]
    fn plot_reads_the_columns_of_new_and_old_runs() {
        const OLD: [&str; 14] = [
            "generation",
            "candidates",
            "best",
            "mean",
            "best_so_far",
            "incumbent_mean",
            "incumbent_low",
            "incumbent_high",
            "incumbent_games",
            "evaluations",
            "games",
            "pieces",
            "fitness",
            "seconds",
        ];
        let new = super::super::driver::GENERATION_COLUMNS;
        // Every value tells its row and column apart: 1000 per row plus the column's index.
        let expect = |names: &[&str], name: &str| -> Vec<f64> {
            let i = names.iter().position(|n| *n == name).unwrap() as f64;
            vec![1000.0 + i, 2000.0 + i]
        };
        for (names, mean, so_far) in
            [(&new, "generation_mean", "generation_best_so_far"), (&OLD, "mean", "best_so_far")]
        {
            let dir = run_folder(names);
            let series = read_run(dir.path()).unwrap();
            assert_eq!(series.generation_mean, expect(names, mean));
            assert_eq!(series.generation_best_so_far, expect(names, so_far));
            assert_eq!(series.incumbent, expect(names, "incumbent_mean"));
            assert_eq!(series.work, expect(names, "pieces"));
            assert_eq!(series.fitness, "rows");
            assert_eq!(series.held_out, None);
        }
        // A column neither name gives is an error naming the new name.
        let dir = run_folder(&["generation", "pieces", "incumbent_mean", "incumbent_low", "incumbent_high", "fitness"]);
        let error = format!("{:#}", read_run(dir.path()).unwrap_err());
        assert!(error.contains("\"generation_mean\""), "{error}");
    }

    #[test]
    fn plot_reads_the_held_out_score_the_driver_writes() {
        let dir = run_folder(&super::super::driver::GENERATION_COLUMNS);
        let header = super::super::driver::HELD_OUT_COLUMNS.join(",");
        let text = format!("{header}\npublished,100,2116,1722,2511,100 unseen games,exponential\ntuned,100,2573.5,2109.25,3037.75,100 unseen games,exponential\n");
        std::fs::write(dir.path().join("held_out.csv"), text).unwrap();
        let held_out = read_run(dir.path()).unwrap().held_out.unwrap();
        assert_eq!(
            held_out,
            HeldOut { mean: 2573.5, low: 2109.25, high: 3037.75, games: 100, measured_on: "100 unseen games".into() }
        );
        assert_eq!(describe_held_out(&held_out), "held-out (100 unseen games): 2,574, 95% interval [2,109, 3,038]");
        let one = HeldOut {
            mean: 1_307_702.0,
            low: 1_307_702.0,
            high: 1_307_702.0,
            games: 1,
            measured_on: "beam 1000".into(),
        };
        assert_eq!(describe_held_out(&one), "held-out (beam 1000): 1,307,702");
    }
}
