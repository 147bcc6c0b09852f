"""Types of the compiled part of ``tetris_lab`` (Rust, PyO3): called through the package's
public functions and environments, which check the arguments first."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

_Buffers = tuple[
    npt.NDArray[np.uint8] | None,
    npt.NDArray[np.float32] | None,
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.bool_],
    npt.NDArray[np.int64] | None,
]

def play(
    preset: str,
    rules: str | None,
    board: str | None,
    games: int,
    seed: int,
    threads: int | None = None,
    weights: list[float] | None = None,
    weights_file: str | None = None,
    max_pieces: int | None = None,
) -> dict[str, npt.NDArray[np.uint64] | npt.NDArray[np.int64] | list[str]]: ...
def fitness(
    preset: str,
    weights: list[float],
    rules: str | None,
    board: str | None,
    games: int,
    seed: int,
    threads: int | None = None,
    max_pieces: int | None = None,
) -> tuple[float, float, float]: ...
def preset_names() -> list[str]: ...
def rule_set_names() -> list[str]: ...
def feature_list() -> list[tuple[str, str]]: ...
def preset_weights(preset: str) -> list[tuple[str, float]]: ...
def piece_letters() -> str: ...
def board_features(boards: npt.NDArray[np.uint8], names: list[str]) -> npt.NDArray[np.float64]: ...
def after_states(
    board: npt.NDArray[np.uint8], piece: int, names: list[str], rules: str
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.int64]]: ...

class GameState:
    """A saved game: board, pieces to come, totals and steps."""

    @staticmethod
    def replay(
        rules: str, board: tuple[int, int] | None, master: int, episode: int, actions: bytes, truncated: bool
    ) -> GameState: ...
    @property
    def master(self) -> int: ...
    @property
    def episode(self) -> int: ...
    @property
    def steps(self) -> int: ...
    @property
    def terminated(self) -> bool: ...
    @property
    def truncated(self) -> bool: ...
    @property
    def totals(self) -> tuple[int, int, int]: ...
    def __copy__(self) -> GameState: ...
    def __deepcopy__(self, memo: object) -> GameState: ...

class Games:
    """N placement games stepped together."""

    def __init__(
        self,
        rules: str,
        board: str | None,
        features: list[str] | None,
        count: int,
        rewards: list[float],
        threads: int | None = None,
        max_steps: int | None = None,
        record: bool = False,
    ) -> None: ...
    @property
    def width(self) -> int: ...
    @property
    def height(self) -> int: ...
    @property
    def preview_length(self) -> int: ...
    @property
    def action_count(self) -> int: ...
    @property
    def feature_count(self) -> int: ...
    @property
    def count(self) -> int: ...
    @property
    def rule_set(self) -> str: ...
    @property
    def max_steps(self) -> int | None: ...
    def totals(self, index: int) -> tuple[int, int, int]: ...
    def picture(self, index: int, image: bool) -> str | npt.NDArray[np.uint8]: ...
    def board(self, index: int) -> npt.NDArray[np.uint8]: ...
    def get_state(self, index: int) -> GameState: ...
    def set_state(self, index: int, state: GameState, buffers: _Buffers) -> None: ...
    def reset(
        self, masters: list[int | None], buffers: _Buffers, mask: npt.NDArray[np.bool_] | None = None
    ) -> None: ...
    def step(
        self,
        actions: npt.NDArray[np.int64],
        autoreset: int,
        rewards: npt.NDArray[np.float64],
        terminated: npt.NDArray[np.bool_],
        truncated: npt.NDArray[np.bool_],
        illegal: npt.NDArray[np.bool_],
        buffers: _Buffers,
        last: _Buffers | None = None,
    ) -> None: ...
