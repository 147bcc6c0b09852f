"""BCTS from Python: its published weights played by `tetris_lab.play` (the games of
`tetris-lab play --preset bcts --board 10x10 --games 100`), then the same player written
in Python over the environment's after-states, which plays the same game move for move.

    python python/examples/bcts.py [--games N] [--board WxH]
"""

import argparse

import gymnasium as gym
import numpy as np

import tetris_lab


def choose(weights, states):
    """The first best placement, the weighted sum taken in feature order (as the library does)."""
    values = [sum_in_order(weights, row) for row in states["features"]]
    return states["action"][int(np.argmax(values))]


def sum_in_order(weights, values):
    total = 0.0
    for weight, value in zip(weights, values):
        total += weight * value
    return total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--board", default="10x10")
    parser.add_argument("--max-pieces", type=int, default=2000)
    options = parser.parse_args()

    weights = tetris_lab.weights("bcts")
    print("BCTS weights:", weights)
    games = tetris_lab.play("bcts", board=options.board, games=options.games, weights=weights)
    print(f"tetris_lab.play: {games['lines'].mean():.1f} rows per game over {options.games} games")
    print(f"  (tetris-lab play --preset bcts --board {options.board} --games {options.games} prints the same mean)")

    # The same player in Python, one placement at a time: game 0 of the batch above.
    env = gym.make("tetris_lab/Tetris-v0", board=options.board)
    observation, _ = env.reset(seed=1)
    vector, lines, pieces, over = list(weights.values()), 0, 0, False
    while not over and pieces < options.max_pieces:
        states = tetris_lab.after_states(env.unwrapped.board(), observation["piece"], "bcts")
        observation, reward, over, _, _ = env.step(choose(vector, states))
        lines, pieces = lines + int(reward), pieces + 1
    capped = tetris_lab.play("bcts", board=options.board, games=1, seed=1, max_pieces=options.max_pieces)
    print(f"in the environment: {lines} rows in {pieces} pieces; tetris_lab.play's game 0: "
          f"{capped['lines'][0]} rows in {capped['pieces'][0]} pieces")
    assert (lines, pieces) == (capped["lines"][0], capped["pieces"][0])


if __name__ == "__main__":
    main()
