"""Poker hand ranking for every poker game: 5-card and 3-card rows, wild jokers,
double-deck duplicates, five of a kind, and a vectorized numpy batch evaluator (the
double deck's joker-twin table: ``engine/double_deck_hands.py``; the strengths in words:
``engine/hand_names.py``).

Rank values
-----------
A hand's strength is one ``int``; a larger value is a stronger hand and equal
values tie (suits never break ties)::

    rank = category << 20 | v0 << 16 | v1 << 12 | v2 << 8 | v3 << 4 | v4

``category`` is a :class:`Category` (HIGH_CARD=0 .. FIVE_OF_A_KIND=9) and
``v0..v4`` are the grouped card ranks used for tie-breaks, each stored as
``rank + 1`` (1 = deuce .. 13 = ace) so that 0 marks "no card" in the unused
low nibbles. :func:`rank_values` decodes them back to ranks 0=2 .. 12=A:

| category        | values (most significant first)                  |
|-----------------|--------------------------------------------------|
| HIGH_CARD       | the 5 ranks, high to low (3 for a 3-card row)    |
| PAIR            | pair rank, then the kickers high to low          |
| TWO_PAIR        | higher pair, lower pair, kicker                  |
| TRIPS           | trips rank, then the kickers high to low         |
| STRAIGHT        | the top card (A-2-3-4-5, the lowest, has top 5)  |
| FLUSH           | the 5 ranks high to low (duplicates included)    |
| FULL_HOUSE      | trips rank, pair rank                            |
| QUADS           | quads rank, kicker                               |
| STRAIGHT_FLUSH  | the top card (royal = ace-high straight flush)   |
| FIVE_OF_A_KIND  | the rank                                         |

So 33334 > 2222A, 33322 > 222AA, and two pair compares higher pair, lower
pair, kicker. A-2-3-4-5 is the lowest straight; there is no wrap-around
(K-A-2-3-4 is no straight). In the short deck (7..A) A-7-8-9-T is no straight
because only A-2-3-4-5 lets the ace play low.

3-card rows (OFC top)
---------------------
:func:`rank3` gives high card, pair or trips (no straights or flushes) on the
same scale, with the missing values left 0. So a top row compares with a
5-card row by category first, then card by card over the top's own 3 cards,
and ``rank3(top) > rank5(middle)`` is exactly "the top is strictly stronger"
(docs/rules.md §1.2): Q-Q-7 over Q-Q-6-5-4 fouls, Q-Q-7 over Q-Q-9-8-2 does not, and
A-K-Q over A-K-Q-J-9 does not (equal over the top's 3 cards).

Jokers (ids >= 104) and duplicates
----------------------------------
A joker is wild; the best hand over all substitutions is taken.
**Decision** (parlor's; docs/rules.md §3.3):

- A joker may stand for any rank, also one already in the hand, even an
  identical card: A-A-A-A + joker is five aces, 7-7 + 3 jokers is five sevens.
- In a flush a joker stands for the best card of that suit the deck still holds:
  A-K-Q-J of spades + joker is a royal flush. In one deck that is a card *missing*
  from the flush: A-K-Q-2 of spades + joker is the flush A-K-Q-J-2 (:func:`rank5`).
  In a double deck (Washizu ``extra_deck``) it may also be the second copy of a card
  in the hand: A-K-Q-2 of spades + joker is A-A-K-Q-2 (``double_deck_hands.rank5_double``), so a
  joker hand never ranks below a hand it can become.
- Two identical cards of a double deck (``As`` and ``As*``) are both real: they
  pair, and five cards of one suit are a flush even with such a pair; that
  flush ranks by its 5 ranks high to low (A-A-K-Q-J beats A-K-Q-J-9).
- Five of a kind (jokers or a double deck) ranks above the straight flush.

Input checks: a wrong number of cards or an id outside 0..111 raises
``ValueError`` (the scalar path, kept lean for speed, catches ids -144..-1 and
112+; :func:`rank5_batch` catches every bad id). The same id twice in one hand
is not checked (it is evaluated as two cards).

Implementation
--------------
Each card id maps to ``rank_key | suit_key << 20``. Rank keys form a B5 set
(every multiset of at most 5 ranks has its own sum; a joker's rank key is 0).
The suit key is ``6**suit`` (a joker adds 1 to every base-6 digit), so a hand
can be a flush iff some digit of its suit sum is 5. One table, indexed by the
rank-key sum plus an offset for "flush possible", holds the best value for
every multiset; it is built once at import (about 0.1 s). ``rank5`` walks it
with Python lists; ``rank5_batch`` / ``rank3_batch`` with ``numpy.take`` over
chunks of rows (jokers and double-deck ids work there too).
"""
from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from enum import IntEnum

import numpy as np

from parlor.envs.engine.cards import JOKER_BASE, NUM_IDS


class Category(IntEnum):
    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    TRIPS = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    QUADS = 7
    STRAIGHT_FLUSH = 8
    FIVE_OF_A_KIND = 9


CATEGORY_SHIFT = 20
_ACE = 12
# Greedy B5 set: all multisets of <= 5 of these 13 keys (plus 0 for a joker) have distinct sums.
RANK_KEYS = (1, 6, 31, 108, 366, 926, 2286, 5733, 12905, 27316, 44676, 94545, 147031)
_KEY_SPAN = 5 * RANK_KEYS[-1] + 1          # rank-key sums are 0 .. 5 * max key
RANK_MASK = (1 << CATEGORY_SHIFT) - 1       # a key sum's rank part: the rank-key sum lives in the low 20 bits
SUIT_SHIFT = 20                             # its suit part: the suit counts above (the compiled kernels read both)
_JOKER_SUIT_KEY = 1 + 6 + 36 + 216


# ---------------------------------------------------------------- values
def _encode(cat: int, values: Sequence[int]) -> int:
    out = cat << CATEGORY_SHIFT
    for i, v in enumerate(values):
        out |= (v + 1) << (16 - 4 * i)
    return out


def category(rank: int) -> Category:
    return Category(int(rank) >> CATEGORY_SHIFT)


def rank_values(rank: int) -> tuple[int, ...]:
    """Grouped card ranks used for the tie-break (0=2 .. 12=A), most significant first."""
    rank = int(rank)
    out = []
    for shift in (16, 12, 8, 4, 0):
        v = (rank >> shift) & 15
        if v == 0:
            break
        out.append(v - 1)
    return tuple(out)


def is_royal(rank: int) -> bool:
    """A straight flush with an ace on top."""
    rank = int(rank)
    return rank >> CATEGORY_SHIFT == Category.STRAIGHT_FLUSH and (rank >> 16) & 15 == _ACE + 1


# ---------------------------------------------------------------- reference evaluation (table build)
def _plain_values(ranks: np.ndarray) -> np.ndarray:
    """Values of multisets of 5 real ranks ([K, 5], ascending; duplicates allowed), ignoring
    suits, all at once: the groups of equal rank by (count, rank), descending, name the
    category and give the tie-break values."""
    rows = np.arange(len(ranks))
    counts = np.zeros((len(ranks), 13), dtype=np.int64)
    for position in range(5):
        counts[rows, ranks[:, position]] += 1
    order = np.argsort(-np.where(counts > 0, counts * 16 + np.arange(13), -1), axis=1, kind="stable")[:, :5]
    groups = (counts > 0).sum(axis=1)
    most = counts.max(axis=1)
    shifts = np.arange(16, -4, -4)
    grouped = np.where(np.arange(5) < groups[:, None], (order + 1) << shifts, 0).sum(axis=1)
    top = np.where(ranks[:, 4] - ranks[:, 0] == 4, ranks[:, 4],
                   np.where((ranks == (0, 1, 2, 3, _ACE)).all(axis=1), 3, -1))
    cat = np.select([groups == 1, most == 4, (most == 3) & (groups == 2), most == 3, (most == 2) & (groups == 3),
                     most == 2, top >= 0],
                    [Category.FIVE_OF_A_KIND, Category.QUADS, Category.FULL_HOUSE, Category.TRIPS, Category.TWO_PAIR,
                     Category.PAIR, Category.STRAIGHT], Category.HIGH_CARD)
    return cat << CATEGORY_SHIFT | np.where(cat == Category.STRAIGHT, (top + 1) << 16, grouped)


def _flush_value(ranks: Sequence[int], jokers: int, copies: int = 1) -> int:
    """Best straight flush / flush from real cards of one suit plus jokers that stand
    for the best cards of that suit the deck still holds (``copies`` of each card: 1,
    or 2 for a double deck, where a joker may be the twin of a card in the hand)."""
    present = set(ranks)
    if len(present) == len(ranks):
        lo, hi = (min(present), max(present)) if present else (_ACE, _ACE)
        top = min(lo + 4, _ACE)
        if top >= hi and top >= 4:
            return _encode(Category.STRAIGHT_FLUSH, [top])
        if present <= {0, 1, 2, 3, _ACE}:
            return _encode(Category.STRAIGHT_FLUSH, [3])
    if not jokers:   # most calls (every 5-card multiset): nothing to fill in
        return _encode(Category.FLUSH, sorted(ranks, reverse=True))
    held = list(ranks)
    left = [r for r in range(_ACE, -1, -1) for _ in range(copies - held.count(r))][:jokers]
    return _encode(Category.FLUSH, sorted([*ranks, *left], reverse=True))


def _rank3_value(ranks: Sequence[int]) -> int:
    """Value of 3 real ranks as a top row (duplicates allowed)."""
    a, b, c = sorted(ranks, reverse=True)
    if a == c:
        return _encode(Category.TRIPS, [a])
    if a == b:
        return _encode(Category.PAIR, [a, c])
    if b == c:
        return _encode(Category.PAIR, [b, a])
    return _encode(Category.HIGH_CARD, [a, b, c])


def _multisets(size: int) -> list[tuple[int, ...]]:
    return list(itertools.combinations_with_replacement(range(13), size))


def _rank3_values(ranks: np.ndarray) -> list[int]:
    return [_rank3_value(ms) for ms in ranks.tolist()]


def _best_over_jokers(size: int, real_values) -> tuple[np.ndarray, np.ndarray]:
    """(keys, values) for every multiset of <= ``size`` real ranks, the rest being
    jokers that may stand for any rank: best(M) = max over ranks r of best(M + r).
    ``real_values``: the values of the multisets of ``size`` real ranks ([K, size], ascending)."""
    rank_keys = np.array(RANK_KEYS, dtype=np.int64)
    span = size * RANK_KEYS[-1] + 1
    best = np.full(span, -1, dtype=np.int64)
    full = _multisets(size)
    full_keys = np.array(full, dtype=np.int64).reshape(len(full), size)
    best[rank_keys[full_keys].sum(1)] = real_values(full_keys)
    all_keys = [rank_keys[full_keys].sum(1)]
    for n in range(size - 1, -1, -1):
        sets = _multisets(n)
        level = np.array(sets, dtype=np.int64).reshape(len(sets), n)
        keys = rank_keys[level].sum(1)
        best[keys] = best[keys[:, None] + rank_keys[None, :]].max(1)
        all_keys.append(keys)
    keys = np.concatenate(all_keys)
    return keys, best[keys]


def _add_flushes(table: np.ndarray, copies: int) -> None:
    """Raise the flush half of ``table`` to the best flush of every suited multiset of at
    most 5 ranks (the rest jokers) when a card has ``copies`` copies in the deck."""
    # a flush needs 5 cards of one suit; a double deck holds at most 2 copies of a card
    for n in range(5):
        for ms in _multisets(n):
            if all(ms.count(r) <= 2 for r in set(ms)):
                key = _KEY_SPAN + sum(RANK_KEYS[r] for r in ms)
                table[key] = max(int(table[key]), _flush_value(ms, 5 - n, copies))
    keys, values = _five_card_flushes()   # no joker: :func:`_flush_value` over all of them at once
    table[keys] = np.maximum(table[keys], values)


def _five_card_flushes() -> tuple[np.ndarray, np.ndarray]:
    """(keys into the flush half, values) of :func:`_flush_value` for every multiset of 5
    ranks, none held more than twice, and no joker: in numpy (the 6,000 multisets cost a
    Python loop 0.1 s at every import). The keys are distinct (a B5 set's sums)."""
    ranks = np.array(_multisets(5), dtype=np.int64)            # ascending
    ranks = ranks[~(ranks[:, :-2] == ranks[:, 2:]).any(axis=1)]   # at most 2 of a rank
    distinct = (ranks[:, 1:] != ranks[:, :-1]).all(axis=1)
    lo, hi = ranks[:, 0], ranks[:, 4]
    top = np.minimum(lo + 4, _ACE)
    wheel = np.isin(ranks, (0, 1, 2, 3, _ACE)).all(axis=1)
    straight_top = np.where(distinct & (top >= hi) & (top >= 4), top, np.where(distinct & wheel, 3, -1))
    straight_flush = Category.STRAIGHT_FLUSH << CATEGORY_SHIFT | (straight_top + 1) << 16
    flush = Category.FLUSH << CATEGORY_SHIFT | ((ranks[:, ::-1] + 1) << np.arange(16, -4, -4)).sum(axis=1)
    keys = _KEY_SPAN + np.array(RANK_KEYS, dtype=np.int64)[ranks].sum(axis=1)
    return keys, np.where(straight_top >= 0, straight_flush, flush)


def _build_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Card keys, flush offsets by suit sum, the 5-card table, the 3-card table."""
    keys, plain = _best_over_jokers(5, _plain_values)
    table = np.full(2 * _KEY_SPAN, -1, dtype=np.int32)
    table[keys] = plain
    table[_KEY_SPAN + keys] = plain
    _add_flushes(table, copies=1)
    digits = np.arange(5 * _JOKER_SUIT_KEY + 1)
    flush_possible = np.zeros(len(digits), dtype=bool)
    for d in range(4):
        flush_possible |= (digits // 6**d) % 6 == 5
    flush_offset = np.where(flush_possible, _KEY_SPAN, 0).astype(np.int32)
    ids = np.arange(NUM_IDS)
    card_key = np.where(
        ids >= JOKER_BASE,
        _JOKER_SUIT_KEY << SUIT_SHIFT,
        np.array(RANK_KEYS)[(ids % 52) // 4] | (6 ** (ids % 4)) << SUIT_SHIFT,
    ).astype(np.int32)
    top_keys, top = _best_over_jokers(3, _rank3_values)
    top_table = np.full(3 * RANK_KEYS[-1] + 1, -1, dtype=np.int32)
    top_table[top_keys] = top
    return card_key, flush_offset, table, top_table


CARD_KEY, FLUSH_OFFSET, TABLE, TOP_TABLE = _build_tables()
ROW_TABLE = np.concatenate((TABLE, TOP_TABLE))   # the 5-card table, then the 3-card one from TOP_ROWS on
TOP_ROWS = len(TABLE)
_TOP_TABLE: dict = {int(k): int(TOP_TABLE[k]) for k in np.flatnonzero(TOP_TABLE >= 0)}   # 560 entries
# The scalar path indexes Python lists and tuples (faster than dicts or numpy scalars). The None
# padding makes ids 112..255 and the usual sentinels -1..-144 fail instead of wrapping.
_CARD_KEY: list = CARD_KEY.tolist() + [None] * (256 - NUM_IDS)
# tuples, not lists: the garbage collector stops tracking a tuple of ints, while it walks a
# list's 1.5 million entries at every full collection (a cost every long-running caller paid)
_SCALAR_TABLE: tuple = tuple(TABLE.tolist())
_FLUSH_OFFSET: tuple = tuple(FLUSH_OFFSET.tolist())


# ---------------------------------------------------------------- public evaluators
def _bad(cards: object, n: int) -> ValueError:
    return ValueError(f"expected {n} card ids in 0..{NUM_IDS - 1}, got {cards!r}")


def rank5(cards: Sequence[int], _key=_CARD_KEY, _table=_SCALAR_TABLE, _flush=_FLUSH_OFFSET) -> int:
    """Strength of a 5-card hand (card ids from ``envs.engine.cards``); larger is stronger."""
    try:
        a, b, c, d, e = cards
        s = _key[a] + _key[b] + _key[c] + _key[d] + _key[e]
    except (ValueError, TypeError, IndexError):
        raise _bad(cards, 5) from None
    return _table[(s & RANK_MASK) + _flush[s >> SUIT_SHIFT]]


def rank3(cards: Sequence[int], _key=_CARD_KEY, _table=_TOP_TABLE) -> int:
    """Strength of a 3-card row (high card, pair, trips) on the same scale as :func:`rank5`."""
    try:
        a, b, c = cards
        s = _key[a] + _key[b] + _key[c]
    except (ValueError, TypeError, IndexError):
        raise _bad(cards, 3) from None
    return _table[s & RANK_MASK]


def rank_cards(cards: Sequence[int]) -> int:
    """:func:`rank5` for 5 cards, :func:`rank3` for 3."""
    return rank3(cards) if len(cards) == 3 else rank5(cards)


_CHUNK = 1 << 15   # rows per pass: keeps the intermediates in cache


def _as_hands(hands: np.ndarray | Iterable[Sequence[int]], size: int, name: str) -> tuple[np.ndarray, np.ndarray]:
    """The hands as an integer [N, size] array, and its unsigned view (a negative id
    becomes huge there, so one ``max()`` checks both ends of the id range)."""
    h = np.asarray(hands)
    if h.ndim != 2 or h.shape[1] != size or not np.issubdtype(h.dtype, np.integer):
        raise ValueError(f"{name} expects an integer array of shape (N, {size}), got {h.dtype} {h.shape}")
    return h, h.view(np.dtype(f"u{h.itemsize}"))


def _check_ids(h: np.ndarray, unsigned: np.ndarray, name: str) -> None:
    if len(h) and int(unsigned.max()) >= NUM_IDS:
        bad = h[(unsigned >= NUM_IDS).any(1)][0]
        raise ValueError(f"{name}: card ids must lie in 0..{NUM_IDS - 1}, got hand {bad.tolist()}")


def _key_sums(h: np.ndarray) -> np.ndarray:
    """Each hand's key (the sum of its cards' :data:`CARD_KEY` entries); ids already checked."""
    keys = CARD_KEY.take(h, mode="clip")
    s = keys[:, 0] + keys[:, 1]
    for j in range(2, h.shape[1]):
        s += keys[:, j]
    return s


_SMALL = 2048      # up to this many rows one pass without preallocated buffers is faster (planners' batches)


def rank5_batch(hands: np.ndarray | Iterable[Sequence[int]]) -> np.ndarray:
    """Vectorized :func:`rank5`: integer array [N, 5] of card ids (double-deck ids and
    jokers allowed) -> int32 array [N] of exactly the values :func:`rank5` gives."""
    return _rank5_batch(hands, TABLE, "rank5_batch")


def _rank5_batch(hands: np.ndarray | Iterable[Sequence[int]], table: np.ndarray, name: str) -> np.ndarray:
    h, unsigned = _as_hands(hands, 5, name)
    n = len(h)
    if n <= _SMALL:
        _check_ids(h, unsigned, name)
        s = _key_sums(h)
        index = FLUSH_OFFSET.take(s >> SUIT_SHIFT, mode="clip")
        index += s & RANK_MASK
        return table.take(index, mode="clip")
    out = np.empty(n, dtype=np.int32)
    m = min(n, _CHUNK)
    keys = np.empty((m, 5), dtype=np.int32)
    s = np.empty(m, dtype=np.int32)
    idx = np.empty(m, dtype=np.int32)
    tmp = np.empty(m, dtype=np.int32)
    for lo in range(0, n, _CHUNK):
        hi = min(lo + _CHUNK, n)
        _check_ids(h[lo:hi], unsigned[lo:hi], name)
        k = hi - lo
        if k < m:
            keys, s, idx, tmp = keys[:k], s[:k], idx[:k], tmp[:k]
        # mode="clip" avoids numpy's buffered bounds-checked path; ids were checked above
        CARD_KEY.take(h[lo:hi], out=keys, mode="clip")
        np.add(keys[:, 0], keys[:, 1], out=s)
        s += keys[:, 2]
        s += keys[:, 3]
        s += keys[:, 4]
        np.right_shift(s, SUIT_SHIFT, out=tmp)
        FLUSH_OFFSET.take(tmp, out=idx, mode="clip")
        np.bitwise_and(s, RANK_MASK, out=tmp)
        idx += tmp
        table.take(idx, out=out[lo:hi], mode="clip")
    return out


def rank_from_keys(sums: np.ndarray, table: int | np.ndarray = 0) -> np.ndarray:
    """:func:`rank5` of 5-card hands (``table`` 0) or :func:`rank3` of 3-card rows (``table``
    :data:`TOP_ROWS`) given as the sums of their cards' :data:`CARD_KEY` entries (any shape;
    ``table`` may be an array that broadcasts against ``sums``, to rank both kinds in one
    pass) -> int32. Three cards never make a flush, so no flush offset applies to them."""
    index = sums & RANK_MASK
    index += FLUSH_OFFSET.take(sums >> SUIT_SHIFT, mode="clip")
    index += table
    return ROW_TABLE.take(index, mode="clip")


def rank3_batch(rows: np.ndarray | Iterable[Sequence[int]]) -> np.ndarray:
    """Vectorized :func:`rank3`: integer array [N, 3] of card ids -> int32 array [N]."""
    h, unsigned = _as_hands(rows, 3, "rank3_batch")
    _check_ids(h, unsigned, "rank3_batch")
    return rank_from_keys(_key_sums(h), TOP_ROWS)
