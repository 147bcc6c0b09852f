//! The `erikko` preset through the binary: `features` prints the golden penalties to the
//! last digit, `best` reports hold yes/no as the library decides, and `play --seed S
//! --games 1` replays the original's seed S.

use std::path::Path;
use tetris_lab::board::Board;
use tetris_lab::piece::Piece;
use tetris_lab::policy::{GameView, Scratch};
use tetris_lab::presets;

mod common;

use common::{stderr, stdout, write, GOLDEN_FILE};

/// Runs the binary and returns its stdout, failing on a non-zero exit.
fn run(args: &[&str]) -> String {
    let out = common::run(args);
    assert!(out.status.success(), "{args:?} failed: {}", stderr(&out));
    stdout(&out)
}

fn board_file(dir: &Path, text: &str) -> String {
    write(dir, "boards.txt", text).to_str().unwrap().to_string()
}

#[test]
fn features_prints_the_golden_penalties() {
    let dir = tempfile::tempdir().unwrap();
    let file = board_file(dir.path(), GOLDEN_FILE);
    let out = run(&["features", "--preset", "erikko", &file]);
    let mut lines = out.lines();
    assert_eq!(
        lines.next().unwrap(),
        "board,height_difference,covered,covered_rightmost,height_rightmost,consecutive_changes,small_pits,big_pits,score"
    );
    // golden.md: the original program's penalties.
    let expected = [
        ("B0_empty", "0"),
        ("B1_stairs", "38.60091950851093"),
        ("B2_holes", "57.64754092310525"),
        ("B3_wells", "47.27407203058329"),
        ("B4_pits", "39.32112349948503"),
    ];
    for (line, (name, penalty)) in lines.by_ref().zip(expected) {
        let fields: Vec<&str> = line.split(',').collect();
        assert_eq!(fields[0], name);
        // Printed to 12 significant digits (no float noise); the library's own tests
        // compare the penalties bit for bit.
        let printed: f64 = fields.last().unwrap().parse().unwrap();
        let golden: f64 = penalty.parse().unwrap();
        assert!((printed - golden).abs() <= 1e-11 * golden.abs().max(1.0), "{line}");
    }
    assert_eq!(lines.next(), None);
    // B1 by hand (golden.md): difference 4, 7 consecutive changes, one small pit.
    assert!(out.contains("\nB1_stairs,4,0,0,0,7,1,0,"), "{out}");
}

#[test]
fn features_rates_a_cell_in_the_hidden_rows_infinite() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("....X.....\n");
    text.push_str(&"....X.....\n".repeat(20));
    let file = board_file(dir.path(), &text);
    let out = run(&["features", "--preset", "erikko", &file]);
    assert!(out.lines().nth(1).unwrap().ends_with(",inf"), "{out}");
}

#[test]
fn best_reports_hold_as_the_library_decides() {
    let dir = tempfile::tempdir().unwrap();
    let file = board_file(dir.path(), GOLDEN_FILE);
    let built = presets::find("erikko").unwrap().build(None, None).unwrap();
    let boards: Vec<Board> = tetris_lab::board::split_board_file(GOLDEN_FILE)
        .iter()
        .map(|(_, body)| Board::parse(body, Some(10), 22).unwrap())
        .collect();
    let mut holds_seen = [false; 2];
    for (piece, hold) in [("T", "I"), ("S", "I"), ("I", "O"), ("Z", "S"), ("O", "L")] {
        let out = run(&[
            "best",
            "--preset",
            "erikko",
            "--piece",
            piece,
            "--preview",
            "J",
            "--hold",
            hold,
            "--format",
            "csv",
            &file,
        ]);
        let mut lines = out.lines();
        assert_eq!(lines.next().unwrap(), "board,piece,hold,orientation,column,score");
        for (line, board) in lines.zip(&boards) {
            let view = GameView {
                board,
                current: Piece::parse(piece).unwrap(),
                preview: &[Piece::J],
                hold: Some(Piece::parse(hold).unwrap()),
                can_hold: true,
            };
            let d = built.policy.choose(built.rules.as_ref(), &view, &mut Scratch::default()).unwrap();
            let fields: Vec<&str> = line.split(',').collect();
            assert_eq!(fields[1], d.placement.piece.to_string(), "{line}");
            assert_eq!(fields[2], if d.hold { "yes" } else { "no" }, "{line}");
            assert_eq!(fields[3], d.placement.orientation.to_string(), "{line}");
            assert_eq!(fields[4], d.placement.column.to_string(), "{line}");
            let printed = fields[5].parse::<f64>().unwrap();
            assert!((printed - d.value).abs() <= 1e-11 * d.value.abs().max(1.0), "{line}");
            holds_seen[d.hold as usize] = true;
        }
    }
    assert_eq!(holds_seen, [true, true], "the cases should exercise both answers");
}

#[test]
fn best_with_an_empty_hold_takes_the_first_shortcut() {
    let dir = tempfile::tempdir().unwrap();
    let file = board_file(dir.path(), GOLDEN_FILE);
    let out = run(&["best", "--preset", "erikko", "--piece", "T", "--preview", "Z", "--format", "csv", &file]);
    for line in out.lines().skip(1) {
        let fields: Vec<&str> = line.split(',').collect();
        assert_eq!(&fields[1..5], ["Z", "yes", "0", "4"], "{line}");
    }
}

#[test]
fn play_seed_42_replays_the_original_game_42() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("games.csv");
    run(&["play", "--preset", "erikko", "--seed", "42", "--games", "1", "--csv", csv.to_str().unwrap()]);
    let text = std::fs::read_to_string(&csv).unwrap();
    let row: Vec<&str> = text.lines().nth(1).unwrap().split(',').collect();
    // game,seed,lines,pieces,score,end: the original's seed 42 has no valid move after 508.
    assert_eq!((row[1], row[3], row[5]), ("42", "508", "game_over"), "{text}");
}
