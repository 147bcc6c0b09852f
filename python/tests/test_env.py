"""The Gymnasium environments: API checks, seeding, and the game of the command line."""

import pathlib
import runpy

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import tetris_lab
from tetris_lab.env import TetrisEnv, TetrisVectorEnv


@pytest.mark.parametrize(
    "keywords",
    [
        dict(board="10x10"),
        dict(board="10x10", observation="features"),
        dict(board="10x10", render_mode="ansi"),
        dict(board="10x10", render_mode="rgb_array"),
        dict(rules="lee"),
    ],
)
def test_check_env_passes(keywords):
    check_env(gym.make("tetris_lab/Tetris-v0", **keywords).unwrapped, skip_render_check=False)


def play_out(env, seed, steps=200):
    """Random legal actions from a seeded generator: the observations and rewards."""
    generator = np.random.default_rng(0)
    observation, info = env.reset(seed=seed)
    seen = [observation["board"].copy()]
    for _ in range(steps):
        action = generator.choice(np.flatnonzero(info["action_mask"]))
        observation, reward, terminated, truncated, info = env.step(action)
        seen.append((observation["board"].copy(), observation["piece"], reward))
        if terminated:
            break
    return seen


def test_the_same_seed_gives_the_same_game():
    env = gym.make("tetris_lab/Tetris-v0", board="8x8")
    first, again, other = play_out(env, 5), play_out(env, 5), play_out(env, 6)
    assert all(np.array_equal(a[0], b[0]) and a[1:] == b[1:] for a, b in zip(first[1:], again[1:]))
    assert len(first) == len(again)
    assert any(not np.array_equal(a[0], b[0]) for a, b in zip(first[1:], other[1:]))


# The example's player (python/examples/bcts.py), so that the test checks what it shows.
choose = runpy.run_path(str(pathlib.Path(__file__).resolve().parents[1] / "examples" / "bcts.py"))["choose"]


def bcts_game(env, seed, max_pieces):
    """BCTS choosing every placement from the after-states (first best, summed in its
    order): the game `tetris-lab play --preset bcts --seed SEED --games 1` plays."""
    weights = list(tetris_lab.weights("bcts").values())
    observation, info = env.reset(seed=seed)
    lines = pieces = 0
    while pieces < max_pieces:
        states = tetris_lab.after_states(env.unwrapped.board(), observation["piece"], "bcts", "simplified")
        observation, reward, terminated, _, info = env.step(choose(weights, states))
        lines, pieces = lines + reward, pieces + 1
        if terminated:
            break
    return lines, pieces


def test_bcts_in_the_environment_plays_the_command_line_s_game():
    env = gym.make("tetris_lab/Tetris-v0", board="10x6")
    for seed in (1, 2):
        played = tetris_lab.play("bcts", board="10x6", games=1, seed=seed, max_pieces=400)
        assert bcts_game(env, seed, 400) == (played["lines"][0], played["pieces"][0])


def test_an_illegal_action_ends_the_game():
    env = TetrisEnv(board="10x10")
    _, info = env.reset(seed=1)
    illegal = int(np.flatnonzero(~info["action_mask"])[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert terminated and info["illegal_action"] and reward == 0
    with pytest.raises(gym.error.ResetNeeded):
        env.step(0)


def test_the_vector_environment():
    envs = gym.make_vec("tetris_lab/Tetris-v0", num_envs=4, vectorization_mode="vector_entry_point", board="6x6")
    assert isinstance(envs, TetrisVectorEnv)
    observation, info = envs.reset(seed=10)
    assert observation in envs.observation_space and info["action_mask"].shape == (4, 24)
    single = TetrisEnv(board="6x6")
    for i in range(4):
        alone, _ = single.reset(seed=10 + i)
        assert np.array_equal(alone["board"], observation["board"][i]) and alone["piece"] == observation["piece"][i]
    generator = np.random.default_rng(1)
    ended = np.zeros(4, bool)
    for _ in range(300):
        actions = [generator.choice(np.flatnonzero(mask)) if mask.any() else 0 for mask in info["action_mask"]]
        observation, rewards, terminated, truncated, info = envs.step(actions)
        assert observation in envs.observation_space
        assert rewards.dtype == np.float64 and terminated.dtype == bool and not truncated.any()
        # Next-step autoreset: the step after an end starts a new game, reward 0.
        assert not (ended & (terminated | (rewards > 0))).any()
        ended = terminated


@pytest.mark.parametrize("observation", ["board", "features"])
def test_the_vector_environment_is_seeded_per_board(observation):
    def run(seed):
        envs = TetrisVectorEnv(num_envs=70, board="6x6", observation=observation, threads=2)
        observation_, info = envs.reset(seed=seed)
        history = []
        for _ in range(30):
            actions = np.argmax(info["action_mask"], axis=1)
            observation_, rewards, terminated, _, info = envs.step(actions)
            history.append((rewards.copy(), terminated.copy()))
        return observation_, history

    first, again = run(3), run(3)
    assert all(np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) for a, b in zip(first[1], again[1]))


def test_bad_environment_arguments():
    with pytest.raises(ValueError, match="^observation:"):
        TetrisEnv(observation="pixels")
    with pytest.raises(ValueError, match="^rules:"):
        TetrisEnv(rules="guideline")
    with pytest.raises(ValueError, match="^board:"):
        TetrisEnv(board="3x3")


def test_the_vector_environment_steps_as_gymnasium_s_sync_vector_of_single_environments():
    ours = gym.make_vec("tetris_lab/Tetris-v0", num_envs=3, vectorization_mode="vector_entry_point", board="6x6")
    sync = gym.make_vec("tetris_lab/Tetris-v0", num_envs=3, vectorization_mode="sync", board="6x6")
    (observation, info), (expected, expected_info) = ours.reset(seed=20), sync.reset(seed=20)
    generator = np.random.default_rng(2)
    ends = 0
    for _ in range(150):
        assert np.array_equal(observation["board"], expected["board"])
        assert np.array_equal(observation["piece"], expected["piece"])
        assert np.array_equal(info["action_mask"], expected_info["action_mask"])
        actions = [generator.choice(np.flatnonzero(mask)) if mask.any() else 0 for mask in info["action_mask"]]
        observation, rewards, terminated, _, info = ours.step(actions)
        expected, expected_rewards, expected_terminated, _, expected_info = sync.step(actions)
        assert np.array_equal(rewards, expected_rewards) and np.array_equal(terminated, expected_terminated)
        ends += terminated.sum()
    assert ends > 3, "the check of autoreset needs games that end"


def test_the_reward_is_configurable():
    # Survival: one a piece, so a game's rewards add up to its pieces.
    env = TetrisEnv(board="6x6", reward="pieces")
    _, info = env.reset(seed=4)
    total, terminated = 0.0, False
    generator = np.random.default_rng(1)
    while not terminated:
        _, reward, terminated, _, info = env.step(generator.choice(np.flatnonzero(info["action_mask"])))
        total += reward
    assert total == info["pieces"] > 0
    # A table: what clearing 0 to 4 rows earns; rows cleared times 10 here.
    env = TetrisEnv(board="6x6", reward=[0, 10, 20, 30, 40])
    _, info = env.reset(seed=4)
    total, terminated = 0.0, False
    while not terminated:
        _, reward, terminated, _, info = env.step(generator.choice(np.flatnonzero(info["action_mask"])))
        total += reward
    assert total == 10 * info["lines"]
    # The batched environment earns as Gymnasium's vector of single ones, restarts included.
    ours = gym.make_vec("tetris_lab/Tetris-v0", num_envs=3, vectorization_mode="vector_entry_point", board="6x6", reward="pieces")
    sync = gym.make_vec("tetris_lab/Tetris-v0", num_envs=3, vectorization_mode="sync", board="6x6", reward="pieces")
    (_, info), _ = ours.reset(seed=7), sync.reset(seed=7)
    ends = 0
    for _ in range(120):
        actions = [generator.choice(np.flatnonzero(mask)) if mask.any() else 0 for mask in info["action_mask"]]
        _, rewards, terminated, _, info = ours.step(actions)
        _, expected, _, _, _ = sync.step(actions)
        assert np.array_equal(rewards, expected)
        ends += terminated.sum()
    assert ends > 3
    for bad in ["score", [1, 2, 3], [0, 1, 2, 3, float("nan")]]:
        with pytest.raises(ValueError, match="^reward:"):
            TetrisEnv(reward=bad)
    for bad in [object(), ["0", "1", "2", "3", "4"], [True] * 5]:
        with pytest.raises(TypeError, match="^reward:"):
            TetrisEnv(reward=bad)


def test_the_pictures_are_those_watch_draws():
    text = TetrisEnv(board="6x8", render_mode="ansi")
    image = TetrisEnv(board="6x8", render_mode="rgb_array")
    (_, info), _ = text.reset(seed=5), image.reset(seed=5)
    assert "[]" not in text.render() and "piece" in text.render()
    shapes = set()
    terminated = False
    while not terminated:
        action = np.flatnonzero(info["action_mask"])[0]
        _, _, terminated, _, info = text.step(action)
        image.step(action)
        picture = image.render()
        assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3
        shapes.add(picture.shape)
    assert len(shapes) == 1, "one image size for the whole game"
    assert "game over" in text.render()
