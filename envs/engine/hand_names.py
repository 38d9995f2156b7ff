"""Poker hand strengths (values of ``rank5``/``rank3`` in ``engine/hands.py``) in words: what
renders, table talk and error messages say about a hand."""
from __future__ import annotations

from parlor.envs.engine.cards import RANK_CHARS
from parlor.envs.engine.hands import Category, category, is_royal, rank_values

_NAMES = {
    Category.HIGH_CARD: "high card", Category.PAIR: "pair", Category.TWO_PAIR: "two pair",
    Category.TRIPS: "three of a kind", Category.STRAIGHT: "straight", Category.FLUSH: "flush",
    Category.FULL_HOUSE: "full house", Category.QUADS: "four of a kind",
    Category.STRAIGHT_FLUSH: "straight flush", Category.FIVE_OF_A_KIND: "five of a kind",
}


def describe(rank: int) -> str:
    """Human-readable text, e.g. ``"pair Q 7"`` or ``"royal flush"``."""
    if is_royal(rank):
        return "royal flush"
    vals = " ".join(RANK_CHARS[v] for v in rank_values(rank))
    return f"{_NAMES[category(rank)]} {vals}"


def category_name(rank: int) -> str:
    """The category in words: ``"pair"``, ``"flush"``, ``"royal flush"``."""
    return "royal flush" if is_royal(rank) else _NAMES[category(rank)]


def why_better(better: int, worse: int) -> str:
    """Why strength ``better`` beats ``worse`` (values of ``rank5``/``rank3``), in words:
    ``"flush beats straight"``, ``"both pair: Q beats 9"``, ``"both two pair K 8: kicker 7 beats 4"``."""
    if better == worse:
        return "equal hands"
    if category(better) != category(worse):
        return f"{category_name(better)} beats {category_name(worse)}"
    a, b = rank_values(better), rank_values(worse)
    i = next(k for k in range(min(len(a), len(b))) if a[k] != b[k])
    shared = "".join(f" {RANK_CHARS[v]}" for v in a[:i])
    kicker = "kicker " if i >= _FIRST_KICKER.get(category(better), len(a)) else ""
    return f"both {category_name(better)}{shared}: {kicker}{RANK_CHARS[a[i]]} beats {RANK_CHARS[b[i]]}"


# where the tie-break values of a category stop naming its groups and start naming kickers
_FIRST_KICKER = {Category.PAIR: 1, Category.TWO_PAIR: 2, Category.TRIPS: 1, Category.QUADS: 1}
