"""OFC dealing (docs/rules.md §1.3, §1.7): cards per turn, Fantasyland deal sizes under
the deck-capacity rule, and the order of the turns of a hand."""
from __future__ import annotations

from collections.abc import Sequence

from parlor.envs.engine.table import order_from
from parlor.envs.ofc.scoring import BOARD_SIZE


def regular_deal(variant: str) -> list[tuple[int, int]]:
    """(cards dealt, cards to discard) per turn of a regular (non-Fantasyland) player."""
    if variant == "pineapple":
        return [(5, 0)] + [(3, 1)] * 4
    return [(5, 0)] + [(1, 0)] * 8


def regular_need(variant: str) -> int:
    return sum(k for k, _ in regular_deal(variant))


def fl_deal_sizes(wanted: Sequence[int], regular_players: int, variant: str, deck_size: int = 52) -> list[int]:
    """Cards for each Fantasyland player (in dealing order) under the deck-capacity rule.

    Each gets what he earned, capped by what the deck can spare after the regular
    players' needs and at least 13 for every later Fantasyland player; never fewer
    than 13 (docs/rules.md §1.7).
    """
    spare = deck_size - regular_players * regular_need(variant)
    sizes = []
    for i, want in enumerate(wanted):
        later = len(wanted) - i - 1
        give = min(want, spare - BOARD_SIZE * later)
        if give < BOARD_SIZE:
            raise ValueError(f"the deck cannot give {BOARD_SIZE} cards to every Fantasyland player")
        sizes.append(give)
        spare -= give
    return sizes


def deal_plan(start: int, fl_next: tuple[int, ...], variant: str) -> tuple[list[tuple[int, int, int]], list[int]]:
    """The turns of a hand as (seat, cards dealt, discards owed), and each seat's Fantasyland deal.

    Fantasyland players first (seat order from the start player), then the
    regular players' rounds from the start player.
    """
    n = len(fl_next)
    order = order_from(start, n)
    fl_order = [s for s in order if fl_next[s]]
    regular = [s for s in order if not fl_next[s]]
    sizes = fl_deal_sizes([fl_next[s] for s in fl_order], len(regular), variant)
    fl_dealt = [0] * n
    plan = []
    for s, k in zip(fl_order, sizes):
        fl_dealt[s] = k
        plan.append((s, k, k - BOARD_SIZE))
    for k, d in regular_deal(variant):
        plan.extend((s, k, d) for s in regular)
    return plan, fl_dealt
