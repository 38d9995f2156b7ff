"""Exact two-slot foul counts over the 13 card ranks instead of every unseen card.

:mod:`agents.ofc.two_slots` counts the fouling deals of a board with two free slots as
the triangles of a graph ``G`` on the ``n`` unseen cards (``trace(G^3) / 6``). When no
free row can make a flush (a top row, or a 5-card row whose cards already show two
suits) and no joker is in play, a row completed by a card ranks the same whatever the
card's suit: cards of one rank are twins of the graph (the same edges to every other
card, and an edge between two of them when a pair of that rank fouls). The graph is
then ``P H P^T`` less its diagonal, with ``P`` the cards' ranks and ``H`` a 13x13
graph on the ranks, and with ``C = diag(c)`` the unseen cards per rank::

    trace(G^3) = trace((H C)^3) - 3 sum_k c_k H_kk (H c)_k + 2 sum_k c_k H_kk

(expand ``trace((M - E)^3)`` with ``M = P H P^T`` and ``E`` the diagonal ``H_kk`` of
each card's rank). The same integer as the card-level count, from 13x13 arrays in
place of ``n x n`` ones: every probability is bit for bit the one
:func:`agents.ofc.two_slots.layout_risks` gives. Boards whose suits matter (about one
in forty in play) keep the card-level count.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from parlor.envs.engine.cards import JOKER_BASE
from parlor.envs.engine.hands import CARD_KEY, TOP_ROWS, rank3, rank5, rank_from_keys
from parlor.envs.ofc.rollouts import ROW_SIZES, TOP

RANKS = 13
CLASSES = "classes"   # key of the unseen cards' count per rank in a RankCache (None with a joker)
MAX_TABLES = 200_000  # rank tables kept before the memo starts afresh (they depend on the row alone)

# A card of each rank (suit 0), and a second one of another suit (1) for the pairs: only
# the rank part of their keys matters in a row that cannot make a flush.
_ONE = CARD_KEY.take(np.arange(RANKS) * 4).astype(np.int64)
_PAIR = _ONE[:, None] + CARD_KEY.take(np.arange(RANKS) * 4 + 1).astype(np.int64)[None, :]
_TABLES: dict[tuple[int, tuple[int, ...]], object] = {}


def suits_matter(row: int, cards: Sequence[int]) -> bool:
    """Whether completing the row can depend on the new cards' suits: a 5-card row with a
    free slot whose cards are all of one suit (a flush to come), or any joker."""
    if any(c >= JOKER_BASE for c in cards):
        return True
    if row == TOP or len(cards) == ROW_SIZES[row]:
        return False
    return len({c % 4 for c in cards}) < 2


def rank_table(row: int, cards: tuple[int, ...]):
    """The row's rank if full, else its rank completed by a card of each rank ([13]) or by
    a pair of cards of each two ranks ([13, 13], symmetric; the diagonal a pair of that
    rank); None when the suits of the new cards matter (:func:`suits_matter`). Memoised:
    it depends on the row alone."""
    key = (row, cards)
    table = _TABLES.get(key, _TABLES)
    if table is _TABLES:
        if len(_TABLES) >= MAX_TABLES:
            _TABLES.clear()
        table = _TABLES[key] = _build(row, cards)
    return table


def _build(row: int, cards: tuple[int, ...]):
    free = ROW_SIZES[row] - len(cards)
    if free == 0:
        return rank3(cards) if row == TOP else rank5(cards)
    if suits_matter(row, cards):
        return None
    own = int(CARD_KEY.take(list(cards)).sum()) if cards else 0
    return rank_from_keys(own + (_ONE if free == 1 else _PAIR), TOP_ROWS if row == TOP else 0)


def rank_counts(unseen: np.ndarray) -> np.ndarray | None:
    """Unseen cards per rank ([13] float64), or None when a joker is among them."""
    if len(unseen) and int(unseen.max()) >= JOKER_BASE:
        return None
    return np.bincount((unseen % 52) // 4, minlength=RANKS).astype(np.float64)


def class_risks(room: tuple[int, int, int], tables: Sequence[Sequence], counts: Sequence[np.ndarray],
                n: int) -> list[float]:
    """Foul probabilities of boards whose free slots are ``room`` (two in all), each given by
    its rows' :func:`rank_table` (none None) and judged against ``n`` unseen cards with
    ``counts`` per rank (:func:`rank_counts`): :func:`agents.ofc.two_slots.layout_risks`'s
    numbers, counted over ranks."""
    slots = [r for r in range(3) for _ in range(room[r])]
    ranks: list = [None, None, None]
    if slots[0] != slots[1]:
        first, second = slots
        ranks[first] = np.array([t[first] for t in tables])[:, :, None]
        ranks[second] = np.array([t[second] for t in tables])[:, None, :]
    else:
        ranks[slots[0]] = np.array([t[slots[0]] for t in tables])   # pair tables [B, 13, 13]
    for r in range(3):
        if ranks[r] is None:
            ranks[r] = np.array([t[r] for t in tables], dtype=np.int64)[:, None, None]
    fouled = (ranks[TOP] > ranks[1]) | (ranks[1] > ranks[2])
    if slots[0] != slots[1]:
        fouled &= fouled.transpose(0, 2, 1)   # a pair fouls both ways round
    h = fouled.astype(np.float64)
    c = np.array(counts)
    hc = h * c[:, None, :]
    # every term an integer below n**3: exact in float64 in any order of summation
    triangles = ((hc @ hc) * hc.transpose(0, 2, 1)).sum(axis=(1, 2))
    diagonal = h.diagonal(axis1=1, axis2=2)
    counted = triangles - (c * diagonal * (3.0 * hc.sum(axis=2) - 2.0)).sum(axis=1)
    deals = n * (n - 1) * (n - 2) / 6.0
    return [(t / 6.0) / deals for t in counted.tolist()]
