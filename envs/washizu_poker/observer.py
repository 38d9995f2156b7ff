"""The Washizu poker observer: told what happened at the table, it keeps every seat's
observation up to date (``ObsParts``, ``observation_cache.py``, is its storage).

The rule steps (``match``, ``draw``, ``betting``, ``showdown`` mixins of ``WashizuState``)
play the rules and tell the :class:`WashizuObserver` each event in the rulebook's words: a
game was dealt, a seat drew, a Washizu card moved, the betting began, a seat called,
raised or dropped, the turn passed, the match ended. Each event reads the state (never
writes it) and writes the entries it changed, normalised as ``encode`` does (chips over the
table's total); ``rebuild`` writes everything from the state and ``verify`` checks that the
targeted writes agree with it (``WashizuState.check_invariants``).
"""
from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from parlor.envs.washizu_poker.encode import seat_row
from parlor.envs.washizu_poker.match import BET, DRAW
from parlor.envs.washizu_poker.observation_cache import ObsParts, WashizuTables

if TYPE_CHECKING:
    from parlor.envs.washizu_poker.fields import WashizuFields

class WashizuObserver:
    """Every seat's observation (``parts``), written by the rules' events."""

    def __init__(self, n: int, tables: WashizuTables, total: float, num_games: int):
        self.parts = ObsParts(n, tables, total)
        self.n = n
        self.total = total  # the chips at the table: every chip feature is over it
        self.num_games = num_games

    def copy(self) -> WashizuObserver:
        new = copy.copy(self)
        new.parts = self.parts.copy()
        return new

    def observe(self, p: int) -> np.ndarray:
        """Seat ``p``'s observation (a copy of its row)."""
        return self.parts.row_list[p].copy()

    # ---------------------------------------------------------------- the deal and the match's end
    def game_dealt(self, s: WashizuFields) -> None:
        """A new game is dealt (ante paid, hands dealt, draw phase, ``s.current_player`` to
        draw): ``rebuild`` with what a deal leaves (nobody has drawn or bet, nothing discarded)."""
        total, dealer, stacks = self.total, s.dealer, s.stacks
        values: list[float] = []
        for p, alive in enumerate(s.alive):  # seat_row(alive, alive, -1, stack, 0, p == dealer, total)
            a = 1.0 if alive else 0.0
            values += (a, a, 0.0, 0.0, stacks[p] / total, 0.0, 1.0 if p == dealer else 0.0)
        # table_shared in the draw phase (level 1, nothing to call)
        shared = [s.pot / total, 1 / total, 0.0, s.game_index / self.num_games, 1.0, 0.0]
        self.parts.reset_all(s.hands, values, shared, s.current_player)  # (no discards, nothing left view)

    def match_ended(self, s: WashizuFields) -> None:
        """The match is over: every seat row and the table at once (nothing to call, nobody's turn)."""
        self.parts.set_tail(self.seat_values(s), self.table_shared(s), None)

    def turn_passed(self, old: int | None, new: int) -> None:
        """Seat ``new`` acts next (``old`` acted): the "my turn" feature moves."""
        self.parts.move_turn(old, new)

    # ---------------------------------------------------------------- the draw
    def drew(self, s: WashizuFields, p: int, discards: Sequence[int]) -> None:
        """Seat ``p`` discarded ``discards`` and drew as many (none: stood pat): its hand, its
        discards and its draw entries (a Washizu card that left or came back into view is
        ``washizu_moved``)."""
        parts = self.parts
        if discards:
            parts.set_hand(p, s.hands[p])
            parts.add_discards(p, discards)
        parts.set_drawn(p, len(discards))

    def washizu_moved(self, p: int, gone: Sequence[int], came: Sequence[int]) -> None:
        """Washizu cards ``gone`` left seat ``p``'s hand into the left view and ``came`` were
        drawn back into it (after a reshuffle): what every other seat sees."""
        self.parts.move_washizu(p, gone, came)

    # ---------------------------------------------------------------- the betting round
    def betting_began(self, s: WashizuFields) -> None:
        """The draw is over and the betting round opens: the cap, the phase flags and the
        amount to call, the level for everybody (nobody has bet yet)."""
        total = self.total
        self.parts.begin_betting(s.cap_now / total, s.level / total)

    def called(self, s: WashizuFields, p: int) -> None:
        """Seat ``p`` called: its stack and bet, the pot, its amount to call."""
        total = self.total
        self.parts.paid(p, s.stacks[p] / total, s.bets[p] / total, s.pot / total, (s.level - s.bets[p]) / total)

    def raised(self, s: WashizuFields, p: int) -> None:
        """Seat ``p`` raised: as ``called``, plus the level and everybody's amount to call."""
        total, level = self.total, s.level
        self.parts.raised(p, s.stacks[p] / total, s.bets[p] / total, s.pot / total, level / total,
                          [(level - b) / total for b in s.bets])

    def dropped(self, s: WashizuFields, p: int) -> None:
        """Seat ``p`` dropped: it is out of this game, and the level cap may have risen
        (``s.cap_now``; unchanged when the drop leaves one player in)."""
        parts = self.parts
        parts.set_seat_entry(p, 1, 0.0)  # seat_row's "in this game"
        parts.set_table_entry(2, s.cap_now / self.total)

    # ---------------------------------------------------------------- rebuilding and checking
    def seat_row(self, s: WashizuFields, p: int) -> tuple[float, ...]:
        """Seat ``p``'s ``encode.seat_row`` from the state."""
        d = len(s.discarded[p]) if s.draw_turn[p] >= 0 else -1
        return seat_row(s.alive[p], s.in_hand[p], d, s.stacks[p], s.bets[p], p == s.dealer, self.total)

    def seat_values(self, s: WashizuFields) -> list[float]:
        """Every seat's ``seat_row`` in seat order, flat (``ObsParts.reset_all``/``set_tail``)."""
        return [x for p in range(self.n) for x in self.seat_row(s, p)]

    def table_shared(self, s: WashizuFields) -> list[float]:
        """The first six ``encode.table_features`` (pot, level, cap, game number, draw phase,
        betting phase), shared by every observer."""
        total, phase = self.total, s.phase
        return [s.pot / total, s.level / total, s.cap_now / total if phase == BET else 0.0,
                s.game_index / self.num_games, float(phase == DRAW), float(phase == BET)]

    def rebuild(self, s: WashizuFields) -> None:
        """Every observer's whole observation from the state (a determinized world, a check)."""
        parts, total = self.parts, self.total
        parts.reset_all(s.hands, self.seat_values(s), [0.0] * 6, None)
        to_call = [(s.level - b) / total if s.phase == BET else 0.0 for b in s.bets]
        parts.set_table(self.table_shared(s), to_call, s.current_player)
        if any(s.discarded) or s.left_view:  # (reset_all cleared them)
            for p in range(self.n):
                parts.set_discards(p, s.discarded[p])
            parts.set_left(s.left_view)

    def verify(self, s: WashizuFields) -> None:
        """Assert that the events kept every observation equal to a ``rebuild`` from the state."""
        before = self.parts.copy()
        self.rebuild(s)
        assert np.array_equal(before.rows, self.parts.rows), "observation parts out of sync"
