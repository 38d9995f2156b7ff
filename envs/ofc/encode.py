"""OFC observation layout, ``encode(view)`` and action names.

The layout (offsets by named slice) is shared with the State, which keeps one
observation vector per seat up to date incrementally (the fast ``observe``
path); ``encode`` builds the same vector from a View from scratch, and a test
asserts the two agree.
"""
from __future__ import annotations

import numpy as np

from parlor.envs.ofc.view import OFCView

NUM_CARDS = 52
BOARD_CELLS = 3 * NUM_CARDS       # one-hot card per row: top, middle, bottom
# the own-seat slices sit at fixed offsets whatever the number of players
NEXT_CARD = BOARD_CELLS
PENDING = NEXT_CARD + NUM_CARDS
DISCARDS = PENDING + NUM_CARDS
MAX_PENDING = 17                  # progressive Fantasyland with trips on top
MAX_DISCARDS_OWED = 4

ACTION_TOP, ACTION_MIDDLE, ACTION_BOTTOM, ACTION_DISCARD = 0, 1, 2, 3
NUM_ACTIONS = 4
ACTION_NAMES = ("place next card on top", "place next card in middle", "place next card on bottom",
                "discard next card")

# float32 values written for counts, shared by encode() and the incremental path
RANK_LEFT = np.arange(5, dtype=np.float32) / np.float32(4)       # unseen cards of a rank / 4
SUIT_LEFT = np.arange(14, dtype=np.float32) / np.float32(13)     # unseen cards of a suit / 13
PENDING_LEFT = np.arange(MAX_PENDING + 1, dtype=np.float32) / np.float32(MAX_PENDING)
OWED_LEFT = np.arange(MAX_DISCARDS_OWED + 1, dtype=np.float32) / np.float32(MAX_DISCARDS_OWED)
RANK_LEFT_L = RANK_LEFT.tolist()
SUIT_LEFT_L = SUIT_LEFT.tolist()
PENDING_LEFT_L = PENDING_LEFT.tolist()
OWED_LEFT_L = OWED_LEFT.tolist()


class Layout:
    """Offsets of the observation slices for ``n`` players (see envs/ofc_v0.py)."""

    __slots__ = ("n", "own_rows", "next_card", "pending", "discards", "opponents", "unseen_rank",
                 "unseen_suit", "pending_left", "discards_owed", "hand_progress", "last_hand",
                 "fantasyland", "start_seat", "size")

    def __init__(self, n: int):
        self.n = n
        self.own_rows = 0
        self.next_card = NEXT_CARD
        self.pending = PENDING
        self.discards = DISCARDS
        self.opponents = self.discards + NUM_CARDS
        self.unseen_rank = self.opponents + (n - 1) * BOARD_CELLS
        self.unseen_suit = self.unseen_rank + 13
        self.pending_left = self.unseen_suit + 4
        self.discards_owed = self.pending_left + 1
        self.hand_progress = self.discards_owed + 1
        self.last_hand = self.hand_progress + 1
        self.fantasyland = self.last_hand + 1
        self.start_seat = self.fantasyland + n
        self.size = self.start_seat + n

    def opponent_base(self, viewer: int, owner: int) -> int:
        """Start of ``owner``'s board in ``viewer``'s observation (by relative seat)."""
        return self.opponents + ((owner - viewer) % self.n - 1) * BOARD_CELLS

    def slices(self) -> dict[str, slice]:
        n = self.n
        return {
            "own_rows": slice(self.own_rows, self.next_card),
            "next_card": slice(self.next_card, self.pending),
            "pending": slice(self.pending, self.discards),
            "own_discards": slice(self.discards, self.opponents),
            "opponent_rows": slice(self.opponents, self.unseen_rank),
            "unseen_rank": slice(self.unseen_rank, self.unseen_suit),
            "unseen_suit": slice(self.unseen_suit, self.pending_left),
            "pending_left": slice(self.pending_left, self.pending_left + 1),
            "discards_owed": slice(self.discards_owed, self.discards_owed + 1),
            "hand_progress": slice(self.hand_progress, self.hand_progress + 1),
            "last_hand": slice(self.last_hand, self.last_hand + 1),
            "fantasyland": slice(self.fantasyland, self.fantasyland + n),
            "start_seat": slice(self.start_seat, self.start_seat + n),
        }


def hand_header(layout: Layout, obs: np.ndarray, viewer: int, hand_index: int, num_hands: int,
                fantasyland: list[bool] | tuple[bool, ...], start_player: int) -> None:
    """Write the per-hand constant fields and the full unseen counts into ``obs``."""
    n = layout.n
    obs[layout.unseen_rank:layout.unseen_suit] = RANK_LEFT[4]
    obs[layout.unseen_suit:layout.pending_left] = SUIT_LEFT[13]
    obs[layout.hand_progress] = np.float32(hand_index) / np.float32(num_hands)
    obs[layout.last_hand] = 1.0 if hand_index == num_hands - 1 else 0.0
    for q in range(n):
        if fantasyland[q]:
            obs[layout.fantasyland + (q - viewer) % n] = 1.0
    obs[layout.start_seat + (viewer - start_player) % n] = 1.0


def encode(view: OFCView, layout: Layout | None = None) -> np.ndarray:
    """float32 observation of a view; every entry lies in [0, 1]."""
    n = view.num_players
    lay = layout if layout is not None and layout.n == n else Layout(n)
    obs = np.zeros(lay.size, dtype=np.float32)
    hand_header(lay, obs, view.player, view.hand_index, view.num_hands, view.fantasyland, view.start_player)
    p = view.player
    for r, row in enumerate(view.rows[p]):
        for c in row:
            obs[lay.own_rows + r * NUM_CARDS + c] = 1.0
    if view.pending:
        obs[lay.next_card + view.pending[0]] = 1.0
        for c in view.pending[1:]:
            obs[lay.pending + c] = 1.0
    for c in view.discards:
        obs[lay.discards + c] = 1.0
    for q in range(n):
        if q == p or view.hidden[q]:
            continue
        base = lay.opponent_base(p, q)
        for r, row in enumerate(view.rows[q]):
            for c in row:
                obs[base + r * NUM_CARDS + c] = 1.0
    rank_left, suit_left = [4] * 13, [13] * 4
    for c in view.seen_cards():
        rank_left[c >> 2] -= 1
        suit_left[c & 3] -= 1
    obs[lay.unseen_rank:lay.unseen_suit] = RANK_LEFT[rank_left]
    obs[lay.unseen_suit:lay.pending_left] = SUIT_LEFT[suit_left]
    obs[lay.pending_left] = PENDING_LEFT[len(view.pending)]
    obs[lay.discards_owed] = OWED_LEFT[view.discards_owed]
    return obs


def action_name(action: int) -> str:
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action {action} out of range 0..{NUM_ACTIONS - 1}")
    return ACTION_NAMES[action]
