//! Reading board files for `features` and `best`: blank-line separated boards, `; name`
//! comments naming them, each checked against the rule set's board size.

use crate::board::{split_board_file, Board};
use anyhow::{Context, Result};
use std::path::Path;

/// Reads every board of `path`, sized like `template`.
pub fn read_boards(path: &Path, template: &Board) -> Result<Vec<(String, Board)>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read board file {}", path.display()))?;
    let blocks = split_board_file(&text);
    if blocks.is_empty() {
        anyhow::bail!("board file {} holds no board", path.display());
    }
    blocks
        .into_iter()
        .map(|(name, body)| {
            let board = Board::parse(&body, Some(template.width()), template.height())
                .with_context(|| format!("board file {}, board {name:?}", path.display()))?;
            Ok((name, board))
        })
        .collect()
}
