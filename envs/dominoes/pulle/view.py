"""What one Pulle seat knows: the shared domino View plus the game's own fields."""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from parlor.envs.dominoes.view import DominoView


@dataclass(frozen=True, slots=True, kw_only=True)
class PulleView(DominoView):
    totals: tuple[int, ...]
    out: tuple[bool, ...]
    pool: int | Fraction
    chips: tuple[int | Fraction, ...]
    stake: int
    buy_back_value: int | None   # the total a buy-back would give the player asked now
