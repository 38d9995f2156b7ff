"""Observation parts kept up to date by the state (the fast ``observe`` path).

Every part is built by the same ``encode`` helpers that ``encode(view)`` uses,
so ``observe(state, p) == encode(state.view(p))`` (the harness asserts it).
Each observer's card parts (hand, Washizu set, visible rows, left view,
discards: the head of the layout) live in one row of a 2-D array, written when
a card moves; ``observe`` copies that row and appends the seat rows plus the
table features. The seat rows are a flat Python list, stored twice (rows ``s``
and ``s + n``) so that the rows of the seats clockwise from any observer are
one contiguous slice: a step changes one row.
"""
from __future__ import annotations

import copy

import numpy as np

from envs.engine.cards import BASE, JOKER_BASE
from envs.washizu_poker import encode as enc
from envs.washizu_poker.deck import washizu_mask

BASE_ID = BASE.tolist()
SEAT = enc.SEAT
DISC_COL = [52 if c >= JOKER_BASE else b for c, b in enumerate(BASE_ID)]  # enc.discard_features' column
NO_HAND = (-1,) * 5  # an eliminated seat: id -1 is the all-zero row of ``feat_pad``


class WashizuTables:
    """Per Washizu set (cached by the game): card features and visibility rows."""

    def __init__(self, washizu_ids):
        self.is_w = washizu_mask(washizu_ids).tolist()
        self.wbase = [BASE_ID[c] if w else -1 for c, w in enumerate(self.is_w)]  # visible-row column, -1: ordinary
        self.feat = enc.card_features(washizu_ids)  # per card id features, Washizu flag included
        self.feat_pad = np.vstack((self.feat, np.zeros((1, enc.SLOT), dtype=np.float32)))  # id -1 -> zeros
        self.wvec = np.zeros(52, dtype=np.float32)
        self.wvec[[BASE_ID[c] for c in washizu_ids]] = 1.0


class ObsParts:
    """The parts of every seat's observation. ``head[q]`` is observer ``q``'s layout up to
    the seat rows: hand, Washizu set, visible rows (seats q+1..q+n-1), left view, discards."""

    def __init__(self, n: int, tables: WashizuTables, total: float):
        self.n = n
        self.t = tables  # shared, never mutated
        self.total = total
        self.vis_at = 5 * enc.SLOT + 52  # offsets of the head parts
        self.left_at = self.vis_at + (n - 1) * 52
        self.disc_at = self.left_at + 52
        width = self.disc_at + 53
        self.blank = np.zeros((n, width), dtype=np.float32)  # no cards: only the Washizu set (shared, never mutated)
        self.blank[:, 5 * enc.SLOT: self.vis_at] = tables.wvec
        self.head = self.blank.copy()
        # flat head index of column 0 of seat s's visible row, per other observer q
        self.vis_flat = [[q * width + self.vis_at + ((s - q) % n - 1) * 52 for q in range(n) if q != s]
                         for s in range(n)]
        self.seats = [0.0] * (2 * n * SEAT)  # flat rows s = 0..2n-1
        self.size = width + n * SEAT + enc.TABLE

    def copy(self) -> "ObsParts":
        new = copy.copy(self)
        new.head, new.seats = self.head.copy(), list(self.seats)
        return new

    # ---------------------------------------------------------------- updates
    def reset_all(self, hands: list[list[int]], seat_rows: list[tuple]) -> None:
        """Hands, visible Washizu rows and seats at once (a new game, a determinized world);
        left view and discards are cleared (``set_left``, ``set_discards`` restore them)."""
        n, wbase, vis_flat = self.n, self.t.wbase, self.vis_flat
        self.head = head = self.blank.copy()
        ids = [c for h in hands for c in (h or NO_HAND)]  # (take is faster than fancy indexing)
        head[:, : 5 * enc.SLOT] = self.t.feat_pad.take(ids, axis=0).reshape(n, -1)
        on = [at + wbase[c] for s, h in enumerate(hands) for c in h if wbase[c] >= 0 for at in vis_flat[s]]
        if on:
            head.reshape(-1)[on] = 1.0  # (a view: head is contiguous)
        self.seats = [x for row in seat_rows for x in row] * 2

    def _show(self, s: int, b: int, value: float) -> None:
        """Column ``b`` of seat ``s``'s visible row, in every other observer's head."""
        flat = self.head.reshape(-1)
        for at in self.vis_flat[s]:
            flat[at + b] = value

    def set_hand(self, p: int, hand) -> None:
        """Seat ``p``'s new hand; ``move_washizu`` updates what the others see of it."""
        self.head[p, : 5 * enc.SLOT] = self.t.feat_pad.take(hand, axis=0).ravel()

    def move_washizu(self, p: int, gone, came) -> None:
        """Washizu cards ``gone`` left seat ``p``'s hand and ``came`` entered it (a Washizu
        base id occurs at most once per deck, so a column holds one card)."""
        wbase = self.t.wbase
        for c in gone:
            self._show(p, wbase[c], 0.0)
        for c in came:
            self._show(p, wbase[c], 1.0)

    def set_left(self, left_view) -> None:
        self.head[:, self.left_at: self.disc_at] = enc.left_features(left_view)

    def set_discards(self, p: int, discards) -> None:
        self.head[p, self.disc_at:] = enc.discard_features(discards)

    def add_discards(self, p: int, discards) -> None:
        """Seat ``p``'s discards at its draw (its part is still zero: one draw per game);
        written in place, cheaper than a new ``enc.discard_features`` row."""
        row, at = self.head[p], self.disc_at
        for c in discards:
            row[at + DISC_COL[c]] += 0.5

    def set_seat(self, p: int, row: tuple) -> None:
        """Seat ``p``'s ``enc.seat_row`` (both copies)."""
        seats, at = self.seats, p * SEAT
        seats[at: at + SEAT] = row
        at += self.n * SEAT
        seats[at: at + SEAT] = row

    # ---------------------------------------------------------------- the observation
    def observe(self, p: int, table: list[float]) -> np.ndarray:
        n = self.n
        head = self.head[p]
        out = np.empty(self.size, dtype=np.float32)
        out[: head.size] = head
        out[head.size:] = self.seats[p * SEAT: (p + n) * SEAT] + table  # seats then table, adjacent in the layout
        return out
