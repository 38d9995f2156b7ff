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
:func:`agents.ofc.two_slots.layout_risks` gives. Both are the one compiled foul count
(:mod:`agents.ofc.count_kernel`), over ranks here, over cards there. Boards whose suits
matter (about one in forty in play) keep the card-level count.
"""
from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from parlor.agents.ofc.two_slots import slot_ranks
from parlor.envs.engine.cards import JOKER_BASE
from parlor.envs.engine.hands import CARD_KEY, RANK_KEYS, ROW_TABLE, TOP_ROWS, rank3, rank5, rank_from_keys
from parlor.envs.ofc_outlook.rollouts import ROW_SIZES, TOP

RANKS = 13
_ONES = np.ones(13, dtype=np.float32)
CLASSES = "classes"   # key of the unseen cards' count per rank in a RankCache (None with a joker)
MAX_TABLES = 200_000  # rank tables kept before the memo starts afresh (they depend on the row alone)
POOL_LIMIT = 1 << 15  # 13x13 grids (11 MB) kept before the pool starts afresh
SUITED = -1           # the grid id of a row whose suits matter

# A card of each rank (suit 0), and a second one of another suit (1) for the pairs: only
# the rank part of their keys matters in a row that cannot make a flush.
_ONE = CARD_KEY.take(np.arange(RANKS) * 4).astype(np.int64)
_PAIR = _ONE[:, None] + CARD_KEY.take(np.arange(RANKS) * 4 + 1).astype(np.int64)[None, :]
_TABLES: dict[tuple[int, tuple[int, ...]], object] = {}
ROW_KEY_ARRAY = CARD_KEY.astype(np.int64) << 2   # per card id, for row_key
# Every rank a row can have, ascending: the grids hold a rank's place here (only the order
# of ranks matters to a foul), and the first ids of the pool are the constant grids of a
# full row of each rank.
RANK_VALUES = np.unique(ROW_TABLE[ROW_TABLE >= 0])
_PLACE: dict[int, int] = {v: i for i, v in enumerate(RANK_VALUES.tolist())}
ROW_KEY: tuple[int, ...] = tuple(ROW_KEY_ARRAY.tolist())
# The bits of a row_key below its cards' suit counts: the row, and the sum of the cards' rank
# keys (unique per multiset of at most five ranks, below the evaluator's suit counts)
RANKS_OF_KEY = (1 << ((5 * RANK_KEYS[-1]).bit_length() + 2)) - 1


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
    """Unseen cards per rank ([13] int64, as the compiled count takes them), or None when a
    joker is among them."""
    if len(unseen) and int(unseen.max()) >= JOKER_BASE:
        return None
    return np.bincount((unseen % 52) // 4, minlength=RANKS)


def row_key(row: int, cards: Sequence[int]) -> int:
    """A number that tells the row and its cards' ranks and suit counts, all its
    :func:`rank_table` depends on: the sum of their evaluator keys (``CARD_KEY``; unique per
    rank multiset and suit counts: the evaluator looks hands up by it), times 4, plus the
    row. Adding :data:`ROW_KEY` of a card gives the key of the row with the card added."""
    return sum(ROW_KEY[c] for c in cards) + row


def dense_ranks(raw):
    """Ranks as their places in :data:`RANK_VALUES` (the same order, small numbers)."""
    return np.searchsorted(RANK_VALUES, raw)


class GridPool:
    """Every row's :func:`rank_table`, its ranks as places in :data:`RANK_VALUES`, spread
    over a 13x13 grid of (first free slot's card rank, second's), all in one array so
    that a batch of boards gathers its rows by id (:func:`rank_risks`): a full row's
    rank everywhere (the first ids, one per rank, made once), a pair table as it is, a
    one-slot table as the first card's (form 0) or, on the next id, the second's (form 1).
    A row's id is that of its form 0, or :data:`SUITED` when the suits matter."""

    def __init__(self, limit: int = POOL_LIMIT):
        self.fixed = len(RANK_VALUES)
        self.limit = self.fixed + limit
        self.grids = np.empty((self.fixed + 1024, RANKS, RANKS), dtype=np.int16)
        self.grids[:self.fixed] = np.arange(self.fixed, dtype=np.int16)[:, None, None]
        self.size = self.fixed
        self.ids: dict[int, int] = {}   # row_key -> the row's id
        self.by_ranks: dict[int, int] = {}   # the rank part of a row_key (row and ranks) -> likewise

    def make_room(self, grids: int) -> None:
        """Room for ``grids`` more grids. Past the limit the pool starts afresh: ids of rows
        with free slots handed out before are void, so a batch makes its room before it
        asks for any."""
        if self.size + grids > self.limit:
            self.ids.clear()
            self.by_ranks.clear()
            self.size = self.fixed
        if self.size + grids > len(self.grids):
            bigger = np.empty((max(self.size + grids, 2 * len(self.grids)), RANKS, RANKS), dtype=np.int16)
            bigger[:self.size] = self.grids[:self.size]
            self.grids = bigger

    def find(self, row: int, cards: Sequence[int]) -> int:
        """The row's id. At most two new grids per call: :meth:`make_room` first."""
        at = self.ids.get(row_key(row, cards))
        return self.add(row, cards) if at is None else at

    def add(self, row: int, cards: Sequence[int], key: int | None = None) -> int:
        """:meth:`find` of a row not in the pool yet (``key`` its :func:`row_key` if known): a
        full row's rank's, else the id of a row with the same ranks if one is (where the
        suits cannot matter, the ranks are all its tables depend on)."""
        if key is None:
            key = row_key(row, cards)
        if len(cards) == ROW_SIZES[row]:
            at = _PLACE[rank3(cards) if row == TOP else rank5(cards)]
        elif suits_matter(row, cards):
            at = SUITED
        else:
            # the row and its ranks, read off the key: no joker here (its suits would
            # matter), and the rank keys of at most five cards sum below the suit bits
            ranks = key & RANKS_OF_KEY
            known = self.by_ranks.get(ranks)
            if known is None:
                known = self.by_ranks[ranks] = self._add(dense_ranks(_build(row, tuple(cards))))
            at = known
        self.ids[key] = at
        return at

    def _add(self, table: np.ndarray) -> int:
        at = self.size
        if table.ndim == 1:
            self.grids[at] = table[:, None]
            self.grids[at + 1] = table[None, :]
            self.size += 1
        else:
            self.grids[at] = table
        self.size += 1
        return at


_THREAD = threading.local()


def grid_pool() -> GridPool:
    """This thread's :class:`GridPool` (a batch's ids hold only while no other batch can
    start the pool afresh: one pool per thread)."""
    pool = getattr(_THREAD, "pool", None)
    if pool is None:
        pool = _THREAD.pool = GridPool()
    return pool


def cached_counts(unseen: np.ndarray, cache: dict) -> np.ndarray | None:
    """:func:`rank_counts` of ``unseen``, kept in ``cache`` (a RankCache of those cards)."""
    counts = cache.get(CLASSES, cache)
    if counts is cache:
        counts = cache[CLASSES] = rank_counts(unseen)
    return counts


def class_risks(room: tuple[int, int, int], tables: Sequence[Sequence], counts: Sequence[np.ndarray],
                n: int) -> list[float]:
    """Foul probabilities of boards whose free slots are ``room`` (two in all), each given by
    its rows' :func:`rank_table` (none None) and judged against ``n`` unseen cards with
    ``counts`` per rank (:func:`rank_counts`): :func:`agents.ofc.two_slots.layout_risks`'s
    numbers, by the one foul count over the ranks."""
    _, ranks = slot_ranks(room, tables)
    fouled = np.broadcast_to((ranks[TOP] > ranks[1]) | (ranks[1] > ranks[2]), (len(tables), RANKS, RANKS))
    kernel = _kernel()
    return kernel.risks(kernel.fouled_counts(fouled, np.array(counts)), n)


_KERNEL = None


def _kernel():
    """:mod:`agents.ofc.count_kernel`, imported at the first call: numba only for code that
    judges boards."""
    global _KERNEL
    if _KERNEL is None:
        from parlor.agents.ofc import count_kernel
        _KERNEL = count_kernel
    return _KERNEL


def rank_risks(grids: np.ndarray, at: np.ndarray, counts: np.ndarray, n: int) -> list[float]:
    """Foul probabilities of the boards whose rows are the grids ``at`` ([3, B] ids into
    ``grids``) against their unseen cards per rank ``counts`` ([B, 13]) of ``n`` unseen
    cards: the one foul count (:func:`agents.ofc.count_kernel.graph_counts`)."""
    kernel = _kernel()
    return kernel.risks(kernel.graph_counts(grids, at[0], at[1], at[2], counts), n)


def kernel_fits(counts: np.ndarray) -> bool:
    """Whether every count of unseen cards per rank fits the compiled count's bits."""
    return bool(counts.max(initial=0) < 1 << _kernel().PLANES)


def layout_rank_risks(grids: np.ndarray, parts: np.ndarray, form_parts: np.ndarray, form_offsets: np.ndarray,
                      picks: np.ndarray, counts: np.ndarray, n: int, fits: bool | None = None) -> list[float]:
    """:func:`rank_risks` of every (draw, plan) board of a draw layout, draw-major: plan ``i``
    of draw ``d`` reads per row ``r`` the grid ``parts[d, form_parts[f]] + form_offsets[f]``
    of its form ``f = picks[r, i]``, against ``counts[d]`` ([draws, 13]; ``fits`` its
    :func:`kernel_fits` if known). Gathered and counted in one compiled call
    (:func:`agents.ofc.count_kernel.plan_risks`); a board with a :data:`SUITED` part gets 0
    (the caller judges it over the cards)."""
    kernel = _kernel()
    deals = n * (n - 1) * (n - 2) / 6.0
    if not (kernel_fits(counts) if fits is None else fits):
        kernel.check_counts(counts)   # names the count that does not fit
    return kernel.plan_risks(grids, parts, form_parts, form_offsets, picks, counts, deals).tolist()
