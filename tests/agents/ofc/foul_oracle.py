"""The two-slot foul count in array operations: the test oracle of the one compiled count
(``parlor.agents.ofc.count_kernel``), as the count was written before it was compiled.

- :func:`card_graph_risks`: over the unseen cards, ``trace(G^3) / 6`` of the graph of
  fouling pairs by a batched float32 matrix product (every count below ``n**3 < 2**24``:
  exact), the card's pairs with itself masked off;
- :func:`rank_graph_risks`: over the 13 ranks, ``trace((HC)^3) - 3 sum_k c_k H_kk (Hc)_k +
  2 sum_k c_k H_kk`` by matrix products.

Integers throughout, so the kernel's probabilities equal these bit for bit.
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np

from parlor.agents.ofc.two_slots import slot_ranks
from parlor.envs.ofc_outlook.rollouts import TOP

RANKS = 13
_ONES = np.ones(RANKS, dtype=np.float32)


def card_graph_risks(room: tuple[int, int, int], tables: Sequence[Sequence], n: int) -> list[float]:
    """Foul probabilities of boards whose free slots are ``room`` (two in all) against ``n``
    unseen cards, each board given by its rows' :func:`row_table` (top, middle, bottom)."""
    slots, ranks = slot_ranks(room, tables)
    fouled = (ranks[TOP] > ranks[1]) | (ranks[1] > ranks[2])
    if slots[0] != slots[1]:
        fouled &= fouled.transpose(0, 2, 1)   # a pair fouls both ways round
    fouled &= _off_diagonal(n)   # a card pairs with no copy of itself
    g = fouled.astype(np.float32)
    counts = ((g @ g) * g).sum(axis=(1, 2))   # trace(G^3) per board: integers < n**3, exact in float32
    deals = n * (n - 1) * (n - 2) / 6.0
    return [(c / 6.0) / deals for c in counts.tolist()]


@cache
def _off_diagonal(n: int) -> np.ndarray:
    """bool[n, n], False on the diagonal, built once per ``n``; read-only."""
    mask = ~np.eye(n, dtype=bool)
    mask.flags.writeable = False
    return mask


def rank_graph_risks(top: np.ndarray, middle: np.ndarray, bottom: np.ndarray, counts: np.ndarray,
                     n: int) -> list[float]:
    """Foul probabilities of boards from their rows' ranks over the 13x13 grid of the two
    free slots' card ranks (arrays broadcasting to [B, 13, 13]) and the unseen cards per
    rank ([B, 13]) of ``n`` unseen cards."""
    fouled = (top > middle) | (middle > bottom)
    fouled &= fouled.transpose(0, 2, 1)   # a pair fouls both ways round (a pair table is symmetric already)
    a = np.multiply(fouled, counts[:, None, :], dtype=np.float32)   # A = H C
    # trace(A^3) - 3 sum_k c_k H_kk (H c)_k + 2 sum_k c_k H_kk, with c_k H_kk = A_kk and
    # (H c)_k = (A 1)_k; every entry of A, A^2, A^3 and every sum an integer below 2**24
    # (A^3's trace is at most n**3): exact in float32 in any order of summation (the sums
    # along an axis by matmul and einsum: a reduce over 13 is slower)
    degrees = np.matmul(a.reshape(-1, RANKS), _ONES).reshape(len(a), RANKS)   # (A 1)_k, one matrix-vector product
    counted = (np.einsum("bii->b", np.matmul(np.matmul(a, a), a))
               + np.einsum("bk,bk->b", a.diagonal(axis1=1, axis2=2), 2.0 - 3.0 * degrees))
    deals = n * (n - 1) * (n - 2) / 6.0
    return ((counted.astype(np.float64) / 6.0) / deals).tolist()   # as the card-level count divides
