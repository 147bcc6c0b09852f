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

import copy
import threading

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
#: The batched environment's autoreset modes, by name.
AUTORESET_MODES = {
    "next_step": AutoresetMode.NEXT_STEP,
    "same_step": AutoresetMode.SAME_STEP,
    "disabled": AutoresetMode.DISABLED,
}
#: What ``_core.Games.step`` calls them.
_AUTORESET_CODE = {AutoresetMode.DISABLED: 0, AutoresetMode.NEXT_STEP: 1, AutoresetMode.SAME_STEP: 2}
#: The ``info`` keys both environments report, besides ``illegal_action`` after a step.
INFO_KEYS = ("action_mask", "lines", "pieces", "score")

GameState = _core.GameState


def register() -> None:
    """Registers ``tetris_lab/Tetris-v0`` with Gymnasium (once)."""
    if ENVIRONMENT_ID not in gym.registry:
        gym.register(
            id=ENVIRONMENT_ID,
            entry_point="tetris_lab.env:TetrisEnv",
            vector_entry_point="tetris_lab.env:TetrisVectorEnv",
        )


def _games(rules, board, observation, features, reward, count, threads, max_episode_steps=None, record=False):
    """The Rust games and the feature names the observation uses (checked there: the
    count, ``num_envs``, is bounded by what the machine can hold)."""
    from . import _board_text, _feature_names

    _checks.text(rules, "rules")
    _checks.choice(observation, "observation", OBSERVATIONS)
    names = _feature_names(features) if observation == "features" else None
    rewards = [float(value) for value in reward_table(reward)]
    games = _core.Games(rules, _board_text(board), names, count, rewards, threads, max_episode_steps, record)
    return games, names or []


# The boards a feature's scale is read from: the largest magnitude it reaches on them.
def _extreme_boards(width: int, height: int) -> np.ndarray:
    rows, columns = np.indices((height, width))
    boards = [
        np.ones((height, width)),  # full
        (rows + columns) % 2,  # checkerboard
        rows % 2,  # alternate rows filled (the top one empty)
        (rows + 1) % 2,  # alternate rows filled (the top one filled)
        columns % 2,  # alternate columns full
        (columns + 1) % 2,
        columns < width - 1,  # full but for the rightmost column
        columns > 0,
        np.pad(np.ones((height - 1, width - 1)), ((1, 0), (0, 1))),  # one row and column short
        rows >= height - 1 - columns * (height - 1) // max(width - 1, 1),  # a ramp
    ]
    return np.array(boards, dtype=np.uint8)


#: Scales of the placement features (0 on a bare board): what one placement reaches at most.
_PLACEMENT_SCALES = {"eroded_cells": 16.0, "rows_cleared": 4.0, "mike_lines": 8.0}


def feature_scales(features="bcts", board=(10, 20)) -> np.ndarray:
    """What ``normalize=True`` divides each feature by, for a board ``(width, height)``: the
    largest magnitude the feature reaches on a set of extreme boards of that size (full,
    checkerboard, alternate rows, alternate columns, a ramp...), at least 1; the landing
    heights are divided by the height, eroded cells by 16, rows cleared by 4. The boards
    of a game then read about -1 to 1 in every feature (a little beyond at times)."""
    from . import _board_text, _feature_names, board_features

    names = _feature_names(features)
    width, height = (int(n) for n in _board_text(board).split("x"))
    values = board_features(_extreme_boards(width, height), names)
    scales = np.maximum(np.abs(values).max(axis=0), 1.0)
    for i, name in enumerate(names):
        if name.startswith("landing_height"):
            scales[i] = float(height)
        elif name in _PLACEMENT_SCALES:
            scales[i] = _PLACEMENT_SCALES[name]
    return scales


class _Kind:
    """What an environment observes: its kind and its options."""

    def __init__(self, games, observation: str, channel_first: bool, normalize: bool, names):
        if not isinstance(channel_first, (bool, np.bool_)):
            raise TypeError(f"channel_first: must be a bool, got {type(channel_first).__name__} {channel_first!r}")
        if not isinstance(normalize, (bool, np.bool_)):
            raise TypeError(f"normalize: must be a bool, got {type(normalize).__name__} {normalize!r}")
        if channel_first and observation != "board":
            raise ValueError("channel_first: is for board observations (observation='board')")
        if normalize and observation != "features":
            raise ValueError("normalize: is for feature observations (observation='features')")
        self.observation = observation
        self.channel_first = bool(channel_first)
        self.preview = games.preview_length > 0
        self.scale = None
        if normalize:
            inverse = 1.0 / feature_scales(names, (games.width, games.height))
            self.scale = np.concatenate([inverse, np.ones(7)]).astype(np.float32)

    def space(self, games) -> spaces.Space:
        """One game's observation space."""
        if self.observation == "features":
            # The features of the board just reached, then the current piece one-hot.
            size = games.feature_count + 7
            bound = np.finfo(np.float32).max
            return spaces.Box(low=-bound, high=bound, shape=(size,), dtype=np.float32)
        shape = (1, games.height, games.width) if self.channel_first else (games.height, games.width)
        parts = {"board": spaces.Box(low=0, high=1, shape=shape, dtype=np.uint8), "piece": spaces.Discrete(7)}
        if games.preview_length:
            parts["preview"] = spaces.MultiDiscrete([7] * games.preview_length)
        return spaces.Dict(parts)

    def batched(self, buffers: _Buffers):
        """The batched observation of the buffers."""
        if self.observation == "features":
            observation = np.concatenate([buffers.features, _ONE_HOT[buffers.pieces]], axis=1)
            if self.scale is not None:
                observation *= self.scale
            return observation
        parts = {"board": buffers.boards[:, None] if self.channel_first else buffers.boards, "piece": buffers.pieces}
        if self.preview:
            parts["preview"] = buffers.previews
        return parts

    def single(self, buffers: _Buffers, index: int = 0):
        """Game ``index``'s observation."""
        if self.observation == "features":
            observation = np.concatenate([buffers.features[index], _ONE_HOT[buffers.pieces[index]]])
            if self.scale is not None:
                observation *= self.scale
            return observation
        board = buffers.boards[index]
        observation = {"board": board[None] if self.channel_first else board, "piece": int(buffers.pieces[index])}
        if self.preview:
            observation["preview"] = buffers.previews[index]
        return observation


class _Buffers:
    """Fresh arrays for one observation of ``count`` games (the caller keeps them)."""

    def __init__(self, games, count: int, observation: str):
        self.boards = np.empty((count, games.height, games.width), np.uint8) if observation == "board" else None
        self.features = np.empty((count, games.feature_count), np.float32) if observation == "features" else None
        self.pieces = np.empty(count, np.int64)
        self.previews = np.empty((count, games.preview_length), np.int64)
        self.masks = np.empty((count, games.action_count), bool)
        self.totals = np.empty((count, 3), np.int64)

    def arguments(self):
        return self.boards, self.features, self.pieces, self.previews, self.masks, self.totals


_ONE_HOT = np.eye(7, dtype=np.float32)


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
    ``observation`` ("board": a Dict of ``board`` (height x width uint8, top row first;
    1 x height x width with ``channel_first=True``), ``piece`` (0..6, a letter of
    ``tetris_lab.PIECES``) and ``preview`` when the rule set shows one; "features":
    float32 features of the board just reached, with what the last placement did, then
    the current piece one-hot, divided by :func:`feature_scales` with
    ``normalize=True``), ``features`` (a preset name or a list of feature names, for the
    feature observation), ``reward`` (a name of :data:`REWARDS`, default "rows", or five
    numbers: what clearing 0 to 4 rows earns), ``render_mode`` ("ansi" or "rgb_array"),
    ``max_episode_steps`` (an episode is truncated after that many steps; ``gym.make``'s
    ``max_episode_steps`` adds Gymnasium's ``TimeLimit`` instead).

    The environment copies (:meth:`clone`, ``copy.deepcopy``) and pickles, the copy going
    on as the original would; :meth:`get_state` and :meth:`set_state` save and restore the
    game alone.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}

    def __init__(
        self,
        rules="simplified",
        board=None,
        observation="board",
        features="bcts",
        reward="rows",
        render_mode=None,
        max_episode_steps=None,
        channel_first=False,
        normalize=False,
    ):
        if render_mode is not None:
            _checks.choice(render_mode, "render_mode", self.metadata["render_modes"])
        self._arguments = dict(
            rules=rules, board=board, observation=observation, features=features, reward=reward,
            max_episode_steps=max_episode_steps,
        )
        self._games, self.feature_names = _games(count=1, threads=None, record=True, **self._arguments)
        self._kind = _Kind(self._games, observation, channel_first, normalize, self.feature_names)
        self.observation_kind = observation
        self.render_mode = render_mode
        self.observation_space = self._kind.space(self._games)
        self._action_count = self._games.action_count
        self.action_space = spaces.Discrete(self._action_count)
        self._master = None
        self._ended = True
        self._reward = np.zeros(1, np.float64)
        self._terminated = np.zeros(1, bool)
        self._truncated = np.zeros(1, bool)
        self._illegal = np.zeros(1, bool)
        self._last = None

    @property
    def rule_set(self) -> str:
        """The rule set, as ``tetris-lab list`` describes it."""
        return self._games.rule_set

    @property
    def max_episode_steps(self) -> int | None:
        """The episode cap given to the constructor (``None``: none)."""
        return self._games.max_steps

    def _result(self, buffers: _Buffers):
        self._last = buffers
        observation = self._kind.single(buffers)
        lines, pieces, score = buffers.totals[0].tolist()
        return observation, {"action_mask": buffers.masks[0], "lines": lines, "pieces": pieces, "score": score}

    def reset(self, *, seed=None, options=None):
        """Starts a game: game 0 of ``tetris-lab play --seed seed``, or without a seed the
        next game of the last seed (a random one at first). Returns the observation and
        ``info`` (``action_mask``, ``lines``, ``pieces``, ``score``)."""
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
        self._games.reset([master], buffers.arguments())
        self._ended = False
        return self._result(buffers)

    def step(self, action):
        """Places the current piece as ``action`` says; returns the observation, the
        reward, ``terminated`` (the game is over), ``truncated`` (the episode cap) and
        ``info`` (that of :meth:`reset` and ``illegal_action``)."""
        if self._ended:
            if self._last is None:
                raise gym.error.ResetNeeded("call reset() before step()")
            raise gym.error.ResetNeeded("the game has ended: call reset()")
        if type(action) is not int and not isinstance(action, np.integer):
            raise TypeError(f"action: must be an integer, got {type(action).__name__} {action!r}")
        action = int(action)
        if not 0 <= action < self._action_count:
            raise ValueError(f"action: must be 0 to {self._action_count - 1}, got {action}")
        buffers = _Buffers(self._games, 1, self.observation_kind)
        actions = np.array([action], np.int64)
        self._games.step(actions, 0, self._reward, self._terminated, self._truncated, self._illegal, buffers.arguments())
        terminated, truncated = bool(self._terminated[0]), bool(self._truncated[0])
        self._ended = terminated or truncated
        observation, info = self._result(buffers)
        info["illegal_action"] = bool(self._illegal[0])
        return observation, float(self._reward[0]), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The legal actions now (as ``info["action_mask"]``; what sb3-contrib's
        MaskablePPO asks for)."""
        if self._last is None:
            raise gym.error.ResetNeeded("call reset() before action_masks()")
        return self._last.masks[0].copy()

    def board(self) -> np.ndarray:
        """The board now: height x width uint8, top row first."""
        if self._last is None:
            raise gym.error.ResetNeeded("call reset() before board()")
        if self._last.boards is not None:
            return self._last.boards[0]
        return self._games.board(0)

    def get_state(self) -> GameState:
        """The game now, to set back with :meth:`set_state` (in this environment or another
        of the same rule set and board): its board, its pieces to come, its totals and its
        steps. A state is a snapshot (copying it is cheap) and pickles."""
        if self._last is None:
            raise gym.error.ResetNeeded("call reset() before get_state()")
        return self._games.get_state(0)

    def set_state(self, state: GameState):
        """Sets the game to ``state`` (from :meth:`get_state`); the game goes on as it did
        from there, with the same pieces. Returns the observation and ``info`` then, as
        :meth:`reset` does."""
        if not isinstance(state, GameState):
            raise TypeError(f"state: must be a GameState (from get_state()), got {type(state).__name__}")
        buffers = _Buffers(self._games, 1, self.observation_kind)
        self._games.set_state(0, state, buffers.arguments())
        self._master = state.master
        self._ended = state.terminated or state.truncated
        return self._result(buffers)

    def clone(self) -> TetrisEnv:
        """A copy that goes on as this environment would (the same pieces, the same
        results, the same random seeds for ``reset()`` without one)."""
        return copy.deepcopy(self)

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_games"] = self._games.get_state(0) if self._last is not None else None
        state["_last"] = None
        return state

    def __setstate__(self, state):
        game = state.pop("_games")
        self.__dict__.update(state)
        self._games, _ = _games(count=1, threads=None, record=True, **self._arguments)
        if game is not None:
            self.set_state(game)

    def render(self):
        """The game as ``tetris-lab watch`` draws a move: the board with the piece just
        placed highlighted and a panel (piece, preview, rows, score); text for "ansi", the
        image's pixels (height x width x 3 uint8, one size for the whole game) for
        "rgb_array"."""
        if self.render_mode is None or self._last is None:
            return None
        return self._games.picture(0, self.render_mode == "rgb_array")


class TetrisVectorEnv(VectorEnv):
    """``num_envs`` games stepped together in Rust (threads for many games). ``reset(seed=s)``
    seeds game ``i`` with ``s + i`` (as a ``SyncVectorEnv`` of ``TetrisEnv`` would), or with
    ``seed[i]`` for a list; later episodes of game ``i`` are the following games of its
    seed. Parameters as :class:`TetrisEnv`, plus ``num_envs`` (1 to what the machine can
    hold), ``threads`` (default: all cores) and ``autoreset_mode``: "next_step" (default:
    a game that ended at one step starts anew at the next, its action ignored, reward 0),
    "same_step" (it starts anew at once; ``info["final_obs"]`` and ``info["final_info"]``
    hold how it ended) or "disabled" (``reset(options={"reset_mask": mask})`` restarts
    the games marked). ``step`` takes an integer array of shape ``(num_envs,)``. Ctrl-C
    during a long ``reset`` or ``step`` raises ``KeyboardInterrupt`` and leaves the games to
    be reset. One thread at a time: a call while another thread's runs raises
    ``RuntimeError``."""

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
        max_episode_steps=None,
        autoreset_mode="next_step",
        channel_first=False,
        normalize=False,
    ):
        if render_mode is not None:
            raise ValueError(f"render_mode: the batched environment does not render ({render_mode!r} asked)")
        if isinstance(autoreset_mode, AutoresetMode):
            mode = autoreset_mode
        else:
            mode = AUTORESET_MODES[_checks.choice(autoreset_mode, "autoreset_mode", AUTORESET_MODES)]
        self._games, self.feature_names = _games(
            rules, board, observation, features, reward, num_envs, threads, max_episode_steps
        )
        self._kind = _Kind(self._games, observation, channel_first, normalize, self.feature_names)
        self.num_envs = self._games.count
        self.observation_kind = observation
        self.render_mode = None
        self.metadata = {**type(self).metadata, "autoreset_mode": mode}
        self.autoreset_mode = mode
        self._autoreset = _AUTORESET_CODE[mode]
        self.single_observation_space = self._kind.space(self._games)
        self.single_action_space = spaces.Discrete(self._games.action_count)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._seeded = False
        self._rewards = np.zeros(self.num_envs, np.float64)
        self._terminated = np.zeros(self.num_envs, bool)
        self._truncated = np.zeros(self.num_envs, bool)
        self._illegal = np.zeros(self.num_envs, bool)
        self._done = np.zeros(self.num_envs, bool)
        self._masks = None
        self._lock = threading.Lock()

    @property
    def max_episode_steps(self) -> int | None:
        """The episode cap (``None``: none)."""
        return self._games.max_steps

    def _enter(self, what: str):
        if not self._lock.acquire(blocking=False):
            raise RuntimeError(
                f"TetrisVectorEnv.{what}: another thread is using this environment; "
                "an environment is for one thread at a time (make one per thread)"
            )

    def _info(self, buffers: _Buffers, where=None):
        """The info of the buffers: :data:`INFO_KEYS` as arrays, each with its ``_key`` mask
        (``where``: the games that report; every game when ``None``)."""
        info = {"action_mask": buffers.masks}
        totals = buffers.totals
        info["lines"], info["pieces"], info["score"] = totals[:, 0], totals[:, 1], totals[:, 2]
        for key in INFO_KEYS:
            info["_" + key] = np.ones(self.num_envs, bool) if where is None else where.copy()
        return info

    def reset(self, *, seed=None, options=None):
        """Starts every game (or, with ``options={"reset_mask": mask}``, the games marked);
        returns the observations and ``info`` (``action_mask``, ``lines``, ``pieces``,
        ``score``, as arrays with their ``_key`` masks)."""
        self._enter("reset")
        try:
            return self._reset(seed, options)
        finally:
            self._lock.release()

    def _reset(self, seed, options):
        mask = None
        if options is not None and "reset_mask" in options:
            mask = options["reset_mask"]
            if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_:
                raise TypeError(f"reset_mask: must be a numpy bool array, got {type(mask).__name__}")
            if mask.shape != (self.num_envs,):
                raise ValueError(f"reset_mask: must have shape ({self.num_envs},), got {mask.shape}")
            if not self._seeded:
                raise gym.error.ResetNeeded("reset_mask: reset every game first (reset() without a mask)")
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
        if mask is None:
            self._seeded = False
            self._games.reset(masters, buffers.arguments())
            self._seeded = True
            self._done[:] = False
        else:
            self._games.reset(masters, buffers.arguments(), np.ascontiguousarray(mask))
            self._done[mask] = False
        self._masks = buffers.masks
        return self._kind.batched(buffers), self._info(buffers, mask)

    def step(self, actions):
        """Places every game's piece as ``actions`` says; returns the observations, rewards,
        ``terminated``, ``truncated`` and ``info`` (that of :meth:`reset` and
        ``illegal_action``; with same-step autoreset ``final_obs`` and ``final_info``)."""
        self._enter("step")
        try:
            return self._step(actions)
        finally:
            self._lock.release()

    def _step(self, actions, final_observations=True):
        if not self._seeded:
            raise gym.error.ResetNeeded("call reset() before step()")
        given = np.asarray(actions)
        if given.dtype.kind not in "iu":
            raise TypeError(f"actions: must be integers, got dtype {given.dtype}")
        if given.shape != (self.num_envs,):
            raise ValueError(f"actions: must be an array of shape ({self.num_envs},), got shape {given.shape}")
        actions = np.ascontiguousarray(given, dtype=np.int64)
        buffers = _Buffers(self._games, self.num_envs, self.observation_kind)
        last = _Buffers(self._games, self.num_envs, self.observation_kind) if self._autoreset == 2 else None
        try:
            self._games.step(
                actions, self._autoreset, self._rewards, self._terminated, self._truncated, self._illegal,
                buffers.arguments(), last.arguments() if last else None,
            )
        except KeyboardInterrupt:
            # Stopped part way: some games stepped, others not.
            self._seeded = False
            raise
        restarted = self._done if self._autoreset == 1 else None
        done = self._terminated | self._truncated
        self._done = done
        self._masks = buffers.masks
        info = self._info(buffers)
        info["illegal_action"] = self._illegal.copy()
        info["_illegal_action"] = ~restarted if restarted is not None else np.ones(self.num_envs, bool)
        if last is not None:
            self._last_buffers = last
            if final_observations and done.any():
                final = np.full(self.num_envs, None, dtype=object)
                for i in np.flatnonzero(done):
                    final[i] = self._kind.single(last, i)
                final_info = self._info(last, done)
                for key in INFO_KEYS:
                    final_info[key] = final_info[key].copy()
                    final_info[key][~done] = 0
                final_info["illegal_action"] = self._illegal & done
                final_info["_illegal_action"] = done.copy()
                info["final_obs"], info["_final_obs"] = final, done.copy()
                info["final_info"], info["_final_info"] = final_info, done.copy()
        return self._kind.batched(buffers), self._rewards.copy(), self._terminated.copy(), self._truncated.copy(), info

    def action_masks(self) -> np.ndarray:
        """The legal actions of every game now: ``num_envs`` x actions (as
        ``info["action_mask"]``)."""
        if self._masks is None:
            raise gym.error.ResetNeeded("call reset() before action_masks()")
        return self._masks.copy()

    def __getstate__(self):
        raise TypeError("a TetrisVectorEnv cannot be pickled or copied (the single TetrisEnv can)")
