"""Tonk turn steps (docs/rules.md §5.4, §5.5, §5.10): draw or take, lay, hit, discard, side pot.

The base of ``TonkState``: each step changes the hands, the table and the
observation buffers together, then hands over to the next step or settles.
"""
from __future__ import annotations

from abc import abstractmethod
from typing import TYPE_CHECKING

import numpy as np

from parlor.envs.engine.melds import RUN, SET, SPREADS, Spread, accepts, cards_of, extend_run, mask_count, spreads_in
from parlor.envs.engine.state import RulesState
from parlor.envs.tonk import settle
from parlor.envs.tonk.encode import (
    DECLARE_49,
    DISCARD_BASE,
    DRAW_STOCK,
    DROP,
    END_LAYING,
    HIT_BASE,
    LAY_BASE,
    MAX_SLOTS,
    TAKE_DISCARD,
)
from parlor.envs.tonk.view import DISCARD, LAY, SIDE

if TYPE_CHECKING:  # game.py imports state.py, which imports this module
    from parlor.envs.tonk.game import TonkConfig, TonkGame
    from parlor.envs.tonk.observer import TonkObserver

SPADES_HIGH_FIRST = [r * 4 + 3 for r in range(12, -1, -1)]
_NIBBLES = sum(1 << (4 * r) for r in range(13))  # bit 0 of each rank's 4 cards (card = 4 rank + suit)
NO_LAYS = np.zeros(0, dtype=np.int64)  # shared empty spread list (read-only)
NO_LAYS.flags.writeable = False


def _may_hold_spread(hand: int) -> bool:
    """False only if ``hand`` holds no 3-card set or run, hence no spread at all
    (every longer spread contains one; every 3-card spread is layable)."""
    if hand & (hand >> 4) & (hand >> 8):  # same suit, three consecutive ranks (ace high)
        return True
    if hand & (hand >> 4) & (hand >> 48) & 0xF:  # A-2-3 of a suit (ace low)
        return True
    b0, b1, b2, b3 = hand & _NIBBLES, (hand >> 1) & _NIBBLES, (hand >> 2) & _NIBBLES, (hand >> 3) & _NIBBLES
    return bool((b0 & b1 & (b2 | b3)) | (b2 & b3 & (b0 | b1)))  # three or four of a rank


class TurnSteps(RulesState):
    """The steps of a turn. ``TonkState`` sets the fields declared here (per hand in its
    ``_start_hand``) and supplies the abstract methods below: phases, turns and settling."""

    game: TonkGame
    cfg: TonkConfig
    n: int
    observer: TonkObserver  # told every change a seat can see
    first: int  # the seat that plays first this hand (and is asked first for the side pot)
    # cards: hands and the out-of-play cards as bit masks; stock and pile as lists (pop() deals)
    hands: list[int]
    stock: list[int]
    pile: list[int]
    out_of_play: int
    history: list[tuple[int, int]]  # (seat, card) of each discard; seat -1: the card turned up
    taken: list[list[int]]  # per seat, the cards it took from the pile
    # table slots: owner, kind, key (rank or suit), run span, cards, cards that may hit it
    slot_owner: list[int]
    slot_kind: list[str]
    slot_key: list[int]
    slot_lo: list[int]
    slot_hi: list[int]
    slot_mask: list[int]
    slot_accept: list[int]
    slot_live: list[bool]
    # per seat
    blocked: list[int]  # turns left before it may drop
    first_turn_done: list[bool]
    joined: list[bool | None]  # side pot: None not asked (yet)
    shown: list[int]  # the spade shown for the side pot, -1 none
    cards_after_draw: int  # the mover's hand size after the draw (tonk_needs_six)
    pending_natural: settle.Outcome | None  # a natural dealt, waiting for its holder to declare it
    _lay_ids: np.ndarray  # spread ids the mover may lay now
    _hit_ids: list[int]  # hit action ids open to the mover now

    @abstractmethod
    def _set_phase(self, phase: int, player: int | None) -> None:
        """Move to ``phase`` with ``player`` to act."""

    @abstractmethod
    def _begin_turn(self, player: int) -> None:
        """Start ``player``'s turn (or end the hand at the turn cap)."""

    @abstractmethod
    def _finish(self, outcome: settle.Outcome, truncated: bool = False) -> None:
        """Settle the hand with ``outcome``, then deal the next hand or end the episode."""

    @abstractmethod
    def _pay(self, net: list[int]) -> None:
        """Pay ``net`` stakes per seat."""

    @abstractmethod
    def can_declare(self, p: int) -> bool:
        """Whether ``p`` may declare a natural now."""

    def _apply_start(self, p: int, a: int) -> None:
        if self.pending_natural is not None:
            if a != DECLARE_49:
                raise self._illegal(a)
            outcome, self.pending_natural = self.pending_natural, None
            self._finish(outcome)
            return
        if a == DROP and self.blocked[p] == 0:
            counts = [mask_count(h) for h in self.hands]
            self._finish(settle.drop(counts, p, self.cfg.texas))
            return
        if a == DECLARE_49 and self.can_declare(p):
            prize = settle.natural_prize(49, self.cfg.natural, self.cfg.low_natural, self.cfg.texas, at_deal=False)
            self._finish(settle.paid_by_each(self.n, p, prize, "natural"))
            return
        if a == DRAW_STOCK:
            c = self.stock.pop()
            self.observer.drew(len(self.stock))
        elif a == TAKE_DISCARD and self.pile:
            c = self.pile.pop()
            self.taken[p].append(c)
            self.observer.took(p, c, self.pile[-1] if self.pile else None)
        else:
            raise self._illegal(a)
        self.first_turn_done[p] = True
        self._add_card(p, c)
        if self.blocked[p]:
            self.blocked[p] -= 1
            self._show_blocked(p)
        self.cards_after_draw = self.hands[p].bit_count()
        self._refresh_lay(p)

    def _refresh_lay(self, p: int) -> None:
        """Spreads and hits open to ``p`` now. The lay step is entered even with none open
        (only "end laying" then): skipping it would tell the table that ``p`` cannot lay."""
        hand = self.hands[p]
        # most hands hold no spread at all: a few int operations spare the numpy search
        self._lay_ids = spreads_in(hand, self.game.layable) if _may_hold_spread(hand) else NO_LAYS
        hits = []
        for slot, acc in enumerate(self.slot_accept):
            fit = acc & hand
            while fit:
                low = fit & -fit
                hits.append(HIT_BASE + (low.bit_length() - 1) * MAX_SLOTS + slot)
                fit ^= low
        self._hit_ids = hits
        self._set_phase(LAY, p)

    def _apply_lay(self, p: int, a: int) -> None:
        if a == END_LAYING:
            self._set_phase(DISCARD, p)
            return
        hand = self.hands[p]
        if LAY_BASE <= a < HIT_BASE:
            sp = SPREADS[a - LAY_BASE]
            if sp.mask & hand != sp.mask:
                raise self._illegal(a)
            self._lay(p, sp)
        elif HIT_BASE <= a < DISCARD_BASE:
            c, slot = divmod(a - HIT_BASE, MAX_SLOTS)
            if slot >= len(self.slot_accept) or not (self.slot_accept[slot] & hand) >> c & 1:
                raise self._illegal(a)
            self._hit(p, c, slot)
        else:
            raise self._illegal(a)
        if self.hands[p] == 0:
            full = self.cards_after_draw == self.cfg.hand_size + 1
            won = settle.tonk_out if full or not self.cfg.tonk_needs_six else settle.went_out
            self._finish(won(self.n, p))
        else:
            self._refresh_lay(p)

    def _lay(self, p: int, sp: Spread) -> None:
        slot = len(self.slot_owner)
        self.slot_owner.append(p)
        self.slot_kind.append(sp.kind)
        self.slot_key.append(sp.key)
        self.slot_lo.append(sp.lo)
        self.slot_hi.append(sp.hi)
        self.slot_mask.append(sp.mask)
        self.slot_live.append(True)
        self.slot_accept.append(accepts(sp.kind, sp.key, sp.lo, sp.hi, sp.mask, not self.cfg.hit_runs_only))
        for c in sp.cards:
            self._remove_card(p, c)
        self.observer.laid(p, slot, sp.cards)

    def _hit(self, p: int, c: int, slot: int) -> None:
        self._remove_card(p, c)
        mask = self.slot_mask[slot] | (1 << c)
        self.slot_mask[slot] = mask
        kind, key = self.slot_kind[slot], self.slot_key[slot]
        owner = self.slot_owner[slot]
        if self.cfg.hit_blocks_drop and owner != p:
            self.blocked[owner] += 1
            self._show_blocked(owner)
        if kind == SET and mask.bit_count() == 4:
            # a set hit up to four leaves the table, out of play for the rest of the hand
            self.slot_live[slot] = False
            self.slot_accept[slot] = 0
            self.out_of_play |= mask
            self.observer.set_out(slot, owner, cards_of(mask))
            return
        if kind == RUN:
            self.slot_lo[slot], self.slot_hi[slot] = extend_run(key, self.slot_lo[slot], self.slot_hi[slot], c)
        self.slot_accept[slot] = accepts(kind, key, self.slot_lo[slot], self.slot_hi[slot], mask,
                                         not self.cfg.hit_runs_only)
        self.observer.hit(slot, c)

    def _discard(self, p: int, c: int) -> None:
        self._remove_card(p, c)
        self.observer.discarded(p, c, self.pile[-1] if self.pile else None)
        self.pile.append(c)
        self.history.append((p, c))
        if self.hands[p] == 0:
            self._finish(settle.went_out(self.n, p))
        elif not self.stock:
            counts = [mask_count(h) for h in self.hands]
            self._finish(settle.lowest_wins(counts, "stock_out"))
        else:
            self._begin_turn((p + 1) % self.n)

    def _side_choice(self, p: int, join: bool) -> None:
        self.joined[p] = join
        if join:
            hand = self.hands[p]
            self.shown[p] = next((c for c in SPADES_HIGH_FIRST if hand >> c & 1), -1)
            self.observer.joined(p, self.shown[p])
        nxt = (p + 1) % self.n
        if nxt != self.first:
            self._set_phase(SIDE, nxt)
            return
        net, _, _ = settle.side_pot(self.joined, self.shown)
        self._pay(net)
        self._begin_turn(self.first)

    def _add_card(self, p: int, c: int) -> None:
        self.hands[p] |= 1 << c
        self.observer.card_in(p, c, self.hands[p].bit_count())

    def _remove_card(self, p: int, c: int) -> None:
        self.hands[p] &= ~(1 << c)
        self.observer.card_out(p, c, self.hands[p].bit_count())

    def _show_blocked(self, p: int) -> None:
        self.observer.blocked(p, self.blocked[p])
