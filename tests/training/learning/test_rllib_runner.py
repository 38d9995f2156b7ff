"""LeanEnvRunner against RLlib's own MultiAgentEnvRunner, without a Ray instance: the same
episodes field by field (observations, actions, rewards, infos, the module's outputs, their
types), across episode ends, autoresets and the cuts between sample() calls, in both seat
modes; the same step counters; RLlib's own loop where the lean one does not apply."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.xdist_group("ray")  # RLlib is imported in one xdist worker only (see _rllib)


@pytest.fixture(autouse=True, scope="module")
def _rllib() -> None:
    """ray.rllib is imported when this module's tests run, not at collection: every xdist
    worker collects every module, and only the one running the "ray" group needs RLlib."""
    global torch, MultiAgentEnvRunner, NUM_ENV_STEPS_SAMPLED, NUM_EPISODES, LeanEnvRunner, ppo_config, train_config
    pytest.importorskip("ray.rllib", reason="the [scale] extra (ray[rllib]) is not installed")
    import torch
    from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner
    from ray.rllib.utils.metrics import NUM_ENV_STEPS_SAMPLED, NUM_EPISODES

    from parlor.training.learning.rllib_runner import LeanEnvRunner
    from parlor.training.learning.rllib_train import ppo_config
    from parlor.training.rllib import train_config


FIELDS = ("observations", "actions", "rewards", "infos")


def sampled(runner_class: type, opponents: list, calls: tuple[int, ...]) -> tuple[list, dict]:
    config = ppo_config(train_config("tonk_v0", {"num_players": 3}, opponents, net_arch=(16,), seed=3, n_envs=2))
    torch.manual_seed(0)  # the module's initial weights and the action sampling
    runner = runner_class(config=config.env_runners(env_runner_cls=runner_class), worker_index=0, num_workers=0)
    try:
        episodes = [e for n in calls for e in runner.sample(num_timesteps=n)]
        assert (getattr(runner, "_rows", None) is not None) == (runner_class is LeanEnvRunner)  # the lean loop ran
        return episodes, runner.get_metrics()
    finally:
        runner.stop()


def column(episode, agent, name: str) -> list:
    single = episode.agent_episodes[agent]
    buffer = single.extra_model_outputs[name] if name not in FIELDS else getattr(single, name)
    return list(buffer.data)


def same(a, b) -> bool:
    """Equal values of equal types (numpy scalars and arrays included)."""
    return repr(a) == repr(b) and type(a) is type(b) and [type(x) for x in a] == [type(x) for x in b]


@pytest.mark.parametrize("opponents", [["heuristic"], []], ids=["learner seat", "every seat"])
def test_the_lean_runner_samples_rllibs_episodes(opponents) -> None:
    calls = (160, 90)  # two sample() calls: the second continues the cut episodes
    stock, stock_metrics = sampled(MultiAgentEnvRunner, opponents, calls)
    lean, lean_metrics = sampled(LeanEnvRunner, opponents, calls)
    assert len(lean) == len(stock) and sum(e.is_done for e in lean) >= 2
    for a, b in zip(stock, lean):
        assert (a.env_t_started, a.env_t, a.is_done, a.is_terminated) == (b.env_t_started, b.env_t, b.is_done,
                                                                           b.is_terminated)
        assert set(a.agent_episodes) == set(b.agent_episodes)
        for agent in a.agent_episodes:
            outputs = set(a.agent_episodes[agent].extra_model_outputs)
            assert outputs == set(b.agent_episodes[agent].extra_model_outputs) and "action_logp" in outputs
            for name in (*FIELDS, *outputs):
                assert same(column(a, agent, name), column(b, agent, name)), (agent, name)
    for key in (NUM_ENV_STEPS_SAMPLED, NUM_EPISODES):
        assert lean_metrics[key].peek() == stock_metrics[key].peek() > 0, key


def test_inference_sampling_goes_through_rllibs_loop_after_lean_sampling() -> None:
    config = ppo_config(train_config("tonk_v0", {"num_players": 2}, ["random"], net_arch=(8,), n_envs=2))
    runner = LeanEnvRunner(config=config, worker_index=0, num_workers=0)
    try:
        runner.sample(num_timesteps=20)
        episodes = runner.sample(num_timesteps=20, explore=False)  # RLlib's loop, from a fresh reset
        assert sum(len(e) for e in episodes) >= 20 and all(e.env_t_started == 0 for e in episodes)
        assert runner.sample(num_timesteps=20)  # and back
    finally:
        runner.stop()
