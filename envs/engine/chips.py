"""Exact chip accounting: balances, a pot, even splits with removed remainders.

Amounts are exact so that payouts like Buki's 2.5x bet are kept exactly;
nothing is rounded. A Ledger holds whole amounts as plain ints and the rest as
``fractions.Fraction`` (equal values, and int arithmetic is ~10x cheaper than
Fraction's on the hot path). ``Ledger.check`` is the conservation invariant
every chip game asserts after each step.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

Amount = Fraction


def as_amount(x: int | float | Fraction | str) -> Fraction:
    """Exact amount; a float must be a finite binary fraction like 2.5 (no silent rounding)."""
    return Fraction(x)


def exact(x: int | float | Fraction | str) -> int | Fraction:
    """``x`` exactly: a plain int when whole, else a Fraction (see the module doc)."""
    if type(x) is int:
        return x
    x = Fraction(x)
    return x.numerator if x.denominator == 1 else x


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

    balances: list[int | Fraction]
    pot: int | Fraction = 0
    removed: int | Fraction = 0
    total: int | Fraction = field(init=False)

    def __post_init__(self) -> None:
        self.balances = [exact(b) for b in self.balances]
        self.pot, self.removed = exact(self.pot), exact(self.removed)
        self.total = exact(sum(self.balances) + self.pot + self.removed)

    @classmethod
    def equal(cls, players: int, chips: int | Fraction) -> Ledger:
        return cls([exact(chips)] * players)

    def copy(self) -> Ledger:
        new = Ledger(list(self.balances), self.pot, self.removed)
        new.total = self.total
        return new

    def transfer(self, src: int, dst: int, amount: int | Fraction) -> None:
        amount = exact(amount)
        self._debit(src, amount)
        self.balances[dst] = exact(self.balances[dst] + amount)

    def to_pot(self, player: int, amount: int | Fraction) -> None:
        amount = exact(amount)
        self._debit(player, amount)
        self.pot = exact(self.pot + amount)

    def pay_from_pot(self, player: int, amount: int | Fraction) -> None:
        amount = exact(amount)
        if amount < 0 or amount > self.pot:
            raise ValueError(f"cannot pay {amount} from a pot of {self.pot}")
        self.pot = exact(self.pot - amount)
        self.balances[player] = exact(self.balances[player] + amount)

    def split_pot(self, winners: Sequence[int]) -> list[int]:
        """Split the whole pot evenly in whole chips; the remainder leaves play."""
        pot = exact(self.pot)
        if type(pot) is not int:
            raise ValueError(f"split_pot needs a whole-chip pot, got {pot}")
        share, rest = split_evenly(pot, len(winners))
        for w in winners:
            self.balances[w] = exact(self.balances[w] + share)
        self.removed = exact(self.removed + rest)
        self.pot = 0
        return [share] * len(winners)

    def _debit(self, player: int, amount: int | Fraction) -> None:
        if amount < 0:
            raise ValueError(f"negative amount {amount}")
        if amount > self.balances[player]:
            raise ValueError(f"player {player} has {self.balances[player]} chips, cannot pay {amount}")
        self.balances[player] = exact(self.balances[player] - amount)

    def check(self) -> None:
        """Conservation: balances + pot + removed equals the starting total; nothing negative."""
        now = sum(self.balances) + self.pot + self.removed
        assert now == self.total, f"chips not conserved: {now} != {self.total}"
        assert all(b >= 0 for b in self.balances), f"negative balance in {self.balances}"
        assert self.pot >= 0 and self.removed >= 0


def zero_sum(amounts: Iterable[Fraction | int | float]) -> bool:
    return sum(Fraction(a) for a in amounts) == 0
