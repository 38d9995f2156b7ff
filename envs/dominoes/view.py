"""What one seat of a domino game knows: the base View every game extends with its own fields."""
from __future__ import annotations

from dataclasses import dataclass

from parlor.envs.dominoes.line import N_TILES


@dataclass(frozen=True, slots=True)
class DealResult:
    """How the latest finished deal ended, as every seat saw it."""

    deal_index: int                  # 0-based
    result: str                      # "win" (went out), "blocked" (lowest pips won), "draw" (blocked, tie)
    winner: int | None
    pips: tuple[int, ...] | None     # pips left per seat when the rules count them (blocked deal, Pulle)
    payouts: tuple[float, ...]       # rewards the deal's settlement paid, per seat
    # the running totals the deal left, per seat (Pulle; None for the other games): the view's own
    # totals may change before the next deal ends (a buy-back), the deal's explanation may not
    totals: tuple[int, ...] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class DominoView:
    """What one seat knows. Seats are absolute; tiles are ids of ``TILES``."""

    game: str
    player: int
    num_players: int
    current_player: int | None
    phase: str
    deal_index: int          # 0-based index of the deal in play
    num_deals: int           # deals in the episode (Pulle: the max_deals cap)
    leader: int              # who led this deal
    first_by_weight: bool    # this deal's leader was chosen by the heaviest tile
    hand: tuple[int, ...]
    line: tuple[tuple[int, int], ...]   # (left, right) numbers of each tile, left to right
    ends: tuple[int, int] | None
    played: tuple[tuple[int, ...], ...]  # tiles played by each seat, in order
    hand_counts: tuple[int, ...]
    void: tuple[tuple[int, ...], ...]    # numbers each seat is known not to hold
    active: tuple[bool, ...]             # seats playing this deal
    stock_count: int
    draws_this_turn: int
    turns: tuple[int, ...]               # own turns begun this deal, per seat
    hand_capacity: int                   # most tiles a hand can hold (for scaling)
    last_deal: DealResult | None = None  # the latest finished deal (None before the first)

    @property
    def unseen(self) -> tuple[int, ...]:
        """Tiles this seat has not seen: neither in his hand nor played."""
        seen = set(self.hand).union(*self.played)
        return tuple(t for t in range(N_TILES) if t not in seen)
