//! Fitness plots: the best so far (the incumbent as re-evaluated on fresh seeds, with its
//! 95% interval as a band) and each generation's mean fitness, against the work done
//! (pieces simulated). One run or several overlaid, PNG or SVG by the file's extension.
//! PNG text uses DejaVu Sans, bundled by the `dejavu` crate and registered with plotters'
//! `ab_glyph` backend, so no system font is needed.

use anyhow::{bail, Context, Result};
use plotters::prelude::*;
use std::path::Path;

/// One run's curves, read from its `generations.csv` and `manifest.json`.
#[derive(Clone, Debug)]
pub struct Series {
    pub label: String,
    pub experiment: String,
    pub optimizer: String,
    pub fitness: String,
    /// Pieces simulated so far, after each generation.
    pub work: Vec<f64>,
    pub best: Vec<f64>,
    pub best_low: Vec<f64>,
    pub best_high: Vec<f64>,
    pub generation_mean: Vec<f64>,
    /// The best so far is re-measured on fresh games each generation (false where the
    /// experiment turns re-evaluation off, as deterministic E-Tetris campaigns do).
    pub reevaluated: bool,
}

/// Reads a run folder's curves.
pub fn read_run(dir: &Path) -> Result<Series> {
    let path = dir.join("generations.csv");
    let mut reader = csv::Reader::from_path(&path)
        .with_context(|| format!("cannot read {}: is {} a run folder?", path.display(), dir.display()))?;
    let headers = reader.headers().with_context(|| format!("cannot read {}", path.display()))?.clone();
    let column = |name: &str| -> Result<usize> {
        headers.iter().position(|h| h == name).with_context(|| format!("{} has no column {name:?}", path.display()))
    };
    let (work, best, low, high, mean, fitness) = (
        column("pieces")?,
        column("incumbent_mean")?,
        column("incumbent_low")?,
        column("incumbent_high")?,
        column("mean")?,
        column("fitness")?,
    );
    let manifest: serde_json::Value = std::fs::read_to_string(dir.join("manifest.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let text = |key: &str| manifest.get(key).and_then(|v| v.as_str()).unwrap_or("?").to_string();
    let reevaluated = super::experiment::Experiment::parse(&text("experiment_file"), &text("experiment"))
        .map(|e| e.reevaluation_games > 0)
        .unwrap_or(true);
    let mut series = Series {
        label: String::new(),
        experiment: text("experiment"),
        optimizer: text("optimizer"),
        fitness: "fitness".into(),
        work: Vec::new(),
        best: Vec::new(),
        best_low: Vec::new(),
        best_high: Vec::new(),
        generation_mean: Vec::new(),
        reevaluated,
    };
    for (line, record) in reader.records().enumerate() {
        let record = record.with_context(|| format!("{} row {}", path.display(), line + 2))?;
        let number = |i: usize| -> Result<f64> {
            // A non-finite value (or one near f64's ends) would make the axis range
            // non-finite, and drawing it never ends.
            record[i].parse::<f64>().ok().filter(|v| v.is_finite() && v.abs() <= 1e100).with_context(|| {
                format!("{} row {}: {:?} is not a finite number within +-1e100", path.display(), line + 2, &record[i])
            })
        };
        series.work.push(number(work)?);
        series.best.push(number(best)?);
        series.best_low.push(number(low)?);
        series.best_high.push(number(high)?);
        series.generation_mean.push(number(mean)?);
        series.fitness = record[fitness].to_string();
    }
    let run = dir.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    series.label = format!("{} {}", series.optimizer, run);
    Ok(series)
}

/// What the best-so-far curves of `series` are: "best so far, re-evaluated (95% band)"
/// when every run re-measures its incumbent on fresh games.
pub fn describe_best(series: &[Series]) -> &'static str {
    match (series.len(), series.iter().all(|s| s.reevaluated)) {
        (1, true) => "best so far, re-evaluated (95% band)",
        (1, false) => "best so far (95% band of its games)",
        (_, true) => "best so far re-evaluated (95% bands)",
        (_, false) => "best so far",
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

/// Category colors (Tableau 10), distinct for up to ten runs.
const COLORS: [RGBColor; 10] = [
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

/// Short numbers for axes: 1.5k, 2M.
fn human(x: f64) -> String {
    // One decimal below 100 of the unit (1.5k, 12.5), none above (250k).
    let digits = if (x / suffix(x).0).abs() < 100.0 { 1 } else { 0 };
    human_with(x, digits)
}

/// [`human`] with enough decimals that ticks `step` apart read differently (1.25M and
/// 1.3M, not 1.2M twice, on a narrow axis).
fn human_step(x: f64, step: f64) -> String {
    let scale = suffix(x).0;
    let digits = if step > 0.0 { (scale / step).log10().ceil().clamp(0.0, 3.0) as usize } else { 1 };
    human_with(x, digits)
}

fn suffix(x: f64) -> (f64, &'static str) {
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

/// Draws the series into `out` (`.png` or `.svg`).
pub fn draw(series: &[Series], title: &str, out: &Path) -> Result<()> {
    register_font();
    if series.iter().all(|s| s.work.is_empty()) {
        bail!("nothing to plot yet: no generation finished");
    }
    let extension = out.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    let size = (1100, 650);
    // Scores grow about geometrically while tuning: a log axis when they span decades.
    // The decision looks at the curves, not the bands, whose lower ends can be negative.
    let floor = 0.1;
    // Generation means are drawn for a single run only; overlays scale to what they draw.
    let single = series.len() == 1;
    let curves = || {
        series
            .iter()
            .flat_map(|s| s.best.iter().chain(if single { &s.generation_mean[..] } else { &[] }))
            .copied()
            .filter(|v| v.is_finite())
    };
    let bands = || series.iter().flat_map(|s| s.best_low.iter().chain(&s.best_high)).copied().filter(|v| v.is_finite());
    let curve_low = curves().fold(f64::INFINITY, f64::min);
    let curve_high = curves().fold(f64::NEG_INFINITY, f64::max);
    let max_work = series.iter().flat_map(|s| s.work.iter().copied()).fold(1.0, f64::max);
    let logarithmic = curve_low >= 0.0 && curve_high / curve_low.max(floor) > 50.0;
    let (mut low, mut high) = bands().chain(curves()).fold((curve_low, curve_high), |(a, b), v| (a.min(v), b.max(v)));
    if logarithmic {
        low = curve_low.max(floor);
        high *= 1.5;
    } else {
        let pad = ((high - low) * 0.05).max(1e-9);
        low -= pad;
        high += pad;
    }
    // One run: its generation means and a dot per generation too. Several: only the best
    // so far of each, so the chart stays readable.
    // Plotters puts about ten labels on an axis.
    let y_step = (high - low) / 10.0;
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
                .y_label_area_size(80)
                .build_cartesian_2d(0.0..max_work * 1.02, $y)?;
            chart
                .configure_mesh()
                .x_desc("pieces simulated (work done)")
                .y_desc(if logarithmic { format!("{y_label} (log scale)") } else { y_label.to_string() })
                .x_label_formatter(&|x| human(*x))
                .y_label_formatter(&|y| if logarithmic { human(*y) } else { human_step(*y, y_step) })
                .label_style(("sans-serif", 16))
                .axis_desc_style(("sans-serif", 18))
                .light_line_style(WHITE.mix(0.0))
                .bold_line_style(BLACK.mix(0.08))
                .draw()?;
            let clamp = |v: f64| if logarithmic { v.max(floor) } else { v };
            for (i, s) in series.iter().enumerate() {
                let color = COLORS[i % COLORS.len()];
                let mut band: Vec<(f64, f64)> = s.work.iter().zip(&s.best_high).map(|(x, y)| (*x, clamp(*y))).collect();
                band.extend(s.work.iter().zip(&s.best_low).rev().map(|(x, y)| (*x, clamp(*y))));
                chart.draw_series(std::iter::once(Polygon::new(band, color.mix(band_alpha))))?;
                if single {
                    chart
                        .draw_series(LineSeries::new(
                            s.work.iter().zip(&s.generation_mean).map(|(x, y)| (*x, clamp(*y))),
                            color.mix(0.5).stroke_width(2),
                        ))?
                        .label("generation mean")
                        .legend(move |(x, y)| {
                            PathElement::new(vec![(x, y), (x + 24, y)], color.mix(0.5).stroke_width(2))
                        });
                }
                let label = if single {
                    describe_best(series).to_string()
                } else {
                    format!("{} ({} generations)", s.label, s.work.len())
                };
                chart
                    .draw_series(LineSeries::new(
                        s.work.iter().zip(&s.best).map(|(x, y)| (*x, clamp(*y))),
                        color.stroke_width(3),
                    ))?
                    .label(label)
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], color.stroke_width(3)));
                // A dot per generation shows where the measurements are.
                if single && s.work.len() <= 60 {
                    chart.draw_series(
                        s.work.iter().zip(&s.best).map(|(x, y)| Circle::new((*x, clamp(*y)), 3, color.filled())),
                    )?;
                }
            }
            chart
                .configure_series_labels()
                .label_font(("sans-serif", 15))
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK.mix(0.3))
                .position(SeriesLabelPosition::LowerRight)
                .draw()?;
            root.present()?;
        }};
    }
    let result: Result<(), Box<dyn std::error::Error>> = (|| {
        match (extension.as_str(), logarithmic) {
            ("png", true) => render!(BitMapBackend::new(out, size), (low..high).log_scale()),
            ("png", false) => render!(BitMapBackend::new(out, size), low..high),
            ("svg", true) => render!(SVGBackend::new(out, size), (low..high).log_scale()),
            ("svg", false) => render!(SVGBackend::new(out, size), low..high),
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
    fn narrow_axes_get_distinct_labels() {
        let ticks: Vec<String> = (0..8).map(|i| human_step(1_050_000.0 + 50_000.0 * i as f64, 30_000.0)).collect();
        assert_eq!(ticks, ["1.05M", "1.1M", "1.15M", "1.2M", "1.25M", "1.3M", "1.35M", "1.4M"]);
        assert_eq!(human_step(500.0, 400.0), "500");
        assert_eq!(human_step(1500.0, 400.0), "1.5k");
        assert_eq!(human_step(-0.0001, 1.0), "0");
    }
}
