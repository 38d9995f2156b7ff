"""Resampling what one seat cannot see (``OFCState.determinize``): the other seats' pending
cards and discards, the boards of Fantasyland players until the showdown, the stock and
any later stacked decks are pooled and redealt from an ``rng``; every card the seat saw
stays where it is, so the result depends only on his view and the ``rng``."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from parlor.envs.ofc.state import OFCState


def hidden_slots(state: OFCState, player: int) -> list[tuple[list[int], int]]:
    """(list, index) of every card ``player`` cannot see, in a canonical order."""
    slots = []
    for q in range(state.n):
        if q == player:
            continue
        if q == state.current_player:
            slots += [(state.pending, i) for i in range(state.pend_pos, len(state.pending))]
        slots += [(state.discards[q], i) for i in range(len(state.discards[q]))]
        if state.in_fl[q] and not state.terminal:
            slots += [(row, i) for row in state.rows[q] for i in range(len(row))]
    slots += [(state.stock, i) for i in range(state.stock_pos, len(state.stock))]
    return slots


def determinize(state: OFCState, player: int, rng: np.random.Generator) -> OFCState:
    """A copy of ``state`` where the cards ``player`` cannot see are redealt from ``rng``."""
    new = state.clone()
    slots = hidden_slots(new, player)
    pool = sorted(lst[i] for lst, i in slots)
    order = rng.permutation(len(pool))
    for (lst, i), j in zip(slots, order):
        lst[i] = pool[j]
    new.stock = new.stock[new.stock_pos:]
    new.stock_pos = 0
    new._resample_bookkeeping(rng)
    new.observer.rebuild([new.view(p) for p in range(new.n)])
    return new
