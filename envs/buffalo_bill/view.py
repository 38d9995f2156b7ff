"""What one Buffalo Bill seat knows: the frozen View that encode, render and agents read."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BuffaloBillView:
    """What ``player`` knows: everything except the stock order (all hands are public)."""

    player: int
    num_players: int
    lines: tuple[str, ...]
    round: int  # 0-based; equals num_rounds once the game is over
    num_rounds: int
    dealer: int
    first_player: int
    current_player: int | None
    hands: tuple[tuple[int, ...], ...]  # by seat, by position; () once the seat scored this round
    line_values: tuple[tuple[int, ...], ...]  # by seat, by line: what the hand would score now
    written: tuple[tuple[int | None, ...], ...]  # by seat, by line; None = still empty
    totals: tuple[int, ...]
    chips: tuple[int, ...]
    exchanges: tuple[int, ...]  # exchanges each seat made this round
    scored: tuple[bool, ...]  # seat has scored this round
    discards: tuple[int, ...]  # discard pile, sorted
    stock_size: int
    deck_size: int

    def open_lines(self, seat: int | None = None) -> list[int]:
        seat = self.player if seat is None else seat
        return [k for k, v in enumerate(self.written[seat]) if v is None]

    def exchange_cost(self, seat: int | None = None) -> int:
        """Chips the next exchange of ``seat`` costs this round (first one free)."""
        seat = self.player if seat is None else seat
        return 0 if self.exchanges[seat] == 0 else 1

    def can_exchange(self, seat: int | None = None) -> bool:
        seat = self.player if seat is None else seat
        return self.chips[seat] >= self.exchange_cost(seat)
