"""The Gymnasium ids: one per env, made by ``gymnasium.make`` alone, the learner against the
heuristic table, SB3's ``check_env`` in penalty mode and MaskablePPO on them unchanged, also
through SB3's ``make_vec_env`` with its defaults (``render_mode="rgb_array"``, Dummy- and SubprocVecEnv)."""
from __future__ import annotations

import subprocess
import sys
import warnings

import gymnasium
import numpy as np
import pytest

from parlor import envs
from parlor.envs.engine.game import ConfigError
from parlor.training.learning import gym_id, gym_ids
from parlor.training.learning.wrapper import SingleAgentEnv
from tests.tiers import first_of

IDS = sorted(gym_ids())


def test_every_env_has_one_id_named_after_it() -> None:
    assert sorted(gym_ids().values()) == sorted(envs.ENVS)
    assert gym_id("ofc_v0") == "parlor/OFC-v0"
    assert gym_id("buffalo_bill_v0") == "parlor/BuffaloBill-v0"
    assert gym_id("austrian_dominoes_v0") == "parlor/AustrianDominoes-v0"
    assert set(IDS) <= set(gymnasium.registry)
    with pytest.raises(ValueError, match="not an env entry name"):
        gym_id("OFC")


def test_a_fresh_interpreter_makes_an_id_with_gymnasium_alone_and_without_torch() -> None:
    code = ("import sys, gymnasium\n"
            "env = gymnasium.make('parlor.training.learning:parlor/Tonk-v0')\n"
            "env.reset(seed=0)\n"
            "assert env.unwrapped.action_masks().any()\n"
            "print(sorted(m for m in ('torch', 'stable_baselines3', 'sb3_contrib') if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("env_id", IDS)
def test_the_id_is_the_learner_against_the_heuristic_table(env_id: str) -> None:
    env = gymnasium.make(env_id, seed=0)
    inner = env.unwrapped
    assert isinstance(inner, SingleAgentEnv) and inner.env_name == gym_ids()[env_id]
    assert inner.learner_seats == tuple(range(inner.game.num_players))
    assert env.observation_space == inner.observation_space and env.action_space.n == inner.game.num_actions
    obs, _ = env.reset(seed=1)
    assert obs in env.observation_space
    done, info, steps = False, {}, 0
    while not done:
        mask = env.get_wrapper_attr("action_masks")()
        obs, _, term, trunc, info = env.step(int(np.flatnonzero(mask)[0]))
        done, steps = term or trunc, steps + 1
        assert steps < 5000
    assert set(info["opponents"].values()) <= {"heuristic"}


def test_keywords_are_game_options_a_preset_or_the_wrappers_arguments() -> None:
    env = gymnasium.make("parlor/OFC-v0", preset="pineapple", num_players=3, opponents=[("random", 1.0)],
                         learner_seats=[2], render_mode="ansi")
    inner = env.unwrapped
    assert inner.game.config.variant == "pineapple" and inner.game.num_players == 3
    assert inner.learner_seats == (2,) and [e.agent for e in inner.pool.entries] == ["random"]
    env.reset(seed=0)
    assert "OFC pineapple" in env.render()
    same = gymnasium.make("parlor/OFC-v0", options={"variant": "pineapple", "num_players": 3}).unwrapped
    assert same.game.config == inner.game.config
    with pytest.raises(ConfigError, match=r"\['variant'\] given both in options= and as keywords"):
        gymnasium.make("parlor/OFC-v0", options={"variant": "pineapple"}, variant="original")
    with pytest.raises(ConfigError, match="parlor/OFC-v0: unknown option.*'colour'.*keywords of SingleAgentEnv"):
        gymnasium.make("parlor/OFC-v0", colour="red")
    with pytest.raises(ConfigError, match="unknown preset 'huge'.*allowed values: default"):
        gymnasium.make("parlor/OFC-v0", preset="huge")
    with pytest.raises(ConfigError, match="render_mode"):
        gymnasium.make("parlor/OFC-v0", render_mode="human")


def test_no_game_option_shadows_a_wrapper_argument() -> None:
    from parlor.training.learning.registration import _wrapper_arguments

    for name in envs.ENVS:
        fields = set(envs.make_game(name).config.__dataclass_fields__)
        assert not fields & {*_wrapper_arguments(), "preset", "options"}, name


@pytest.mark.parametrize("env_id", IDS)
def test_sb3_check_env_passes_in_penalty_mode(env_id: str) -> None:
    from stable_baselines3.common.env_checker import check_env

    env = gymnasium.make(env_id, illegal_action="penalty", seed=0).unwrapped
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every warning of the checker is a failure
        check_env(env)


@pytest.mark.parametrize("env_id", IDS)
def test_maskable_ppo_trains_on_the_id_unchanged(env_id: str) -> None:
    from sb3_contrib import MaskablePPO

    env = gymnasium.make(env_id, seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(64)
    obs, _ = env.reset(seed=3)
    mask = env.get_wrapper_attr("action_masks")()
    action, _ = model.predict(obs, action_masks=mask, deterministic=True)
    assert mask[int(action)]


# make test: the first id (the same registration and wrapper for each; tests/pictures/test_rgb_array.py
# draws each env's pixels fast)
@pytest.mark.parametrize("env_id", first_of(IDS))
def test_sb3_make_vec_env_with_its_defaults_draws_the_learners_view(env_id: str) -> None:
    from stable_baselines3.common.env_util import make_vec_env

    from parlor.envs.engine import svg
    from parlor.envs.engine.presenter import svg_renderer

    venv = make_vec_env(env_id, n_envs=2, seed=0)  # asks for render_mode="rgb_array" (SB3's default)
    assert venv.render_mode == "rgb_array"
    venv.reset()
    for _ in range(2):  # the first decision, then the next one
        frames = venv.get_images()
        assert len(frames) == 2 and frames[0].shape == frames[1].shape
        for env, frame in zip(venv.envs, frames):
            inner = env.unwrapped
            assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
            # the adapter's picture of the learner's view (not of whoever acts next)
            assert np.array_equal(frame, svg.rasterize(svg_renderer(inner.game)(inner.state.view(inner.learner))))
        masks = venv.env_method("action_masks")
        venv.step(np.array([int(np.flatnonzero(m)[0]) for m in masks]))
    venv.close()


def test_sb3_make_vec_env_in_subprocesses_trains_maskable_ppo() -> None:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import SubprocVecEnv

    # the workers import nothing of the test: the "module:id" form registers the ids in them
    venv = make_vec_env("parlor.training.learning:parlor/Tonk-v0", n_envs=2, seed=0, env_kwargs={"num_players": 2},
                        vec_env_cls=SubprocVecEnv)
    try:
        model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=32, n_epochs=1, seed=0, device="cpu")
        model.learn(64)
        assert model.num_timesteps == 64
        frames = venv.get_images()
        assert len(frames) == 2 and all(f.dtype == np.uint8 and f.shape == frames[0].shape for f in frames)
    finally:
        venv.close()


def test_the_wrapper_refuses_render_modes_it_cannot_serve() -> None:
    with pytest.raises(ConfigError, match="render_mode='human' is not allowed; allowed values: 'ansi', 'rgb_array'"):
        SingleAgentEnv("tonk_v0", render_mode="human")
