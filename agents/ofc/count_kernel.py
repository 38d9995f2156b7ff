"""The rank-class two-slot foul count, compiled (numba): a batch of boards in one loop nest.

:func:`agents.ofc.rank_classes.rank_graph_risks` counts, per board, the ordered triples of
distinct unseen cards every pair of which fouls, as ``trace((HC)^3) - 3 sum_k c_k H_kk
(Hc)_k + 2 sum_k c_k H_kk`` over the 13x13 rank graph ``H`` and the unseen cards per rank
``c``, in a dozen array operations of a few microseconds each. :func:`graph_counts` does
the same integer arithmetic in one pass: each row of ``H`` a 13-bit mask, the weighted
common neighbours of two ranks summed over the bits of the counts (bit planes and a
popcount table). Integers throughout: the very counts of the array version, which the
tests hold it to. numba compiles it once and caches the machine code beside this file.
"""
from __future__ import annotations

import numba
import numpy as np

RANKS = 13
PLANES = 4   # bits of a rank's count of unseen cards (at most 8 with two decks)
POPCOUNT = np.array([bin(m).count("1") for m in range(1 << RANKS)], dtype=np.int64)


@numba.njit(cache=True, nogil=True)
def graph_counts(grids: np.ndarray, top: np.ndarray, middle: np.ndarray, bottom: np.ndarray,
                 counts: np.ndarray, popcount: np.ndarray) -> np.ndarray:
    """Per board ``b`` (rows' grid ids ``top[b]``, ``middle[b]``, ``bottom[b]`` into
    ``grids`` [N, 13, 13]; ``counts[b]`` its unseen cards per rank, each below 16): the
    ordered triples of distinct unseen cards whose every pair fouls, as int64."""
    boards = top.shape[0]
    out = np.empty(boards, dtype=np.int64)
    fouls = np.empty((RANKS, RANKS), dtype=np.bool_)
    masks = np.empty(RANKS, dtype=np.int64)
    planes = np.empty(PLANES, dtype=np.int64)
    c = np.empty(RANKS, dtype=np.int64)
    for b in range(boards):
        tb, mb, wb = top[b], middle[b], bottom[b]
        for p in range(PLANES):
            planes[p] = 0
        for k in range(RANKS):
            c[k] = np.int64(counts[b, k])
            for p in range(PLANES):
                if (c[k] >> p) & 1:
                    planes[p] |= 1 << k
        for k in range(RANKS):
            for q in range(RANKS):
                mid = grids[mb, k, q]
                fouls[k, q] = grids[tb, k, q] > mid or mid > grids[wb, k, q]
        for k in range(RANKS):   # H: a pair of ranks fouls both ways round
            mask = 0
            for q in range(RANKS):
                if fouls[k, q] and fouls[q, k]:
                    mask |= 1 << q
            masks[k] = mask
        total = 0
        for i in range(RANKS):
            if c[i] == 0:
                continue
            row = masks[i]
            for j in range(RANKS):
                if c[j] == 0 or not (row >> j) & 1:
                    continue
                common = row & masks[j]   # ranks k with H_ik and H_jk (H symmetric)
                weight = 0
                for p in range(PLANES):
                    weight += popcount[common & planes[p]] << p
                total += c[i] * c[j] * weight          # sum_k c_i H_ij c_j H_jk c_k H_ki
        for k in range(RANKS):   # the diagonal's corrections
            if (masks[k] >> k) & 1:
                degree = 0
                for p in range(PLANES):
                    degree += popcount[masks[k] & planes[p]] << p   # (H c)_k
                total += c[k] * (2 - 3 * degree)
        out[b] = total
    return out
