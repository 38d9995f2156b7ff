"""Tonk game state: deal, turns (drop / draw / lay / hit / discard), hands, episode.

Hands, spreads and the stock are Python ``int`` bit masks and lists so a step
allocates almost nothing. The State keeps only the rules: each change a seat can see
is told to its ``TonkObserver`` (``envs/tonk/observer.py``), which keeps the buffer
that ``observe`` gathers from.
Settlement amounts come from ``envs.tonk.settle``.
"""
from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from parlor.envs.engine.melds import SPREADS, cards_of, mask_count
from parlor.envs.tonk import settle
from parlor.envs.tonk.determinize import determinize_state
from parlor.envs.tonk.encode import (
    DECLARE_49,
    DISCARD_BASE,
    DRAW_STOCK,
    DROP,
    END_LAYING,
    LAY_BASE,
    MAX_SLOTS,
    NUM_ACTIONS,
    SIDE_JOIN,
    SIDE_PASS,
    TAKE_DISCARD,
)
from parlor.envs.tonk.observer import TonkObserver
from parlor.envs.tonk.turns import NO_LAYS, TurnSteps
from parlor.envs.tonk.view import DISCARD, LAY, OVER, SIDE, START, HandResult, TonkView, build_view

if TYPE_CHECKING:  # game.py imports this module
    from parlor.envs.tonk.game import TonkGame

STAT_KEYS = ("drop", "caught", "tonk", "out", "won")


class TonkState(TurnSteps):
    """An episode of ``num_hands`` Tonk hands (the Game/State protocol of ``envs.engine.game``)."""

    def __init__(self, game: TonkGame, rng: np.random.Generator, decks: Sequence[Sequence[int]] | None = None):
        cfg = game.config
        self._begin(game, rng, decks)
        self.cfg, self.n = cfg, cfg.num_players
        self.hand_index = 0
        self.dealer = self.n - 1
        self.stakes = [0] * self.n
        self._stats = {k: [0] * self.n for k in STAT_KEYS}
        self.last_result: HandResult | None = None
        self.ended_hand: TonkState | None = None  # the hand that has just ended, as it ended (ended_view)
        self.observer = TonkObserver(self.n, game.stake_scale)
        self._start_hand(fresh=True)

    # ------------------------------------------------------------ hands
    def _start_hand(self, fresh: bool = False) -> None:
        """Deal a hand; ``fresh``: the buffer is still all zero (a new episode)."""
        cfg, n = self.cfg, self.n
        first = self.first = (self.dealer + 1) % n
        if self.hand_index < len(self.decks):
            deck = [int(c) for c in self.decks[self.hand_index]]  # plain ints for the bit masks
        else:
            deck = self.rng.permutation(52).tolist()
        self._dealt(deck)
        hs = cfg.hand_size
        hands = self.hands = [0] * n
        for i in range(n):
            m = 0
            for c in deck[i * hs:(i + 1) * hs]:
                m |= 1 << c
            hands[(first + i) % n] = m
        pos = n * hs
        self.pile = []
        self.history = []
        top = None
        if cfg.start_discard:
            top = deck[pos]
            self.pile.append(top)
            self.history.append((-1, top))
            pos += 1
        self.stock = deck[pos:][::-1]  # pop() takes the next card of the deck
        # table slots (declared in TurnSteps): one entry per spread laid
        self.slot_owner = []
        self.slot_kind = []
        self.slot_key = []
        self.slot_lo = []
        self.slot_hi = []
        self.slot_mask = []
        self.slot_accept = []
        self.slot_live = []
        self.out_of_play = 0
        self.blocked = [0] * n
        self.taken = [[] for _ in range(n)]
        self.turn = 0
        self.first_turn_done = [False] * n
        self.joined = [None] * n
        self.shown = [-1] * n
        self.hand_net = [0] * n
        self.cards_after_draw = 0
        self.dealt_counts = [mask_count(h) for h in hands]
        self.observer.new_hand(fresh, deck, first, hs, top, self.stakes, self.dealer, len(self.stock),
                               self.hand_index / cfg.num_hands)
        self.current_player = None  # with phase OVER: no flag set in the zeroed buffer
        self.phase = OVER
        self._lay_ids = NO_LAYS
        self._hit_ids = []
        prize_of = self.game.deal_prizes  # natural_prize per dealt count, tabulated by the game
        prizes = [prize_of[c] for c in self.dealt_counts]
        self.pending_natural = settle.naturals(n, prizes) if any(prizes) else None
        if self.pending_natural is not None:
            # a dealt natural wins at once: its holder (the first in turn order) declares it
            holder = next(seat for seat in ((self.first + i) % n for i in range(n)) if prizes[seat] > 0)
            self._set_phase(START, holder)
        elif cfg.spades_side_pot:
            self._set_phase(SIDE, self.first)
        else:
            self._begin_turn(self.first)

    def _set_phase(self, phase: int, player: int | None) -> None:
        """Move to ``phase`` with ``player`` to act (``_start_hand`` resets ``phase`` and
        ``current_player`` to match the observer's zeroed buffer)."""
        old = self.phase
        self.observer.phase(old if old < OVER else None, phase if phase < OVER else None,
                            self.current_player, player)
        self.phase = phase
        self.current_player = player

    def _begin_turn(self, player: int) -> None:
        if self.turn >= self.cfg.max_turns:
            self._finish(settle.draw(self.n, "truncated"), truncated=True)
            return
        self.turn += 1
        self.observer.turn(self.turn / self.cfg.max_turns)
        self._set_phase(START, player)

    def _finish(self, outcome: settle.Outcome, truncated: bool = False) -> None:
        """Pay a hand's settlement, record it, then deal the next hand or end the episode."""
        net, winners, reason = outcome
        self._pay(net)
        who = self.current_player
        if reason.startswith("drop"):
            assert who is not None, "a drop is a move of the seat to act"
            self._stats["drop"][who] += 1
            if reason != "drop_won":
                self._stats["caught"][who] += 1
        if reason in ("tonk", "out"):
            self._stats[reason][winners[0]] += 1
        for w in winners:
            self._stats["won"][w] += 1
        counts = tuple([mask_count(h) for h in self.hands])
        shown = tuple(tuple(cards_of(h)) for h in self.hands)  # the rules count every hand face up
        self.last_result = HandResult(self.hand_index, reason, tuple(winners), counts, tuple(self.hand_net), who,
                                      shown)
        if self.hand_index + 1 < self.cfg.num_hands:
            self.ended_hand = self._snapshot()
        self.hand_index += 1
        if self.hand_index < self.cfg.num_hands:
            self.dealer = (self.dealer + 1) % self.n
            self._start_hand()
        else:
            self.observer.episode_over()
            self._set_phase(OVER, None)
            self._end(truncated)

    def _pay(self, net: list[int]) -> None:
        stake = self.cfg.stake
        for p, units in enumerate(net):
            if units:
                self.stakes[p] += units
                self.hand_net[p] += units
                self._earn()[p] += units * stake
                self.observer.stakes(p, self.stakes[p])

    # ------------------------------------------------------------ protocol
    def stats(self) -> dict[str, list[float]]:
        return {k: [float(v) for v in vals] for k, vals in self._stats.items()}

    def can_declare(self, p: int) -> bool:
        if self.pending_natural is not None:
            return True
        return (self.cfg.natural == "50_auto_49_turn" and not self.first_turn_done[p]
                and self.dealt_counts[p] == 49)

    def legal_mask(self) -> np.ndarray:
        phase, p = self.phase, self.current_player
        if p is None:  # no one to act (phase OVER): nothing is legal
            return np.zeros(NUM_ACTIONS, dtype=bool)
        if phase == START:
            if self.pending_natural is not None:
                return _NATURAL_MASK.copy()
            return _START_MASKS[self.blocked[p] == 0][bool(self.pile)][self.can_declare(p)].copy()
        if phase == LAY and not self._hit_ids and not len(self._lay_ids):
            return _END_ONLY_MASK.copy()  # the common case: nothing to lay or hit
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        if phase == LAY:
            mask[LAY_BASE + self._lay_ids] = True
            mask[self._hit_ids] = True
            mask[END_LAYING] = True
        elif phase == DISCARD:
            # any card held may be discarded: the observer's one-hot row of the hand is that set
            # (a slice copy is several times cheaper than building it from the bit mask)
            mask[DISCARD_BASE:END_LAYING] = self.observer.hand_vec[p]
        elif phase == SIDE:
            mask[SIDE_JOIN] = mask[SIDE_PASS] = True
        return mask

    def _apply_action(self, a: int) -> None:
        phase, p = self.phase, self.current_player
        assert p is not None  # apply() refuses every action while no one is to act
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
    def view(self, player: int) -> TonkView:
        return build_view(self, player)

    def _snapshot(self) -> TonkState:
        """The state as a finished hand ended, for :meth:`ended_view` (only where another hand
        follows): _start_hand binds new per-hand lists, so a shallow copy keeps this hand's;
        the few lists changed in place later are copied."""
        snap = copy.copy(self)
        snap.ended_hand = None  # no chain of every hand
        snap.stakes, snap.blocked = list(self.stakes), list(self.blocked)
        snap.taken = [list(t) for t in self.taken]
        snap.current_player, snap.phase = None, OVER
        return snap

    def ended_view(self, player: int) -> TonkView | None:
        """``player``'s view of the hand that has just ended, as it ended (every hand shown, as
        the rules count them), once the next hand is dealt; None otherwise. A replay pictures
        it on the frame where the hand ends."""
        snap = self.ended_hand
        if snap is None or self.current_player is None or snap.hand_index != self.hand_index - 1:
            return None
        return build_view(snap, player)

    def _copy_rules(self) -> TonkState:
        new = copy.copy(self)
        for name in ("decks", "stakes", "hands", "pile", "history", "stock", "slot_owner", "slot_kind",
                     "slot_key", "slot_lo", "slot_hi", "slot_mask", "slot_accept", "slot_live", "blocked",
                     "first_turn_done", "joined", "shown", "hand_net", "dealt_counts", "_hit_ids"):
            setattr(new, name, list(getattr(self, name)))
        new.taken = [list(t) for t in self.taken]
        new._stats = {k: list(v) for k, v in self._stats.items()}
        new._lay_ids = self._lay_ids.copy()
        new.observer = self.observer.copy()
        return new

    def determinize(self, player: int, rng: np.random.Generator) -> TonkState:
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


def _start_masks() -> list[list[list[np.ndarray]]]:
    """Start-of-turn masks indexed by [drop allowed][pile not empty][may declare a 49]
    (nested lists: indexing them with bools is cheaper than a numpy multi-index)."""
    masks = np.zeros((2, 2, 2, NUM_ACTIONS), dtype=bool)
    for drop in (0, 1):
        for take in (0, 1):
            for declare in (0, 1):
                m = masks[drop, take, declare]
                m[DROP], m[DRAW_STOCK], m[TAKE_DISCARD], m[DECLARE_49] = drop, True, take, declare
    return [[[masks[d, t, k] for k in (0, 1)] for t in (0, 1)] for d in (0, 1)]


_START_MASKS = _start_masks()
_NATURAL_MASK = np.zeros(NUM_ACTIONS, dtype=bool)
_NATURAL_MASK[DECLARE_49] = True  # a dealt natural: its holder's only action
_END_ONLY_MASK = np.zeros(NUM_ACTIONS, dtype=bool)
_END_ONLY_MASK[END_LAYING] = True  # lay step with no spread or hit open
