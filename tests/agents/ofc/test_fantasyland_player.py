"""The Fantasyland adapter of the OFC agents: it plays the solved board card by card
through the env, solves once per hand, and re-solves around cards placed otherwise."""
from __future__ import annotations

import numpy as np
import pytest

from parlor.agents.ofc import fantasyland
from parlor.agents.ofc.fantasyland import DEFAULT_STAY_VALUE, FantasylandPlayer, solve
from parlor.envs.ofc.scoring import evaluate_board
from tests.ofc.helpers import hand_script, new_state, run, seq

ACES_ON_TOP = seq("As Ah 2c", "9c 9d 9h 4s 5s", "Kc Qc 8c 6c 3c")
OTHER = seq("3d 4h 5h", "Jc Jd 7h 8h Th", "Ts Js Qd Kd 9s")


def fantasyland_state(seed: int, num_hands: int, fl_stay: str = "trips_fh_quads"):
    """A state at the first decision of seat 0's Fantasyland hand (hand 1, 16 cards progressive)."""
    deck, actions = hand_script({0: ACES_ON_TOP, 1: OTHER}, 2)
    game, state = new_state([deck], num_hands=num_hands, fl_cards="progressive", fl_stay=fl_stay)
    state.rng = np.random.default_rng(seed)   # the Fantasyland hand is shuffled from here
    run(state, actions)
    assert state.current_player == 0 and state.view(0).fantasyland == (True, False)
    return game, state


def place_fantasyland(state, player: FantasylandPlayer, first_action: int | None = None) -> None:
    """Seat 0 places its whole Fantasyland hand (it acts before the regular seat)."""
    while state.current_player == 0:
        action = player.action(state.view(0)) if first_action is None else first_action
        first_action = None
        state.apply(action)


@pytest.mark.parametrize("fl_stay", ["trips_fh_quads", "trips_quads"])
@pytest.mark.parametrize("seed", range(3))
def test_player_places_the_solved_board_and_counts_staying_before_the_last_hand(seed, fl_stay):
    game, state = fantasyland_state(seed, num_hands=3, fl_stay=fl_stay)
    dealt = state.view(0).pending
    assert len(dealt) == 16
    place_fantasyland(state, FantasylandPlayer.for_game(game))
    board = solve(dealt, fl_stay, DEFAULT_STAY_VALUE)
    rows = state.rows[0]
    assert [sorted(r) for r in rows] == [sorted(board.top), sorted(board.middle), sorted(board.bottom)]
    assert sorted(state.discards[0]) == sorted(board.discards) and not evaluate_board(*rows).fouled
    player = FantasylandPlayer.for_game(game)
    while not state.is_terminal():   # hand 2 follows (in Fantasyland again if the board stays): same player
        p = state.current_player
        fl = player.plays(state.view(p)) and p == 0
        state.apply(player.action(state.view(p)) if fl else int(np.flatnonzero(state.legal_mask())[0]))
    assert state.hand_index == 2 and state.in_fl[0] == board.stays
    if state.in_fl[0]:
        assert not evaluate_board(*state.rows[0]).fouled


def test_player_solves_once_per_hand(monkeypatch):
    calls = []
    real = fantasyland.solve
    monkeypatch.setattr(fantasyland, "solve", lambda *a, **k: calls.append(a) or real(*a, **k))
    game, state = fantasyland_state(0, num_hands=2)
    place_fantasyland(state, FantasylandPlayer.for_game(game))
    assert len(calls) == 1 and calls[0][2] == 0.0   # the episode's last hand: staying is worth nothing


def test_player_solves_again_around_a_card_placed_elsewhere():
    game, state = fantasyland_state(1, num_hands=3)
    player = FantasylandPlayer.for_game(game)
    view = state.view(0)
    planned = player.action(view)
    other = next(a for a in np.flatnonzero(state.legal_mask()).tolist() if a != planned)
    card = view.pending[0]
    dealt = view.pending
    place_fantasyland(state, player, first_action=other)
    rows = state.rows[0]
    where = [r for r in range(3) if card in rows[r]]
    assert (where[0] if where else 3) == other
    placed = tuple((card,) if r == other else () for r in range(3))
    best = solve([c for c in dealt if c != card], "trips_fh_quads", DEFAULT_STAY_VALUE, placed,
                 (card,) if other == 3 else ())
    assert [sorted(r) for r in rows] == [sorted(best.top), sorted(best.middle), sorted(best.bottom)]


def test_player_refuses_a_view_outside_fantasyland():
    _, state = new_state([], num_hands=1)
    with pytest.raises(ValueError, match="own Fantasyland turn"):
        FantasylandPlayer().action(state.view(0))


@pytest.mark.parametrize("kwargs, message", [({"fl_stay": "forever"}, "fl_stay"), ({"stay_value": -3}, "stay_value")])
def test_player_refuses_bad_options(kwargs, message):
    with pytest.raises(ValueError, match=message):
        FantasylandPlayer(**kwargs)
