//! The Python binding of tetris-lab, `tetris_lab._core`: the library's game loop, board
//! features and stepped games behind a few functions and one class, numpy arrays in and
//! out. Batches run with the GIL released, on the library's thread pool; no Python runs in
//! a loop over games or pieces. The Python package (`tetris_lab/`) wraps these in its
//! public functions and the Gymnasium environments.

use numpy::ndarray::Array2;
use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2, PyReadonlyArray3, PyReadwriteArray1,
    PyReadwriteArray2, PyReadwriteArray3,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;
use std::path::Path;
use tetris_lab::board::{parse_size, Board};
use tetris_lab::features::{self, Feature, FeatureContext};
use tetris_lab::piece::Piece;
use tetris_lab::presets::{self, Built, Preset};
use tetris_lab::rules::{self, RuleSet};
use tetris_lab::sim::{self, GameLimits, GameRecord, SteppedGame};
use tetris_lab::support::stats::{Quantity, Summary};
use tetris_lab::support::threads::thread_pool;

/// A `ValueError` naming the argument at fault.
fn field_error(field: &str, error: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(format!("{field}: {error:#}"))
}

/// Orientations an action may name: the action of orientation `o` at box column `c` on a
/// board `w` wide is `o * w + c`.
const ORIENTATIONS: usize = 4;

fn board_size(board: Option<&str>) -> PyResult<Option<(usize, usize)>> {
    board.map(|text| parse_size(text).map_err(|e| field_error("board", e))).transpose()
}

fn rule_set(name: &str, size: Option<(usize, usize)>) -> PyResult<Box<dyn RuleSet>> {
    if !rules::REGISTRY.iter().any(|entry| entry.name == name) {
        return Err(field_error("rules", rules::build(name, size).err().expect("an unknown rule set")));
    }
    rules::build(name, size).map_err(|e| field_error("board", e))
}

/// A preset built as `tetris-lab play` builds it, its weights replaced by a vector (in the
/// preset's feature order) or a weights file when given.
fn build_preset(
    preset: &str,
    rules: Option<&str>,
    board: Option<&str>,
    weights: Option<Vec<f64>>,
    weights_file: Option<&str>,
) -> PyResult<(&'static Preset, Built)> {
    let found = presets::find(preset).map_err(|e| field_error("preset", e))?;
    let size = board_size(board)?;
    if let Some(name) = rules {
        rule_set(name, size)?;
    }
    let mut evaluator = found.evaluator().map_err(|e| field_error("preset", e))?;
    if let Some(path) = weights_file {
        evaluator = evaluator
            .load_weights_file(Path::new(path), |named| found.check_weights_preset(named))
            .map_err(|e| field_error("weights", e))?;
    }
    if let Some(weights) = weights {
        let names = evaluator.feature_names();
        if weights.len() != names.len() {
            return Err(field_error(
                "weights",
                format!(
                    "preset {} weighs {} features ({}), {} weights given",
                    found.name,
                    names.len(),
                    names.join(", "),
                    weights.len()
                ),
            ));
        }
        for (name, &weight) in names.iter().zip(&weights) {
            tetris_lab::limits::check_weight(&format!("weight {name:?}"), weight)
                .map_err(|e| field_error("weights", e))?;
        }
        evaluator = evaluator.with_weights(&weights);
    }
    let built = found
        .build_with_evaluator(rules, size, evaluator)
        .map_err(|e| field_error(if size.is_some() { "board" } else { "rules" }, e))?;
    Ok((found, built))
}

/// Plays a batch as `tetris-lab play` does, the GIL released.
fn play_records(
    py: Python<'_>,
    built: &Built,
    games: u64,
    seed: u64,
    threads: Option<usize>,
    max_pieces: Option<u64>,
) -> PyResult<Vec<GameRecord>> {
    tetris_lab::limits::check_count("games", games, tetris_lab::limits::MAX_GAMES)
        .map_err(|e| field_error("games", e))?;
    if max_pieces == Some(0) {
        return Err(field_error("max_pieces", "must be at least 1"));
    }
    if threads == Some(0) {
        return Err(field_error("threads", "must be at least 1"));
    }
    let pool = thread_pool(threads).map_err(|e| field_error("threads", e))?;
    let limits = GameLimits { max_pieces };
    Ok(py.allow_threads(|| pool.install(|| sim::play_batch(built.driver(), seed, games, limits, None, &|_| {}))))
}

/// Plays `games` games of a preset; the per-game columns of `tetris-lab play --csv`.
#[pyfunction]
#[pyo3(signature = (preset, rules=None, board=None, games=100, seed=1, threads=None, weights=None, weights_file=None, max_pieces=None))]
#[allow(clippy::too_many_arguments)]
fn play<'py>(
    py: Python<'py>,
    preset: &str,
    rules: Option<&str>,
    board: Option<&str>,
    games: u64,
    seed: u64,
    threads: Option<usize>,
    weights: Option<Vec<f64>>,
    weights_file: Option<&str>,
    max_pieces: Option<u64>,
) -> PyResult<Bound<'py, PyDict>> {
    let (_, built) = build_preset(preset, rules, board, weights, weights_file)?;
    let records = play_records(py, &built, games, seed, threads, max_pieces)?;
    let column = |f: fn(&GameRecord) -> u64| records.iter().map(f).collect::<Vec<u64>>().into_pyarray(py);
    let out = PyDict::new(py);
    out.set_item("game", (0..games).collect::<Vec<u64>>().into_pyarray(py))?;
    out.set_item("seed", column(|r| r.seed))?;
    out.set_item("lines", column(|r| r.lines))?;
    out.set_item("pieces", column(|r| r.pieces))?;
    out.set_item("score", column(|r| r.score))?;
    out.set_item("end", records.iter().map(|r| r.end.as_str()).collect::<Vec<_>>())?;
    out.set_item(
        "level",
        records.iter().map(|r| r.level.map_or(-1, i64::from)).collect::<Vec<i64>>().into_pyarray(py),
    )?;
    Ok(out)
}

/// Mean rows per game with its 95% interval (as `tetris-lab play` prints them), on the
/// games of `seed`: the same games for every weights vector.
#[pyfunction]
#[pyo3(signature = (preset, weights, rules=None, board=None, games=100, seed=1, threads=None, max_pieces=None))]
#[allow(clippy::too_many_arguments)]
fn fitness(
    py: Python<'_>,
    preset: &str,
    weights: Vec<f64>,
    rules: Option<&str>,
    board: Option<&str>,
    games: u64,
    seed: u64,
    threads: Option<usize>,
    max_pieces: Option<u64>,
) -> PyResult<(f64, f64, f64)> {
    let (_, built) = build_preset(preset, rules, board, Some(weights), None)?;
    let records = play_records(py, &built, games, seed, threads, max_pieces)?;
    let lines: Vec<f64> = records.iter().map(|r| r.lines as f64).collect();
    let mut summary = Summary::of(&lines, Quantity::length(built.rules.frame_rules().is_none()));
    if let Some(cap) = max_pieces {
        summary = summary.at_most_rows(cap, built.rules.new_board().width());
    }
    Ok((summary.mean, summary.low_95, summary.high_95))
}

/// The preset names, in `tetris-lab list` order.
#[pyfunction]
fn preset_names() -> Vec<&'static str> {
    presets::REGISTRY.iter().map(|p| p.name).collect()
}

/// The rule set names.
#[pyfunction]
fn rule_set_names() -> Vec<&'static str> {
    rules::REGISTRY.iter().map(|r| r.name).collect()
}

/// Every feature of the library: (name, summary).
#[pyfunction]
fn feature_list() -> Vec<(&'static str, &'static str)> {
    features::REGISTRY.iter().map(|f| (f.name, f.summary)).collect()
}

/// A preset's features with their published weights, in its order.
#[pyfunction]
fn preset_weights(preset: &str) -> PyResult<Vec<(&'static str, f64)>> {
    let found = presets::find(preset).map_err(|e| field_error("preset", e))?;
    Ok(found.weights.to_vec())
}

/// The seven pieces' letters, in the order piece numbers count them.
#[pyfunction]
fn piece_letters() -> String {
    Piece::ALL.iter().map(|p| p.letter()).collect()
}

fn find_features(names: &[String]) -> PyResult<Vec<&'static Feature>> {
    if names.is_empty() {
        return Err(field_error("features", "no feature named"));
    }
    names.iter().map(|name| features::find(name).map_err(|e| field_error("features", e))).collect()
}

/// A board from a numpy grid, top row first, any non-zero cell filled.
fn board_of(cells: numpy::ndarray::ArrayView2<u8>) -> Board {
    let (height, width) = cells.dim();
    let mut board = Board::new(width, height);
    for ((row, x), &cell) in cells.indexed_iter() {
        if cell != 0 {
            board.set(x, height - 1 - row);
        }
    }
    board
}

fn check_grid(height: usize, width: usize) -> PyResult<()> {
    Board::check_size(width, height)
        .map_err(|e| field_error("boards", format!("{e} (the array is N x height x width)")))
}

/// The features `names` of N boards (N x H x W, top row first): N x F values.
#[pyfunction]
fn board_features<'py>(
    py: Python<'py>,
    boards: PyReadonlyArray3<'py, u8>,
    names: Vec<String>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let list = find_features(&names)?;
    let cells = boards.as_array();
    let (count, height, width) = cells.dim();
    check_grid(height, width)?;
    let features = list.len();
    let mut values = vec![0.0; count * features];
    py.allow_threads(|| {
        values.par_chunks_mut(features.max(1)).enumerate().with_min_len(64).for_each(|(n, out)| {
            let board = board_of(cells.index_axis(numpy::ndarray::Axis(0), n));
            let context = FeatureContext::board(&board);
            for (value, feature) in out.iter_mut().zip(&list) {
                *value = (feature.compute)(&context);
            }
        })
    });
    Ok(Array2::from_shape_vec((count, features), values).expect("N x F values").into_pyarray(py))
}

/// Every placement of `piece` on `board` (H x W, top row first) under `rules`: its action
/// (orientation * W + box column), the features `names` of the board it leaves (rows
/// removed, with what the placement did) and the rows it clears.
#[allow(clippy::type_complexity)]
#[pyfunction]
fn after_states<'py>(
    py: Python<'py>,
    board: PyReadonlyArray2<'py, u8>,
    piece: usize,
    names: Vec<String>,
    rules: &str,
) -> PyResult<(Bound<'py, PyArray1<i64>>, Bound<'py, PyArray2<f64>>, Bound<'py, PyArray1<i64>>)> {
    let list = find_features(&names)?;
    let cells = board.as_array();
    let (height, width) = cells.dim();
    Board::check_size(width, height).map_err(|e| field_error("board", format!("{e} (the array is height x width)")))?;
    if piece >= Piece::ALL.len() {
        return Err(field_error("piece", format!("{piece} is not a piece number (0 to 6: {})", piece_letters())));
    }
    let rule_set = rule_set(rules, Some((width, height)))?;
    let board = board_of(cells);
    let mut placements = Vec::new();
    rule_set.candidates(&board, Piece::from_index(piece), &mut placements);
    let mut values = Vec::with_capacity(placements.len() * list.len());
    sim::after_state_features(rule_set.as_ref(), &board, &placements, &list, &mut values);
    let actions: Vec<i64> = placements.iter().map(|p| action_of(p, width)).collect();
    let rows: Vec<i64> = placements
        .iter()
        .map(|p| {
            let mut after = board;
            rule_set.apply(&mut after, p).rows_cleared as i64
        })
        .collect();
    let values = Array2::from_shape_vec((placements.len(), list.len()), values).expect("K x F values");
    Ok((actions.into_pyarray(py), values.into_pyarray(py), rows.into_pyarray(py)))
}

fn action_of(placement: &tetris_lab::placement::Placement, width: usize) -> i64 {
    (placement.orientation as usize * width + placement.left as usize) as i64
}

/// One game of [`Games`] and where its pieces come from.
struct Slot {
    game: SteppedGame,
    /// The master seed and the episode: episode `k` is game `k` of `tetris-lab play --seed master`.
    master: u64,
    episode: u64,
    /// Over, or ended by an action that is not a placement.
    ended: bool,
}

/// One game's share of the observation buffers.
struct Observation<'a> {
    board: Option<&'a mut [u8]>,
    features: Option<&'a mut [f32]>,
    piece: &'a mut i64,
    preview: &'a mut [i64],
    mask: &'a mut [bool],
}

/// N placement games stepped together (one for the single environment), each seeded on its
/// own: the core of the Gymnasium environments. Observations are written into numpy arrays
/// the caller owns, the GIL released, the games spread over threads when there are many.
#[pyclass(module = "tetris_lab._core")]
struct Games {
    rules: Box<dyn RuleSet>,
    features: Vec<&'static Feature>,
    /// What a placement clearing 0 to 4 rows earns.
    rewards: [f64; 5],
    slots: Vec<Slot>,
    width: usize,
    height: usize,
    preview: usize,
    pool: Option<rayon::ThreadPool>,
}

/// Fewer games than this are stepped on the calling thread.
const PARALLEL_FROM: usize = 64;

impl Games {
    fn new_game(&self, master: u64, episode: u64) -> SteppedGame {
        SteppedGame::new(self.rules.as_ref(), self.rules.randomizer().game_seed(master, episode))
    }

    /// Splits the observation buffers (numpy arrays, each one contiguous) into one share
    /// per game.
    fn shares<'a>(
        &self,
        boards: &'a mut Option<PyReadwriteArray3<'_, u8>>,
        features: &'a mut Option<PyReadwriteArray2<'_, f32>>,
        pieces: &'a mut PyReadwriteArray1<'_, i64>,
        previews: &'a mut PyReadwriteArray2<'_, i64>,
        masks: &'a mut PyReadwriteArray2<'_, bool>,
    ) -> PyResult<Vec<Observation<'a>>> {
        let boards = boards.as_mut().map(|b| b.as_slice_mut()).transpose().map_err(|e| field_error("boards", e))?;
        let features =
            features.as_mut().map(|f| f.as_slice_mut()).transpose().map_err(|e| field_error("features", e))?;
        let pieces = pieces.as_slice_mut().map_err(|e| field_error("pieces", e))?;
        let previews = previews.as_slice_mut().map_err(|e| field_error("previews", e))?;
        let masks = masks.as_slice_mut().map_err(|e| field_error("masks", e))?;
        let count = self.slots.len();
        let check = |name: &str, len: usize, per_game: usize| {
            if len != count * per_game {
                Err(field_error(name, format!("{len} values for {count} games of {per_game}")))
            } else {
                Ok(())
            }
        };
        let cells = self.width * self.height;
        let mut board_shares: Vec<Option<&mut [u8]>> = match boards {
            Some(b) => {
                check("boards", b.len(), cells)?;
                b.chunks_mut(cells).map(Some).collect()
            }
            None => (0..count).map(|_| None).collect(),
        };
        let mut feature_shares: Vec<Option<&mut [f32]>> = match features {
            Some(f) => {
                check("features", f.len(), self.features.len())?;
                f.chunks_mut(self.features.len()).map(Some).collect()
            }
            None => (0..count).map(|_| None).collect(),
        };
        check("pieces", pieces.len(), 1)?;
        check("previews", previews.len(), self.preview)?;
        check("masks", masks.len(), ORIENTATIONS * self.width)?;
        let mut preview_shares: Vec<&mut [i64]> = if self.preview == 0 {
            (0..count).map(|_| <&mut [i64]>::default()).collect()
        } else {
            previews.chunks_mut(self.preview).collect()
        };
        let mut shares = Vec::with_capacity(count);
        for ((piece, mask), n) in pieces.iter_mut().zip(masks.chunks_mut(ORIENTATIONS * self.width)).zip(0..) {
            shares.push(Observation {
                board: board_shares[n].take(),
                features: feature_shares[n].take(),
                piece,
                preview: std::mem::take(&mut preview_shares[n]),
                mask,
            });
        }
        Ok(shares)
    }

    /// Runs `work` on every game with its share, on the pool when there are many games.
    fn each<'a, T: Send>(
        &mut self,
        py: Python<'_>,
        shares: Vec<Observation<'a>>,
        extra: Vec<T>,
        work: impl Fn(&Context, &mut Slot, Observation<'a>, T) + Send + Sync,
    ) {
        let context = Context {
            rules: self.rules.as_ref(),
            features: &self.features,
            rewards: self.rewards,
            width: self.width,
            height: self.height,
        };
        let count = self.slots.len();
        let items = self.slots.iter_mut().zip(shares).zip(extra);
        match &self.pool {
            Some(pool) if count >= PARALLEL_FROM => py.allow_threads(|| {
                let items: Vec<_> = items.collect();
                pool.install(|| {
                    items
                        .into_par_iter()
                        .with_min_len(32)
                        .for_each(|((slot, share), extra)| work(&context, slot, share, extra))
                })
            }),
            _ => items.for_each(|((slot, share), extra)| work(&context, slot, share, extra)),
        }
    }
}

/// What stepping a game reads besides the game.
struct Context<'a> {
    rules: &'a dyn RuleSet,
    features: &'a [&'static Feature],
    rewards: [f64; 5],
    width: usize,
    height: usize,
}

impl Context<'_> {
    fn new_game(&self, master: u64, episode: u64) -> SteppedGame {
        SteppedGame::new(self.rules, self.rules.randomizer().game_seed(master, episode))
    }

    /// Writes what the player of `slot` sees.
    fn observe(&self, slot: &Slot, out: Observation) {
        let game = &slot.game;
        let board = game.board();
        if let Some(cells) = out.board {
            for (row, line) in cells.chunks_mut(self.width).enumerate() {
                let bits = board.row(self.height - 1 - row);
                for (x, cell) in line.iter_mut().enumerate() {
                    *cell = (bits >> x & 1) as u8;
                }
            }
        }
        if let Some(values) = out.features {
            let context = FeatureContext::new(board, game.last_placement());
            for (value, feature) in values.iter_mut().zip(self.features) {
                *value = (feature.compute)(&context) as f32;
            }
        }
        *out.piece = game.current().index() as i64;
        for (slot, piece) in out.preview.iter_mut().zip(game.preview()) {
            *slot = piece.index() as i64;
        }
        out.mask.fill(false);
        if !slot.ended {
            for placement in game.placements() {
                if (placement.orientation as usize) < ORIENTATIONS {
                    out.mask[action_of(placement, self.width) as usize] = true;
                }
            }
        }
    }
}

/// What one step did to one game.
struct StepResult<'a> {
    action: i64,
    reward: &'a mut f64,
    terminated: &'a mut bool,
    illegal: &'a mut bool,
}

#[pymethods]
impl Games {
    /// `count` games of rule set `rules` (board `board` when given), feature observations
    /// of `features`, on `threads` threads (all cores when `None`).
    #[new]
    #[pyo3(signature = (rules, board, features, count, rewards, threads=None))]
    fn new(
        rules: &str,
        board: Option<&str>,
        features: Vec<String>,
        count: usize,
        rewards: [f64; 5],
        threads: Option<usize>,
    ) -> PyResult<Games> {
        let rule_set = rule_set(rules, board_size(board)?)?;
        if rule_set.frame_rules().is_some() {
            return Err(field_error(
                "rules",
                format!("{rules} is played frame by frame (presets pygame-lee); the environments play placement games"),
            ));
        }
        let features = if features.is_empty() { Vec::new() } else { find_features(&features)? };
        if count == 0 {
            return Err(field_error("num_envs", "must be at least 1"));
        }
        if threads == Some(0) {
            return Err(field_error("threads", "must be at least 1"));
        }
        let pool = if count >= PARALLEL_FROM {
            Some(thread_pool(threads).map_err(|e| field_error("threads", e))?)
        } else {
            None
        };
        let empty = rule_set.new_board();
        let preview = rule_set.preview().min(7);
        let mut games = Games {
            width: empty.width(),
            height: empty.height(),
            preview,
            rules: rule_set,
            features,
            rewards,
            slots: Vec::new(),
            pool,
        };
        games.slots = (0..count as u64)
            .map(|n| Slot { game: games.new_game(n, 0), master: n, episode: 0, ended: false })
            .collect();
        Ok(games)
    }

    #[getter]
    fn width(&self) -> usize {
        self.width
    }
    #[getter]
    fn height(&self) -> usize {
        self.height
    }
    #[getter]
    fn preview_length(&self) -> usize {
        self.preview
    }
    #[getter]
    fn action_count(&self) -> usize {
        ORIENTATIONS * self.width
    }
    #[getter]
    fn feature_count(&self) -> usize {
        self.features.len()
    }
    #[getter]
    fn count(&self) -> usize {
        self.slots.len()
    }
    #[getter]
    fn rule_set(&self) -> String {
        self.rules.describe()
    }

    /// Rows cleared, pieces placed and score of game `index` so far.
    fn totals(&self, index: usize) -> PyResult<(u64, u64, u64)> {
        let slot = self.slots.get(index).ok_or_else(|| field_error("index", "no such game"))?;
        Ok((slot.game.lines(), slot.game.pieces(), slot.game.score()))
    }

    /// Game `index` drawn as `tetris-lab watch` draws a move: the text (`ansi`) or the
    /// image's RGB pixels (height x width x 3).
    fn picture<'py>(&self, py: Python<'py>, index: usize, image: bool) -> PyResult<PyObject> {
        let slot = self.slots.get(index).ok_or_else(|| field_error("index", "no such game"))?;
        let title = format!("{} | seed {} game {}", self.rules.name(), slot.master, slot.episode);
        let picture = tetris_lab::view::game::stepped_picture(&slot.game, title);
        if !image {
            return Ok(tetris_lab::view::text::render(&picture, false).into_pyobject(py)?.into_any().unbind());
        }
        let ((width, height), pixels) = tetris_lab::view::image::rgb_pixels(&picture);
        let array = numpy::ndarray::Array3::from_shape_vec((height as usize, width as usize, 3), pixels)
            .map_err(|e| field_error("picture", e))?;
        Ok(array.into_pyarray(py).into_any().unbind())
    }

    /// Game `index`'s board now: height x width, top row first.
    fn board<'py>(&self, py: Python<'py>, index: usize) -> PyResult<Bound<'py, PyArray2<u8>>> {
        let slot = self.slots.get(index).ok_or_else(|| field_error("index", "no such game"))?;
        let board = slot.game.board();
        let cells = Array2::from_shape_fn((self.height, self.width), |(row, x)| {
            board.is_filled(x, self.height - 1 - row) as u8
        });
        Ok(cells.into_pyarray(py))
    }

    /// Starts games anew: game n with master seed `masters[n]` (episode 0), or, where it is
    /// `None`, the next episode of its master seed.
    #[pyo3(signature = (masters, boards, features, pieces, previews, masks))]
    #[allow(clippy::too_many_arguments)]
    fn reset(
        &mut self,
        py: Python<'_>,
        masters: Vec<Option<u64>>,
        mut boards: Option<PyReadwriteArray3<u8>>,
        mut features: Option<PyReadwriteArray2<f32>>,
        mut pieces: PyReadwriteArray1<i64>,
        mut previews: PyReadwriteArray2<i64>,
        mut masks: PyReadwriteArray2<bool>,
    ) -> PyResult<()> {
        if masters.len() != self.slots.len() {
            return Err(field_error("seed", format!("{} seeds for {} games", masters.len(), self.slots.len())));
        }
        let shares = self.shares(&mut boards, &mut features, &mut pieces, &mut previews, &mut masks)?;
        self.each(py, shares, masters, |context, slot, share, master| {
            match master {
                Some(master) => (slot.master, slot.episode) = (master, 0),
                None => slot.episode += 1,
            }
            slot.game = context.new_game(slot.master, slot.episode);
            slot.ended = slot.game.is_over();
            context.observe(slot, share);
        });
        Ok(())
    }

    /// Plays `actions[n]` in game n and writes what it did and what the player sees next.
    /// An action that is not a placement of the current piece ends the game (`illegal`).
    /// With `autoreset`, a game that ended at the previous step starts its next episode
    /// instead (its action ignored, reward 0): Gymnasium's next-step autoreset.
    #[pyo3(signature = (actions, autoreset, rewards, terminated, illegal, boards, features, pieces, previews, masks))]
    #[allow(clippy::too_many_arguments)]
    fn step(
        &mut self,
        py: Python<'_>,
        actions: PyReadonlyArray1<i64>,
        autoreset: bool,
        mut rewards: PyReadwriteArray1<f64>,
        mut terminated: PyReadwriteArray1<bool>,
        mut illegal: PyReadwriteArray1<bool>,
        mut boards: Option<PyReadwriteArray3<u8>>,
        mut features: Option<PyReadwriteArray2<f32>>,
        mut pieces: PyReadwriteArray1<i64>,
        mut previews: PyReadwriteArray2<i64>,
        mut masks: PyReadwriteArray2<bool>,
    ) -> PyResult<()> {
        let count = self.slots.len();
        let actions = actions.as_array();
        if actions.len() != count {
            return Err(field_error("actions", format!("{} actions for {count} games", actions.len())));
        }
        let rewards = rewards.as_slice_mut().map_err(|e| field_error("rewards", e))?;
        let terminated = terminated.as_slice_mut().map_err(|e| field_error("terminated", e))?;
        let illegal = illegal.as_slice_mut().map_err(|e| field_error("illegal", e))?;
        if rewards.len() != count || terminated.len() != count || illegal.len() != count {
            return Err(field_error("rewards", format!("one reward, end and illegal flag per game ({count})")));
        }
        let results: Vec<StepResult> = actions
            .iter()
            .zip(rewards.iter_mut().zip(terminated.iter_mut()).zip(illegal.iter_mut()))
            .map(|(&action, ((reward, terminated), illegal))| StepResult { action, reward, terminated, illegal })
            .collect();
        let shares = self.shares(&mut boards, &mut features, &mut pieces, &mut previews, &mut masks)?;
        self.each(py, shares, results, |context, slot, share, result| {
            *result.reward = 0.0;
            *result.illegal = false;
            if slot.ended && autoreset {
                slot.episode += 1;
                slot.game = context.new_game(slot.master, slot.episode);
                slot.ended = slot.game.is_over();
            } else if !slot.ended {
                let width = context.width as i64;
                let index = slot.game.placements().iter().position(|p| action_of(p, context.width) == result.action);
                match index.filter(|_| (0..ORIENTATIONS as i64 * width).contains(&result.action)) {
                    Some(index) => {
                        let outcome = slot.game.step(context.rules, index).expect("a listed placement");
                        *result.reward = context.rewards[(outcome.info.rows_cleared as usize).min(4)];
                        slot.ended = slot.game.is_over();
                    }
                    None => {
                        *result.illegal = true;
                        slot.ended = true;
                    }
                }
            }
            *result.terminated = slot.ended;
            context.observe(slot, share);
        });
        Ok(())
    }
}

/// The binding's module.
#[pymodule]
fn _core(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(play, module)?)?;
    module.add_function(wrap_pyfunction!(fitness, module)?)?;
    module.add_function(wrap_pyfunction!(preset_names, module)?)?;
    module.add_function(wrap_pyfunction!(rule_set_names, module)?)?;
    module.add_function(wrap_pyfunction!(feature_list, module)?)?;
    module.add_function(wrap_pyfunction!(preset_weights, module)?)?;
    module.add_function(wrap_pyfunction!(piece_letters, module)?)?;
    module.add_function(wrap_pyfunction!(board_features, module)?)?;
    module.add_function(wrap_pyfunction!(after_states, module)?)?;
    module.add_class::<Games>()?;
    Ok(())
}
