//! Frames files: a guideline game written frame by frame, so it can be replayed (and
//! checked) later with `tetris-lab watch --replay FILE`.
//!
//! The format is plain text, one frame per line:
//! ```text
//! # tetris-lab guideline frames v1
//! seed 1 level 1 rules guideline
//! # frame keys piece rotation x y lines level score
//! 1 - T 0 4 20 0 1 0
//! 2 cw T R 4 20 0 1 0
//! 3 hard - - - - 0 1 36
//! # end block-out pieces 212 lines 80 level 9 score 31337
//! ```
//! - Lines starting with `#` are comments; blank lines are ignored. The last is the end
//!   line, `# end ...`, which says how the game stopped: a file without one was cut short
//!   and is refused, and so is a frame after it.
//! - The first other line is the header: `seed S level L rules R` (L in 1..=30; R is
//!   `guideline` or `guideline-gravity-first`; without `rules R`, `guideline`).
//! - Then one line per frame, frames numbered from 1 without gaps. `keys` is `-` (none held)
//!   or key names joined by `+`: `left`, `right`, `cw`, `ccw`, `soft`, `hard`, `hold`.
//!   Unknown names are an error.
//! - The optional seven columns after the keys are the state after the frame: the piece in
//!   play (letter, rotation `0`/`R`/`2`/`L`, centre column and row, rows counted from the
//!   floor; `- - - -` when the piece locked on this frame), lines, level and score. When
//!   present, a replay checks them and stops at the first difference.

use super::game::{check_start_level, Game, Keys, SpawnFrame};
use anyhow::{bail, Context, Result};
use std::io::Write;
use std::path::Path;

pub const MAGIC: &str = "# tetris-lab guideline frames v1";

/// Writes a game as it is played.
pub struct FramesWriter<W: Write> {
    out: W,
}

impl<W: Write> FramesWriter<W> {
    pub fn new(mut out: W, game: &Game) -> Result<FramesWriter<W>> {
        writeln!(out, "{MAGIC}")?;
        writeln!(out, "seed {} level {} rules {}", game.seed(), game.start_level(), game.spawn_frame().rule_set())?;
        writeln!(out, "# frame keys piece rotation x y lines level score")?;
        Ok(FramesWriter { out })
    }

    /// Records the frame just stepped with `keys`.
    pub fn frame(&mut self, game: &Game, keys: Keys) -> Result<()> {
        writeln!(self.out, "{} {} {}", game.frame(), keys, state_text(game))?;
        Ok(())
    }

    /// Writes the closing comment and flushes.
    pub fn finish(mut self, game: &Game) -> Result<()> {
        let end = game.game_over().map(|g| g.name()).unwrap_or("stopped");
        writeln!(
            self.out,
            "# end {end} pieces {} lines {} level {} score {}",
            game.pieces(),
            game.lines(),
            game.level(),
            game.score()
        )?;
        self.out.flush()?;
        Ok(())
    }
}

/// The state columns of a frame line.
pub fn state_text(game: &Game) -> String {
    let piece = match game.active() {
        Some(p) => format!("{} {} {} {}", p.piece, p.rotation.name(), p.x, p.y),
        None => "- - - -".to_string(),
    };
    format!("{piece} {} {} {}", game.lines(), game.level(), game.score())
}

/// One frame read back from a file.
#[derive(Clone, Debug, PartialEq)]
pub struct FrameLine {
    /// 1-based line number in the file, for error messages.
    pub line_number: usize,
    pub keys: Keys,
    /// The recorded state columns, if present, whitespace-normalised.
    pub state: Option<String>,
}

/// A frames file read back.
#[derive(Clone, Debug, PartialEq)]
pub struct FramesFile {
    pub seed: u64,
    pub start_level: u32,
    pub spawn_frame: SpawnFrame,
    pub frames: Vec<FrameLine>,
}

impl FramesFile {
    /// The game the file was recorded from, before its first frame.
    pub fn new_game(&self) -> Game {
        Game::with_spawn_frame(self.seed, self.start_level, self.spawn_frame)
    }

    pub fn read(path: &Path) -> Result<FramesFile> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("cannot read frames file {}", path.display()))?;
        FramesFile::parse(&text).with_context(|| format!("in frames file {}", path.display()))
    }

    pub fn parse(text: &str) -> Result<FramesFile> {
        let mut header: Option<(u64, u32, SpawnFrame)> = None;
        let mut frames = Vec::new();
        // The `# end ...` line `FramesWriter::finish` writes: a file without it was cut short.
        let mut end_line: Option<usize> = None;
        for (index, raw) in text.lines().enumerate() {
            let line_number = index + 1;
            let line = raw.trim();
            if line == "# end" || line.starts_with("# end ") {
                end_line = Some(line_number);
                continue;
            }
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(end) = end_line {
                bail!("line {line_number}: a frame after the end line (line {end}): the game was over");
            }
            let fields: Vec<&str> = line.split_whitespace().collect();
            if header.is_none() {
                header = Some(
                    parse_header(&fields)
                        .with_context(|| format!("line {line_number}: {}", crate::names::Quoted(line)))?,
                );
                continue;
            }
            let expected = frames.len() + 1;
            let frame: usize = fields[0]
                .parse()
                .with_context(|| format!("line {line_number}: frame number {:?} is not a number", fields[0]))?;
            if frame != expected {
                bail!("line {line_number}: frame {frame} where frame {expected} was expected (frames are numbered from 1 without gaps)");
            }
            let Some(keys_text) = fields.get(1) else {
                bail!("line {line_number}: frame {frame} has no keys (use - for none)");
            };
            let keys = Keys::parse(keys_text).with_context(|| format!("line {line_number}"))?;
            let state = match fields.len() {
                2 => None,
                9 => Some(fields[2..].join(" ")),
                n => bail!("line {line_number}: {n} columns; a frame line has 2 (frame, keys) or 9 (with the state)"),
            };
            frames.push(FrameLine { line_number, keys, state });
        }
        let Some((seed, start_level, spawn_frame)) = header else {
            bail!("no header line (expected `seed S level L rules R`)");
        };
        if end_line.is_none() {
            bail!(
                "no end line (`# end ...`, which `watch --frames` writes when the game stops): the file is cut short"
            );
        }
        Ok(FramesFile { seed, start_level, spawn_frame, frames })
    }
}

fn parse_header(fields: &[&str]) -> Result<(u64, u32, SpawnFrame)> {
    let (fields, spawn_frame) = match fields {
        [start @ .., "rules", name] => match SpawnFrame::of_rule_set(name) {
            Some(spawn_frame) => (start, spawn_frame),
            None => bail!(
                "rules {name:?}: frames files are for {} or {}",
                SpawnFrame::KeysAct.rule_set(),
                SpawnFrame::GravityOnly.rule_set()
            ),
        },
        _ => (fields, SpawnFrame::KeysAct),
    };
    match fields {
        ["seed", seed, "level", level] => {
            let seed = seed.parse().with_context(|| format!("seed {seed:?} is not a number"))?;
            let level = level.parse().with_context(|| format!("level {level:?} is not a number"))?;
            check_start_level(level)?;
            Ok((seed, level, spawn_frame))
        }
        _ => bail!("expected the header `seed S level L rules R`"),
    }
}

/// Steps `game` with a recorded frame and checks the recorded state, if any.
pub fn replay_frame(game: &mut Game, frame: &FrameLine) -> Result<()> {
    if game.is_over() {
        bail!("line {}: the game is already over ({})", frame.line_number, game.game_over().unwrap().name());
    }
    game.step(frame.keys);
    if let Some(recorded) = &frame.state {
        let replayed = state_text(game);
        if *recorded != replayed {
            bail!(
                "line {}: the replayed game differs from the recorded one: recorded `{recorded}`, replayed `{replayed}`",
                frame.line_number
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guideline::ai::AiPlayer;

    fn recorded_game(pieces: u32, spawn_frame: SpawnFrame) -> (String, Game) {
        let mut game = Game::with_spawn_frame(8, 12, spawn_frame);
        let mut player = AiPlayer::new(crate::presets::find("pygame-lee").unwrap().evaluator().unwrap(), 8);
        let mut buffer = Vec::new();
        let mut writer = FramesWriter::new(&mut buffer, &game).unwrap();
        while game.pieces() < pieces && !game.is_over() {
            let keys = player.keys_for_next_frame(&game);
            game.step(keys);
            writer.frame(&game, keys).unwrap();
        }
        writer.finish(&game).unwrap();
        (String::from_utf8(buffer).unwrap(), game)
    }

    #[test]
    fn a_written_game_replays_to_the_same_state() {
        for spawn_frame in [SpawnFrame::KeysAct, SpawnFrame::GravityOnly] {
            let (text, original) = recorded_game(12, spawn_frame);
            let file = FramesFile::parse(&text).unwrap();
            assert_eq!(file.spawn_frame, spawn_frame);
            replays_to(&file, &original);
        }
    }

    fn replays_to(file: &FramesFile, original: &Game) {
        assert_eq!((file.seed, file.start_level), (8, 12));
        assert_eq!(file.frames.len() as u64, original.frame());
        let mut game = file.new_game();
        for frame in &file.frames {
            replay_frame(&mut game, frame).unwrap();
        }
        assert_eq!(game.board(), original.board());
        assert_eq!(game.score(), original.score());
    }

    #[test]
    fn a_tampered_state_is_reported_with_its_line() {
        let (text, _) = recorded_game(3, SpawnFrame::KeysAct);
        // Change the recorded keys of the first hard drop to nothing: the piece no longer
        // locks there, so the recorded state differs on that line.
        let line = text.lines().position(|l| l.split_whitespace().nth(1) == Some("hard")).unwrap();
        let tampered: Vec<String> = text
            .lines()
            .enumerate()
            .map(|(i, l)| if i == line { l.replacen("hard", "-", 1) } else { l.to_string() })
            .collect();
        let file = FramesFile::parse(&tampered.join("\n")).unwrap();
        let mut game = file.new_game();
        let error = file.frames.iter().try_for_each(|f| replay_frame(&mut game, f)).unwrap_err().to_string();
        assert!(error.contains(&format!("line {}:", line + 1)) && error.contains("differs"), "{error}");
    }

    #[test]
    fn unknown_keys_and_bad_headers_are_errors() {
        let e = FramesFile::parse("seed 1 level 1\n1 -\n2 jump\n").unwrap_err();
        let message = format!("{e:#}");
        assert!(message.contains("line 3") && message.contains("unknown key \"jump\""), "{message}");
        let e = format!("{:#}", FramesFile::parse("seed 1 level 0\n").unwrap_err());
        assert!(e.contains("outside 1..=30"), "{e}");
        let e = format!("{:#}", FramesFile::parse("1 -\n").unwrap_err());
        assert!(e.contains("header"), "{e}");
        let e = format!("{:#}", FramesFile::parse("seed 1 level 1\n1 -\n3 -\n").unwrap_err());
        assert!(e.contains("frame 3 where frame 2"), "{e}");
        // Only frame and keys: valid, replays without checks.
        let file = FramesFile::parse("seed 1 level 1\n1 left+soft\n2 -\n# end stopped\n").unwrap();
        assert_eq!(file.frames[0].keys, Keys::LEFT | Keys::SOFT_DROP);
        assert_eq!(file.frames[1].state, None);
        // Cut short (no end line), or a frame after the end line: refused.
        let e = format!("{:#}", FramesFile::parse("seed 1 level 1\n1 -\n2 -\n").unwrap_err());
        assert!(e.contains("cut short"), "{e}");
        let e = format!("{:#}", FramesFile::parse("seed 1 level 1\n1 -\n# end stopped\n2 -\n").unwrap_err());
        assert!(e.contains("line 4: a frame after the end line"), "{e}");
    }
}
