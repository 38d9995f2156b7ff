"""Seats and turn order (envs/engine/table.py)."""
from __future__ import annotations

import pytest

from parlor.envs.engine.table import next_active, next_seat, order_from, relative_seat


def test_next_seat_wraps_clockwise() -> None:
    assert [next_seat(s, 4) for s in range(4)] == [1, 2, 3, 0]


def test_next_active_skips_players_who_are_out() -> None:
    active = [True, False, False, True]
    assert next_active(0, active) == 3
    assert next_active(3, active) == 0
    assert next_active(0, [True, False, False, False]) == 0
    with pytest.raises(ValueError):
        next_active(0, [False] * 3)


def test_order_from_start_player() -> None:
    assert order_from(2, 4) == [2, 3, 0, 1]
    assert order_from(2, 4, [True, True, False, True]) == [3, 0, 1]


def test_relative_seat() -> None:
    assert relative_seat(1, 3, 4) == 2 and relative_seat(3, 3, 4) == 0
