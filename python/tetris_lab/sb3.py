"""Stable-Baselines3 on the batched environment: :class:`TetrisVecEnv`, a
``stable_baselines3.common.vec_env.VecEnv`` over :class:`tetris_lab.TetrisVectorEnv`'s games.

It resets as SB3 expects, in the same step: a game that ends starts its next episode at
once, the observation it ended on in ``infos[i]["terminal_observation"]`` (and
``infos[i]["TimeLimit.truncated"]`` when the episode cap cut it off). No transition is
lost, and :meth:`TetrisVecEnv.action_masks` never marks a game with no legal action, as
sb3-contrib's ``MaskablePPO`` needs. Needs ``stable-baselines3`` (``pip install
stable-baselines3 sb3-contrib``)::

    from sb3_contrib import MaskablePPO
    from tetris_lab.sb3 import TetrisVecEnv

    env = TetrisVecEnv(num_envs=8, board="10x10", observation="features")
    model = MaskablePPO("MlpPolicy", env, seed=0).learn(20_000)
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    from stable_baselines3.common.vec_env import VecEnv
except ImportError as error:  # pragma: no cover - depends on the installation
    raise ImportError(
        "tetris_lab.sb3 needs stable-baselines3: pip install stable-baselines3 sb3-contrib"
    ) from error

from .env import TetrisVectorEnv

__all__ = ["TetrisVecEnv"]


class TetrisVecEnv(VecEnv):
    """``num_envs`` games stepped together in Rust, as a Stable-Baselines3 ``VecEnv``.

    Parameters as :class:`tetris_lab.TetrisVectorEnv` (``rules``, ``board``,
    ``observation``, ``features``, ``reward``, ``threads``, ``max_episode_steps``,
    ``channel_first``, ``normalize``). ``seed(s)`` before ``reset()`` seeds game ``i`` with
    ``s + i``; later episodes of game ``i`` are the following games of its seed, as in the
    Gymnasium environments. Each ``infos[i]`` carries ``lines``, ``pieces``, ``score``
    and ``illegal_action``; at the end of an episode they are the ended game's, with
    ``terminal_observation``. ``env_method("action_masks")`` and :meth:`action_masks`
    give the legal actions (what ``MaskablePPO`` asks for).
    """

    def __init__(self, num_envs: int = 1, **arguments: Any):
        self.env = TetrisVectorEnv(num_envs, autoreset_mode="same_step", **arguments)
        self.render_mode = None
        super().__init__(self.env.num_envs, self.env.single_observation_space, self.env.single_action_space)
        self._actions = None

    def reset(self):
        """Starts every game (with the seeds of :meth:`seed`, if any); the observations."""
        seeds = self._seeds if any(seed is not None for seed in self._seeds) else None
        observation, info = self.env.reset(seed=seeds)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = self._infos(info)
        return observation

    def _infos(self, info) -> list[dict[str, Any]]:
        """Each game's totals, one dict a game."""
        lines, pieces, score = info["lines"].tolist(), info["pieces"].tolist(), info["score"].tolist()
        return [{"lines": a, "pieces": b, "score": c} for a, b, c in zip(lines, pieces, score)]

    def step_async(self, actions) -> None:
        """Takes the actions of the next :meth:`step_wait` (one a game)."""
        self._actions = actions

    def step_wait(self):
        """Plays the actions: observations, rewards (float32), ``dones`` (terminated or
        truncated) and ``infos`` (one dict a game; see the class)."""
        actions = np.asarray(self._actions).reshape(self.num_envs)
        if actions.dtype.kind not in "iu":
            actions = actions.astype(np.int64)
        observation, rewards, terminated, truncated, info = self.env._step(actions, final_observations=False)
        done = terminated | truncated
        infos = self._infos(info)
        illegal = info["illegal_action"]
        for i, row in enumerate(infos):
            row["illegal_action"] = bool(illegal[i])
        if done.any():
            last = self.env._last_buffers
            kind = self.env._kind
            for i in np.flatnonzero(done):
                lines, pieces, score = last.totals[i].tolist()
                infos[i].update(lines=lines, pieces=pieces, score=score)
                infos[i]["terminal_observation"] = kind.single(last, i)
                infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
        return observation, rewards.astype(np.float32), done, infos

    def action_masks(self) -> np.ndarray:
        """The legal actions of every game now: ``num_envs`` x actions, bool."""
        return self.env.action_masks()

    def close(self) -> None:
        """Nothing to release: the games are freed with the object."""

    def _indices(self, indices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        """An attribute of the batched environment (the same for every game), once per game
        asked for."""
        value = getattr(self.env, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        """Refused: the games' settings are fixed when they are made."""
        raise AttributeError(f"TetrisVecEnv: the games' attributes are fixed ({attr_name!r} cannot be set)")

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        """``action_masks``: each game's legal actions; another method of the batched
        environment: its result, once per game asked for."""
        chosen = self._indices(indices)
        if method_name == "action_masks":
            masks = self.env.action_masks()
            return [masks[i] for i in chosen]
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [result for _ in chosen]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        """False for every game: the games are not Gymnasium environments with wrappers."""
        return [False for _ in self._indices(indices)]

    def get_images(self):
        """Refused: the batched environment does not render."""
        raise NotImplementedError("the batched environment does not render")
