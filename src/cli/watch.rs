//! `tetris-lab watch`: plays the guideline game with the `pygame-lee` AI in the terminal
//! (or replays a frames file), optionally writing every frame to a frames file.

use crate::guideline::ai::AiPlayer;
use crate::guideline::frames::{replay_frame, FramesFile, FramesWriter};
use crate::guideline::game::{check_start_level, Game, SpawnFrame};
use crate::guideline::view::render;
use crate::presets;
use crate::report::atomic_file::AtomicFile;
use anyhow::{bail, Context, Result};
use clap::Args;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The presets `watch` can show: the key-press AI of the guideline game (and its variant).
const WATCHABLE_PRESETS: [&str; 2] = ["pygame-lee", "pygame-lee-gravity-first"];

#[derive(Args, Debug)]
pub struct WatchArgs {
    /// Preset to watch: pygame-lee (or pygame-lee-gravity-first). A replay takes its rules
    /// from the frames file.
    #[arg(long, default_value = "pygame-lee")]
    pub preset: String,
    /// Game seed (piece sequence and tie-breaks) [default: 1].
    #[arg(long, conflicts_with = "replay")]
    pub seed: Option<u64>,
    /// Starting level, 1..=30 [default: 1].
    #[arg(long, conflicts_with = "replay")]
    pub level: Option<u32>,
    /// Write the game frame by frame to this file (format: `guideline::frames`, README).
    #[arg(long)]
    pub frames: Option<PathBuf>,
    /// Replay a frames file instead of letting the AI play; its recorded states are checked.
    #[arg(long)]
    pub replay: Option<PathBuf>,
    /// Pause between frames in milliseconds (16 is about real time); 0 draws only the end.
    #[arg(long, default_value_t = 16)]
    pub delay_ms: u64,
    /// Stop after this many pieces have locked.
    #[arg(long)]
    pub max_pieces: Option<u32>,
}

/// Where each frame's keys come from.
enum Source {
    Ai(Box<AiPlayer>),
    Replay(std::vec::IntoIter<crate::guideline::frames::FrameLine>),
}

pub fn run(args: WatchArgs) -> Result<()> {
    if !WATCHABLE_PRESETS.contains(&args.preset.as_str()) {
        bail!(
            "watch cannot show preset {:?}: it plays the frame-accurate guideline game, whose preset is {}",
            args.preset,
            WATCHABLE_PRESETS.join(", ")
        );
    }
    let preset = presets::find(&args.preset)?;
    if args.delay_ms > crate::limits::MAX_DELAY_MS {
        bail!(
            "--delay-ms {} is more than the limit of {} (ten seconds a frame)",
            args.delay_ms,
            crate::limits::MAX_DELAY_MS
        );
    }
    if args.max_pieces == Some(0) {
        bail!("--max-pieces must be at least 1");
    }
    let (mut game, mut source, title) = match &args.replay {
        Some(path) => {
            let file = FramesFile::read(path)?;
            let title = format!("tetris-lab watch · replay of {}", path.display());
            (file.new_game(), Source::Replay(file.frames.into_iter()), title)
        }
        None => {
            let seed = args.seed.unwrap_or(1);
            let level = args.level.unwrap_or(1);
            check_start_level(level).context("--level")?;
            // The preset's rule set says which spawn-frame rule its games follow.
            let spawn_frame = crate::rules::build(preset.rule_set, None)?.frame_rules().unwrap_or(SpawnFrame::KeysAct);
            let player = AiPlayer::new(preset.evaluator()?, seed);
            let title = format!("tetris-lab watch · {} · seed {seed} · start level {level}", preset.name);
            (Game::with_spawn_frame(seed, level, spawn_frame), Source::Ai(Box::new(player)), title)
        }
    };
    // Written under a temporary name and renamed when the game is over, so a failed replay
    // leaves an existing frames file as it was.
    let mut frames_out = args.frames.as_deref().map(AtomicFile::create).transpose()?;
    let mut writer = match frames_out.as_mut() {
        Some(out) => Some(FramesWriter::new(std::io::BufWriter::new(out.writer()), &game)?),
        None => None,
    };
    let replay_name = args.replay.as_ref().map(|p| p.display().to_string()).unwrap_or_default();
    let stdout = std::io::stdout();
    let is_terminal = stdout.is_terminal();
    let delay = Duration::from_millis(args.delay_ms);
    // Ctrl-C stops the game like --max-pieces does, so the frames file is still written
    // (whole, with its closing line) instead of left as a temporary.
    static STOP: AtomicBool = AtomicBool::new(false);
    let _ = ctrlc::set_handler(|| STOP.store(true, Ordering::SeqCst));
    while !game.is_over() && args.max_pieces.is_none_or(|cap| game.pieces() < cap) && !STOP.load(Ordering::SeqCst) {
        let keys = match &mut source {
            Source::Ai(player) => {
                let keys = player.keys_for_next_frame(&game);
                game.step(keys);
                keys
            }
            Source::Replay(frames) => match frames.next() {
                Some(frame) => {
                    replay_frame(&mut game, &frame).with_context(|| format!("in frames file {replay_name}"))?;
                    frame.keys
                }
                None => break,
            },
        };
        if let Some(w) = writer.as_mut() {
            w.frame(&game, keys)?;
        }
        if args.delay_ms > 0 {
            draw(&mut stdout.lock(), &render(&game, &title), is_terminal)?;
            std::thread::sleep(delay);
        }
    }
    // A frame recorded after the game ended cannot have been played: the file is not a
    // recording of this game.
    if let (Source::Replay(frames), true) = (&mut source, game.is_over()) {
        if let Some(extra) = frames.next() {
            bail!(
                "in frames file {replay_name}: line {}: a frame after the game ended ({}) at frame {}",
                extra.line_number,
                game.game_over().map(|g| g.name()).unwrap_or("over"),
                game.frame()
            );
        }
    }
    if args.delay_ms == 0 {
        draw(&mut stdout.lock(), &render(&game, &title), false)?;
    }
    if let Some(w) = writer.take() {
        w.finish(&game)?;
    }
    // Ends the writer's borrow of the file before it is renamed.
    drop(writer);
    if let Some(out) = frames_out {
        out.commit()?;
    }
    let end = game.game_over().map(|g| format!("topped out ({})", g.name())).unwrap_or_else(|| "stopped".into());
    println!(
        "{end}: level {}, lines {}, score {}, pieces {}, frames {}",
        game.level(),
        game.lines(),
        game.score(),
        game.pieces(),
        game.frame()
    );
    Ok(())
}

/// Draws one picture: in place on a terminal, one after another otherwise.
fn draw(out: &mut impl Write, picture: &str, in_place: bool) -> Result<()> {
    if in_place {
        write!(out, "\x1b[H\x1b[2J")?;
    }
    writeln!(out, "{picture}")?;
    out.flush()?;
    Ok(())
}
