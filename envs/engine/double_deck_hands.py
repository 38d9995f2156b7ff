"""Poker hand ranking for a double deck (Washizu ``extra_deck``, docs/rules.md §3.3), and the
choice of evaluator by deck (:func:`evaluators`).

With two copies of every card a joker in a flush may also stand for the second copy of a
card already in the hand (A-K-Q-2 of spades + joker is the flush A-A-K-Q-2), so a joker
hand never ranks below a hand it can become. That needs its own 5-card table (the one-deck
table of :mod:`parlor.envs.engine.hands` with the flush half raised), built on first use;
the value scale, card keys and checks are those of ``hands``. On every hand without a
joker these evaluators equal ``rank5`` / ``rank5_batch``.
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence

import numpy as np

# the one-deck evaluator's tables and helpers (this module extends it)
from parlor.envs.engine.hands import (
    _CARD_KEY,
    _FLUSH_OFFSET,
    RANK_MASK,
    SUIT_SHIFT,
    TABLE,
    _add_flushes,
    _bad,
    _rank5_batch,
    rank5,
    rank5_batch,
)


@functools.cache
def _double_tables() -> tuple[np.ndarray, list]:
    """The 5-card table for a double deck (jokers in a flush may be twins), built on first
    use: only Washizu's ``extra_deck`` needs it."""
    table = TABLE.copy()
    _add_flushes(table, copies=2)
    return table, table.tolist()


def rank5_double(cards: Sequence[int], _key=_CARD_KEY, _flush=_FLUSH_OFFSET) -> int:
    """:func:`rank5` for a double deck (Washizu ``extra_deck``): a joker in a flush may also
    stand for the second copy of a card already in the hand (A-K-Q-2 of spades + joker is
    the flush A-A-K-Q-2). Equal to :func:`rank5` on every hand without a joker."""
    try:
        a, b, c, d, e = cards
        s = _key[a] + _key[b] + _key[c] + _key[d] + _key[e]
    except (ValueError, TypeError, IndexError):
        raise _bad(cards, 5) from None
    return _double_tables()[1][(s & RANK_MASK) + _flush[s >> SUIT_SHIFT]]


def rank5_double_batch(hands: np.ndarray | Iterable[Sequence[int]]) -> np.ndarray:
    """Vectorized :func:`rank5_double`: integer array [N, 5] of card ids -> int32 array [N]."""
    return _rank5_batch(hands, _double_tables()[0], "rank5_double_batch")


def evaluators(double_deck: bool) -> tuple[Callable[[Sequence[int]], int], Callable[..., np.ndarray]]:
    """``(rank5, rank5_batch)`` for a game's deck: the double-deck pair for a deck with two
    copies of each card (jokers in a flush may be twins), else the one-deck pair."""
    return (rank5_double, rank5_double_batch) if double_deck else (rank5, rank5_batch)


