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

from parlor.envs.washizu_poker.encode import (
    S_BET,
    S_DRAWN,
    S_DREW,
    S_IN,
    S_STACK,
    T_BET,
    T_CALL,
    T_CAP,
    T_DRAW,
    T_LEVEL,
    T_POT,
    T_TURN,
    seat_row,
)
from parlor.envs.washizu_poker.match import BET, DRAW
from parlor.envs.washizu_poker.observation_cache import ObsParts, WashizuTables

if TYPE_CHECKING:
    from parlor.envs.washizu_poker.fields import WashizuFields


class WashizuObserver:
    """Every seat's observation (``parts``), written by the rules' events."""

    def __init__(self, n: int, tables: WashizuTables, total: float, num_games: int):
        self.parts = ObsParts(n, tables)
        self.layout = self.parts.layout  # the flat cell indices the events write (shared, never mutated)
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
        cells, flat = self.parts.cells, self.layout.table_flat
        if old is not None:
            cells[flat[old] + T_TURN] = 0.0
        cells[flat[new] + T_TURN] = 1.0

    # ---------------------------------------------------------------- the draw
    def drew(self, s: WashizuFields, p: int, discards: Sequence[int]) -> None:
        """Seat ``p`` discarded ``discards`` and drew as many (none: stood pat): its hand, its
        discards and its draw entries (a Washizu card that left or came back into view is
        ``washizu_moved``)."""
        parts = self.parts
        if discards:
            parts.set_hand(p, s.hands[p])
            parts.add_discards(p, discards)
        cells, drawn = parts.cells, len(discards) / 5.0
        for at in self.layout.seat_flat[p]:
            cells[at + S_DREW] = 1.0
            cells[at + S_DRAWN] = drawn

    def washizu_moved(self, p: int, gone: Sequence[int], came: Sequence[int]) -> None:
        """Washizu cards ``gone`` left seat ``p``'s hand into the left view and ``came`` were
        drawn back into it (after a reshuffle): what every other seat sees."""
        self.parts.move_washizu(p, gone, came)

    # ---------------------------------------------------------------- the betting round
    # (each event writes its entries in every observer's row in one pass: a seat's row and the
    # shared table features sit in every row)
    def betting_began(self, s: WashizuFields) -> None:
        """The draw is over and the betting round opens: the cap, the phase flags and the
        amount to call, the level for everybody (nobody has bet yet)."""
        cells, total = self.parts.cells, self.total
        cap, to_call = s.cap_now / total, s.level / total
        for at in self.layout.table_flat:
            cells[at + T_CAP] = cap
            cells[at + T_DRAW] = 0.0
            cells[at + T_BET] = 1.0
            cells[at + T_CALL] = to_call

    def called(self, s: WashizuFields, p: int) -> None:
        """Seat ``p`` called: its stack and bet, the pot, its amount to call."""
        cells, total, layout = self.parts.cells, self.total, self.layout
        stack, bet, pot = s.stacks[p] / total, s.bets[p] / total, s.pot / total
        for seat_at, table_at in zip(layout.seat_flat[p], layout.table_flat):
            cells[seat_at + S_STACK] = stack
            cells[seat_at + S_BET] = bet
            cells[table_at + T_POT] = pot
        cells[layout.table_flat[p] + T_CALL] = (s.level - s.bets[p]) / total

    def raised(self, s: WashizuFields, p: int) -> None:
        """Seat ``p`` raised: as ``called``, plus the level and everybody's amount to call."""
        cells, total, layout, level = self.parts.cells, self.total, self.layout, s.level
        stack, bet, pot, high = s.stacks[p] / total, s.bets[p] / total, s.pot / total, level / total
        for seat_at, table_at, b in zip(layout.seat_flat[p], layout.table_flat, s.bets):
            cells[seat_at + S_STACK] = stack  # (seat_flat[p] and table_flat are per observer)
            cells[seat_at + S_BET] = bet
            cells[table_at + T_POT] = pot
            cells[table_at + T_LEVEL] = high
            cells[table_at + T_CALL] = (level - b) / total

    def dropped(self, s: WashizuFields, p: int) -> None:
        """Seat ``p`` dropped: it is out of this game, and the level cap may have risen
        (``s.cap_now``; unchanged when the drop leaves one player in)."""
        cells, layout, cap = self.parts.cells, self.layout, s.cap_now / self.total
        for seat_at, table_at in zip(layout.seat_flat[p], layout.table_flat):
            cells[seat_at + S_IN] = 0.0
            cells[table_at + T_CAP] = cap

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
