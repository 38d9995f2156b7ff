"""What one Buki seat knows: the shared domino View plus the game's own fields."""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from parlor.envs.dominoes.view import DominoView


@dataclass(frozen=True, slots=True, kw_only=True)
class BukiView(DominoView):
    banker: int
    chips: tuple[int | Fraction, ...]        # balances, bets on the table excluded
    bets: tuple[int, ...]              # bet on the table per seat (0: none yet)
    carried: tuple[bool, ...]          # bet carried over from a drawn deal
    must_bet_first: tuple[bool, ...]   # previous winner: bet due before his 1st turn
    min_bet: int
    max_bet: int
    bet_due: bool                      # the player to act must bet now (cannot defer)
    pending_raise: int                 # raise awaiting the banker's answer (0: none)
    raiser: int | None
