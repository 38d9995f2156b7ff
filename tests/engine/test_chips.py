"""Exact chip accounting (envs/engine/chips.py)."""
from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parlor.envs.engine.chips import Ledger, split_evenly, zero_sum


def test_split_of_seven_chips_between_two_winners_removes_one() -> None:
    assert split_evenly(7, 2) == (3, 1)
    ledger = Ledger([10, 10, 10])
    for p in range(3):
        ledger.to_pot(p, 2)
    ledger.to_pot(0, 1)
    assert ledger.pot == 7
    assert ledger.split_pot([1, 2]) == [3, 3]
    assert ledger.removed == 1 and ledger.balances == [7, 11, 11]
    ledger.check()


def test_buki_two_and_a_half_times_is_exact() -> None:
    ledger = Ledger.equal(2, 100)
    ledger.transfer(0, 1, Fraction(5, 2) * 3)
    assert ledger.balances == [Fraction(185, 2), Fraction(215, 2)]
    ledger.check()


def test_overdraft_and_negative_amounts_raise() -> None:
    ledger = Ledger([1, 0])
    with pytest.raises(ValueError, match="cannot pay"):
        ledger.transfer(0, 1, 2)
    with pytest.raises(ValueError, match="negative"):
        ledger.to_pot(0, -1)
    with pytest.raises(ValueError, match="cannot pay"):
        ledger.pay_from_pot(0, 1)


def test_check_catches_chips_created_from_nothing() -> None:
    ledger = Ledger([5, 5])
    ledger.balances[0] += 1
    with pytest.raises(AssertionError, match="not conserved"):
        ledger.check()


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 4)), max_size=40),
       st.lists(st.integers(0, 3), min_size=1, max_size=4, unique=True))
def test_any_sequence_of_payments_conserves_chips(moves, winners) -> None:
    ledger = Ledger.equal(4, 20)
    for src, dst, amount in moves:
        if amount <= ledger.balances[src]:
            ledger.transfer(src, dst, amount)
            ledger.to_pot(dst, min(amount, ledger.balances[dst]))
    ledger.split_pot(winners)
    ledger.check()
    assert ledger.pot == 0 and 0 <= ledger.removed < len(winners)


def test_zero_sum() -> None:
    assert zero_sum([Fraction(5, 2), -2, Fraction(-1, 2)])
    assert not zero_sum([1, 0])
