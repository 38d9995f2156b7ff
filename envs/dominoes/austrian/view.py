"""What one Austrian seat knows: the shared domino View plus the game's own fields."""
from __future__ import annotations

from dataclasses import dataclass

from parlor.envs.dominoes.view import DominoView


@dataclass(frozen=True, slots=True, kw_only=True)
class AustrianView(DominoView):
    mode: str
    max_draws: int | None
    deals_won: tuple[int, ...]
