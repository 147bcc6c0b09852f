"""Arguments are checked in Python's words: a TypeError for a wrong type, a ValueError for
a wrong value or shape, the message starting with the argument's name as the function
calls it; counts bounded by what the machine can hold."""

import re

import gymnasium as gym
import numpy as np
import pytest

import tetris_lab
from tetris_lab import _core
from tetris_lab.env import TetrisEnv, TetrisVectorEnv

BCTS = list(tetris_lab.weights("bcts").values())


def refused(error, field, call):
    """`call` raises exactly `error`, its message starting with `field: ` and in Python's
    words (no command-line flag)."""
    with pytest.raises(Exception) as caught:
        call()
    assert type(caught.value) is error, f"{type(caught.value).__name__}: {caught.value}"
    message = str(caught.value)
    assert message.startswith(f"{field}: "), message
    assert not re.search(r"(^|\s)--[a-z]", message), message
    return message


def started_env(**keywords):
    env = TetrisEnv(board="10x10", **keywords)
    env.reset(seed=1)
    return env


def started_vector_env(count=4, **keywords):
    envs = TetrisVectorEnv(num_envs=count, board="10x10", **keywords)
    envs.reset(seed=1)
    return envs


@pytest.mark.parametrize(
    "field, call",
    [
        ("num_envs", lambda: TetrisVectorEnv(num_envs=10**12)),
        ("num_envs", lambda: TetrisVectorEnv(num_envs=10**30)),
        ("num_envs", lambda: TetrisVectorEnv(num_envs=10**12, observation="features")),
        ("num_envs", lambda: gym.make_vec("tetris_lab/Tetris-v0", num_envs=10**12, vectorization_mode="vector_entry_point")),
        ("num_envs", lambda: _core.Games("simplified", None, None, 10**12, [0.0] * 5)),
        ("games", lambda: tetris_lab.play("bcts", games=10**12)),
        ("games", lambda: tetris_lab.fitness(BCTS, games=10**12)),
        ("games", lambda: _core.play("bcts", None, None, 10**30, 1)),
        ("threads", lambda: tetris_lab.play("bcts", threads=10**9)),
        ("threads", lambda: TetrisVectorEnv(num_envs=2, threads=10**9)),
        ("max_pieces", lambda: tetris_lab.play("bcts", max_pieces=10**20)),
        ("max_pieces", lambda: tetris_lab.fitness(BCTS, max_pieces=2**64)),
        ("seed", lambda: tetris_lab.play("bcts", seed=2**64)),
        ("features", lambda: tetris_lab.board_features(np.zeros((20, 10)), ["holes"] * 100_000)),
        ("features", lambda: TetrisEnv(observation="features", features=["holes"] * 100_000)),
    ],
)
def test_huge_counts_are_refused_naming_the_argument(field, call):
    message = refused(ValueError, field, call)
    match = re.search(r"must be (\d+) to (\d+)", message)
    if field == "num_envs":
        # Bounded by the machine, yet far above any real use.
        assert match and int(match[1]) == 1 and 10_000 <= int(match[2]) < 10**12, message


def test_counts_up_to_the_bound_are_accepted():
    message = refused(ValueError, "num_envs", lambda: TetrisVectorEnv(num_envs=10**12, board="6x6"))
    bound = int(re.search(r"to (\d+)", message)[1])
    assert bound >= 10_000
    assert TetrisVectorEnv(num_envs=np.int64(70), board="6x6").num_envs == 70


@pytest.mark.parametrize(
    "call",
    [
        lambda: TetrisEnv(observation="features", features=[]),
        lambda: TetrisVectorEnv(num_envs=2, observation="features", features=[]),
        lambda: TetrisVectorEnv(num_envs=70, observation="features", features=()),
        lambda: tetris_lab.board_features(np.zeros((20, 10)), []),
        lambda: tetris_lab.after_states(np.zeros((20, 10)), "T", []),
        lambda: _core.Games("simplified", None, [], 1, [0.0] * 5),
    ],
)
def test_an_empty_feature_list_is_refused(call):
    assert "no feature" in refused(ValueError, "features", call)


def test_an_empty_feature_list_is_fine_where_no_feature_is_read():
    env = TetrisEnv(observation="board", features=[])
    assert env.reset(seed=1)[0]["board"].shape == (20, 10)


@pytest.mark.parametrize(
    "call",
    [
        lambda: tetris_lab.board_features(np.zeros((20, 6)), ["column_height_9"]),
        lambda: tetris_lab.board_features(np.zeros((3, 20, 6)), ["holes", "column_height_6"]),
        lambda: tetris_lab.board_features(np.zeros((20, 6)), ["column_difference_5"]),
        lambda: tetris_lab.after_states(np.zeros((20, 6)), "I", ["column_height_6"]),
        lambda: TetrisEnv(board="6x10", observation="features", features=["column_height_7"]),
        lambda: TetrisVectorEnv(num_envs=3, board=(6, 10), observation="features", features=["column_difference_5"]),
    ],
)
def test_a_column_past_the_board_s_width_is_refused(call):
    assert "column" in refused(ValueError, "features", call)


def test_the_board_s_own_columns_are_read():
    board = np.zeros((20, 6))
    board[-3:, 5] = 1
    values = tetris_lab.board_features(board, ["column_height_5", "column_difference_4"])
    assert values.tolist() == [3.0, 3.0]
    states = tetris_lab.after_states(board, "O", ["column_height_5"])
    assert states["features"].shape == (5, 1)
    env = TetrisEnv(board="6x10", observation="features", features=["column_height_5"])
    assert env.reset(seed=1)[0].shape == (1 + 7,)


@pytest.mark.parametrize(
    "error, field, call",
    [
        (TypeError, "action", lambda: started_env().step(3.7)),
        (TypeError, "action", lambda: started_env().step("5")),
        (TypeError, "action", lambda: started_env().step(True)),
        (TypeError, "action", lambda: started_env().step(None)),
        (ValueError, "action", lambda: started_env().step(40)),
        (ValueError, "action", lambda: started_env().step(-1)),
        (ValueError, "actions", lambda: started_vector_env().step(np.zeros((2, 2), np.int64))),
        (ValueError, "actions", lambda: started_vector_env().step([0, 1, 2])),
        (ValueError, "actions", lambda: started_vector_env().step(np.int64(3))),
        (TypeError, "actions", lambda: started_vector_env().step(np.array([0.0, 1.5, 2.0, 3.0]))),
        (TypeError, "actions", lambda: started_vector_env().step(["0", "1", "2", "3"])),
        (TypeError, "actions", lambda: started_vector_env().step(np.ones(4, bool))),
        (ValueError, "actions", lambda: started_vector_env().step([0, 1, 2, 40])),
        (ValueError, "actions", lambda: started_vector_env(70).step(np.full(70, -1))),
        (TypeError, "board", lambda: TetrisEnv(board=(10.5, 10))),
        (TypeError, "board", lambda: TetrisEnv(board=10)),
        (ValueError, "board", lambda: TetrisEnv(board=(10, 10, 10))),
        (ValueError, "board", lambda: TetrisEnv(board=(-10, 10))),
        (ValueError, "board", lambda: tetris_lab.play("bcts", board=(10, 60))),
        (TypeError, "num_envs", lambda: TetrisVectorEnv(num_envs=2.5)),
        (TypeError, "num_envs", lambda: TetrisVectorEnv(num_envs="4")),
        (TypeError, "num_envs", lambda: TetrisVectorEnv(num_envs=True)),
        (ValueError, "num_envs", lambda: TetrisVectorEnv(num_envs=-1)),
        (ValueError, "num_envs", lambda: TetrisVectorEnv(num_envs=0)),
        (TypeError, "games", lambda: tetris_lab.play("bcts", games=2.0)),
        (ValueError, "games", lambda: tetris_lab.play("bcts", games=-1)),
        (ValueError, "games", lambda: tetris_lab.fitness(BCTS, games=-5)),
        (ValueError, "threads", lambda: tetris_lab.play("bcts", threads=-2)),
        (ValueError, "threads", lambda: TetrisVectorEnv(num_envs=2, threads=-2)),
        (ValueError, "max_pieces", lambda: tetris_lab.play("bcts", max_pieces=-3)),
        (ValueError, "seed", lambda: tetris_lab.play("bcts", seed=-1)),
        (TypeError, "seed", lambda: tetris_lab.play("bcts", seed="1")),
        (TypeError, "seed", lambda: TetrisEnv().reset(seed=2.5)),
        (ValueError, "seed", lambda: TetrisEnv().reset(seed=-1)),
        (TypeError, "seed", lambda: TetrisVectorEnv(num_envs=3).reset(seed=[1, 2.5, 3])),
        (ValueError, "seed", lambda: TetrisVectorEnv(num_envs=3).reset(seed=[1, 2])),
        (ValueError, "seed", lambda: TetrisVectorEnv(num_envs=3).reset(seed=2**64 - 2)),
    ],
)
def test_python_values_are_checked_by_type_and_range(error, field, call):
    refused(error, field, call)


def test_a_fixed_board_is_refused_in_python_s_words():
    for call in (lambda: TetrisEnv(rules="lee", board="10x10"), lambda: tetris_lab.play("lee", board=(10, 10), games=1)):
        message = refused(ValueError, "board", call)
        assert "simplified" in message and "10x10" in message


def test_numpy_integers_are_integers():
    env = started_env()
    legal = np.flatnonzero(env.action_masks())
    assert env.step(np.int32(legal[0]))[0]["board"].shape == (10, 10)
    envs = TetrisVectorEnv(num_envs=4, board="10x10")
    _, info = envs.reset(seed=np.int64(1))
    actions = np.array([np.flatnonzero(mask)[0] for mask in info["action_mask"]], np.uint8)
    assert not envs.step(actions)[4]["illegal_action"].any()
    played = tetris_lab.play("bcts", board=(np.int64(8), np.int64(8)), games=np.int64(3), seed=np.uint64(2), threads=np.int8(1))
    assert played["lines"].tolist() == tetris_lab.play("bcts", board="8x8", games=3, seed=2)["lines"].tolist()


ALL_FEATURES = tetris_lab.features()


@pytest.mark.parametrize(
    "error, field, call",
    [
        # The names.
        (TypeError, "preset", lambda: tetris_lab.features(5)),
        (ValueError, "preset", lambda: tetris_lab.features("bctss")),
        (TypeError, "preset", lambda: tetris_lab.weights(None)),
        (ValueError, "preset", lambda: tetris_lab.weights("bctss")),
        # play and fitness.
        (TypeError, "preset", lambda: tetris_lab.play(5)),
        (ValueError, "preset", lambda: tetris_lab.play("bctss")),
        (TypeError, "rules", lambda: tetris_lab.play("bcts", rules=5)),
        (ValueError, "rules", lambda: tetris_lab.play("bcts", rules="guideline")),
        (TypeError, "weights", lambda: tetris_lab.play("bcts", weights=5)),
        (TypeError, "weights", lambda: tetris_lab.play("bcts", weights=["1"] * 8)),
        (ValueError, "weights", lambda: tetris_lab.play("bcts", weights=np.ones((2, 4)))),
        (ValueError, "weights", lambda: tetris_lab.play("bcts", weights=[float("nan")] * 8)),
        (TypeError, "weights", lambda: tetris_lab.fitness({name: "1" for name in tetris_lab.features("bcts")})),
        (ValueError, "weights", lambda: tetris_lab.fitness({"holes": 1.0})),
        (TypeError, "preset", lambda: tetris_lab.fitness(BCTS, preset=None)),
        (TypeError, "board", lambda: tetris_lab.fitness(BCTS, board=[8.0, 8.0])),
        (ValueError, "board", lambda: tetris_lab.fitness(BCTS, board="8by8")),
        # Features and after-states.
        (TypeError, "boards", lambda: tetris_lab.board_features(np.full((20, 10), "x"), "holes")),
        (ValueError, "boards", lambda: tetris_lab.board_features(np.zeros((2, 2, 20, 10)), "holes")),
        (ValueError, "boards", lambda: tetris_lab.board_features(np.zeros((1, 20, 3)), "holes")),
        (TypeError, "features", lambda: tetris_lab.board_features(np.zeros((20, 10)), 5)),
        (TypeError, "features", lambda: tetris_lab.board_features(np.zeros((20, 10)), ["holes", 1])),
        (ValueError, "features", lambda: tetris_lab.board_features(np.zeros((20, 10)), "holse")),
        (TypeError, "board", lambda: tetris_lab.after_states(np.full((20, 10), None), 0)),
        (ValueError, "board", lambda: tetris_lab.after_states(np.zeros((3, 20, 10)), 0)),
        (ValueError, "board", lambda: tetris_lab.after_states(np.zeros((20, 10)), 0, rules="lee")),
        (TypeError, "piece", lambda: tetris_lab.after_states(np.zeros((20, 10)), 2.0)),
        (ValueError, "piece", lambda: tetris_lab.after_states(np.zeros((20, 10)), 7)),
        (ValueError, "piece", lambda: tetris_lab.after_states(np.zeros((20, 10)), "Q")),
        (TypeError, "rules", lambda: tetris_lab.after_states(np.zeros((20, 10)), 0, rules=None)),
        (ValueError, "rules", lambda: tetris_lab.after_states(np.zeros((20, 10)), 0, rules="nope")),
        # The environments.
        (TypeError, "rules", lambda: TetrisEnv(rules=None)),
        (ValueError, "rules", lambda: TetrisEnv(rules="guideline")),
        (TypeError, "observation", lambda: TetrisEnv(observation=0)),
        (ValueError, "observation", lambda: TetrisVectorEnv(observation="pixels")),
        (TypeError, "features", lambda: TetrisEnv(observation="features", features=None)),
        (ValueError, "features", lambda: TetrisVectorEnv(observation="features", features="holse")),
        (TypeError, "reward", lambda: TetrisEnv(reward=object())),
        (ValueError, "reward", lambda: TetrisVectorEnv(reward=[1, 2])),
        (TypeError, "render_mode", lambda: TetrisEnv(render_mode=1)),
        (ValueError, "render_mode", lambda: TetrisEnv(render_mode="human")),
        (ValueError, "render_mode", lambda: TetrisVectorEnv(render_mode="ansi")),
        (TypeError, "reward", lambda: tetris_lab.env.reward_table(None)),
    ],
)
def test_every_public_entry_point_names_the_argument(error, field, call):
    refused(error, field, call)
