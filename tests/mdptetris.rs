//! Dellacherie and BCTS (as `bcts-mdptetris`) on the research rules play MdpTetris' games
//! move for move. The files in `tests/data/mdptetris/` hold what MdpTetris (the C program
//! behind the research rules' published figures) played on the pieces of one of our games:
//! each move's orientation (in MdpTetris' order, which is ours on `simplified`), left
//! column and rows cleared. Our trace of the same game must list the same moves, to the
//! last one. Dellacherie's weights are integers, so ties between placements are frequent
//! and the candidates' order decides many moves: with any other order the games part
//! within a few dozen moves. BCTS's games part from MdpTetris' at the first column with two
//! holes unless the hole depth is counted MdpTetris' way (`cells_above_holes`), as the
//! `bcts` preset, which follows the specification's count, shows.

mod common;
use common::*;

/// The `play` arguments in a data file's third comment line.
fn game_of(text: &str) -> Vec<String> {
    let line = text.lines().find(|l| l.starts_with("# game 0 of: tetris-lab play ")).expect("the game's command");
    line.trim_start_matches("# game 0 of: tetris-lab play ").split_whitespace().map(String::from).collect()
}

/// Our moves in a data file's game (orientation, left column, rows cleared), played with
/// `preset` in place of the file's own when given.
fn our_moves(text: &str, preset: Option<&str>, dir: &std::path::Path) -> Vec<String> {
    let trace = dir.join("game.trace");
    let mut args = vec!["play".to_string()];
    args.extend(game_of(text));
    if let Some(preset) = preset {
        let at = args.iter().position(|a| a == "--preset").expect("--preset") + 1;
        args[at] = preset.to_string();
    }
    args.extend(["--games", "1", "--trace", trace.to_str().unwrap()].map(String::from));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = run(&args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    // Trace lines: move piece hold orientation column rows score.
    let trace = std::fs::read_to_string(&trace).unwrap();
    assert!(trace.lines().last().unwrap().starts_with("end game_over"), "{args:?}");
    trace
        .lines()
        .filter(|l| l.starts_with(|c: char| c.is_ascii_digit()))
        .map(|l| {
            let fields: Vec<&str> = l.split_whitespace().collect();
            format!("{} {} {}", fields[3], fields[4], fields[5])
        })
        .collect()
}

#[test]
fn dellacherie_and_bcts_play_mdptetris_games_move_for_move() {
    let dir = tempfile::tempdir().unwrap();
    let mut files: Vec<_> = std::fs::read_dir("tests/data/mdptetris").unwrap().flatten().map(|e| e.path()).collect();
    files.sort();
    let mut moves = std::collections::BTreeMap::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let expected: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
        let ours = our_moves(&text, None, dir.path());
        for (index, (ours, theirs)) in ours.iter().zip(&expected).enumerate() {
            assert_eq!(ours, theirs, "{}: move {} differs", file.display(), index + 1);
        }
        assert_eq!(ours.len(), expected.len(), "{}: the games end at different moves", file.display());
        let preset = game_of(&text)[1].clone();
        *moves.entry(preset).or_insert(0) += ours.len();
    }
    assert!(moves["dellacherie-simplified"] > 8_000, "{moves:?}");
    assert!(moves["bcts-mdptetris"] > 8_000, "{moves:?}");
}

/// The specification's hole depth plays other games than MdpTetris' program: `bcts` on the
/// pieces of a `bcts-mdptetris` file parts from MdpTetris' moves.
#[test]
fn the_specification_s_hole_depth_parts_from_mdptetris() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string("tests/data/mdptetris/bcts-mdptetris-8x12-seed1.txt").unwrap();
    let expected: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    let ours = our_moves(&text, Some("bcts"), dir.path());
    let parting = ours.iter().zip(&expected).position(|(ours, theirs)| ours != theirs);
    assert!(parting.is_some(), "bcts played MdpTetris' game to its end");
}
