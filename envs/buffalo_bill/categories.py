"""Buffalo Bill score-sheet categories: names, built-in sheets and line values.

docs/rules.md §2.6: a card is worth its number, J/Q/K 10, A 11; a category scores the
sum of the cards that form it, and the value written on a line is the best one
the hand allows for that category ("ignoring cards" to make a lower category
with part of the hand); 0 when the hand does not make it (scratching).

Every category value depends on one of three things only, which keeps the
tables tiny (no 2.6M-hand table):

* ``rank``  - the multiset of the five ranks (pairs, straights, blaze, ...):
  a table over the 6,188 sorted rank 5-multisets;
* ``suit``  - the rank set of a single suit (flushes, straight flushes,
  bobtails): a table over the 8,192 13-bit rank masks, maxed over the 4 suits;
* ``color`` - all five cards red or all black (gang; "flush or gang").

:class:`LineEvaluator` turns a sheet (tuple of names) into the value of every
line for a hand, one hand at a time (``values``) or a numpy batch of hands
(``batch``); both read the same tables.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations_with_replacement, product
from math import comb

import numpy as np

from parlor.envs.engine.bits import mask_bits

CARD_VALUE = (2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 11)  # by rank 0=2 .. 12=A
FACE_RANKS = frozenset((9, 10, 11))  # J Q K (no aces)
NUMBER_RANKS = frozenset(range(9))  # 2..10
ACE = 12

STANDARD = (
    "straight flush", "four of a kind", "full house", "flush", "straight",
    "three of a kind", "two pair", "one pair", "high card",
)
EXTENDED = (
    "straight flush", "four of a kind", "blaze", "big bobtail", "full house", "flush",
    "straight", "four blaze", "little bobtail", "three of a kind", "four flush",
    "four straight", "sequence", "two pair", "gang", "puritan", "one pair", "high card",
)
BOBTAIL = (
    "bobtail", "four of a kind", "full house", "flush or gang", "straight", "three of a kind",
    "two pair", "one pair", "high card", "face cards", "number cards",
)
SHEETS: dict[str, tuple[str, ...]] = {"standard": STANDARD, "extended": EXTENDED, "bobtail": BOBTAIL}
ALIASES = {"plucked nickel": "high card"}


# ---------------------------------------------------------------- runs (straights)
def _runs(length: int) -> tuple[tuple[int, int], ...]:
    """(rank bitmask, value) of every run of ``length`` consecutive ranks; the ace
    plays high (..K-A) or low (A-2-..) but never wraps (K-A-2). On the short deck
    7..A the low ace needs a 2, so A-7-8-9-T is no straight."""
    out = []
    for start in range(-1, 14 - length):  # start -1 = the low ace
        ranks = [ACE if r == -1 else r for r in range(start, start + length)]
        out.append((sum(1 << r for r in ranks), sum(CARD_VALUE[r] for r in ranks)))
    return tuple(out)


RUNS = {k: _runs(k) for k in (3, 4, 5)}
VALUES = np.array(CARD_VALUE, dtype=np.int64)
_FACE = np.array(sorted(FACE_RANKS))
_NUMBER = np.array(sorted(NUMBER_RANKS))

# The categories below read many hands at once (numpy arrays: the tables are built from
# all of them in one pass): rank categories take the rank counts [N, 13] of 5-card hands,
# suit categories the rank sets [N] (13-bit masks) of one suit. Each returns int64 [N].


def best_run(masks: np.ndarray, length: int) -> np.ndarray:
    """Value of the best run of ``length`` consecutive ranks inside each rank set (0 if none)."""
    best = np.zeros(len(masks), dtype=np.int64)
    for bits, value in RUNS[length]:
        best = np.where(masks & bits == bits, np.maximum(best, value), best)
    return best


# ---------------------------------------------------------------- rank categories
def _groups(counts: np.ndarray, at_least: int) -> np.ndarray:
    """[N, 13]: per rank held ``at_least`` times or more, the value of ``at_least`` of its cards (else 0)."""
    return np.where(counts >= at_least, at_least * VALUES, 0)


def _rank_mask(counts: np.ndarray) -> np.ndarray:
    return ((counts > 0) << np.arange(13)).sum(axis=1)


def _total(counts: np.ndarray) -> np.ndarray:
    return counts @ VALUES


def _all_of(counts: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """Whether all five cards are of ``ranks``."""
    return counts[:, ranks].sum(axis=1) == 5


def four_of_a_kind(counts):
    return _groups(counts, 4).max(axis=1)


def full_house(counts):
    return np.where((counts == 3).any(axis=1) & (counts == 2).any(axis=1), _total(counts), 0)


def straight(counts):
    return best_run(_rank_mask(counts), 5)


def three_of_a_kind(counts):
    return _groups(counts, 3).max(axis=1)


def two_pair(counts):
    pairs = np.sort(_groups(counts, 2), axis=1)  # one pair from each of two different ranks
    return np.where((counts >= 2).sum(axis=1) >= 2, pairs[:, -1] + pairs[:, -2], 0)


def one_pair(counts):
    return _groups(counts, 2).max(axis=1)


def high_card(counts):
    return _total(counts)  # always scorable: all five cards


def blaze(counts):
    return np.where(_all_of(counts, _FACE), _total(counts), 0)


def four_blaze(counts):
    return np.where(counts[:, _FACE].sum(axis=1) >= 4, 4 * 10, 0)  # any 4 of J/Q/K, all worth 10


def four_straight(counts):
    return best_run(_rank_mask(counts), 4)


def sequence(counts):
    return best_run(_rank_mask(counts), 3)


def puritan(counts):
    return np.where(_all_of(counts, _NUMBER), _total(counts), 0)


def face_cards(counts):
    return counts[:, _FACE] @ VALUES[_FACE]


def number_cards(counts):
    return counts[:, _NUMBER] @ VALUES[_NUMBER]


# ---------------------------------------------------------------- suit categories
# Each takes rank sets (13-bit masks) of ONE suit; the line takes the best suit.
def straight_flush(masks):
    return best_run(masks, 5)


def big_bobtail(masks):
    return best_run(masks, 4)


def little_bobtail(masks):
    return best_run(masks, 3)


def bobtail(masks):
    return np.maximum(np.maximum(best_run(masks, 5), best_run(masks, 4)), best_run(masks, 3))


def flush(masks):
    bits = mask_bits(masks, 13)
    return np.where(bits.sum(axis=1) == 5, bits @ VALUES, 0)


def four_flush(masks):
    bits = mask_bits(masks, 13)
    from_top = np.cumsum(bits[:, ::-1], axis=1)[:, ::-1]   # cards of this rank or higher
    best_four = bits * (from_top <= 4)   # the four highest ranks hold the four best values
    return np.where(bits.sum(axis=1) >= 4, best_four @ VALUES, 0)


RANK_CATEGORIES: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "four of a kind": four_of_a_kind, "full house": full_house, "straight": straight,
    "three of a kind": three_of_a_kind, "two pair": two_pair, "one pair": one_pair,
    "high card": high_card, "blaze": blaze, "four blaze": four_blaze,
    "four straight": four_straight, "sequence": sequence, "puritan": puritan,
    "face cards": face_cards, "number cards": number_cards,
}
SUIT_CATEGORIES: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "straight flush": straight_flush, "big bobtail": big_bobtail, "little bobtail": little_bobtail,
    "bobtail": bobtail, "flush": flush, "four flush": four_flush,
}
# A flush is all one colour, so "flush or gang" is worth the five cards exactly when gang is.
COLOR_CATEGORIES = ("gang", "flush or gang")
CATEGORIES: tuple[str, ...] = tuple(RANK_CATEGORIES) + tuple(SUIT_CATEGORIES) + COLOR_CATEGORIES


def canonical_name(name: str) -> str | None:
    """'Four_of_a_Kind' -> 'four of a kind'; None if no category has that name."""
    key = " ".join(name.lower().replace("_", " ").replace("-", " ").split())
    key = ALIASES.get(key, key)
    return key if key in CATEGORIES else None


# ---------------------------------------------------------------- tables
NUM_MULTISETS = comb(13 + 4, 5)  # sorted rank 5-multisets (5 of a kind included, never used)
# multiset index of sorted ranks r0<=..<=r4: sum C(r_i + i, i + 1) (combinations with repetition)
_MULTI = tuple(tuple(comb(r + i, i + 1) for r in range(13)) for i in range(5))
MULTI_TABLE = np.array(_MULTI, dtype=np.int64)  # [position, rank]


def multiset_index(sorted_ranks: Sequence[int]) -> int:
    m = _MULTI
    return m[0][sorted_ranks[0]] + m[1][sorted_ranks[1]] + m[2][sorted_ranks[2]] + m[3][sorted_ranks[3]] + m[4][sorted_ranks[4]]


@dataclass(frozen=True)
class Tables:
    """The category values of every rank multiset and one-suit rank set (read-only)."""

    rank: np.ndarray     # int16 [NUM_MULTISETS, len(RANK_CATEGORIES)]
    total: np.ndarray    # int16 [NUM_MULTISETS]: the card total of each multiset
    suit: np.ndarray     # int16 [8192, len(SUIT_CATEGORIES)]


def _frozen(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


@cache
def tables() -> Tables:
    """Built at the first :class:`LineEvaluator`, not at import (a process that only imports
    the game pays nothing), each category reading all multisets or rank sets at once."""
    multisets = np.array(list(combinations_with_replacement(range(13), 5)))   # sorted ranks
    index = MULTI_TABLE[np.arange(5), multisets].sum(axis=1)
    counts = np.zeros((NUM_MULTISETS, 13), dtype=np.int64)
    for position in range(5):
        counts[index, multisets[:, position]] += 1
    rank = np.stack([f(counts) for f in RANK_CATEGORIES.values()], axis=1).astype(np.int16)
    masks = np.arange(1 << 13)
    suit = np.stack([f(masks) for f in SUIT_CATEGORIES.values()], axis=1).astype(np.int16)
    return Tables(_frozen(rank), _frozen(_total(counts).astype(np.int16)), _frozen(suit))


_RANK_COL = {name: j for j, name in enumerate(RANK_CATEGORIES)}
_SUIT_COL = {name: j for j, name in enumerate(SUIT_CATEGORIES)}
BLACK = (True, False, False, True)  # clubs, spades black; diamonds, hearts red
MAX_VALUE = 11 + 11 + 11 + 11 + 10  # no line can exceed four aces and a king


# Per card, one int packing its suit count (4 bits per suit, low bits) and its bit in the
# per-suit rank sets (13 bits per suit, from _SETS_AT); the sum over a hand gives both.
_SETS_AT = 16
_COUNTS_MASK = (1 << _SETS_AT) - 1
_SUIT_CODE = tuple((1 << 4 * (c & 3)) | (1 << (_SETS_AT + 13 * (c & 3) + (c >> 2))) for c in range(52))


def _count_tables() -> tuple[list[int], list[bool]]:
    """By packed suit counts: the suit held 3+ times (-1 if none), and whether the hand is one colour."""
    three, one_color = [-1] * (1 << _SETS_AT), [False] * (1 << _SETS_AT)
    for c0, c1, c2 in product(range(6), repeat=3):
        counts = [c0, c1, c2, 5 - c0 - c1 - c2]
        if counts[3] < 0:
            continue
        key = sum(n << 4 * s for s, n in enumerate(counts))
        top = max(counts)
        three[key] = counts.index(top) if top >= 3 else -1
        black = counts[0] + counts[3]  # clubs and spades (BLACK)
        one_color[key] = black in (0, 5)
    return three, one_color


_THREE_SUIT, _ONE_COLOR = _count_tables()


class LineEvaluator:
    """Values of every line of one sheet for a hand (the best the hand allows)."""

    def __init__(self, lines: Sequence[str]):
        self.lines = tuple(lines)
        n = len(self.lines)
        built = self.tables = tables()
        rank_cols = [(j, _RANK_COL[c]) for j, c in enumerate(self.lines) if c in _RANK_COL]
        # per multiset: the full line vector with every rank line filled in (others 0)
        rows = np.zeros((NUM_MULTISETS, n), dtype=np.int16)
        for j, col in rank_cols:
            rows[:, j] = built.rank[:, col]
        self.rank_rows_np = rows
        self.rank_rows: list[tuple[int, ...]] = [tuple(r) for r in rows.tolist()]
        self.suit_lines = [(j, built.suit[:, _SUIT_COL[c]].tolist()) for j, c in enumerate(self.lines) if c in _SUIT_COL]
        self.color_lines = [j for j, c in enumerate(self.lines) if c in COLOR_CATEGORIES]
        self._totals = built.total.tolist()

    def values(self, cards: Sequence[int]) -> list[int]:
        """Line values of a 5-card hand (card ids 0..51), in sheet order."""
        a, b, c, d, e = sorted(cards)
        m0, m1, m2, m3, m4 = _MULTI
        idx = m0[a >> 2] + m1[b >> 2] + m2[c >> 2] + m3[d >> 2] + m4[e >> 2]
        out = list(self.rank_rows[idx])
        if self.suit_lines or self.color_lines:
            code = _SUIT_CODE
            packed = code[a] + code[b] + code[c] + code[d] + code[e]  # distinct cards: sum == OR of the sets
            counts = packed & _COUNTS_MASK
            # every suit category needs 3+ cards of one suit; five cards hold at most one such suit
            suit = _THREE_SUIT[counts]
            if suit >= 0:
                mask = packed >> (_SETS_AT + 13 * suit) & 8191
                for j, table in self.suit_lines:
                    out[j] = table[mask]
            if _ONE_COLOR[counts]:
                total = self._totals[idx]
                for j in self.color_lines:
                    out[j] = total
        return out

    def batch(self, hands: np.ndarray) -> np.ndarray:
        """int16[K, lines] for int[K, 5] hands: the same values, vectorized."""
        hands = np.sort(np.asarray(hands, dtype=np.int64), axis=1)
        ranks = hands >> 2
        idx = MULTI_TABLE[np.arange(5), ranks].sum(axis=1)
        out = self.rank_rows_np[idx].copy()
        if self.suit_lines:
            bits = np.left_shift(1, ranks)
            suits = hands & 3
            masks = [np.where(suits == s, bits, 0).sum(axis=1) for s in range(4)]
            for j, _ in self.suit_lines:
                col = self.tables.suit[:, _SUIT_COL[self.lines[j]]]
                out[:, j] = np.max([col[m] for m in masks], axis=0)
        if self.color_lines:
            black = np.array(BLACK)[hands & 3].sum(axis=1)
            same = (black == 0) | (black == 5)
            for j in self.color_lines:
                out[:, j] = np.where(same, self.tables.total[idx], 0)
        return out
