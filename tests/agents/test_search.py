"""The determinized Monte Carlo search agent on the Kuhn test game (exact values known)."""
from __future__ import annotations

import numpy as np
import pytest

from parlor.agents import episodes
from parlor.agents.base import RandomAgent
from parlor.agents.episodes import play_episode
from parlor.agents.search import AgentRollout, RandomRollout, SearchAgent, rollout
from tests.agents.kuhn_agents import KuhnRule
from tests.harness import kuhn

GAME = kuhn.make_game()


def decide(agent, state):
    return episodes.decide(agent, GAME, state, state.current_player)


def state_after(history, cards):
    state = GAME.new_state(np.random.default_rng(0), decks=[tuple(cards) + tuple({0, 1, 2} - set(cards))])
    for a in history:
        state.apply(a)
    return state


def test_search_calls_with_the_king_and_folds_the_jack_facing_a_bet() -> None:
    # player 1 faces a bet: calling with K wins 2 for sure; with J calling loses 2, folding loses 1
    agent = SearchAgent(GAME, seed=0, budget=64)
    assert decide(agent, state_after([1], cards=(0, 2))) == 1
    assert agent.last_values[1] == pytest.approx(2.0)
    assert decide(agent, state_after([1], cards=(2, 0))) == 0
    assert agent.last_values[0] == pytest.approx(-1.0) and agent.last_values[1] == pytest.approx(-2.0)


def test_search_values_average_over_the_hidden_card() -> None:
    # player 0 holds Q and checks; player 1 bets: calling wins 2 against J, loses 2 against K
    agent = SearchAgent(GAME, seed=1, budget=400, allocation="uniform")
    decide(agent, state_after([0, 1], cards=(1, 0)))
    assert agent.last_values[1] == pytest.approx(0.0, abs=0.35)
    assert agent.last_values[0] == pytest.approx(-1.0)


def test_search_beats_random_play() -> None:
    search, rnd = SearchAgent(GAME, budget=32), RandomAgent(GAME)
    total = 0.0
    for ep in range(200):
        seats = [search, rnd] if ep % 2 == 0 else [rnd, search]
        result = play_episode(GAME, seats, seed=ep // 2, agent_seeds=[ep, ep + 1000])
        total += result.rewards[ep % 2]
    assert total / 200 > 0.2


def test_same_seed_same_decisions_and_reset_reseeds() -> None:
    state = state_after([0, 1], cards=(1, 0))
    a = SearchAgent(GAME, seed=5, budget=8, allocation="uniform")
    b = SearchAgent(GAME, seed=5, budget=8, allocation="uniform")
    decide(a, state)
    decide(b, state)
    assert a.last_values == b.last_values
    first = dict(a.last_values)
    decide(a, state)
    a.reset(seed=5)
    decide(a, state)
    assert a.last_values == first


def test_one_legal_action_costs_no_rollout() -> None:
    agent = SearchAgent(GAME, seed=0, budget=8)
    mask = np.array([0, 1], dtype=np.int8)

    def never(rng):
        raise AssertionError("no world should be sampled for a forced move")

    assert agent.act(None, mask, None, sample_world=never) == 1


def test_search_needs_sample_world_and_a_valid_budget() -> None:
    with pytest.raises(ValueError, match="sample_world"):
        SearchAgent(GAME, seed=0).act(None, np.array([1, 1], dtype=np.int8), None)
    with pytest.raises(ValueError, match="budget"):
        SearchAgent(GAME, budget=0)
    with pytest.raises(ValueError, match="allowed values"):
        SearchAgent(GAME, allocation="greedy")
    with pytest.raises(ValueError, match="allowed values"):
        SearchAgent(GAME, horizon="forever")


def rule_search(budget: int, seed: int = 0) -> SearchAgent:
    policy = AgentRollout(GAME, lambda s: KuhnRule(GAME, seed=s), name="rule")
    return SearchAgent(GAME, seed=seed, budget=budget, rollout=policy)


def test_policy_rollouts_keep_the_policy_choice_on_a_tie() -> None:
    # opening with the king against the rule: betting (opponent folds J/Q) and checking
    # (opponent checks J/Q, showdown) both win exactly 1; the rule bets, and a tie
    # must not move the agent to the lower action id
    agent = rule_search(budget=32)
    assert decide(agent, state_after([], cards=(2, 0))) == 1
    assert agent.last_values[0] == agent.last_values[1] == pytest.approx(1.0)


def test_policy_rollouts_leave_the_policy_choice_on_strong_evidence() -> None:
    # opening with the jack against the rule: checking loses 1 for sure, a bluff wins 1
    # against Q (who folds) and loses 2 against K: -0.5 on average, so search bets
    agent = rule_search(budget=200)
    assert decide(agent, state_after([], cards=(0, 1))) == 1
    assert agent.last_values[0] == pytest.approx(-1.0)
    assert agent.last_values[1] == pytest.approx(-0.5, abs=0.4)


def test_rollout_reward_horizon_stops_at_the_first_payment() -> None:
    state = state_after([1], cards=(2, 0))
    assert rollout(state.clone(), 0, RandomRollout(), np.random.default_rng(0), "reward") in (1.0, 2.0)
    assert rollout(state, 0, RandomRollout(), np.random.default_rng(0), "episode") in (1.0, 2.0)
    assert state.is_terminal()


def test_max_candidates_keeps_the_policy_choice_and_samples_the_rest() -> None:
    agent = SearchAgent(GAME, seed=4, budget=8, max_candidates=3)
    legal = list(range(10))
    picked = agent._candidates(legal, default=7)
    assert len(picked) == 3 and 7 in picked and set(picked) <= set(legal)
    assert SearchAgent(GAME, seed=4, budget=8, max_candidates=3)._candidates(legal, default=7) == picked
    assert agent._candidates([1, 2], default=1) == [1, 2]
    assert len(agent._candidates(legal, default=None)) == 3
    with pytest.raises(ValueError, match="max_candidates"):
        SearchAgent(GAME, max_candidates=1)
