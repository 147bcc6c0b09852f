//! The `erikko` preset replays the original Java bot's seeded games move for move: the
//! first moves listed in `golden.md`, how long seeds 1 and 42 last, and fingerprints of
//! whole games the original played (`tests/data/erikko_reference.txt`: 35 seeds, 63,618
//! moves, games of up to 4,575 moves).

use tetris_lab::presets;
use tetris_lab::randomizer::RandomizerKind;
use tetris_lab::sim::{play_game_traced, GameEnd, GameLimits, GameRecord};

/// Plays game 0 of master seed `seed` (= the original's seed) and returns its record and
/// its moves, one `piece hold column rotation` line each, as the reference tracer wrote
/// them (the piece is the current one before the move).
fn trace(seed: u64, max_pieces: u64) -> (GameRecord, String) {
    let built = presets::find("erikko").unwrap().build(None, None).unwrap();
    let limits = GameLimits { max_pieces: Some(max_pieces) };
    let mut text = String::new();
    let game_seed = built.rules.randomizer().game_seed(seed, 0);
    let record = play_game_traced(built.driver(), game_seed, limits, &mut |m| {
        text.push_str(&format!(
            "{} {} {} {}\n",
            m.current,
            if m.hold { "yes" } else { "no" },
            m.placement.column,
            m.placement.orientation
        ));
    });
    (record, text)
}

/// `golden.md`'s notation, piece:(hold,column,rotation), as trace lines.
fn golden_lines(moves: &str) -> String {
    moves
        .split_whitespace()
        .map(|m| {
            let (piece, rest) = m.split_once(':').unwrap();
            let fields: Vec<&str> = rest.trim_matches(['(', ')']).split(',').collect();
            format!("{piece} {} {} {}\n", fields[0], fields[1], fields[2])
        })
        .collect()
}

/// 64-bit FNV-1a, the fingerprint the reference tracer printed.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3))
}

#[test]
fn seed_1_starts_as_golden_and_survives_2000_moves() {
    let (record, text) = trace(1, 2000);
    let golden = golden_lines(
        "J:(yes,4,0) T:(yes,5,2) I:(yes,1,0) Z:(yes,4,0) Z:(no,0,1) I:(no,1,1) T:(no,8,0) \
         J:(yes,7,1) J:(no,4,0) I:(yes,5,2) O:(yes,3,0) S:(yes,2,0)",
    );
    assert!(text.starts_with(&golden), "first moves:\n{}", &text[..golden.len().min(text.len())]);
    assert_eq!((record.pieces, record.end), (2000, GameEnd::PieceCap));
    assert_eq!(record.seed, 1, "game 0 of master seed 1 is the original's seed 1");
}

#[test]
fn seed_42_starts_as_golden_and_ends_after_508_moves() {
    let (record, text) = trace(42, 100_000);
    let golden = golden_lines(
        "T:(yes,4,0) Z:(yes,1,0) L:(no,7,0) S:(no,3,0) J:(yes,6,0) T:(no,0,1) L:(no,3,2) \
         O:(yes,8,2) O:(no,7,0) I:(no,4,1) I:(no,5,1) Z:(no,1,1)",
    );
    assert!(text.starts_with(&golden), "first moves:\n{}", &text[..golden.len().min(text.len())]);
    assert_eq!((record.pieces, record.end), (508, GameEnd::GameOver));
    // Every move, as the original made it: name the first that differs.
    let original: Vec<&str> =
        include_str!("data/erikko_seed42_moves.txt").lines().filter(|l| !l.starts_with('#')).collect();
    let ours: Vec<&str> = text.lines().collect();
    if let Some(i) = (0..original.len().max(ours.len())).find(|&i| original.get(i) != ours.get(i)) {
        panic!("move {i}: the original made {:?}, we made {:?}", original.get(i), ours.get(i));
    }
}

#[test]
fn whole_games_match_the_original_fingerprints() {
    let reference = include_str!("data/erikko_reference.txt");
    let mut checked = 0;
    for line in reference.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let java_seed: i64 = fields[0].parse().unwrap();
        let (moves, end, hash): (u64, &str, u64) =
            (fields[1].parse().unwrap(), fields[2], u64::from_str_radix(fields[3], 16).unwrap());
        let (record, text) = trace(java_seed as u64, u64::MAX);
        assert_eq!((record.pieces, record.end.as_str(), fnv1a(&text)), (moves, end, hash), "seed {java_seed}");
        checked += 1;
    }
    assert!(checked >= 30, "reference file has only {checked} games");
}

#[test]
fn batch_game_i_is_the_original_seed_plus_i() {
    let kind = presets::find("erikko").unwrap().build(None, None).unwrap().rules.randomizer();
    assert!(matches!(kind, RandomizerKind::NoTriple { .. }));
    assert_eq!(kind.game_seed(7, 5), 12);
}
