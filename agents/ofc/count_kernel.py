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
    masks = np.empty(RANKS, dtype=np.int64)
    planes = np.empty(PLANES, dtype=np.int64)
    c = np.empty(RANKS, dtype=np.int64)
    for b in range(boards):
        tb, mb, wb = top[b], middle[b], bottom[b]
        used = 0   # the planes a count reaches (the rest are 0: skipped)
        for p in range(PLANES):
            planes[p] = 0
        for k in range(RANKS):
            c[k] = np.int64(counts[b, k])
            masks[k] = 0
            for p in range(PLANES):
                if (c[k] >> p) & 1:
                    planes[p] |= 1 << k
                    if p >= used:
                        used = p + 1
        for k in range(RANKS):   # H: a pair of ranks fouls both ways round (one test per pair)
            for q in range(k, RANKS):
                mid = grids[mb, k, q]
                if not (grids[tb, k, q] > mid or mid > grids[wb, k, q]):
                    continue
                mid = grids[mb, q, k]
                if grids[tb, q, k] > mid or mid > grids[wb, q, k]:
                    masks[k] |= 1 << q
                    masks[q] |= 1 << k
        total = 0
        for i in range(RANKS):
            if c[i] == 0:
                continue
            row = masks[i]
            for j in range(i, RANKS):   # H symmetric: the pair (j, i) counts as (i, j)
                if c[j] == 0 or not (row >> j) & 1:
                    continue
                common = row & masks[j]   # ranks k with H_ik and H_jk
                weight = 0
                for p in range(used):
                    weight += popcount[common & planes[p]] << p
                if j == i:
                    total += c[i] * c[i] * weight
                else:
                    total += 2 * c[i] * c[j] * weight   # sum_k c_i H_ij c_j H_jk c_k H_ki
        for k in range(RANKS):   # the diagonal's corrections
            if (masks[k] >> k) & 1:
                degree = 0
                for p in range(used):
                    degree += popcount[masks[k] & planes[p]] << p   # (H c)_k
                total += c[k] * (2 - 3 * degree)
        out[b] = total
    return out
