//! Fuzzing of every parser of user files (issue 15): experiment files, weights files (the
//! presets' and E-Tetris'), board files, E-Tetris records, frames files and the
//! `generations.csv` that `plot` reads, and `solve`'s checkpoints (the beam's state). Inputs are arbitrary text and valid files with
//! random edits (a value replaced by NaN, infinities, huge or negative numbers, random
//! text; lines inserted, deleted, duplicated; the file cut short). None may panic; what a
//! parser accepts is then used (an optimizer built, a record or frames file replayed, a
//! plot drawn), which may not panic or hang either. The number of cases is bounded so
//! this runs in the normal `cargo test --release`.

use proptest::prelude::*;
use std::ops::ControlFlow;
use tetris_lab::board::{split_board_file, Board};
use tetris_lab::etetris::record::{replay, Record};
use tetris_lab::etetris::weights::Weights;
use tetris_lab::etetris::{checked::check, sequence, BeamSearch, Grid, MoveSet, Options, SearchState};
use tetris_lab::guideline::ai::AiPlayer;
use tetris_lab::guideline::frames::{replay_frame, FramesFile, FramesWriter};
use tetris_lab::guideline::game::Game;
use tetris_lab::tune::experiment::Experiment;

/// Values a user or an attacker might put in any field.
const EVIL: &[&str] = &[
    "nan",
    "-nan",
    "inf",
    "-inf",
    "+inf",
    "1e400",
    "-1e400",
    "1e300",
    "-1e300",
    "1e-400",
    "0",
    "-0",
    "-1",
    "0.0",
    "18446744073709551615",
    "18446744073709551616",
    "9223372036854775807",
    "-9223372036854775808",
    "4294967296",
    "99999999999999999999999999",
    "\"\"",
    "\"x\"",
    "[]",
    "{}",
    "true",
    "=",
    "#",
    ",",
    "",
    " ",
    "\u{0}",
    "é",
    "\u{feff}",
    "L0",
    "N",
    "D101",
    "-",
    "+",
    "1000x1000",
    "0x0",
];

/// One random change to a text.
#[derive(Clone, Debug)]
enum Edit {
    /// Cut the text at this fraction of its length.
    Truncate(usize),
    /// Replace the n-th token (a run of characters between separators) with a value.
    Replace(usize, String),
    /// Insert a line before the n-th line.
    Insert(usize, String),
    Delete(usize),
    Duplicate(usize),
}

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::sample::select(EVIL).prop_map(String::from),
        1 => any::<String>(),
        1 => any::<f64>().prop_map(|f| format!("{f:?}")),
        1 => any::<i64>().prop_map(|i| i.to_string()),
    ]
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        1 => any::<usize>().prop_map(Edit::Truncate),
        6 => (any::<usize>(), value()).prop_map(|(n, v)| Edit::Replace(n, v)),
        2 => (any::<usize>(), value()).prop_map(|(n, v)| Edit::Insert(n, v)),
        2 => (any::<usize>(), "[a-z_]{1,12} = [a-z0-9.\"-]{0,8}").prop_map(|(n, v)| Edit::Insert(n, v)),
        1 => any::<usize>().prop_map(Edit::Delete),
        1 => any::<usize>().prop_map(Edit::Duplicate),
    ]
}

fn is_separator(c: char) -> bool {
    c.is_whitespace() || ",={}[]()'".contains(c)
}

fn apply(text: &str, edit: &Edit) -> String {
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    match edit {
        Edit::Truncate(n) => {
            let mut end = n % (text.len() + 1);
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            return text[..end].to_string();
        }
        Edit::Replace(n, value) => {
            // Byte spans of the tokens.
            let mut tokens = Vec::new();
            let mut start = None;
            for (i, c) in text.char_indices().chain([(text.len(), ' ')]) {
                match (start, is_separator(c)) {
                    (None, false) => start = Some(i),
                    (Some(s), true) => {
                        tokens.push((s, i));
                        start = None;
                    }
                    _ => {}
                }
            }
            if tokens.is_empty() {
                return value.clone();
            }
            let (s, e) = tokens[n % tokens.len()];
            return format!("{}{value}{}", &text[..s], &text[e..]);
        }
        Edit::Insert(n, line) => lines.insert(n % (lines.len() + 1), line.clone()),
        Edit::Delete(n) if !lines.is_empty() => {
            let i = n % lines.len();
            lines.remove(i);
        }
        Edit::Duplicate(n) if !lines.is_empty() => {
            let i = n % lines.len();
            lines.insert(i, lines[i].clone());
        }
        _ => {}
    }
    lines.join("\n") + "\n"
}

/// A valid text with one to four random edits, or arbitrary text.
fn mutated(valid: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop_oneof![
        6 => (proptest::sample::select(valid), proptest::collection::vec(edit(), 1..=4))
            .prop_map(|(text, edits)| edits.iter().fold(text.to_string(), |t, e| apply(&t, e))),
        1 => any::<String>(),
    ]
}

const EXPERIMENTS: &[&str] = &[
    r#"preset = "dellacherie-simplified"
board = "10x10"
fitness = "rows"
games = 2
max_pieces = 50
seed = 1
reevaluation_games = 2
held_out_games = 3
[weights]
holes = { min = -10, max = 0, start = -4 }
landing_height = { start = -1 }
[fixed]
eroded_cells = 2
[optimizer]
kind = "cross-entropy"
population = 20
elite_fraction = 0.2
initial_variance = 100.0
noise = "constant"
noise_level = 4.0
[budget]
generations = 3
games = 100
pieces = 1000
"#,
    r#"preset = "bcts"
board = "10x10"
games = 2
seed = 1
[weights]
holes = { min = -10, max = 0 }
row_transitions = { min = -10, max = 0 }
[optimizer]
kind = "pso"
particles = 10
inertia = 0.7
[budget]
generations = 3
"#,
    r#"preset = "lee"
games = 2
seed = 1
[weights]
lee_holes = { start = -0.3 }
[optimizer]
kind = "genetic"
population = 10
mutation_rate = 0.05
[budget]
games = 100
"#,
    r#"preset = "etetris"
games = 1
seed = 1
max_pieces = 100
[etetris]
beam = 50
moves = "full"
held_out_beam = 100
[weights]
row_transitions = { min = 0, max = 10 }
score_divisor = {}
[fixed]
cells = -1.5
[optimizer]
kind = "nelder-mead"
step = 0.5
[budget]
games = 40
"#,
    r#"preset = "dellacherie-simplified"
games = 2
seed = 1
[weights]
holes = {}
[optimizer]
kind = "cmaes"
sigma = 0.5
[budget]
generations = 2
"#,
];

const NAMES: &[&str] =
    &["landing_height", "eroded_cells", "row_transitions", "column_transitions", "holes", "cumulative_wells"];

const WEIGHTS: &[&str] = &[
    "landing_height = -1\neroded_cells = 1\nrow_transitions = -1\ncolumn_transitions = -1\nholes = -4\ncumulative_wells = -1\n",
    "preset = \"dellacherie\"\nfitness = \"rows\"\n\n[weights]\nlanding_height = -1.5\neroded_cells = 1\nrow_transitions = -1\n\
     column_transitions = -1\nholes = -4\ncumulative_wells = -1\n",
];

const ETETRIS_WEIGHTS: &[&str] =
    &["cells = -1.0\nrow_transitions = 3.2178882868487753\ncolumn_transitions = 9.348695305445199\n\
       holes = 7.899265427351652\nscore_divisor = 38.0\n"];

const BOARDS: &[&str] = &[
    "; B1_stairs\nX.........\nX...X.....\nXX.XXX.X..\nXXXXXX.XX.\nXXXXXXXXX.\n\n; B2_holes\n.X........\nXXX..X....\nX.X..XX...\n",
    "#.#.\n####\n",
];

const RECORDS: &[&str] = &[
    "N,L3,D19,N,D19,N,L4,D17,N,R3,D18,N,L2,D18",
    "game.playRecord('N,C1,L3,D17,N,R4,D18,N'.split(','))",
    "N,C2,R1,L1,D1,N,D100",
];

const GENERATIONS: &[&str] =
    &["generation,candidates,best,mean,best_so_far,incumbent_mean,incumbent_low,incumbent_high,incumbent_games,\
     evaluations,games,pieces,fitness,seconds\n1,4,30,20,30,25,20,30,2,4,8,1000,rows,0.5\n\
     2,4,300,200,300,250,200,300,2,8,16,5000,rows,0.5\n3,4,3000,2000,3000,2500,2000,3000,2,12,24,90000,rows,0.5\n"];

/// A short guideline game written as a frames file by the program's own writer.
fn frames_text() -> &'static str {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| {
        let mut game = Game::new(3, 5);
        let evaluator = tetris_lab::presets::find("pygame-lee").unwrap().evaluator().unwrap();
        let mut player = AiPlayer::new(evaluator, 3);
        let mut buffer = Vec::new();
        let mut writer = FramesWriter::new(&mut buffer, &game).unwrap();
        while game.pieces() < 2 && !game.is_over() {
            let keys = player.keys_for_next_frame(&game);
            game.step(keys);
            writer.frame(&game, keys).unwrap();
        }
        writer.finish(&game).unwrap();
        String::from_utf8(buffer).unwrap()
    })
}

fn mutated_frames() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => proptest::collection::vec(edit(), 1..=4)
            .prop_map(|edits| edits.iter().fold(frames_text().to_string(), |t, e| apply(&t, e))),
        1 => any::<String>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn experiment_files_never_panic(text in mutated(EXPERIMENTS)) {
        if let Ok(experiment) = Experiment::parse(&text, "fuzz") {
            // What is accepted must also build (the first thing a run does).
            let _ = experiment.file.optimizer.build(&experiment.space, 1);
            let _ = experiment.target.about();
        }
    }

    #[test]
    fn weights_files_never_panic(text in mutated(WEIGHTS)) {
        if let Ok(weights) = tetris_lab::eval::parse_weights(&text, NAMES, |_| Ok(())) {
            prop_assert!(weights.iter().all(|w| w.is_finite()));
        }
    }

    #[test]
    fn etetris_weights_files_never_panic(text in mutated(ETETRIS_WEIGHTS)) {
        if let Ok(weights) = Weights::from_toml(&text) {
            prop_assert!(weights.features.iter().chain(&weights.extra_features).all(|w| w.is_finite()) && weights.score_divisor > 0.0);
        }
    }

    #[test]
    fn board_files_never_panic(text in mutated(BOARDS), width in prop_oneof![Just(None), (0usize..40).prop_map(Some)], height in 0usize..64) {
        for (_, body) in split_board_file(&text) {
            let _ = Board::parse(&body, width, height);
        }
        let _ = Board::parse(&text, width, height);
    }

    #[test]
    fn records_never_panic(text in mutated(RECORDS)) {
        if let Ok(record) = Record::parse(&text) {
            let _ = replay(&record);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn frames_files_never_panic(text in mutated_frames()) {
        if let Ok(file) = FramesFile::parse(&text) {
            let mut game = file.new_game();
            for frame in &file.frames {
                if replay_frame(&mut game, frame).is_err() {
                    break;
                }
            }
        }
    }
}

proptest! {
    // Each case writes a run folder and may draw a plot: fewer cases.
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn generation_logs_never_panic_or_hang(text in mutated(GENERATIONS)) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("generations.csv"), &text).unwrap();
        if let Ok(series) = tetris_lab::tune::plot::read_run(dir.path()) {
            let all = [&series.work, &series.incumbent, &series.incumbent_low, &series.incumbent_high, &series.generation_mean, &series.generation_best_so_far];
            prop_assert!(all.iter().all(|column| column.iter().all(|v| v.is_finite())));
            for scale in [tetris_lab::tune::plot::Scale::Linear, tetris_lab::tune::plot::Scale::Logarithmic] {
                let _ = tetris_lab::tune::plot::draw(std::slice::from_ref(&series), "fuzz", &dir.path().join("plot.svg"), scale);
            }
        }
    }
}

/// A search state's bytes after `pieces` of the contest's pieces at beam 6 (seed moves).
fn saved_state(pieces: usize) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut save = |progress: &tetris_lab::etetris::solver::Progress, state: &dyn Fn() -> SearchState| {
        if progress.pieces == pieces {
            bytes = state().to_bytes("");
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    };
    let search = BeamSearch::new(Options::new(6, MoveSet::Seed, Weights::default())).solve_resumable(
        Grid::default(),
        &sequence(40),
        None,
        &mut save,
    );
    assert!(matches!(search, Ok(None)), "stopped at piece {pieces}");
    bytes
}

/// The 64-bit FNV-1a checksum a search state ends with (of all its bytes before it), so
/// the edits below reach the checks behind it.
fn with_checksum(mut body: Vec<u8>) -> Vec<u8> {
    let checksum = body
        .iter()
        .fold(0xcbf2_9ce4_8422_2325u64, |hash, &byte| (hash ^ byte as u64).wrapping_mul(0x0000_0100_0000_01b3));
    body.extend_from_slice(&checksum.to_le_bytes());
    body
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    /// Checkpoints edited past their checksum (bytes changed, the end cut or extended,
    /// the checksum made to match): reading them never panics, and a state they accept
    /// resumes its search to the end and writes its record, or fails, without panicking.
    #[test]
    fn search_states_never_panic(
        pieces in 1usize..30,
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4),
        length_change in prop_oneof![4 => Just(0i64), 1 => -20i64..20],
        checksum_fixed in prop::bool::weighted(0.8),
    ) {
        let bytes = saved_state(pieces);
        let mut body = bytes[..bytes.len() - 8].to_vec();
        for (at, byte) in &edits {
            let at = at.index(body.len() - 16) + 16; // past the name and the (empty) note
            body[at] = *byte;
        }
        let new_length = (body.len() as i64 + length_change).max(16) as usize;
        body.resize(new_length, 0xAB);
        let edited = if checksum_fixed { with_checksum(body) } else { [body, bytes[bytes.len() - 8..].to_vec()].concat() };
        if let Ok((state, _)) = SearchState::from_bytes(&edited) {
            let spawns = sequence(40);
            let mut go_on = |_: &tetris_lab::etetris::solver::Progress, _: &dyn Fn() -> SearchState| ControlFlow::Continue(());
            let search = BeamSearch::new(Options::new(6, MoveSet::Seed, Weights::default()))
                .solve_resumable(Grid::default(), &spawns, Some(state), &mut go_on);
            if let Ok(Some(solution)) = search {
                let _ = check(&spawns, &solution, MoveSet::Seed);
            }
        }
        // Unedited, it reads back.
        prop_assert!(SearchState::from_bytes(&bytes).is_ok());
    }
}
