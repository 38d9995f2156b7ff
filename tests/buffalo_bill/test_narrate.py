"""Buffalo Bill table talk: exchanges named by the cards thrown and drawn, scoring by line and
value, and the final sheet explained with what the reward option pays."""
from __future__ import annotations

import io

import numpy as np

from parlor.agents.human import HumanAgent
from parlor.envs.buffalo_bill.encode import exchange_action, score_action
from parlor.envs.buffalo_bill.game import make_game
from parlor.envs.engine.cards import parse_cards
from parlor.envs.engine.presenter import presenter_for


def start(top: str, **options):
    game = make_game(**options)
    head = parse_cards(top)
    deck = head + tuple(c for c in game.deck if c not in head)
    return game, game.new_state(np.random.default_rng(0), [deck])


def test_exchanges_are_listed_typed_and_told_as_cards() -> None:
    game, state = start("2c 3c 4c 5c 6c 7d 8d 9d Td Jd Qh Kh", num_players=2)
    view = state.view(0)
    action = exchange_action([1, 3])
    assert presenter_for(game).move_name(view, action) == "exchange 3♣ 5♣ (free)"
    human = HumanAgent(game, io.StringIO(), io.StringIO())
    legal = [int(a) for a in np.flatnonzero(state.legal_mask())]
    assert human.parse("5c 3c", legal, view) == (action, "")
    before = state.view(1)
    state.apply(action)
    assert presenter_for(game).describe_move(before, state.view(1), 0, action) == "exchanges 3♣ 5♣ for Q♥ K♥"


def test_scoring_names_the_line_and_value_and_the_end_explains_the_reward() -> None:
    game, state = start("Ac Ad Kc Kd 2h 3c 3d 9h 9s 4c 5c 5d 6h 6s 7c", num_players=3, sheet=["two pair"])
    view = state.view(0)
    assert presenter_for(game).move_name(view, score_action(0)) == "score two pair (line 0) for 42"
    assert presenter_for(game).explain(view) == ""
    for seat in range(3):
        before = state.view(0)
        state.apply(score_action(0))
        if seat == 0:
            assert presenter_for(game).describe_move(before, state.view(0), 0, score_action(0)) == \
                "scores A♣ A♦ K♣ K♦ 2♥ as two pair (line 0): 42"
    assert presenter_for(game).explain(state.view(2)) == ("game over: totals P0 42, P1 24, P2 22; P0 has the best total, 18 ahead "
                                           "(reward: own total minus the best other total)")
