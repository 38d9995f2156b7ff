"""The storage of Washizu poker's observer (``observer.py``): every seat's observation, kept
up to date as cards move and chips change, so ``Game.observe`` is a row copy.

:class:`ObsParts` holds the rows and writes their parts; the observer decides, per rule
event, what to write. Every part is built by the same helpers that ``encode_view`` uses, so
``observe(state, p) == encode(state.view(p))`` (the harness asserts it). Each observer's whole
observation lives in one row of a 2-D array, written where a card moves, a seat
or the table changes (a seat's row and the shared table features sit in every
observer's row: a step writes one or two entries n times); ``observe`` copies
that row.
"""
from __future__ import annotations

import copy
from array import array
from collections.abc import Iterable, Sequence
from functools import cache

import numpy as np

from parlor.envs.engine.cards import JOKER_BASE
from parlor.envs.engine.layout import float_cells
from parlor.envs.washizu_poker.deck import washizu_mask
from parlor.envs.washizu_poker.encode import (
    BASE_ID,
    SEAT,
    SLOT,
    Layout,
    card_features,
    discard_features,
    left_features,
)

NO_HAND = (-1,) * 5  # an eliminated seat: id -1 is the all-zero row of ``feat_pad``
DISC_COL = [52 if c >= JOKER_BASE else b for c, b in enumerate(BASE_ID)]  # discard_features' column


class WashizuTables:
    """Per Washizu set (cached by the game): card features and visibility rows."""

    def __init__(self, washizu_ids: Sequence[int]):
        self.is_w = washizu_mask(washizu_ids).tolist()
        self.wbase = [BASE_ID[c] if w else -1 for c, w in enumerate(self.is_w)]  # visible-row column, -1: ordinary
        self.feat = card_features(washizu_ids)  # per card id features, Washizu flag included
        self.feat_pad = np.vstack((self.feat, np.zeros((1, SLOT), dtype=np.float32)))  # id -1 -> zeros
        self.wvec = np.zeros(52, dtype=np.float32)
        self.wvec[[BASE_ID[c] for c in washizu_ids]] = 1.0
        self._blanks: dict[int, np.ndarray] = {}

    def blank(self, layout: RowLayout) -> np.ndarray:
        """Read-only observer rows without cards: only the Washizu set (built once per seat count)."""
        blank = self._blanks.get(layout.n)
        if blank is None:
            blank = self._blanks[layout.n] = np.zeros((layout.n, layout.size), dtype=np.float32)
            blank[:, 5 * SLOT: layout.vis_at] = self.wvec
            blank.flags.writeable = False
        return blank


class RowLayout:
    """Offsets and flat cell indices of the observers' rows (``ObsParts.rows``) for ``n`` seats,
    whatever the Washizu set (``row_layout`` builds each once); a row is ``encode.Layout``."""

    def __init__(self, n: int):
        self.n = n
        pieces = Layout(n)
        self.vis_at, self.left_at, self.disc_at, self.seat_at, self.table_at = (  # offsets of the parts
            pieces.start(name) for name in ("visible", "left_view", "my_discards", "seats", "table"))
        self.size = size = pieces.size
        # flat index of column 0 of seat s's visible row, per other observer q
        self.vis_flat = [[q * size + self.vis_at + ((s - q) % n - 1) * 52 for q in range(n) if q != s]
                         for s in range(n)]
        self.left_flat = [q * size + self.left_at for q in range(n)]  # column 0 of each left view
        # flat index of entry 0 of seat s's seat row, per observer (seats relative to the observer)
        self.seat_flat = [[q * size + self.seat_at + ((s - q) % n) * SEAT for q in range(n)] for s in range(n)]
        self.seats_flat = [q * size + self.seat_at for q in range(n)]  # each observer's seat rows
        self.table_flat = [q * size + self.table_at for q in range(n)]  # each observer's table features
        # tail_gather[t][q, j]: what observer q's entry seat_at + j (seat rows, table) holds when
        # t is to act (t = n: nobody), as an index into reset_all's source: the seat rows in seat
        # order (n * SEAT), the six shared table features, 0.0, 1.0
        k = n * SEAT
        self.tail_gather = [np.array([[(q * SEAT + j) % k for j in range(k)] + list(range(k, k + 6))
                                      + [k + 6, k + 7 if q == t else k + 6] for q in range(n)])
                            for t in range(n + 1)]


@cache
def row_layout(n: int) -> RowLayout:
    """The :class:`RowLayout` of ``n`` seats, built once."""
    return RowLayout(n)


class ObsParts:
    """Every seat's observation: ``rows[q]`` is observer ``q``'s layout (hand, Washizu set,
    visible rows of seats q+1..q+n-1, left view, discards, seat rows from q clockwise, table
    features). Single entries are written through a memoryview (``cells``, the observer's
    events write them too): half the cost of numpy's scalar writes."""

    def __init__(self, n: int, tables: WashizuTables):
        self.n = n
        self.t = tables  # shared, never mutated
        layout = self.layout = row_layout(n)
        self.vis_at, self.left_at, self.disc_at = layout.vis_at, layout.left_at, layout.disc_at
        self.blank = tables.blank(layout)  # shared, never mutated
        self.rows = self.blank.copy()
        self.size = layout.size
        self._bind()

    def _bind(self) -> None:
        self.row_list = list(self.rows)  # row views: no numpy indexing per observation
        self.cells = float_cells(self.rows)  # (a flat view: rows is contiguous)
        # the hand features of every row as (n, 5 positions, 19) and of each row: ``take`` writes
        # straight into them
        self.hand_block = self.rows[:, : 5 * SLOT].reshape(self.n, 5, SLOT)
        self.hand_rows = list(self.hand_block)
        self.tail = self.rows[:, self.layout.seat_at:]  # seat rows and table

    def copy(self) -> ObsParts:
        new = copy.copy(self)
        new.rows = self.rows.copy()
        new._bind()
        return new

    # memoryviews do not pickle: rebind them instead
    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        for name in ("cells", "row_list", "hand_block", "hand_rows", "tail"):
            del state[name]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._bind()

    # ---------------------------------------------------------------- updates
    def reset_all(self, hands: list[list[int]], seat_values: list[float], shared: list[float],
                  turn: int | None) -> None:
        """Hands, visible Washizu rows, seats (``seat_values``: every seat's ``seat_row`` in
        seat order, flat) and the table (``set_table`` with nothing to call) at once (a new game,
        a determinized world); left view and discards are cleared (``set_left``,
        ``set_discards`` restore them)."""
        rows, cells, wbase, layout = self.rows, self.cells, self.t.wbase, self.layout
        rows[...] = self.blank  # (in place: the views stay bound)
        # (take is faster than fancy indexing; "wrap" sends NO_HAND's -1 to the zero row)
        self.t.feat_pad.take([h or NO_HAND for h in hands], axis=0, out=self.hand_block, mode="wrap")
        for s, h in enumerate(hands):  # the Washizu cards each seat shows the others
            vis = layout.vis_flat[s]
            for c in h:
                w = wbase[c]
                if w >= 0:
                    for at in vis:
                        cells[at + w] = 1.0
        self.set_tail(seat_values, shared, turn)

    def set_tail(self, seat_values: list[float], shared: list[float], turn: int | None) -> None:
        """Every observer's seat rows (``seat_values`` as in ``reset_all``, from himself clockwise)
        and table features (``shared``: the first six; nothing to call; ``turn``'s turn) in one
        gather (a float32 buffer converts the list at twice numpy's speed)."""
        source = np.frombuffer(array("f", seat_values + shared + [0.0, 1.0]), dtype=np.float32)
        source.take(self.layout.tail_gather[self.n if turn is None else turn], out=self.tail, mode="wrap")

    def set_hand(self, p: int, hand: Sequence[int]) -> None:
        """Seat ``p``'s new hand; ``move_washizu`` updates what the others see of it."""
        self.t.feat_pad.take(hand, axis=0, out=self.hand_rows[p], mode="wrap")

    def move_washizu(self, p: int, gone: Sequence[int], came: Sequence[int]) -> None:
        """Washizu cards ``gone`` left seat ``p``'s hand into the left view and ``came`` entered
        it (back in view): the visible rows and the left view (as ``set_left`` of the new left
        view writes them). A Washizu base id occurs at most once per deck, so a column holds one
        card, and a card discarded now is never drawn in the same draw."""
        cells, wbase = self.cells, self.t.wbase
        vis, left = self.layout.vis_flat[p], self.layout.left_flat
        for cards, in_view in ((gone, 0.0), (came, 1.0)):  # a card is in exactly one of the two
            for c in cards:
                w = wbase[c]
                for at in vis:
                    cells[at + w] = in_view
                for at in left:
                    cells[at + w] = 1.0 - in_view

    def set_left(self, left_view: Iterable[int]) -> None:
        self.rows[:, self.left_at: self.disc_at] = left_features(left_view)

    def set_discards(self, p: int, discards: Iterable[int]) -> None:
        self.rows[p, self.disc_at: self.disc_at + 53] = discard_features(discards)

    def add_discards(self, p: int, discards: Iterable[int]) -> None:
        """Seat ``p``'s discards at its draw (its part is still zero: one draw per game);
        written in place, cheaper than a new ``discard_features`` row."""
        cells, at = self.cells, p * self.size + self.disc_at
        for c in discards:
            cells[at + DISC_COL[c]] += 0.5

    def set_table(self, shared: list[float], to_call: list[float], turn: int | None) -> None:
        """Every observer's ``table_features``: ``shared`` = the first six (pot, level, cap,
        game number, draw phase, betting phase), then his own amount to call and "my turn"
        (``turn``'s; None: nobody's)."""
        at, rows = self.layout.table_at, self.rows
        rows[:, at: at + 6] = shared
        rows[:, at + 6] = to_call
        rows[:, at + 7] = 0.0
        if turn is not None:
            self.cells[self.layout.table_flat[turn] + 7] = 1.0
