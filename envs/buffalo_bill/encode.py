"""Buffalo Bill: action ids <-> words, and the View -> float32 observation.

Actions (``Discrete(31 + L)`` for a sheet of L lines):

* ``0..30``  exchange: action ``a`` discards the hand positions whose bits are
  set in ``a + 1`` (bit 0 = position 0); drawn cards fill those positions in order;
* ``31..31+L-1``  score sheet line ``a - 31`` (sheet order).

The observation is laid out by :class:`ObservationLayout` (named pieces of
``envs/engine/layout.py``; seats are relative to the observer: row 0 is the
observer, row 1 the next seat clockwise, ...). Every entry lies in [0, 1].
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from parlor.envs.buffalo_bill.categories import MAX_VALUE
from parlor.envs.engine.layout import Layout as Pieces

HAND_SIZE = 5
NUM_EXCHANGES = (1 << HAND_SIZE) - 1  # 31 non-empty subsets of the 5 positions
FIRST_SCORE = NUM_EXCHANGES
NUM_CARD_IDS = 52
# positions discarded by each exchange action, ascending
EXCHANGE_POSITIONS: tuple[tuple[int, ...], ...] = tuple(
    tuple(i for i in range(HAND_SIZE) if (a + 1) >> i & 1) for a in range(NUM_EXCHANGES)
)


def exchange_action(positions: Sequence[int]) -> int:
    """The action id that exchanges the cards at ``positions`` (0..4, non-empty)."""
    bits = 0
    for i in positions:
        if not 0 <= i < HAND_SIZE:
            raise ValueError(f"hand position {i} out of range 0..{HAND_SIZE - 1}")
        bits |= 1 << i
    if not bits:
        raise ValueError("an exchange discards at least one card")
    return bits - 1


def score_action(line: int) -> int:
    return FIRST_SCORE + line


def action_name(action: int, lines: Sequence[str]) -> str:
    if 0 <= action < NUM_EXCHANGES:
        return "exchange positions " + ",".join(map(str, EXCHANGE_POSITIONS[action]))
    line = action - FIRST_SCORE
    if 0 <= line < len(lines):
        return f"score line {line} ({lines[line]})"
    raise ValueError(f"action {action} out of range 0..{FIRST_SCORE + len(lines) - 1}")


def seat_pieces(num_lines: int) -> Pieces:
    """One seat's row of the observation (and of the state's buffer), as named pieces."""
    lines = num_lines
    return Pieces([
        ("hand", NUM_CARD_IDS),      # the seat's hand (multi-hot card ids; empty once scored)
        ("used", lines),             # line written
        ("written", lines),          # value written / MAX_VALUE
        ("line_values", lines),      # value the current hand would score on each line / MAX_VALUE
        ("total", 1),                # sheet total / (MAX_VALUE * L)
        ("chips", 1),                # chips left / starting chips
        ("exchanges", 1),            # exchanges this round / (starting chips + 1); follows chips
        ("scored", 1),               # has scored this round
    ])


class ObservationLayout(Pieces):
    """The observation vector for ``num_players`` and ``num_lines`` as named pieces (the
    table of envs/buffalo_bill_v0.py), a seat row's pieces (``seat``) and the flat buffer a
    state keeps up to date (``buffer``), with the offsets the hot paths read.

    Seat rows (``seats``: [n, seat_size], relative seats) are laid out by ``seat``; the state
    keeps its rows up to date so that observing is a gather plus a few one-hots.
    """

    def __init__(self, num_players: int, num_lines: int, deck_size: int, chips: int):
        n, lines = num_players, num_lines
        self.num_players, self.num_lines = n, lines
        self.deck_size, self.chips = deck_size, chips
        self.seat = seat_pieces(lines)
        self.seat_slices = self.seat.slices
        self.seat_size = self.seat.size
        super().__init__([
            ("round", lines),                           # one-hot round number (all 0 once over)
            ("stock", 1),                               # stock size / deck size
            ("discards", NUM_CARD_IDS),                 # discard pile (multi-hot card ids)
            ("hand", HAND_SIZE * NUM_CARD_IDS),         # own hand by position: [5, 52] one-hot
            ("to_act", n),                              # the seat to act (one-hot, relative)
            ("first", n),                               # the seat that acted first this round
            ("seats", n * self.seat_size),              # [n, seat_size] seat rows, relative seats
        ])
        self._values_slice = self.seat["line_values"]
        self._chips_at = self.seat.start("chips")  # exchanges follow chips
        self._discards_at, self._hand_at, self._stock_at = self.start("discards"), self.start("hand"), self.start("stock")
        self._to_act_at, self._first_at, self._seats = self.start("to_act"), self.start("first"), self["seats"]
        self.rel = [[(seat - p) % n for seat in range(n)] for p in range(n)]
        self._init_state_buffer()

    def _init_state_buffer(self) -> None:
        """Offsets of the flat float32 buffer a state keeps up to date (``buffer``): the
        observation's public pieces (round one-hot, stock, discards), every seat's own hand
        by position, the seat rows, then to_act and first one-hot by absolute seat. The
        observation of ``p`` is one gather: ``buffer.take(obs_index[p])``."""
        n = self.num_players
        self.hand_block = self.width("hand")
        self.buffer = Pieces([
            ("round", self.width("round")), ("stock", 1), ("discards", self.width("discards")),
            ("hands", n * self.hand_block), ("rows", n * self.seat_size), ("to_act", n), ("first", n),
        ])
        self.public_size = self.buffer.start("hands")  # the public pieces sit as in the observation
        self.rows_at = self.buffer.start("rows")  # seat row 0 starts here
        self.turn_at = self.buffer.start("to_act")  # to_act[n], then first[n]
        self.buffer_size = self.buffer.size
        self.obs_index = [self._obs_index(p) for p in range(n)]
        seat = self.seat
        self.row_used, self.row_written = seat.start("used"), seat.start("written")
        self.row_total, self.row_scored = seat.start("total"), seat.start("scored")
        self.row_values = self._values_slice.start
        # per seat: own-hand position bases, seat row start, its line values and chips entries
        self.seat_geometry = []
        for p in range(n):
            row = self.rows_at + p * self.seat_size
            bases = tuple(self.public_size + p * self.hand_block + NUM_CARD_IDS * i for i in range(HAND_SIZE))
            self.seat_geometry.append((bases, row, row + self.row_values, row + self._chips_at))

    def _obs_index(self, p: int) -> np.ndarray:
        """Buffer position of each observation entry for observer ``p`` (seats relative to ``p``)."""
        n, hand_at, split = self.num_players, self.public_size + p * self.hand_block, self.rows_at + p * self.seat_size
        rel_seats = [(p + j) % n for j in range(n)]  # relative seat j is absolute seat p + j
        index = np.concatenate((
            np.arange(self.public_size), np.arange(hand_at, hand_at + self.hand_block),
            [self.turn_at + seat for seat in rel_seats], [self.turn_at + n + seat for seat in rel_seats],
            np.arange(split, self.turn_at), np.arange(self.rows_at, split),
        )).astype(np.intp)
        assert index.size == self.size
        return index

    def describe(self) -> str:
        parts = [f"{name:12s} [{s.start}:{s.stop}]" for name, s in self.slices.items()]
        parts += [f"  seat.{name:12s} [{s.start}:{s.stop}] of each seat row" for name, s in self.seat_slices.items()]
        return "\n".join(parts)

    def sheet_part(self, row: np.ndarray, written: np.ndarray, total: int, scored: bool) -> None:
        """Write a seat's sheet (``written``: int[L], -1 = empty), total and scored flag into its row."""
        s = self.seat_slices
        _USED.take(written, out=row[s["used"]])  # index -1 (empty) picks the trailing 0
        _WRITTEN.take(written, out=row[s["written"]])
        row[s["total"].start] = total / (MAX_VALUE * self.num_lines)
        row[s["scored"].start] = scored

    def hand_part(self, row: np.ndarray, hand: Sequence[int], line_values: np.ndarray, chips: int, exchanges: int) -> None:
        """Write a seat's hand, its line values, chips and exchanges into its row (hot path)."""
        row[:NUM_CARD_IDS] = 0.0  # the hand slice comes first
        row.put(hand, 1.0)
        _VALUE.take(line_values, out=row[self._values_slice])
        row[self._chips_at] = chips / max(self.chips, 1)
        row[self._chips_at + 1] = exchanges / (self.chips + 1)

    def fill(
        self, player: int, round_: int, stock_size: int, discards: Sequence[int], hand: Sequence[int],
        seat_rows: np.ndarray, current: int | None, first: int,
    ) -> np.ndarray:
        """The observation of ``player`` from the public data and the [n, seat_size] seat rows."""
        obs = np.zeros(self.size, dtype=np.float32)
        rel = self.rel[player]
        at = self._discards_at
        ones = [at + c for c in discards]
        at = self._hand_at
        ones += [at + NUM_CARD_IDS * i + c for i, c in enumerate(hand)]
        if round_ < self.num_lines:
            ones.append(round_)  # the round one-hot comes first
        if current is not None:
            ones.append(self._to_act_at + rel[current])
        ones.append(self._first_at + rel[first])
        obs.put(ones, 1.0)
        obs[self._stock_at] = stock_size / self.deck_size
        # seat rows in relative order: the observer's row and those after it, then the ones before
        start, split, stop = self._seats.start, self._seats.stop - player * self.seat_size, self._seats.stop
        obs[start:split] = seat_rows[player:].ravel()
        if player:
            obs[split:stop] = seat_rows[:player].ravel()
        return obs


_VALUE = np.arange(MAX_VALUE + 1, dtype=np.float32) / MAX_VALUE
_WRITTEN = np.append(_VALUE, np.float32(0.0))
_USED = np.append(np.ones(MAX_VALUE + 1, dtype=np.float32), np.float32(0.0))


def encode_view(layout: ObservationLayout, view) -> np.ndarray:
    """The observation of a :class:`envs.buffalo_bill.view.BuffaloBillView`."""
    rows = np.zeros((view.num_players, layout.seat_size), dtype=np.float32)
    for seat, row in enumerate(rows):
        written = np.array([-1 if v is None else v for v in view.written[seat]], dtype=np.int16)
        layout.sheet_part(row, written, view.totals[seat], view.scored[seat])
        layout.hand_part(
            row, view.hands[seat], np.array(view.line_values[seat], dtype=np.int16), view.chips[seat], view.exchanges[seat]
        )
    return layout.fill(
        view.player, view.round, view.stock_size, view.discards, view.hands[view.player], rows,
        view.current_player, view.first_player,
    )
