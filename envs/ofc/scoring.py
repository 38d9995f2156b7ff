"""OFC showdown rules (docs/rules.md §1.5-§1.9): fouls, royalties, pairwise scoring, Fantasyland.

Pure functions on finished boards. Hand strength comes from the shared
evaluator ``envs.engine.hands`` (``rank3`` is on the same scale as ``rank5``,
so the 3-card top row compares directly with the 5-card middle row).
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import NamedTuple

from parlor.envs.engine.cards import RANK_QUEEN
from parlor.envs.engine.hands import Category, category, is_royal, rank3, rank5, rank_values

TOP, MIDDLE, BOTTOM = 0, 1, 2
ROW_NAMES = ("top", "middle", "bottom")
ROW_SIZES = (3, 5, 5)
BOARD_SIZE = 13
SCOOP_BONUS = 3
ROWS_PLUS_SCOOP = 3 + SCOOP_BONUS  # what a fouled player pays before royalties

# Royalties by category for the middle and bottom rows; a royal flush is looked up separately.
MIDDLE_ROYALTY = {
    Category.TRIPS: 2, Category.STRAIGHT: 4, Category.FLUSH: 8, Category.FULL_HOUSE: 12,
    Category.QUADS: 20, Category.STRAIGHT_FLUSH: 30,
}
BOTTOM_ROYALTY = {
    Category.STRAIGHT: 2, Category.FLUSH: 4, Category.FULL_HOUSE: 6,
    Category.QUADS: 10, Category.STRAIGHT_FLUSH: 15,
}
MIDDLE_ROYAL_FLUSH, BOTTOM_ROYAL_FLUSH = 50, 25
TOP_PAIR_FIRST_PAYING = 4   # rank index of the six: 66 pays 1, each rank up +1 (AA pays 9)
TOP_TRIPS_BASE = 10         # 222 pays 10, each rank up +1 (AAA pays 22)

FL_CARDS_OPTIONS = ("regular", "progressive")
FL_STAY_OPTIONS = ("trips_fh_quads", "trips_quads", "none")
FL_REGULAR_CARDS = 14
FL_STAY_CARDS = 14
# progressive: QQ 14, KK 15, AA 16 (by the pair's rank index), trips 17
FL_PROGRESSIVE_PAIR = {RANK_QUEEN: 14, RANK_QUEEN + 1: 15, RANK_QUEEN + 2: 16}
FL_PROGRESSIVE_TRIPS = 17


@cache
def top_royalty(rank: int) -> int:
    cat = category(rank)
    if cat == Category.TRIPS:
        return TOP_TRIPS_BASE + rank_values(rank)[0]
    if cat == Category.PAIR:
        return max(0, rank_values(rank)[0] - TOP_PAIR_FIRST_PAYING + 1)
    return 0


@cache
def middle_royalty(rank: int) -> int:
    if is_royal(rank):
        return MIDDLE_ROYAL_FLUSH
    return MIDDLE_ROYALTY.get(category(rank), 0)


@cache
def bottom_royalty(rank: int) -> int:
    if is_royal(rank):
        return BOTTOM_ROYAL_FLUSH
    return BOTTOM_ROYALTY.get(category(rank), 0)


def is_fouled(top_rank: int, middle_rank: int, bottom_rank: int) -> bool:
    """Fouled when a row is strictly stronger than the row below it."""
    return top_rank > middle_rank or middle_rank > bottom_rank


class BoardResult(NamedTuple):
    """A finished board's strengths (top, middle, bottom), foul flag and royalties."""

    ranks: tuple[int, int, int]
    fouled: bool
    royalties: tuple[int, int, int]  # all zero when fouled
    royalty: int                     # their sum


_NO_ROYALTIES = (0, 0, 0)
_new_result = tuple.__new__  # builds a BoardResult without the NamedTuple __new__ call (showdown hot path)


def evaluate_board(top: Sequence[int], middle: Sequence[int], bottom: Sequence[int]) -> BoardResult:
    if len(top) != 3 or len(middle) != 5 or len(bottom) != 5:
        raise ValueError(f"a finished board has rows of {ROW_SIZES} cards, got {(len(top), len(middle), len(bottom))}")
    t, m, b = rank3(top), rank5(middle), rank5(bottom)
    if t > m or m > b:  # fouled (is_fouled, inlined)
        return _new_result(BoardResult, ((t, m, b), True, _NO_ROYALTIES, 0))
    rt, rm, rb = top_royalty(t), middle_royalty(m), bottom_royalty(b)
    return _new_result(BoardResult, ((t, m, b), False, (rt, rm, rb), rt + rm + rb))


def pair_points(a: BoardResult, b: BoardResult) -> int:
    """What A receives from B (B receives the negative)."""
    if a.fouled:
        return 0 if b.fouled else -(ROWS_PLUS_SCOOP + b.royalty)
    if b.fouled:
        return ROWS_PLUS_SCOOP + a.royalty
    (a0, a1, a2), (b0, b1, b2) = a.ranks, b.ranks
    won = (a0 > b0) + (a1 > b1) + (a2 > b2)
    lost = (a0 < b0) + (a1 < b1) + (a2 < b2)
    scoop = SCOOP_BONUS if won == 3 else -SCOOP_BONUS if lost == 3 else 0
    return won - lost + scoop + a.royalty - b.royalty


def score_hand(results: Sequence[BoardResult]) -> list[int]:
    """Each player's points: the sum of his pairwise results (zero-sum over the table)."""
    n = len(results)
    if n == 2:  # heads-up: a single pair
        x = pair_points(results[0], results[1])
        return [x, -x]
    points = [0] * n
    for i in range(n):
        for j in range(i + 1, n):
            x = pair_points(results[i], results[j])
            points[i] += x
            points[j] -= x
    return points


def fl_entry_cards(result: BoardResult, fl_cards: str) -> int:
    """Cards for the next hand's Fantasyland earned by a regular hand; 0 = no entry."""
    return 0 if result.fouled else _fl_entry_by_top(result.ranks[0], fl_cards)


@cache
def _fl_entry_by_top(top: int, fl_cards: str) -> int:
    cat = category(top)
    if cat == Category.TRIPS:
        return FL_REGULAR_CARDS if fl_cards == "regular" else FL_PROGRESSIVE_TRIPS
    if cat == Category.PAIR and rank_values(top)[0] >= RANK_QUEEN:
        return FL_REGULAR_CARDS if fl_cards == "regular" else FL_PROGRESSIVE_PAIR[rank_values(top)[0]]
    return 0


def fl_stays(result: BoardResult, fl_stay: str) -> bool:
    """Whether a hand played in Fantasyland earns another Fantasyland hand."""
    if result.fouled or fl_stay == "none":
        return False
    top_trips = category(result.ranks[0]) == Category.TRIPS
    bottom_quads = category(result.ranks[2]) >= Category.QUADS
    if fl_stay == "trips_quads":
        return top_trips or bottom_quads
    return top_trips or bottom_quads or category(result.ranks[1]) >= Category.FULL_HOUSE
