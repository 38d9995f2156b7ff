"""The OFC State: dealing, placement, showdown and Fantasyland across hands.

Turn structure of a hand (issue 3): Fantasyland players (seat order from the
start player) get all their cards at once and place them before anyone else
acts; then the regular players play rounds from the start player, receiving
their 5, 3 or 1 cards from the top of the deck as their turn begins. Each
action sends the next pending card to a row or the discard.

The State keeps only the rules: every event that changes what a seat sees (a hand
dealt, cards dealt to a turn, a card placed or discarded, boards revealed) is told to
its ``OFCObserver`` (``envs/ofc/observer.py``), which keeps every seat's observation
vector up to date, so ``observe`` is a copy, not a rebuild.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from parlor.envs.engine.state import SLOTS, RulesState
from parlor.envs.ofc import encode as enc
from parlor.envs.ofc.determinize import determinize
from parlor.envs.ofc.observer import OFCObserver
from parlor.envs.ofc.scoring import (
    BOARD_SIZE,
    FL_STAY_CARDS,
    ROW_SIZES,
    evaluate_board,
    fl_entry_cards,
    fl_stays,
    score_hand,
)
from parlor.envs.ofc.stats import EpisodeTally, episode_stats
from parlor.envs.ofc.view import EMPTY_BOARD, OFCView, Showdown, frozen_board

DISCARD = enc.ACTION_DISCARD


def _make_masks() -> list[np.ndarray]:
    """Mask by key: bit r (r = 0..2) = row r may take the card, bit 3 = discard allowed."""
    masks = []
    for key in range(16):
        m = np.array([bool(key >> a & 1) for a in range(4)])
        m.flags.writeable = False
        masks.append(m)
    return masks


MASKS = _make_masks()
ALLOWED = tuple(frozenset(int(a) for a in np.flatnonzero(m)) for m in MASKS)  # legal ids by mask key
# OFCState.free[p]: bit r set while row r has room (the row bits of the mask key)
ALL_ROWS_FREE = 7
ROW_FULL_CLEAR = (~1, ~2, ~4)


class OFCState(RulesState):
    """One OFC episode (``num_hands`` hands); see the module docstring for the turn order."""

    __slots__ = SLOTS + (
        "n", "variant", "num_hands", "fl_cards", "fl_stay", "layout",
        "hand_index", "start_player", "fl_next", "in_fl", "fl_dealt", "rows", "discards", "stock",
        "stock_pos", "plan", "turn", "pending", "pend_pos", "owed", "key",
        "totals", "last_points", "observer", "obs", "hands_done", "tally", "free", "last_turn", "showdown",
    )

    def __init__(self, game, rng: np.random.Generator, decks: list[tuple[int, ...]]):
        self._begin(game, rng, decks)
        # per-config constants, computed once by the Game (episode setup runs every episode)
        (self.n, self.variant, self.num_hands, self.fl_cards, self.fl_stay, self.layout,
         unseen_at, counts_at, watchers) = game.state_constants
        self.observer = OFCObserver(self.layout, self.num_hands, unseen_at, counts_at, watchers)
        n = self.n
        self.hand_index = 0
        self.start_player = 0
        self.fl_next = [0] * n
        self.totals = [0] * n
        self.last_points = [0] * n
        self.hands_done = 0
        self.showdown: Showdown | None = None  # the boards of the latest showdown (immutable)
        self.tally = EpisodeTally(n)
        self._start_hand()

    # ------------------------------------------------------------ dealing
    def _start_hand(self) -> None:
        h = self.hand_index
        # a list for a stacked deck (a tuple) too: the stock and the pending cards sliced from it
        # are lists, which determinize redeals in place
        deck: list[int] = list(self.decks[h]) if h < len(self.decks) else self.rng.permutation(52).tolist()
        self.stock, self.stock_pos = deck, 0
        self._dealt(deck)
        fl_next = self.fl_next
        self.in_fl = [k > 0 for k in fl_next]
        plan, fl_dealt, headers = self.game.hand_setup(self.start_player, tuple(fl_next))
        self.plan = plan
        self.last_turn = len(plan) - 1
        self.free = [ALL_ROWS_FREE] * len(headers)
        self.fl_dealt = list(fl_dealt)
        self.rows: list[list[list[int]]] = [[[], [], []] for _ in headers]
        self.discards: list[list[int]] = [[] for _ in headers]
        self.obs = self.observer.start_hand(headers, h)  # the observer's vectors (features.py reads them)
        self._begin_turn(0)

    def _begin_turn(self, t: int) -> None:
        seat, k, d = self.plan[t]
        self.turn = t
        pos = self.stock_pos
        end = pos + k
        cards = self.stock[pos:end]
        self.stock_pos = end
        self.pending, self.pend_pos, self.owed = cards, 0, d
        self.current_player = seat
        self.observer.deal(seat, cards, d)
        if k > d:
            self.key = (8 if d else 0) | self.free[seat]
        else:
            self.key = 8

    # ------------------------------------------------------------ protocol
    def legal_mask(self) -> np.ndarray:
        """bool[4], read-only (bit r of the cached key: row r may take the card; bit 3: discard)."""
        return MASKS[self.key]

    def _apply_action(self, action: int) -> None:
        if action not in ALLOWED[self.key]:
            raise self._illegal(action)
        p = self.current_player
        assert p is not None  # apply() plays no action once the episode is over
        pending, i = self.pending, self.pend_pos
        c = pending[i]
        i += 1
        self.pend_pos = i
        if action == DISCARD:
            self.discards[p].append(c)
            self.owed -= 1
            self.observer.discarded(p, c)
        else:
            row = self.rows[p][action]
            row.append(c)
            if len(row) == ROW_SIZES[action]:
                self.free[p] &= ROW_FULL_CLEAR[action]
            self.observer.placed(p, c, action, not self.in_fl[p])  # a Fantasyland board is face down
        left = len(pending) - i
        if left:
            owed = self.owed
            self.observer.next_card(p, pending[i], left, owed)
            if left > owed:  # a placement is still owed this turn
                self.key = (8 if owed else 0) | self.free[p]
            else:
                self.key = 8
        else:
            self.observer.turn_done(p)
            if self.turn < self.last_turn:
                self._begin_turn(self.turn + 1)
            else:
                self._showdown()

    def observation(self, player: int) -> np.ndarray:
        return self.obs[player].copy()

    # ------------------------------------------------------------ showdown
    def _showdown(self) -> None:
        results = [evaluate_board(*board) for board in self.rows]
        points = score_hand(results)
        self._earn_row(points)
        totals, in_fl, fl_next = self.totals, self.in_fl, self.fl_next
        for p, res in enumerate(results):
            totals[p] += points[p]
            if in_fl[p]:
                fl_next[p] = FL_STAY_CARDS if fl_stays(res, self.fl_stay) else 0
            else:
                fl_next[p] = fl_entry_cards(res, self.fl_cards)
        self.tally.showdown(results, points, in_fl, fl_next)
        self.last_points = points
        self.showdown = Showdown(self.hand_index, tuple(frozen_board(board) for board in self.rows))
        self.hands_done += 1
        if self.hand_index + 1 == self.num_hands:
            self._end()
            self.pending, self.pend_pos, self.owed, self.key = [], 0, 0, 0
            for q in range(self.n):  # the face-down Fantasyland boards are shown
                if in_fl[q]:
                    self.observer.reveal(q, self.rows[q])
            return
        self.hand_index += 1
        if not any(fl_next):
            self.start_player = (self.start_player + 1) % self.n
        self._start_hand()

    def stats(self) -> dict[str, list[float]]:
        """Per seat, averaged over the hands played (:func:`~parlor.envs.ofc.stats.episode_stats`)."""
        return episode_stats(self.tally, self.hands_done, self.totals, self.num_hands > 1)

    # ------------------------------------------------------------ views
    def ended_view(self, player: int) -> OFCView | None:
        """``player``'s view of the hand that has just ended, at its showdown (every board face
        up, as the showdown shows them; scores after it), once the next hand is dealt; None
        otherwise. A replay pictures it on the frame where the hand ends."""
        shown = self.showdown
        if shown is None or self.terminal or shown.hand_index != self.hand_index - 1:
            return None
        return dataclasses.replace(self.view(player), hand_index=shown.hand_index, current_player=None,
                                   start_player=(self.start_player - 1) % self.n,  # it moves on one seat a hand
                                   rows=shown.boards, hidden=(False,) * self.n, pending=(), discards_owed=0)

    def view(self, player: int) -> OFCView:
        n = self.n
        hidden = tuple(self.in_fl[q] and q != player and not self.terminal for q in range(n))
        rows = tuple(EMPTY_BOARD if hidden[q] else frozen_board(self.rows[q]) for q in range(n))
        mine = player == self.current_player
        return OFCView(
            player=player, num_players=n, variant=self.variant, hand_index=self.hand_index,
            num_hands=self.num_hands, start_player=self.start_player, current_player=self.current_player,
            rows=rows, hidden=hidden,
            pending=tuple(self.pending[self.pend_pos:]) if mine else (),
            discards_owed=self.owed if mine else 0,
            discards=tuple(self.discards[player]), fantasyland=tuple(self.in_fl),
            fl_dealt=tuple(self.fl_dealt), scores=tuple(self.totals), last_points=tuple(self.last_points),
            terminal=self.terminal, showdown=self.showdown,
        )

    # ------------------------------------------------------------ copies
    def _copy_rules(self) -> OFCState:
        new = OFCState.__new__(OFCState)
        for name in OFCState.__slots__:
            setattr(new, name, getattr(self, name))
        new.fl_next, new.in_fl, new.fl_dealt = list(self.fl_next), list(self.in_fl), list(self.fl_dealt)
        new.free = list(self.free)
        new.rows = [[list(r) for r in board] for board in self.rows]
        new.discards = [list(d) for d in self.discards]
        new.stock, new.pending = list(self.stock), list(self.pending)
        new.totals, new.last_points = list(self.totals), list(self.last_points)
        new.observer = self.observer.copy()
        new.obs = new.observer.obs
        new.tally = self.tally.copy()
        return new

    def determinize(self, player: int, rng: np.random.Generator) -> OFCState:
        """A copy where the cards ``player`` cannot see (others' pending cards and
        discards, hidden Fantasyland boards, the stock, later stacked decks) are
        redealt from ``rng``; the result depends only on his view and ``rng``."""
        return determinize(self, player, rng)

    def check_invariants(self) -> None:
        cards = [c for board in self.rows for row in board for c in row]
        cards += [c for d in self.discards for c in d]
        if not self.terminal:
            cards += self.pending[self.pend_pos:]
        cards += self.stock[self.stock_pos:]
        assert sorted(cards) == list(range(52)), "cards in rows, discards, pending and stock must be the deck"
        for board in self.rows:
            assert all(len(row) <= size for row, size in zip(board, ROW_SIZES)), "row over capacity"
        assert sum(self.totals) == 0, "OFC points are zero-sum per hand"
        assert self.terminal == (self.current_player is None)
        for p in range(self.n):
            assert len(self.discards[p]) <= (self.fl_dealt[p] - BOARD_SIZE if self.in_fl[p] else 4)
