"""The feature block's board part, compiled (numba), read off a seat's observation vector.

The State keeps each seat's observation vector up to date, and ``encode(view)`` writes the
same vector; it holds every card the block reads (own rows, the next card, the pending
cards and discards, the visible opponents' rows) as one-hots and the unseen cards per rank
and suit as counts. :func:`board_block` computes the block's part before the outlook from
that vector in one compiled pass (every number a quotient of small integers, rounded once
to float32), and lists the seat's seen cards (what the outlook is keyed by). It is the
block's one production path (``OFCGame.observe`` and ``encode(view)``);
``tests/ofc_outlook/oracle.py`` states the same numbers in Python from the view (made
hands, flush and straight draws, row order), and ``tests/ofc_outlook/test_kernels.py``
holds the kernel to it byte for byte.
"""
from __future__ import annotations

import numba
import numpy as np

from parlor.envs.engine.hands import CARD_KEY, CATEGORY_SHIFT, FLUSH_OFFSET, RANK_MASK, ROW_TABLE, SUIT_SHIFT, TOP_ROWS

ROW_SIZES = np.array([3, 5, 5], dtype=np.int64)
MAX_CATEGORY = 9.0           # five of a kind cannot occur in OFC; straight flush = 8


@numba.njit(cache=True, nogil=True)
def _made(cards: np.ndarray, count: int, size: int, card_key: np.ndarray, flush_offset: np.ndarray,
          row_table: np.ndarray, top_rows: int) -> tuple[int, int, int]:
    """(category, leading rank, second rank) of a row: a full row by the evaluator, a partial
    one by its groups of equal rank (pairs, trips, quads)."""
    if count == size:
        total = 0
        for j in range(count):
            total += card_key[cards[j]]
        if size == 3:
            rank = row_table[top_rows + (total & RANK_MASK)]
        else:
            rank = row_table[(total & RANK_MASK) + flush_offset[total >> SUIT_SHIFT]]
        second = ((rank >> 12) & 15) - 1
        return rank >> CATEGORY_SHIFT, ((rank >> 16) & 15) - 1, second if second >= 0 else -1
    if count == 0:
        return 0, -1, -1
    counts = np.zeros(13, dtype=np.int64)
    for j in range(count):
        counts[cards[j] >> 2] += 1
    # the two largest (count, rank) groups, as sorting them descending orders them
    top_n, top_r, second_n, second_r = 0, -1, 0, -1
    for r in range(13):
        k = counts[r]
        if k == 0:
            continue
        if k > top_n or (k == top_n and r > top_r):
            second_n, second_r = top_n, top_r
            top_n, top_r = k, r
        elif k > second_n or (k == second_n and r > second_r):
            second_n, second_r = k, r
    if top_n == 4:
        cat = 7
    elif top_n == 3:
        cat = 6 if second_n >= 2 else 3
    elif top_n == 2:
        cat = 2 if second_n == 2 else 1
    else:
        cat = 0
    return cat, top_r, second_r


@numba.njit(cache=True, nogil=True)
def _straight(cards: np.ndarray, count: int, row: int) -> float:
    """Whether the row can still make a straight (no repeated rank, the ranks within five,
    the ace high or low); never the top."""
    if row == 0:
        return 0.0
    seen = np.zeros(13, dtype=np.bool_)
    lo, hi, low_lo, low_hi = 99, -99, 99, -99
    for j in range(count):
        r = cards[j] >> 2
        if seen[r]:
            return 0.0
        seen[r] = True
        lo, hi = min(lo, r), max(hi, r)
        w = -1 if r == 12 else r   # the wheel: the ace plays low
        low_lo, low_hi = min(low_lo, w), max(low_hi, w)
    if count == 0 or hi - lo <= 4:
        return 1.0
    return 1.0 if low_hi - low_lo <= 4 else 0.0


@numba.njit(cache=True, nogil=True)
def _flush(cards: np.ndarray, count: int, row: int, suit_left: np.ndarray) -> float:
    """Whether the row can still make a flush: every card one suit and room for the rest
    among that suit's unseen cards; never the top."""
    if row == 0:
        return 0.0
    if count == 0:
        return 1.0
    suit = cards[0] & 3
    for j in range(1, count):
        if cards[j] & 3 != suit:
            return 0.0
    return 1.0 if ROW_SIZES[row] - count <= suit_left[suit] else 0.0


@numba.njit(cache=True, nogil=True)
def _rows_of(obs: np.ndarray, base: int, rows: np.ndarray, counts: np.ndarray, seen: np.ndarray) -> None:
    """The cards of the three rows one-hot at ``base`` (into ``rows`` [3, 5] and ``counts``),
    marked in ``seen``."""
    for r in range(3):
        k = 0
        for c in range(52):
            if obs[base + 52 * r + c] != 0.0:
                rows[r, k] = c
                k += 1
                seen[c] = True
        counts[r] = k


@numba.njit(cache=True, nogil=True)
def _value(made: tuple[int, int, int]) -> int:
    """A made hand as one comparable number."""
    return (made[0] * 14 + made[1] + 1) * 14 + made[2] + 1


@numba.njit(cache=True, nogil=True)
def _board_block(obs, out, start, next_card, pending, discards, opponents, unseen_rank, unseen_suit, n,
                 seen_out, card_key, flush_offset, row_table, top_rows):
    seen = np.zeros(52, dtype=np.bool_)
    rows = np.zeros((3, 6), dtype=np.int64)   # a spare slot for the next card
    counts = np.zeros(3, dtype=np.int64)
    _rows_of(obs, np.int64(0), rows, counts, seen)   # int64, not the constant 0: one compile of _rows_of
    nxt = -1
    for c in range(52):
        if obs[next_card + c] != 0.0:
            nxt = c
            seen[c] = True
        if obs[pending + c] != 0.0 or obs[discards + c] != 0.0:
            seen[c] = True
    rank_left = np.empty(13, dtype=np.int64)
    suit_left = np.empty(4, dtype=np.int64)
    for r in range(13):
        rank_left[r] = round(obs[unseen_rank + r] * 4.0)
    for s in range(4):
        suit_left[s] = round(obs[unseen_suit + s] * 13.0)
    o = start
    value = np.empty(3, dtype=np.int64)
    full = np.empty(3, dtype=np.bool_)
    for r in range(3):
        cards, count, size = rows[r], counts[r], ROW_SIZES[r]
        m = _made(cards, count, size, card_key, flush_offset, row_table, top_rows)
        value[r] = _value(m)
        full[r] = count == size
        ranks = np.zeros(13, dtype=np.bool_)
        left = 0
        for j in range(count):
            q = cards[j] >> 2
            if not ranks[q]:
                ranks[q] = True
                left += rank_left[q]
        out[o] = count / size
        out[o + 1] = m[0] / MAX_CATEGORY
        out[o + 2] = (m[1] + 1) / 13
        out[o + 3] = (m[2] + 1) / 13
        out[o + 4] = _flush(cards, count, r, suit_left)
        out[o + 5] = _straight(cards, count, r)
        out[o + 6] = left / 15
        out[o + 7] = 1.0 if full[r] else 0.0
        o += 8
    for r in range(2):
        now = value[r] > value[r + 1]
        out[o] = 1.0 if now else 0.0
        out[o + 1] = 1.0 if now and full[r + 1] else 0.0
        o += 2
    for r in range(3):
        if nxt < 0 or full[r]:
            for j in range(7):
                out[o + j] = 0.0
            o += 7
            continue
        cards, count = rows[r], counts[r]
        cards[count] = nxt
        after = _made(cards, count + 1, ROW_SIZES[r], card_key, flush_offset, row_table, top_rows)
        after_value = _value(after)
        bad = (r > 0 and value[r - 1] > after_value) or (r < 2 and after_value > value[r + 1])
        same = 0
        for j in range(count):
            if cards[j] >> 2 == nxt >> 2:
                same += 1
        out[o] = 1.0
        out[o + 1] = after[0] / MAX_CATEGORY
        out[o + 2] = (after[1] + 1) / 13
        out[o + 3] = same / 3
        out[o + 4] = _flush(cards, count + 1, r, suit_left)
        out[o + 5] = _straight(cards, count + 1, r)
        out[o + 6] = 1.0 if bad else 0.0
        o += 7
    free = 13 - counts[0] - counts[1] - counts[2]
    if nxt < 0:
        out[o], out[o + 1] = 0.0, 0.0
    else:
        out[o], out[o + 1] = ((nxt >> 2) + 1) / 13, rank_left[nxt >> 2] / 3
    out[o + 2] = free / 13
    o += 3
    for k in range(n - 1):
        _rows_of(obs, opponents + 156 * k, rows, counts, seen)
        for r in range(3):
            m = _made(rows[r], counts[r], ROW_SIZES[r], card_key, flush_offset, row_table, top_rows)
            value[r] = _value(m)
            out[o] = counts[r] / ROW_SIZES[r]
            out[o + 1] = m[0] / MAX_CATEGORY
            out[o + 2] = (m[1] + 1) / 13
            o += 3
        out[o] = 1.0 if value[0] > value[1] else 0.0
        out[o + 1] = 1.0 if value[1] > value[2] else 0.0
        o += 2
    k = 0
    for c in range(52):
        if seen[c]:
            seen_out[k] = c
            k += 1
    return k


def board_block(obs: np.ndarray, out: np.ndarray, start: int, layout, seen: np.ndarray) -> int:
    """Write the feature block's part before the outlook (:mod:`envs.ofc_outlook.features`, from
    the own rows to the opponents) for the seat whose observation vector is ``obs`` (float32,
    ``layout``: its :class:`~parlor.envs.ofc.encode.Layout`) into ``out[start:]`` (float32),
    and that seat's seen cards, ascending, into ``seen`` (int64, 52 long): returns how many."""
    return _board_block(obs, out, start, layout.next_card, layout.pending, layout.discards, layout.opponents,
                        layout.unseen_rank, layout.unseen_suit, layout.n, seen, CARD_KEY, FLUSH_OFFSET,
                        ROW_TABLE, TOP_ROWS)


def warm_up() -> None:
    """Load (or, the first time, compile) the kernel."""
    from parlor.envs.ofc.encode import Layout

    layout = Layout(2)
    board_block(np.zeros(layout.size, dtype=np.float32), np.zeros(128, dtype=np.float32), 0, layout,
                np.zeros(52, dtype=np.int64))
