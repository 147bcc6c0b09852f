"""What reinforcement-learning users need: the Stable-Baselines3 adapter, episode caps, the
batched environment's info, copies and states, the typed package, observation options and
clear errors."""

import ast
import copy
import pathlib
import pickle
import pydoc
import threading

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import tetris_lab
from tetris_lab import TetrisEnv, TetrisVectorEnv


def legal(masks, generator):
    """A random legal action per row of masks."""
    return np.array([generator.choice(np.flatnonzero(mask)) for mask in masks])


# --- Stable-Baselines3 -----------------------------------------------------------------


def test_the_sb3_adapter_steps_as_single_environments():
    pytest.importorskip("stable_baselines3")
    from tetris_lab.sb3 import TetrisVecEnv

    count, cap = 3, 8
    vec = TetrisVecEnv(num_envs=count, board="6x6", max_episode_steps=cap)
    singles = [TetrisEnv(board="6x6", max_episode_steps=cap) for _ in range(count)]
    vec.seed(40)
    observation = vec.reset()
    expected = [env.reset(seed=40 + i) for i, env in enumerate(singles)]
    generator = np.random.default_rng(3)
    ends = truncations = 0
    for _ in range(300):
        for i, (alone, info) in enumerate(expected):
            assert np.array_equal(observation["board"][i], alone["board"]) and observation["piece"][i] == alone["piece"]
            assert np.array_equal(vec.action_masks()[i], info["action_mask"])
        masks = vec.env_method("action_masks")
        assert all(mask.any() for mask in masks), "MaskablePPO refuses a game with no legal action"
        actions = legal(masks, generator)
        observation, rewards, dones, infos = vec.step(actions)
        assert rewards.dtype == np.float32 and dones.dtype == bool
        for i, env in enumerate(singles):
            alone, reward, terminated, truncated, info = env.step(actions[i])
            assert rewards[i] == reward and dones[i] == (terminated or truncated)
            assert (infos[i]["lines"], infos[i]["pieces"], infos[i]["score"]) == (info["lines"], info["pieces"], info["score"])
            if terminated or truncated:
                ends += 1
                truncations += truncated and not terminated
                final = infos[i]["terminal_observation"]
                assert np.array_equal(final["board"], alone["board"]) and final["piece"] == alone["piece"]
                assert infos[i]["TimeLimit.truncated"] == (truncated and not terminated)
                expected[i] = env.reset()
            else:
                assert "terminal_observation" not in infos[i]
                expected[i] = (alone, info)
    assert ends > 5 and truncations > 0, "the check needs ended and truncated episodes"


def test_maskable_ppo_trains_on_the_batched_environment():
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    from tetris_lab.sb3 import TetrisVecEnv

    torch.set_num_threads(1)
    env = VecMonitor(TetrisVecEnv(num_envs=8, board="6x6", observation="features", normalize=True, max_episode_steps=100))
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=128, n_epochs=2, seed=0)
    model.learn(3000)
    assert model.num_timesteps >= 3000
    observation = env.reset()
    actions, _ = model.predict(observation, action_masks=env.action_masks(), deterministic=True)
    assert actions.shape == (8,)


def test_the_sb3_adapter_passes_attributes_through():
    pytest.importorskip("stable_baselines3")
    from tetris_lab.sb3 import TetrisVecEnv

    vec = TetrisVecEnv(num_envs=2, board="6x6")
    assert vec.get_attr("max_episode_steps") == [None, None]
    assert vec.has_attr("action_masks") and not vec.has_attr("no_such_thing")
    assert vec.env_is_wrapped(gym.Wrapper) == [False, False]


# --- Episode caps ----------------------------------------------------------------------


def test_gym_make_caps_an_episode():
    env = gym.make("tetris_lab/Tetris-v0", board="10x20", max_episode_steps=3)
    _, info = env.reset(seed=1)
    for step in range(3):
        _, _, terminated, truncated, info = env.step(np.flatnonzero(info["action_mask"])[0])
        assert not terminated and truncated == (step == 2)


def test_the_single_environment_s_own_cap():
    env = TetrisEnv(max_episode_steps=2)
    assert env.max_episode_steps == 2
    _, info = env.reset(seed=1)
    flags = []
    for _ in range(2):
        _, _, terminated, truncated, info = env.step(np.flatnonzero(info["action_mask"])[0])
        flags.append(truncated)
    assert flags == [False, True]
    with pytest.raises(gym.error.ResetNeeded):
        env.step(0)
    env.reset()
    with pytest.raises(TypeError, match="^max_episode_steps:"):
        TetrisEnv(max_episode_steps=2.5)
    with pytest.raises(ValueError, match="^max_episode_steps:"):
        TetrisEnv(max_episode_steps=0)


def compare_with_sync(keywords, steps=120, seed=20, generator_seed=2):
    """Steps the batched environment and Gymnasium's SyncVectorEnv of single environments
    with the same keywords side by side: observations, rewards, flags and every info key."""
    ours = gym.make_vec("tetris_lab/Tetris-v0", num_envs=3, vectorization_mode="vector_entry_point", **keywords)
    sync = gym.make_vec("tetris_lab/Tetris-v0", num_envs=3, vectorization_mode="sync", **keywords)
    (observation, info), (expected, expected_info) = ours.reset(seed=seed), sync.reset(seed=seed)
    generator = np.random.default_rng(generator_seed)
    counts = np.zeros(2, int)
    for _ in range(steps):
        assert np.array_equal(observation["board"], expected["board"])
        assert sorted(info) == sorted(expected_info)
        for key, value in expected_info.items():
            if key in ("final_obs", "final_info"):
                continue
            assert np.array_equal(info[key], value), key
            assert info[key].dtype == value.dtype, key
        if "final_obs" in expected_info:
            for i in np.flatnonzero(expected_info["_final_obs"]):
                assert np.array_equal(info["final_obs"][i]["board"], expected_info["final_obs"][i]["board"])
            for key, value in expected_info["final_info"].items():
                done = expected_info["_final_info"]
                assert np.array_equal(info["final_info"][key][done], value[done]), key
        actions = [generator.choice(np.flatnonzero(mask)) if mask.any() else 0 for mask in info["action_mask"]]
        observation, rewards, terminated, truncated, info = ours.step(actions)
        expected, expected_rewards, expected_terminated, expected_truncated, expected_info = sync.step(actions)
        assert np.array_equal(rewards, expected_rewards)
        assert np.array_equal(terminated, expected_terminated) and np.array_equal(truncated, expected_truncated)
        counts += terminated.sum(), truncated.sum()
    return counts


def test_make_vec_caps_episodes_as_gymnasium_s_time_limit():
    envs = gym.make_vec("tetris_lab/Tetris-v0", num_envs=2, vectorization_mode="vector_entry_point", max_episode_steps=3)
    assert envs.max_episode_steps == 3
    _, info = envs.reset(seed=0)
    flags = []
    for _ in range(4):
        _, _, terminated, truncated, info = envs.step(np.argmax(info["action_mask"], axis=1))
        flags.append(truncated.tolist())
    assert flags == [[False, False], [False, False], [True, True], [False, False]]
    terminations, truncations = compare_with_sync(dict(board="6x6", max_episode_steps=7))
    assert terminations > 0 and truncations > 3


# --- The batched environment's info -----------------------------------------------------


def test_the_batched_info_has_the_single_environment_s_keys():
    single = TetrisEnv(board="6x6")
    _, single_info = single.reset(seed=1)
    _, single_step_info = single.step(np.flatnonzero(single_info["action_mask"])[0])[3:]
    envs = TetrisVectorEnv(num_envs=2, board="6x6")
    _, info = envs.reset(seed=1)
    assert set(single_info) <= set(info) and all("_" + key in info for key in single_info)
    _, _, _, _, info = envs.step(np.argmax(info["action_mask"], axis=1))
    assert set(single_step_info) <= set(info) and all("_" + key in info for key in single_step_info)
    assert info["lines"].dtype == np.int64 and info["pieces"].tolist() == [1, 1]
    terminations, _ = compare_with_sync(dict(board="6x6"))
    assert terminations > 3


def test_same_step_autoreset_is_gymnasium_s():
    keywords = dict(board="6x6", autoreset_mode="same_step")
    ours = TetrisVectorEnv(num_envs=3, **keywords)
    assert ours.metadata["autoreset_mode"] == gym.vector.AutoresetMode.SAME_STEP
    terminations, _ = compare_with_sync_mode(keywords)
    assert terminations > 3


def compare_with_sync_mode(keywords):
    mode = keywords["autoreset_mode"]
    rest = {k: v for k, v in keywords.items() if k != "autoreset_mode"}
    ours = gym.make_vec("tetris_lab/Tetris-v0", num_envs=3, vectorization_mode="vector_entry_point", **keywords)
    sync = gym.vector.SyncVectorEnv(
        [lambda: gym.make("tetris_lab/Tetris-v0", **rest) for _ in range(3)],
        autoreset_mode=ours.metadata["autoreset_mode"],
    )
    assert mode == "same_step"
    (observation, info), (expected, expected_info) = ours.reset(seed=30), sync.reset(seed=30)
    generator = np.random.default_rng(4)
    ends = 0
    for _ in range(150):
        assert np.array_equal(observation["board"], expected["board"])
        assert sorted(info) == sorted(expected_info)
        if "final_obs" in expected_info:
            done = expected_info["_final_obs"]
            assert np.array_equal(info["_final_obs"], done)
            for i in np.flatnonzero(done):
                assert np.array_equal(info["final_obs"][i]["board"], expected_info["final_obs"][i]["board"])
            for key, value in expected_info["final_info"].items():
                assert np.array_equal(info["final_info"][key][done], value[done]), key
        assert all(mask.any() for mask in info["action_mask"])
        actions = legal(info["action_mask"], generator)
        observation, rewards, terminated, truncated, info = ours.step(actions)
        expected, expected_rewards, expected_terminated, _, expected_info = sync.step(actions)
        assert np.array_equal(rewards, expected_rewards) and np.array_equal(terminated, expected_terminated)
        ends += terminated.sum()
    return ends, 0


def test_disabled_autoreset_restarts_the_games_a_mask_marks():
    envs = TetrisVectorEnv(num_envs=3, board="6x6", autoreset_mode="disabled")
    _, info = envs.reset(seed=5)
    generator = np.random.default_rng(0)
    terminated = np.zeros(3, bool)
    while not terminated[0]:
        masks = info["action_mask"]
        actions = [generator.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks]
        _, _, terminated, _, info = envs.step(actions)
    before = envs._games.get_state(1).steps
    observation, info = envs.reset(options={"reset_mask": np.array([True, False, False])})
    assert info["_lines"].tolist() == [True, False, False] and info["pieces"][0] == 0
    assert envs._games.get_state(1).steps == before and envs._games.get_state(0).episode == 1
    alone = TetrisEnv(board="6x6")
    alone.reset(seed=5)
    first, _ = alone.reset()
    assert np.array_equal(observation["board"][0], first["board"])


def test_record_episode_statistics_reads_the_batched_info():
    envs = gym.wrappers.vector.RecordEpisodeStatistics(TetrisVectorEnv(num_envs=4, board="6x6", reward="pieces"))
    _, info = envs.reset(seed=0)
    generator = np.random.default_rng(0)
    seen = 0
    for _ in range(200):
        _, _, terminated, truncated, info = envs.step(legal_or_zero(info["action_mask"], generator))
        if "episode" in info:
            done = info["_episode"]
            # Reward "pieces": the episode's return is the pieces the ended game placed.
            assert np.array_equal(info["episode"]["r"][done], info["pieces"][done])
            seen += done.sum()
    assert seen > 3


def legal_or_zero(masks, generator):
    return np.array([generator.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])


# --- Copies, pickles and states -----------------------------------------------------------


def future(env, info, steps=80, seed=9):
    """What the environment does under a seeded random legal policy, resets included."""
    generator = np.random.default_rng(seed)
    seen = []
    for _ in range(steps):
        observation, reward, terminated, truncated, info = env.step(generator.choice(np.flatnonzero(info["action_mask"])))
        seen.append((observation["board"].tobytes(), observation["piece"], reward, terminated, truncated, info["lines"], info["score"]))
        if terminated or truncated:
            observation, info = env.reset()
            seen.append((observation["board"].tobytes(), observation["piece"]))
    return seen


def played(env, steps=3):
    _, info = env.reset(seed=11)
    for _ in range(steps):
        _, _, terminated, _, info = env.step(np.flatnonzero(info["action_mask"])[0])
        assert not terminated
    return info


@pytest.mark.parametrize("copier", ["clone", "deepcopy", "pickle", "cloudpickle"])
def test_a_copy_goes_on_as_the_original(copier):
    env = TetrisEnv(board="6x8", max_episode_steps=30)
    info = played(env)
    if copier == "clone":
        other = env.clone()
    elif copier == "deepcopy":
        other = copy.deepcopy(env)
    elif copier == "pickle":
        other = pickle.loads(pickle.dumps(env))
    else:
        cloudpickle = pytest.importorskip("cloudpickle")
        other = cloudpickle.loads(cloudpickle.dumps(env))
    assert other is not env and other._games is not env._games
    expected = future(env, info)
    assert future(other, info) == expected
    assert sum(1 for entry in expected if len(entry) == 2) >= 2, "the check needs resets without a seed"


def test_a_wrapped_environment_deep_copies():
    env = gym.make("tetris_lab/Tetris-v0", board="6x6", max_episode_steps=20)
    info = played(env, 3)
    other = copy.deepcopy(env)
    assert future(other, info) == future(env, info)


def test_an_unreset_environment_copies():
    env = TetrisEnv(board="6x6")
    for other in (env.clone(), pickle.loads(pickle.dumps(env))):
        _, info = other.reset(seed=3)
        _, again = env.clone().reset(seed=3)
        assert np.array_equal(info["action_mask"], again["action_mask"])


def test_a_state_saved_and_set_replays_the_game():
    env = TetrisEnv(board="6x8", observation="features")
    info = played(env, 3)
    state = env.get_state()
    assert (state.master, state.episode, state.steps) == (11, 0, 3)
    first = future_features(env, info)
    observation, info2 = env.set_state(state)
    assert np.array_equal(info2["action_mask"], info["action_mask"])
    assert future_features(env, info2) == first
    # Into another environment of the same rule set and board, and through pickle.
    other = TetrisEnv(board="6x8", observation="features")
    _, info3 = other.set_state(pickle.loads(pickle.dumps(state)))
    assert future_features(other, info3) == first
    with pytest.raises(ValueError, match="^state:"):
        TetrisEnv(board="8x8").set_state(state)
    with pytest.raises(TypeError, match="^state:"):
        env.set_state("a state")


def future_features(env, info, steps=40):
    generator = np.random.default_rng(1)
    seen = []
    for _ in range(steps):
        observation, reward, terminated, _, info = env.step(generator.choice(np.flatnonzero(info["action_mask"])))
        seen.append((observation.tobytes(), reward, terminated))
        if terminated:
            break
    return seen


def test_states_for_planning_many_rollouts_from_one_state():
    env = TetrisEnv(board="6x6")
    _, info = env.reset(seed=2)
    root = env.get_state()
    returns = []
    for action in np.flatnonzero(info["action_mask"]):
        env.set_state(root)
        _, reward, *_ = env.step(action)
        returns.append(reward)
    env.set_state(root)
    assert env.get_state().steps == 0 and len(returns) == info["action_mask"].sum()


def test_the_batched_environment_refuses_to_pickle():
    with pytest.raises(TypeError, match="TetrisEnv can"):
        pickle.dumps(TetrisVectorEnv(num_envs=2))


# --- The package ------------------------------------------------------------------------


def test_the_package_exports_and_documents_its_api():
    assert tetris_lab.TetrisEnv is TetrisEnv and tetris_lab.TetrisVectorEnv is TetrisVectorEnv
    modules = [tetris_lab, tetris_lab.env]
    try:
        from tetris_lab import sb3

        modules.append(sb3)
    except ImportError:
        pass
    for module in modules:
        names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
        for name in names:
            value = getattr(module, name)
            if getattr(value, "__module__", module.__name__) not in (module.__name__, "tetris_lab", "tetris_lab.env"):
                continue  # imported from elsewhere (numpy, gymnasium)
            if callable(value):
                assert value.__doc__, f"{module.__name__}.{name}"
            if isinstance(value, type):
                for attribute, member in vars(value).items():
                    if (callable(member) or isinstance(member, property)) and not attribute.startswith("_"):
                        assert member.__doc__, f"{name}.{attribute}"
    text = pydoc.render_doc(tetris_lab, renderer=pydoc.plaintext)
    assert "TetrisEnv" in text and "feature_descriptions" in text and "Stable-Baselines3" in text
    descriptions = tetris_lab.feature_descriptions()
    assert list(descriptions) == tetris_lab.features() and all(descriptions.values())


def test_the_package_is_typed():
    folder = pathlib.Path(tetris_lab.__file__).parent
    assert (folder / "py.typed").exists()
    stub = ast.parse((folder / "_core.pyi").read_text())
    stubbed = {node.name for node in stub.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    public = {name for name in dir(tetris_lab._core) if not name.startswith("_")}
    assert public == stubbed
    for node in stub.body:
        if isinstance(node, ast.ClassDef):
            stubbed_members = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
            members = {n for n in vars(getattr(tetris_lab._core, node.name)) if not n.startswith("_")}
            assert members <= stubbed_members, node.name


# --- Observation options ------------------------------------------------------------------


def test_a_channel_first_board():
    env = TetrisEnv(board="10x20", channel_first=True)
    assert env.observation_space["board"].shape == (1, 20, 10)
    check_env(env)
    observation, _ = env.reset(seed=1)
    assert np.array_equal(observation["board"][0], env.board())
    envs = TetrisVectorEnv(num_envs=3, board="10x20", channel_first=True)
    observation, _ = envs.reset(seed=1)
    assert observation["board"].shape == (3, 1, 20, 10) and observation in envs.observation_space
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    sb3_checker.check_env(TetrisEnv(board="10x20", channel_first=True), warn=False)


def test_normalised_features():
    plain = TetrisEnv(board="10x20", observation="features")
    scaled = TetrisEnv(board="10x20", observation="features", normalize=True)
    check_env(scaled)
    scales = tetris_lab.feature_scales("bcts", (10, 20))
    assert scales.shape == (8,) and (scales >= 1).all()
    (a, info), (b, _) = plain.reset(seed=3), scaled.reset(seed=3)
    generator = np.random.default_rng(0)
    for _ in range(30):
        action = generator.choice(np.flatnonzero(info["action_mask"]))
        a, _, terminated, _, info = plain.step(action)
        b, *_ = scaled.step(action)
        assert np.allclose(b[:8], a[:8] / scales) and np.array_equal(b[8:], a[8:])
        assert np.abs(b).max() <= 1.5
        if terminated:
            break
    with pytest.raises(ValueError, match="^normalize:"):
        TetrisEnv(normalize=True)
    with pytest.raises(ValueError, match="^channel_first:"):
        TetrisEnv(observation="features", channel_first=True)


# --- Clear errors ---------------------------------------------------------------------------


def test_calls_before_reset_say_to_reset():
    env = TetrisEnv()
    for call in (env.action_masks, lambda: env.step(0), env.get_state, env.board):
        with pytest.raises(gym.error.ResetNeeded, match=r"call reset\(\)"):
            call()
    envs = TetrisVectorEnv(num_envs=2)
    for call in (envs.action_masks, lambda: envs.step(np.zeros(2, int))):
        with pytest.raises(gym.error.ResetNeeded, match=r"call reset\(\)"):
            call()


def test_a_batched_environment_used_from_two_threads_says_so():
    envs = TetrisVectorEnv(num_envs=2)
    _, info = envs.reset(seed=0)
    envs._lock.acquire()  # as if another thread were in a step
    try:
        with pytest.raises(RuntimeError, match="one thread at a time"):
            envs.step(np.argmax(info["action_mask"], axis=1))
    finally:
        envs._lock.release()
    # Two threads at once: each call steps or says so, nothing else.
    envs = TetrisVectorEnv(num_envs=2048, board="10x20", threads=2)
    envs.reset(seed=0)
    errors = []

    def work():
        for _ in range(30):
            try:
                masks = envs.action_masks()
                envs.step(np.argmax(masks, axis=1))
            except RuntimeError as error:
                errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all("one thread at a time" in str(error) for error in errors)


def test_the_same_seed_gives_the_same_batched_games_in_every_mode():
    def run(mode):
        envs = TetrisVectorEnv(num_envs=80, board="6x6", autoreset_mode=mode, max_episode_steps=15, threads=2)
        _, info = envs.reset(seed=8)
        generator = np.random.default_rng(0)
        history = []
        for _ in range(40):
            observation, rewards, terminated, truncated, info = envs.step(legal_or_zero(info["action_mask"], generator))
            history.append((observation["board"].tobytes(), rewards.tobytes(), terminated.tobytes(), truncated.tobytes()))
        return history

    for mode in ("next_step", "same_step"):
        assert run(mode) == run(mode)
