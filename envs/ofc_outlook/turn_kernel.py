"""A turn's completion as one compiled pass (numba): draws, rows, statistics.

Every number the planner judges a turn by comes from here: the heuristic's and the
advisors' sampled completions (:func:`completion_stats`, the draws given) and the
outlook's turn completed with a fixed noise table (:func:`turn_stats`, the draws taken in
the table's order, then the best plan per prefix and the feature block's outlook):

- the draws are the pool's cards in the noise table's order, the first half of the
  samples sorted strongest-first (integers: exact);
- ranks are the evaluator's table lookups on sums of card keys (integers: exact);
- the floats are per-sample values (``royalty + ROW_WEIGHT * total / STRENGTH_UNIT``)
  averaged over the samples.

``tests/ofc_outlook/oracle.py`` states the same arithmetic in numpy (and row by row);
``tests/ofc_outlook/test_kernels.py`` holds the kernel to it within a relative 1e-12
(the integers exactly). numba compiles it once and caches the machine code beside this
file (``cache=True``); :func:`warm_up` loads it (a fraction of a second) so that the first
observation does not pay for it.
"""
from __future__ import annotations

import numba
import numpy as np

from parlor.envs.engine.hands import CARD_KEY, FLUSH_OFFSET, RANK_MASK, ROW_TABLE, SUIT_SHIFT
from parlor.envs.ofc_outlook.rollouts import (
    FL_BONUS,
    FOUL_COST,
    LEAD_FL,
    LEAD_ROYALTY,
    LEAD_SHIFT,
    ROW_WEIGHT,
    STRENGTH_UNIT,
)

STATS = 5                    # foul, royalty, strength, fantasyland, value (TurnStats' fields, in order)


@numba.njit(cache=True, nogil=True)
def sort_descending(cards: np.ndarray) -> None:
    """Sort ``cards`` (1-D int64) in place, largest first. An insertion sort, for a dozen
    cards: ``np.sort`` would compile numba's whole quicksort (1.5 CPU-s of a first compile)."""
    for i in range(1, cards.shape[0]):
        card = cards[i]
        j = i - 1
        while j >= 0 and cards[j] < card:
            cards[j + 1] = cards[j]
            j -= 1
        cards[j + 1] = card


@numba.njit(cache=True, nogil=True)
def _draws(order: np.ndarray, seen: np.ndarray, free: int) -> np.ndarray:
    """[R, free]: per sample the first ``free`` unseen cards in the noise order ``order``
    [R, 52], the first half of the samples sorted descending (``route_future`` at 0.5)."""
    samples = order.shape[0]
    in_pool = np.ones(52, dtype=np.bool_)
    for c in seen:
        in_pool[c] = False
    future = np.empty((samples, free), dtype=np.int64)
    for s in range(samples):
        k = 0
        for j in range(52):
            if k == free:
                break
            c = order[s, j]
            if in_pool[c]:
                future[s, k] = c
                k += 1
    for s in range(samples // 2):
        sort_descending(future[s])
    return future


@numba.njit(cache=True, nogil=True)
def _row_tables(future: np.ndarray, fixed: np.ndarray, cols: np.ndarray, table: np.ndarray,
                lead_base: np.ndarray, num_top: int, card_key: np.ndarray, flush_offset: np.ndarray,
                row_table: np.ndarray, lead_royalty: np.ndarray, lead_fl: np.ndarray):
    """(ranks, royalties [U, R], tops' Fantasyland flags [num_top, R]) of the distinct rows
    (``TurnPlans.complete``): key columns are the draws, then the ``fixed`` cards, then a zero."""
    samples, free = future.shape
    columns = free + fixed.shape[0]
    keys = np.zeros((columns + 1, samples), dtype=np.int32)
    for s in range(samples):
        for k in range(free):
            keys[k, s] = card_key[future[s, k]]
    for j in range(fixed.shape[0]):
        key = card_key[fixed[j]]
        for s in range(samples):
            keys[free + j, s] = key
    rows = cols.shape[1]
    ranks = np.empty((rows, samples))
    royalties = np.empty((rows, samples))
    top_fl = np.empty((num_top, samples))
    for u in range(rows):
        c0, c1, c2, c3, c4 = cols[0, u], cols[1, u], cols[2, u], cols[3, u], cols[4, u]
        base, offset = lead_base[u], table[u]
        for s in range(samples):
            total = keys[c0, s] + keys[c1, s] + keys[c2, s] + keys[c3, s] + keys[c4, s]
            rank = row_table[(total & RANK_MASK) + flush_offset[total >> SUIT_SHIFT] + offset]
            lead = rank >> LEAD_SHIFT
            ranks[u, s] = rank
            royalties[u, s] = lead_royalty[lead + base]
            if u < num_top:
                top_fl[u, s] = lead_fl[lead]
    return ranks, royalties, top_fl


@numba.njit(cache=True, nogil=True)
def _candidate_stats(ranks: np.ndarray, royalties: np.ndarray, top_fl: np.ndarray, rows: np.ndarray,
                     fl_next_hand: bool) -> np.ndarray:
    """[STATS, C]: the :class:`~parlor.envs.ofc_outlook.rollouts.TurnStats` columns of the
    candidates whose rows are ``rows`` [3, C]: per sample the board's foul, royalties,
    strength, Fantasyland flag and value, averaged over the samples (a clean flag of 1.0
    or 0.0 multiplies what a foul zeroes)."""
    samples = ranks.shape[1]
    count = rows.shape[1]
    out = np.empty((STATS, count))
    terms = np.empty((STATS, samples))
    for i in range(count):
        t, m, b = rows[0, i], rows[1, i], rows[2, i]
        for s in range(samples):
            top, middle, bottom = ranks[t, s], ranks[m, s], ranks[b, s]
            fouled = top > middle or middle > bottom
            royalty = royalties[t, s] + royalties[m, s] + royalties[b, s]
            total = top + middle + bottom
            value = royalty + ROW_WEIGHT * total / STRENGTH_UNIT
            if fl_next_hand:
                value += FL_BONUS * top_fl[t, s]
            foul = 1.0 if fouled else 0.0
            clean = 1.0 - foul
            terms[0, s] = foul
            terms[1, s] = royalty * clean
            terms[2, s] = total / STRENGTH_UNIT * clean
            terms[3, s] = clean * top_fl[t, s]
            terms[4, s] = -FOUL_COST if fouled else value
        for k in range(STATS):
            mean = 0.0
            for j in range(samples):
                mean += terms[k, j]
            out[k, i] = mean / samples
    return out


@numba.njit(cache=True, nogil=True)
def _best_plans(values: np.ndarray, dests: np.ndarray, parents: np.ndarray, num_parents: int) -> np.ndarray:
    """[P, 4]: per prefix of taken destinations (``parents`` [n, C]: the prefix id of each
    candidate's first k destinations) and next action, the candidate of highest value
    that takes it (the first of equals, in candidate order), -1 where none does."""
    best = np.full((num_parents, 4), -1, dtype=np.int64)
    for i in range(dests.shape[0]):
        for k in range(dests.shape[1]):
            p, a = parents[k, i], dests[i, k]
            b = best[p, a]
            if b < 0 or values[i] > values[b]:
                best[p, a] = i
    return best


@numba.njit(cache=True, nogil=True)
def _outlooks(stats: np.ndarray, best: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """[P, 4 * 7]: per prefix, the outlook block of ``envs.ofc_outlook.features.outlook`` with the
    preference's exponent ``(value - best value) / temperature`` in its place (the caller
    takes ``math.exp`` of it); ``scales``: royalty, strength, value, foul cost, temperature.
    ``min``/``max`` are written out as Python's (the first argument unless the second is
    strictly smaller / larger)."""
    royalty_scale, strength_scale, value_scale, foul_cost, temperature = scales[0], scales[1], scales[2], scales[3], scales[4]
    out = np.zeros((best.shape[0], 4 * 7))
    for p in range(best.shape[0]):
        top = -np.inf
        for a in range(4):
            if best[p, a] >= 0 and stats[4, best[p, a]] > top:
                top = stats[4, best[p, a]]
        for a in range(4):
            i = best[p, a]
            if i < 0:
                continue
            value = stats[4, i]
            royalty, strength, scaled = stats[1, i] / royalty_scale, stats[2, i] / strength_scale, (value + foul_cost) / value_scale
            if scaled < 0.0:
                scaled = 0.0
            o = 7 * a
            out[p, o] = 1.0
            out[p, o + 1] = stats[0, i]
            out[p, o + 2] = royalty if royalty < 1.0 else 1.0
            out[p, o + 3] = strength if strength < 1.0 else 1.0
            out[p, o + 4] = stats[3, i]
            out[p, o + 5] = scaled if scaled < 1.0 else 1.0
            out[p, o + 6] = (value - top) / temperature
    return out


@numba.njit(cache=True, nogil=True)
def _completion_stats(future, fixed, cols, table, lead_base, num_top, rows, fl_next_hand, card_key, flush_offset,
                      row_table, lead_royalty, lead_fl):
    ranks, royalties, top_fl = _row_tables(future, fixed, cols, table, lead_base, num_top, card_key,
                                           flush_offset, row_table, lead_royalty, lead_fl)
    return _candidate_stats(ranks, royalties, top_fl, rows, fl_next_hand)


@numba.njit(cache=True, nogil=True)
def _turn_stats(order, seen, free, fixed, cols, table, lead_base, num_top, rows, fl_next_hand, dests, parents,
                num_parents, scales, card_key, flush_offset, row_table, lead_royalty, lead_fl):
    future = _draws(order, seen, free)
    stats = _completion_stats(future, fixed, cols, table, lead_base, num_top, rows, fl_next_hand, card_key,
                              flush_offset, row_table, lead_royalty, lead_fl)
    best = _best_plans(stats[4], dests, parents, num_parents)
    return stats, best, _outlooks(stats, best, scales)


def completion_stats(future: np.ndarray, fixed: np.ndarray, plans, fl_next_hand: bool) -> np.ndarray:
    """[5, C] float64: the :class:`~parlor.envs.ofc_outlook.rollouts.TurnStats` columns (foul,
    royalty, strength, fantasyland, value) of every candidate of ``plans`` (a
    :class:`~parlor.envs.ofc_outlook.rollouts.TurnPlans`), each board completed once per row
    of ``future`` [R, plans.free] (int64 card ids: the bottom's draws first, then the
    middle's, then the top's); ``fixed`` (int64): the pending cards, then the board's top,
    middle and bottom cards."""
    return _completion_stats(future, fixed, plans.cols, plans.table_flat, plans.lead_base_flat, plans.num_top,
                             plans.rows, fl_next_hand, CARD_KEY, FLUSH_OFFSET, ROW_TABLE, LEAD_ROYALTY, LEAD_FL)


def turn_stats(order: np.ndarray, seen: np.ndarray, fixed: np.ndarray, plans, tree, fl_next_hand: bool,
               scales: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The whole turn in one pass: (stats [5, C] float64, the
    :class:`~parlor.envs.ofc_outlook.rollouts.TurnStats` columns foul, royalty, strength,
    fantasyland, value of every candidate of ``plans`` (a
    :class:`~parlor.envs.ofc_outlook.rollouts.TurnPlans`); best [P, 4], the best candidate per
    prefix of ``tree`` (:class:`~parlor.envs.ofc_outlook.outlook.PrefixTree`) and next action;
    outlooks [P, 28], per prefix the feature block's outlook with the preference's
    exponent (see :func:`_outlooks`)). The boards are completed from the cards not in
    ``seen`` (int64 ids) in the noise order ``order`` [R, 52]; ``fixed`` (int64):
    the pending cards, then the board's top, middle and bottom cards."""
    return _turn_stats(order, seen, plans.free, fixed, plans.cols, plans.table_flat, plans.lead_base_flat,
                       plans.num_top, plans.rows, fl_next_hand, tree.dests, tree.parents, tree.size, scales,
                       CARD_KEY, FLUSH_OFFSET, ROW_TABLE, LEAD_ROYALTY, LEAD_FL)


def warm_up() -> None:
    """Load (or, the first time, compile) the kernel: the cost is paid here, not at the
    first observation."""
    from parlor.envs.ofc_outlook.outlook import prefix_tree
    from parlor.envs.ofc_outlook.rollouts import turn_plans

    order = np.tile(np.arange(52, dtype=np.int64), (2, 1))
    plans = turn_plans((3, 5, 5), 3, 1)
    fixed = np.arange(3, dtype=np.int64)
    turn_stats(order, fixed, fixed, plans, prefix_tree(plans), True, np.ones(5))
    completion_stats(order[:, 3:3 + plans.free].copy(), fixed, plans, True)
