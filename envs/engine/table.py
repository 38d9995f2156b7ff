"""Seats and turn order: next seat, next active seat, dealer/start rotation."""
from __future__ import annotations

from collections.abc import Sequence


def next_seat(seat: int, num_players: int) -> int:
    return (seat + 1) % num_players


def next_active(seat: int, active: Sequence[bool]) -> int:
    """The next seat clockwise after ``seat`` that is still active (may be ``seat`` itself)."""
    n = len(active)
    for step in range(1, n + 1):
        s = (seat + step) % n
        if active[s]:
            return s
    raise ValueError("no active seat left")


def order_from(start: int, num_players: int, active: Sequence[bool] | None = None) -> list[int]:
    """Seats clockwise from ``start`` (inclusive), skipping inactive ones."""
    seats = [(start + i) % num_players for i in range(num_players)]
    return seats if active is None else [s for s in seats if active[s]]


def relative_seat(seat: int, origin: int, num_players: int) -> int:
    """How many seats clockwise ``seat`` sits from ``origin`` (0 = origin itself)."""
    return (seat - origin) % num_players
