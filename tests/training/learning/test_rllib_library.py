"""``parlor.training.rllib``, RLlib from a user's own script: the env config (ppo: opponents
read from the user's cwd and carried as bytes), the env creator, PPOConfig with the masked
module, and export_policy, whose file plays exactly the trained module's distribution."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from parlor.agents.policy import PolicyAgent, read_signature
from parlor.envs import make_game
from parlor.envs.engine.game import ConfigError, IllegalActionError
from parlor.training.evaluation.shipped import InputFileError, ShippedPolicy
from tests.agents.policy_files import tiny_policy

pytestmark = pytest.mark.xdist_group("ray")  # one xdist worker, one Ray instance for every Ray test


@pytest.fixture(autouse=True, scope="module")
def _rllib() -> None:
    """ray.rllib is imported when this module's tests run, not at collection: every xdist
    worker collects every module, and only the one running the "ray" group needs RLlib."""
    global Columns, parlor_rllib
    pytest.importorskip("ray.rllib", reason="the [scale] extra (ray[rllib]) is not installed")
    from ray.rllib.core.columns import Columns

    from parlor.training import rllib as parlor_rllib


def test_env_config_reads_policy_opponents_from_the_cwd_and_the_env_masks(tmp_path, monkeypatch) -> None:
    tiny_policy(tmp_path / "pol" / "old.zip", make_game("tonk_v0", num_players=2))
    monkeypatch.chdir(tmp_path)
    config = parlor_rllib.env_config("tonk_v0", {"num_players": 2}, ["heuristic", ("ppo:pol/old.zip", 2.0)], seed=1)
    assert isinstance(config["agent_factories"]["ppo:pol/old.zip"], ShippedPolicy)  # the bytes, not the path
    (tmp_path / "pol" / "old.zip").unlink()
    env = parlor_rllib.env_creator(config)  # as on a runner that has no such file
    obs, _ = env.reset(seed=0)
    (agent,) = obs
    assert set(obs[agent]) == {parlor_rllib.OBS_KEY, parlor_rllib.MASK_KEY}
    assert obs[agent][parlor_rllib.MASK_KEY].dtype == np.float32
    illegal = int(np.flatnonzero(obs[agent][parlor_rllib.MASK_KEY] == 0)[0])
    with pytest.raises(IllegalActionError):
        env.step({agent: illegal})


def test_bad_input_fails_when_the_config_is_made(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputFileError, match=f"agent ppo:gone.zip: no file 'gone.zip' \\(looked for {tmp_path}/gone.zip\\)"):
        parlor_rllib.env_config("tonk_v0", opponents=["ppo:gone.zip"])
    with pytest.raises(ConfigError, match="num_players"):
        parlor_rllib.ppo_config("tonk_v0", {"num_players": 9})


def test_a_trained_module_exports_to_a_policy_that_plays_its_distribution(ray_cluster, tmp_path) -> None:
    config = (parlor_rllib.ppo_config("tonk_v0", {"num_players": 2}, ["heuristic"], net_arch=(16,), seed=3)
              .training(train_batch_size_per_learner=128, minibatch_size=64, num_epochs=1))
    algo = config.build_algo()
    try:
        algo.train()
        path = parlor_rllib.export_policy(algo, tmp_path / "tonk", num_timesteps=128)
        module = algo.get_module(parlor_rllib.LEARNER)
        env = parlor_rllib.env_creator(config.env_config)
        observations = []
        obs, _ = env.reset(seed=7)
        while len(observations) < 20:
            (agent,) = obs
            observations.append(obs[agent])
            legal = np.flatnonzero(obs[agent][parlor_rllib.MASK_KEY])
            obs, _, terminated, truncated, _ = env.step({agent: int(legal[0])})
            if terminated["__all__"] or truncated["__all__"]:
                obs, _ = env.reset()
        batch = {Columns.OBS: {k: torch.as_tensor(np.stack([o[k] for o in observations])) for k in observations[0]}}
        with torch.no_grad():
            logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
        expected = torch.softmax(logits, -1).numpy()
    finally:
        algo.stop()
    assert path == tmp_path / "tonk.zip"
    header = read_signature(path)
    assert header["env"] == "tonk_v0" and header["num_timesteps"] == 128
    assert header["metadata"] == {"trained_with": "rllib"}
    agent = PolicyAgent.from_file(path, make_game("tonk_v0", num_players=2))
    for o, p in zip(observations, expected):
        got = agent.probabilities(o[parlor_rllib.OBS_KEY], o[parlor_rllib.MASK_KEY] > 0)
        np.testing.assert_allclose(got, p, atol=1e-5)
        assert (got[o[parlor_rllib.MASK_KEY] == 0] == 0).all()
