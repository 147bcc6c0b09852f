//! The Python binding of tetris-lab, `tetris_lab._core`: the library's game loop, board
//! features and stepped games behind a few functions and one class, numpy arrays in and
//! out. Batches run with the GIL released, on the library's thread pool; no Python runs in
//! a loop over games or pieces. The Python package (`tetris_lab/`) wraps these in its
//! public functions and the Gymnasium environments.
//!
//! Every argument is checked before any work, in Python's words: a `TypeError` for a value
//! of the wrong type, a `ValueError` for one out of range, each message starting with the
//! argument's name as the Python functions call it (`num_envs: must be 1 to N, got M`).
//! Counts are bounded by what the machine can hold. A long call polls for Ctrl-C from the
//! calling thread while the work runs, and stops it: `KeyboardInterrupt` within moments.

use numpy::ndarray::Array2;
use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyReadonlyArray3,
    PyReadwriteArray1, PyReadwriteArray2, PyReadwriteArray3,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyBool, PyDict, PyInt};
use rayon::prelude::*;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;
use tetris_lab::board::{Board, MAX_HEIGHT, MAX_WIDTH};
use tetris_lab::features::{self, Feature, FeatureContext};
use tetris_lab::piece::Piece;
use tetris_lab::policy::{Decision, GameView, Policy, Scratch};
use tetris_lab::presets::{self, Built, Preset};
use tetris_lab::rules::{self, RuleSet};
use tetris_lab::sim::{self, GameDriver, GameLimits, GameRecord, SteppedGame};
use tetris_lab::support::stats::{Quantity, Summary};
use tetris_lab::support::threads::thread_pool;

/// A `ValueError` naming the argument at fault.
fn field_error(field: &str, error: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(format!("{field}: {error:#}"))
}

/// Orientations an action may name: the action of orientation `o` at box column `c` on a
/// board `w` wide is `o * w + c`.
const ORIENTATIONS: usize = 4;

// ---------------------------------------------------------------------------------------
// Limits: every count is bounded before anything is allocated.

/// Threads a call may ask for (more than the cores run on the cores).
const MAX_THREADS: u64 = 1024;
/// Pieces a game may be capped at: far beyond any game that ends in a lifetime.
const MAX_PIECES: u64 = 1_000_000_000_000_000;
/// Games of one batched environment, whatever the memory.
const MAX_ENVS: u64 = 10_000_000;
/// Feature names of one call (a preset has at most a few dozen).
const MAX_FEATURE_NAMES: usize = 1024;
/// What one game of `play` or `fitness` holds until the call returns (its record, its
/// columns and its `end` text), rounded up.
const BYTES_PER_GAME: u64 = 256;
/// What one game of the batched environment holds on the heap besides its [`Slot`] (its
/// lists of placements and pieces), rounded up.
const HEAP_PER_ENV: u64 = 2048;

/// The machine's memory in bytes (8 GiB where it cannot be read).
fn machine_memory() -> u64 {
    #[cfg(any(target_os = "linux", target_os = "macos"))]
    {
        // SAFETY: sysconf only reads system constants.
        let (pages, page_size) = unsafe { (libc::sysconf(libc::_SC_PHYS_PAGES), libc::sysconf(libc::_SC_PAGESIZE)) };
        if pages > 0 && page_size > 0 {
            return (pages as u64).saturating_mul(page_size as u64);
        }
    }
    8 << 30
}

/// What one call may allocate: half the machine's memory.
fn memory_budget() -> u64 {
    machine_memory() / 2
}

/// Games one `play` or `fitness` call may play: the command line's limit, or fewer where
/// the machine could not hold their records.
fn max_games() -> u64 {
    tetris_lab::limits::MAX_GAMES.min(memory_budget() / BYTES_PER_GAME)
}

/// The name of a value's type, for messages.
fn type_name(value: &Bound<'_, PyAny>) -> String {
    value.get_type().name().map(|name| name.to_string()).unwrap_or_else(|_| "object".into())
}

/// A `TypeError` naming the argument, what it must be and what it got.
fn type_error(field: &str, wanted: &str, value: &Bound<'_, PyAny>) -> PyErr {
    let shown = value.repr().map(|r| r.to_string()).unwrap_or_default();
    PyTypeError::new_err(format!("{field}: must be {wanted}, got {} {shown}", type_name(value)))
}

/// Whether `value` is a numpy integer scalar (`numpy.integer`; numpy's bool is not one).
fn is_numpy_integer(value: &Bound<'_, PyAny>) -> PyResult<bool> {
    static INTEGER: GILOnceCell<Py<PyAny>> = GILOnceCell::new();
    let py = value.py();
    let integer = INTEGER.get_or_try_init(py, || Ok::<_, PyErr>(py.import("numpy")?.getattr("integer")?.unbind()))?;
    value.is_instance(integer.bind(py))
}

/// An integer argument in `low..=high`: a Python int or a numpy integer (not a bool, a
/// float or a text: `TypeError`), in range (`ValueError`), both naming the argument.
fn integer_in(value: &Bound<'_, PyAny>, field: &str, low: u64, high: u64) -> PyResult<u64> {
    let integer = value.is_instance_of::<PyInt>() && !value.is_instance_of::<PyBool>();
    if !integer && !is_numpy_integer(value)? {
        return Err(type_error(field, "an integer", value));
    }
    match value.extract::<u64>() {
        Ok(number) if (low..=high).contains(&number) => Ok(number),
        _ => Err(field_error(field, format!("must be {low} to {high}, got {value}"))),
    }
}

/// [`integer_in`] for an argument that may be `None`.
fn optional_integer_in(value: Option<&Bound<'_, PyAny>>, field: &str, low: u64, high: u64) -> PyResult<Option<u64>> {
    value.map(|value| integer_in(value, field, low, high)).transpose()
}

/// The cores of this machine.
fn cores() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// `threads=`: `None` (all cores) or 1 to [`MAX_THREADS`]; more than the cores run on the
/// cores (the results do not depend on the count).
fn threads_argument(threads: Option<&Bound<'_, PyAny>>) -> PyResult<Option<usize>> {
    Ok(optional_integer_in(threads, "threads", 1, MAX_THREADS)?.map(|n| (n as usize).min(cores())))
}

fn pool_of(threads: Option<usize>) -> PyResult<rayon::ThreadPool> {
    thread_pool(threads).map_err(|e| field_error("threads", e))
}

/// A seed: 0 to 2^64 - 1.
fn seed_argument(seed: &Bound<'_, PyAny>) -> PyResult<u64> {
    integer_in(seed, "seed", 0, u64::MAX)
}

// ---------------------------------------------------------------------------------------
// Ctrl-C: long calls run their work off the calling thread, which polls for signals.

/// How often a long call looks for Ctrl-C.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// Runs `work` with the GIL released, on `pool` (the global pool for `None`), while the
/// calling thread checks for signals every [`SIGNAL_POLL`]. A signal handler that raises
/// (Ctrl-C: `KeyboardInterrupt`) sets the stop flag `work` is given, which it reads at its
/// safe points; once it has returned, the handler's exception is raised. Numpy arrays are
/// made by the caller afterwards, with the GIL held and no interrupt pending.
fn interruptible<T: Send>(
    py: Python<'_>,
    pool: Option<&rayon::ThreadPool>,
    work: impl FnOnce(&AtomicBool) -> T + Send,
) -> PyResult<T> {
    let stop = AtomicBool::new(false);
    let mut signal: Option<PyErr> = None;
    let done = py.allow_threads(|| match pool {
        Some(pool) => pool.in_place_scope(|scope| poll_signals(scope, &stop, &mut signal, work)),
        None => rayon::in_place_scope(|scope| poll_signals(scope, &stop, &mut signal, work)),
    });
    match (signal, done) {
        (Some(error), _) => Err(error),
        (None, Some(value)) => Ok(value),
        (None, None) => unreachable!("a panicking scope does not return"),
    }
}

/// [`interruptible`]'s loop: `work` spawned on the scope's pool, the calling thread
/// waiting for it and checking for signals meanwhile (`None` if the work panicked: the
/// scope raises its panic when it ends).
fn poll_signals<'scope, T: Send + 'scope>(
    scope: &rayon::Scope<'scope>,
    stop: &'scope AtomicBool,
    signal: &mut Option<PyErr>,
    work: impl FnOnce(&AtomicBool) -> T + Send + 'scope,
) -> Option<T> {
    let (sender, receiver) = mpsc::channel();
    scope.spawn(move |_| {
        let _ = sender.send(work(stop));
    });
    loop {
        match receiver.recv_timeout(SIGNAL_POLL) {
            Ok(value) => return Some(value),
            Err(RecvTimeoutError::Disconnected) => return None,
            Err(RecvTimeoutError::Timeout) => {
                if signal.is_none() {
                    if let Err(error) = Python::with_gil(|py| py.check_signals()) {
                        *signal = Some(error);
                        stop.store(true, Ordering::Relaxed);
                    }
                }
            }
        }
    }
}

/// A policy that gives up (no placement: the game ends at once) when `stop` is set: how a
/// batch of `play` stops within a piece.
struct Stoppable<'a> {
    policy: &'a dyn Policy,
    stop: &'a AtomicBool,
}

impl Policy for Stoppable<'_> {
    fn name(&self) -> &'static str {
        self.policy.name()
    }
    fn evaluator(&self) -> &tetris_lab::eval::Evaluator {
        self.policy.evaluator()
    }
    fn choose(&self, rules: &dyn RuleSet, view: &GameView, scratch: &mut Scratch) -> Option<Decision> {
        if self.stop.load(Ordering::Relaxed) {
            return None;
        }
        self.policy.choose(rules, view, scratch)
    }
}

// ---------------------------------------------------------------------------------------
// Boards, rule sets and presets.

/// Checks a board's size: `what` says where the width and height come from.
fn check_board_size(field: &str, width: i64, height: i64, what: &str) -> PyResult<()> {
    if !(4..=MAX_WIDTH as i64).contains(&width) {
        return Err(field_error(field, format!("the width must be 4 to {MAX_WIDTH}, got {width}{what}")));
    }
    if !(4..=MAX_HEIGHT as i64).contains(&height) {
        return Err(field_error(field, format!("the height must be 4 to {MAX_HEIGHT}, got {height}{what}")));
    }
    Ok(())
}

/// `board=`: "WxH" (the Python package turns (width, height) into it).
fn board_size(board: Option<&str>) -> PyResult<Option<(usize, usize)>> {
    let Some(text) = board else { return Ok(None) };
    let not_a_size =
        || field_error("board", format!("{text:?} is not a size: give \"WxH\" (e.g. \"10x20\") or (width, height)"));
    let (width, height) = text.split_once(['x', 'X']).ok_or_else(not_a_size)?;
    let (width, height): (i64, i64) =
        (width.trim().parse().map_err(|_| not_a_size())?, height.trim().parse().map_err(|_| not_a_size())?);
    check_board_size("board", width, height, "")?;
    Ok(Some((width as usize, height as usize)))
}

/// Rule set `name` on a board `size` (its own when `None`); `board_field` names where the
/// size came from.
fn rule_set(name: &str, size: Option<(usize, usize)>, board_field: &str) -> PyResult<Box<dyn RuleSet>> {
    let Some(entry) = rules::REGISTRY.iter().find(|entry| entry.name == name) else {
        return Err(field_error("rules", rules::build(name, size).err().expect("an unknown rule set")));
    };
    let error = match (entry.build)(size) {
        Ok(rule_set) => return Ok(rule_set),
        Err(error) => error,
    };
    match (size, (entry.build)(None)) {
        (Some((width, height)), Ok(own)) => {
            let board = own.new_board();
            let sizable: Vec<&str> =
                rules::REGISTRY.iter().filter(|e| (e.build)(Some((8, 8))).is_ok()).map(|e| e.name).collect();
            Err(field_error(
                board_field,
                format!(
                    "rule set {name} plays on its own {}x{} board, not {width}x{height} (other sizes are for rule sets {})",
                    board.width(),
                    board.height(),
                    sizable.join(", ")
                ),
            ))
        }
        _ => Err(field_error(board_field, error)),
    }
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
    // The rule set (given, or the preset's) on the board asked for.
    rule_set(rules.unwrap_or(found.rule_set), size, "board")?;
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
    let built = found.build_with_evaluator(rules, size, evaluator).map_err(|e| field_error("rules", e))?;
    Ok((found, built))
}

/// The checked arguments of a batch.
struct Batch {
    games: u64,
    seed: u64,
    threads: Option<usize>,
    max_pieces: Option<u64>,
}

impl Batch {
    fn of(
        games: &Bound<'_, PyAny>,
        seed: &Bound<'_, PyAny>,
        threads: Option<&Bound<'_, PyAny>>,
        max_pieces: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Batch> {
        Ok(Batch {
            games: integer_in(games, "games", 1, max_games())?,
            seed: seed_argument(seed)?,
            threads: threads_argument(threads)?,
            max_pieces: optional_integer_in(max_pieces, "max_pieces", 1, MAX_PIECES)?,
        })
    }
}

/// Plays a batch as `tetris-lab play` does (the games of `sim::play_batch`, bit for bit),
/// the GIL released; Ctrl-C stops it within a piece and raises `KeyboardInterrupt`.
fn play_records(py: Python<'_>, built: &Built, batch: &Batch) -> PyResult<Vec<GameRecord>> {
    let pool = pool_of(batch.threads)?;
    let limits = GameLimits { max_pieces: batch.max_pieces };
    let (games, seed) = (batch.games, batch.seed);
    let records = interruptible(py, Some(&pool), |stop| {
        let stoppable;
        let driver = match built.driver() {
            GameDriver::Placement { rules, policy } => {
                stoppable = Stoppable { policy, stop };
                GameDriver::Placement { rules, policy: &stoppable }
            }
            // A frame game stops between games.
            frame => frame,
        };
        (0..games)
            .into_par_iter()
            .map(|i| (!stop.load(Ordering::Relaxed)).then(|| sim::play_game_of_batch(driver, seed, i, limits, None)))
            .collect::<Option<Vec<GameRecord>>>()
    })?;
    Ok(records.expect("every game played when not stopped"))
}

/// Plays `games` games of a preset; the per-game columns of `tetris-lab play --csv`.
#[pyfunction]
#[pyo3(signature = (preset, rules, board, games, seed, threads=None, weights=None, weights_file=None, max_pieces=None))]
#[allow(clippy::too_many_arguments)]
fn play<'py>(
    py: Python<'py>,
    preset: &str,
    rules: Option<&str>,
    board: Option<&str>,
    games: &Bound<'py, PyAny>,
    seed: &Bound<'py, PyAny>,
    threads: Option<&Bound<'py, PyAny>>,
    weights: Option<Vec<f64>>,
    weights_file: Option<&str>,
    max_pieces: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let batch = Batch::of(games, seed, threads, max_pieces)?;
    let (_, built) = build_preset(preset, rules, board, weights, weights_file)?;
    let records = play_records(py, &built, &batch)?;
    let column = |f: fn(&GameRecord) -> u64| records.iter().map(f).collect::<Vec<u64>>().into_pyarray(py);
    let out = PyDict::new(py);
    out.set_item("game", (0..batch.games).collect::<Vec<u64>>().into_pyarray(py))?;
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
#[pyo3(signature = (preset, weights, rules, board, games, seed, threads=None, max_pieces=None))]
#[allow(clippy::too_many_arguments)]
fn fitness<'py>(
    py: Python<'py>,
    preset: &str,
    weights: Vec<f64>,
    rules: Option<&str>,
    board: Option<&str>,
    games: &Bound<'py, PyAny>,
    seed: &Bound<'py, PyAny>,
    threads: Option<&Bound<'py, PyAny>>,
    max_pieces: Option<&Bound<'py, PyAny>>,
) -> PyResult<(f64, f64, f64)> {
    let batch = Batch::of(games, seed, threads, max_pieces)?;
    let (_, built) = build_preset(preset, rules, board, Some(weights), None)?;
    let records = play_records(py, &built, &batch)?;
    let lines: Vec<f64> = records.iter().map(|r| r.lines as f64).collect();
    let mut summary = Summary::of(&lines, Quantity::length(built.rules.frame_rules().is_none()));
    if let Some(cap) = batch.max_pieces {
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

/// The features `names` for a board `width` wide: at least one, at most
/// [`MAX_FEATURE_NAMES`], each known and reading only columns the board has.
fn find_features(names: &[String], width: usize) -> PyResult<Vec<&'static Feature>> {
    if names.is_empty() {
        return Err(field_error("features", "no feature named: give a preset, a feature name or a list of names"));
    }
    if names.len() > MAX_FEATURE_NAMES {
        return Err(field_error(
            "features",
            format!("must name 1 to {MAX_FEATURE_NAMES} features, got {}", names.len()),
        ));
    }
    names.iter().map(|name| features::find_for_width(name, width).map_err(|e| field_error("features", e))).collect()
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

/// The features `names` of N boards (N x H x W, top row first): N x F values.
#[pyfunction]
fn board_features<'py>(
    py: Python<'py>,
    boards: PyReadonlyArray3<'py, u8>,
    names: Vec<String>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let cells = boards.as_array();
    let (count, height, width) = cells.dim();
    check_board_size("boards", width as i64, height as i64, " (the array is N x height x width)")?;
    let list = find_features(&names, width)?;
    let features = list.len();
    let most = memory_budget() / (8 * features as u64);
    if count as u64 > most {
        return Err(field_error(
            "boards",
            format!("must be 0 to {most} boards for {features} feature(s) on this machine, got {count}"),
        ));
    }
    let values = interruptible(py, None, |stop| {
        let mut values = vec![0.0; count * features];
        values.par_chunks_mut(features).enumerate().with_min_len(64).for_each(|(n, out)| {
            if stop.load(Ordering::Relaxed) {
                return;
            }
            let board = board_of(cells.index_axis(numpy::ndarray::Axis(0), n));
            let context = FeatureContext::board(&board);
            for (value, feature) in out.iter_mut().zip(&list) {
                *value = (feature.compute)(&context);
            }
        });
        values
    })?;
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
    piece: &Bound<'py, PyAny>,
    names: Vec<String>,
    rules: &str,
) -> PyResult<(Bound<'py, PyArray1<i64>>, Bound<'py, PyArray2<f64>>, Bound<'py, PyArray1<i64>>)> {
    let piece = integer_in(piece, "piece", 0, Piece::ALL.len() as u64 - 1)? as usize;
    let cells = board.as_array();
    let (height, width) = cells.dim();
    check_board_size("board", width as i64, height as i64, " (the array is height x width)")?;
    let list = find_features(&names, width)?;
    let rule_set = rule_set(rules, Some((width, height)), "board")?;
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
#[derive(Clone)]
struct Slot {
    game: SteppedGame,
    /// The master seed and the episode: episode `k` is game `k` of `tetris-lab play --seed master`.
    master: u64,
    episode: u64,
    /// Over, or ended by an action that is not a placement.
    ended: bool,
    /// Steps of this episode (placements, and the illegal action that ended it).
    steps: u64,
    /// Cut off by the episode cap.
    truncated: bool,
    /// The actions of this episode, kept when the games record them (the single
    /// environment's game), so that a state can be pickled and replayed.
    history: Option<Vec<u8>>,
}

impl Slot {
    /// Game `episode` of `master`, not yet stepped.
    fn start(context: &Context, master: u64, episode: u64, record: bool) -> Slot {
        let game = context.new_game(master, episode);
        let ended = game.is_over();
        Slot { game, master, episode, ended, steps: 0, truncated: false, history: record.then(Vec::new) }
    }

    /// Starts the next episode of the same master seed.
    fn next_episode(&mut self, context: &Context) {
        *self = Slot::start(context, self.master, self.episode + 1, self.history.is_some());
    }

    /// Whether the episode is over for any reason (it must be reset or restarted).
    fn done(&self) -> bool {
        self.ended || self.truncated
    }

    /// Plays `action`: the reward it earns and whether it was illegal (which ends the game).
    fn play(&mut self, context: &Context, action: i64) -> (f64, bool) {
        self.steps += 1;
        if let Some(history) = &mut self.history {
            history.push(action as u8);
        }
        let index = self.game.placements().iter().position(|p| action_of(p, context.width) == action);
        let result = match index {
            Some(index) => {
                let outcome = self.game.step(context.rules, index).expect("a listed placement");
                self.ended = self.game.is_over();
                (context.rewards[(outcome.info.rows_cleared as usize).min(4)], false)
            }
            None => {
                self.ended = true;
                (0.0, true)
            }
        };
        self.truncated = context.max_steps.is_some_and(|cap| self.steps >= cap);
        result
    }
}

/// One game's share of the observation buffers.
struct Observation<'a> {
    board: Option<&'a mut [u8]>,
    features: Option<&'a mut [f32]>,
    piece: &'a mut i64,
    preview: &'a mut [i64],
    mask: &'a mut [bool],
    /// Rows cleared, pieces placed and score so far.
    totals: Option<&'a mut [i64]>,
}

/// The observation buffers a call writes, numpy arrays the caller owns: boards (N x H x W,
/// board observations), features (N x F, feature observations), pieces (N), previews (N x
/// P), action masks (N x A) and totals (N x 3: rows, pieces, score), each contiguous.
type Buffers<'py> = (
    Option<PyReadwriteArray3<'py, u8>>,
    Option<PyReadwriteArray2<'py, f32>>,
    PyReadwriteArray1<'py, i64>,
    PyReadwriteArray2<'py, i64>,
    PyReadwriteArray2<'py, bool>,
    Option<PyReadwriteArray2<'py, i64>>,
);

/// N placement games stepped together (one for the single environment), each seeded on its
/// own: the core of the Gymnasium environments. Observations are written into numpy arrays
/// the caller owns, the GIL released, the games spread over threads when there are many.
#[pyclass(module = "tetris_lab._core")]
struct Games {
    rules: Box<dyn RuleSet>,
    /// The rule set's name and the board size asked for, to rebuild it (states).
    rules_name: String,
    board: Option<(usize, usize)>,
    features: Vec<&'static Feature>,
    /// What a placement clearing 0 to 4 rows earns.
    rewards: [f64; 5],
    slots: Vec<Slot>,
    width: usize,
    height: usize,
    preview: usize,
    /// The episode cap, in steps.
    max_steps: Option<u64>,
    /// Whether the games keep their actions (for states that pickle).
    record: bool,
    pool: Option<rayon::ThreadPool>,
    /// A reset or step was stopped by Ctrl-C part way: some games moved, others not, until
    /// the next reset.
    interrupted: bool,
}

/// Fewer games than this are stepped on the calling thread.
const PARALLEL_FROM: usize = 64;

/// What one game of the batched environment takes, in bytes: its [`Slot`] and heap, and
/// four observations' worth of Python arrays (the step's fresh buffers, the ones the caller
/// still holds, and the observation space's bounds, low and high).
fn bytes_per_env(width: usize, height: usize, preview: usize, features: Option<usize>) -> u64 {
    let observation = match features {
        // The float32 features, then with the piece one-hot appended.
        Some(count) => 4 * count + 4 * (count + 7),
        None => width * height,
    };
    let share = observation + ORIENTATIONS * width + 8 * (1 + preview) + 4 * 8 + 3 * 8;
    (std::mem::size_of::<Slot>() + 4 * share) as u64 + HEAP_PER_ENV
}

/// Autoreset modes of [`Games::step`].
const AUTORESET_NEXT_STEP: u8 = 1;
const AUTORESET_SAME_STEP: u8 = 2;

impl Games {
    /// Splits the observation buffers (numpy arrays, each one contiguous) into one share
    /// per game.
    fn shares<'a>(&self, buffers: &'a mut Buffers<'_>) -> PyResult<Vec<Observation<'a>>> {
        let (boards, features, pieces, previews, masks, totals) = buffers;
        let boards = boards.as_mut().map(|b| b.as_slice_mut()).transpose().map_err(|e| field_error("boards", e))?;
        let features =
            features.as_mut().map(|f| f.as_slice_mut()).transpose().map_err(|e| field_error("features", e))?;
        let pieces = pieces.as_slice_mut().map_err(|e| field_error("pieces", e))?;
        let previews = previews.as_slice_mut().map_err(|e| field_error("previews", e))?;
        let masks = masks.as_slice_mut().map_err(|e| field_error("masks", e))?;
        let totals = totals.as_mut().map(|t| t.as_slice_mut()).transpose().map_err(|e| field_error("totals", e))?;
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
        let mut total_shares: Vec<Option<&mut [i64]>> = match totals {
            Some(t) => {
                check("totals", t.len(), 3)?;
                t.chunks_mut(3).map(Some).collect()
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
                totals: total_shares[n].take(),
            });
        }
        Ok(shares)
    }

    fn context(&self) -> Context<'_> {
        Context {
            rules: self.rules.as_ref(),
            features: &self.features,
            rewards: self.rewards,
            width: self.width,
            height: self.height,
            max_steps: self.max_steps,
        }
    }

    /// Runs `work` on every game with its share, on the pool when there are many games
    /// (then Ctrl-C stops it part way: `KeyboardInterrupt`, and the games must be reset).
    fn each<'a, T: Send>(
        &mut self,
        py: Python<'_>,
        shares: Vec<Observation<'a>>,
        extra: Vec<T>,
        work: impl Fn(&Context, &mut Slot, Observation<'a>, T) + Send + Sync,
    ) -> PyResult<()> {
        let context = Context {
            rules: self.rules.as_ref(),
            features: &self.features,
            rewards: self.rewards,
            width: self.width,
            height: self.height,
            max_steps: self.max_steps,
        };
        let count = self.slots.len();
        match &self.pool {
            Some(pool) if count >= PARALLEL_FROM => {
                let slots = &mut self.slots;
                let done = interruptible(py, Some(pool), |stop| {
                    let items = slots.par_iter_mut().zip(shares).zip(extra);
                    items.with_min_len(32).for_each(|((slot, share), extra)| {
                        if !stop.load(Ordering::Relaxed) {
                            work(&context, slot, share, extra)
                        }
                    })
                });
                if done.is_err() {
                    self.interrupted = true;
                }
                done
            }
            _ => {
                let items = self.slots.iter_mut().zip(shares).zip(extra);
                items.for_each(|((slot, share), extra)| work(&context, slot, share, extra));
                Ok(())
            }
        }
    }

    fn slot(&self, index: usize) -> PyResult<&Slot> {
        self.slots.get(index).ok_or_else(|| field_error("index", "no such game"))
    }

    /// What a state must match to be set into these games.
    fn signature(&self) -> String {
        format!("{} {}x{}", self.rules_name, self.width, self.height)
    }
}

/// What stepping a game reads besides the game.
struct Context<'a> {
    rules: &'a dyn RuleSet,
    features: &'a [&'static Feature],
    rewards: [f64; 5],
    width: usize,
    height: usize,
    max_steps: Option<u64>,
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
        if let Some(totals) = out.totals {
            totals.copy_from_slice(&[game.lines() as i64, game.pieces() as i64, game.score() as i64]);
        }
    }
}

/// What one step did to one game.
struct StepResult<'a> {
    action: i64,
    reward: &'a mut f64,
    terminated: &'a mut bool,
    truncated: &'a mut bool,
    illegal: &'a mut bool,
}

/// A saved game of [`Games`]: its board, pieces to come and totals, to set back later
/// (`Games.set_state`). Copies are cheap; a state of a game that records its actions
/// pickles (as those actions, replayed when unpickled). Shown and pickled as
/// `tetris_lab.GameState`, which the package exports.
#[pyclass(module = "tetris_lab", frozen)]
#[derive(Clone)]
struct GameState {
    slot: Slot,
    rules_name: String,
    board: Option<(usize, usize)>,
    signature: String,
}

#[pymethods]
impl GameState {
    /// The state of a game of rule set `rules` (board `board`, "WxH", when given) after
    /// playing `actions` from the start of episode `episode` of master seed `master`;
    /// `steps`/`truncated` as saved. How a pickled state comes back.
    #[staticmethod]
    #[pyo3(signature = (rules, board, master, episode, actions, truncated))]
    fn replay(
        rules: &str,
        board: Option<(usize, usize)>,
        master: u64,
        episode: u64,
        actions: Vec<u8>,
        truncated: bool,
    ) -> PyResult<GameState> {
        let rule_set = rule_set(rules, board, "board")?;
        let empty = rule_set.new_board();
        let (width, height) = (empty.width(), empty.height());
        let context =
            Context { rules: rule_set.as_ref(), features: &[], rewards: [0.0; 5], width, height, max_steps: None };
        let mut slot = Slot::start(&context, master, episode, true);
        for &action in &actions {
            if slot.ended {
                return Err(field_error("actions", "the game ends before its last action"));
            }
            slot.play(&context, action as i64);
        }
        slot.truncated = truncated;
        let signature = format!("{rules} {width}x{height}");
        Ok(GameState { slot, rules_name: rules.to_string(), board, signature })
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let py = slf.py();
        let state = slf.get();
        let Some(history) = &state.slot.history else {
            return Err(PyTypeError::new_err(
                "a state of a batched environment's game cannot be pickled (only the single environment's)",
            ));
        };
        let replay = slf.get_type().getattr("replay")?;
        let history = pyo3::types::PyBytes::new(py, history);
        let arguments = (
            state.rules_name.clone(),
            state.board,
            state.slot.master,
            state.slot.episode,
            history,
            state.slot.truncated,
        )
            .into_pyobject(py)?
            .into_any();
        Ok((replay, arguments))
    }

    fn __copy__(&self) -> GameState {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> GameState {
        self.clone()
    }

    /// The master seed and the episode: the game's pieces are game `episode` of
    /// `tetris-lab play --seed master`.
    #[getter]
    fn master(&self) -> u64 {
        self.slot.master
    }
    /// The game's number among the games of its master seed (0 after `reset(seed=...)`).
    #[getter]
    fn episode(&self) -> u64 {
        self.slot.episode
    }
    /// Steps of this episode so far.
    #[getter]
    fn steps(&self) -> u64 {
        self.slot.steps
    }
    /// Whether the game has ended (over, or ended by an illegal action).
    #[getter]
    fn terminated(&self) -> bool {
        self.slot.ended
    }
    /// Whether the episode cap cut the game off.
    #[getter]
    fn truncated(&self) -> bool {
        self.slot.truncated
    }
    /// Rows cleared, pieces placed and score so far.
    #[getter]
    fn totals(&self) -> (u64, u64, u64) {
        (self.slot.game.lines(), self.slot.game.pieces(), self.slot.game.score())
    }

    fn __repr__(&self) -> String {
        let (lines, pieces) = (self.slot.game.lines(), self.slot.game.pieces());
        format!(
            "GameState({}, seed {} game {}, {pieces} pieces, {lines} rows{})",
            self.signature,
            self.slot.master,
            self.slot.episode,
            if self.slot.done() { ", ended" } else { "" }
        )
    }
}

#[pymethods]
impl Games {
    /// `count` games of rule set `rules` (board `board` when given), feature observations
    /// of `features` (`None` for board observations), on `threads` threads (all cores when
    /// `None`), episodes capped at `max_steps` steps; `record` keeps every game's actions
    /// (for states that pickle).
    #[new]
    #[pyo3(signature = (rules, board, features, count, rewards, threads=None, max_steps=None, record=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        rules: &str,
        board: Option<&str>,
        features: Option<Vec<String>>,
        count: &Bound<'_, PyAny>,
        rewards: [f64; 5],
        threads: Option<&Bound<'_, PyAny>>,
        max_steps: Option<&Bound<'_, PyAny>>,
        record: bool,
    ) -> PyResult<Games> {
        let size = board_size(board)?;
        let rule_set = rule_set(rules, size, "board")?;
        if rule_set.frame_rules().is_some() {
            return Err(field_error(
                "rules",
                format!("{rules} is played frame by frame (presets pygame-lee); the environments play placement games"),
            ));
        }
        let empty = rule_set.new_board();
        let (width, height) = (empty.width(), empty.height());
        let features = features.map(|names| find_features(&names, width)).transpose()?;
        let preview = rule_set.preview().min(7);
        let per_env = bytes_per_env(width, height, preview, features.as_ref().map(Vec::len));
        let count = integer_in(count, "num_envs", 1, MAX_ENVS.min(memory_budget() / per_env))? as usize;
        let threads = threads_argument(threads)?;
        let max_steps = optional_integer_in(max_steps, "max_episode_steps", 1, MAX_PIECES)?;
        let pool = if count >= PARALLEL_FROM { Some(pool_of(threads)?) } else { None };
        let mut games = Games {
            width,
            height,
            preview,
            rules: rule_set,
            rules_name: rules.to_string(),
            board: size,
            features: features.unwrap_or_default(),
            rewards,
            slots: Vec::new(),
            max_steps,
            record,
            pool,
            interrupted: false,
        };
        let context = games.context();
        games.slots = match &games.pool {
            Some(pool) => interruptible(py, Some(pool), |stop| {
                (0..count as u64)
                    .into_par_iter()
                    .map(|n| (!stop.load(Ordering::Relaxed)).then(|| Slot::start(&context, n, 0, record)))
                    .collect::<Option<Vec<Slot>>>()
            })?
            .expect("every game made when not stopped"),
            None => (0..count as u64).map(|n| Slot::start(&context, n, 0, record)).collect(),
        };
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
    #[getter]
    fn max_steps(&self) -> Option<u64> {
        self.max_steps
    }

    /// Rows cleared, pieces placed and score of game `index` so far.
    fn totals(&self, index: usize) -> PyResult<(u64, u64, u64)> {
        let slot = self.slot(index)?;
        Ok((slot.game.lines(), slot.game.pieces(), slot.game.score()))
    }

    /// Game `index` drawn as `tetris-lab watch` draws a move: the text (`ansi`) or the
    /// image's RGB pixels (height x width x 3).
    fn picture<'py>(&self, py: Python<'py>, index: usize, image: bool) -> PyResult<PyObject> {
        let slot = self.slot(index)?;
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
        let board = self.slot(index)?.game.board();
        let cells = Array2::from_shape_fn((self.height, self.width), |(row, x)| {
            board.is_filled(x, self.height - 1 - row) as u8
        });
        Ok(cells.into_pyarray(py))
    }

    /// Game `index`'s state (a copy).
    fn get_state(&self, index: usize) -> PyResult<GameState> {
        Ok(GameState {
            slot: self.slot(index)?.clone(),
            rules_name: self.rules_name.clone(),
            board: self.board,
            signature: self.signature(),
        })
    }

    /// Sets game `index` to `state` (of a game of the same rule set and board) and writes
    /// what every game's player sees.
    fn set_state(&mut self, py: Python<'_>, index: usize, state: &GameState, mut buffers: Buffers<'_>) -> PyResult<()> {
        if state.signature != self.signature() {
            return Err(field_error(
                "state",
                format!("a state of a {} game cannot be set into a {} game", state.signature, self.signature()),
            ));
        }
        self.slot(index)?;
        let mut slot = state.slot.clone();
        // Recording follows these games, not the state's.
        match (&slot.history, self.record) {
            (None, true) => slot.history = Some(Vec::new()),
            (Some(_), false) => slot.history = None,
            _ => {}
        }
        self.slots[index] = slot;
        let shares = self.shares(&mut buffers)?;
        self.each(py, shares, vec![(); self.slots.len()], |context, slot, share, ()| context.observe(slot, share))
    }

    /// Starts games anew: game n with master seed `masters[n]` (episode 0), or, where it is
    /// `None`, the next episode of its master seed; with `mask`, only the games it marks
    /// (the others are observed as they are).
    #[pyo3(signature = (masters, buffers, mask=None))]
    fn reset(
        &mut self,
        py: Python<'_>,
        masters: Vec<Option<u64>>,
        mut buffers: Buffers<'_>,
        mask: Option<PyReadonlyArray1<'_, bool>>,
    ) -> PyResult<()> {
        let count = self.slots.len();
        if masters.len() != count {
            return Err(field_error("seed", format!("{} seeds for {count} games", masters.len())));
        }
        let mask: Vec<bool> = match &mask {
            Some(mask) => {
                let mask = mask.as_array();
                if mask.len() != count {
                    return Err(field_error(
                        "reset_mask",
                        format!("must be one flag per game ({count}), got {}", mask.len()),
                    ));
                }
                mask.to_vec()
            }
            None => vec![true; count],
        };
        if self.interrupted && !mask.iter().all(|&m| m) {
            return Err(field_error("reset_mask", "a step or reset was interrupted part way: reset every game first"));
        }
        let shares = self.shares(&mut buffers)?;
        let every_master = masters.iter().zip(&mask).all(|(m, &reset)| m.is_some() || !reset);
        let record = self.record;
        let items: Vec<(Option<u64>, bool)> = masters.into_iter().zip(mask).collect();
        self.each(py, shares, items, |context, slot, share, (master, reset)| {
            if reset {
                *slot = match master {
                    Some(master) => Slot::start(context, master, 0, record),
                    None => Slot::start(context, slot.master, slot.episode + 1, record),
                };
            }
            context.observe(slot, share);
        })?;
        // A reset that seeds every game leaves none half-stepped.
        if every_master {
            self.interrupted = false;
        }
        Ok(())
    }

    /// Plays `actions[n]` in game n and writes what it did and what the player sees next.
    /// An action that is not a placement of the current piece ends the game (`illegal`).
    /// `autoreset`: 0, a game that has ended is not stepped (its action ignored, reward 0);
    /// 1, next-step (Gymnasium's default), a game that ended at the previous step starts
    /// its next episode instead (action ignored, reward 0); 2, same-step, a game that ends
    /// starts its next episode at once, its last observation written to `last` (only its
    /// rows) and the new episode's first one to `buffers`.
    #[pyo3(signature = (actions, autoreset, rewards, terminated, truncated, illegal, buffers, last=None))]
    #[allow(clippy::too_many_arguments)]
    fn step(
        &mut self,
        py: Python<'_>,
        actions: PyReadonlyArray1<i64>,
        autoreset: u8,
        mut rewards: PyReadwriteArray1<f64>,
        mut terminated: PyReadwriteArray1<bool>,
        mut truncated: PyReadwriteArray1<bool>,
        mut illegal: PyReadwriteArray1<bool>,
        mut buffers: Buffers<'_>,
        mut last: Option<Buffers<'_>>,
    ) -> PyResult<()> {
        if self.interrupted {
            return Err(field_error("actions", "a step or reset was interrupted part way: reset every game first"));
        }
        let count = self.slots.len();
        let actions = actions.as_array();
        if actions.len() != count {
            return Err(field_error(
                "actions",
                format!("must be one action per game ({count}), got {}", actions.len()),
            ));
        }
        let last_action = (ORIENTATIONS * self.width) as i64 - 1;
        if let Some((game, action)) = actions.iter().enumerate().find(|(_, &a)| !(0..=last_action).contains(&a)) {
            return Err(field_error("actions", format!("must be 0 to {last_action}, got {action} (game {game})")));
        }
        if autoreset > AUTORESET_SAME_STEP || (autoreset == AUTORESET_SAME_STEP) != last.is_some() {
            return Err(field_error("autoreset", "0, 1 or 2, with buffers for the last observations for 2"));
        }
        let rewards = rewards.as_slice_mut().map_err(|e| field_error("rewards", e))?;
        let terminated = terminated.as_slice_mut().map_err(|e| field_error("terminated", e))?;
        let truncated = truncated.as_slice_mut().map_err(|e| field_error("truncated", e))?;
        let illegal = illegal.as_slice_mut().map_err(|e| field_error("illegal", e))?;
        if rewards.len() != count || terminated.len() != count || truncated.len() != count || illegal.len() != count {
            return Err(field_error("rewards", format!("one reward, end flags and illegal flag per game ({count})")));
        }
        let results: Vec<StepResult> = actions
            .iter()
            .zip(rewards.iter_mut().zip(terminated.iter_mut()).zip(truncated.iter_mut()).zip(illegal.iter_mut()))
            .map(|(&action, (((reward, terminated), truncated), illegal))| StepResult {
                action,
                reward,
                terminated,
                truncated,
                illegal,
            })
            .collect();
        let shares = self.shares(&mut buffers)?;
        match &mut last {
            // Same-step autoreset: each game also gets its share of the last observations.
            Some(last) => {
                let lasts = self.shares(last)?;
                let extra: Vec<_> = results.into_iter().zip(lasts).collect();
                self.each(py, shares, extra, |context, slot, share, (result, last)| {
                    step_game(context, slot, share, result, autoreset, Some(last))
                })
            }
            None => self.each(py, shares, results, |context, slot, share, result| {
                step_game(context, slot, share, result, autoreset, None)
            }),
        }
    }
}

/// [`Games::step`] for one game.
fn step_game(
    context: &Context,
    slot: &mut Slot,
    share: Observation,
    result: StepResult,
    autoreset: u8,
    last: Option<Observation>,
) {
    *result.reward = 0.0;
    *result.illegal = false;
    if slot.done() {
        if autoreset == AUTORESET_NEXT_STEP {
            slot.next_episode(context);
        }
    } else {
        (*result.reward, *result.illegal) = slot.play(context, result.action);
    }
    *result.terminated = slot.ended;
    *result.truncated = slot.truncated;
    if let (Some(last), true) = (last, slot.done()) {
        context.observe(slot, last);
        slot.next_episode(context);
    }
    context.observe(slot, share);
}

/// The binding's module.
#[pymodule]
fn _core(module: &Bound<'_, PyModule>) -> PyResult<()> {
    // Numpy's array API and its borrow checking are looked up on first use, by importing
    // numpy's modules: done here, at import, not after a long call where a pending Ctrl-C
    // would make the import fail (and the lookup panic).
    let probe = PyArray1::<u8>::zeros(module.py(), 0, false);
    drop(probe.readonly());
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
    module.add_class::<GameState>()?;
    Ok(())
}
