"""The noisy cross-entropy method (Szita and Lorincz 2006) on Dellacherie's features,
10x10 board: a Gaussian over weight vectors, its best tenth refitted each iteration, with
added noise that decreases. Every vector is scored on the same games (common random
numbers: `tetris_lab.fitness` with a fixed seed).

    python python/examples/cross_entropy.py [--iterations N] [--population N] [--games N]
"""

import argparse

import numpy as np

import tetris_lab


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--population", type=int, default=50)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args()

    preset = "dellacherie-simplified"
    names = tetris_lab.features(preset)
    generator = np.random.default_rng(options.seed)
    mean, deviation = np.zeros(len(names)), np.full(len(names), 10.0)
    elite_count = max(2, options.population // 10)
    for iteration in range(options.iterations):
        population = generator.normal(mean, deviation, size=(options.population, len(names)))
        scores = np.array(
            [tetris_lab.fitness(w, preset, board="10x10", games=options.games, seed=options.seed).mean for w in population]
        )
        elite = population[np.argsort(scores)[-elite_count:]]
        noise = max(5.0 - iteration / 2, 0.0)
        mean, deviation = elite.mean(axis=0), np.sqrt(elite.var(axis=0) + noise)
        print(f"iteration {iteration}: best {scores.max():.1f}, median {np.median(scores):.1f} rows per game")
    final = tetris_lab.fitness(mean, preset, board="10x10", games=100, seed=options.seed + 1)
    print("mean weights:", {name: round(float(value), 2) for name, value in zip(names, mean)})
    print(f"on 100 other games: {final.mean:.1f} rows per game (95%: {final.low:.1f} to {final.high:.1f})")
    published = tetris_lab.fitness(tetris_lab.weights(preset), preset, board="10x10", games=100, seed=options.seed + 1)
    print(f"Dellacherie's published weights on the same games: {published.mean:.1f} rows per game")


if __name__ == "__main__":
    main()
