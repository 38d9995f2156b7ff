"""The OFC observer: every seat's observation vector, written as the rules report events.

The State (``envs/ofc/state.py``) plays the rules and tells its :class:`OFCObserver` what
happened: a hand starts, a turn deals cards to a seat, a card is placed or discarded, the
next card comes up, a turn ends, Fantasyland boards are revealed. The observer writes the
pieces of ``encode.Layout`` that each event changes, so ``Game.observe`` is a copy, and
``encode(view)`` (the reference) builds the same vector from a View; the harness asserts
the two agree. Single entries are written through memoryviews (half the cost of numpy's).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from parlor.envs.engine.layout import float_cells
from parlor.envs.ofc import encode as enc

NEXT_CARD, PENDING, DISCARDS = enc.NEXT_CARD, enc.PENDING, enc.DISCARDS
RANK_LEFT, SUIT_LEFT = enc.RANK_LEFT_L, enc.SUIT_LEFT_L
PENDING_LEFT, OWED_LEFT = enc.PENDING_LEFT_L, enc.OWED_LEFT_L
CARD_RS = tuple((c >> 2, c & 3) for c in range(enc.NUM_CARDS))  # (rank, suit) by card id


class OFCObserver:
    """Every seat's observation (``obs[p]``) and unseen-card counts, kept up to date."""

    __slots__ = ("layout", "num_hands", "unseen_at", "counts_at", "watchers", "obs", "mv", "rank_left",
                 "suit_left")

    def __init__(self, layout: enc.Layout, num_hands: int, unseen_at: tuple[int, int],
                 counts_at: tuple[int, int], watchers: tuple[tuple[tuple[int, int], ...], ...]):
        self.layout = layout
        self.num_hands = num_hands
        self.unseen_at = unseen_at  # (unseen_rank, unseen_suit) offsets
        self.counts_at = counts_at  # (pending_left, discards_owed) offsets
        self.watchers = watchers  # watchers[p]: (seat, offset of p's board in its observation)

    # ------------------------------------------------------------ events
    def start_hand(self, headers: Sequence[np.ndarray], hand_index: int) -> list[np.ndarray]:
        """A hand is dealt: every seat's vector is its header (``Game.hand_setup``); returns them."""
        obs, mv = [], []
        for header in headers:
            o = header.copy()
            obs.append(o)
            mv.append(float_cells(o))
        self.obs, self.mv = obs, mv
        self.rank_left = [[4] * 13 for _ in headers]
        self.suit_left = [[13] * 4 for _ in headers]
        if hand_index:  # the headers are written for hand 0 (whose last_hand flag is already right)
            lay = self.layout
            progress = float(np.float32(hand_index) / np.float32(self.num_hands))
            for o in mv:
                o[lay.hand_progress] = progress
            if hand_index == self.num_hands - 1:
                for o in mv:
                    o[lay.last_hand] = 1.0
        return obs

    def deal(self, seat: int, cards: Sequence[int], owed: int) -> None:
        """``seat``'s turn deals it ``cards`` (the first is next to place), ``owed`` to discard."""
        o = self.mv[seat]
        ur, us = self.unseen_at
        rank_left, suit_left = self.rank_left[seat], self.suit_left[seat]
        o[NEXT_CARD + cards[0]] = 1.0
        for c in cards:
            r, s = CARD_RS[c]
            x = rank_left[r] - 1
            rank_left[r] = x
            o[ur + r] = RANK_LEFT[x]
            x = suit_left[s] - 1
            suit_left[s] = x
            o[us + s] = SUIT_LEFT[x]
        k = len(cards)
        if k > 1:  # the cards after the next one are pending (the single-card turn skips this)
            for c in cards[1:]:
                o[PENDING + c] = 1.0
        # outside its own turns a seat's pending/owed counts read 0 (turn_done clears them)
        pl, do = self.counts_at
        o[pl] = PENDING_LEFT[k]
        if owed:
            o[do] = OWED_LEFT[owed]

    def discarded(self, p: int, c: int) -> None:
        o = self.mv[p]
        o[NEXT_CARD + c] = 0.0
        o[DISCARDS + c] = 1.0

    def placed(self, p: int, c: int, row: int, face_up: bool) -> None:
        """``p`` placed ``c`` in ``row``; the other seats see it when ``face_up``."""
        o = self.mv[p]
        o[NEXT_CARD + c] = 0.0
        cell = row * 52 + c
        o[cell] = 1.0
        if face_up:
            r, s = CARD_RS[c]
            ur, us = self.unseen_at
            ur += r
            us += s
            mv, rank_left, suit_left = self.mv, self.rank_left, self.suit_left
            for q, base in self.watchers[p]:
                oq = mv[q]
                oq[base + cell] = 1.0
                counts = rank_left[q]
                x = counts[r] - 1
                counts[r] = x
                oq[ur] = RANK_LEFT[x]
                counts = suit_left[q]
                x = counts[s] - 1
                counts[s] = x
                oq[us] = SUIT_LEFT[x]

    def next_card(self, p: int, c: int, left: int, owed: int) -> None:
        """``c`` is ``p``'s next card to place, ``left`` cards to go, ``owed`` discards."""
        o = self.mv[p]
        o[NEXT_CARD + c] = 1.0
        o[PENDING + c] = 0.0
        pl, do = self.counts_at
        o[pl] = PENDING_LEFT[left]
        o[do] = OWED_LEFT[owed]

    def turn_done(self, p: int) -> None:
        pl, do = self.counts_at
        o = self.mv[p]
        o[pl] = 0.0
        o[do] = 0.0

    def reveal(self, q: int, board: Sequence[Sequence[int]]) -> None:
        """Seat ``q``'s face-down (Fantasyland) board is turned face up for every other seat."""
        for r, row in enumerate(board):
            for c in row:
                for w, base in self.watchers[q]:
                    self.mv[w][base + r * 52 + c] = 1.0
                    self._see(w, c)

    def _see(self, p: int, c: int) -> None:
        o = self.mv[p]
        r, s = c >> 2, c & 3
        left = self.rank_left[p]
        left[r] -= 1
        o[self.unseen_at[0] + r] = RANK_LEFT[left[r]]
        left = self.suit_left[p]
        left[s] -= 1
        o[self.unseen_at[1] + s] = SUIT_LEFT[left[s]]

    # ------------------------------------------------------------ rebuilding and copies
    def rebuild(self, views: Sequence[Any]) -> None:
        """Every seat's vector and unseen counts recomputed from its view (after cards moved
        outside the events: ``determinize``)."""
        for p, view in enumerate(views):
            self.obs[p][:] = enc.encode(view, self.layout)
            seen = view.seen_cards()
            self.rank_left[p] = [4 - sum(1 for c in seen if c >> 2 == r) for r in range(13)]
            self.suit_left[p] = [13 - sum(1 for c in seen if c & 3 == s) for s in range(4)]

    def copy(self) -> OFCObserver:
        new = OFCObserver.__new__(OFCObserver)
        new.layout, new.num_hands, new.unseen_at, new.counts_at, new.watchers = (
            self.layout, self.num_hands, self.unseen_at, self.counts_at, self.watchers)
        new.obs = [o.copy() for o in self.obs]
        new.mv = [float_cells(o) for o in new.obs]
        new.rank_left = [list(x) for x in self.rank_left]
        new.suit_left = [list(x) for x in self.suit_left]
        return new

    # memoryviews do not pickle: pickle and deepcopy carry the buffers (obs) and rebind the views
    def __getstate__(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in OFCObserver.__slots__ if name != "mv" and hasattr(self, name)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        self.mv = [float_cells(o) for o in self.obs]
