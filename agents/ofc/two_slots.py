"""Exact foul probabilities of OFC boards with two free slots, many boards in one pass.

The last Pineapple turn deals 3 of the ``n`` unseen cards and the seat keeps the 2
that avoid a foul if any pair does. With ``F[i, j]`` "the board fouls with card i in
the first free slot and j in the second", a deal {i, j, k} fouls when every ordered
pair of it does: when i, j, k form a triangle of ``G = F & F.T``. The probability is
``trace(G^3) / 6`` over ``C(n, 3)`` (:mod:`agents.ofc.endgame` builds its estimates
on it).

:func:`layout_risks` judges a batch of boards with the same free slots against the
same unseen cards: the fouled pairs in a few array operations, the triangles by the one
compiled foul count (:mod:`agents.ofc.count_kernel`, each card a class of its own). Each board's rows are ranked against the unseen cards once per content
(:func:`row_table`, memoised in a :data:`RankCache` shared by the boards judged
against the same cards).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from parlor.envs.engine.hands import CARD_KEY, TOP_ROWS, rank3, rank5, rank_from_keys
from parlor.envs.ofc_outlook.rollouts import ROW_SIZES, TOP

RankCache = dict  # (row, cards of the row) -> its rank, or the ranks completed by each unseen card(s)
Table = "int | np.ndarray"


KEYS = "keys"   # key of the unseen cards' evaluator keys in a RankCache


def row_table(cards: tuple[int, ...], row: int, unseen: np.ndarray, cache: RankCache):
    """The row's rank if full, else its rank completed by each unseen card ([n]) or each
    pair of unseen cards ([n, n], symmetric; the diagonal, a card twice, means nothing);
    cached per content. Ranked from the evaluator's card keys: a row's key plus the
    unseen cards' keys (:func:`envs.engine.hands.rank_from_keys`)."""
    key = (row, cards)
    table = cache.get(key)
    if table is None:
        free = ROW_SIZES[row] - len(cards)
        if free == 0:
            table = rank3(cards) if row == TOP else rank5(cards)
        else:
            keys = cache.get(KEYS)
            if keys is None:
                keys = cache[KEYS] = CARD_KEY.take(unseen).astype(np.int64)
            own = int(CARD_KEY.take(list(cards)).sum()) if cards else 0
            sums = own + keys if free == 1 else own + keys[:, None] + keys[None, :]
            table = rank_from_keys(sums, TOP_ROWS if row == TOP else 0).astype(np.int64)
        cache[key] = table
    return table


def slot_ranks(room: tuple[int, int, int], tables: Sequence[Sequence]) -> tuple[list[int], list[np.ndarray]]:
    """The rows of the two free slots (``room``) and per row the boards' rank arrays from
    their rows' tables, shaped to broadcast over the grid of the two slots' cards:
    [B, m, 1] and [B, 1, m] for slots in two rows, the pair table [B, m, m] for two slots
    in one row, [B, 1, 1] for a full row (m: the cards or ranks a slot can take)."""
    slots = [r for r in range(3) for _ in range(room[r])]
    ranks: list = [None, None, None]
    if slots[0] != slots[1]:
        first, second = slots
        ranks[first] = np.array([t[first] for t in tables])[:, :, None]
        ranks[second] = np.array([t[second] for t in tables])[:, None, :]
    else:
        ranks[slots[0]] = np.array([t[slots[0]] for t in tables])   # pair tables [B, m, m]
    for r in range(3):
        if ranks[r] is None:
            ranks[r] = np.array([t[r] for t in tables], dtype=np.int64)[:, None, None]
    return slots, ranks


def layout_risks(room: tuple[int, int, int], tables: Sequence[Sequence], n: int) -> list[float]:
    """Foul probabilities of boards whose free slots are ``room`` (two in all) against ``n``
    unseen cards, each board given by its rows' :func:`row_table` (top, middle, bottom):
    the one foul count (:func:`agents.ofc.count_kernel.fouled_counts`) over a graph of the
    cards, one class per card."""
    _, ranks = slot_ranks(room, tables)
    fouled = (ranks[TOP] > ranks[1]) | (ranks[1] > ranks[2])
    fouled = np.broadcast_to(fouled, (len(tables), n, n))
    kernel = count_kernel()
    return kernel.risks(kernel.fouled_counts(fouled, kernel.single_cards(len(tables), n)), n)


def count_kernel():
    """:mod:`agents.ofc.count_kernel`, imported at the first call: numba only for code that
    judges boards."""
    from parlor.agents.ofc import count_kernel

    return count_kernel
