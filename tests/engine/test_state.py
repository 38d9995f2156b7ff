"""The base State's plumbing (``parlor.envs.engine.state.RulesState``): ids, trace, rewards,
the end, copies and determinize bookkeeping, on a tiny counting game and on the real games."""
from __future__ import annotations

import copy

import numpy as np
import pytest

from parlor import envs
from parlor.envs.engine.game import IllegalActionError
from parlor.envs.engine.state import RulesState, copy_rng, zero_rewards


class Game:
    num_players = 2

    @staticmethod
    def action_name(a: int) -> str:
        return ("add one", "add two", "stop")[a]


class Count(RulesState):
    """Seats take turns adding 1 or 2; action 2 ends the game and pays the total to the mover."""

    def __init__(self, rng: np.random.Generator, decks=None):
        self._begin(Game(), rng, decks)
        self.total, self.current_player = 0, 0

    def legal_mask(self) -> np.ndarray:
        return np.array([True, True, self.total > 0])

    def _apply_action(self, a: int) -> None:
        if not 0 <= a < 3 or not self.legal_mask()[a]:
            raise self._illegal(a)
        if a == 2:
            row = self._earn()
            row[self.current_player] += self.total
            row[1 - self.current_player] -= self.total
            self._end()
            return
        self.total += a + 1
        self.current_player = 1 - self.current_player

    def _copy_rules(self) -> Count:
        return copy.copy(self)


def test_apply_records_actions_and_takes_numpy_ids_as_plain_ints() -> None:
    state = Count(np.random.default_rng(0))
    state.apply(np.int64(1))
    state.apply(0)
    assert state.trace.actions == [1, 0] and all(type(a) is int for a in state.trace.actions)
    assert state.total == 3 and state.current_player == 0


@pytest.mark.parametrize("bad", [1.0, True, "1", None, np.float32(0), np.bool_(True)])
def test_apply_refuses_what_is_no_integer_with_the_one_message(bad) -> None:
    state = Count(np.random.default_rng(0))
    with pytest.raises(IllegalActionError, match=r"legal actions: 0 \(add one\), 1 \(add two\)$"):
        state.apply(bad)
    assert state.trace.actions == [] and state.total == 0


def test_an_illegal_id_names_the_legal_ones_and_changes_nothing() -> None:
    state = Count(np.random.default_rng(0))
    with pytest.raises(IllegalActionError, match=r"illegal action 2 \(stop\); legal actions: 0 \(add one\), 1 \(add two\)"):
        state.apply(2)
    with pytest.raises(IllegalActionError, match=r"illegal action 7 \(unknown\)"):
        state.apply(7)
    assert state.trace.actions == [] and state.current_player == 0


def test_rewards_are_the_shared_zero_row_until_earned_then_taken_once() -> None:
    state = Count(np.random.default_rng(0))
    zero = state.take_rewards()
    assert zero is zero_rewards(2) and not zero.flags.writeable and zero.dtype == np.float64
    state.apply(1)
    state.apply(2)  # seat 1 stops at 2
    assert state.take_rewards().tolist() == [-2.0, 2.0]
    assert state.take_rewards() is zero_rewards(2)


def test_earn_row_adds_whole_rows_and_never_writes_the_zero_row() -> None:
    state = Count(np.random.default_rng(0))
    state._earn_row([1, -1])
    state._earn_row(np.array([0.5, -0.5]))
    assert state.take_rewards().tolist() == [1.5, -1.5]
    assert zero_rewards(2).tolist() == [0.0, 0.0]


def test_the_end_sets_the_flags_and_refuses_every_later_action() -> None:
    state = Count(np.random.default_rng(0))
    state.apply(0)
    state.apply(2)
    assert state.is_terminal() and not state.is_truncated() and state.current_player is None
    with pytest.raises(IllegalActionError, match="legal actions: none"):
        state.apply(0)
    truncated = Count(np.random.default_rng(0))
    truncated._end(truncated=True)
    assert truncated.is_truncated() and not truncated.is_terminal()


def test_clone_owns_its_generator_trace_and_pending_rewards() -> None:
    state = Count(np.random.default_rng(5))
    state.apply(1)
    state._earn()[0] += 3.0
    new = state.clone()
    assert new.rng is not state.rng and new.rng.integers(1 << 30) == state.rng.integers(1 << 30)
    new.apply(0)
    assert state.trace.actions == [1] and new.trace.actions == [1, 0]
    new._earn()[0] += 1.0
    assert state.take_rewards().tolist() == [3.0, 0.0] and new.take_rewards().tolist() == [4.0, 0.0]


def test_resample_bookkeeping_reseeds_from_rng_and_drops_the_replayable_trace() -> None:
    state = Count(np.random.default_rng(0), decks=[(1, 2), (3, 4)])
    a, b = state.clone(), state.clone()
    a._resample_bookkeeping(np.random.default_rng(9), [(1, 2)])
    b._resample_bookkeeping(np.random.default_rng(9))
    assert not a.trace.replayable and a.decks == [(1, 2)] and b.decks == []
    assert a.rng.integers(1 << 30) == b.rng.integers(1 << 30)
    assert state.trace.replayable and state.decks == [(1, 2), (3, 4)]


def test_copy_rng_plays_on_identically() -> None:
    rng = np.random.default_rng(3)
    rng.integers(10, size=7)
    twin = copy_rng(rng)
    assert twin is not rng and twin.permutation(52).tolist() == rng.permutation(52).tolist()


@pytest.mark.parametrize("env", envs.ENVS)
def test_every_game_state_is_a_rules_state_and_refuses_a_float_id(env: str) -> None:
    game = envs.make_game(env)
    state = game.new_state(np.random.default_rng(0))
    assert isinstance(state, RulesState)
    legal = int(np.flatnonzero(state.legal_mask())[0])
    with pytest.raises(IllegalActionError):
        state.apply(float(legal))
    state.apply(np.int64(legal))
    assert state.trace.actions == [legal]


def test_a_state_without_its_rules_cannot_be_built() -> None:
    class NoRules(RulesState):
        def legal_mask(self) -> np.ndarray:
            return np.ones(2, bool)

    with pytest.raises(TypeError, match="_apply_action"):
        NoRules()
