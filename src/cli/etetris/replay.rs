//! `tetris-lab etetris replay FILE`: replays an E-Tetris record under the game's rules and prints
//! `pieces=<n> score=<s>`. The record may be bare (`N,C1,L3,D17,...`) or the contest's
//! JavaScript line (`game.playRecord('...')`). `--watch` draws the replay piece by piece
//! (board, the piece's steps, score); `--gif`/`--png` draw it to images; `--breakdown` adds
//! what the points are made of ([`crate::etetris::breakdown`]).

use crate::cli::pictures::{check_delay, PictureArgs, Screen};
use crate::etetris::breakdown::Breakdown;
use crate::etetris::game::Game;
use crate::etetris::record::{replay_game_observed, Record};
use crate::view::etetris::picture;
use anyhow::{bail, Context, Result};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The record file.
    pub file: PathBuf,
    /// Also print what the points are made of: clears by size and shape, the cells on the
    /// board at each, the stack's height before them, and the I pieces that cleared nothing.
    #[arg(long)]
    pub breakdown: bool,
    /// Draw the replay piece by piece: in place on a terminal, else the last picture.
    #[arg(long)]
    pub watch: bool,
    /// Pause between pieces in milliseconds when watching; 0 draws only the end.
    #[arg(long, default_value_t = 100)]
    pub delay_ms: u64,
    /// Stop drawing after this many pieces (the replay and its result go on to the end).
    #[arg(long)]
    pub max_pieces: Option<u64>,
    #[command(flatten)]
    pub pictures: PictureArgs,
}

pub fn run(args: Args) -> Result<()> {
    check_delay("--delay-ms", args.delay_ms)?;
    if args.max_pieces == Some(0) {
        bail!("--max-pieces must be at least 1");
    }
    args.pictures.check()?;
    crate::support::atomic_file::check_distinct(
        &args.pictures.outputs(),
        &[("the record replayed", Some(&args.file))],
    )?;
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("cannot read record file {}", args.file.display()))?;
    let record = Record::parse(&text).with_context(|| format!("record file {}", args.file.display()))?;
    let draws = args.watch || args.pictures.gif.is_some() || args.pictures.png.is_some() || args.pictures.all_frames;
    let result = if draws {
        let title = format!("tetris-lab etetris replay · {}", args.file.display());
        let text = args.watch || args.pictures.all_frames;
        let mut screen = Screen::new(&args.pictures, args.delay_ms, text);
        let cap = args.max_pieces.unwrap_or(u64::MAX);
        let mut last = None;
        let result = replay_game_observed(&record, Game::default(), &mut |step| {
            let index = step.game.pieces as u64 - 1;
            if index < cap {
                let drawn = picture(&title, step);
                if screen.wants(index) {
                    screen.show(index, drawn.clone());
                }
                last = Some(drawn);
            }
        });
        screen.finish(last)?;
        result
    } else {
        crate::etetris::record::replay(&record)
    };
    println!("pieces={} score={}", result.pieces, result.score);
    let unplayed = record.pieces().saturating_sub(result.pieces as usize);
    if result.is_over && unplayed > 0 {
        // The game ignores what comes after its end; a record that goes on was likely cut
        // together from two, or written for other rules.
        eprintln!(
            "note: the game ended at piece {}; the record's {unplayed} piece(s) after it were not played",
            result.pieces
        );
    }
    if args.breakdown {
        println!("{}", Breakdown::of(&record).report());
    }
    Ok(())
}
