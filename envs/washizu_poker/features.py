"""Observation parts kept up to date by the state (the fast ``observe`` path).

Every part is built by the same ``encode`` helpers that ``encode(view)`` uses,
so ``observe(state, p) == encode(state.view(p))`` (the harness asserts it).
Per-seat rows are stored twice (rows ``s`` and ``s + n``) so that the rows of
the seats clockwise from any observer are one contiguous slice.
"""
from __future__ import annotations

import numpy as np

from envs.engine.cards import BASE
from envs.washizu_poker import encode as enc
from envs.washizu_poker.deck import washizu_mask

BASE_ID = BASE.tolist()
ZERO_HAND = np.zeros(5 * enc.SLOT, dtype=np.float32)


class WashizuTables:
    """Per Washizu set (cached by the game): card features and visibility rows."""

    def __init__(self, washizu_ids):
        self.is_w = washizu_mask(washizu_ids).tolist()
        self.feat = enc.card_features(washizu_ids)  # per card id features, Washizu flag included
        self.feat_pad = np.vstack((self.feat, np.zeros((1, enc.SLOT), dtype=np.float32)))  # id -1 -> zeros
        self.wvec = np.zeros(52, dtype=np.float32)
        self.wvec[[BASE_ID[c] for c in washizu_ids]] = 1.0


class ObsParts:
    def __init__(self, n: int, tables: WashizuTables, total: float):
        self.n = n
        self.t = tables  # shared, never mutated
        self.total = total
        self.hand = [ZERO_HAND] * n  # rows are replaced, never mutated
        self.vis2 = np.zeros((2 * n, 52), dtype=np.float32)
        self.left = np.zeros(52, dtype=np.float32)
        self.disc = np.zeros((n, 53), dtype=np.float32)
        self.seat2 = np.zeros((2 * n, enc.SEAT), dtype=np.float32)

    def copy(self) -> "ObsParts":
        new = ObsParts.__new__(ObsParts)
        new.n, new.t, new.total = self.n, self.t, self.total
        new.hand = list(self.hand)  # hand rows are replaced, never mutated
        new.vis2, new.left = self.vis2.copy(), self.left.copy()
        new.disc, new.seat2 = self.disc.copy(), self.seat2.copy()
        return new

    # ---------------------------------------------------------------- updates
    def reset_all(self, hands: list[list[int]], seat_rows: list[tuple]) -> None:
        """Hands, visible Washizu rows and seats at once (a new game, a determinized world)."""
        n = self.n
        ids = np.array([h if h else [-1] * 5 for h in hands])
        self.hand = list(self.t.feat_pad[ids].reshape(n, -1))  # id -1 (no card) has all-zero features
        vis = np.zeros((n, 52), dtype=np.float32)
        is_w = self.t.is_w
        for p, h in enumerate(hands):
            for c in h:
                if is_w[c]:
                    vis[p, BASE_ID[c]] = 1.0
        self.vis2 = np.concatenate((vis, vis))
        seats = np.array(seat_rows, dtype=np.float32)
        self.seat2 = np.concatenate((seats, seats))

    def set_hand(self, p: int, hand) -> None:
        ids = list(hand) if hand else [-1] * 5
        self.hand[p] = self.t.feat_pad[ids].ravel()
        row = np.zeros(52, dtype=np.float32)
        is_w = self.t.is_w
        for c in hand:
            if is_w[c]:
                row[BASE_ID[c]] = 1.0
        self.vis2[p] = row
        self.vis2[p + self.n] = row

    def set_left(self, left_view) -> None:
        self.left = enc.left_features(left_view)

    def set_discards(self, p: int, discards) -> None:
        self.disc[p] = enc.discard_features(discards)

    def set_seat(self, p: int, alive: bool, in_hand: bool, drawn: int, stack: int, bet: int, dealer: bool) -> None:
        row = enc.seat_row(alive, in_hand, drawn, stack, bet, dealer, self.total)
        self.seat2[p] = row
        self.seat2[p + self.n] = row

    # ---------------------------------------------------------------- the observation
    def observe(self, p: int, table: list[float]) -> np.ndarray:
        n = self.n
        return enc.assemble(self.hand[p], self.t.wvec, self.vis2[p + 1: p + n], self.left, self.disc[p],
                            self.seat2[p: p + n], table)
