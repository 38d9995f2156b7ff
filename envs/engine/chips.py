"""Exact chip accounting: balances, a pot, even splits with removed remainders.

Amounts are ``fractions.Fraction`` so that payouts like Buki's 2.5x bet are
kept exactly; nothing is rounded. ``Ledger.check`` is the conservation
invariant every chip game asserts after each step.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Iterable, Sequence

Amount = Fraction


def as_amount(x: int | float | Fraction | str) -> Fraction:
    """Exact amount; a float must be a finite binary fraction like 2.5 (no silent rounding)."""
    return Fraction(x)


def split_evenly(amount: int, winners: int) -> tuple[int, int]:
    """Whole-chip shares of ``amount`` for ``winners`` and the remainder removed from play.

    >>> split_evenly(7, 2)
    (3, 1)
    """
    if winners <= 0:
        raise ValueError("split_evenly needs at least one winner")
    return amount // winners, amount % winners


@dataclass
class Ledger:
    """Chip balances of the players, one pot, and chips removed from play."""

    balances: list[Fraction]
    pot: Fraction = Fraction(0)
    removed: Fraction = Fraction(0)
    total: Fraction = field(init=False)

    def __post_init__(self) -> None:
        self.balances = [Fraction(b) for b in self.balances]
        self.total = sum(self.balances, Fraction(0)) + self.pot + self.removed

    @classmethod
    def equal(cls, players: int, chips: int | Fraction) -> "Ledger":
        return cls([Fraction(chips)] * players)

    def copy(self) -> "Ledger":
        new = Ledger(list(self.balances), self.pot, self.removed)
        new.total = self.total
        return new

    def transfer(self, src: int, dst: int, amount: int | Fraction) -> None:
        amount = Fraction(amount)
        self._debit(src, amount)
        self.balances[dst] += amount

    def to_pot(self, player: int, amount: int | Fraction) -> None:
        amount = Fraction(amount)
        self._debit(player, amount)
        self.pot += amount

    def pay_from_pot(self, player: int, amount: int | Fraction) -> None:
        amount = Fraction(amount)
        if amount < 0 or amount > self.pot:
            raise ValueError(f"cannot pay {amount} from a pot of {self.pot}")
        self.pot -= amount
        self.balances[player] += amount

    def split_pot(self, winners: Sequence[int]) -> list[Fraction]:
        """Split the whole pot evenly in whole chips; the remainder leaves play."""
        if self.pot.denominator != 1:
            raise ValueError(f"split_pot needs a whole-chip pot, got {self.pot}")
        share, rest = split_evenly(int(self.pot), len(winners))
        for w in winners:
            self.balances[w] += share
        self.removed += rest
        self.pot = Fraction(0)
        return [Fraction(share)] * len(winners)

    def _debit(self, player: int, amount: Fraction) -> None:
        if amount < 0:
            raise ValueError(f"negative amount {amount}")
        if amount > self.balances[player]:
            raise ValueError(f"player {player} has {self.balances[player]} chips, cannot pay {amount}")
        self.balances[player] -= amount

    def check(self) -> None:
        """Conservation: balances + pot + removed equals the starting total; nothing negative."""
        now = sum(self.balances, Fraction(0)) + self.pot + self.removed
        assert now == self.total, f"chips not conserved: {now} != {self.total}"
        assert all(b >= 0 for b in self.balances), f"negative balance in {self.balances}"
        assert self.pot >= 0 and self.removed >= 0


def zero_sum(amounts: Iterable[Fraction | int | float]) -> bool:
    return sum(Fraction(a) for a in amounts) == 0
