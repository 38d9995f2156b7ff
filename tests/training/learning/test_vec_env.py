"""LocalFirstVecEnv (parlor.training.learning.vec_env): env 0 in this process, the others in theirs, with
the results of SB3's DummyVecEnv step for step, and training through it bit for bit the same."""
from __future__ import annotations

import tempfile
from dataclasses import replace
from functools import partial
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from stable_baselines3.common.vec_env import DummyVecEnv

from parlor.training.learning import vec_env
from parlor.training.learning.configs import PPOConfig, TrainConfig
from parlor.training.learning.opponents import PoolEntry
from parlor.training.learning.train import env_kwargs, make_model, make_vec_env
from parlor.training.learning.vec_env import SPIN_LIMIT_S, LocalFirstVecEnv, copied, wait_seconds
from parlor.training.learning.vec_masks import masked_env
from parlor.training.learning.wrapper import SingleAgentEnv

CONFIG = TrainConfig(env="tonk_v0", opponents=(PoolEntry("heuristic"),), n_envs=3, seed=4, vec_env="subproc",
                     ppo=PPOConfig(n_steps=48, batch_size=24, n_epochs=2, net_arch=(16,)))


def _fns(config: TrainConfig) -> list:
    return [partial(masked_env, partial(SingleAgentEnv, **env_kwargs(config, rank))) for rank in range(config.n_envs)]


def _same(a, b) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    return a == b


def test_local_first_steps_as_the_dummy_vec_env_does_across_episode_ends() -> None:
    """Spinning (the training below sleeps: between them, both ways of waiting)."""
    local, dummy = LocalFirstVecEnv(_fns(CONFIG), spin_s=SPIN_LIMIT_S), DummyVecEnv(_fns(CONFIG))
    try:
        assert len(local.processes) == 2  # env 0 lives here
        local.seed(11), dummy.seed(11)
        assert np.array_equal(local.reset(), dummy.reset())
        assert all(_same(a, b) for a, b in zip(local.reset_infos, dummy.reset_infos))
        rng, ends = np.random.default_rng(0), np.zeros(3, dtype=int)
        for _ in range(250):
            masks = local.env_method("action_masks")
            assert all(np.array_equal(m, d) for m, d in zip(masks, dummy.env_method("action_masks")))
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            local.step_async(actions), dummy.step_async(actions)
            (obs, rewards, dones, infos), expected = local.step_wait(), dummy.step_wait()
            assert np.array_equal(obs, expected[0]) and obs.dtype == expected[0].dtype
            assert np.array_equal(rewards, expected[1]) and np.array_equal(dones, expected[2])
            assert all(_same(a, b) for a, b in zip(infos, expected[3]))
            assert all(_same(local.reset_infos[i], dummy.reset_infos[i]) for i in np.flatnonzero(dones))
            ends += dones
        assert (ends > 1).all()  # every env, the local one included, went through auto-resets
    finally:
        local.close(), dummy.close()


def test_attributes_and_methods_reach_the_envs_named_in_their_order() -> None:
    vec = LocalFirstVecEnv(_fns(CONFIG))
    try:
        assert vec.get_attr("_seat_offset") == [0, 1, 2]
        assert vec.get_attr("_seat_offset", indices=[2, 0]) == [2, 0]
        vec.set_attr("reward_scale", 0.5, indices=[0, 2])
        assert vec.get_attr("reward_scale") == [0.5, CONFIG.reward_scale, 0.5]
        assert vec.env_method("num_snapshots", indices=[1, 0]) == [0, 0]
        assert vec.env_is_wrapped(DummyVecEnv) == [False] * 3
    finally:
        vec.close()


def test_one_env_is_refused_with_what_to_use() -> None:
    with pytest.raises(ValueError, match="at least 2 envs.*DummyVecEnv"):
        LocalFirstVecEnv(_fns(replace(CONFIG, n_envs=1)))


def _weights(config: TrainConfig, **kwargs) -> dict[str, np.ndarray]:
    vec = make_vec_env(config, **kwargs)
    try:
        model = make_model(config, vec, Path(tempfile.mkdtemp()))
        model.learn(288)
        return {k: v.detach().numpy().copy() for k, v in model.policy.state_dict().items()}
    finally:
        vec.close()


def test_training_with_env_0_here_is_the_training_with_every_env_in_a_process() -> None:
    vec = make_vec_env(replace(CONFIG, vec_env_wait="spin"))
    vec.close()
    assert isinstance(vec.unwrapped, LocalFirstVecEnv) and vec.unwrapped.spin_s == SPIN_LIMIT_S  # vec_env: subproc
    local = _weights(replace(CONFIG, vec_env_wait="sleep"))  # sleeping (the stepping test above spins)
    processes = _weights(CONFIG, every_env_in_a_process=True)
    dummy = _weights(replace(CONFIG, vec_env="dummy"))
    assert all(np.array_equal(local[k], processes[k]) and np.array_equal(local[k], dummy[k]) for k in local)


def test_auto_spins_only_with_a_core_per_process(monkeypatch) -> None:
    monkeypatch.setattr(vec_env, "usable_cores", lambda: 2)
    assert wait_seconds("auto", 2) == SPIN_LIMIT_S and wait_seconds("auto", 3) == 0.0
    assert wait_seconds("spin", 3) == SPIN_LIMIT_S and wait_seconds("sleep", 1) == 0.0
    with pytest.raises(ValueError, match="wait='yield'.*auto, spin, sleep"):
        wait_seconds("yield", 2)
    with pytest.raises(ValueError, match="spin_s=-1"):
        LocalFirstVecEnv(_fns(CONFIG), spin_s=-1)


def test_has_attr_asks_each_env_in_place() -> None:
    vec = LocalFirstVecEnv(_fns(replace(CONFIG, n_envs=2)))
    try:
        assert vec.has_attr("action_masks") and not vec.has_attr("no_such_attribute")  # a method: never pickled
    finally:
        vec.close()


def test_a_self_play_run_reaches_every_env_with_its_snapshots(tmp_path: Path, monkeypatch) -> None:
    """``parlor train`` with ``vec_env: subproc``: the callback's ``env_method("add_snapshot")``
    loads each snapshot into env 0 here and into the env processes."""
    from parlor.training.learning.configs import parse_config
    from parlor.training.learning.train import train, write_run_files

    config = parse_config({"env": "tonk_v0", "options": {"num_players": 2}, "n_envs": 3, "vec_env": "subproc",
                           "total_steps": 288, "opponents": [{"agent": "heuristic"}, {"agent": "self"}],
                           "self_play": {"start": 96, "every": 96, "keep": 2}, "checkpoint_every": 288,
                           "ppo": {"n_steps": 32, "batch_size": 48, "n_epochs": 1, "net_arch": [16]},
                           "eval": {"every": 288, "deals": 2, "opponents": ["heuristic"], "baselines": ["random"]}})
    write_run_files(tmp_path, config, "", "pytest")
    counts: list[list[int]] = []
    original = LocalFirstVecEnv.env_method

    def spying(self, method_name, *args, **kwargs):
        out = original(self, method_name, *args, **kwargs)
        if method_name == "add_snapshot":
            counts.append(original(self, "num_snapshots"))
        return out

    monkeypatch.setattr(LocalFirstVecEnv, "env_method", spying)
    result = train(config, tmp_path, progress_bar=False, log=lambda *_: None)
    assert result.num_timesteps == 288 and counts and counts[-1][0] >= 1
    assert all(len(set(c)) == 1 for c in counts)  # every env, the one here included, has the same snapshots


def _objects(value, out: list) -> list:
    """Every mutable object inside ``value`` (containers and arrays), ``value`` included."""
    if isinstance(value, (dict, list, tuple, np.ndarray, bytearray)):
        out.append(value)
    for item in (value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else []):
        _objects(item, out)
    return out


def test_an_info_is_copied_as_a_pickle_round_trip_copies_it() -> None:
    import pickle

    info = {"learner_seat": 1, "raw_reward": -2.5, "name": "x", "none": None, "flag": np.bool_(True),
            "mask": np.array([True, False, True]), "fortran": np.asfortranarray(np.arange(6.0).reshape(2, 3)),
            "strided": np.arange(10, dtype=np.int32)[::3], "stats": {"score": np.float32(1.5), "rows": [1, (2, 3)]},
            "opaque": bytearray(b"ab"), "terminal_observation": np.ones(4, dtype=np.float32)}
    copy, reference = copied(info), pickle.loads(pickle.dumps(info))
    assert _same(copy, reference) and copy["stats"]["rows"] == [1, (2, 3)] and copy["opaque"] == bytearray(b"ab")
    for key in ("fortran", "strided"):  # the memory order an unpickled array has
        assert copy[key].flags.c_contiguous == reference[key].flags.c_contiguous
        assert copy[key].flags.f_contiguous == reference[key].flags.f_contiguous
    originals = {id(o) for o in _objects(info, [])}
    assert not originals & {id(o) for o in _objects(copy, [])}  # nothing shared with the env
