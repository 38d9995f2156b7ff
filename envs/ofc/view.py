"""The OFC View: exactly what one seat knows (frozen, readable, no hidden cards)."""
from __future__ import annotations

from dataclasses import dataclass

Row = tuple[int, ...]
Board = tuple[Row, Row, Row]
EMPTY_BOARD: Board = ((), (), ())  # how a face-down Fantasyland board shows


def frozen_board(board: list[list[int]]) -> Board:
    """A seat's rows (top, middle, bottom), as a State keeps them, as the Board a view holds."""
    top, middle, bottom = board
    return tuple(top), tuple(middle), tuple(bottom)


@dataclass(frozen=True, slots=True)
class Showdown:
    """The boards of the latest showdown (every board is face up then), by seat."""

    hand_index: int          # 0-based hand that ended with it
    boards: tuple[Board, ...]


@dataclass(frozen=True, slots=True)
class OFCView:
    """One seat's knowledge of an OFC episode.

    ``rows[q]`` is seat q's board (top, middle, bottom) as this seat sees it;
    ``hidden[q]`` is True while q plays Fantasyland and this seat is someone
    else (the board stays face down until the showdown, shown as empty rows).
    ``pending`` is this seat's own cards still to place this turn, next first
    (empty unless it is his turn). ``discards`` are his own face-down discards.
    ``showdown`` keeps the boards of the latest showdown (None before the first), which
    explain its points once the next hand has cleared the rows.
    """

    player: int
    num_players: int
    variant: str
    hand_index: int          # 0-based hand of the episode
    num_hands: int
    start_player: int        # the seat that starts this hand
    current_player: int | None
    rows: tuple[Board, ...]
    hidden: tuple[bool, ...]
    pending: tuple[int, ...]
    discards_owed: int       # discards still due from ``pending``
    discards: tuple[int, ...]
    fantasyland: tuple[bool, ...]   # per seat: plays this hand in Fantasyland
    fl_dealt: tuple[int, ...]       # per seat: cards dealt in Fantasyland (0 = regular)
    scores: tuple[int, ...]         # per seat: points won so far in the episode
    last_points: tuple[int, ...]    # per seat: points of the latest showdown (zeros before it)
    terminal: bool
    showdown: Showdown | None = None

    @property
    def own_rows(self) -> Board:
        return self.rows[self.player]

    def seen_cards(self) -> set[int]:
        """Every card this seat has seen this hand."""
        seen = set(self.pending) | set(self.discards)
        for q, board in enumerate(self.rows):
            if not self.hidden[q]:
                for row in board:
                    seen.update(row)
        return seen

    def unseen_cards(self) -> list[int]:
        """Cards of the 52 this seat has not seen this hand, ascending."""
        seen = self.seen_cards()
        return [c for c in range(52) if c not in seen]
