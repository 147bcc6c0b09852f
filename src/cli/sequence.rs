//! `tetris-lab sequence etetris [-n N]`: prints a game's fixed piece sequence as
//! `<letter> <state>` lines.

use crate::etetris::game::{Sequence, PIECE_LIMIT};
use anyhow::Result;
use std::io::Write;

/// Games whose piece sequence is fixed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SequenceGame {
    /// The E-Tetris contest: its LCG, states `i mod 4`.
    Etetris,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Which game.
    #[arg(value_enum)]
    pub game: SequenceGame,
    /// How many pieces.
    #[arg(short = 'n', long = "count", default_value_t = PIECE_LIMIT)]
    pub count: usize,
}

pub fn run(args: Args) -> Result<()> {
    crate::limits::check_count("--count", args.count, crate::limits::MAX_SEQUENCE)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    match args.game {
        SequenceGame::Etetris => {
            for spawn in Sequence::default().take(args.count) {
                writeln!(out, "{spawn}")?;
            }
        }
    }
    out.flush()?;
    Ok(())
}
