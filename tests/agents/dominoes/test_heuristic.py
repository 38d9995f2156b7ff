"""Baseline agents for the three domino games."""
from __future__ import annotations

import numpy as np
import pytest

from parlor.agents.dominoes.heuristic import AlwaysMaxBettor, AlwaysMinBettor, DominoesHeuristic
from parlor.envs.dominoes.austrian import game as austrian
from parlor.envs.dominoes.buki import game as buki
from parlor.envs.dominoes.pulle import game as pulle
from parlor.training.evaluation import EvalConfig, evaluate
from tests.dominoes.helpers import BUKI_BLOCK_SEAT2, play


@pytest.mark.parametrize("make,options", [(buki.make_game, {"num_deals": 2, "raise_before_4th": True}),
                                          (pulle.make_game, {"buy_back": True, "max_deals": 8}),
                                          (austrian.make_game, {"mode": "draw", "num_players": 3})])
def test_heuristic_plays_legal_actions_to_the_end(make, options):
    game = make(**options)
    agents = [DominoesHeuristic(game, seed=s) for s in range(game.num_players)]
    for seed in range(3):
        state = game.new_state(np.random.default_rng(seed))
        while not (state.is_terminal() or state.is_truncated()):
            p = state.current_player
            view = state.view(p)
            mask = state.legal_mask()
            a = agents[p].act(game.encode(view), mask, view)
            assert mask[a]
            state.apply(a)


def test_heuristic_leads_a_heavy_tile_keeping_variety():
    game = buki.make_game()
    state = game.new_state(np.random.default_rng(0), [BUKI_BLOCK_SEAT2])
    state.apply(game.LATER)
    view = state.view(1)
    a = DominoesHeuristic(game).act(game.encode(view), state.legal_mask(), view)
    # hand 0-2 5-8 4-6 3-6 4-5 2-6: 4-6 (10 pips) keeps seven numbers and both ends followable
    assert a == play("4-6")


def test_fixed_bettors_bet_min_or_max_at_once():
    game = buki.make_game()
    for agent, amount in [(AlwaysMinBettor(game), 2), (AlwaysMaxBettor(game), 6)]:
        state = game.new_state(np.random.default_rng(0), [BUKI_BLOCK_SEAT2])
        view = state.view(1)
        assert agent.act(game.encode(view), state.legal_mask(), view) == game.bet_id(amount)


def test_heuristic_wins_more_chips_than_random_as_a_non_banker():
    # each bettor alone in seat 1, 2 or 3 against a heuristic table, on the same deals
    config = EvalConfig(env="buki_v0", agents=("heuristic", "random"), field="heuristic", seats=(1, 2, 3), games=60)
    heuristic_minus_random = evaluate(config)["paired"][0]
    assert heuristic_minus_random["agent"] == "heuristic" and heuristic_minus_random["mean"] > 0
