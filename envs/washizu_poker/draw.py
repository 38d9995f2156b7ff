"""The draw of Washizu draw poker (docs/rules.md §3.5): discard, draw, reshuffle.

A mixin of ``WashizuState`` over ``WashizuFields``: each step changes the hands, stock and
pile, tells the observer what was drawn, then hands over to the betting round (or the
showdown).
"""
from __future__ import annotations

from parlor.envs.washizu_poker import betting
from parlor.envs.washizu_poker.fields import WashizuFields
from parlor.envs.washizu_poker.match import BET

NUM_DISCARDS = 32  # action ids 0..31: bit i set = discard hand position i
DISCARDED = [tuple(i for i in range(5) if a >> i & 1) for a in range(NUM_DISCARDS)]  # positions per action
KEPT = [tuple(i for i in range(5) if not a >> i & 1) for a in range(NUM_DISCARDS)]


class DrawSteps(WashizuFields):
    """The draw, seat by seat."""

    def _draw(self, p: int, action: int) -> None:
        """Seat ``p`` discards the hand positions of ``action`` (none: stands pat) and draws."""
        out = self._exchange(p, action) if action else []
        self.discarded[p] = out
        self.draw_turn[p] = self.turn
        self.observer.drew(self, p, out)
        self.turn += 1
        if self.turn < len(self.order):
            self._pass_turn(self.order[self.turn])
        elif (cap := betting.betting_start(self.stacks, self.in_hand)) is not None:  # (nobody has bet yet)
            self.phase = BET
            self.to_act = self.n_in
            self.cap_now = cap
            self._pass_turn(self.order[0])
            self.observer.betting_began(self)
        else:
            self._showdown()

    def _exchange(self, p: int, action: int) -> list[int]:
        """Seat ``p`` discards the positions of ``action`` (not 0) and draws as many: the
        discards, with hands, stock, pile and left view updated (``_draw`` tells the observer)."""
        hand = self.hands[p]
        out = [hand[i] for i in DISCARDED[action]]
        k = len(out)
        stock = self.stock
        if len(stock) >= k:  # the usual case: take the top k cards (top first)
            new = stock[:-k - 1:-1]
            del stock[-k:]
        else:
            new = []
            for j in range(k):
                if not self.stock:
                    self._reshuffle(j)
                new.append(self.stock.pop())
        # Decision: the drawing player's own discards are set aside until his draw is
        # complete (they are not shuffled into a new stock he draws from).
        self.pile.extend(out)
        self.hands[p] = sorted([hand[i] for i in KEPT[action]] + new, key=self.game.hand_key)
        self.drawn_cards[p] = new
        is_w = self.is_w
        gone = [c for c in out if is_w[c]]  # Washizu cards now in the left view
        came = [c for c in new if is_w[c]]  # Washizu cards back in view (drawn after a reshuffle)
        if gone or came:
            self.left_view.update(gone)
            self.left_view.difference_update(came)
            self.observer.washizu_moved(p, gone, came)
        return out

    def _reshuffle(self, taken: int) -> None:
        """The stock ran out: the discard pile becomes a new shuffled stock."""
        self.stock = self.pile
        self.rng.shuffle(self.stock)
        self.pile = []
        self.reshuffle_turn = self.turn
        self.reshuffle_taken = taken

