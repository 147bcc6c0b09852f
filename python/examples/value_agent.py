"""A value-based agent over after-state features, a skeleton to build on: a linear value
V(s') = w . phi(s') of the board a placement leaves (a constant, then BCTS's 8 features
over the board height), greedy placements with epsilon exploration, and TD(0) updates
towards r + V(next after-state), r being the rows cleared plus a bonus per piece placed
(random early play clears no rows: the bonus gives it a signal). It learns little as it
stands: swap the linear value for a network (PyTorch) to go further.

    python python/examples/value_agent.py [--episodes N] [--board WxH]
"""

import argparse

import gymnasium as gym
import numpy as np

import tetris_lab


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--episodes", type=int, default=50)
    parser.add_argument("--board", default="10x10")
    parser.add_argument("--max-pieces", type=int, default=1000)
    parser.add_argument("--step-size", type=float, default=0.01)
    parser.add_argument("--epsilon", type=float, default=0.05)
    parser.add_argument("--survival-bonus", type=float, default=1.0, help="reward per piece placed, besides rows")
    options = parser.parse_args()

    features = tetris_lab.features("bcts")
    env = gym.make("tetris_lab/Tetris-v0", board=options.board)
    height, _ = env.observation_space["board"].shape
    weights = np.zeros(1 + len(features))  # a constant term, then the features
    generator = np.random.default_rng(0)

    def after_states(observation):
        states = tetris_lab.after_states(env.unwrapped.board(), observation["piece"], features)
        phi = np.hstack([np.ones((len(states["action"]), 1)), states["features"] / height])
        return states["action"], phi, states["rows_cleared"]

    for episode in range(options.episodes):
        observation, _ = env.reset(seed=episode)
        previous, lines = None, 0
        for _ in range(options.max_pieces):
            actions, phi, rows = after_states(observation)
            values = rows + phi @ weights  # reward + value of the after-state
            explore = generator.random() < options.epsilon
            chosen = generator.integers(len(actions)) if explore else int(np.argmax(values))
            observation, reward, terminated, truncated, _ = env.step(actions[chosen])
            lines += int(reward)
            if previous is not None:  # TD(0) on after-states: V(previous) <- r + V(this one)
                target = reward + options.survival_bonus + (0.0 if terminated else phi[chosen] @ weights)
                weights += options.step_size * (target - previous @ weights) * previous
            previous = phi[chosen]
            if terminated or truncated:
                break
        if episode % max(1, options.episodes // 10) == 0 or episode == options.episodes - 1:
            print(f"episode {episode}: {lines} rows")
    print(f"last episode: {lines} rows")
    print("learned weights:", {name: round(float(value), 3) for name, value in zip(["constant", *features], weights)})


if __name__ == "__main__":
    main()
