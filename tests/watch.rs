//! `watch` of every rule set (issue 18): a non-terminal run prints the final picture of
//! the game `play` plays with the same seed and index, game traces round-trip through
//! `play --trace` and `watch --replay`, and `replay --watch` draws an E-Tetris record.

mod common;
use common::*;
use std::path::Path;

/// `play --csv` row `index` (lines, pieces, score, end) of a batch of `index + 1` games.
fn play_row(dir: &Path, game: &[&str], seed: &str, index: usize, max_pieces: &str) -> Vec<String> {
    let csv = dir.join(format!("play-{index}.csv"));
    let games = (index + 1).to_string();
    let mut args = vec!["play", "--games", &games, "--seed", seed, "--max-pieces", max_pieces];
    args.extend(game);
    args.extend(["--csv", csv.to_str().unwrap()]);
    let o = run(&args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    let text = std::fs::read_to_string(&csv).unwrap();
    let row: Vec<String> = text.lines().nth(index + 1).unwrap().split(',').map(String::from).collect();
    assert_eq!(row[0], index.to_string());
    row
}

#[test]
fn watch_shows_the_game_play_plays_under_every_rule_set() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[&[&str]] = &[
        &["--preset", "bcts", "--board", "10x5"],
        &["--preset", "dellacherie-simplified", "--rules", "simplified-lines-after-overflow", "--board", "6x6"],
        &["--preset", "el-tetris"],
        &["--preset", "lee"],
        &["--preset", "erikko"],
        &["--preset", "dellacherie"],
        // The guideline game drawn move by move (every frame printed), and its variant.
        &["--preset", "pygame-lee", "--all-frames"],
        &["--preset", "pygame-lee-gravity-first", "--png", "last.png"],
    ];
    let mut ended_by_rules = 0;
    for game in cases {
        let png = game.contains(&"--png");
        let mut game: Vec<&str> = game.to_vec();
        let png_path = dir.path().join("last.png");
        if png {
            let at = game.len() - 1;
            game[at] = png_path.to_str().unwrap();
        }
        let watch_only = ["--all-frames", "--png", png_path.to_str().unwrap()];
        let play_game: Vec<&str> = game.iter().copied().filter(|a| !watch_only.contains(a)).collect();
        let row = play_row(dir.path(), &play_game, "5", 2, "120");
        let mut args = vec!["watch", "--seed", "5", "--game", "2", "--max-pieces", "120", "--delay-ms", "0"];
        args.extend(&game);
        let o = run(&args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let out = stdout(&o);
        let (lines, pieces, score, end) = (&row[2], &row[3], &row[4], &row[5]);
        let expected = format!("game 2 (seed {}): {end}, lines {lines}, pieces {pieces}, score {score}", row[1]);
        let last = out.lines().last().unwrap();
        assert!(last.starts_with(&expected), "{args:?}\nplay: {row:?}\nwatch: {last}");
        // The final picture: the last move, its counters and the evaluator's sum.
        let pictures = out.matches("tetris-lab watch · ").count();
        let all_frames = game.contains(&"--all-frames");
        assert_eq!(pictures, if all_frames { pieces.parse().unwrap() } else { 1 }, "{args:?}");
        let final_picture = &out[out.rfind("tetris-lab watch · ").unwrap()..];
        for needle in [format!("move   {pieces}\n"), format!("lines  {lines}\n"), format!("score  {score}\n")] {
            assert!(final_picture.contains(&needle), "{args:?}: no {needle:?} in\n{final_picture}");
        }
        assert!(final_picture.contains(" sum "), "the evaluator's sum for the last move:\n{final_picture}");
        if png {
            assert!(std::fs::read(&png_path).unwrap().starts_with(b"\x89PNG"));
        }
        ended_by_rules += (end == "game_over") as usize;
    }
    assert!(ended_by_rules > 0, "one game at least must end by the rules, not the piece cap");
}

#[test]
fn tuned_weights_are_watched_as_played() {
    let dir = tempfile::tempdir().unwrap();
    let weights = write(
        dir.path(),
        "best.toml",
        "preset = \"bcts\"\n[weights]\nlanding_height = -1\neroded_cells = 1\nrow_transitions = -1\n\
         column_transitions = -1\nholes = -4\ncumulative_wells = -1\nhole_depth = 0\nrows_with_holes = 0\n",
    );
    let game = ["--preset", "bcts", "--board", "10x10", "--weights", weights.to_str().unwrap()];
    let row = play_row(dir.path(), &game, "9", 0, "300");
    let mut args = vec!["watch", "--seed", "9", "--max-pieces", "300", "--delay-ms", "0"];
    args.extend(game);
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains(&format!("lines {}, pieces {}", row[2], row[3])), "{row:?}\n{out}");
    assert!(out.contains("holes") && out.contains("x -4\n"), "the file's weights are listed:\n{out}");
}

#[test]
fn a_trace_round_trips_and_a_changed_move_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("game.trace");
    let csv = dir.path().join("games.csv");
    let game = ["--preset", "el-tetris", "--seed", "4", "--max-pieces", "200"];
    let mut args = vec!["play", "--games", "3", "--trace", trace.to_str().unwrap(), "--game", "1"];
    args.extend(game);
    args.extend(["--csv", csv.to_str().unwrap()]);
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&trace).unwrap();
    assert!(
        text.starts_with("# tetris-lab trace v1\npreset el-tetris rules eltetris board 10x20 seed 4 game 1\n"),
        "{text}"
    );
    let row: Vec<String> =
        std::fs::read_to_string(&csv).unwrap().lines().nth(2).unwrap().split(',').map(String::from).collect();
    let end = format!("end {} lines {} pieces {} score {}\n", row[5], row[2], row[3], row[4]);
    assert!(text.ends_with(&end), "the trace ends as play's game 1 did ({end}):\n{}", &text[text.len() - 200..]);

    let o = run(&["watch", "--replay", trace.to_str().unwrap(), "--delay-ms", "0"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).lines().last().unwrap().contains(&format!("lines {}, pieces {}", row[2], row[3])));

    // Another column for move 10: the replay stops there, naming the line.
    let lines: Vec<&str> = text.lines().collect();
    let at = lines.iter().position(|l| l.starts_with("10 ")).unwrap();
    let mut fields: Vec<String> = lines[at].split_whitespace().map(String::from).collect();
    fields[4] = if fields[4] == "0" { "1".into() } else { "0".into() };
    let mut edited: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    edited[at] = fields.join(" ");
    let tampered = write(dir.path(), "tampered.trace", &(edited.join("\n") + "\n"));
    let o = run(&["watch", "--replay", tampered.to_str().unwrap(), "--delay-ms", "0"]);
    assert_clean_error(&o, &format!("line {}: the replayed game differs", at + 1));
}

#[test]
fn replay_watch_draws_an_etetris_record() {
    let record = concat!(env!("CARGO_MANIFEST_DIR"), "/data/etetris/published_1378178.txt");
    let plain = run(&["etetris", "replay", record]);
    assert!(plain.status.success(), "{}", stderr(&plain));
    let o = run(&["etetris", "replay", record, "--watch", "--delay-ms", "0", "--max-pieces", "40"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.ends_with(&stdout(&plain)), "the record's result is unchanged:\n{out}");
    assert!(out.contains("piece  40 of 10000") && out.contains("steps  N,") && out.contains("[]"), "{out}");
    assert_eq!(out.matches("tetris-lab etetris replay · ").count(), 1, "only the last picture off a terminal");
}
