//! `tetris-lab extrapolate`: fits the log-mean of full games against the board height and
//! carries it to a taller board (`report::height_games`), from the per-game CSV files of
//! `play --csv` and `reproduce`; the command behind the README's validation table.

use crate::report::height_games::{extrapolate, read_source, Quantity, Request};
use crate::support::stats::t_quantile_95;
use crate::support::text::{figure_text, group};
use anyhow::{bail, Context, Result};
use clap::Args;

#[derive(Args, Debug)]
pub struct ExtrapolateArgs {
    /// Per-game CSV files: `WxH=FILE` for a `play --csv` file (its games' board), or a
    /// file with a `board` column (`reproduce`'s games.csv).
    #[arg(required = true)]
    pub sources: Vec<String>,
    /// The height to carry the line to (games at that height, if any, are compared).
    #[arg(long)]
    pub to: usize,
    /// The lowest height fitted (default: the lowest in the files).
    #[arg(long)]
    pub from: Option<usize>,
    /// The highest height fitted (default: the highest below --to).
    #[arg(long)]
    pub through: Option<usize>,
    /// Only the games of this preset (in files with a `preset` column; a `WxH=FILE` source
    /// without one is taken whole).
    #[arg(long)]
    pub preset: Option<String>,
    /// Only the games of these rows of a `reproduce` table (its games.csv's `measurement`),
    /// e.g. `--row 2,3`: an estimate's heights and the full games at the target.
    #[arg(long, value_delimiter = ',')]
    pub row: Vec<u64>,
    /// What a game's length is counted in: rows or pieces.
    #[arg(long, default_value = "rows")]
    pub metric: String,
}

pub fn run(args: ExtrapolateArgs) -> Result<()> {
    let quantity = Quantity::parse(&args.metric)?;
    let heights = 1..=crate::board::MAX_HEIGHT;
    if !heights.contains(&args.to) {
        bail!("--to {} is not a board height: boards have 1 to {} rows", args.to, crate::board::MAX_HEIGHT);
    }
    for (flag, height) in [("--from", args.from), ("--through", args.through)] {
        if let Some(height) = height.filter(|h| !heights.contains(h)) {
            bail!("{flag} {height} is not a board height: boards have 1 to {} rows", crate::board::MAX_HEIGHT);
        }
    }
    if let Some(name) = &args.preset {
        crate::presets::find(name).context("--preset")?;
    }
    let mut games = Vec::new();
    for source in &args.sources {
        games.extend(read_source(source)?);
    }
    let request = Request {
        target: args.to,
        lowest: args.from,
        highest: args.through,
        preset: args.preset,
        table_rows: args.row,
        quantity,
    };
    let result = extrapolate(&games, &request)?;
    let width = result.width;
    let unit = quantity.name();
    println!("full games by height ({unit}):");
    for sample in &result.samples {
        // The 95% half-width of the mean, as `Summary` gives it.
        let half = t_quantile_95(sample.games - 1) * sample.standard_deviation / (sample.games as f64).sqrt();
        println!(
            "  {width}x{:<3} {:>7} games  mean {:>12}  sd {:>12}  (+-{})",
            sample.height,
            group(sample.games as f64, 0),
            figure_text(sample.mean),
            figure_text(sample.standard_deviation),
            figure_text(half)
        );
    }
    let (growth, growth_low, growth_high) = result.fit.growth_per_row();
    println!(
        "fit over {width}x{}..{width}x{}: x{growth:.3} a row [{growth_low:.3}, {growth_high:.3}], fit p = {:.2}{}",
        result.fit.lowest_height,
        result.fit.highest_height,
        result.fit.fit_p_value,
        if result.fit.dispersion.sqrt() >= 1.005 {
            format!(", interval widened x{:.2} for the scatter", result.fit.dispersion.sqrt())
        } else {
            String::new()
        }
    );
    let p = result.prediction;
    println!(
        "predicted {width}x{}: {} {unit} [{}, {}] (95%, upper end x{:.1} the lower)",
        p.height,
        figure_text(p.mean),
        figure_text(p.low),
        figure_text(p.high),
        p.width_factor()
    );
    if let Some(measured) = result.measured {
        println!(
            "measured  {width}x{}: {} {unit} [{}, {}] ({} full games): {}, x{:.2} the prediction",
            p.height,
            figure_text(measured.mean),
            figure_text(measured.low_95()),
            figure_text(measured.high_95()),
            group(measured.count as f64, 0),
            match result.inside() {
                Some(true) => "inside",
                _ if measured.low_95() <= p.high && p.low <= measured.high_95() => "outside, the intervals overlap",
                _ => "outside, the intervals apart",
            },
            measured.mean / p.mean
        );
    }
    Ok(())
}
