"""ParlorMultiAgentEnv, the RLlib adapter, without a Ray instance: turn-based observations
with masks under RLlib's key, each agent's own rewards, the learner seat through
SingleAgentEnv, illegal actions refused and counted, one stream per env copy."""
from __future__ import annotations

import numpy as np
import pytest

from parlor import envs
from parlor.envs.engine.game import ConfigError, IllegalActionError
from tests.training.scripted import FixedAgent, register

register()
pytestmark = pytest.mark.xdist_group("ray")  # RLlib is imported in one xdist worker only (see _rllib)


@pytest.fixture(autouse=True, scope="module")
def _rllib() -> None:
    """ray.rllib is imported when this module's tests run, not at collection: every xdist
    worker collects every module, and only the one running the "ray" group needs RLlib."""
    global EnvContext, MASK_KEY, OBS_KEY, ParlorMultiAgentEnv
    pytest.importorskip("ray.rllib", reason="the [scale] extra (ray[rllib]) is not installed")
    from ray.rllib.env.env_context import EnvContext

    from parlor.training.learning.rllib_env import MASK_KEY, OBS_KEY, ParlorMultiAgentEnv


def every_seat(name: str, options: dict, seed: int = 0) -> ParlorMultiAgentEnv:
    return ParlorMultiAgentEnv({"env_name": name, "options": options, "opponents": [], "seed": seed})


def highest(obs: dict) -> int:
    return int(np.flatnonzero(obs[MASK_KEY])[-1])


def test_every_seat_acts_in_turn_and_is_paid_its_own_rewards_at_its_next_decision() -> None:
    env = every_seat("ledger_test", {"rounds": 3})
    obs, _ = env.reset(seed=0)
    steps = []
    done = False
    while not done:
        (agent, o), = obs.items()
        obs, rewards, terminated, truncated, _ = env.step({agent: highest(o)})
        steps.append((agent, rewards))
        done = terminated["__all__"] or truncated["__all__"]
    # action a pays the mover +a and the other seat -10a; player_1's -20 from player_0's first
    # move is paid with its first step; at the end both are paid what they earned since
    p0, p1 = "player_0", "player_1"
    assert steps == [(p0, {p0: 2.0}), (p1, {p0: -20.0, p1: -20.0 + 2.0}), (p0, {p0: 3.0, p1: -30.0}),
                     (p1, {p0: -30.0, p1: 3.0}), (p0, {p0: 2.0, p1: -20.0}), (p1, {p0: -20.0, p1: 2.0})]
    assert set(obs) == {p0, p1}  # final observations of every agent that acted


@pytest.mark.parametrize("name,options", [("tonk_v0", {"num_players": 3}), ("buki_v0", {}),
                                          ("tonk_v0", {"num_players": 2, "max_turns": 2, "num_hands": 1})])
def test_every_seat_returns_equal_the_aec_envs_rewards_for_the_same_moves(name, options) -> None:
    env, rng = every_seat(name, options), np.random.default_rng(1)
    for seed in range(4):
        obs, _ = env.reset(seed=seed)
        aec = envs.make_raw(name, **options)  # the same deal through PettingZoo's API
        aec.reset(seed=int(np.random.default_rng(seed).integers(2**63)))
        delivered = dict.fromkeys(env.possible_agents, 0.0)
        expected = {a: aec.rewards[a] for a in env.possible_agents}
        done = False
        while not done:
            (agent, o), = obs.items()
            assert agent == aec.agent_selection and env.observation_spaces[agent].contains(o)
            assert o[MASK_KEY].dtype == np.float32 and (o[MASK_KEY] == aec.observe(agent)["action_mask"]).all()
            action = int(rng.choice(np.flatnonzero(o[MASK_KEY])))
            obs, rewards, terminated, truncated, _ = env.step({agent: action})
            aec.step(action)
            for a in env.possible_agents:
                expected[a] += aec.rewards[a]
            for a, r in rewards.items():
                delivered[a] += r
            done = terminated["__all__"] or truncated["__all__"]
        assert terminated["__all__"] != truncated["__all__"]
        for a in obs:  # the agents that acted: paid exactly what the AEC env paid them
            assert delivered[a] == pytest.approx(expected[a])


def test_learner_seat_mode_is_single_agent_env_with_the_seat_as_agent_id() -> None:
    env = ParlorMultiAgentEnv({"env_name": "ledger_test", "options": {"rounds": 3}, "opponents": [("fixed", 1.0)],
                               "agent_factories": {"fixed": FixedAgent}, "learner_seats": [1], "seed": 0})
    obs, _ = env.reset()
    (agent, o), = obs.items()
    assert agent == "player_1" and set(o) == {OBS_KEY, MASK_KEY}
    total, done = 0.0, False
    while not done:
        obs, rewards, terminated, truncated, _ = env.step({agent: highest(obs[agent])})
        assert set(obs) == set(rewards) == {agent}
        total += rewards[agent]
        done = terminated["__all__"] or truncated["__all__"]
    assert total == 2 + 3 + 2 - 10 * (2 + 3 + 2)  # as test_wrapper's seat-1 learner
    (info,) = env.take_episode_infos()
    assert info == {"raw_return": total, "stats": {"moves": 3.0}, "opponents": {"seat_0": "fixed"}}
    assert env.take_episode_infos() == []


def test_learner_seat_rotates_over_episodes() -> None:
    env = ParlorMultiAgentEnv({"env_name": "tonk_v0", "options": {"num_players": 3}, "opponents": [("heuristic", 1.0)]})
    seen = []
    for _ in range(6):
        obs, _ = env.reset()
        seen.append(next(iter(obs)))
    assert seen == ["player_0", "player_1", "player_2"] * 2


def test_an_action_outside_the_mask_raises_naming_the_legal_ones_and_is_counted() -> None:
    env = every_seat("ledger_test", {"rounds": 2})
    obs, _ = env.reset(seed=0)
    (agent, o), = obs.items()
    with pytest.raises(IllegalActionError, match=r"legal actions: 0 \(take 0\), 2 \(take 2\)"):
        env.step({agent: 1})
    assert env.illegal_actions == 1
    with pytest.raises(ValueError, match="for 'player_0'"):
        env.step({"player_1": 0})


def test_shaping_and_guards_need_the_learner_in_one_seat() -> None:
    with pytest.raises(ConfigError, match="shaping: need the learner in one seat"):
        ParlorMultiAgentEnv({"env_name": "tonk_v0", "options": {}, "opponents": [], "shaping": {"drop": -1.0}})


def test_every_seat_deals_a_stacked_deck_as_the_aec_adapter_does() -> None:
    env = every_seat("kuhn_test", {})
    for deck, paid in (("K J Q", {"player_0": 2.0, "player_1": -2.0}), ("J K Q", {"player_0": -2.0, "player_1": 2.0})):
        obs, _ = env.reset(options={"deck": deck})
        (agent, _), = obs.items()
        obs, rewards, *_ = env.step({agent: 1})  # seat 0 bets
        (agent, _), = obs.items()
        _, rewards, terminated, *_ = env.step({agent: 1})  # seat 1 calls: the higher card wins 2
        assert terminated["__all__"] and rewards == paid
    with pytest.raises(ConfigError, match="unknown reset option"):
        env.reset(options={"dekc": "K J Q"})


def test_every_seat_refuses_the_adapters_render_mode_as_the_learner_seat_does() -> None:
    for opponents in ([], [("random", 1.0)]):
        with pytest.raises(ConfigError, match=r"\['render_mode'\] belong to the AEC adapter"):
            ParlorMultiAgentEnv({"env_name": "tonk_v0", "options": {"render_mode": "ansi"}, "opponents": opponents})


def test_env_copies_deal_from_their_own_streams() -> None:
    def first_obs(worker: int, vector: int) -> np.ndarray:
        env = ParlorMultiAgentEnv(EnvContext({"env_name": "tonk_v0", "options": {}, "opponents": [], "seed": 3},
                                             worker_index=worker, vector_index=vector))
        obs, _ = env.reset()
        return next(iter(obs.values()))[OBS_KEY]

    assert (first_obs(1, 0) == first_obs(1, 0)).all()
    assert not (first_obs(1, 0) == first_obs(1, 1)).all()
    assert not (first_obs(1, 0) == first_obs(2, 0)).all()


class FakeRunnerGroup:
    """foreach_env_runner as RLlib's EnvRunnerGroup answers it: the local runner (index 0,
    no envs next to remote ones) and two remote runners, the second restarted without snapshots."""

    def __init__(self):
        self.sent: list[tuple[str, list[int] | None]] = []

    def foreach_env_runner(self, func, remote_worker_ids=None, local_env_runner=True):
        if getattr(func, "func", None) is not None:  # a snapshot broadcast (functools.partial)
            self.sent.append((func.keywords["name"], remote_worker_ids))
            return []
        env = {"infos": [{"raw_return": 1.0}], "illegal_actions": 0}
        return [{"runner": 0, "envs": []}, {"runner": 1, "envs": [{**env, "snapshots": 2}]},
                {"runner": 2, "envs": [{**env, "snapshots": 0}]}]


def test_a_runner_restarted_without_snapshots_gets_the_newest_again(tmp_path) -> None:
    from types import SimpleNamespace

    from parlor.training.learning.rllib_train import RunnerEnvs

    group = FakeRunnerGroup()
    envs = RunnerEnvs.__new__(RunnerEnvs)  # only its snapshot bookkeeping: no vector env needed
    envs.algo, envs.snapshots = SimpleNamespace(env_runner_group=group), []
    for name in ("a.zip", "b.zip", "c.zip"):
        (tmp_path / name).write_bytes(name.encode())
        envs.snapshots.append(str(tmp_path / name))
    report = envs.report(keep=2)
    assert group.sent == [("b.zip", [2]), ("c.zip", [2])]
    assert report == {"infos": [{"raw_return": 1.0}] * 2, "illegal_actions": 0}


@pytest.mark.parametrize("name", sorted(envs.ENVS))
@pytest.mark.parametrize("opponents", [[], [("random", 1.0)]], ids=["every seat", "learner seat"])
def test_every_parlor_env_plays_through_the_adapter_with_masks(name, opponents) -> None:
    env = ParlorMultiAgentEnv({"env_name": name, "options": {}, "opponents": opponents, "seed": 0})
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=0)
    done, steps = False, 0
    while not done:
        (agent, o), = obs.items()
        assert env.observation_spaces[agent].contains(o) and o[MASK_KEY].any()
        obs, rewards, terminated, truncated, _ = env.step({agent: int(rng.choice(np.flatnonzero(o[MASK_KEY])))})
        assert all(isinstance(r, float) for r in rewards.values())
        done, steps = terminated["__all__"] or truncated["__all__"], steps + 1
    assert steps > 0 and env.illegal_actions == 0


@pytest.mark.parametrize("opponents", [[("random", 1.0)], []], ids=["learner seat", "every seat"])
def test_observations_are_fresh_arrays_whatever_the_game_hands_out(opponents) -> None:
    # LeanEnvRunner turns off the vector env's deep copy on this promise: a game that hands out
    # one buffer it overwrites (allowed by Game.observe) must not change what was returned before
    env = ParlorMultiAgentEnv({"env_name": "tonk_v0", "options": {"num_players": 2}, "opponents": opponents, "seed": 0})
    game = env.inner.game if env.inner is not None else env.game
    buffer = np.zeros(game.observation_shape, np.float32)

    def observe(state, player):
        buffer[:] = game_observe(state, player)
        return buffer

    game_observe, game.observe = game.observe, observe
    obs, _ = env.reset(seed=1)
    seen = []
    for _ in range(12):  # across an episode's end in the learner seat (a new one is reset)
        (agent, o), = obs.items()
        seen.append((o, o[OBS_KEY].copy(), o[MASK_KEY].copy()))
        obs, _, terminated, truncated, _ = env.step({agent: highest(o)})
        if terminated["__all__"] or truncated["__all__"]:
            obs, _ = env.reset()
    buffer[:] = -1.0
    assert len({id(o) for o, _, _ in seen}) == len(seen)
    for o, values, mask in seen:
        assert not np.shares_memory(o[OBS_KEY], buffer)
        assert np.array_equal(o[OBS_KEY], values) and np.array_equal(o[MASK_KEY], mask)
