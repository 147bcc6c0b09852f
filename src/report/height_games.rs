//! Full games read back from per-game CSV files and carried over board heights: the
//! engine of `tetris-lab extrapolate`, so that any table of predictions (the README's
//! validation of the 10x20 estimates) can be computed again from the games themselves.
//!
//! Two kinds of file are read: `play --csv` files, which hold one board's games and do not
//! name it (the source names it: `10x12=games.csv`), `reproduce`'s `games.csv`, whose
//! `board` and `preset` columns say where each game was played, and its `ledger.csv`,
//! whose measurement keys say it (`bcts:10x16:seed S:cap none`), so that a `--full` run
//! can be fitted while it is still going.

use crate::board::parse_size;
use crate::names;
use crate::report::extrapolation::{HeightFit, HeightSample, Prediction};
use crate::sim::GameEnd;
use crate::support::stats::{Quantity as StatsQuantity, Summary};
use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::path::Path;

/// What is counted per game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantity {
    Rows,
    Pieces,
}

impl Quantity {
    pub fn parse(name: &str) -> Result<Quantity> {
        match name {
            "rows" | "lines" => Ok(Quantity::Rows),
            "pieces" => Ok(Quantity::Pieces),
            other => bail!("--metric {other:?}: expected rows or pieces"),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Quantity::Rows => "rows",
            Quantity::Pieces => "pieces",
        }
    }
}

/// One game of a file.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRow {
    pub board: (usize, usize),
    pub preset: Option<String>,
    /// The `reproduce` table row the game was played for (its games.csv's `measurement`).
    pub table_row: Option<u64>,
    pub rows: f64,
    pub pieces: f64,
    /// The game was stopped alive at a piece cap: not a full game.
    pub capped: bool,
}

impl GameRow {
    fn value(&self, quantity: Quantity) -> f64 {
        match quantity {
            Quantity::Rows => self.rows,
            Quantity::Pieces => self.pieces,
        }
    }
}

/// Reads a source: `WxH=FILE` (a `play --csv` file, or any file whose games are all on
/// that board) or `FILE` (a file with a `board` column, such as `reproduce`'s games.csv, or
/// a `reproduce` ledger, whose measurement keys name preset and board: a run still going
/// can be fitted).
pub fn read_source(source: &str) -> Result<Vec<GameRow>> {
    match source.split_once('=') {
        Some((size, path)) => match parse_size(size) {
            Ok(size) => read_file(Path::new(path), Some(size)),
            // A file whose own name holds a '='.
            Err(_) if Path::new(source).exists() => read_file(Path::new(source), None),
            Err(e) => bail!("{source}: {e} (a source is WxH=FILE, or a file with a board column)"),
        },
        None => read_file(Path::new(source), None),
    }
}

fn read_file(path: &Path, board: Option<(usize, usize)>) -> Result<Vec<GameRow>> {
    let shown = path.display();
    let mut reader = csv::Reader::from_path(path).with_context(|| format!("cannot read {shown}"))?;
    let headers = reader.headers().with_context(|| format!("{shown}: cannot read the header line"))?.clone();
    let column = |name: &str| headers.iter().position(|h| h == name);
    let need = |name: &str| {
        column(name)
            .with_context(|| format!("{shown}: no column {name:?} (a per-game CSV of `play --csv` or `reproduce`)"))
    };
    let (rows_at, pieces_at, end_at) = (need("lines")?, need("pieces")?, need("end")?);
    // Where a game's board (and preset, and table row) is read from.
    enum Layout {
        Named((usize, usize)),
        /// `reproduce`'s games.csv: `board`, `preset`, `measurement` (the table row).
        Columns {
            board: usize,
            preset: Option<usize>,
            table_row: Option<usize>,
        },
        /// `reproduce`'s ledger.csv: `measurement` is a key, `preset:WxH:seed S:cap C`.
        LedgerKey(usize),
    }
    let layout = match (board, column("board"), column("measurement")) {
        (Some(size), _, _) => Layout::Named(size),
        (None, Some(board), table_row) => Layout::Columns { board, preset: column("preset"), table_row },
        (None, None, Some(key)) if column("game").is_some() => Layout::LedgerKey(key),
        (None, None, _) => bail!("{shown}: no column \"board\": name the board of its games, as 10x12={shown}"),
    };
    let mut games = Vec::new();
    for (index, record) in reader.records().enumerate() {
        let line = index + 2;
        let record = record.with_context(|| format!("{shown}, line {line}: not CSV"))?;
        let field =
            |at: usize, name: &str| record.get(at).with_context(|| format!("{shown}, line {line}: no {name} field"));
        let number = |at: usize, name: &str| -> Result<f64> {
            let text = field(at, name)?;
            text.parse::<u64>().map(|n| n as f64).map_err(|_| {
                anyhow::anyhow!("{shown}, line {line}: {name} {} is not a whole number", crate::names::Quoted(text))
            })
        };
        let (board, preset, table_row) = match layout {
            Layout::Named(size) => (size, None, None),
            Layout::Columns { board, preset, table_row } => {
                let text = field(board, "board")?;
                let size = parse_size(text).map_err(|e| anyhow::anyhow!("{shown}, line {line}: {e}"))?;
                let table_row = match table_row {
                    Some(at) => Some(number(at, "measurement")? as u64),
                    None => None,
                };
                (size, preset.and_then(|at| record.get(at)).map(str::to_string), table_row)
            }
            Layout::LedgerKey(at) => {
                let key = field(at, "measurement")?;
                let mut parts = key.split(':');
                let (preset, size) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
                let size = parse_size(size)
                    .map_err(|e| anyhow::anyhow!("{shown}, line {line}: measurement {key:?} names no board: {e}"))?;
                (size, Some(preset.to_string()), None)
            }
        };
        if let Some(name) = &preset {
            crate::presets::find(name).with_context(|| format!("{shown}, line {line}: preset"))?;
        }
        let capped = match field(end_at, "end")? {
            end if end == GameEnd::PieceCap.as_str() => true,
            end if end == GameEnd::GameOver.as_str() => false,
            end => bail!(
                "{shown}, line {line}: end {end:?} is neither {} nor {}",
                GameEnd::GameOver.as_str(),
                GameEnd::PieceCap.as_str()
            ),
        };
        let (rows, pieces) = (number(rows_at, "lines")?, number(pieces_at, "pieces")?);
        // A piece brings 4 cells and a cleared row takes a board's width of them.
        let most = (4.0 * pieces / board.0 as f64).floor();
        if rows > most {
            bail!(
                "{shown}, line {line}: {rows} rows from {pieces} pieces: on a board {} wide they clear at most {most}",
                board.0
            );
        }
        games.push(GameRow { board, preset, table_row, rows, pieces, capped });
    }
    if games.is_empty() {
        bail!("{shown}: no games");
    }
    Ok(games)
}

/// What to fit and where to carry it.
#[derive(Clone, Debug)]
pub struct Request {
    /// The height the line is carried to.
    pub target: usize,
    /// The heights fitted: all heights of the games below `target` when `None`.
    pub lowest: Option<usize>,
    pub highest: Option<usize>,
    /// Only the games of this preset, in files with a `preset` column (a `WxH=FILE` source
    /// without one is taken whole: the user named its games).
    pub preset: Option<String>,
    /// Only the games of these `reproduce` table rows, in files with a `measurement` column
    /// (all when empty): an estimate's row, and the row of full games at the target.
    pub table_rows: Vec<u64>,
    pub quantity: Quantity,
}

/// The fit, the prediction and, when the games hold full games at the target height, the
/// measured mean there.
#[derive(Clone, Debug)]
pub struct Extrapolation {
    pub width: usize,
    pub samples: Vec<HeightSample>,
    pub fit: HeightFit,
    pub prediction: Prediction,
    pub measured: Option<Summary>,
}

impl Extrapolation {
    /// Whether the games measured at the target height lie inside the predicted interval.
    pub fn inside(&self) -> Option<bool> {
        self.measured.map(|m| (self.prediction.low..=self.prediction.high).contains(&m.mean))
    }
}

/// Groups the games by height, fits the chosen heights and predicts the target height.
pub fn extrapolate(games: &[GameRow], request: &Request) -> Result<Extrapolation> {
    let wanted = |game: &&GameRow| {
        let preset = match (&request.preset, &game.preset) {
            (Some(wanted), Some(preset)) => wanted == preset,
            _ => true,
        };
        let row = match game.table_row {
            Some(row) if !request.table_rows.is_empty() => request.table_rows.contains(&row),
            _ => true,
        };
        preset && row
    };
    let selected: Vec<&GameRow> = games.iter().filter(wanted).collect();
    if let Some(wanted) = &request.preset {
        let mut presets: Vec<&str> = games.iter().filter_map(|g| g.preset.as_deref()).collect();
        presets.sort_unstable();
        presets.dedup();
        if !presets.is_empty() && !presets.contains(&wanted.as_str()) {
            return Err(names::unknown("preset in the files", wanted, presets.into_iter()));
        }
    }
    if !request.table_rows.is_empty() && games.iter().all(|g| g.table_row.is_none()) {
        bail!("--row picks rows of a `reproduce` table, and the files have no \"measurement\" column naming them");
    }
    if selected.is_empty() {
        let rows: Vec<String> = request.table_rows.iter().map(u64::to_string).collect();
        bail!("no games in table row(s) {}", rows.join(", "));
    }
    let mut presets: Vec<&str> = selected.iter().filter_map(|g| g.preset.as_deref()).collect();
    presets.sort_unstable();
    presets.dedup();
    if presets.len() > 1 {
        bail!("the games are of {} presets ({}): choose one with --preset", presets.len(), presets.join(", "));
    }
    let mut widths: Vec<usize> = selected.iter().map(|g| g.board.0).collect();
    widths.sort_unstable();
    widths.dedup();
    if widths.len() != 1 {
        bail!("the games are on boards of {} widths; the fit carries one width over heights (use --preset or fewer files)", widths.len());
    }
    let width = widths[0];
    let mut by_height: BTreeMap<usize, Vec<&GameRow>> = BTreeMap::new();
    for game in &selected {
        by_height.entry(game.board.1).or_default().push(game);
    }
    let lowest = request.lowest.unwrap_or(*by_height.keys().next().expect("some games"));
    let highest = request
        .highest
        .unwrap_or_else(|| by_height.keys().copied().filter(|&h| h < request.target).max().unwrap_or(request.target));
    if lowest > highest {
        bail!("the heights fitted, {width}x{lowest}..{width}x{highest}, are empty");
    }
    if highest >= request.target {
        bail!("the heights fitted must be below the target {width}x{}", request.target);
    }
    let mut samples = Vec::new();
    for (&height, games) in by_height.range(lowest..=highest) {
        let capped = games.iter().filter(|g| g.capped).count();
        if capped > 0 {
            bail!("{width}x{height}: {capped} game(s) ended at the piece cap; the fit needs full games");
        }
        let values: Vec<f64> = games.iter().map(|g| g.value(request.quantity)).collect();
        let summary = Summary::of(&values, StatsQuantity::GameLength);
        samples.push(HeightSample {
            height,
            games: values.len(),
            mean: summary.mean,
            standard_deviation: summary.standard_deviation,
        });
    }
    let fit = HeightFit::fit(&samples).with_context(|| format!("fitting {width}x{lowest}..{width}x{highest}"))?;
    let prediction = fit.predict(request.target);
    let measured = by_height.get(&request.target).and_then(|games| {
        let full: Vec<f64> = games.iter().filter(|g| !g.capped).map(|g| g.value(request.quantity)).collect();
        (!full.is_empty()).then(|| Summary::of(&full, StatsQuantity::GameLength))
    });
    Ok(Extrapolation { width, samples, fit, prediction, measured })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(height: usize, rows: f64) -> GameRow {
        GameRow {
            board: (10, height),
            preset: Some("bcts".into()),
            table_row: Some(1),
            rows,
            pieces: rows * 2.5,
            capped: false,
        }
    }

    fn request(target: usize) -> Request {
        Request { target, lowest: None, highest: None, preset: None, table_rows: Vec::new(), quantity: Quantity::Rows }
    }

    #[test]
    fn a_geometric_series_of_games_is_carried_to_the_target_and_checked_there() {
        // Two games a height, 9 and 11 times 2^(h-4): mean 10 * 2^(h-4), the same relative
        // spread at every height, so the line is exact.
        let mut games = Vec::new();
        for height in 4..=8 {
            let scale = 2f64.powi(height as i32 - 4);
            games.push(game(height, 9.0 * scale));
            games.push(game(height, 11.0 * scale));
        }
        let result = extrapolate(&games, &request(8)).unwrap();
        assert_eq!(result.samples.len(), 4, "the target height is not fitted");
        assert!((result.prediction.mean - 160.0).abs() < 1e-9, "{}", result.prediction.mean);
        assert_eq!(result.measured.unwrap().mean, 160.0);
        assert_eq!(result.inside(), Some(true));
        let pieces = extrapolate(&games, &Request { quantity: Quantity::Pieces, ..request(8) }).unwrap();
        assert!((pieces.prediction.mean - 400.0).abs() < 1e-9);
    }

    #[test]
    fn the_heights_fitted_can_be_chosen() {
        let games: Vec<GameRow> =
            (4..=9).flat_map(|h| [game(h, 9.0 * 3f64.powi(h as i32)), game(h, 11.0 * 3f64.powi(h as i32))]).collect();
        let chosen = Request { lowest: Some(5), highest: Some(7), ..request(9) };
        let result = extrapolate(&games, &chosen).unwrap();
        assert_eq!(result.samples.iter().map(|s| s.height).collect::<Vec<_>>(), vec![5, 6, 7]);
        assert!((result.fit.slope.exp() - 3.0).abs() < 1e-9);
    }

    #[test]
    fn capped_games_mixed_widths_and_missing_presets_are_refused() {
        let mut games: Vec<GameRow> =
            (4..=7).flat_map(|h| [game(h, 10.0 * h as f64), game(h, 12.0 * h as f64)]).collect();
        games[0].capped = true;
        let e = extrapolate(&games, &request(10)).unwrap_err().to_string();
        assert!(e.contains("10x4") && e.contains("piece cap"), "{e}");
        games[0].capped = false;
        let e = extrapolate(&games, &Request { preset: Some("bct".into()), ..request(10) }).unwrap_err().to_string();
        assert!(e.contains("did you mean \"bcts\""), "{e}");
        let e = extrapolate(&games, &Request { table_rows: vec![2, 3], ..request(10) }).unwrap_err().to_string();
        assert!(e.contains("table row(s) 2, 3"), "{e}");
        assert!(extrapolate(&games, &Request { table_rows: vec![2, 1], ..request(10) }).is_ok());
        games.push(GameRow { board: (8, 5), ..game(5, 10.0) });
        assert!(extrapolate(&games, &request(10)).unwrap_err().to_string().contains("widths"));
        games.pop();
        let e = extrapolate(&games, &Request { highest: Some(10), ..request(10) }).unwrap_err().to_string();
        assert!(e.contains("below the target"), "{e}");
        let e = extrapolate(&games[..4], &request(10)).unwrap_err();
        assert!(format!("{e:#}").contains("three heights"), "{e:#}");
    }

    #[test]
    fn the_three_file_layouts_name_board_preset_and_row() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            path.display().to_string()
        };
        let play = write(
            "play.csv",
            "game,seed,lines,pieces,score,end,level\n0,1,10,30,0,game_over,\n1,2,4,12,0,piece_cap,\n",
        );
        let games = write(
            "games.csv",
            "measurement,preset,board,seed,lines,pieces,score,end\n3,bcts,10x9,1,20,55,0,game_over\n",
        );
        let ledger = write(
            "ledger.csv",
            "measurement,game,seed,lines,pieces,score,end,level\nbcts:10x16:seed 9:cap none,4,1,70,180,0,game_over,\n",
        );
        let played = read_source(&format!("10x7={play}")).unwrap();
        assert_eq!(played.len(), 2);
        assert_eq!((played[0].board, played[0].rows, played[0].pieces, played[0].capped), ((10, 7), 10.0, 30.0, false));
        assert!(played[1].capped);
        let reproduced = read_source(&games).unwrap();
        assert_eq!(
            (reproduced[0].board, reproduced[0].preset.as_deref(), reproduced[0].table_row),
            ((10, 9), Some("bcts"), Some(3))
        );
        let ledgered = read_source(&ledger).unwrap();
        assert_eq!(
            (ledgered[0].board, ledgered[0].preset.as_deref(), ledgered[0].rows),
            ((10, 16), Some("bcts"), 70.0)
        );
        assert!(format!("{:#}", read_source(&play).unwrap_err()).contains("10x12="));
    }
}
