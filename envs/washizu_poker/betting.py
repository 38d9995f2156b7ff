"""Pure betting rules of the single betting round (docs/rules.md §3.6)."""
from __future__ import annotations

from collections.abc import Sequence


def level_cap(stacks: Sequence[int], bets: Sequence[int], in_hand: Sequence[bool]) -> int:
    """Decision (docs/rules.md §3.6): the level never exceeds the smallest stack among players
    still in, counting what they have bet, so everyone can always call (no side pots)."""
    return min([s + b for s, b, i in zip(stacks, bets, in_hand) if i])  # (a list: faster than a generator)


def raises_allowed(level: int, cap: int, max_raise: int) -> int:
    """How many raise sizes (1..k) keep the level within the cap."""
    return max(0, min(max_raise, cap - level))


def betting_start(stacks: Sequence[int], in_hand: Sequence[bool]) -> int | None:
    """After the draw: the level cap of the betting round (``level_cap`` before anyone bets),
    or None when there is no betting round: fewer than two players are in, or one of them
    has no chip left after the ante."""
    live = [s for s, i in zip(stacks, in_hand) if i]
    if len(live) < 2:
        return None
    low = min(live)
    return low if low > 0 else None
