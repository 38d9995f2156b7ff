"""The two-slot foul count, compiled (numba): the one count every caller uses.

A board with two free slots fouls on a deal of three unseen cards when every ordered pair of
them fouls: the deal is a triangle of the graph of fouling pairs. :func:`_triples` counts the
ordered triples of distinct cards that form one, over a graph ``H`` on ``m`` classes of
interchangeable cards with ``c_k`` cards in class ``k``, as ``trace((HC)^3) - 3 sum_k c_k H_kk
(Hc)_k + 2 sum_k c_k H_kk``: each row of ``H`` a bit mask, the weighted common neighbours of
two classes summed over the bits of the counts (bit planes and a popcount table). Integers
throughout. Its callers build the graph their way:

- :func:`graph_counts` and :func:`plan_risks`: classes are the 13 ranks (rows that cannot
  make a flush), the graph read off the rows' rank grids
  (:mod:`agents.ofc.rank_classes`, :mod:`agents.ofc.draw_layout`);
- :func:`fouled_counts`: any fouled-pair array, e.g. one class per unseen card
  (:func:`agents.ofc.two_slots.layout_risks`, ``c_k = 1``) or per rank
  (:func:`agents.ofc.rank_classes.class_risks`).

:func:`risks` turns counts into probabilities. ``tests/agents/ofc/foul_oracle.py`` states the
count in array operations (``trace(G^3)`` by matrix products) and the tests hold the kernel
to it. numba compiles once and caches the machine code beside this file.
"""
from __future__ import annotations

from functools import cache

import numba
import numpy as np

from parlor.envs.engine.bits import mask_bits

RANKS = 13
PLANES = 6          # bits of a class's count of cards: counts below 64
MAX_CLASSES = 62    # a class graph's rows are bit masks of an int64
POPCOUNT = mask_bits(np.arange(1 << 16), 16).sum(axis=1, dtype=np.int64)   # per 16 bits


@numba.njit(cache=True, nogil=True)
def _popcount(x: int, popcount: np.ndarray) -> int:
    """The set bits of a non-negative ``x``, 16 at a time."""
    total = 0
    while x:
        total += popcount[x & 0xFFFF]
        x >>= 16
    return total


@numba.njit(cache=True, nogil=True)
def _count_planes(counts: np.ndarray, c: np.ndarray, planes: np.ndarray) -> int:
    """``counts`` (cards per class) as int64 into ``c`` and as bit planes into ``planes``
    (bit ``k`` of plane ``p``: bit ``p`` of class ``k``'s count); the number of planes a
    count reaches (the rest are 0: skipped)."""
    used = 0
    for p in range(PLANES):
        planes[p] = 0
    for k in range(counts.shape[0]):
        c[k] = np.int64(counts[k])
        if c[k] >= 1 << PLANES:
            raise ValueError("the foul count takes fewer than 64 cards per class (PLANES bit planes)")
        for p in range(PLANES):
            if (c[k] >> p) & 1:
                planes[p] |= 1 << k
                if p >= used:
                    used = p + 1
    return used


@numba.njit(cache=True, nogil=True)
def _scratch(m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scratch space of a count over ``m`` classes: the graph's rows, the bit planes, the counts."""
    return np.empty(m, dtype=np.int64), np.empty(PLANES, dtype=np.int64), np.empty(m, dtype=np.int64)


@numba.njit(cache=True, nogil=True)
def _triples(masks: np.ndarray, c: np.ndarray, planes: np.ndarray, used: int, popcount: np.ndarray) -> int:
    """The count: ordered triples of distinct cards every pair of which fouls, over the class
    graph ``H`` (``masks[k]``: class ``k``'s row as bits, symmetric; ``H_kk``: two cards of
    class ``k`` foul together) on the ``m = len(masks)`` classes with ``c`` cards each (and
    their bit planes, :func:`_count_planes`)."""
    m = masks.shape[0]   # read off the array, not passed: a constant m (RANKS) would compile a second copy
    total = 0
    for i in range(m):
        if c[i] == 0:
            continue
        row = masks[i]
        for j in range(i, m):   # H symmetric: the pair (j, i) counts as (i, j)
            if c[j] == 0 or not (row >> j) & 1:
                continue
            common = row & masks[j]   # classes k with H_ik and H_jk
            weight = 0
            for p in range(used):
                weight += _popcount(common & planes[p], popcount) << p
            if j == i:
                total += c[i] * c[i] * weight
            else:
                total += 2 * c[i] * c[j] * weight   # sum_k c_i H_ij c_j H_jk c_k H_ki
    for k in range(m):   # the diagonal's corrections
        if (masks[k] >> k) & 1:
            degree = 0
            for p in range(used):
                degree += _popcount(masks[k] & planes[p], popcount) << p   # (H c)_k
            total += c[k] * (2 - 3 * degree)
    return total


@numba.njit(cache=True, nogil=True)
def _board_count(grids: np.ndarray, tb: int, mb: int, wb: int, c: np.ndarray, planes: np.ndarray, used: int,
                 popcount: np.ndarray, masks: np.ndarray) -> int:
    """:func:`_triples` of one board over the ranks (rows' grid ids ``tb``, ``mb``, ``wb``; its
    unseen cards per rank ``c`` and their bit planes); ``masks`` scratch space."""
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
    return _triples(masks, c, planes, used, popcount)


@numba.njit(cache=True, nogil=True)
def _fouled_counts(fouled: np.ndarray, counts: np.ndarray, popcount: np.ndarray) -> np.ndarray:
    boards, m = fouled.shape[0], fouled.shape[1]
    out = np.empty(boards, dtype=np.int64)
    masks, planes, c = _scratch(m)
    for b in range(boards):
        used = _count_planes(counts[b], c, planes)
        for k in range(m):
            masks[k] = 0
        for k in range(m):   # a pair fouls both ways round
            for q in range(k, m):
                if fouled[b, k, q] and fouled[b, q, k]:
                    masks[k] |= np.int64(1) << q
                    masks[q] |= np.int64(1) << k
        out[b] = _triples(masks, c, planes, used, popcount)
    return out


def read_only(array: np.ndarray) -> np.ndarray:
    """``array`` as a read-only view (no copy). numba compiles a kernel once per kind of
    argument, writability included: the kernels take their inputs read-only, whoever made them."""
    if not array.flags.writeable:
        return array
    view = array.view()
    view.flags.writeable = False
    return view


def count_array(counts: np.ndarray) -> np.ndarray:
    """Cards per class as the kernels take them: int64, C order, read-only (one compiled
    signature for every caller). Integer counts in any dtype, or floats holding whole numbers
    (exactly converted); anything else is refused."""
    counts = np.asarray(counts)
    if counts.dtype == np.int64 and counts.flags.c_contiguous:
        return read_only(counts)
    if counts.dtype.kind not in "iuf":
        raise ValueError(f"counts of cards must be numbers, got dtype {counts.dtype}")
    whole = np.ascontiguousarray(counts, dtype=np.int64)
    if counts.dtype.kind == "f" and not np.array_equal(whole, counts):
        raise ValueError("counts of cards must be whole numbers")
    return read_only(whole)


def fouled_counts(fouled: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Per board, the ordered triples of distinct cards every pair of which fouls: ``fouled``
    [B, m, m] (bool: a card of class i in the first free slot and one of class j in the
    second foul the board), ``counts`` [B, m] (cards per class, below 64; one per class
    for classes of single cards, whose diagonal then means nothing). int64 [B]."""
    if fouled.shape[1] > MAX_CLASSES:
        raise ValueError(f"the foul count takes at most {MAX_CLASSES} classes of cards, got {fouled.shape[1]}")
    if fouled.dtype != np.bool_:
        raise ValueError(f"fouled must be a bool array, got dtype {fouled.dtype}")
    # a broadcast array is read in place (a view, not copied)
    return _fouled_counts(read_only(fouled), count_array(counts), POPCOUNT)


@cache
def single_cards(boards: int, n: int) -> np.ndarray:
    """int64 [boards, n] of ones (read-only): ``counts`` for classes of one card each."""
    ones = np.ones((boards, n), dtype=np.int64)
    ones.flags.writeable = False
    return ones


def check_counts(counts: np.ndarray) -> None:
    """Every class's count of cards must fit the count's bit planes (the kernels check it
    too, as they read each count)."""
    if counts.size and counts.max() >= 1 << PLANES:
        raise ValueError(f"the foul count takes fewer than {1 << PLANES} cards per class, got {counts.max():g}")


def risks(counted: np.ndarray, n: int) -> list[float]:
    """Foul probabilities from :func:`_triples` counts against ``n`` unseen cards: the
    fouling deals (a deal is 6 ordered triples) over the ``C(n, 3)`` deals."""
    deals = n * (n - 1) * (n - 2) / 6.0
    return ((counted.astype(np.float64) / 6.0) / deals).tolist()


def graph_counts(grids: np.ndarray, top: np.ndarray, middle: np.ndarray, bottom: np.ndarray,
                 counts: np.ndarray) -> np.ndarray:
    """Per board ``b`` (rows' grid ids ``top[b]``, ``middle[b]``, ``bottom[b]`` into
    ``grids`` [N, 13, 13]; ``counts[b]`` its unseen cards per rank, each below 64): the
    ordered triples of distinct unseen cards whose every pair fouls, as int64."""
    return _graph_counts(grids, top, middle, bottom, count_array(counts), POPCOUNT)


@numba.njit(cache=True, nogil=True)
def _graph_counts(grids: np.ndarray, top: np.ndarray, middle: np.ndarray, bottom: np.ndarray,
                  counts: np.ndarray, popcount: np.ndarray) -> np.ndarray:
    boards = top.shape[0]
    out = np.empty(boards, dtype=np.int64)
    masks, planes, c = _scratch(np.int64(RANKS))   # int64, not the constant: one compile for every m
    for b in range(boards):
        used = _count_planes(counts[b], c, planes)
        out[b] = _board_count(grids, top[b], middle[b], bottom[b], c, planes, used, popcount, masks)
    return out


def plan_risks(grids: np.ndarray, parts: np.ndarray, form_parts: np.ndarray, form_offsets: np.ndarray,
               picks: np.ndarray, counts: np.ndarray, deals: float) -> np.ndarray:
    """The foul probability of every (draw, plan) board of a draw layout
    (:class:`agents.ofc.draw_layout.DrawLayout`), draw-major: plan ``i`` of draw ``d`` reads,
    per row ``r``, form ``picks[r, i]``, i.e. grid ``parts[d, form_parts[f]] +
    form_offsets[f]``, against the draw's ``counts[d]`` and ``deals`` deals. A board reading
    a part of id :data:`agents.ofc.rank_classes.SUITED` (negative) gets 0 (judged over the
    cards instead). The count over 6, over ``deals``: the float operations of :func:`risks`."""
    return _plan_risks(grids, parts, form_parts, form_offsets, picks, count_array(counts), POPCOUNT, float(deals))


@numba.njit(cache=True, nogil=True)
def _plan_risks(grids: np.ndarray, parts: np.ndarray, form_parts: np.ndarray, form_offsets: np.ndarray,
                picks: np.ndarray, counts: np.ndarray, popcount: np.ndarray, deals: float) -> np.ndarray:
    draws = parts.shape[0]
    plans = picks.shape[1]
    out = np.zeros(draws * plans, dtype=np.float64)
    masks, planes, c = _scratch(np.int64(RANKS))   # int64, not the constant: one compile for every m
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
