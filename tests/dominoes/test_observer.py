"""The domino observer learns what changed from the rules' events (a deal ends, a raise is
offered or answered, a buy-back answered, a turn begins, a bet is placed) and keeps the
fast observation equal to ``encode(view)`` through each of them, for every seat."""
from __future__ import annotations

from typing import Any

import numpy as np

from parlor.envs.dominoes.buki.game import make_game as buki
from parlor.envs.dominoes.line import PASS
from parlor.envs.dominoes.pulle.game import make_game as pulle
from parlor.envs.dominoes.pulle.state import BUY, NO_BUY
from parlor.envs.dominoes.state import DominoState
from tests.dominoes.helpers import BLOCK_LINE, BUKI_BLOCK_SEAT2, pass_until_done
from tests.dominoes.test_pulle import PULLE_BLOCK


def same_as_encode(game: Any, state: Any) -> None:
    for p in range(game.num_players):
        np.testing.assert_array_equal(game.observe(state, p), game.encode(state.view(p)), err_msg=f"seat {p}")


def apply_checked(game: Any, state: Any, *actions: int) -> None:
    for a in actions:
        state.apply(a)
        same_as_encode(game, state)


def test_the_rules_flag_nothing_for_the_observer() -> None:
    # the observer knows which events change the tail; the rules only tell it what happened
    assert not hasattr(DominoState, "_tail_changed")


def test_buki_raise_offered_and_answered_and_bets_placed_reach_the_observation() -> None:
    game = buki(raise_before_4th=True)
    state = game.new_state(np.random.default_rng(0), [game.parse_deck(BUKI_BLOCK_SEAT2)])
    same_as_encode(game, state)
    apply_checked(game, state, game.bet_id(2), BLOCK_LINE[0], game.bet_id(2), BLOCK_LINE[1],
                  game.LATER, BLOCK_LINE[2], PASS)
    apply_checked(game, state, game.bet_id(5))  # seat 1 asks to raise to 5
    assert state.phase == "accept" and state.current_player == game.config.banker
    apply_checked(game, state, game.REFUSE, PASS, game.bet_id(6))  # refused; seat 2 asks for 6
    apply_checked(game, state, game.ACCEPT)
    assert state.bets[2] == 6 and state.phase == "tile"
    apply_checked(game, state, PASS, game.bet_id(2), PASS)  # seat 3 bets; the deal ends blocked
    assert state.deal_index == 1


def test_pulle_buy_backs_and_the_deal_end_reach_the_observation() -> None:
    game = pulle(buy_back=True)
    state = game.new_state(np.random.default_rng(0), [PULLE_BLOCK, PULLE_BLOCK])
    state.totals = [2, 31, 3, 3]  # running totals as if from earlier deals (the tail learns them at the deal's end)
    for a in BLOCK_LINE:
        state.apply(a)
    pass_until_done(state)
    same_as_encode(game, state)  # the deal ended: totals, pool and the buy-back question
    assert state.phase == "buy_back" and state.current_player == 0
    apply_checked(game, state, NO_BUY, BUY)
    assert state.totals[1] == 54 and state.phase == "tile"


def test_the_last_deals_end_reaches_the_final_observation() -> None:
    # no new deal follows to refill the tail: the deal's end itself must (chips, bets settled)
    game = buki(num_deals=1)
    state = game.new_state(np.random.default_rng(0), [game.parse_deck(BUKI_BLOCK_SEAT2)])
    apply_checked(game, state, game.bet_id(2), BLOCK_LINE[0], game.bet_id(3), BLOCK_LINE[1],
                  game.LATER, BLOCK_LINE[2])
    pass_until_done(state)
    assert state.is_terminal()
    same_as_encode(game, state)
