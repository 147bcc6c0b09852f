"""Speed of the Python package, measured side by side in one run (not a test).

Placements per second (and per CPU-second) of the single environment and the batched one
(feature and board observations) with random legal actions, against the peer
`tetris-gymnasium`'s placement-level wrapper with random legal actions; and the cost of
the Python boundary: `tetris_lab.play` against the command line `tetris-lab play` on the
same games.

    python python/bench/speed.py [--seconds S] [--envs N] [--binary PATH]
"""

from __future__ import annotations

import argparse
import os
import pathlib
import shutil
import subprocess
import time

import gymnasium as gym
import numpy as np

import tetris_lab
from tetris_lab.env import TetrisVectorEnv


def clocks():
    return time.perf_counter(), time.process_time()


def report(name, placements, start, extra=""):
    wall, cpu = time.perf_counter() - start[0], time.process_time() - start[1]
    print(f"{name:<52} {placements / wall:>13,.0f} /s {placements / cpu:>13,.0f} /CPU-s  ({placements:,} in {wall:.2f} s){extra}")
    return placements / wall, placements / cpu


def single(seconds, observation):
    env = gym.make("tetris_lab/Tetris-v0", observation=observation)
    generator = np.random.default_rng(0)
    _, info = env.reset(seed=0)
    placements, start = 0, clocks()
    while time.perf_counter() - start[0] < seconds:
        for _ in range(1000):
            legal = np.flatnonzero(info["action_mask"])
            _, _, terminated, truncated, info = env.step(legal[generator.integers(len(legal))])
            placements += 1
            if terminated or truncated:
                _, info = env.reset()
    return report(f"tetris_lab single env, {observation} observation", placements, start)


def random_legal(masks, generator):
    """One random legal action per row of masks (the first action where none is legal)."""
    scores = generator.random(masks.shape, dtype=np.float32)
    scores[~masks] = -1.0
    return scores.argmax(axis=1)


def batched(seconds, observation, count, threads):
    envs = TetrisVectorEnv(num_envs=count, observation=observation, threads=threads)
    generator = np.random.default_rng(0)
    _, info = envs.reset(seed=0)
    placements, stepping, start = 0, 0.0, clocks()
    while time.perf_counter() - start[0] < seconds:
        actions = random_legal(info["action_mask"], generator)
        before = time.perf_counter()
        _, _, _, _, info = envs.step(actions)
        stepping += time.perf_counter() - before
        placements += count
    extra = f"; step alone {placements / stepping:,.0f} /s"
    return report(f"tetris_lab batched env x{count}, {observation} obs", placements, start, extra)


def peer(seconds):
    """tetris-gymnasium's placement-level wrapper (its README's set-up), random legal actions."""
    try:
        import tetris_gymnasium.envs  # noqa: F401  (registers its environment)
        from tetris_gymnasium.wrappers.grouped import GroupedActionsObservations
        from tetris_gymnasium.wrappers.observation import FeatureVectorObservation
    except ImportError:
        print("tetris-gymnasium is not installed (pip install tetris-gymnasium==0.3.1): peer skipped")
        return None
    env = gym.make("tetris_gymnasium/Tetris")
    env = GroupedActionsObservations(env, observation_wrappers=[FeatureVectorObservation(env)])
    generator = np.random.default_rng(0)
    _, info = env.reset(seed=0)
    placements, start = 0, clocks()
    while time.perf_counter() - start[0] < seconds:
        legal = np.flatnonzero(info["action_mask"])
        _, _, terminated, truncated, info = env.step(legal[generator.integers(len(legal))])
        placements += 1
        if terminated or truncated:
            _, info = env.reset()
    return report("tetris-gymnasium 0.3.1 grouped actions, features", placements, start)


def boundary(binary, games):
    """`tetris_lab.play` and `tetris-lab play` on the same games (BCTS on 10x10)."""
    arguments = dict(preset="bcts", board="10x10", games=games, seed=1)
    start = time.perf_counter()
    result = tetris_lab.play(**arguments)
    python_seconds = time.perf_counter() - start
    pieces = int(result["pieces"].sum())
    print(f"{'tetris_lab.play bcts 10x10, ' + str(games) + ' games':<52} {pieces / python_seconds:>13,.0f} pieces/s ({python_seconds:.2f} s)")
    if binary is None:
        print("no tetris-lab binary (--binary PATH): the command line is not measured")
        return
    command = [str(binary), "play", "--preset", "bcts", "--board", "10x10", "--games", str(games), "--seed", "1"]
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    cli_seconds = time.perf_counter() - start
    print(f"{'tetris-lab play (same games, whole process)':<52} {pieces / cli_seconds:>13,.0f} pieces/s ({cli_seconds:.2f} s)")
    print(f"Python boundary: {python_seconds / cli_seconds:.3f} x the command line's time")


def find_binary(given):
    if given:
        return pathlib.Path(given)
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", pathlib.Path(__file__).resolve().parents[2] / "target"))
    for candidate in (target / "release" / "tetris-lab", shutil.which("tetris-lab")):
        if candidate and pathlib.Path(candidate).exists():
            return pathlib.Path(candidate)
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    parser.add_argument("--envs", type=int, default=4096, help="games of the batched environment")
    parser.add_argument("--threads", type=int, default=None, help="threads of the batched environment (all cores)")
    parser.add_argument("--games", type=int, default=200, help="games of the boundary measurement")
    parser.add_argument("--binary", help="the tetris-lab binary ($CARGO_TARGET_DIR/release/tetris-lab)")
    options = parser.parse_args()
    print(f"{os.cpu_count()} cores; {options.seconds:g} s per measurement; random legal actions drawn in numpy")
    single_board = single(options.seconds, "board")
    single(options.seconds, "features")
    batched(options.seconds, "features", options.envs, options.threads)
    batched(options.seconds, "board", options.envs, options.threads)
    peer_speed = peer(options.seconds)
    if peer_speed:
        print(f"single env (board) / peer, per CPU-second: {single_board[1] / peer_speed[1]:,.0f} x")
    boundary(find_binary(options.binary), options.games)


if __name__ == "__main__":
    main()
