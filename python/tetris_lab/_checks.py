"""Argument checks in Python's words, as ``tetris_lab._core`` makes them: a ``TypeError``
for a value of the wrong type, a ``ValueError`` for one out of range or of the wrong
shape, each message starting with the argument's name (``action: must be 0 to 39, got
57``)."""

from __future__ import annotations

import numpy as np

#: Seeds are 64-bit unsigned integers.
SEED_LIMIT = 2**64 - 1


def _shown(value) -> str:
    return f"{type(value).__name__} {value!r}"


def is_integer(value) -> bool:
    """A Python or numpy integer (not a bool, a float or a text)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def integer(value, name: str, low: int, high: int) -> int:
    """An integer argument in ``low..=high``."""
    if not is_integer(value):
        raise TypeError(f"{name}: must be an integer, got {_shown(value)}")
    value = int(value)
    if not low <= value <= high:
        raise ValueError(f"{name}: must be {low} to {high}, got {value}")
    return value


def seed(value, name: str = "seed", count: int = 1) -> int:
    """A seed (0 to 2^64 - 1); ``count`` seeds from it (``value + i``) must all be seeds."""
    return integer(value, name, 0, SEED_LIMIT - (count - 1))


def text(value, name: str, optional: bool = False) -> str | None:
    """A text argument (``None`` allowed when ``optional``)."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        wanted = "a str or None" if optional else "a str"
        raise TypeError(f"{name}: must be {wanted}, got {_shown(value)}")
    return value


def choice(value, name: str, options) -> str:
    """One of the names ``options``."""
    text(value, name)
    if value not in options:
        raise ValueError(f"{name}: must be one of {', '.join(options)}, got {value!r}")
    return value


def number(value, name: str, what: str) -> float:
    """A real number (an int or a float, not a bool or a text)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name}: must be {what}, got {_shown(value)}")
    return float(value)


def numbers(value, name: str, what: str) -> np.ndarray:
    """Real numbers (ints or floats, not bools or texts) as a float64 array; ``what`` says
    what the argument must be in the type error."""
    try:
        array = np.asarray(value)
    except (TypeError, ValueError):
        array = None
    if array is None or array.ndim == 0 or array.dtype.kind not in "iuf":
        raise TypeError(f"{name}: must be {what}, got {_shown(value)}")
    return array.astype(np.float64)


def grid(cells, dimensions: int, name: str) -> np.ndarray:
    """Boards as cells (bools or numbers, non-zero = filled): a contiguous uint8 array of
    ``dimensions`` axes."""
    array = np.asarray(cells)
    if array.dtype.kind not in "biuf":
        got = f"dtype {array.dtype}" if array.ndim else _shown(cells)
        raise TypeError(f"{name}: must be an array of bools or numbers, got {got}")
    if array.ndim != dimensions:
        shape = "N x height x width" if dimensions == 3 else "height x width"
        raise ValueError(f"{name}: must be an array of {shape} cells, got shape {array.shape}")
    return np.ascontiguousarray(array != 0, dtype=np.uint8)
