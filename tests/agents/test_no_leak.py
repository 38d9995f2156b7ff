"""Agents never see more than their view: on two states that differ only in hidden
information (the second made with ``state.determinize(player, rng)``), every agent of
every registered game acts the same for the same seed."""
from __future__ import annotations

import numpy as np
import pytest

from parlor import envs
from parlor.agents.episodes import decide
from parlor.agents.registry import agent_names, make_agent
from tests.harness import kuhn

SEARCH_SPEC = "search:4"  # small budget: the point is what the agent sees, not how well it plays
DECISIONS = 3              # decision points per game where the twins are compared


def agent_specs(env_name: str) -> list[str]:
    names = [n for n in agent_names(env_name) if not n.startswith("ppo:")]
    return [SEARCH_SPEC if n == "search" else n for n in names]


CASES = [(name, spec) for name in envs.ENVS for spec in agent_specs(name)]
CASES += [("kuhn_test", "random"), ("kuhn_test", "search:16:random")]


def game_for(env_name: str):
    return kuhn.make_game() if env_name == "kuhn_test" else envs.make_game(env_name)


def decision_points(game, seed: int):
    """States where the player to move has a real choice, picked at random along random playouts."""
    rng = np.random.default_rng(seed)
    found = []
    for episode in range(20):
        state = game.new_state(np.random.default_rng(seed * 100 + episode))
        choices = []
        while not (state.is_terminal() or state.is_truncated()) and len(choices) < 60:
            legal = np.flatnonzero(state.legal_mask())
            if legal.size > 1:
                choices.append(state.clone())
            state.apply(int(legal[rng.integers(legal.size)]))
        if choices:
            found.append(choices[int(rng.integers(len(choices)))])
        if len(found) == DECISIONS:
            break
    return found


def act(game, env_name, spec, state, seed):
    agent = make_agent(spec, game, seed=seed)
    agent.reset(seed=seed)
    return decide(agent, game, state, state.current_player)


@pytest.mark.parametrize("env_name,spec", CASES, ids=[f"{e}-{s}" for e, s in CASES])
def test_agent_acts_the_same_on_states_differing_only_in_hidden_information(env_name: str, spec: str) -> None:
    game = game_for(env_name)
    points = decision_points(game, seed=7)
    assert points, f"{env_name}: random play found no decision with a choice"
    for i, state in enumerate(points):
        p = state.current_player
        twin = state.determinize(p, np.random.default_rng(1000 + i))
        np.testing.assert_array_equal(game.encode(twin.view(p)), game.encode(state.view(p)))
        for seed in (11, 12):
            assert act(game, env_name, spec, state, seed) == act(game, env_name, spec, twin, seed), (
                f"{spec} on {env_name} acted differently on states that differ only in hidden information"
            )


def test_the_twin_check_detects_an_agent_that_sees_hidden_cards() -> None:
    # a search fed the true state (clone) instead of a determinization acts on the hidden
    # card: holding Q facing a bet it calls against J and folds against K
    game = kuhn.make_game()
    actions = set()
    for opponent_card in (0, 2):
        state = game.new_state(np.random.default_rng(0), decks=[(opponent_card, 1, 2 - opponent_card)])
        state.apply(1)
        agent = make_agent("search:16:random", game, seed=3)
        view = state.view(1)
        actions.add(agent.act(game.encode(view), state.legal_mask().astype(np.int8), view, sample_world=lambda rng, state=state: state.clone()))
    assert actions == {0, 1}
