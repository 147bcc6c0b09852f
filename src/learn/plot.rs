//! Learning curves against samples: one run's curve with its 95% interval, or a study's
//! mean over runs with the band of +-1 standard deviation across runs, and the published
//! points of the curve as crosses. PNG or SVG by the file's extension.

use super::run::Row;
use super::settings::Published;
use crate::tune::plot::{tick_label, Ticked};
use anyhow::{Context, Result};
use plotters::prelude::*;
use std::path::Path;

/// One curve: the policy's mean rows after each iteration, against samples.
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    pub label: String,
    pub samples: Vec<f64>,
    pub mean: Vec<f64>,
    pub low: Vec<f64>,
    pub high: Vec<f64>,
}

impl Curve {
    /// A run's curve, its band the 95% interval of each iteration's score.
    pub fn of_run(label: &str, rows: &[Row]) -> Curve {
        Curve {
            label: label.to_string(),
            samples: rows.iter().map(|r| r.samples as f64).collect(),
            mean: rows.iter().map(|r| r.rows_mean).collect(),
            low: rows.iter().map(|r| r.rows_low).collect(),
            high: rows.iter().map(|r| r.rows_high).collect(),
        }
    }
}

const COLORS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

/// Draws `curves` and the `published` points (of the curve of the same index, or all in
/// black when there is one curve) into `out`.
pub fn draw(curves: &[Curve], published: &[Published], title: &str, out: &Path) -> Result<()> {
    crate::tune::plot::register_font();
    let max_x = curves
        .iter()
        .flat_map(|c| c.samples.iter())
        .chain(published.iter().filter_map(|p| p.samples.as_ref()))
        .fold(1.0f64, |a, b| a.max(*b));
    let max_y = curves
        .iter()
        .flat_map(|c| c.high.iter())
        .chain(published.iter().map(|p| &p.rows))
        .fold(1.0f64, |a, b| a.max(*b));
    let (x_scale, x_unit) = crate::tune::plot::suffix(max_x);
    let x_high = max_x * 1.03 / x_scale;
    let y_high = max_y * 1.08;
    // Labels with the decimals their axis's step needs (2,500 rows; 12.5 M samples).
    let x_step = Ticked::new(0.0, x_high, 10).1;
    let y_step = Ticked::new(0.0, y_high, 10).1;
    let extension = out.extension().and_then(|e| e.to_str()).unwrap_or("png");
    macro_rules! render {
        ($backend:expr) => {{
            let root = $backend.into_drawing_area();
            root.fill(&WHITE)?;
            let mut chart = ChartBuilder::on(&root)
                .caption(title, ("sans-serif", 24))
                .margin(20)
                .x_label_area_size(50)
                .y_label_area_size(80)
                .build_cartesian_2d(Ticked::new(0.0, x_high, 10).0, Ticked::new(0.0, y_high, 10).0)?;
            chart
                .configure_mesh()
                .x_label_formatter(&|x| tick_label(*x, x_step, x_high, f64::INFINITY))
                .y_label_formatter(&|y| tick_label(*y, y_step, y_high, 1e7))
                .x_desc(format!(
                    "samples (calls of the game model){}",
                    if x_unit.is_empty() { String::new() } else { format!(", {x_unit}") }
                ))
                .y_desc("rows per game")
                .label_style(("sans-serif", 15))
                .draw()?;
            for (i, curve) in curves.iter().enumerate() {
                let color = COLORS[i % COLORS.len()];
                let x: Vec<f64> = curve.samples.iter().map(|s| s / x_scale).collect();
                let band: Vec<(f64, f64)> = x
                    .iter()
                    .zip(&curve.high)
                    .map(|(a, b)| (*a, *b))
                    .chain(x.iter().zip(&curve.low).rev().map(|(a, b)| (*a, *b)))
                    .collect();
                chart.draw_series(std::iter::once(Polygon::new(band, color.mix(0.15).filled())))?;
                chart
                    .draw_series(LineSeries::new(
                        x.iter().zip(&curve.mean).map(|(a, b)| (*a, *b)),
                        color.stroke_width(2),
                    ))?
                    .label(curve.label.clone())
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
                chart.draw_series(x.iter().zip(&curve.mean).map(|(a, b)| Circle::new((*a, *b), 3, color.filled())))?;
            }
            let points: Vec<(f64, f64)> =
                published.iter().filter_map(|p| p.samples.map(|s| (s / x_scale, p.rows))).collect();
            if !points.is_empty() {
                chart
                    .draw_series(points.iter().map(|p| Cross::new(*p, 7, BLACK.stroke_width(2))))?
                    .label("published")
                    .legend(|(x, y)| Cross::new((x + 10, y), 6, BLACK.stroke_width(2)));
            }
            let levels: Vec<f64> = published.iter().filter(|p| p.samples.is_none()).map(|p| p.rows).collect();
            for (i, level) in levels.iter().enumerate() {
                let line = chart.draw_series(DashedLineSeries::new(
                    [(0.0, *level), (x_high, *level)],
                    8,
                    6,
                    BLACK.stroke_width(1),
                ))?;
                if i == 0 {
                    line.label("published level (budget not stated)")
                        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK.stroke_width(1)));
                }
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::LowerRight)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .label_font(("sans-serif", 15))
                .draw()?;
            root.present()?;
        }};
    }
    let size = (1000, 640);
    // Drawn into a temporary beside the target, renamed into place when whole.
    let file = crate::support::atomic_file::AtomicFile::create(out)?;
    let path = file.temporary_path().to_path_buf();
    let result: Result<(), Box<dyn std::error::Error>> = (|| {
        match extension {
            "svg" => render!(SVGBackend::new(&path, size)),
            _ => render!(BitMapBackend::new(&path, size)),
        }
        Ok(())
    })();
    result.map_err(|e| anyhow::anyhow!("{e}")).with_context(|| format!("cannot draw {}", out.display()))?;
    file.commit()
}
