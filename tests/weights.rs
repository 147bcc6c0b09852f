//! The shipped evaluator weights (`weights/`) and the project's best E-Tetris records: every
//! weights file parses as `solve --weights` reads it; the best record, and the best at beam
//! <= 10,000 (the width the record was made at), replay under the game's rules to more than the
//! contest's winning score; and docs/etetris.md states their scores.

use std::path::{Path, PathBuf};
use tetris_lab::etetris::breakdown::Breakdown;
use tetris_lab::etetris::record::{replay, Record};
use tetris_lab::etetris::weights::{Overflow, Part, Weights, TERMS};

/// The contest's winning entry (spec: "Other contest entries").
const CONTEST_WINNER: u64 = 1_413_876;

fn repository_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(name)
}

/// A record file of the repository, parsed.
fn record(name: &str) -> Record {
    Record::parse(&std::fs::read_to_string(repository_file(name)).unwrap()).unwrap()
}

/// The E-Tetris page's words with line breaks folded, as its paragraphs wrap anywhere.
fn page_words() -> String {
    std::fs::read_to_string(repository_file("docs/etetris.md"))
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
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
    assert_ne!(full.1, Weights::default(), "the tuned weights are not the published ones");
    // The overflow file is the same weights with the sequence's term added.
    let overflow = parsed.iter().find(|(name, _)| name == "etetris-full-overflow.toml").expect("the overflow file");
    assert_eq!(overflow.1.overflow, Overflow::new(0.25, 170.0));
    assert_eq!(Weights { overflow: Overflow::OFF, ..overflow.1 }, full.1);
}

/// docs/etetris.md has a row of its weights-file table for every term of the evaluator, saying
/// what it counts as `TERMS` does.
#[test]
fn the_etetris_page_lists_every_term() {
    let page = std::fs::read_to_string(repository_file("docs/etetris.md")).unwrap();
    for term in TERMS {
        let part = match term.part {
            Part::Seed => "required",
            Part::Extra => "optional",
        };
        let row = format!("| `{}` | {} | {part} |", term.name, term.counts);
        assert!(page.contains(&row), "docs/etetris.md has no row {row}");
    }
}

/// The score a record file of `weights/` replays to, checked to be a whole game above the
/// contest's winner and stated in docs/etetris.md.
fn replayed_score_stated_in_docs(name: &str) -> u64 {
    let result = replay(&record(name));
    assert_eq!(result.pieces, 10_000, "{name}");
    assert!(result.score > CONTEST_WINNER, "{name}: {} is not above the contest's winner", result.score);
    // The page prints figures with thousands separators.
    let digits = result.score.to_string();
    let grouped = format!("{},{},{}", &digits[..1], &digits[1..4], &digits[4..]);
    assert!(page_words().contains(&grouped), "docs/etetris.md does not state the score of {name}, {grouped}");
    result.score
}

#[test]
fn the_best_records_replay_above_the_contest_winner_and_the_docs_say_their_scores() {
    let best = replayed_score_stated_in_docs("weights/etetris-best-record.txt");
    // The best at beam <= 10,000 (a first stage of beam <= 10,000) cannot beat the
    // best at any width.
    let narrow = replayed_score_stated_in_docs("weights/etetris-best-record-k10000.txt");
    assert!(narrow <= best, "the beam-10,000 record {narrow} beats the best record {best}");
}

#[test]
fn the_best_records_breakdown_adds_up() {
    let breakdown = Breakdown::of(&record("weights/etetris-best-record.txt"));
    assert_eq!(breakdown.pieces, 10_000);
    assert_eq!(breakdown.points.iter().sum::<u64>(), breakdown.score, "the clears' points are the score");
    // The sequence's count of I pieces among the 10,000, and only an I spans four rows.
    assert_eq!(breakdown.i_pieces, 722);
    assert_eq!(breakdown.clears_by_shape[0][3], breakdown.clears[3]);
    assert!(breakdown.idle_i_pieces_that_could_clear_four <= breakdown.idle_i_pieces);
    assert!(breakdown.waits_ended_by_a_four <= breakdown.idle_i_pieces_that_could_clear_four);
    // 40,000 cells were played; a clear removes 10 a row.
    assert!(breakdown.rows_cleared() <= 4_000);
}

/// The two earlier beam-10,000 records meet in 89 stretches, 1,456 pieces in all (what the
/// splice's manifest reports as `meeting_stretches`, `pieces_met`), as docs/etetris.md says.
#[test]
fn the_two_earlier_records_meet_as_the_docs_say() {
    use tetris_lab::etetris::records::polish::Line;
    let line = |name: &str| Line::new(&record(name));
    let lines = [line("data/etetris/k10000-1427634.txt"), line("data/etetris/k10000-1426884.txt")];
    let (pieces, stretches) = tetris_lab::etetris::records::splice::meetings(&lines);
    assert_eq!((pieces, stretches), (1_456, 89));
    assert!(page_words().contains("after 1,456 pieces"));
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

/// The records the carried searches started from, kept in `data/etetris/`: the record they
/// made, in `weights/`, plays better than each.
#[test]
fn the_best_record_beats_every_record_it_was_made_from() {
    let best = replayed_score_stated_in_docs("weights/etetris-best-record-k10000.txt");
    for kept in [
        "data/etetris/k10000-1429054.txt",
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
        assert!(best > start.score, "the record {best} does not beat {kept}, {}", start.score);
    }
}
