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
    for key in EPISODE_METRICS:  # logged value by value (LeanEnvRunner._log_episode_metrics): the same stats
        timed = key == "episode_duration_sec_mean"  # wall time: its own in each run
        assert described(lean_metrics[key], timed) == described(stock_metrics[key], timed), key


EPISODE_METRICS = ("episode_len_mean", "episode_len_min", "episode_len_max", "episode_return_mean",
                   "episode_return_min", "episode_return_max", "episode_duration_sec_mean",
                   "agent_episode_returns_mean", "agent_steps", "module_episode_returns_mean")


def described(stats, timed: bool = False):
    """A metric (or a dict of them) as (its kind, window, value), the value left out if ``timed``."""
    if isinstance(stats, dict):
        return {key: described(value, timed) for key, value in stats.items()}
    return type(stats).__name__, stats._window, None if timed else stats.peek()


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


def test_episodes_are_validated_when_done_or_cut_not_on_every_step(monkeypatch) -> None:
    from ray.rllib.env.multi_agent_episode import MultiAgentEpisode
    from ray.rllib.env.single_agent_episode import SingleAgentEpisode

    checked, in_step = [], []  # (agent episode, its length) validated; those inside add_env_step
    rllib_validate, rllib_step = SingleAgentEpisode.validate, MultiAgentEpisode.add_env_step

    def validate(self):
        (in_step if stepping else checked).append((id(self), len(self)))
        rllib_validate(self)

    def add_env_step(self, *args, **kwargs):
        nonlocal stepping
        stepping = True
        try:
            rllib_step(self, *args, **kwargs)
        finally:
            stepping = False

    stepping = False
    monkeypatch.setattr(SingleAgentEpisode, "validate", validate)
    monkeypatch.setattr(MultiAgentEpisode, "add_env_step", add_env_step)
    stock, _ = sampled(MultiAgentEnvRunner, ["heuristic"], (120,))
    assert len(in_step) == sum(len(e) for e in stock)  # RLlib's: once per step
    in_step.clear()
    lean, _ = sampled(LeanEnvRunner, ["heuristic"], (120,))
    assert in_step == [] and all(type(e) is MultiAgentEpisode for e in lean)  # RLlib's class after each step
    # each episode handed out was checked as it is (done or cut), not only at its reset
    assert all((id(a), len(a)) in set(checked) for e in lean for a in e.agent_episodes.values())


def test_the_vector_env_hands_over_the_envs_fresh_observations_without_copying() -> None:
    config = ppo_config(train_config("tonk_v0", {"num_players": 2}, ["random"], net_arch=(8,), n_envs=2))
    lean = LeanEnvRunner(config=config, worker_index=0, num_workers=0)
    stock = MultiAgentEnvRunner(config=config.env_runners(env_runner_cls=MultiAgentEnvRunner), worker_index=0,
                                num_workers=0)
    try:  # ParlorMultiAgentEnv returns fresh arrays (test_rllib_env.py): the deep copy is RLlib's only
        assert lean.env.unwrapped.copy is False and stock.env.unwrapped.copy is True
    finally:
        lean.stop()
        stock.stop()


def test_episode_step_callbacks_still_run_in_the_lean_loop() -> None:
    calls = []
    config = ppo_config(train_config("tonk_v0", {"num_players": 2}, ["random"], net_arch=(8,), n_envs=2))
    config = config.callbacks(on_episode_step=lambda episode, **_: calls.append(episode.env_t))
    runner = LeanEnvRunner(config=config, worker_index=0, num_workers=0)
    try:
        assert runner._has_step_callbacks()
        episodes = runner.sample(num_timesteps=40)
        assert len(calls) == sum(len(e) for e in episodes) >= 40  # one per env step, as in RLlib's loop
    finally:
        runner.stop()
    plain = LeanEnvRunner(config=ppo_config(train_config("tonk_v0", {"num_players": 2}, ["random"], net_arch=(8,))),
                          worker_index=0, num_workers=0)
    try:
        assert not plain._has_step_callbacks()  # RLlib's empty default: the per-step call is left out
    finally:
        plain.stop()


def test_leaves_are_dm_trees_paths_in_its_order() -> None:
    import tree

    from parlor.training.learning.rllib_runner import leaves

    values = {"b": 1.0, "a": {"player_1": 2, "player_0": 3}, "c": {}, "d": {"x": {"z": 4, "y": 5}}}
    assert list(leaves(values)) == [(tuple(path), v) for path, v in tree.flatten_with_path(values)]
