//! `tetris-lab features`: a preset's feature values and evaluator value for every board of
//! a file, as CSV on stdout.

use super::boards::read_boards;
use crate::features::FeatureContext;
use crate::presets;
use anyhow::Result;
use clap::Args;
use std::io::Write;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct FeaturesArgs {
    /// Preset whose features and weights to use.
    #[arg(long)]
    pub preset: String,
    /// Replace the preset's weights with those in this TOML file.
    #[arg(long)]
    pub weights: Option<PathBuf>,
    /// Board file (top row first, `#`/`X` filled, `.` empty, blank line between boards).
    pub file: PathBuf,
}

pub fn run(args: FeaturesArgs) -> Result<()> {
    let preset = presets::find(&args.preset)?;
    let built = preset.build(None, args.weights.as_deref())?;
    let evaluator = built.policy.evaluator();
    let boards = read_boards(&args.file, &built.rules.new_board())?;
    let stdout = std::io::stdout();
    let mut w = csv::Writer::from_writer(stdout.lock());
    let mut header = vec!["board".to_string()];
    header.extend(evaluator.feature_names().iter().map(|s| s.to_string()));
    header.push("score".into());
    w.write_record(&header)?;
    for (name, board) in &boards {
        let mut row = vec![name.clone()];
        row.extend(evaluator.feature_values(board).iter().map(|v| format_number(*v)));
        row.push(format_number(evaluator.value(&FeatureContext::board(board))));
        w.write_record(&row)?;
    }
    w.flush()?;
    std::io::stdout().flush()?;
    Ok(())
}

pub use crate::support::text::format_number;

#[cfg(test)]
mod tests {
    use super::format_number;

    #[test]
    fn numbers_print_without_float_noise() {
        assert_eq!(format_number(-780.5400000000001), "-780.54");
        assert_eq!(format_number(-5.988005000000001), "-5.988005");
        assert_eq!(format_number(-566.5), "-566.5");
        assert_eq!(format_number(12.0), "12");
        assert_eq!(format_number(0.1 + 0.2), "0.3");
        assert_eq!(format_number(3.2178882868487753), "3.21788828685");
    }
}
