//! The shipped evaluator weights (`weights/`) and the project's best E-Tetris records: every
//! weights file parses as `solve --weights` reads it; the best record, and the best at beam
//! <= 10,000 (the moonshot's width), replay under the game's rules to more than the
//! contest's winning score; and the README states their scores and what the best record's
//! points are made of (`replay --breakdown`).

use std::path::{Path, PathBuf};
use tetris_lab::etetris::breakdown::Breakdown;
use tetris_lab::etetris::record::{replay, Record};
use tetris_lab::etetris::weights::{Overflow, Weights};

/// The contest's winning entry (spec: "Other contest entries").
const CONTEST_WINNER: u64 = 1_413_876;

fn repository_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(name)
}

/// A record file of the repository, parsed.
fn record(name: &str) -> Record {
    Record::parse(&std::fs::read_to_string(repository_file(name)).unwrap()).unwrap()
}

/// The README's words with line breaks folded, as its paragraphs wrap anywhere.
fn readme_words() -> String {
    std::fs::read_to_string(repository_file("README.md")).unwrap().split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn every_shipped_weights_file_parses() {
    let mut parsed = Vec::new();
    for entry in std::fs::read_dir(repository_file("weights")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let weights = Weights::load(&path).unwrap_or_else(|e| panic!("{e:#}"));
            parsed.push((path.file_name().unwrap().to_string_lossy().into_owned(), weights));
        }
    }
    let full = parsed.iter().find(|(name, _)| name == "etetris-full.toml").expect("weights/etetris-full.toml");
    assert_ne!(full.1, Weights::default(), "the tuned weights are not the seed's");
    // The overflow file is the same weights with the sequence's term added.
    let overflow = parsed.iter().find(|(name, _)| name == "etetris-full-overflow.toml").expect("the overflow file");
    assert_eq!(overflow.1.overflow, Overflow::new(0.25, 170.0));
    assert_eq!(Weights { overflow: Overflow::OFF, ..overflow.1 }, full.1);
}

/// The score a record file of `weights/` replays to, checked to be a whole game above the
/// contest's winner and stated in the README.
fn replayed_score_stated_in_readme(name: &str) -> u64 {
    let result = replay(&record(name));
    assert_eq!(result.pieces, 10_000, "{name}");
    assert!(result.score > CONTEST_WINNER, "{name}: {} is not above the contest's winner", result.score);
    // The README prints figures with thousands separators.
    let digits = result.score.to_string();
    let grouped = format!("{},{},{}", &digits[..1], &digits[1..4], &digits[4..]);
    let readme = std::fs::read_to_string(repository_file("README.md")).unwrap();
    assert!(readme.contains(&grouped), "README.md does not state the score of {name}, {grouped}");
    result.score
}

#[test]
fn the_best_records_replay_above_the_contest_winner_and_the_readme_says_their_scores() {
    let best = replayed_score_stated_in_readme("weights/etetris-best-record.txt");
    // The best at the moonshot's width (a first stage of beam <= 10,000) cannot beat the
    // best at any width.
    let narrow = replayed_score_stated_in_readme("weights/etetris-best-record-k10000.txt");
    assert!(narrow <= best, "the beam-10,000 record {narrow} beats the best record {best}");
}

#[test]
fn the_best_records_breakdown_adds_up_and_the_readme_quotes_it() {
    // The passage is about the beam-30,000 record, the best then.
    let breakdown = Breakdown::of(&record("data/etetris/k30000-1427648.txt"));
    assert_eq!(breakdown.pieces, 10_000);
    assert_eq!(breakdown.points.iter().sum::<u64>(), breakdown.score, "the clears' points are the score");
    // The spec's count of I pieces among the 10,000, and only an I spans four rows.
    assert_eq!(breakdown.i_pieces, 722);
    assert_eq!(breakdown.clears_by_shape[0][3], breakdown.clears[3]);
    assert!(breakdown.idle_i_pieces_that_could_clear_four <= breakdown.idle_i_pieces);
    // 40,000 cells were played; a clear removes 10 a row.
    assert!(breakdown.rows_cleared() <= 4_000);
    let readme = readme_words();
    for quoted in [
        format!("{} four-row clears", breakdown.clears[3]),
        format!("{} three-row", breakdown.clears[2]),
        format!("{} of its {} I pieces clear nothing", breakdown.idle_i_pieces, breakdown.i_pieces),
        format!("{} of those could have cleared four rows", breakdown.idle_i_pieces_that_could_clear_four),
    ] {
        assert!(readme.contains(&quoted), "README.md does not say \"{quoted}\" of the best record");
    }
}

/// The waits of the beam-10,000 record's idle I pieces, as the README quotes them (its
/// breakdown's last two lines, verbatim), and the gaps between I pieces it gives.
#[test]
fn the_beam_10000_records_waits_are_quoted_from_its_breakdown() {
    // The passage is about the beam-10,000 record before the splice.
    let breakdown = Breakdown::of(&record("data/etetris/k10000-1427634.txt"));
    let waits = breakdown.idle_i_pieces_that_could_clear_four;
    assert!(breakdown.waits_ended_by_a_four <= waits && breakdown.waits_with_an_i_within_four <= waits);
    let report = breakdown.report();
    let readme = std::fs::read_to_string(repository_file("README.md")).unwrap();
    for line in report.lines().rev().take(2) {
        assert!(readme.contains(line), "README.md does not quote the breakdown's line \"{line}\"");
    }
    let sequence = tetris_lab::etetris::game::sequence(10_000);
    let i_pieces: Vec<usize> = (0..sequence.len()).filter(|&k| sequence[k].shape == 0).collect();
    let gaps: Vec<usize> = i_pieces.windows(2).map(|pair| pair[1] - pair[0]).collect();
    let counts = format!(
        "{} {} {}",
        gaps.len(),
        gaps.iter().filter(|&&gap| gap == 1).count(),
        gaps.iter().filter(|&&gap| gap <= 4).count()
    );
    assert!(readme.contains(&format!("\n{counts}\n")), "README.md does not give the I gaps {counts}");
}

/// "Splicing records": the two earlier beam-10,000 records meet in 89 stretches, 1,456
/// pieces in all (what the splice's manifest reports as `meeting_stretches`, `pieces_met`).
#[test]
fn the_two_earlier_records_meet_as_the_readme_says() {
    use tetris_lab::etetris::polish::Line;
    let line = |name: &str| Line::new(&record(name));
    let lines = [line("data/etetris/k10000-1427634.txt"), line("data/etetris/k10000-1426884.txt")];
    let (pieces, stretches) = tetris_lab::etetris::splice::meetings(&lines);
    assert_eq!((pieces, stretches), (1_456, 89));
    let readme = readme_words();
    assert!(readme.contains("in 89 stretches") && readme.contains("after 1,456 of their 10,000 pieces"));
}

/// "Bridges all along the game": its rounds start from the 1,429,054 record kept in
/// `data/etetris/`, and the record they make, in `weights/`, plays better (a round keeps
/// its game unless a bridge gains).
#[test]
fn the_rounds_along_the_game_start_from_the_kept_record_and_gain() {
    let start = replay(&record("data/etetris/k10000-1429054.txt"));
    assert_eq!((start.pieces, start.score), (10_000, 1_429_054), "the file holds the record its name gives");
    let readme = readme_words();
    assert!(readme.contains("starting from the 1,429,054 record (now kept as `data/etetris/k10000-1429054.txt`)"));
    let best = replayed_score_stated_in_readme("weights/etetris-best-record-k10000.txt");
    assert!(best > start.score, "the rounds' record {best} does not beat their start {}", start.score);
}

/// Every record kept in `data/etetris/` as `k<beam>-<score>.txt` is a whole game that
/// replays to the score its name gives (the measurements that name them rely on it).
#[test]
fn the_kept_records_replay_to_the_scores_their_names_give() {
    let mut checked = 0;
    for entry in std::fs::read_dir(repository_file("data/etetris")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let Some(score) = name.strip_suffix(".txt").and_then(|stem| stem.split_once('-')).map(|(_, score)| score)
        else {
            continue;
        };
        let Ok(score) = score.parse::<u64>() else { continue };
        let result = replay(&record(&format!("data/etetris/{name}")));
        assert_eq!((result.pieces, result.score), (10_000, score), "{name}");
        checked += 1;
    }
    assert!(checked >= 7, "{checked} records checked");
}

/// "Detours and chained bridges", "Aimed back, led in, jittered", "Other keys to land on,
/// and a carried search" and "Other weights in the carried search": their rounds start
/// from the 1,429,612, 1,429,842, 1,429,888, 1,429,928, 1,429,936, 1,429,940, 1,429,952 and
/// 1,430,014 records kept in `data/etetris/`, and the record they make, in `weights/`,
/// plays better than all eight.
#[test]
fn the_rounds_along_the_detours_start_from_the_kept_records_and_gain() {
    let readme = readme_words();
    let best = replayed_score_stated_in_readme("weights/etetris-best-record-k10000.txt");
    for kept in [
        "data/etetris/k10000-1429612.txt",
        "data/etetris/k10000-1429842.txt",
        "data/etetris/k10000-1429888.txt",
        "data/etetris/k10000-1429928.txt",
        "data/etetris/k10000-1429936.txt",
        "data/etetris/k10000-1429940.txt",
        "data/etetris/k10000-1429952.txt",
        "data/etetris/k10000-1430014.txt",
    ] {
        let start = replay(&record(kept));
        assert!(readme.contains(&format!("(kept as `{kept}`)")), "{kept}");
        assert!(best > start.score, "the rounds' record {best} does not beat their start {kept}, {}", start.score);
    }
}
