"""Rummy sets and runs (Tonk's spreads): detection, the spread-id table, hits.

A *set* is 3 or 4 cards of one rank; a *run* is 3 or more consecutive cards of
one suit where the ace is low (A-2-3) or high (Q-K-A) but never in the middle
(K-A-2 is not a run). Cards are the standard ids 0..51 of ``envs.engine.cards``;
a group of cards is also handled as a Python ``int`` bit mask (bit ``c`` = card
``c``), which keeps the hot paths of the games allocation-free.

Every possible spread has a fixed id, enumerated the OpenSpiel gin-rummy way:

| ids      | spreads                                                                  |
|----------|--------------------------------------------------------------------------|
| 0..64    | sets: per rank 2..A, the four 3-card subsets (suits omitted s, h, d, c order of ``combinations``) then the 4-card set |
| 65..368  | runs: per suit c, d, h, s; per start position; per length 3, 4, ...       |

Run positions: 0 = ace low, 1..12 = ranks 2..K, 13 = ace high. A run spans
positions ``lo..hi``; the 13-card run of a whole suit is listed once (ace low).
``SPREAD_MASKS`` (uint64) and ``SPREAD_INCIDENCE`` (bool[369, 52]) let a game
find every spread inside a hand with one vectorized comparison.
Framework-free (numpy only).
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from parlor.envs.engine.bits import mask_bits
from parlor.envs.engine.cards import NUM_RANKS, NUM_SUITS, RANK_ACE, card

SET = "set"
RUN = "run"
ACE_LOW, ACE_HIGH = 0, 13
NUM_SETS = NUM_RANKS * 5
MAX_POS = 13


def card_value(c: int) -> int:
    """Tonk count of a card: A 1, 2..9 their number, T J Q K 10."""
    r = (c % 52) // 4
    return 1 if r == RANK_ACE else min(r + 2, 10)


VALUES = np.array([card_value(c) for c in range(52)], dtype=np.int16)


def count(cards: Iterable[int]) -> int:
    """Total count of some cards (ids 0..51)."""
    return int(sum(VALUES[c] for c in cards))


def mask_of(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << int(c)
    return m


def cards_of(mask: int) -> list[int]:
    """The card ids of a bit mask, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _chunk_tables() -> list[list[int]]:
    """Count of every 13-bit slice of a card mask (4 slices cover ids 0..51)."""
    bits = mask_bits(np.arange(8192), 13)
    return [(bits * VALUES[13 * k:13 * k + 13]).sum(axis=1).tolist() for k in range(4)]


def mask_count(mask: int) -> int:
    """Tonk count of the cards in a bit mask (table lookups, no loop over cards)."""
    t0, t1, t2, t3 = _CHUNKS
    return t0[mask & 8191] + t1[(mask >> 13) & 8191] + t2[(mask >> 26) & 8191] + t3[(mask >> 39) & 8191]


_CHUNKS = _chunk_tables()


def pos_card(pos: int, suit: int) -> int:
    """The card at run position ``pos`` (0 and 13 are the ace) of ``suit``."""
    return card(RANK_ACE if pos in (ACE_LOW, ACE_HIGH) else pos - 1, suit)


@dataclass(frozen=True, slots=True)
class Spread:
    """One entry of the spread table. Sets: ``key`` = rank; runs: ``key`` = suit, span lo..hi."""

    id: int
    kind: str
    key: int
    lo: int
    hi: int
    cards: tuple[int, ...]
    mask: int


def _enumerate() -> tuple[Spread, ...]:
    out: list[Spread] = []
    for rank in range(NUM_RANKS):
        suits_options = list(combinations(range(NUM_SUITS), 3)) + [tuple(range(NUM_SUITS))]
        for suits in suits_options:
            cards = tuple(card(rank, s) for s in suits)
            out.append(Spread(len(out), SET, rank, -1, -1, cards, mask_of(cards)))
    for suit in range(NUM_SUITS):
        for lo in range(MAX_POS - 1):
            top = MAX_POS - 1 if lo == ACE_LOW else MAX_POS
            for hi in range(lo + 2, top + 1):
                if lo == 1 and hi == MAX_POS:  # the whole suit again (listed once, ace low)
                    continue
                cards = tuple(pos_card(p, suit) for p in range(lo, hi + 1))
                out.append(Spread(len(out), RUN, suit, lo, hi, cards, mask_of(cards)))
    return tuple(out)


SPREADS: tuple[Spread, ...] = _enumerate()
NUM_SPREADS = len(SPREADS)
SPREAD_MASKS = np.array([s.mask for s in SPREADS], dtype=np.uint64)
SPREAD_SIZE = np.array([len(s.cards) for s in SPREADS], dtype=np.int8)
SPREAD_INCIDENCE = np.zeros((NUM_SPREADS, 52), dtype=bool)
for _s in SPREADS:
    SPREAD_INCIDENCE[_s.id, list(_s.cards)] = True
SPREAD_BY_MASK: dict[int, int] = {s.mask: s.id for s in SPREADS}
del _s


def spread_id(cards: Iterable[int]) -> int | None:
    """The id of the spread made of exactly these cards, or None if they are no spread."""
    return SPREAD_BY_MASK.get(mask_of(cards))


def is_set(cards: Iterable[int]) -> bool:
    sid = spread_id(cards)
    return sid is not None and SPREADS[sid].kind == SET


def is_run(cards: Iterable[int]) -> bool:
    sid = spread_id(cards)
    return sid is not None and SPREADS[sid].kind == RUN


def is_spread(cards: Iterable[int]) -> bool:
    return spread_id(cards) is not None


def spreads_in(hand_mask: int, candidates: np.ndarray | None = None) -> np.ndarray:
    """Ids of every spread whose cards all lie in ``hand_mask`` (optionally among ``candidates``)."""
    masks = SPREAD_MASKS if candidates is None else SPREAD_MASKS[candidates]
    inside = (masks & np.uint64(hand_mask)) == masks
    found = np.flatnonzero(inside)
    return found if candidates is None else candidates[found]


def accepts(kind: str, key: int, lo: int, hi: int, mask: int, sets_allowed: bool = True) -> int:
    """Bit mask of the cards that can hit a spread on the table.

    A set takes its missing suits while it has fewer than 4 cards (none when
    ``sets_allowed`` is False, e.g. Tonk's ``hit_runs_only``); a run takes the
    next card at either end, the ace only beyond a K (high) or below a 2 (low).
    """
    if kind == SET:
        if not sets_allowed:
            return 0
        full = mask_of(card(key, s) for s in range(NUM_SUITS))
        return full & ~mask
    out = 0
    if lo > ACE_LOW:
        out |= 1 << pos_card(lo - 1, key)
    if hi < ACE_HIGH:
        out |= 1 << pos_card(hi + 1, key)
    return out & ~mask


def extend_run(key: int, lo: int, hi: int, c: int) -> tuple[int, int]:
    """New span of a run after card ``c`` hits it (``c`` must be in ``accepts``)."""
    if lo > ACE_LOW and pos_card(lo - 1, key) == c:
        return lo - 1, hi
    if hi < ACE_HIGH and pos_card(hi + 1, key) == c:
        return lo, hi + 1
    raise ValueError(f"card {c} does not extend the run {lo}..{hi} of suit {key}")
