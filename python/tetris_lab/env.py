"""The Gymnasium environments: one Tetris game (``TetrisEnv``) and N games stepped together
in Rust (``TetrisVectorEnv``), both on the library's placement games.

An action places the current piece: orientation x width + box column (``Discrete(4 x
width)``); ``info["action_mask"]`` marks the legal ones. An action that is not a legal
placement ends the game (``info["illegal_action"]``). The reward is the rows cleared, or as
``reward=`` says (see :func:`reward_table`).
Game ``k`` after ``reset(seed=s)`` (``k`` = 0, then one more for every ``reset()`` without
a seed) has the pieces of game ``k`` of ``tetris-lab play --seed s``.

Arguments are checked as the package's functions check theirs: ``TypeError`` for a wrong
type, ``ValueError`` for a wrong value or shape, naming the argument.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from . import _checks, _core

ENVIRONMENT_ID = "tetris_lab/Tetris-v0"
OBSERVATIONS = ("board", "features")
#: Seeds are 64-bit; Python's random seeds are drawn below this.
SEED_BOUND = 2**63


def register() -> None:
    """Registers ``tetris_lab/Tetris-v0`` with Gymnasium (once)."""
    if ENVIRONMENT_ID not in gym.registry:
        gym.register(
            id=ENVIRONMENT_ID,
            entry_point="tetris_lab.env:TetrisEnv",
            vector_entry_point="tetris_lab.env:TetrisVectorEnv",
        )


def _games(rules, board, observation, features, reward, count, threads):
    """The Rust games and the feature names the observation uses (checked there: the
    count, ``num_envs``, is bounded by what the machine can hold)."""
    from . import _board_text, _feature_names

    _checks.text(rules, "rules")
    _checks.choice(observation, "observation", OBSERVATIONS)
    names = _feature_names(features) if observation == "features" else None
    rewards = [float(value) for value in reward_table(reward)]
    return _core.Games(rules, _board_text(board), names, count, rewards, threads), names or []


def _single_space(games, observation: str) -> spaces.Space:
    """One game's observation space."""
    if observation == "features":
        # The features of the board just reached, then the current piece one-hot.
        size = games.feature_count + 7
        bound = np.finfo(np.float32).max
        return spaces.Box(low=-bound, high=bound, shape=(size,), dtype=np.float32)
    parts = {
        "board": spaces.Box(low=0, high=1, shape=(games.height, games.width), dtype=np.uint8),
        "piece": spaces.Discrete(7),
    }
    if games.preview_length:
        parts["preview"] = spaces.MultiDiscrete([7] * games.preview_length)
    return spaces.Dict(parts)


class _Buffers:
    """Fresh arrays for one observation of ``count`` games (the caller keeps them)."""

    def __init__(self, games, count: int, observation: str):
        self.boards = np.empty((count, games.height, games.width), np.uint8) if observation == "board" else None
        self.features = np.empty((count, games.feature_count), np.float32) if observation == "features" else None
        self.pieces = np.empty(count, np.int64)
        self.previews = np.empty((count, games.preview_length), np.int64)
        self.masks = np.empty((count, games.action_count), bool)

    def arguments(self):
        return self.boards, self.features, self.pieces, self.previews, self.masks


_ONE_HOT = np.eye(7, dtype=np.float32)


def _observation(buffers: _Buffers, observation: str, preview: bool):
    """The batched observation of the buffers."""
    if observation == "features":
        return np.concatenate([buffers.features, _ONE_HOT[buffers.pieces]], axis=1)
    parts = {"board": buffers.boards, "piece": buffers.pieces}
    if preview:
        parts["preview"] = buffers.previews
    return parts


#: The named rewards: what a placement that clears 0, 1, 2, 3 or 4 rows earns.
REWARDS = {
    # The rows cleared (the research game's score).
    "rows": (0.0, 1.0, 2.0, 3.0, 4.0),
    # One for every piece placed: survival.
    "pieces": (1.0, 1.0, 1.0, 1.0, 1.0),
    # The original Nintendo scoring at level 0 (40, 100, 300, 1200).
    "nintendo": (0.0, 40.0, 100.0, 300.0, 1200.0),
}


def reward_table(reward) -> np.ndarray:
    """What a placement clearing 0 to 4 rows earns: a name of :data:`REWARDS` or five
    numbers. An illegal action, and the step that starts a batched game anew, earn 0."""
    if isinstance(reward, str):
        if reward not in REWARDS:
            raise ValueError(f"reward: must be one of {', '.join(REWARDS)} or five numbers (for 0 to 4 rows), got {reward!r}")
        return np.array(REWARDS[reward], np.float64)
    table = _checks.numbers(reward, "reward", f"one of {', '.join(REWARDS)} or five numbers (for 0 to 4 rows)")
    if table.shape != (5,) or not np.all(np.isfinite(table)):
        raise ValueError(f"reward: must be five finite numbers (for 0 to 4 rows), got {table.tolist()}")
    return table


class TetrisEnv(gym.Env):
    """One Tetris game of a rule set (default ``simplified``, 10x20).

    Parameters: ``rules`` (a rule set name; the frame-by-frame guideline games are not
    offered), ``board`` ("WxH" or (width, height), where the rule set allows it),
    ``observation`` ("board": a Dict of ``board`` (height x width uint8, top row first),
    ``piece`` (0..6, a letter of ``tetris_lab.PIECES``) and ``preview`` when the rule set
    shows one; "features": float32 features of the board just reached, with what the
    last placement did, then the current piece one-hot), ``features`` (a preset name or
    a list of feature names, for the feature observation), ``reward`` (a name of
    :data:`REWARDS`, default "rows", or five numbers: what clearing 0 to 4 rows earns),
    ``render_mode`` ("ansi" or "rgb_array").
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}

    def __init__(
        self, rules="simplified", board=None, observation="board", features="bcts", reward="rows", render_mode=None
    ):
        if render_mode is not None:
            _checks.choice(render_mode, "render_mode", self.metadata["render_modes"])
        self._games, self.feature_names = _games(rules, board, observation, features, reward, 1, None)
        self.observation_kind = observation
        self.render_mode = render_mode
        self.observation_space = _single_space(self._games, observation)
        self._action_count = self._games.action_count
        self.action_space = spaces.Discrete(self._action_count)
        self._master = None
        self._ended = True
        self._reward = np.zeros(1, np.float64)
        self._terminated = np.zeros(1, bool)
        self._illegal = np.zeros(1, bool)
        self._last = None

    @property
    def rule_set(self) -> str:
        """The rule set, as ``tetris-lab list`` describes it."""
        return self._games.rule_set

    def _result(self, buffers: _Buffers):
        self._last = buffers
        observation = _observation(buffers, self.observation_kind, self._games.preview_length > 0)
        if self.observation_kind == "features":
            observation = observation[0]
        else:
            observation = {key: value[0] for key, value in observation.items()}
            observation["piece"] = int(observation["piece"])
        return observation

    def _info(self):
        lines, pieces, score = self._games.totals(0)
        return {"action_mask": self._last.masks[0], "lines": lines, "pieces": pieces, "score": score}

    def reset(self, *, seed=None, options=None):
        if seed is not None:
            seed = _checks.seed(seed)
        super().reset(seed=seed)
        if seed is not None:
            master = self._master = seed
        elif self._master is None:
            master = self._master = int(self.np_random.integers(SEED_BOUND))
        else:
            master = None
        buffers = _Buffers(self._games, 1, self.observation_kind)
        self._games.reset([master], *buffers.arguments())
        self._ended = False
        observation = self._result(buffers)
        return observation, self._info()

    def step(self, action):
        if self._ended:
            raise gym.error.ResetNeeded("the game has ended: call reset()")
        if type(action) is not int and not isinstance(action, np.integer):
            raise TypeError(f"action: must be an integer, got {type(action).__name__} {action!r}")
        action = int(action)
        if not 0 <= action < self._action_count:
            raise ValueError(f"action: must be 0 to {self._action_count - 1}, got {action}")
        buffers = _Buffers(self._games, 1, self.observation_kind)
        actions = np.array([action], np.int64)
        self._games.step(actions, False, self._reward, self._terminated, self._illegal, *buffers.arguments())
        self._ended = bool(self._terminated[0])
        observation = self._result(buffers)
        info = self._info()
        info["illegal_action"] = bool(self._illegal[0])
        return observation, float(self._reward[0]), self._ended, False, info

    def action_masks(self) -> np.ndarray:
        """The legal actions now (as ``info["action_mask"]``)."""
        return self._last.masks[0].copy()

    def board(self) -> np.ndarray:
        """The board now: height x width uint8, top row first."""
        return self._board_cells()

    def _board_cells(self) -> np.ndarray:
        if self._last is None:
            raise gym.error.ResetNeeded("call reset() first")
        if self._last.boards is not None:
            return self._last.boards[0]
        return self._games.board(0)

    def render(self):
        """The game as ``tetris-lab watch`` draws a move: the board with the piece just
        placed highlighted and a panel (piece, preview, rows, score); text for "ansi", the
        image's pixels (height x width x 3 uint8, one size for the whole game) for
        "rgb_array"."""
        if self.render_mode is None or self._last is None:
            return None
        return self._games.picture(0, self.render_mode == "rgb_array")


class TetrisVectorEnv(VectorEnv):
    """``num_envs`` games stepped together in Rust (threads for many games), with
    Gymnasium's next-step autoreset: a game that ended at one step starts anew at the
    next (its action ignored, reward 0). ``reset(seed=s)`` seeds game ``i`` with ``s + i``
    (as a ``SyncVectorEnv`` of ``TetrisEnv`` would), or with ``seed[i]`` for a list;
    later episodes of game ``i`` are the following games of its seed. Parameters as
    :class:`TetrisEnv`, plus ``num_envs`` (1 to what the machine can hold) and ``threads``
    (default: all cores). ``step`` takes an integer array of shape ``(num_envs,)``. Ctrl-C
    during a long ``reset`` or ``step`` raises ``KeyboardInterrupt`` and leaves the games to
    be reset."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs=1,
        rules="simplified",
        board=None,
        observation="board",
        features="bcts",
        reward="rows",
        threads=None,
        render_mode=None,
    ):
        if render_mode is not None:
            raise ValueError(f"render_mode: the batched environment does not render ({render_mode!r} asked)")
        self._games, self.feature_names = _games(rules, board, observation, features, reward, num_envs, threads)
        self.num_envs = self._games.count
        self.observation_kind = observation
        self.render_mode = None
        self.single_observation_space = _single_space(self._games, observation)
        self.single_action_space = spaces.Discrete(self._games.action_count)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._seeded = False
        self._rewards = np.zeros(self.num_envs, np.float64)
        self._terminated = np.zeros(self.num_envs, bool)
        self._illegal = np.zeros(self.num_envs, bool)
        self._truncated = np.zeros(self.num_envs, bool)

    def reset(self, *, seed=None, options=None):
        if seed is None:
            super().reset()
            if self._seeded:
                masters = [None] * self.num_envs
            else:
                first = int(self.np_random.integers(SEED_BOUND))
                masters = [first + i for i in range(self.num_envs)]
        elif isinstance(seed, (list, tuple, np.ndarray)):
            if np.ndim(seed) != 1 or len(seed) != self.num_envs:
                raise ValueError(f"seed: must be one seed per game ({self.num_envs}), got shape {np.shape(seed)}")
            masters = [None if s is None else _checks.seed(s) for s in seed]
            super().reset(seed=masters[0])
        else:
            seed = _checks.seed(seed, count=self.num_envs)
            super().reset(seed=seed)
            masters = [seed + i for i in range(self.num_envs)]
        buffers = _Buffers(self._games, self.num_envs, self.observation_kind)
        self._seeded = False
        self._games.reset(masters, *buffers.arguments())
        self._seeded = True
        observation = _observation(buffers, self.observation_kind, self._games.preview_length > 0)
        return observation, {"action_mask": buffers.masks}

    def step(self, actions):
        if not self._seeded:
            raise gym.error.ResetNeeded("call reset() first")
        given = np.asarray(actions)
        if given.dtype.kind not in "iu":
            raise TypeError(f"actions: must be integers, got dtype {given.dtype}")
        if given.shape != (self.num_envs,):
            raise ValueError(f"actions: must be an array of shape ({self.num_envs},), got shape {given.shape}")
        actions = np.ascontiguousarray(given, dtype=np.int64)
        buffers = _Buffers(self._games, self.num_envs, self.observation_kind)
        try:
            self._games.step(actions, True, self._rewards, self._terminated, self._illegal, *buffers.arguments())
        except KeyboardInterrupt:
            # Stopped part way: some games stepped, others not.
            self._seeded = False
            raise
        observation = _observation(buffers, self.observation_kind, self._games.preview_length > 0)
        info = {"action_mask": buffers.masks, "illegal_action": self._illegal.copy()}
        return observation, self._rewards.copy(), self._terminated.copy(), self._truncated.copy(), info
