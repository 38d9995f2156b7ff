"""The Buffalo Bill observer: the flat buffer every observation is gathered from.

The State (``envs/buffalo_bill/state.py``) plays the rules and tells its
:class:`BuffaloBillObserver` what happened (a deal, an exchange, a line scored, the turn
passing, the game's end); the observer writes the parts of ``ObservationLayout``'s buffer
each event changes, so ``Game.observe`` is one ``take``. ``encode_view`` is the reference;
the harness asserts the two agree. Single entries are written through a memoryview (half
the cost of numpy's).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from parlor.envs.buffalo_bill.categories import MAX_VALUE
from parlor.envs.buffalo_bill.encode import _VALUE, ObservationLayout
from parlor.envs.engine.layout import BoundViews, float_cells

_VALUES = _VALUE.tolist()  # float32 line values / MAX_VALUE as exact Python floats, for item writes


class BuffaloBillObserver(BoundViews):
    """The buffer (``buffer``), its seat rows and single-item writer, kept up to date."""

    VIEWS = ("cells", "seat_rows")

    def __init__(self, layout: ObservationLayout, n: int, chips: int):
        self.layout, self.n = layout, n
        self.buffer = np.zeros(layout.buffer_size, dtype=np.float32)
        self._bind()
        self.seat_rows[:, layout._chips_at] = chips / max(layout.chips, 1)

    def _bind(self) -> None:
        layout, n = self.layout, self.n
        self.seat_rows = self.buffer[layout.rows_at:layout.turn_at].reshape(n, layout.seat_size)  # a view
        self.cells = float_cells(self.buffer)

    def copy(self) -> BuffaloBillObserver:
        new = BuffaloBillObserver.__new__(BuffaloBillObserver)
        new.layout, new.n, new.buffer = self.layout, self.n, self.buffer.copy()
        new._bind()
        return new

    # ------------------------------------------------------------ events
    def deal(self, round_: int, stock_size: int, first: int, hands: Sequence[Sequence[int]],
             lines: Sequence[Sequence[int]]) -> None:
        """A new deal. Every seat scored last round (or none played yet), which left its hand
        parts and line values zero."""
        layout, buf, cells = self.layout, self.buffer, self.cells
        buf[:layout.public_size] = 0.0  # round one-hot, stock, discards
        buf[layout.turn_at:] = 0.0  # to_act, first
        cells[round_] = 1.0
        cells[layout.num_lines] = stock_size / layout.deck_size
        cells[layout.turn_at + first] = 1.0
        cells[layout.turn_at + self.n + first] = 1.0
        scored_at = layout.row_scored
        for (bases, row, values_at, chips_at), hand, seat_lines in zip(layout.seat_geometry, hands, lines):
            for base, c in zip(bases, hand):
                cells[base + c] = 1.0  # own hand by position
                cells[row + c] = 1.0  # the seat row's hand multi-hot
            for j, v in enumerate(seat_lines, values_at):
                cells[j] = _VALUES[v]
            cells[chips_at + 1] = 0.0  # no exchanges yet
            cells[row + scored_at] = 0.0

    def exchanged(self, p: int, positions: Sequence[int], old: Sequence[int], hand: Sequence[int],
                  values: Sequence[int], reshuffled: bool, stock_size: int, chips: int, exchanges: int) -> None:
        """``p`` exchanged the cards ``old`` at ``positions`` (``hand`` after it). A handful of
        single-item writes is cheaper than building index lists for ``put``."""
        layout, buf = self.layout, self.cells
        bases, row, values_at, chips_at = layout.seat_geometry[p]
        for i, c in zip(positions, old):  # all zeros first: a discard may come back after a reshuffle
            buf[bases[i] + c] = 0.0  # own hand by position
            buf[row + c] = 0.0  # the seat row's hand multi-hot
        if reshuffled:  # the pile, this exchange's discards included, became the stock
            self.buffer[layout._discards_at:layout.public_size] = 0.0
        else:
            disc = layout._discards_at
            for c in old:
                buf[disc + c] = 1.0
        for i in positions:
            c = hand[i]
            buf[bases[i] + c] = 1.0
            buf[row + c] = 1.0
        for j, v in enumerate(values, values_at):
            buf[j] = _VALUES[v]
        buf[layout.num_lines] = stock_size / layout.deck_size
        buf[chips_at] = chips / max(layout.chips, 1)
        buf[chips_at + 1] = exchanges / (layout.chips + 1)

    def scored(self, p: int, line: int, value: int, hand: Sequence[int], total: int) -> None:
        """``p`` wrote ``value`` on ``line``: hand gone to the discards, sheet, total, flag."""
        layout, cells = self.layout, self.cells
        bases, row, values_at, _ = layout.seat_geometry[p]
        disc = layout._discards_at
        for i, c in enumerate(hand):
            cells[bases[i] + c] = 0.0  # own hand by position
            cells[row + c] = 0.0  # the seat row's hand multi-hot
            cells[disc + c] = 1.0
        self.buffer[values_at:values_at + layout.num_lines] = 0.0
        cells[row + layout.row_used + line] = 1.0
        cells[row + layout.row_written + line] = _VALUES[value]
        cells[row + layout.row_total] = total / (MAX_VALUE * layout.num_lines)
        cells[row + layout.row_scored] = 1.0

    def to_act(self, was: int, now: int | None) -> None:
        """The turn passes from ``was`` to ``now`` (None: every seat has scored this round)."""
        to_act = self.layout.turn_at
        self.cells[to_act + was] = 0.0
        if now is not None:
            self.cells[to_act + now] = 1.0

    def game_over(self, rounds: int) -> None:
        """The round one-hot is all 0 once the game is over; the first seat moves on."""
        cells, to_act, n = self.cells, self.layout.turn_at, self.n
        cells[rounds - 1] = 0.0
        cells[to_act + n + (rounds - 1) % n] = 0.0
        cells[to_act + n + rounds % n] = 1.0
