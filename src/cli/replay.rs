//! `tetris-lab replay FILE`: replays an E-Tetris record under the game's rules and prints
//! `pieces=<n> score=<s>`. The record may be bare (`N,C1,L3,D17,...`) or the contest's
//! JavaScript line (`game.playRecord('...')`).

use crate::etetris::record::{replay, Record};
use anyhow::{Context, Result};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The record file.
    pub file: PathBuf,
}

pub fn run(args: Args) -> Result<()> {
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("cannot read record file {}", args.file.display()))?;
    let record = Record::parse(&text).with_context(|| format!("record file {}", args.file.display()))?;
    let result = replay(&record);
    println!("pieces={} score={}", result.pieces, result.score);
    Ok(())
}
