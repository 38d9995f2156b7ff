"""The single betting round of Washizu draw poker (docs/rules.md §3.6): its action ids, the
pure rules (the level cap, the raises allowed, whether there is a round at all) and the
steps drop, call and raise (``BettingSteps``, a mixin of ``WashizuState``).
"""
from __future__ import annotations

from collections.abc import Sequence

from parlor.envs.engine.table import next_active
from parlor.envs.washizu_poker.fields import WashizuFields

DROP, CALL, RAISE_BASE = 32, 33, 33  # raise by k is action RAISE_BASE + k (k = 1..max_raise)


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


class BettingSteps(WashizuFields):
    """The betting round's steps (drop, call, raise)."""

    def cap(self) -> int:
        return level_cap(self.stacks, self.bets, self.in_hand)

    def _pay(self, p: int, amount: int) -> None:
        if amount > self.stacks[p]:
            raise AssertionError(f"seat {p} cannot pay {amount} with {self.stacks[p]} chips")
        self.stacks[p] -= amount
        self.contrib[p] += amount
        self.pot += amount

    def _drop(self, p: int) -> None:
        self.in_hand[p] = False
        self.n_in -= 1
        self.to_act -= 1
        self.stat["dropped"][p] += 1
        if self.n_in > 1:
            self.cap_now = self.cap()
        self.observer.dropped(self, p)
        self._next_bettor(p)

    def _call(self, p: int) -> None:
        self._pay(p, self.level - self.bets[p])
        self.bets[p] = self.level
        self.to_act -= 1
        self.observer.called(self, p)
        self._next_bettor(p)

    def _raise(self, p: int, k: int) -> None:
        self.level += k
        self._pay(p, self.level - self.bets[p])
        self.bets[p] = self.level
        self.to_act = self.n_in - 1  # everyone else still in must act again
        self.observer.raised(self, p)
        self.stat["raised"][p] += 1
        self._next_bettor(p)

    def _next_bettor(self, p: int) -> None:
        if self.n_in == 1:
            winner = self.in_hand.index(True)
            self._settle((winner,), None)
        elif self.to_act == 0:
            self._showdown()
        else:
            self._pass_turn(next_active(p, self.in_hand))

