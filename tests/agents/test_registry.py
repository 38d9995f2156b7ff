"""Agents by name: the registry, lazy heuristics, search specs and the ppo:<zip> loader."""
from __future__ import annotations

import numpy as np
import pytest

from parlor import envs
from parlor.agents import registry
from parlor.agents.base import RandomAgent
from parlor.agents.search import AgentRollout, RandomRollout, SearchAgent
from tests.agents.kuhn_agents import KuhnRule
from tests.harness import kuhn

GAME = kuhn.make_game()


def test_random_and_class_path_specs() -> None:
    assert isinstance(registry.make_agent("random", GAME), RandomAgent)
    assert isinstance(registry.make_agent("tests.agents.kuhn_agents:KuhnRule", GAME), KuhnRule)


def test_unknown_agent_names_the_available_ones() -> None:
    with pytest.raises(ValueError, match="available: random, search"):
        registry.make_agent("genius", GAME)
    with pytest.raises(ValueError, match="unknown agent 'genius' for tonk_v0; available: random, heuristic"):
        registry.make_agent("genius", envs.make_game("tonk_v0"))


def test_search_spec_budget_rollout_and_horizon() -> None:
    agent = registry.make_agent("search:12:random:reward", GAME, seed=3)
    assert isinstance(agent, SearchAgent)
    assert (agent.budget, agent.horizon) == (12, "reward")
    assert isinstance(agent.policy, RandomRollout)
    default = registry.make_agent("search", GAME)
    assert default.budget == registry.DEFAULT_SEARCH_BUDGET and isinstance(default.policy, RandomRollout)
    for bad, words in [("search:0", "budget"), ("search:x", "budget"), ("search:8:greedy", "rollout"),
                       ("search:8:random:forever", "horizon"), ("search:8:heuristic", "no heuristic")]:
        with pytest.raises(ValueError, match=words):
            registry.make_agent(bad, GAME)


def test_every_registered_env_has_a_heuristic_in_the_table() -> None:
    assert set(envs.ENVS) <= set(registry.HEURISTICS)
    for name in envs.ENVS:
        assert "heuristic" in registry.agent_names(name)


def test_extra_names_only_exist_for_their_game() -> None:
    assert {"always_min", "always_max"} <= set(registry.agent_names("buki_v0"))
    assert "montecarlo" in registry.agent_names("buffalo_bill_v0")
    assert "always_min" not in registry.agent_names("tonk_v0")
    assert "montecarlo (buffalo_bill_v0)" in registry.agent_names()


def test_a_missing_game_module_breaks_only_its_own_names(monkeypatch) -> None:
    monkeypatch.setitem(registry.HEURISTICS, "kuhn_test", "parlor.agents.no_such_module:Nothing")
    with pytest.raises(ModuleNotFoundError):
        registry.make_agent("heuristic", GAME)
    assert isinstance(registry.make_agent("random", GAME), RandomAgent)


def test_search_with_heuristic_rollouts_uses_the_games_heuristic(monkeypatch) -> None:
    monkeypatch.setitem(registry.HEURISTICS, "kuhn_test", "tests.agents.kuhn_agents:KuhnRule")
    agent = registry.make_agent("search", GAME, seed=0)
    assert isinstance(agent.policy, AgentRollout)
    assert all(isinstance(a, KuhnRule) for a in agent.policy.agents)


@pytest.mark.parametrize("env_name", envs.ENVS)
def test_heuristic_and_extras_load_lazily_for_each_game(env_name: str) -> None:
    game = envs.make_game(env_name)
    for name in registry.agent_names(env_name):
        if name.startswith("ppo:"):
            continue
        agent = registry.make_agent(name, game, seed=0)
        agent.reset(seed=1)
        assert callable(agent.act)


# ---------------------------------------------------------------- ppo:<zip>
def test_ppo_zip_plays_only_legal_actions_and_always_checks_the_signature(tmp_path) -> None:
    pytest.importorskip("sb3_contrib")
    from tests.agents.policy_files import tiny_policy

    path = tiny_policy(tmp_path / "kuhn.zip", GAME)
    agent = registry.make_agent(f"ppo:{path}", GAME)
    obs = np.zeros(GAME.observation_shape, np.float32)
    for mask in ([1, 0], [0, 1]):
        assert agent.act(obs, np.array(mask, np.int8), None) == mask.index(1)
    other = kuhn.make_game()
    other.name = "other_v0"  # the same game under another env id: the policy's env does not match
    with pytest.raises(ValueError, match="env: trained on 'kuhn_test', loading into 'other_v0'"):
        registry.make_agent(f"ppo:{path}", other)
    with pytest.raises(FileNotFoundError, match="no policy file"):
        registry.make_agent(f"ppo:{tmp_path / 'missing.zip'}", GAME)
