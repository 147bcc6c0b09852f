//! Options shared by the commands that draw games (`watch`, `replay --watch`): where the
//! pictures go (terminal, GIF, PNG) and how a watched game is printed.

use crate::support::atomic_file::AtomicFile;
use crate::view::{image, text, Picture};
use anyhow::{bail, Result};
use clap::Args;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

#[derive(Args, Debug)]
pub struct PictureArgs {
    /// Print every move's picture one after another (when stdout is not a terminal, or
    /// with --delay-ms 0, only the last one is printed otherwise).
    #[arg(long)]
    pub all_frames: bool,
    /// Write an animated GIF of the game: the moves from --gif-from, at most --gif-frames.
    #[arg(long)]
    pub gif: Option<PathBuf>,
    /// The first move in the GIF (1 = the game's first move).
    #[arg(long, default_value_t = 1, requires = "gif")]
    pub gif_from: u64,
    /// The most moves in the GIF.
    #[arg(long, default_value_t = 100, requires = "gif")]
    pub gif_frames: u64,
    /// Pause between GIF frames in milliseconds (the last frame stays three times as long).
    #[arg(long, default_value_t = 200, requires = "gif")]
    pub gif_delay_ms: u64,
    /// Write the last move's picture as a PNG.
    #[arg(long)]
    pub png: Option<PathBuf>,
}

impl PictureArgs {
    /// Checks the counts and that the files can be written, before any game.
    pub fn check(&self) -> Result<()> {
        crate::limits::check_count("--gif-from", self.gif_from, u64::MAX)?;
        crate::limits::check_count("--gif-frames", self.gif_frames, crate::limits::MAX_GIF_FRAMES)?;
        check_delay("--gif-delay-ms", self.gif_delay_ms)?;
        for (flag, path, extension) in [("--gif", &self.gif, "gif"), ("--png", &self.png, "png")] {
            let Some(path) = path else { continue };
            // The file is written in the flag's format whatever its name: a name that says
            // otherwise is a mistake (`--png game.gif`).
            let named = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
            if named != extension {
                bail!("{flag} {}: the file name must end in .{extension}", path.display());
            }
            AtomicFile::check_writable(path)?;
        }
        Ok(())
    }

    /// The picture files, each with its flag (for [`check_distinct`]; `None` when not asked for).
    ///
    /// [`check_distinct`]: crate::support::atomic_file::check_distinct
    pub fn outputs(&self) -> [(&'static str, Option<&std::path::Path>); 2] {
        [("--gif", self.gif.as_deref()), ("--png", self.png.as_deref())]
    }

    /// Whether move `index` (from 0) goes into the GIF.
    pub fn in_gif(&self, index: u64) -> bool {
        self.gif.is_some() && index + 1 >= self.gif_from && index + 1 - self.gif_from < self.gif_frames
    }
}

/// A pause refused above [`crate::limits::MAX_DELAY_MS`].
pub fn check_delay(flag: &str, delay_ms: u64) -> Result<()> {
    if delay_ms > crate::limits::MAX_DELAY_MS {
        bail!("{flag} {delay_ms} is more than the limit of {} (ten seconds a frame)", crate::limits::MAX_DELAY_MS);
    }
    Ok(())
}

/// Prints pictures as a game goes: redrawn in place on a terminal with a pause, or, when
/// stdout is not a terminal or the pause is 0, only the last one (every one with
/// --all-frames); keeps the GIF's pictures and the last one for the PNG.
pub struct Screen<'a> {
    args: &'a PictureArgs,
    /// Whether the last picture is printed at the end (not when only images are asked).
    text: bool,
    animate: bool,
    delay: Duration,
    last: Option<Picture>,
    gif: Vec<Picture>,
    error: Option<std::io::Error>,
}

impl<'a> Screen<'a> {
    /// `text`: whether pictures go to stdout at all (`replay --gif` without `--watch` only
    /// writes images).
    pub fn new(args: &'a PictureArgs, delay_ms: u64, text: bool) -> Screen<'a> {
        let animate = text && delay_ms > 0 && std::io::stdout().is_terminal();
        Screen { args, text, animate, delay: Duration::from_millis(delay_ms), last: None, gif: Vec::new(), error: None }
    }

    /// Whether move `index` is drawn at all (else the caller need not make its picture).
    pub fn wants(&self, index: u64) -> bool {
        self.animate || self.args.all_frames || self.args.in_gif(index)
    }

    /// Shows move `index`'s picture.
    pub fn show(&mut self, index: u64, picture: Picture) {
        if self.error.is_none() && (self.animate || self.args.all_frames) {
            let mut out = std::io::stdout().lock();
            let drawn = if self.animate {
                write!(out, "\x1b[H\x1b[2J{}", text::render(&picture, true))
            } else {
                writeln!(out, "{}", text::render(&picture, false))
            };
            self.error = drawn.and_then(|_| out.flush()).err();
            if self.animate {
                std::thread::sleep(self.delay);
            }
        }
        if self.args.in_gif(index) {
            self.gif.push(picture.clone());
        }
        self.last = Some(picture);
    }

    /// Prints the last picture (unless every picture was printed), writes the GIF and the
    /// PNG. `last` is the final picture when the caller did not show every move.
    pub fn finish(mut self, last: Option<Picture>) -> Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e.into());
        }
        let last = last.or(self.last.take());
        if let (true, false, false, Some(picture)) = (self.text, self.animate, self.args.all_frames, &last) {
            println!("{}", text::render(picture, false));
        }
        if let Some(path) = &self.args.gif {
            if self.gif.is_empty() {
                bail!("--gif {}: the game has no move {} (--gif-from)", path.display(), self.args.gif_from);
            }
            image::write_gif(path, &self.gif, self.args.gif_delay_ms)?;
            eprintln!("{} moves drawn to {}", self.gif.len(), path.display());
        }
        if let (Some(path), Some(picture)) = (&self.args.png, &last) {
            image::write_png(path, picture)?;
            eprintln!("the last move drawn to {}", path.display());
        }
        Ok(())
    }
}
