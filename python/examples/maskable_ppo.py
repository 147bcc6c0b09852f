"""MaskablePPO (sb3-contrib) on the batched environment through the Stable-Baselines3
adapter, then the trained policy and a random legal player on the same evaluation games.

    pip install stable-baselines3 sb3-contrib
    python python/examples/maskable_ppo.py [--steps N] [--envs N] [--board WxH] [--games N]
"""

import argparse
import time

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import VecMonitor

import tetris_lab
from tetris_lab.sb3 import TetrisVecEnv


def evaluate(policy, board, games, seed):
    """Mean rows and pieces a game over `games` games (seeds seed, seed + 1, ...), at most
    2,000 pieces each; `policy(observation, mask)` chooses an action."""
    env = tetris_lab.TetrisEnv(board=board, observation="features", normalize=True, max_episode_steps=2000)
    rows, pieces = [], []
    for game in range(games):
        observation, info = env.reset(seed=seed + game)
        terminated = truncated = False
        while not (terminated or truncated):
            observation, _, terminated, truncated, info = env.step(policy(observation, info["action_mask"]))
        rows.append(info["lines"])
        pieces.append(info["pieces"])
    return np.mean(rows), np.mean(pieces)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=100_000, help="training steps (placements)")
    parser.add_argument("--envs", type=int, default=16)
    parser.add_argument("--board", default="10x10")
    parser.add_argument("--games", type=int, default=50, help="evaluation games")
    parser.add_argument("--seed", type=int, default=0)
    options = parser.parse_args()
    torch.set_num_threads(1)

    # Reward: one a piece placed (survival); features of the board, scaled to about -1..1.
    env = VecMonitor(
        TetrisVecEnv(num_envs=options.envs, board=options.board, observation="features", normalize=True,
                     reward="pieces", max_episode_steps=2000)
    )
    model = MaskablePPO("MlpPolicy", env, n_steps=256, batch_size=512, seed=options.seed, verbose=0)
    start = time.perf_counter()
    model.learn(options.steps)
    seconds = time.perf_counter() - start

    def trained(observation, mask):
        return int(model.predict(observation, action_masks=mask, deterministic=True)[0])

    generator = np.random.default_rng(options.seed)

    def random_legal(observation, mask):
        return int(generator.choice(np.flatnonzero(mask)))

    evaluation_seed = 1_000_000
    for name, policy in (("MaskablePPO", trained), ("random legal", random_legal)):
        rows, pieces = evaluate(policy, options.board, options.games, evaluation_seed)
        print(f"{name:<13} {rows:8.1f} rows {pieces:8.1f} pieces a game ({options.games} games, {options.board})")
    print(f"trained {options.steps:,} steps in {seconds:.0f} s")


if __name__ == "__main__":
    main()
