"""Observation parts kept up to date by the state (the fast ``observe`` path).

Every part is built by the same ``encode`` helpers that ``encode(view)`` uses,
so ``observe(state, p) == encode(state.view(p))`` (the harness asserts it).
Per-seat rows are stored twice (rows ``s`` and ``s + n``) so that the rows of
the seats clockwise from any observer are one contiguous slice. The seat rows
are a flat Python list: a step changes one row, and ``observe`` turns the
observer's rows plus the table features into one array (a single numpy call).
"""
from __future__ import annotations

import numpy as np

from envs.engine.cards import BASE
from envs.washizu_poker import encode as enc
from envs.washizu_poker.deck import washizu_mask

BASE_ID = BASE.tolist()
ZERO_HAND = np.zeros(5 * enc.SLOT, dtype=np.float32)
NO_HAND = (-1,) * 5  # an eliminated seat: id -1 is the all-zero row of ``feat_pad``
ZERO_LEFT = np.zeros(52, dtype=np.float32)
ZERO_LEFT.flags.writeable = False  # shared by every state


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
    """The parts of every seat's observation. ``vis2`` is flat: rows of 52, seat ``s``
    at rows ``s`` and ``s + n``."""

    def __init__(self, n: int, tables: WashizuTables, total: float):
        self.n = n
        self.t = tables  # shared, never mutated
        self.total = total
        self.hand = [ZERO_HAND] * n  # rows are replaced, never mutated
        self.vis2 = np.zeros(2 * n * 52, dtype=np.float32)
        self.left = ZERO_LEFT  # replaced, never mutated
        self.disc = np.zeros((n, 53), dtype=np.float32)
        self.seats = [0.0] * (2 * n * enc.SEAT)  # flat rows s = 0..2n-1

    def copy(self) -> "ObsParts":
        new = ObsParts.__new__(ObsParts)
        new.n, new.t, new.total = self.n, self.t, self.total
        new.hand = list(self.hand)  # hand rows are replaced, never mutated
        new.vis2, new.left = self.vis2.copy(), self.left
        new.disc, new.seats = self.disc.copy(), list(self.seats)
        return new

    # ---------------------------------------------------------------- updates
    def reset_all(self, hands: list[list[int]], seat_rows: list[tuple]) -> None:
        """Hands, visible Washizu rows and seats at once (a new game, a determinized world)."""
        n = self.n
        ids = [c for h in hands for c in (h or NO_HAND)]  # (take is faster than fancy indexing)
        self.hand = list(self.t.feat_pad.take(ids, axis=0).reshape(n, -1))
        wbase = self.t.wbase
        on = []
        for p, h in enumerate(hands):
            for c in h:
                b = wbase[c]
                if b >= 0:
                    on += (p * 52 + b, (p + n) * 52 + b)
        vis = np.zeros(2 * n * 52, dtype=np.float32)
        if on:
            vis[on] = 1.0
        self.vis2 = vis
        flat = [x for row in seat_rows for x in row]
        self.seats = flat + flat

    def set_hand(self, p: int, hand) -> None:
        """Seat ``p``'s new hand; ``move_washizu`` updates what the others see of it."""
        self.hand[p] = self.t.feat_pad.take(hand, axis=0).ravel()

    def move_washizu(self, p: int, gone, came) -> None:
        """Washizu cards ``gone`` left seat ``p``'s hand and ``came`` entered it (a Washizu
        base id occurs at most once per deck, so a column holds one card)."""
        vis, wbase = self.vis2, self.t.wbase
        for at in (p * 52, (p + self.n) * 52):
            for c in gone:
                vis[at + wbase[c]] = 0.0
            for c in came:
                vis[at + wbase[c]] = 1.0

    def set_left(self, left_view) -> None:
        self.left = enc.left_features(left_view)

    def set_discards(self, p: int, discards) -> None:
        self.disc[p] = enc.discard_features(discards)

    def clear_discards_and_left(self) -> None:
        """A new game: nothing discarded, no Washizu card left view."""
        self.disc = np.zeros((self.n, 53), dtype=np.float32)
        self.left = ZERO_LEFT

    def set_seat(self, p: int, alive: bool, in_hand: bool, drawn: int, stack: int, bet: int, dealer: bool) -> None:
        row = enc.seat_row(alive, in_hand, drawn, stack, bet, dealer, self.total)
        at = p * enc.SEAT
        self.seats[at: at + enc.SEAT] = row
        at += self.n * enc.SEAT
        self.seats[at: at + enc.SEAT] = row

    # ---------------------------------------------------------------- the observation
    def observe(self, p: int, table: list[float]) -> np.ndarray:
        n = self.n
        tail = self.seats[p * enc.SEAT: (p + n) * enc.SEAT] + table  # seats then table, adjacent in the layout
        return np.concatenate((self.hand[p], self.t.wvec, self.vis2[(p + 1) * 52: (p + n) * 52], self.left,
                               self.disc[p], np.array(tail, dtype=np.float32)))
