//! `tetris-lab splice RECORD...`: the best game through the boards of several records
//! ([`crate::etetris::splice`]): where two records have the same board after the same
//! piece, either may go on from there, so the game takes, between such meeting points,
//! the stretch that scores most. Writes the record (replayed and checked) and its manifest,
//! and prints the score against the best record given.

use super::solve::{etetris_manifest, prepare_record_path, write_record};
use crate::etetris::polish::Line;
use crate::etetris::record::{replay, Record};
use crate::etetris::splice::splice;
use crate::report::atomic_file::check_distinct;
use crate::report::run_dir::{manifest_beside, write_manifest_beside};
use anyhow::{ensure, Context, Result};
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The records to recombine (bare, or the contest's JavaScript line); two or more.
    #[arg(required = true, num_args = 2.., value_name = "RECORD")]
    pub files: Vec<PathBuf>,
    /// Where to write the spliced record [default: results/etetris-spliced.txt].
    #[arg(long)]
    pub record: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<()> {
    let path = args.record.clone().unwrap_or_else(|| PathBuf::from("results/etetris-spliced.txt"));
    let manifest = manifest_beside(&path);
    let inputs: Vec<(&str, Option<&Path>)> =
        args.files.iter().map(|file| ("a record being spliced", Some(file.as_path()))).collect();
    check_distinct(&[("--record", Some(&path)), ("the manifest beside --record", Some(&manifest))], &inputs)?;
    let mut lines = Vec::with_capacity(args.files.len());
    for file in &args.files {
        let text =
            std::fs::read_to_string(file).with_context(|| format!("cannot read record file {}", file.display()))?;
        let record = Record::parse(&text).with_context(|| format!("record file {}", file.display()))?;
        let line = Line::new(&record);
        ensure!(line.pieces() > 0, "record file {}: no piece locks", file.display());
        lines.push(line);
    }
    prepare_record_path(&path)?;
    let spliced = splice(&lines).expect("at least two records");
    let record = spliced.record();
    // The game's own count, not the splice's sum, is the score written.
    let replayed = replay(&record);
    ensure!(
        replayed.score == u64::from(spliced.line.score()) && replayed.pieces == spliced.line.pieces(),
        "the spliced game replays to {} in {} pieces, not the {} in {} pieces its records add up to",
        replayed.score,
        replayed.pieces,
        spliced.line.score(),
        spliced.line.pieces()
    );
    let (best, best_score) = lines
        .iter()
        .enumerate()
        .map(|(index, line)| (index, line.score()))
        .fold((0, 0), |best, this| if this.1 > best.1 { this } else { best });
    let given = spliced.pieces_from(lines.len());
    let sources: Vec<serde_json::Value> = args
        .files
        .iter()
        .zip(&lines)
        .zip(&given)
        .map(|((file, line), pieces)| {
            serde_json::json!({"record": file.display().to_string(), "score": line.score(), "pieces_given": pieces})
        })
        .collect();
    write_record(&path, &record)?;
    write_manifest_beside(
        &path,
        "splice",
        etetris_manifest(serde_json::json!({
            "record": path.display().to_string(),
            "spliced": sources,
            "score_before": best_score,
            "score": spliced.line.score(),
            "switches": spliced.switches(),
            "pieces_played": spliced.line.pieces(),
        })),
    )?;
    for ((file, line), pieces) in args.files.iter().zip(&lines).zip(&given) {
        eprintln!("{:>9}  {pieces:>5} pieces given  {}", line.score(), file.display());
    }
    println!(
        "score={} before={best_score} gain={} switches={} pieces={} best={} record={}",
        spliced.line.score(),
        spliced.line.score() - best_score,
        spliced.switches(),
        spliced.line.pieces(),
        args.files[best].display(),
        path.display()
    );
    Ok(())
}
