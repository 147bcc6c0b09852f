//! A reproduction run's files: the table (CSV and Markdown), every game, the manifest
//! that `--resume` reads, and the time estimate said before `--full` starts.

use super::{duration, markdown_table, method_name, remaining_pieces, warm_up, Planned, Row};
use crate::presets;
use crate::report::ledger::Ledger;
use crate::sim::GameRecord;
use crate::support::atomic_file::AtomicFile;
use crate::support::text::group;
use anyhow::Result;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::time::SystemTime;

/// What the output files say about the run as a whole.
pub struct Run {
    pub seed: u64,
    pub threads: usize,
    pub full: bool,
    pub started: SystemTime,
    /// Measurements selected (rows written so far may be fewer).
    pub planned: usize,
    /// The arguments that decide what the run measures, as a command line: what
    /// `--resume` reads back.
    pub arguments: Vec<String>,
}

/// Writes (each file whole, replacing the last) `table.csv`, `games.csv`, `table.md` and
/// `manifest.json` of a run folder: after every measurement, and once before the first so
/// that a run stopped during it can be resumed.
pub fn write_outputs(
    dir: &Path,
    rows: &[Row],
    games: &[(usize, String, String, GameRecord)],
    run: &Run,
    finished: SystemTime,
    rule_sets: &BTreeMap<String, String>,
) -> Result<()> {
    let Run { seed, threads, full, started, planned, .. } = *run;
    let mut table = AtomicFile::create(&dir.join("table.csv"))?;
    {
        let mut w = csv::Writer::from_writer(table.writer());
        w.write_record([
            "preset",
            "rule_set",
            "board",
            "games",
            "metric",
            "mean",
            "low_95",
            "high_95",
            "published",
            "published_tolerance",
            "published_source",
            "inside",
            "kind",
            "how_measured",
            "seconds",
        ])?;
        for r in rows {
            let number = |x: Option<f64>| x.map(|v| format!("{v}")).unwrap_or_default();
            w.write_record([
                r.preset.clone(),
                r.rule_set.clone(),
                r.board.clone(),
                r.count.clone(),
                r.metric.to_string(),
                number(r.mean),
                number(r.interval.map(|i| i.0)),
                number(r.interval.map(|i| i.1)),
                number(r.published.map(|p| p.value)),
                number(r.published.and_then(|p| p.tolerance)),
                r.published.map(|p| p.source.to_string()).unwrap_or_default(),
                r.verdict.clone(),
                r.kind.to_string(),
                r.method.clone(),
                format!("{:.3}", r.seconds),
            ])?;
        }
        w.flush()?;
    }
    table.commit()?;

    let mut per_game = AtomicFile::create(&dir.join("games.csv"))?;
    {
        let mut w = csv::Writer::from_writer(per_game.writer());
        w.write_record(["measurement", "preset", "board", "seed", "lines", "pieces", "score", "end"])?;
        for (measurement, preset, board, r) in games {
            w.write_record([
                measurement.to_string(),
                preset.clone(),
                board.clone(),
                r.seed.to_string(),
                r.lines.to_string(),
                r.pieces.to_string(),
                r.score.to_string(),
                r.end.as_str().to_string(),
            ])?;
        }
        w.flush()?;
    }
    per_game.commit()?;

    let mut markdown = AtomicFile::create(&dir.join("table.md"))?;
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0);
    writeln!(
        markdown.writer(),
        "# tetris-lab reproduce ({})\n\nSeed {}, {} thread(s) on a {}-core machine, {} to {} UTC, tetris-lab {}.\n",
        if full { "--full" } else { "--quick" },
        seed,
        threads,
        cores,
        utc_text(started),
        utc_text(finished),
        env!("CARGO_PKG_VERSION"),
    )?;
    write!(markdown.writer(), "{}", markdown_table(rows))?;
    writeln!(
        markdown.writer(),
        "\n\"inside\": the published figure lies in the measured 95% interval; \"overlap\": it does not, \
         but the published figure's own interval overlaps ours. An estimate's interval is the fit's: \
         sampling error, widened by the scatter about the line, Student's t; see \"check\" for how \
         far the line carried on before."
    )?;
    markdown.commit()?;

    let manifest = serde_json::json!({
        "command": "reproduce",
        "arguments": std::env::args().skip(1).collect::<Vec<_>>(),
        "mode": if full { "full" } else { "quick" },
        "seed": seed,
        "threads": threads,
        "cores": cores,
        "crate_version": env!("CARGO_PKG_VERSION"),
        "git_hash": crate::support::run_dir::git_hash(),
        "started_utc": utc_text(started),
        "updated_utc": utc_text(finished),
        "rule_set_versions": rule_sets,
        "reproduce_arguments": run.arguments,
        "ledger": "ledger.csv",
        "measurements_planned": planned,
        "measurements_done": rows.len(),
    });
    let mut file = AtomicFile::create(&dir.join("manifest.json"))?;
    serde_json::to_writer_pretty(file.writer(), &manifest)?;
    writeln!(file.writer())?;
    file.commit()
}

/// What `--full` says before it starts: how many pieces each measurement should still take
/// (its games already in the ledger of a resumed run left out) and how long that is at the
/// per-piece speed of a short single-threaded warm-up, one line each and the total.
pub fn time_estimate(selection: &[Planned], threads: usize, seed: u64, ledger: &Ledger) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "time estimate (warm-up speed per thread x {threads} thread(s), perfect scaling assumed):");
    let mut total = 0.0;
    let mut unknown = 0;
    for planned in selection {
        let m = &planned.measurement;
        let Some(preset) = presets::REGISTRY.iter().find(|p| p.name == m.preset) else { continue };
        let Ok(built) = preset.build(planned.board, None) else { continue };
        let board = built.rules.new_board();
        let remaining = remaining_pieces(planned, board.width(), board.height(), seed, ledger);
        let done = match remaining.finished {
            0 => String::new(),
            finished if finished == remaining.planned => "done: ".to_string(),
            finished => format!("{} of {} games done, ", group(finished as f64, 0), group(remaining.planned as f64, 0)),
        };
        let line = if remaining.finished == remaining.planned {
            "every game in the ledger".to_string()
        } else {
            let speed = warm_up(built.driver());
            let parallel = threads.min((remaining.planned - remaining.finished) as usize).max(1);
            match remaining.pieces {
                Some(pieces) => {
                    let seconds = pieces / (speed * parallel as f64);
                    total += seconds;
                    format!(
                        "{} pieces left at {:.0} pieces/s per thread: {}",
                        group(pieces, 0),
                        speed,
                        duration(seconds)
                    )
                }
                None => {
                    unknown += 1;
                    format!("unknown length (no published figure to size it), {speed:.0} pieces/s per thread")
                }
            }
        };
        let _ = writeln!(
            out,
            "  {:<24} {:>6}x{:<3} {:<12} {done}{line}",
            m.preset,
            board.width(),
            board.height(),
            method_name(m.method),
        );
    }
    let _ = writeln!(
        out,
        "total: about {}{}",
        duration(total),
        if unknown > 0 { format!(" plus {unknown} measurement(s) of unknown length") } else { String::new() }
    );
    out
}

/// `2026-11-29 12:41:00`.
pub fn utc_text(time: SystemTime) -> String {
    let (y, mo, d, h, mi, s) = crate::support::run_dir::utc_parts(time);
    format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn utc_dates() {
        // 2000-02-29 12:34:56 UTC (a leap day).
        assert_eq!(utc_text(UNIX_EPOCH + Duration::from_secs(951_827_696)), "2000-02-29 12:34:56");
    }
}
