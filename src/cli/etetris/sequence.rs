//! `tetris-lab etetris sequence [--max-pieces N]`: prints the contest's fixed piece
//! sequence as `<letter> <state>` lines (its LCG, states `i mod 4`).

use crate::etetris::game::{Sequence, PIECE_LIMIT};
use anyhow::Result;
use std::io::Write;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// How many pieces.
    #[arg(long, default_value_t = PIECE_LIMIT)]
    pub max_pieces: usize,
}

pub fn run(args: Args) -> Result<()> {
    crate::limits::check_count("--max-pieces", args.max_pieces, crate::limits::MAX_SEQUENCE)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for spawn in Sequence::default().take(args.max_pieces) {
        writeln!(out, "{spawn}")?;
    }
    out.flush()?;
    Ok(())
}
