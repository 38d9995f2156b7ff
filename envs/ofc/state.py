"""The OFC State: dealing, placement, showdown and Fantasyland across hands.

Turn structure of a hand (issue 3): Fantasyland players (seat order from the
start player) get all their cards at once and place them before anyone else
acts; then the regular players play rounds from the start player, receiving
their 5, 3 or 1 cards from the top of the deck as their turn begins. Each
action sends the next pending card to a row or the discard.

Each seat's observation vector is updated incrementally on every event (a card
seen, placed or discarded), so ``observation`` is a copy, not a rebuild.
"""
from __future__ import annotations

import copy

import numpy as np

from envs.engine.game import IllegalActionError
from envs.ofc import encode as enc
from envs.ofc.scoring import BOARD_SIZE, FL_STAY_CARDS, ROW_SIZES, evaluate_board, fl_entry_cards, fl_stays, score_hand
from envs.ofc.view import OFCView

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
NEXT_CARD, PENDING, DISCARDS = enc.NEXT_CARD, enc.PENDING, enc.DISCARDS
RANK_LEFT, SUIT_LEFT = enc.RANK_LEFT_L, enc.SUIT_LEFT_L
PENDING_LEFT, OWED_LEFT = enc.PENDING_LEFT_L, enc.OWED_LEFT_L


class OFCState:
    """One OFC episode (``num_hands`` hands); see the module docstring for the turn order."""

    __slots__ = (
        "game", "n", "variant", "num_hands", "fl_cards", "fl_stay", "layout", "rng", "decks",
        "hand_index", "start_player", "fl_next", "in_fl", "fl_dealt", "rows", "discards", "stock",
        "stock_pos", "plan", "turn", "pending", "pend_pos", "owed", "current_player", "key", "rewards",
        "totals", "last_points", "terminal", "obs", "mv", "rank_left", "suit_left", "watchers", "unseen_at",
        "counts_at", "hands_done", "stat_foul", "stat_fl", "stat_royalty",
    )

    def __init__(self, game, rng: np.random.Generator, decks: list[tuple[int, ...]]):
        cfg = game.config
        self.game = game
        self.n = n = cfg.num_players
        self.variant, self.num_hands = cfg.variant, cfg.num_hands
        self.fl_cards, self.fl_stay = cfg.fl_cards, cfg.fl_stay
        self.layout = lay = game.layout
        self.unseen_at = (lay.unseen_rank, lay.unseen_suit)
        self.counts_at = (lay.pending_left, lay.discards_owed)
        self.rng = rng
        self.decks = list(decks)
        self.hand_index = 0
        self.start_player = 0
        self.fl_next = [0] * n
        self.rewards = game.no_rewards
        self.totals = [0] * n
        self.last_points = [0] * n
        self.terminal = False
        self.watchers = game.watchers
        self.hands_done = 0
        self.stat_foul, self.stat_fl, self.stat_royalty = [0] * n, [0] * n, [0] * n
        self._start_hand()

    # ------------------------------------------------------------ dealing
    def _start_hand(self) -> None:
        n, h = self.n, self.hand_index
        deck = self.decks[h] if h < len(self.decks) else self.rng.permutation(52).tolist()
        self.stock, self.stock_pos = deck, 0
        self.in_fl = [k > 0 for k in self.fl_next]
        self.plan, self.fl_dealt, headers = self.game.hand_setup(self.start_player, tuple(self.fl_next))
        self.fl_dealt = list(self.fl_dealt)
        self.rows = [[[], [], []] for _ in range(n)]
        self.discards = [[] for _ in range(n)]
        self.rank_left = [[4] * 13 for _ in range(n)]
        self.suit_left = [[13] * 4 for _ in range(n)]
        lay = self.layout
        self.obs = [header.copy() for header in headers]
        self.mv = [memoryview(o) for o in self.obs]
        if h:
            progress = float(np.float32(h) / np.float32(self.num_hands))
            for o in self.mv:
                o[lay.hand_progress] = progress
        if h == self.num_hands - 1:
            for o in self.mv:
                o[lay.last_hand] = 1.0
        self._begin_turn(0)

    def _begin_turn(self, t: int) -> None:
        seat, k, d = self.plan[t]
        self.turn = t
        pos = self.stock_pos
        cards = self.stock[pos:pos + k]
        self.stock_pos = pos + k
        self.pending, self.pend_pos, self.owed = cards, 0, d
        self.current_player = seat
        o = self.mv[seat]
        ur, us = self.unseen_at
        rank_left, suit_left = self.rank_left[seat], self.suit_left[seat]
        for c in cards:
            o[PENDING + c] = 1.0
            r, s = c >> 2, c & 3
            rank_left[r] -= 1
            o[ur + r] = RANK_LEFT[rank_left[r]]
            suit_left[s] -= 1
            o[us + s] = SUIT_LEFT[suit_left[s]]
        o[PENDING + cards[0]] = 0.0
        o[NEXT_CARD + cards[0]] = 1.0
        pl, do = self.counts_at
        o[pl] = PENDING_LEFT[k]
        o[do] = OWED_LEFT[d]
        rows = self.rows[seat]
        if k > d:
            self.key = (8 if d else 0) | (len(rows[0]) < 3) | (len(rows[1]) < 5) << 1 | (len(rows[2]) < 5) << 2
        else:
            self.key = 8

    def _see(self, p: int, c: int) -> None:
        o = self.mv[p]
        r, s = c >> 2, c & 3
        left = self.rank_left[p]
        left[r] -= 1
        o[self.unseen_at[0] + r] = RANK_LEFT[left[r]]
        left = self.suit_left[p]
        left[s] -= 1
        o[self.unseen_at[1] + s] = SUIT_LEFT[left[s]]

    # ------------------------------------------------------------ protocol
    def legal_mask(self) -> np.ndarray:
        """bool[4], read-only (bit r of the cached key: row r may take the card; bit 3: discard)."""
        return MASKS[self.key]

    def apply(self, action: int) -> None:
        if not (type(action) is int and 0 <= action < 4 and self.key >> action & 1):
            self._reject(action)
            action = int(action)
        p = self.current_player
        o = self.mv[p]
        pending, i = self.pending, self.pend_pos
        c = pending[i]
        i += 1
        self.pend_pos = i
        o[NEXT_CARD + c] = 0.0
        if action == DISCARD:
            self.discards[p].append(c)
            self.owed -= 1
            o[DISCARDS + c] = 1.0
        else:
            self.rows[p][action].append(c)
            cell = action * 52 + c
            o[cell] = 1.0
            if not self.in_fl[p]:
                r, s = c >> 2, c & 3
                ur, us = self.unseen_at
                ur += r
                us += s
                for q, base in self.watchers[p]:
                    oq = self.mv[q]
                    oq[base + cell] = 1.0
                    left = self.rank_left[q]
                    left[r] -= 1
                    oq[ur] = RANK_LEFT[left[r]]
                    left = self.suit_left[q]
                    left[s] -= 1
                    oq[us] = SUIT_LEFT[left[s]]
        left = len(pending) - i
        pl, do = self.counts_at
        if left:
            nc = pending[i]
            o[NEXT_CARD + nc] = 1.0
            o[PENDING + nc] = 0.0
            owed = self.owed
            o[pl] = PENDING_LEFT[left]
            o[do] = OWED_LEFT[owed]
            if left > owed:  # a placement is still owed this turn
                rows = self.rows[p]
                self.key = (8 if owed else 0) | (len(rows[0]) < 3) | (len(rows[1]) < 5) << 1 | (len(rows[2]) < 5) << 2
            else:
                self.key = 8
        else:
            o[pl] = 0.0
            o[do] = 0.0
            if self.turn + 1 < len(self.plan):
                self._begin_turn(self.turn + 1)
            else:
                self._showdown()

    def _reject(self, action) -> None:
        """Raise for an illegal action; accept a legal numpy/other integer id."""
        legal = np.flatnonzero(MASKS[self.key])
        try:
            a = int(action)
        except (TypeError, ValueError):
            raise IllegalActionError(-1, legal, self.game.action_name) from None
        if a != action or self.current_player is None or a not in legal:
            raise IllegalActionError(a, legal, self.game.action_name)

    def is_terminal(self) -> bool:
        return self.terminal

    def is_truncated(self) -> bool:
        return False

    def take_rewards(self) -> np.ndarray:
        out = self.rewards
        if out is self.game.no_rewards:  # nothing earned since the last call (read-only zeros)
            return out
        self.rewards = self.game.no_rewards
        return out

    def observation(self, player: int) -> np.ndarray:
        return self.obs[player].copy()

    # ------------------------------------------------------------ showdown
    def _showdown(self) -> None:
        n = self.n
        results = [evaluate_board(*self.rows[p]) for p in range(n)]
        points = score_hand(results)
        self.rewards = self.rewards + np.asarray(points, dtype=np.float64)
        for p, res in enumerate(results):
            self.totals[p] += points[p]
            self.stat_foul[p] += res.fouled
            self.stat_royalty[p] += res.royalty
            if self.in_fl[p]:
                self.fl_next[p] = FL_STAY_CARDS if fl_stays(res, self.fl_stay) else 0
            else:
                self.fl_next[p] = fl_entry_cards(res, self.fl_cards)
                self.stat_fl[p] += self.fl_next[p] > 0
        self.last_points = points
        self.hands_done += 1
        if self.hand_index + 1 == self.num_hands:
            self.terminal = True
            self.current_player = None
            self.pending, self.pend_pos, self.owed, self.key = [], 0, 0, 0
            self._reveal_fantasyland_boards()
            return
        self.hand_index += 1
        if not any(self.fl_next):
            self.start_player = (self.start_player + 1) % n
        self._start_hand()

    def _reveal_fantasyland_boards(self) -> None:
        """At the final showdown the face-down Fantasyland boards enter every observation."""
        for q in range(self.n):
            if not self.in_fl[q]:
                continue
            for r, row in enumerate(self.rows[q]):
                for c in row:
                    for w, base in self.watchers[q]:
                        self.mv[w][base + r * 52 + c] = 1.0
                        self._see(w, c)

    def stats(self) -> dict[str, list[float]]:
        """Per seat, averaged over the hands played: foul rate, Fantasyland entries, royalties."""
        h = max(1, self.hands_done)
        return {
            "foul": [x / h for x in self.stat_foul],
            "fantasyland": [x / h for x in self.stat_fl],
            "royalties": [x / h for x in self.stat_royalty],
        }

    # ------------------------------------------------------------ views
    def view(self, player: int) -> OFCView:
        n = self.n
        hidden = tuple(self.in_fl[q] and q != player and not self.terminal for q in range(n))
        rows = tuple(((), (), ()) if hidden[q] else tuple(tuple(r) for r in self.rows[q]) for q in range(n))
        mine = player == self.current_player
        return OFCView(
            player=player, num_players=n, variant=self.variant, hand_index=self.hand_index,
            num_hands=self.num_hands, start_player=self.start_player, current_player=self.current_player,
            rows=rows, hidden=hidden,
            pending=tuple(self.pending[self.pend_pos:]) if mine else (),
            discards_owed=self.owed if mine else 0,
            discards=tuple(self.discards[player]), fantasyland=tuple(self.in_fl),
            fl_dealt=tuple(self.fl_dealt), scores=tuple(self.totals), last_points=tuple(self.last_points),
            terminal=self.terminal,
        )

    # ------------------------------------------------------------ copies
    def clone(self) -> "OFCState":
        new = OFCState.__new__(OFCState)
        for name in OFCState.__slots__:
            setattr(new, name, getattr(self, name))
        new.rng = copy.deepcopy(self.rng)
        new.decks = list(self.decks)
        new.fl_next, new.in_fl, new.fl_dealt = list(self.fl_next), list(self.in_fl), list(self.fl_dealt)
        new.rows = [[list(r) for r in board] for board in self.rows]
        new.discards = [list(d) for d in self.discards]
        new.stock, new.pending = list(self.stock), list(self.pending)
        new.rewards = self.rewards if self.rewards is self.game.no_rewards else self.rewards.copy()
        new.totals, new.last_points = list(self.totals), list(self.last_points)
        new.obs = [o.copy() for o in self.obs]
        new.mv = [memoryview(o) for o in new.obs]
        new.rank_left = [list(x) for x in self.rank_left]
        new.suit_left = [list(x) for x in self.suit_left]
        new.stat_foul, new.stat_fl, new.stat_royalty = list(self.stat_foul), list(self.stat_fl), list(self.stat_royalty)
        return new

    def _hidden_slots(self, player: int) -> list[tuple[list[int], int]]:
        """(list, index) of every card ``player`` cannot see, in a canonical order."""
        slots = []
        for q in range(self.n):
            if q == player:
                continue
            if q == self.current_player:
                slots += [(self.pending, i) for i in range(self.pend_pos, len(self.pending))]
            slots += [(self.discards[q], i) for i in range(len(self.discards[q]))]
            if self.in_fl[q] and not self.terminal:
                slots += [(row, i) for row in self.rows[q] for i in range(len(row))]
        slots += [(self.stock, i) for i in range(self.stock_pos, len(self.stock))]
        return slots

    def determinize(self, player: int, rng: np.random.Generator) -> "OFCState":
        """A copy where the cards ``player`` cannot see (others' pending cards and
        discards, hidden Fantasyland boards, the stock, later stacked decks) are
        redealt from ``rng``; the result depends only on his view and ``rng``."""
        new = self.clone()
        slots = new._hidden_slots(player)
        pool = sorted(lst[i] for lst, i in slots)
        order = rng.permutation(len(pool))
        for (lst, i), j in zip(slots, order):
            lst[i] = pool[j]
        new.stock = new.stock[new.stock_pos:]
        new.stock_pos = 0
        new.decks = []
        new.rng = np.random.default_rng(int(rng.integers(2**63)))
        new._rebuild_observations()
        return new

    def _rebuild_observations(self) -> None:
        for p in range(self.n):
            self.obs[p][:] = self.game.encode(self.view(p))
            seen = self.view(p).seen_cards()
            self.rank_left[p] = [4 - sum(1 for c in seen if c >> 2 == r) for r in range(13)]
            self.suit_left[p] = [13 - sum(1 for c in seen if c & 3 == s) for s in range(4)]

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
