//! `tetris-lab best`: the placement a preset's policy chooses on each board of a file.

use super::boards::read_boards;
use super::features::format_number;
use crate::piece::Piece;
use crate::policy::{GameView, Scratch};
use crate::presets;
use crate::rules::HoldRule;
use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use std::io::Write;
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Format {
    Text,
    Csv,
}

#[derive(Args, Debug)]
pub struct BestArgs {
    #[arg(long)]
    pub preset: String,
    /// The current piece (I, O, T, S, Z, J, L).
    #[arg(long)]
    pub piece: String,
    /// Preview pieces, next first (repeat the option).
    #[arg(long)]
    pub preview: Vec<String>,
    /// The piece in the hold slot, for rule sets with hold.
    #[arg(long)]
    pub hold: Option<String>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Replace the preset's weights with those in this TOML file.
    #[arg(long)]
    pub weights: Option<PathBuf>,
    /// Board file.
    pub file: PathBuf,
}

pub fn run(args: BestArgs) -> Result<()> {
    let preset = presets::find(&args.preset)?;
    let built = preset.build(None, args.weights.as_deref())?;
    let current = Piece::parse(&args.piece).context("--piece")?;
    let preview = args.preview.iter().map(|p| Piece::parse(p).context("--preview")).collect::<Result<Vec<_>>>()?;
    let hold = args.hold.as_deref().map(|p| Piece::parse(p).context("--hold")).transpose()?;
    let rules = built.rules.as_ref();
    // Pieces the policy would not look at: refused, since the answer would silently be the
    // same as without them.
    let policy_name = crate::policy::kind_name(preset.policy);
    if hold.is_some() && !(preset.policy.uses_hold() && rules.hold() != HoldRule::None) {
        bail!(
            "--hold: preset {} (policy {policy_name}, rules {}) does not use a hold piece",
            preset.name,
            rules.name()
        );
    }
    if !preview.is_empty() && !preset.policy.uses_preview() {
        bail!("--preview: preset {} (policy {policy_name}) looks at the current piece only", preset.name);
    }
    let read = preset.policy.previews_read();
    if preview.len() > read {
        bail!(
            "--preview given {} times: preset {} (policy {policy_name}) looks at {read} preview piece only",
            preview.len(),
            preset.name
        );
    }
    let boards = read_boards(&args.file, &rules.new_board())?;
    let mut scratch = Scratch::default();
    let mut text_out = std::io::stdout().lock();
    let mut csv = matches!(args.format, Format::Csv).then(|| csv::Writer::from_writer(std::io::stdout()));
    if let Some(w) = csv.as_mut() {
        w.write_record(["board", "piece", "hold", "orientation", "column", "score"])?;
    }
    for (name, board) in &boards {
        let view = GameView { board, current, preview: &preview, hold, can_hold: rules.hold() != HoldRule::None };
        let decision = built.policy.choose(rules, &view, &mut scratch);
        match (decision, csv.as_mut()) {
            (None, Some(w)) => w.write_record([name.as_str(), &current.to_string(), "", "", "", ""])?,
            (None, None) => writeln!(text_out, "board {name}: piece {current}: no placement possible (game over)\n")?,
            (Some(d), Some(w)) => w.write_record([
                name.clone(),
                d.placement.piece.to_string(),
                if d.hold { "yes" } else { "no" }.into(),
                d.placement.orientation.to_string(),
                d.placement.column.to_string(),
                format_number(d.value),
            ])?,
            (Some(d), None) => {
                let mut after = *board;
                let outcome = rules.lock(&mut after, &d.placement);
                writeln!(
                    text_out,
                    "board {name}: piece {} hold {} orientation {} column {} score {}{}",
                    d.placement.piece,
                    if d.hold { "yes" } else { "no" },
                    d.placement.orientation,
                    d.placement.column,
                    format_number(d.value),
                    if outcome.info.rows_cleared > 0 {
                        format!(" ({} rows cleared)", outcome.info.rows_cleared)
                    } else {
                        String::new()
                    }
                )?;
                let rows = after.max_height().max(board.max_height()).max(1) + 1;
                writeln!(text_out, "{}", after.to_text(Some(rows.min(after.height()))))?;
            }
        }
    }
    if let Some(mut w) = csv {
        w.flush()?;
    }
    Ok(())
}
