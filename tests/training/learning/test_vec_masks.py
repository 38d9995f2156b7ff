"""Action masks with each step's results (parlor.training.learning.vec_masks): the masks are those the
env processes would send when asked, and training with them is bit for bit the training without."""
from __future__ import annotations

import tempfile
from dataclasses import replace
from functools import partial
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

from parlor.training.learning.configs import PPOConfig, TrainConfig
from parlor.training.learning.opponents import PoolEntry
from parlor.training.learning.train import env_kwargs, make_model, make_vec_env
from parlor.training.learning.vec_masks import CachedMasks
from parlor.training.learning.wrapper import SingleAgentEnv
from tests.training.scripted import register

register()


def test_cached_masks_are_what_the_env_processes_say_across_episode_ends() -> None:
    config = TrainConfig(env="tonk_v0", opponents=(PoolEntry("heuristic"),), n_envs=2, vec_env="subproc")
    vec = make_vec_env(config)
    try:
        assert isinstance(vec.venv, CachedMasks)
        rng = np.random.default_rng(0)
        vec.reset()
        ends = 0
        for _ in range(300):
            cached = vec.env_method("action_masks")
            asked = vec.unwrapped.env_method("action_masks")  # the SubprocVecEnv itself: a round trip
            assert all(np.array_equal(c, a) for c, a in zip(cached, asked))
            actions = [int(rng.choice(np.flatnonzero(m))) for m in cached]
            _, _, dones, _ = vec.step(np.array(actions))
            ends += int(dones.sum())
        assert ends > 4  # auto-resets happened, where the next mask is the new episode's
    finally:
        vec.close()


def _weights(vec) -> dict[str, np.ndarray]:
    config = TrainConfig(env="kuhn_test", n_envs=2, seed=3, ppo=PPOConfig(n_steps=64, batch_size=32, n_epochs=2))
    try:
        model = make_model(config, vec, Path(tempfile.mkdtemp()))
        model.learn(256)
        return {k: v.detach().numpy().copy() for k, v in model.policy.state_dict().items()}
    finally:
        vec.close()


def test_training_with_cached_masks_is_the_training_without() -> None:
    config = TrainConfig(env="kuhn_test", n_envs=2, seed=3)
    plain = VecMonitor(DummyVecEnv([partial(SingleAgentEnv, **env_kwargs(config, rank)) for rank in range(2)]))
    without, with_cache = _weights(plain), _weights(make_vec_env(replace(config, vec_env="dummy")))
    assert without.keys() == with_cache.keys()
    assert all(np.array_equal(without[k], with_cache[k]) for k in without)
