"""Tonk game state: deal, turns (drop / draw / lay / hit / discard), hands, episode.

Hands, spreads and the stock are Python ``int`` bit masks and lists so a step
allocates almost nothing; the observation buffers (``envs.tonk.encode``
layout) are updated in place at each change so ``observe`` is a few copies.
Settlement amounts come from ``envs.tonk.settle``.
"""
from __future__ import annotations

import copy

import numpy as np

from envs.engine.game import IllegalActionError
from envs.engine.melds import SPREADS, mask_count, mask_of
from envs.tonk import settle
from envs.tonk.encode import (
    HAND_SCALE, PILE, S_DEALER, S_SIZE, S_STAKES, S_TO_ACT, SEAT_W, STOCK_SCALE, T_HAND, T_PHASE, T_STOCK,
    T_TURN, TOP, buffer_parts, stake_scale,
)
from envs.tonk.view import (
    DECLARE_49, DISCARD, DISCARD_BASE, DRAW_STOCK, DROP, END_LAYING, LAY, LAY_BASE, MAX_SLOTS,
    NUM_ACTIONS, OVER, SIDE, SIDE_JOIN, SIDE_PASS, START, TAKE_DISCARD, HandResult,
)
from envs.tonk.turns import TurnSteps
from envs.tonk.views import build_view, determinize_state

STAT_KEYS = ("drop", "caught", "tonk", "out", "won")


class TonkState(TurnSteps):
    """An episode of ``num_hands`` Tonk hands (the Game/State protocol of ``envs.engine.game``)."""

    def __init__(self, game, rng: np.random.Generator, decks=None):
        cfg = game.config
        self.game, self.cfg, self.n = game, cfg, cfg.num_players
        self.rng = rng
        self.decks = [tuple(d) for d in (decks or [])]
        self.hand_index = 0
        self.dealer = self.n - 1
        self.stakes = [0] * self.n
        self._rewards = np.zeros(self.n)
        self._stats = {k: [0] * self.n for k in STAT_KEYS}
        self.last_result: HandResult | None = None
        self.truncated = False
        self._scale = stake_scale(self.n, cfg.num_hands)
        self.buf = np.zeros(buffer_parts(self.n)[-1], dtype=np.float32)
        self._bind_buffers()
        self._start_hand()

    def _bind_buffers(self) -> None:
        """Named views into ``buf``, the flat absolute-seat observation buffer (``encode`` layout)."""
        n = self.n
        hands, cards, owners, seats, tail, end = buffer_parts(n)
        self.hand_vec = self.buf[hands:cards].reshape(n, 52)
        self.cards_vec = self.buf[cards:owners]
        self.owner_vec = self.buf[owners:seats].reshape(MAX_SLOTS, n)
        self.seat_vec = self.buf[seats:tail].reshape(n, SEAT_W)
        self.tail = self.buf[tail:end]

    # ------------------------------------------------------------ hands
    def _start_hand(self) -> None:
        cfg, n = self.cfg, self.n
        self.first = (self.dealer + 1) % n
        if self.hand_index < len(self.decks):
            deck = list(self.decks[self.hand_index])
        else:
            deck = self.rng.permutation(52).tolist()
        hs = cfg.hand_size
        self.hands = [0] * n
        self.buf[:] = 0.0
        for i in range(n):
            seat = (self.first + i) % n
            dealt = deck[i * hs:(i + 1) * hs]
            self.hands[seat] = mask_of(dealt)
            self.hand_vec[seat, dealt] = 1.0
        pos = n * hs
        self.pile: list[int] = []
        self.history: list[tuple[int, int]] = []
        if cfg.start_discard:
            self.pile.append(deck[pos])
            self.history.append((-1, deck[pos]))
            self.cards_vec[TOP + deck[pos]] = self.cards_vec[PILE + deck[pos]] = 1.0
            pos += 1
        self.stock = deck[pos:][::-1]  # pop() takes the next card of the deck
        # table slots: owner, kind, key (rank or suit), run span, cards, cards that may hit it
        self.slot_owner: list[int] = []
        self.slot_kind: list[str] = []
        self.slot_key: list[int] = []
        self.slot_lo: list[int] = []
        self.slot_hi: list[int] = []
        self.slot_mask: list[int] = []
        self.slot_accept: list[int] = []
        self.slot_live: list[bool] = []
        self.out_of_play = 0
        self.blocked = [0] * n
        self.taken: list[list[int]] = [[] for _ in range(n)]
        self.turn = 0
        self.first_turn_done = [False] * n
        self.joined: list[bool | None] = [None] * n
        self.shown = [-1] * n
        self.hand_net = [0] * n
        self.cards_after_draw = 0
        self.dealt_counts = [mask_count(h) for h in self.hands]
        self.seat_vec[:, S_SIZE] = hs / HAND_SCALE
        self.seat_vec[:, S_STAKES] = np.array(self.stakes, dtype=np.float32) / self._scale
        self.seat_vec[self.dealer, S_DEALER] = 1.0
        self.tail[T_STOCK] = len(self.stock) / STOCK_SCALE
        self.tail[T_HAND] = self.hand_index / cfg.num_hands
        self.current_player: int | None = None
        self._lay_ids = np.zeros(0, dtype=np.int64)
        self._hit_ids: list[int] = []
        prizes = [settle.natural_prize(c, cfg.natural, cfg.low_natural, cfg.texas) for c in self.dealt_counts]
        self.pending_natural = settle.naturals(n, prizes)
        if self.pending_natural is not None:
            # a dealt natural wins at once: its holder (the first in turn order) declares it
            holder = next(seat for seat in ((self.first + i) % n for i in range(n)) if prizes[seat] > 0)
            self._set_phase(START, holder)
        elif cfg.spades_side_pot:
            self._set_phase(SIDE, self.first)
        else:
            self._begin_turn(self.first)

    def _set_phase(self, phase: int, player: int | None) -> None:
        self.phase = phase
        if self.current_player is not None:
            self.seat_vec[self.current_player, S_TO_ACT] = 0.0
        self.current_player = player
        if player is not None:
            self.seat_vec[player, S_TO_ACT] = 1.0
        tail = self.tail
        tail[T_PHASE] = tail[T_PHASE + 1] = tail[T_PHASE + 2] = tail[T_PHASE + 3] = 0.0
        if phase < OVER:
            tail[T_PHASE + phase] = 1.0

    def _begin_turn(self, player: int) -> None:
        if self.turn >= self.cfg.max_turns:
            self._finish(settle.draw(self.n, "truncated"), truncated=True)
            return
        self.turn += 1
        self.tail[T_TURN] = self.turn / self.cfg.max_turns
        self._set_phase(START, player)

    def _finish(self, outcome: settle.Outcome, truncated: bool = False) -> None:
        """Pay a hand's settlement, record it, then deal the next hand or end the episode."""
        net, winners, reason = outcome
        self._pay(net)
        who = self.current_player
        if reason.startswith("drop"):
            self._stats["drop"][who] += 1
            if reason != "drop_won":
                self._stats["caught"][who] += 1
        if reason in ("tonk", "out"):
            self._stats[reason][winners[0]] += 1
        for w in winners:
            self._stats["won"][w] += 1
        counts = tuple(mask_count(h) for h in self.hands)
        self.last_result = HandResult(self.hand_index, reason, tuple(winners), counts, tuple(self.hand_net))
        self.hand_index += 1
        if self.hand_index < self.cfg.num_hands:
            self.dealer = (self.dealer + 1) % self.n
            self._start_hand()
        else:
            self.truncated = truncated
            self.tail[T_HAND] = 1.0
            self._set_phase(OVER, None)

    def _pay(self, net: list[int]) -> None:
        stake = self.cfg.stake
        for p, units in enumerate(net):
            if units:
                self.stakes[p] += units
                self.hand_net[p] += units
                self._rewards[p] += units * stake
                self.seat_vec[p, S_STAKES] = self.stakes[p] / self._scale

    # ------------------------------------------------------------ protocol
    def is_terminal(self) -> bool:
        return self.phase == OVER and not self.truncated

    def is_truncated(self) -> bool:
        return self.phase == OVER and self.truncated

    def take_rewards(self) -> np.ndarray:
        out = self._rewards
        self._rewards = np.zeros(self.n)
        return out

    def stats(self) -> dict[str, list[float]]:
        return {k: [float(v) for v in vals] for k, vals in self._stats.items()}

    def can_declare(self, p: int) -> bool:
        if self.pending_natural is not None:
            return True
        return (self.cfg.natural == "50_auto_49_turn" and not self.first_turn_done[p]
                and self.dealt_counts[p] == 49)

    def legal_mask(self) -> np.ndarray:
        phase, p = self.phase, self.current_player
        if phase == START:
            if self.pending_natural is not None:
                return _NATURAL_MASK.copy()
            return _START_MASKS[int(self.blocked[p] == 0), int(bool(self.pile)), int(self.can_declare(p))].copy()
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        if phase == LAY:
            mask[LAY_BASE + self._lay_ids] = True
            mask[self._hit_ids] = True
            mask[END_LAYING] = True
        elif phase == DISCARD:
            mask[DISCARD_BASE + np.flatnonzero(self.hand_vec[p])] = True
        elif phase == SIDE:
            mask[SIDE_JOIN] = mask[SIDE_PASS] = True
        return mask

    def _illegal(self, action: int):
        return IllegalActionError(action, np.flatnonzero(self.legal_mask()), self.game.action_name)

    def apply(self, action: int) -> None:
        a = int(action)
        phase, p = self.phase, self.current_player
        if phase == START:
            self._apply_start(p, a)
        elif phase == LAY:
            self._apply_lay(p, a)
        elif phase == DISCARD:
            if not DISCARD_BASE <= a < END_LAYING or not self.hands[p] >> (a - DISCARD_BASE) & 1:
                raise self._illegal(a)
            self._discard(p, a - DISCARD_BASE)
        elif phase == SIDE:
            if a not in (SIDE_JOIN, SIDE_PASS):
                raise self._illegal(a)
            self._side_choice(p, a == SIDE_JOIN)
        else:
            raise self._illegal(a)

    # ------------------------------------------------------------ views, copies, checks
    def view(self, player: int):
        return build_view(self, player)

    def clone(self) -> "TonkState":
        new = copy.copy(self)
        for name in ("decks", "stakes", "hands", "pile", "history", "stock", "slot_owner", "slot_kind",
                     "slot_key", "slot_lo", "slot_hi", "slot_mask", "slot_accept", "slot_live", "blocked",
                     "first_turn_done", "joined", "shown", "hand_net", "dealt_counts", "_hit_ids"):
            setattr(new, name, list(getattr(self, name)))
        new.taken = [list(t) for t in self.taken]
        new._stats = {k: list(v) for k, v in self._stats.items()}
        new._rewards = self._rewards.copy()
        new._lay_ids = self._lay_ids.copy()
        new.buf = self.buf.copy()
        new._bind_buffers()
        new.rng = copy.deepcopy(self.rng)
        return new

    def determinize(self, player: int, rng: np.random.Generator) -> "TonkState":
        return determinize_state(self, player, rng)

    def counts(self) -> list[int]:
        return [mask_count(h) for h in self.hands]

    def check_invariants(self) -> None:
        groups = list(self.hands) + [sum(1 << c for c in self.stock), sum(1 << c for c in self.pile),
                                     self.out_of_play]
        groups += [m for m, live in zip(self.slot_mask, self.slot_live) if live]
        total = sum(g.bit_count() for g in groups)
        union = 0
        for g in groups:
            union |= g
        assert total == 52 and union == (1 << 52) - 1, "cards not conserved: some card missing or duplicated"
        assert len(self.slot_owner) <= MAX_SLOTS
        assert sum(self.stakes) == 0 and sum(self.hand_net) == 0, f"stakes not zero-sum: {self.stakes}"
        assert all(b >= 0 for b in self.blocked)
        for sm, live in zip(self.slot_mask, self.slot_live):
            if live:
                assert sm in _SPREAD_MASKS, "a spread on the table is no valid set or run"
        if self.phase in (START, SIDE):
            assert self.stock, "a turn may never start with an empty stock"
        for p in range(self.n):
            obs = self.game.observe(self, p)
            ref = self.game.encode(self.view(p))
            assert np.array_equal(obs, ref), f"observation buffers of seat {p} drifted from the view"


_SPREAD_MASKS = {s.mask for s in SPREADS}


def _start_masks() -> np.ndarray:
    """Start-of-turn masks indexed by [drop allowed, pile not empty, may declare a 49]."""
    masks = np.zeros((2, 2, 2, NUM_ACTIONS), dtype=bool)
    for drop in (0, 1):
        for take in (0, 1):
            for declare in (0, 1):
                m = masks[drop, take, declare]
                m[DROP], m[DRAW_STOCK], m[TAKE_DISCARD], m[DECLARE_49] = drop, True, take, declare
    return masks


_START_MASKS = _start_masks()
_NATURAL_MASK = np.zeros(NUM_ACTIONS, dtype=bool)
_NATURAL_MASK[DECLARE_49] = True  # a dealt natural: its holder's only action
