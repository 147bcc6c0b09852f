//! The CLI contracts of the guideline game (issue 5): `watch` with and without a frames
//! file, replays, bad input, and `play --preset pygame-lee` through the common game loop.

mod common;
use common::*;

#[test]
fn watch_plays_writes_frames_and_the_frames_replay() {
    let dir = tempfile::tempdir().unwrap();
    let frames = dir.path().join("game.frames");
    let o = run(&[
        "watch",
        "--preset",
        "pygame-lee",
        "--seed",
        "5",
        "--level",
        "15",
        "--max-pieces",
        "12",
        "--delay-ms",
        "0",
        "--frames",
        frames.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("hold") && out.contains("next") && out.contains("level  15") && out.contains("pieces 12"),
        "{out}"
    );
    assert!(out.contains("stopped: level 15"), "{out}");
    let text = std::fs::read_to_string(&frames).unwrap();
    assert!(text.starts_with("# tetris-lab guideline frames v1\nseed 5 level 15 rules guideline\n"), "{text}");
    assert!(text.lines().any(|l| l.split_whitespace().nth(1) == Some("hard")), "{text}");

    let replay = run(&["watch", "--replay", frames.to_str().unwrap(), "--delay-ms", "0"]);
    assert!(replay.status.success(), "{}", stderr(&replay));
    let last = |s: &str| s.lines().last().unwrap().to_string();
    assert_eq!(last(&stdout(&replay)), last(&out), "the replay ends where the game did");
}

/// Ctrl-C stops `watch` after the frame being played, like `--max-pieces`: the frames file
/// is written whole and replays to the same game. A second press changes nothing (no
/// temporary left behind).
#[test]
fn ctrl_c_and_termination_stop_watch_with_its_frames_written() {
    // Ctrl-C (twice), SIGTERM (what `kill` and `timeout` send) and SIGHUP alike.
    for (signal, presses, name) in [("-INT", 2, "Ctrl-C"), ("-TERM", 1, "SIGTERM"), ("-HUP", 1, "SIGHUP")] {
        let dir = tempfile::tempdir().unwrap();
        let frames = dir.path().join("stopped.frames");
        // A frame every 5 ms: the game runs far longer than the wait before the press.
        let args = ["watch", "--preset", "pygame-lee", "--seed", "5", "--level", "15", "--delay-ms", "5", "--frames"];
        let child = spawn_in(dir.path(), &[&args[..], &[frames.to_str().unwrap()]].concat(), true);
        std::thread::sleep(std::time::Duration::from_millis(1500));
        for _ in 0..presses {
            send_signal(&child, signal);
        }
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success(), "{signal}: {}", stderr(&o));
        // The message names the signal that stopped it.
        assert!(stderr(&o).contains(&format!("{name}: stopping after this frame")), "{}", stderr(&o));
        let text = std::fs::read_to_string(&frames).expect("the frames file is written");
        let files: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(files, ["stopped.frames"], "{signal}: no temporary left");
        let replay = run(&["watch", "--replay", frames.to_str().unwrap(), "--delay-ms", "0"]);
        assert!(replay.status.success(), "{}", stderr(&replay));
        assert!(text.lines().count() > 50, "a game of some frames: {} lines", text.lines().count());
        let last = text.lines().last().unwrap();
        assert!(last.starts_with("# end stopped"), "{signal}: stopped, not over: {last:?}");
    }
}

#[test]
fn the_gravity_first_variant_records_its_rules_and_replays() {
    let dir = tempfile::tempdir().unwrap();
    let frames = dir.path().join("variant.frames");
    let o = run(&[
        "watch",
        "--preset",
        "pygame-lee-gravity-first",
        "--level",
        "30",
        "--max-pieces",
        "5",
        "--delay-ms",
        "0",
        "--frames",
        frames.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&frames).unwrap();
    assert!(text.contains("seed 1 level 30 rules guideline-gravity-first\n"), "{text}");
    // Keys are ignored on each spawn frame, so the AI holds none there.
    let first = text.lines().find(|l| l.starts_with("1 ")).unwrap();
    assert!(first.starts_with("1 - "), "{first}");
    let replay = run(&["watch", "--replay", frames.to_str().unwrap(), "--delay-ms", "0"]);
    assert!(replay.status.success(), "{}", stderr(&replay));
}

#[test]
fn watch_refuses_bad_levels_presets_and_frames() {
    let o = run(&["watch", "--level", "0", "--delay-ms", "0", "--max-pieces", "1"]);
    assert_clean_error(&o, "starting level 0 is outside 1..=30");
    let o = run(&["watch", "--level", "31", "--delay-ms", "0", "--max-pieces", "1"]);
    assert_clean_error(&o, "outside 1..=30");
    let o = run(&["watch", "--preset", "pygame-le", "--delay-ms", "0"]);
    assert_clean_error(&o, "unknown preset \"pygame-le\" (did you mean \"pygame-lee\"?)");

    let dir = tempfile::tempdir().unwrap();
    let bad = write(dir.path(), "bad.frames", "seed 1 level 1\n1 -\n2 left\n3 jump\n");
    let o = run(&["watch", "--replay", bad.to_str().unwrap(), "--delay-ms", "0"]);
    assert_clean_error(&o, "line 4: unknown key \"jump\"");
    let bad_level = write(dir.path(), "level.frames", "seed 1 level 40\n1 -\n");
    let o = run(&["watch", "--replay", bad_level.to_str().unwrap(), "--delay-ms", "0"]);
    assert_clean_error(&o, "starting level 40 is outside 1..=30");
    let missing = dir.path().join("missing.frames");
    let o = run(&["watch", "--replay", missing.to_str().unwrap(), "--delay-ms", "0"]);
    assert_clean_error(&o, "cannot read frames file");
}

#[test]
fn the_key_press_policy_and_the_guideline_rules_only_go_together() {
    let o = run(&["play", "--preset", "pygame-lee", "--rules", "simplified", "--games", "1"]);
    assert_clean_error(&o, "the key-press policy plays only the guideline rule sets");
    let o = run(&["play", "--preset", "el-tetris", "--rules", "guideline", "--games", "1"]);
    assert_clean_error(&o, "rule set guideline is played key press by key press");
    let o = run(&[
        "play",
        "--preset",
        "pygame-lee",
        "--rules",
        "guideline-gravity-first",
        "--games",
        "1",
        "--max-pieces",
        "3",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn play_reports_the_level_of_every_game() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("games.csv");
    let o = run(&[
        "play",
        "--preset",
        "pygame-lee",
        "--games",
        "2",
        "--max-pieces",
        "40",
        "--seed",
        "9",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("levels     at the end:"), "{}", stdout(&o));
    let mut reader = csv::Reader::from_path(&csv).unwrap();
    let headers: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(headers, ["game", "seed", "lines", "pieces", "score", "end", "level"]);
    for row in reader.records() {
        let row = row.unwrap();
        assert_eq!(&row[3], "40");
        assert_eq!(&row[5], "piece_cap");
        let (lines, level): (u32, u32) = (row[2].parse().unwrap(), row[6].parse().unwrap());
        assert_eq!(level, 1 + lines / 10);
        assert!(row[4].parse::<u64>().unwrap() > 0, "hard drops score");
    }
}
