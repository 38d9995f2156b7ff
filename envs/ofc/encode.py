"""OFC observation layout, ``encode(view)`` and action names.

The layout (named pieces, ``engine.layout``) is shared with the State, which keeps one
observation vector per seat up to date incrementally (the fast ``observe``
path); ``encode`` builds the same vector from a View from scratch, and a test
asserts the two agree.
"""
from __future__ import annotations

import numpy as np

from parlor.envs.engine.layout import Layout as Pieces
from parlor.envs.ofc.view import OFCView

NUM_CARDS = 52
BOARD_CELLS = 3 * NUM_CARDS       # one-hot card per row: top, middle, bottom
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


class Layout(Pieces):
    """The observation of ``n`` players as named pieces (see envs/ofc_v0.py); the attributes
    hold the offsets the hot paths read. The own-seat pieces come first, so their offsets
    do not depend on ``n``."""

    __slots__ = ("n", "own_rows", "next_card", "pending", "discards", "opponents", "unseen_rank",
                 "unseen_suit", "pending_left", "discards_owed", "hand_progress", "last_hand",
                 "fantasyland", "start_seat")

    def __init__(self, n: int):
        super().__init__([
            ("own_rows", BOARD_CELLS), ("next_card", NUM_CARDS), ("pending", NUM_CARDS),
            ("own_discards", NUM_CARDS), ("opponent_rows", (n - 1) * BOARD_CELLS),
            ("unseen_rank", 13), ("unseen_suit", 4), ("pending_left", 1), ("discards_owed", 1),
            ("hand_progress", 1), ("last_hand", 1), ("fantasyland", n), ("start_seat", n),
        ])
        self.n = n
        (self.own_rows, self.next_card, self.pending, self.discards, self.opponents, self.unseen_rank,
         self.unseen_suit, self.pending_left, self.discards_owed, self.hand_progress, self.last_hand,
         self.fantasyland, self.start_seat) = (self.start(name) for name in self)

    def opponent_base(self, viewer: int, owner: int) -> int:
        """Start of ``owner``'s board in ``viewer``'s observation (by relative seat)."""
        return self.opponents + ((owner - viewer) % self.n - 1) * BOARD_CELLS


# the own-seat slices sit at fixed offsets whatever the number of players
NEXT_CARD, PENDING, DISCARDS = (Layout(1).start(name) for name in ("next_card", "pending", "own_discards"))


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
