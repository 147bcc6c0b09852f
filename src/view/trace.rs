//! Game traces: the moves of one game of the game loop in a text file (`play --trace`),
//! replayed and checked by `watch --replay`.
//!
//! The format, one item per line:
//! ```text
//! # tetris-lab trace v1
//! preset bcts rules simplified board 10x10 seed 1 game 0
//! weights landing_height=-12.63 eroded_cells=6.6 ... rows_with_holes=-24.04
//! # move piece hold orientation column rows score
//! 1 T no 1 4 0 0
//! 2 O no 0 8 1 0
//! end game_over lines 1 pieces 2 score 0
//! ```
//! - The first line is exactly `# tetris-lab trace v1` (a frames file starts otherwise).
//!   Other lines starting with `#` are comments; blank lines are ignored.
//! - The game line names the preset, its rule set, the board (`WxH`), the master seed and
//!   the game's index in the batch: the game is game `game` of `play --seed seed`.
//! - The weights line gives every weight of the preset's evaluator, `feature=weight`
//!   (numbers as written, which read back to the same bits), so the trace replays without
//!   the weights file that played it.
//! - Then one line per move, numbered from 1: the piece placed, `yes` when a hold came
//!   first, the rule set's orientation and column labels (as `best` prints them), the rows
//!   this move cleared and the score after it.
//! - The last line is `end E lines L pieces P score S`, E being `game_over` or
//!   `piece_cap` (the CSV's `end` column).
//!
//! A replay plays the game again with the recorded preset and weights and compares every
//! move with its line: a trace is the record of a controller's game, and a replay checks
//! that the program still plays it move for move.

use super::game::{watch_game, MoveShot};
use crate::eval::Evaluator;
use crate::piece::Piece;
use crate::presets::{self, Built};
use crate::sim::{GameEnd, GameLimits, GameRecord};
use anyhow::{bail, ensure, Context, Result};
use std::io::Write;
use std::path::Path;

/// The first line of every trace.
pub const MAGIC: &str = "# tetris-lab trace v1";

/// The game a trace records.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceGame {
    pub preset: String,
    pub rules: String,
    pub board: (usize, usize),
    /// The master seed and the game's index in its batch.
    pub seed: u64,
    pub game: u64,
    /// Every weight of the preset's evaluator, in its order.
    pub weights: Vec<(String, f64)>,
}

/// One recorded move.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceMove {
    /// 1-based line number in the file, for error messages.
    pub line_number: usize,
    pub text: String,
}

/// A trace read back.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    pub game: TraceGame,
    pub moves: Vec<TraceMove>,
    pub end: GameEnd,
    pub end_line: usize,
    /// The end line's text, normalised.
    pub end_text: String,
}

/// The line of a move: piece, hold, orientation, column, rows cleared, score after.
pub fn move_text(shot: &MoveShot) -> String {
    let placement = &shot.record.placement;
    format!(
        "{} {} {} {} {} {}",
        placement.piece,
        if shot.record.hold { "yes" } else { "no" },
        placement.orientation,
        placement.column,
        shot.outcome.info.rows_cleared,
        shot.score
    )
}

/// The end line of a game.
pub fn end_text(record: &GameRecord) -> String {
    format!("end {} lines {} pieces {} score {}", record.end.as_str(), record.lines, record.pieces, record.score)
}

/// Plays game `index` of `master_seed` of a built preset and writes its trace to `out`.
pub fn write_trace(
    out: &mut dyn Write,
    preset: &str,
    built: &Built,
    master_seed: u64,
    index: u64,
    limits: GameLimits,
) -> Result<GameRecord> {
    let board = built.rules.new_board();
    writeln!(out, "{MAGIC}")?;
    writeln!(
        out,
        "preset {preset} rules {} board {}x{} seed {master_seed} game {index}",
        built.rules.name(),
        board.width(),
        board.height()
    )?;
    let evaluator = built.policy.evaluator();
    let weights: Vec<String> = evaluator.terms.iter().map(|(f, w)| format!("{}={w}", f.name)).collect();
    writeln!(out, "weights {}", weights.join(" "))?;
    writeln!(out, "# move piece hold orientation column rows score")?;
    let mut failure = None;
    let record = watch_game(built, master_seed, index, limits, &mut |shot| {
        if failure.is_none() {
            if let Err(e) = writeln!(out, "{} {}", shot.record.index + 1, move_text(shot)) {
                failure = Some(e);
            }
        }
    });
    if let Some(e) = failure {
        return Err(e.into());
    }
    writeln!(out, "{}", end_text(&record))?;
    out.flush()?;
    Ok(record)
}

impl Trace {
    pub fn read(path: &Path) -> Result<Trace> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("cannot read trace file {}", path.display()))?;
        Trace::parse(&text).with_context(|| format!("in trace file {}", path.display()))
    }

    /// Whether `text` is a trace (its first line is [`MAGIC`]) rather than a frames file.
    pub fn is_trace(text: &str) -> bool {
        text.lines().next().map(str::trim_end) == Some(MAGIC)
    }

    pub fn parse(text: &str) -> Result<Trace> {
        ensure!(Trace::is_trace(text), "line 1: expected {MAGIC:?}");
        let mut game: Option<TraceGame> = None;
        let mut has_weights = false;
        let mut moves = Vec::new();
        let mut end: Option<(GameEnd, usize, String)> = None;
        for (index, raw) in text.lines().enumerate() {
            let line_number = index + 1;
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let at = || format!("line {line_number}");
            let fields: Vec<&str> = line.split_whitespace().collect();
            if let Some((_, end_line, _)) = &end {
                bail!("line {line_number}: a line after the end line (line {end_line})");
            }
            match &mut game {
                None => game = Some(parse_game(&fields).with_context(at)?),
                Some(game) if !has_weights => {
                    game.weights = parse_weights_line(&fields).with_context(at)?;
                    has_weights = true;
                }
                Some(_) if fields[0] == "end" => {
                    end = Some((parse_end(&fields, moves.len()).with_context(at)?, line_number, fields.join(" ")));
                }
                Some(_) => {
                    moves.push(parse_move(&fields, moves.len() + 1, line_number).with_context(at)?);
                }
            }
        }
        let Some(game) = game else { bail!("no game line (expected `preset P rules R board WxH seed S game I`)") };
        ensure!(has_weights, "no weights line (expected `weights feature=weight ...`)");
        let Some((end, end_line, end_text)) = end else {
            bail!("no end line (expected `end game_over|piece_cap lines L pieces P score S`): the trace is cut short")
        };
        Ok(Trace { game, moves, end, end_line, end_text })
    }

    /// The preset the trace names, built with its rule set, board and weights.
    pub fn build(&self) -> Result<Built> {
        let game = &self.game;
        let preset = presets::find(&game.preset)?;
        let names: Vec<&str> = game.weights.iter().map(|(n, _)| n.as_str()).collect();
        let evaluator = preset.evaluator()?;
        let expected = evaluator.feature_names();
        for name in &names {
            if !expected.contains(name) {
                return Err(crate::names::unknown("feature", name, expected.iter().copied()))
                    .context(format!("weights line: preset {} has no feature {name:?}", preset.name));
            }
        }
        let mut weights = Vec::new();
        for name in &expected {
            let Some((_, w)) = game.weights.iter().find(|(n, _)| n == name) else {
                bail!("weights line: no weight for feature {name:?} of preset {}", preset.name);
            };
            weights.push(*w);
        }
        let evaluator: Evaluator = evaluator.with_weights(&weights);
        let built = preset.build_with_evaluator(Some(&game.rules), None, evaluator.clone())?;
        let board = built.rules.new_board();
        if (board.width(), board.height()) == game.board {
            return Ok(built);
        }
        preset.build_with_evaluator(Some(&game.rules), Some(game.board), evaluator)
    }

    /// Plays the recorded game again, calling `on_shot` for every move, and checks every
    /// move and the end against the trace: the first difference is an error naming its line.
    pub fn replay(&self, built: &Built, on_shot: &mut dyn FnMut(&MoveShot)) -> Result<GameRecord> {
        // A game that ended by the rules may not go on: one move more than recorded is
        // allowed, so that a game that does not end shows as a difference at the end line.
        let extra = if self.end == GameEnd::GameOver { 1 } else { 0 };
        let limits = GameLimits { max_pieces: Some(self.moves.len() as u64 + extra) };
        let mut difference: Option<String> = None;
        let record = watch_game(built, self.game.seed, self.game.game, limits, &mut |shot| {
            if difference.is_some() {
                return;
            }
            let Some(recorded) = self.moves.get(shot.record.index as usize) else {
                difference = Some(format!(
                    "line {}: the replayed game goes on after the recorded end (`{}`)",
                    self.end_line, self.end_text
                ));
                return;
            };
            let replayed = move_text(shot);
            if recorded.text != replayed {
                difference = Some(format!(
                    "line {}: the replayed game differs from the recorded one: recorded `{}`, replayed `{replayed}`",
                    recorded.line_number, recorded.text
                ));
                return;
            }
            on_shot(shot);
        });
        if let Some(difference) = difference {
            bail!(difference);
        }
        if let Some(missing) = self.moves.get(record.pieces as usize) {
            bail!(
                "line {}: the replayed game ended ({}) before this move, after {} moves",
                missing.line_number,
                record.end.as_str(),
                record.pieces
            );
        }
        let replayed = end_text(&record);
        ensure!(
            replayed == self.end_text,
            "line {}: the replayed game ends otherwise: recorded `{}`, replayed `{replayed}`",
            self.end_line,
            self.end_text
        );
        Ok(record)
    }
}

fn number<T: std::str::FromStr>(what: &str, text: &str) -> Result<T> {
    text.parse().ok().with_context(|| format!("{what} {} is not a number in range", crate::names::Quoted(text)))
}

fn parse_game(fields: &[&str]) -> Result<TraceGame> {
    match fields {
        ["preset", preset, "rules", rules, "board", board, "seed", seed, "game", game] => Ok(TraceGame {
            preset: preset.to_string(),
            rules: rules.to_string(),
            board: crate::board::parse_size(board).map_err(|e| anyhow::anyhow!("board {board:?}: {e}"))?,
            seed: number("seed", seed)?,
            game: number("game", game)?,
            weights: Vec::new(),
        }),
        _ => bail!("expected the game line `preset P rules R board WxH seed S game I`"),
    }
}

fn parse_weights_line(fields: &[&str]) -> Result<Vec<(String, f64)>> {
    ensure!(fields[0] == "weights", "expected the weights line `weights feature=weight ...`");
    let mut weights: Vec<(String, f64)> = Vec::new();
    for pair in &fields[1..] {
        let Some((name, value)) = pair.split_once('=') else { bail!("weight {pair:?} is not feature=weight") };
        let weight: f64 = number(&format!("weight of {name:?}"), value)?;
        crate::limits::check_weight(&format!("weight {name:?}"), weight)?;
        ensure!(!weights.iter().any(|(n, _)| n == name), "feature {name:?} is given twice");
        weights.push((name.to_string(), weight));
    }
    Ok(weights)
}

fn parse_move(fields: &[&str], expected: usize, line_number: usize) -> Result<TraceMove> {
    let [number_text, piece, hold, orientation, column, rows, score] = fields else {
        bail!("{} columns; a move line has 7: move piece hold orientation column rows score", fields.len());
    };
    let move_number: usize = number("move number", number_text)?;
    ensure!(
        move_number == expected,
        "move {move_number} where move {expected} was expected (moves are numbered from 1 without gaps)"
    );
    Piece::parse(piece).with_context(|| format!("piece {piece:?}"))?;
    ensure!(matches!(*hold, "yes" | "no"), "hold {hold:?} is not yes or no");
    number::<u8>("orientation", orientation)?;
    number::<i8>("column", column)?;
    number::<u8>("rows", rows)?;
    number::<u64>("score", score)?;
    Ok(TraceMove { line_number, text: fields[1..].join(" ") })
}

fn parse_end(fields: &[&str], moves: usize) -> Result<GameEnd> {
    let ["end", end, "lines", lines, "pieces", pieces, "score", score] = fields else {
        bail!("expected the end line `end game_over|piece_cap lines L pieces P score S`");
    };
    let end = match *end {
        "game_over" => GameEnd::GameOver,
        "piece_cap" => GameEnd::PieceCap,
        other => bail!("end {other:?} is not game_over or piece_cap"),
    };
    number::<u64>("lines", lines)?;
    number::<u64>("score", score)?;
    let pieces: usize = number("pieces", pieces)?;
    ensure!(pieces == moves, "the end line says {pieces} pieces, the trace has {moves} moves");
    Ok(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn traced(preset: &str, pieces: u64) -> (String, GameRecord) {
        let built = presets::find(preset).unwrap().build(None, None).unwrap();
        let mut out = Vec::new();
        let record = write_trace(&mut out, preset, &built, 4, 1, GameLimits { max_pieces: Some(pieces) }).unwrap();
        (String::from_utf8(out).unwrap(), record)
    }

    #[test]
    fn a_trace_replays_to_the_same_game() {
        for preset in ["bcts", "erikko", "pygame-lee", "dellacherie"] {
            let (text, record) = traced(preset, 30);
            let trace = Trace::parse(&text).unwrap();
            assert_eq!(trace.moves.len() as u64, record.pieces, "{preset}");
            let built = trace.build().unwrap();
            let mut shots = 0;
            let replayed = trace.replay(&built, &mut |_| shots += 1).unwrap();
            assert_eq!((replayed, shots), (record, record.pieces), "{preset}");
        }
    }

    #[test]
    fn a_game_over_replays_and_tampering_is_named_by_line() {
        // 10x6 is short enough for bcts to lose.
        let built = presets::find("bcts").unwrap().build(Some((10, 6)), None).unwrap();
        let mut out = Vec::new();
        let record = write_trace(&mut out, "bcts", &built, 1, 0, GameLimits::default()).unwrap();
        assert_eq!(record.end, GameEnd::GameOver);
        let text = String::from_utf8(out).unwrap();
        let trace = Trace::parse(&text).unwrap();
        trace.replay(&trace.build().unwrap(), &mut |_| {}).unwrap();
        // A changed column on the third move (line 7).
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[6].starts_with("3 "), "{}", lines[6]);
        let mut fields: Vec<String> = lines[6].split_whitespace().map(String::from).collect();
        fields[4] = if fields[4] == "0" { "1".into() } else { "0".into() };
        let mut edited: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        edited[6] = fields.join(" ");
        let trace = Trace::parse(&edited.join("\n")).unwrap();
        let error = trace.replay(&trace.build().unwrap(), &mut |_| {}).unwrap_err().to_string();
        assert!(error.starts_with("line 7: the replayed game differs"), "{error}");
    }

    #[test]
    fn bad_traces_are_errors_naming_the_line() {
        let (text, _) = traced("bcts", 3);
        let lines: Vec<&str> = text.lines().collect();
        let with = |index: usize, line: &str| {
            let mut edited: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            edited[index] = line.to_string();
            edited.join("\n")
        };
        for (text, needle) in [
            (with(0, "# tetris-lab trace v2"), "line 1: expected"),
            (with(1, "preset bcts rules simplified board 10x10 seed x game 0"), "line 2: seed \"x\""),
            (with(2, "weights holes"), "line 3: weight \"holes\" is not feature=weight"),
            (with(2, "weights holes=nan"), "line 3: weight \"holes\""),
            (with(4, "1 Q no 0 0 0 0"), "line 5: piece \"Q\""),
            (with(4, "2 T no 0 0 0 0"), "line 5: move 2 where move 1"),
            (with(4, "1 T maybe 0 0 0 0"), "line 5: hold \"maybe\""),
            (with(4, "1 T no 0 0 0"), "line 5: 6 columns"),
            (lines[..7].join("\n"), "no end line"),
            (with(7, "end game_over lines 0 pieces 9 score 0"), "line 8: the end line says 9 pieces"),
            (with(7, "end lost lines 0 pieces 3 score 0"), "line 8: end \"lost\""),
        ] {
            let error = format!("{:#}", Trace::parse(&text).unwrap_err());
            assert!(error.contains(needle) && !error.contains('\n'), "{needle}: {error}");
        }
        // Weights of another evaluator: refused when the preset is built.
        let trace = Trace::parse(&with(2, "weights holes=1 bumpines=2")).unwrap();
        let error = format!("{:#}", trace.build().err().unwrap());
        assert!(error.contains("has no feature \"bumpines\""), "{error}");
    }
}
