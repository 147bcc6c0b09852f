//! `tetris-lab watch`: watches one game of any preset. Placement games (and the guideline
//! game with `--gif`/`--png`) are drawn move by move from the one game loop
//! ([`crate::view::game`]); the guideline game is otherwise drawn frame by frame as its
//! key-press AI plays it, optionally writing a frames file. `--replay` replays a game trace
//! (`play --trace`) or a frames file, checking it on the way.

use super::pictures::{check_delay, PictureArgs, Screen};
use crate::board::parse_size;
use crate::guideline::ai::AiPlayer;
use crate::guideline::frames::{replay_frame, FramesFile, FramesWriter};
use crate::guideline::game::{check_start_level, Game};
use crate::guideline::view::render;
use crate::interrupt::stop_on_ctrl_c;
use crate::presets::{self, Built};
use crate::sim::{self, GameLimits};
use crate::support::atomic_file::AtomicFile;
use crate::view::game::{summary, watch_game, MoveShot, Scene};
use crate::view::trace::Trace;
use anyhow::{bail, Context, Result};
use clap::Args;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Duration;

/// The default pause between two pictures: a frame of the guideline game (about real
/// time), a move of a placement game.
const FRAME_DELAY_MS: u64 = 16;
const MOVE_DELAY_MS: u64 = 200;

#[derive(Args, Debug)]
pub struct WatchArgs {
    /// Preset to watch (see `tetris-lab list`). A replay takes its game from the file.
    #[arg(long, default_value = "pygame-lee", conflicts_with = "replay")]
    pub preset: String,
    /// Replace the preset's weights with those in this TOML file (e.g. a run's best.toml).
    #[arg(long, conflicts_with = "replay")]
    pub weights: Option<PathBuf>,
    /// Play the preset's evaluator and policy under another rule set.
    #[arg(long, conflicts_with = "replay")]
    pub rules: Option<String>,
    /// Board size WxH (rule sets that allow it, e.g. `simplified`).
    #[arg(long, value_parser = parse_size, conflicts_with = "replay")]
    pub board: Option<(usize, usize)>,
    /// Master seed, as `play --seed` [default: 1]. The guideline game's frame view takes it
    /// as the game's own seed unless --game is given.
    #[arg(long, conflicts_with = "replay")]
    pub seed: Option<u64>,
    /// Watch game I of `play --seed S` (from 0) [default: 0].
    #[arg(long, conflicts_with = "replay")]
    pub game: Option<u64>,
    /// Starting level of the guideline game, 1..=30 [default: 1].
    #[arg(long, conflicts_with = "replay")]
    pub level: Option<u32>,
    /// Write the guideline game frame by frame to this file (format: docs/guideline.md).
    #[arg(long)]
    pub frames: Option<PathBuf>,
    /// Replay a game trace (`play --trace`) or a frames file, checking it on the way.
    #[arg(long)]
    pub replay: Option<PathBuf>,
    /// Pause between pictures in milliseconds [default: 16 a frame of the guideline game,
    /// 200 a move otherwise]; 0 draws only the end.
    #[arg(long)]
    pub delay_ms: Option<u64>,
    /// Stop after this many pieces have locked.
    #[arg(long)]
    pub max_pieces: Option<u64>,
    #[command(flatten)]
    pub pictures: PictureArgs,
}

pub fn run(args: WatchArgs) -> Result<()> {
    if let Some(delay) = args.delay_ms {
        check_delay("--delay-ms", delay)?;
    }
    if args.max_pieces == Some(0) {
        bail!("--max-pieces must be at least 1");
    }
    args.pictures.check()?;
    let [gif, png] = args.pictures.outputs();
    crate::support::atomic_file::check_distinct(
        &[gif, png, ("--frames", args.frames.as_deref())],
        &[("the --replay file", args.replay.as_deref()), ("the --weights file", args.weights.as_deref())],
    )?;
    let draws_pictures = args.pictures.gif.is_some() || args.pictures.png.is_some() || args.pictures.all_frames;
    if let Some(path) = &args.replay {
        let text =
            std::fs::read(path).with_context(|| format!("cannot read frames file or game trace {}", path.display()))?;
        if Trace::is_trace(&String::from_utf8_lossy(&text)) {
            if args.frames.is_some() {
                bail!("--frames: {} is a game trace; frames files are written from the guideline game", path.display());
            }
            return replay_trace(&args, path);
        }
        if draws_pictures {
            bail!("--gif, --png and --all-frames draw traces and games, not frames files ({})", path.display());
        }
        let file = FramesFile::read(path)?;
        let title = format!("tetris-lab watch · replay of {}", path.display());
        return frame_view(&args, file.new_game(), Source::Replay(file.frames.into_iter()), title);
    }
    let preset = presets::find(&args.preset)?;
    let built = preset.build_with_rules(args.rules.as_deref(), args.board, args.weights.as_deref())?;
    let master_seed = args.seed.unwrap_or(1);
    match &built.frame {
        Some(frame) if !draws_pictures => {
            let level = args.level.unwrap_or(1);
            check_start_level(level).context("--level")?;
            // The frame view plays the seed itself, as frames files record it; --game
            // plays the batch's game, as `play` seeds it.
            let seed = match args.game {
                Some(index) => sim::batch_game_seed(built.driver(), master_seed, index),
                None => master_seed,
            };
            let player = AiPlayer::new(frame.evaluator.clone(), seed);
            let game_text = args.game.map(|i| format!(" · game {i} of seed {master_seed}")).unwrap_or_default();
            let title = format!("tetris-lab watch · {} · seed {seed}{game_text} · start level {level}", preset.name);
            frame_view(
                &args,
                Game::with_spawn_frame(seed, level, frame.spawn_frame),
                Source::Ai(Box::new(player)),
                title,
            )
        }
        _ => {
            if args.level.is_some_and(|l| l != 1) {
                bail!("--level: only the guideline game's frame view starts above level 1 (without --gif, --png, --all-frames)");
            }
            if let Some(path) = &args.frames {
                bail!("--frames {}: frames files are written by the guideline game's frame view (preset pygame-lee, without --gif, --png, --all-frames)", path.display());
            }
            let index = args.game.unwrap_or(0);
            let board = built.rules.new_board();
            let title = format!(
                "tetris-lab watch · {} · {} {}x{} · seed {master_seed} game {index}",
                preset.name,
                built.rules.name(),
                board.width(),
                board.height()
            );
            let limits = GameLimits { max_pieces: args.max_pieces };
            let delay = args.delay_ms.unwrap_or(MOVE_DELAY_MS);
            let mut screen = Screen::new(&args.pictures, delay, true);
            let scene = Scene::of(&built, title);
            let mut last: Option<MoveShot> = None;
            let record = watch_game(&built, master_seed, index, limits, &mut |shot| {
                if screen.wants(shot.record.index) {
                    screen.show(shot.record.index, scene.picture(shot));
                }
                last = Some(*shot);
            });
            screen.finish(last.map(|shot| scene.picture(&shot)))?;
            println!("{}", summary(index, &record));
            Ok(())
        }
    }
}

/// `watch --replay TRACE`: plays the traced game again, drawing each move, and stops with
/// an error naming the line at the first move that differs.
fn replay_trace(args: &WatchArgs, path: &Path) -> Result<()> {
    let trace = Trace::read(path)?;
    let built: Built = trace.build().with_context(|| format!("in trace file {}", path.display()))?;
    let game = &trace.game;
    let title = format!(
        "tetris-lab watch · replay of {} · {} · {} {}x{} · seed {} game {}",
        path.display(),
        game.preset,
        game.rules,
        game.board.0,
        game.board.1,
        game.seed,
        game.game
    );
    let scene = Scene::of(&built, title);
    let mut screen = Screen::new(&args.pictures, args.delay_ms.unwrap_or(MOVE_DELAY_MS), true);
    let mut last: Option<MoveShot> = None;
    let cap = args.max_pieces.unwrap_or(u64::MAX);
    let record = trace
        .replay(&built, &mut |shot| {
            if shot.record.index < cap {
                if screen.wants(shot.record.index) {
                    screen.show(shot.record.index, scene.picture(shot));
                }
                last = Some(*shot);
            }
        })
        .with_context(|| format!("in trace file {}", path.display()))?;
    screen.finish(last.map(|shot| scene.picture(&shot)))?;
    println!("{}", summary(game.game, &record));
    Ok(())
}

/// Where each frame's keys come from.
enum Source {
    Ai(Box<AiPlayer>),
    Replay(std::vec::IntoIter<crate::guideline::frames::FrameLine>),
}

/// The guideline game drawn frame by frame (as before game traces): the AI's keys or a
/// frames file's, optionally written to a frames file.
fn frame_view(args: &WatchArgs, mut game: Game, mut source: Source, title: String) -> Result<()> {
    let delay_ms = args.delay_ms.unwrap_or(FRAME_DELAY_MS);
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
    let delay = Duration::from_millis(delay_ms);
    // Ctrl-C stops the game like --max-pieces does, so the frames file is still written
    // (whole, with its closing line) instead of left as a temporary.
    // The loop stops within a frame, so a second press has nothing to hurry (and exiting
    // at once would leave the frames file's temporary behind).
    let stop = stop_on_ctrl_c("Ctrl-C: stopping after this frame", None);
    while !game.is_over()
        && args.max_pieces.is_none_or(|cap| (game.pieces() as u64) < cap)
        && !stop.load(Ordering::SeqCst)
    {
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
        if delay_ms > 0 {
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
    if delay_ms == 0 {
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
