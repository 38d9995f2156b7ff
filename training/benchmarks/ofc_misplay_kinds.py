"""What kind of OFC decision a misplay is: its street, and simple rules on the two boards.

A misplay study (:mod:`parlor.training.benchmarks.ofc_misplays`) compares two placements
of the same turn's cards. This module names the difference with rules on the rows after
each placement, no hand labelling, each rule one small function:

- **street**: ``opening`` (the first turn of the hand), ``last`` (no turn of the seat
  follows), ``before last`` (one follows), else ``middle``;
- **Fantasyland top**: one placement leaves more queens, kings or aces (the cards that
  pair into Fantasyland) in the top row than the other: it chases Fantasyland, the other
  keeps a safe top;
- **foul risk**: one placement leaves a row holding a made hand (a pair or better, of
  the cards placed so far) that beats the row below it, the other does not: the lower
  row must still catch up or the board fouls;
- **draw**: the placements keep different numbers of flush draws (3 or 4 cards of one
  suit) or straight draws (3 or 4 distinct ranks within a span of five, the ace also
  low) in the middle and bottom rows;
- **discard**: they throw away different cards;
- **rows**: none of those; the same cards go to different rows.

The first rule that applies is the misplay's kind (in that order); the first three say
which side took the aggressive option.
"""
from __future__ import annotations

from collections.abc import Sequence

from parlor.agents.ofc.expert import is_opening, later_turns
from parlor.envs.engine.cards import format_card, rank_of, suit_of
from parlor.envs.ofc.scoring import ROW_NAMES
from parlor.envs.ofc.view import OFCView
from parlor.envs.ofc_outlook.rollouts import BOTTOM, DISCARD, MIDDLE, TOP, place

STREETS = ("opening", "middle", "before last", "last")
FL_RANK = 10                 # rank index of the queen: QQ or better on top earns Fantasyland
ACE = 12


def street(view: OFCView) -> str:
    """The street of the view's regular turn (see the module docstring)."""
    if is_opening(view):
        return "opening"
    ahead = [t for t in later_turns(view) if t[0] == view.player]
    return "last" if not ahead else "before last" if len(ahead) == 1 else "middle"


def made(row: Sequence[int]) -> tuple[int, ...]:
    """A partial row's made hand, comparable: (category, ranks of its groups, highest
    first); category 0 high card, 1 pair, 2 two pair, 3 trips, 4 full house, 5 quads."""
    counts: dict[int, int] = {}
    for c in row:
        counts[rank_of(c)] = counts.get(rank_of(c), 0) + 1
    groups = sorted(((n, r) for r, n in counts.items() if n >= 2), reverse=True)
    sizes = [n for n, _ in groups]
    if not sizes:
        return (0,)
    category = {(2,): 1, (2, 2): 2, (3,): 3, (3, 2): 4, (4,): 5}.get(tuple(sizes), 5)
    return (category, *(r for _, r in groups))


def upper_row_ahead(rows: Sequence[Sequence[int]]) -> bool:
    """Whether a row holds a made hand (pair or better) that beats the row below it."""
    return any(made(rows[r])[0] >= 1 and made(rows[r]) > made(rows[r + 1]) for r in (TOP, MIDDLE))


def fl_cards_on_top(rows: Sequence[Sequence[int]]) -> int:
    return sum(rank_of(c) >= FL_RANK for c in rows[TOP])


def is_flush_draw(row: Sequence[int]) -> bool:
    return 3 <= len(row) <= 4 and len({suit_of(c) for c in row}) == 1


def is_straight_draw(row: Sequence[int]) -> bool:
    ranks = {rank_of(c) for c in row}
    if not 3 <= len(row) <= 4 or len(ranks) != len(row):
        return False
    low = {-1 if r == ACE else r for r in ranks}   # the wheel: the ace below the two
    return max(ranks) - min(ranks) <= 4 or max(low) - min(low) <= 4


def draws(rows: Sequence[Sequence[int]]) -> int:
    """Flush and straight draws in the middle and bottom rows."""
    return sum(is_flush_draw(rows[r]) + is_straight_draw(rows[r]) for r in (MIDDLE, BOTTOM))


def discarded(cards: Sequence[int], dest: Sequence[int]) -> set[int]:
    return {c for c, d in zip(cards, dest) if d == DISCARD}


def kind(view: OFCView, default: Sequence[int], other: Sequence[int]) -> str:
    """The kind of the difference between two placements of the view's pending cards,
    naming the side (``default``, or ``larger budget`` for ``other``) that took the aggressive option."""
    a, b = (place(view.own_rows, view.pending, d) for d in (default, other))
    if tuple(default) == tuple(other):
        return "same"
    if fl_cards_on_top(a) != fl_cards_on_top(b):
        return "Fantasyland top, " + ("default" if fl_cards_on_top(a) > fl_cards_on_top(b) else "larger budget") + " chases"
    if upper_row_ahead(a) != upper_row_ahead(b):
        return "foul risk, " + ("default" if upper_row_ahead(a) else "larger budget") + " takes it"
    if draws(a) != draws(b):
        return "draw, " + ("default" if draws(a) > draws(b) else "larger budget") + " keeps more"
    if discarded(view.pending, default) != discarded(view.pending, other):
        return "discard"
    return "rows"


def describe(cards: Sequence[int], dest: Sequence[int]) -> str:
    """A placement in words: ``top K♠; bottom 5♥ 6♥; discard 2♣``."""
    parts = []
    for row, name in enumerate((*ROW_NAMES, "discard")):
        sent = [format_card(c, symbols=True) for c, d in zip(cards, dest) if d == row]
        if sent:
            parts.append(f"{name} {' '.join(sent)}")
    return "; ".join(parts)
