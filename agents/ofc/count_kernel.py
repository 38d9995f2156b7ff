"""The rank-class two-slot foul count, compiled (numba): a batch of boards in one loop nest.

:func:`agents.ofc.rank_classes.rank_graph_risks` counts, per board, the ordered triples of
distinct unseen cards every pair of which fouls, as ``trace((HC)^3) - 3 sum_k c_k H_kk
(Hc)_k + 2 sum_k c_k H_kk`` over the 13x13 rank graph ``H`` and the unseen cards per rank
``c``, in a dozen array operations of a few microseconds each. :func:`graph_counts` does
the same integer arithmetic in one pass: each row of ``H`` a 13-bit mask, the weighted
common neighbours of two ranks summed over the bits of the counts (bit planes and a
popcount table). Integers throughout: the very counts of the array version, which the
tests hold it to. :func:`plan_risks` counts a draw layout's boards the same way, gathering
each board's grids itself and dividing as :func:`agents.ofc.rank_classes.rank_risks` does
(one call per batch of draws instead of a dozen array operations around the count). numba
compiles them once and caches the machine code beside this file.
"""
from __future__ import annotations

import numba
import numpy as np

RANKS = 13
PLANES = 4   # bits of a rank's count of unseen cards (at most 8 with two decks)
POPCOUNT = np.array([bin(m).count("1") for m in range(1 << RANKS)], dtype=np.int64)


@numba.njit(cache=True, nogil=True)
def _count_planes(counts: np.ndarray, c: np.ndarray, planes: np.ndarray) -> int:
    """``counts`` (unseen cards per rank) as int64 into ``c`` and as bit planes into
    ``planes`` (bit ``k`` of plane ``p``: bit ``p`` of rank ``k``'s count); the number of
    planes a count reaches (the rest are 0: skipped)."""
    used = 0
    for p in range(PLANES):
        planes[p] = 0
    for k in range(RANKS):
        c[k] = np.int64(counts[k])
        for p in range(PLANES):
            if (c[k] >> p) & 1:
                planes[p] |= 1 << k
                if p >= used:
                    used = p + 1
    return used


@numba.njit(cache=True, nogil=True)
def _board_count(grids: np.ndarray, tb: int, mb: int, wb: int, c: np.ndarray, planes: np.ndarray, used: int,
                 popcount: np.ndarray, masks: np.ndarray) -> int:
    """The ordered triples of one board (rows' grid ids ``tb``, ``mb``, ``wb``; its unseen
    cards per rank ``c`` and their bit planes, :func:`_count_planes`); ``masks`` scratch space."""
    for k in range(RANKS):
        masks[k] = 0
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
    return total


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
        used = _count_planes(counts[b], c, planes)
        out[b] = _board_count(grids, top[b], middle[b], bottom[b], c, planes, used, popcount, masks)
    return out


@numba.njit(cache=True, nogil=True)
def plan_risks(grids: np.ndarray, parts: np.ndarray, form_parts: np.ndarray, form_offsets: np.ndarray,
               picks: np.ndarray, counts: np.ndarray, popcount: np.ndarray, deals: float) -> np.ndarray:
    """The foul probability of every (draw, plan) board of a draw layout
    (:class:`agents.ofc.draw_layout.DrawLayout`), draw-major: plan ``i`` of draw ``d`` reads,
    per row ``r``, form ``picks[r, i]``, i.e. grid ``parts[d, form_parts[f]] +
    form_offsets[f]``, against the draw's ``counts[d]`` and ``deals`` deals. A board reading
    a part of id :data:`agents.ofc.rank_classes.SUITED` (negative) gets 0 (judged over the
    cards instead). The count over 6, over ``deals``: the float operations of
    :func:`agents.ofc.rank_classes.rank_risks`."""
    draws = parts.shape[0]
    plans = picks.shape[1]
    out = np.zeros(draws * plans, dtype=np.float64)
    masks = np.empty(RANKS, dtype=np.int64)
    planes = np.empty(PLANES, dtype=np.int64)
    c = np.empty(RANKS, dtype=np.int64)
    for d in range(draws):
        used = _count_planes(counts[d], c, planes)   # the same for every plan of the draw
        for i in range(plans):
            f0, f1, f2 = picks[0, i], picks[1, i], picks[2, i]
            g0, g1, g2 = parts[d, form_parts[f0]], parts[d, form_parts[f1]], parts[d, form_parts[f2]]
            if g0 < 0 or g1 < 0 or g2 < 0:
                continue
            total = _board_count(grids, g0 + form_offsets[f0], g1 + form_offsets[f1], g2 + form_offsets[f2],
                                 c, planes, used, popcount, masks)
            out[d * plans + i] = (np.float64(total) / 6.0) / deals
    return out
