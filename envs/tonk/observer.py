"""The Tonk observer: the flat absolute-seat buffer every observation is gathered from.

The State (``envs/tonk/state.py`` and the turn steps in ``turns.py``) plays the rules and
tells its :class:`TonkObserver` what happened (a hand dealt, a card into or out of a hand,
a draw, a take, a spread laid or hit, a discard, a phase or turn change, a payment); the
observer writes the pieces of ``encode.buffer_layout`` each event changes, so
``Game.observe`` is one ``take``. ``encode(view)`` is the reference; the harness and
``TonkState.check_invariants`` assert the two agree.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from parlor.envs.engine.layout import BoundViews
from parlor.envs.tonk.encode import (
    BLOCK_SCALE,
    HAND_SCALE,
    MAX_SLOTS,
    OUT,
    PILE,
    S_BLOCK_FLAG,
    S_BLOCKED,
    S_DEALER,
    S_DISC,
    S_JOINED,
    S_SIZE,
    S_SPADE,
    S_STAKES,
    S_TAKEN,
    S_TO_ACT,
    SEAT_W,
    SLOTS,
    STOCK_SCALE,
    T_HAND,
    T_PHASE,
    T_STOCK,
    T_TURN,
    TOP,
    buffer_layout,
)


class TonkObserver(BoundViews):
    """The buffer (``buf``) and its named views, written by the rules' events."""

    VIEWS = ("hand_vec", "cards_vec", "owner_vec", "seat_vec", "tail")

    def __init__(self, n: int, stake_scale: float):
        self.n = n
        self.scale = stake_scale
        self.buf = np.zeros(buffer_layout(n).size, dtype=np.float32)
        self._bind()

    def _bind(self) -> None:
        """Named views into ``buf`` (``encode.buffer_layout``)."""
        n, lay, buf = self.n, buffer_layout(self.n), self.buf
        self.hand_vec = buf[lay["hands"]].reshape(n, 52)
        self.cards_vec = buf[lay["cards"]]
        self.owner_vec = buf[lay["owners"]].reshape(MAX_SLOTS, n)
        self.seat_vec = buf[lay["seats"]].reshape(n, SEAT_W)
        self.tail = buf[lay["tail"]]

    def copy(self) -> TonkObserver:
        new = TonkObserver.__new__(TonkObserver)
        new.n, new.scale, new.buf = self.n, self.scale, self.buf.copy()
        new._bind()
        return new

    # ------------------------------------------------------------ hands and turns
    def new_hand(self, fresh: bool, deck: Sequence[int], first: int, hand_size: int, top: int | None,
                 stakes: Sequence[int], dealer: int, stock_size: int, progress: float) -> None:
        """A hand is dealt from ``deck``, ``hand_size`` cards a seat from ``first`` on (``top``:
        the card turned up, if any). ``fresh``: the buffer is still all zero (a new episode)."""
        if not fresh:
            self.buf.fill(0.0)
        n, hs = self.n, hand_size
        dealt_at = [52 * ((first + i) % n) + c for i in range(n) for c in deck[i * hs:(i + 1) * hs]]
        self.buf[dealt_at] = 1.0  # hand_vec is the first block of buf: one numpy write for all hands
        if top is not None:
            self.cards_vec[TOP + top] = self.cards_vec[PILE + top] = 1.0
        self.seat_vec[:, S_SIZE] = hand_size / HAND_SCALE
        if any(stakes):  # all zero: the buffer already holds 0 (skips numpy work per episode)
            self.seat_vec[:, S_STAKES] = np.array(stakes, dtype=np.float32) / self.scale
        self.seat_vec[dealer, S_DEALER] = 1.0
        self.tail[T_STOCK] = stock_size / STOCK_SCALE
        self.tail[T_HAND] = progress

    def phase(self, old: int | None, new: int | None, was: int | None, now: int | None) -> None:
        """The phase flag moves from ``old`` to ``new`` (None: no flag, the hand is over) and
        the seat to act from ``was`` to ``now``."""
        tail = self.tail
        if old is not None:
            tail[T_PHASE + old] = 0.0
        if new is not None:
            tail[T_PHASE + new] = 1.0
        if now != was:
            if was is not None:
                self.seat_vec[was, S_TO_ACT] = 0.0
            if now is not None:
                self.seat_vec[now, S_TO_ACT] = 1.0

    def turn(self, progress: float) -> None:
        self.tail[T_TURN] = progress

    def episode_over(self) -> None:
        self.tail[T_HAND] = 1.0

    def stakes(self, p: int, stakes: int) -> None:
        self.seat_vec[p, S_STAKES] = stakes / self.scale

    # ------------------------------------------------------------ cards
    def card_in(self, p: int, c: int, held: int) -> None:
        self.hand_vec[p, c] = 1.0
        self.seat_vec[p, S_SIZE] = held / HAND_SCALE

    def card_out(self, p: int, c: int, held: int) -> None:
        self.hand_vec[p, c] = 0.0
        self.seat_vec[p, S_SIZE] = held / HAND_SCALE

    def hand(self, p: int, cards: Sequence[int]) -> None:
        """Seat ``p``'s hand replaced (a determinized copy)."""
        self.hand_vec[p] = 0.0
        self.hand_vec[p, cards] = 1.0

    def drew(self, stock_size: int) -> None:
        self.tail[T_STOCK] = stock_size / STOCK_SCALE

    def took(self, p: int, c: int, new_top: int | None) -> None:
        """``p`` took ``c``, the top of the pile; ``new_top`` is the card under it, if any."""
        cards = self.cards_vec
        cards[TOP + c] = cards[PILE + c] = 0.0
        if new_top is not None:
            cards[TOP + new_top] = 1.0
        self.seat_vec[p, S_TAKEN + c] = 1.0

    def discarded(self, p: int, c: int, old_top: int | None) -> None:
        cards = self.cards_vec
        if old_top is not None:
            cards[TOP + old_top] = 0.0
        cards[TOP + c] = cards[PILE + c] = 1.0
        self.seat_vec[p, S_DISC + c] = 1.0

    def blocked(self, p: int, turns: int) -> None:
        self.seat_vec[p, S_BLOCKED] = turns / BLOCK_SCALE
        self.seat_vec[p, S_BLOCK_FLAG] = float(turns > 0)

    # ------------------------------------------------------------ the table
    def laid(self, p: int, slot: int, cards: Sequence[int]) -> None:
        self.owner_vec[slot, p] = 1.0
        for c in cards:
            self.cards_vec[SLOTS + 52 * slot + c] = 1.0

    def hit(self, slot: int, c: int) -> None:
        self.cards_vec[SLOTS + 52 * slot + c] = 1.0

    def set_out(self, slot: int, owner: int, cards: Sequence[int]) -> None:
        """A set hit up to four leaves the table: out of play."""
        self.owner_vec[slot, owner] = 0.0
        self.cards_vec[SLOTS + 52 * slot:SLOTS + 52 * (slot + 1)] = 0.0
        for x in cards:
            self.cards_vec[OUT + x] = 1.0

    def joined(self, p: int, spade: int) -> None:
        """``p`` joined the side pot, showing ``spade`` (-1: none)."""
        self.seat_vec[p, S_JOINED] = 1.0
        if spade >= 0:
            self.seat_vec[p, S_SPADE + spade // 4] = 1.0
