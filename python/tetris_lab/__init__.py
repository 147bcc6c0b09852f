"""tetris-lab from Python: the library's simulator, board features and Gymnasium environments.

The work is done in Rust with the GIL released; numpy arrays go in and out.

- Games: :func:`play`, :func:`fitness`, :func:`presets`, :func:`rule_sets`,
  :func:`weights`, :data:`PIECES`.
- Features: :func:`features`, :func:`feature_descriptions`, :func:`board_features`,
  :func:`after_states`, :func:`feature_scales`.
- Gymnasium: :class:`TetrisEnv` (one game; it copies, pickles and saves its state as a
  :class:`GameState`) and :class:`TetrisVectorEnv` (N games stepped together), registered
  as ``tetris_lab/Tetris-v0`` for ``gymnasium.make`` and ``gymnasium.make_vec``;
  :data:`REWARDS`, :func:`reward_table`.
- Stable-Baselines3: ``tetris_lab.sb3.TetrisVecEnv`` (imported on its own, as it needs
  ``stable-baselines3``).

Bad arguments raise ``TypeError`` (a value of the wrong type) or ``ValueError`` (a value
out of range, of the wrong shape, or an unknown name), the message starting with the
argument's name. Ctrl-C during a long call raises ``KeyboardInterrupt`` within moments.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from . import _checks, _core

__all__ = [
    "PIECES",
    "presets",
    "rule_sets",
    "features",
    "weights",
    "play",
    "fitness",
    "Fitness",
    "board_features",
    "after_states",
    "feature_descriptions",
    "feature_scales",
    "TetrisEnv",
    "TetrisVectorEnv",
    "GameState",
    "REWARDS",
    "reward_table",
]

#: The seven pieces' letters; a piece number is an index into it.
PIECES: str = _core.piece_letters()


def presets() -> list[str]:
    """The preset names (``tetris-lab list``)."""
    return _core.preset_names()


def rule_sets() -> list[str]:
    """The rule set names."""
    return _core.rule_set_names()


def features(preset: str | None = None) -> list[str]:
    """A preset's feature names in its order (the order of its weights vector); every
    feature of the library when no preset is named."""
    if preset is None:
        return [name for name, _ in _core.feature_list()]
    return [name for name, _ in _core.preset_weights(_checks.text(preset, "preset"))]


def feature_descriptions() -> dict[str, str]:
    """Every feature of the library with its one-line description, {name: description}, in
    the library's order (as ``tetris-lab list`` shows them)."""
    return dict(_core.feature_list())


def weights(preset: str) -> dict[str, float]:
    """A preset's published weights, {feature name: weight} in its feature order."""
    return dict(_core.preset_weights(_checks.text(preset, "preset")))


def _board_text(board) -> str | None:
    """A board size given as ``"WxH"`` or ``(width, height)``, as the library parses it."""
    if board is None or isinstance(board, str):
        return board
    wanted = '"WxH" or (width, height)'
    if isinstance(board, np.ndarray):
        board = board.tolist() if board.ndim == 1 else board
    if not isinstance(board, (tuple, list)):
        raise TypeError(f"board: must be {wanted}, got {type(board).__name__} {board!r}")
    if len(board) != 2:
        raise ValueError(f"board: must be {wanted}, got {len(board)} values {board!r}")
    for value in board:
        if not _checks.is_integer(value):
            raise TypeError(f"board: the width and height must be integers, got {type(value).__name__} {value!r}")
    return f"{int(board[0])}x{int(board[1])}"


def _weights_vector(preset: str, weights) -> list[float]:
    """Weights given as {feature: weight} or as a vector in the preset's feature order."""
    names = features(preset)
    if isinstance(weights, Mapping):
        unknown = [name for name in weights if name not in names]
        if unknown:
            raise ValueError(f"weights: preset {preset} has no feature {unknown[0]!r} (its features: {', '.join(names)})")
        missing = [name for name in names if name not in weights]
        if missing:
            raise ValueError(f"weights: missing weight(s) for {', '.join(missing)} (preset {preset} weighs {', '.join(names)})")
        return [_checks.number(weights[name], "weights", f"a number for {name}") for name in names]
    vector = _checks.numbers(weights, "weights", "a dict {feature: weight}, a vector of numbers or a weights file's path")
    if vector.ndim != 1:
        raise ValueError(f"weights: must be a vector of {len(names)} values ({', '.join(names)}) or a dict, got shape {vector.shape}")
    return vector.tolist()


def play(
    preset: str,
    rules: str | None = None,
    board=None,
    games: int = 100,
    seed: int = 1,
    threads: int | None = None,
    weights=None,
    max_pieces: int | None = None,
) -> dict[str, np.ndarray]:
    """Plays ``games`` seeded games of a preset, as ``tetris-lab play`` does with the same
    arguments (the same games, bit for bit, at any thread count).

    ``weights`` replaces the published weights: a dict {feature: weight}, a vector in the
    preset's feature order (:func:`features`), or the path of a weights file (TOML, as
    ``--weights`` reads). Returns the columns of ``play --csv``: ``game``, ``seed``,
    ``lines`` (rows cleared), ``pieces``, ``score``, ``end`` ("game_over" or "piece_cap")
    and ``level`` (-1 for rule sets without levels), one entry per game.
    """
    _checks.text(preset, "preset")
    _checks.text(rules, "rules", optional=True)
    vector, weights_file = None, None
    if isinstance(weights, (str, os.PathLike)):
        weights_file = os.fspath(weights)
    elif weights is not None:
        vector = _weights_vector(preset, weights)
    out = _core.play(preset, rules, _board_text(board), games, seed, threads, vector, weights_file, max_pieces)
    out["end"] = np.array(out["end"], dtype=str)
    return out


class Fitness(NamedTuple):
    """Mean rows per game with its 95% interval (as ``tetris-lab play`` prints them)."""

    mean: float
    low: float
    high: float


def fitness(
    weights,
    preset: str = "bcts",
    rules: str | None = None,
    board=None,
    games: int = 100,
    seed: int = 1,
    threads: int | None = None,
    max_pieces: int | None = None,
) -> Fitness:
    """The fitness of a weights vector (or dict) for Python optimizers: mean rows per game
    with its 95% interval, on common random games (the games of ``seed``, the same for
    every call, so two vectors are compared on the same pieces)."""
    _checks.text(preset, "preset")
    _checks.text(rules, "rules", optional=True)
    vector = _weights_vector(preset, weights)
    return Fitness(*_core.fitness(preset, vector, rules, _board_text(board), games, seed, threads, max_pieces))


def _feature_names(features) -> list[str]:
    """Features named by a preset (its features), one feature name, or a list of names
    (at least one; ``tetris_lab._core`` refuses an empty list, naming ``features``)."""
    if isinstance(features, str):
        return globals()["features"](features) if features in presets() else [features]
    wanted = "a preset, a feature name or a list of feature names"
    if isinstance(features, (bytes, Mapping)) or not hasattr(features, "__iter__"):
        raise TypeError(f"features: must be {wanted}, got {type(features).__name__} {features!r}")
    names = list(features)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"features: must be {wanted}, got {type(name).__name__} {name!r} in the list")
    return [str(name) for name in names]


def board_features(boards, features="bcts") -> np.ndarray:
    """The features of N boards: ``boards`` is N x height x width (bool or integers, top row
    first, non-zero = filled) or one height x width board; ``features`` a preset (its
    features, in its order), a feature name or a list of names. Returns N x F float64 (F
    for one board). Placement features (landing height, eroded cells...) read 0 on a bare
    board."""
    names = _feature_names(features)
    single = np.ndim(boards) == 2
    grid = _checks.grid(boards, 2 if single else 3, "boards")
    values = _core.board_features(grid[None] if single else grid, names)
    return values[0] if single else values


def after_states(board, piece, features="bcts", rules: str = "simplified") -> dict[str, np.ndarray]:
    """Every placement of ``piece`` (a letter of :data:`PIECES` or its number) on ``board``
    (height x width, top row first) under ``rules``: ``action`` (orientation x width + box
    column, the environments' action), ``features`` (K x F: the board the placement
    leaves, rows removed, with what the placement did) and ``rows_cleared``."""
    if isinstance(piece, str):
        if len(piece) != 1 or piece.upper() not in PIECES:
            raise ValueError(f"piece: must be a letter of {PIECES} or a piece number (0 to 6), got {piece!r}")
        piece = PIECES.index(piece.upper())
    elif not _checks.is_integer(piece):
        raise TypeError(f"piece: must be a letter of {PIECES} or a piece number (0 to 6), got {type(piece).__name__} {piece!r}")
    elif not 0 <= piece < len(PIECES):
        raise ValueError(f"piece: must be a letter of {PIECES} or a piece number (0 to 6), got {piece}")
    _checks.text(rules, "rules")
    cells = _checks.grid(board, 2, "board")
    actions, values, rows = _core.after_states(cells, piece, _feature_names(features), rules)
    return {"action": actions, "features": values, "rows_cleared": rows}


from .env import REWARDS, GameState, TetrisEnv, TetrisVectorEnv, feature_scales, register, reward_table  # noqa: E402

# Shown and pickled as the package's own (``tetris_lab.TetrisEnv``), where users find them.
TetrisEnv.__module__ = TetrisVectorEnv.__module__ = __name__
register()  # tetris_lab/Tetris-v0 for gymnasium.make and gymnasium.make_vec
del register
