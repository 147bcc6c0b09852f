//! Dellacherie on the research rules plays MdpTetris' game move for move. The files in
//! `tests/data/mdptetris/` hold what MdpTetris (the C program behind the research rules'
//! published figures) played on the pieces of one of our games: each move's orientation
//! (in MdpTetris' order, which is ours on `simplified`), left column and rows cleared. Our
//! trace of the same game must list the same moves, to the last one. Dellacherie's weights
//! are integers, so ties between placements are frequent and the candidates' order decides
//! many moves: with any other order the games part within a few dozen moves.

mod common;
use common::*;

/// The `play` arguments in a data file's third comment line.
fn game_of(text: &str) -> Vec<String> {
    let line = text.lines().find(|l| l.starts_with("# game 0 of: tetris-lab play ")).expect("the game's command");
    line.trim_start_matches("# game 0 of: tetris-lab play ").split_whitespace().map(String::from).collect()
}

#[test]
fn dellacherie_plays_mdptetris_game_move_for_move() {
    let dir = tempfile::tempdir().unwrap();
    let mut files: Vec<_> = std::fs::read_dir("tests/data/mdptetris").unwrap().flatten().map(|e| e.path()).collect();
    files.sort();
    assert!(files.len() >= 6, "{files:?}");
    let mut moves = 0;
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let expected: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
        let trace = dir.path().join("game.trace");
        let mut args = vec!["play".to_string()];
        args.extend(game_of(&text));
        args.extend(["--games", "1", "--trace", trace.to_str().unwrap()].map(String::from));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = run(&args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        // Trace lines: move piece hold orientation column rows score.
        let trace = std::fs::read_to_string(&trace).unwrap();
        let ours: Vec<String> = trace
            .lines()
            .filter(|l| l.starts_with(|c: char| c.is_ascii_digit()))
            .map(|l| {
                let fields: Vec<&str> = l.split_whitespace().collect();
                format!("{} {} {}", fields[3], fields[4], fields[5])
            })
            .collect();
        for (index, (ours, theirs)) in ours.iter().zip(&expected).enumerate() {
            assert_eq!(ours, theirs, "{}: move {} differs", file.display(), index + 1);
        }
        assert_eq!(ours.len(), expected.len(), "{}: the games end at different moves", file.display());
        assert!(trace.lines().last().unwrap().starts_with("end game_over"), "{}", file.display());
        moves += ours.len();
    }
    assert!(moves > 8_000, "{moves} moves compared");
}
