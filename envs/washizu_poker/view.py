"""What one seat knows: the frozen View that encode, render and agents read."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GameResult:
    """How the previous game ended (public: hands are shown at a showdown)."""

    game_number: int
    shown: tuple[tuple[int, ...] | None, ...]  # per seat: the hand shown at showdown, None if not shown
    winners: tuple[int, ...]
    pot: int
    removed: int  # remainder chips of a split removed from play


@dataclass(frozen=True)
class WashizuView:
    """Seat ``player``'s knowledge. Card ids as in ``envs.engine.cards``.

    ``hand`` is in canonical order (the positions the discard actions name);
    ``visible[s]`` are the Washizu cards in seat ``s``'s hand (everyone sees
    them); ``left_view`` the Washizu cards discarded this game; ``drawn[s]`` how
    many cards seat ``s`` drew this game (-1: not yet).
    """

    player: int
    num_players: int
    phase: str  # "draw", "bet" or "over"
    current_player: int | None
    game_number: int  # 0-based index of the current (or last) game
    num_games: int
    dealer: int
    hand: tuple[int, ...]
    washizu: tuple[int, ...]  # the Washizu card ids of this episode (public)
    visible: tuple[tuple[int, ...], ...]
    left_view: tuple[int, ...]
    my_discards: tuple[int, ...]
    drawn: tuple[int, ...]
    stacks: tuple[int, ...]  # chips not yet in the pot
    bets: tuple[int, ...]  # chips bet in this game's betting round (ante excluded)
    in_hand: tuple[bool, ...]  # still in the current game (not dropped, not eliminated)
    alive: tuple[bool, ...]  # still in the match (has chips)
    pot: int
    level: int
    cap: int  # the highest level allowed now (0 outside the betting round)
    max_raise: int
    total_chips: int  # chips at the start of the match (normalizer)
    last_result: GameResult | None

    @property
    def to_call(self) -> int:
        return self.level - self.bets[self.player] if self.phase == "bet" else 0
