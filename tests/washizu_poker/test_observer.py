"""The Washizu observer: the rule steps tell it every event, its targeted writes equal a
rebuild from the state, its check catches an event it was not told, and copies of the
state own their observations."""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from parlor.envs.washizu_poker.game import make_game
from parlor.envs.washizu_poker.observer import WashizuObserver

EVENTS = ("game_dealt", "drew", "washizu_moved", "betting_began", "called", "raised", "dropped", "turn_passed",
          "match_ended")


def _told(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record the name of every event an observer is told (it still writes)."""
    told: list[str] = []
    for name in EVENTS:
        method = getattr(WashizuObserver, name)

        def spy(self, *args, _name=name, _method=method):
            told.append(_name)
            return _method(self, *args)

        monkeypatch.setattr(WashizuObserver, name, spy)
    return told


def _random_steps(state, rng: np.random.Generator, steps: int) -> None:
    for _ in range(steps):
        if state.is_terminal():
            return
        legal = np.flatnonzero(state.legal_mask())
        state.apply(int(legal[rng.integers(legal.size)]))


def test_every_event_is_told_and_its_writes_equal_a_rebuild(monkeypatch: pytest.MonkeyPatch) -> None:
    told = _told(monkeypatch)
    game = make_game(num_players=4, washizu="suit", starting_chips=6, num_games=4)
    for seed in range(6):
        rng = np.random.default_rng(seed)
        state = game.new_state(np.random.default_rng(seed + 10))
        while not state.is_terminal():
            _random_steps(state, rng, 1)
            state.observer.verify(state)  # (rebuilds and compares)
            for p in range(game.num_players):
                np.testing.assert_array_equal(game.observe(state, p), game.encode(state.view(p)))
    assert set(told) == set(EVENTS)


@pytest.mark.parametrize("event", ["called", "raised", "dropped", "drew", "turn_passed", "betting_began"])
def test_an_event_the_observer_misses_fails_the_check(monkeypatch: pytest.MonkeyPatch, event: str) -> None:
    game = make_game(num_players=3, washizu="suit", starting_chips=20)
    monkeypatch.setattr(WashizuObserver, event, lambda self, *args: None)
    with pytest.raises(AssertionError, match="observation parts out of sync"):
        for seed in range(20):
            state = game.new_state(np.random.default_rng(seed))
            rng = np.random.default_rng(seed)
            while not state.is_terminal():
                _random_steps(state, rng, 1)
                state.check_invariants()


def test_a_stale_cell_fails_the_check() -> None:
    game = make_game(num_players=3)
    state = game.new_state(np.random.default_rng(0))
    state.check_invariants()
    state.observer.parts.rows[1, -1] = 0.5  # seat 1's "my turn"
    with pytest.raises(AssertionError, match="observation parts out of sync"):
        state.check_invariants()


@pytest.mark.parametrize("how", ["clone", "pickle", "deepcopy", "determinize"])
def test_a_copy_owns_its_observations(how: str) -> None:
    game = make_game(num_players=3, washizu="suit")
    state = game.new_state(np.random.default_rng(1))
    _random_steps(state, np.random.default_rng(2), 4)
    p = state.current_player
    before = [game.observe(state, q) for q in range(game.num_players)]
    if how == "clone":
        other = state.clone()
    elif how == "pickle":
        other = pickle.loads(pickle.dumps(state))
    elif how == "deepcopy":
        other = copy.deepcopy(state)
    else:
        other = state.determinize(p, np.random.default_rng(3))
    assert other.observer.parts.rows is not state.observer.parts.rows
    np.testing.assert_array_equal(game.observe(other, p), before[p])
    _random_steps(other, np.random.default_rng(4), 6)
    other.check_invariants()
    for q in range(game.num_players):
        np.testing.assert_array_equal(game.observe(state, q), before[q])
    state.check_invariants()
