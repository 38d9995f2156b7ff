"""Buffalo Bill game state: rounds, exchanges, chips, scoring, rewards (docs/rules.md §2).

A round: the whole deck is shuffled (or taken from the stacked deck of that
round), 5 cards go face up to each player starting with the first to act (the
seat after the dealer), the rest is the stock. Turns go clockwise among the
players who have not scored this round; each turn is one exchange (first of the
round free, later ones 1 chip) or scoring one empty line. Round ``r`` has
dealer ``(n - 1 + r) % n``, so seat 0 acts first in round 0.
"""
from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from parlor.envs.buffalo_bill.encode import (
    EXCHANGE_POSITIONS,
    FIRST_SCORE,
    HAND_SIZE,
    NUM_EXCHANGES,
)
from parlor.envs.buffalo_bill.observer import BuffaloBillObserver
from parlor.envs.buffalo_bill.view import BuffaloBillView
from parlor.envs.engine.chips import Ledger
from parlor.envs.engine.state import RulesState

if TYPE_CHECKING:
    from parlor.envs.buffalo_bill.game import BuffaloBillGame

EMPTY = -1  # an unwritten sheet line


class BuffaloBillState(RulesState):
    def __init__(self, game: BuffaloBillGame, rng: np.random.Generator, decks: Sequence[Sequence[int]] | None):
        n, lines = game.num_players, len(game.lines)
        self._begin(game, rng, decks)
        self.round = 0
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self._line_values = [[0] * lines for _ in range(n)]  # plain ints: cheaper than an array row per step
        self.written = np.full((n, lines), EMPTY, dtype=np.int16)
        self.totals = [0] * n
        self.chips = [game.config.chips] * n  # whole chips: plain ints on the hot path, audited by a Ledger
        self.bank = 0  # chips paid for exchanges; they never come back
        self.exchanges = [0] * n
        self.scored = [False] * n
        self.stock: list[int] = []  # next card to draw is stock[-1]
        self.discards: list[int] = []
        self.reshuffles = 0
        self.current_player: int | None = None
        self._masks = np.ones((n, game.num_actions), dtype=bool)  # legal actions per seat, kept fresh
        self.observer = BuffaloBillObserver(game.layout, n, game.config.chips)  # the observation parts
        self._deal()

    # ------------------------------------------------------------ seats
    @property
    def dealer(self) -> int:
        n = self.game.num_players
        return (n - 1 + self.round) % n

    @property
    def first_player(self) -> int:
        return self.round % self.game.num_players

    @property
    def line_values(self) -> np.ndarray:
        """int16[n, lines]: what each seat's hand would score on each line now (a copy)."""
        return np.array(self._line_values, dtype=np.int16)

    @property
    def stock_size(self) -> int:
        return len(self.stock)

    # ------------------------------------------------------------ dealing
    def _deal(self) -> None:
        game = self.game
        n = game.num_players
        if self.round < len(self.decks):
            deck = list(self.decks[self.round])
        else:
            # shuffling an int array draws exactly what shuffling the list did, much faster
            order = game.deck_array.copy()
            self.rng.shuffle(order)
            deck = order.tolist()
        self._dealt(deck)
        first = self.first_player
        values = game.evaluator.values
        for i in range(n):  # dealt clockwise from the first player
            self.hands[(first + i) % n] = deck[HAND_SIZE * i: HAND_SIZE * (i + 1)]
        lines = [values(h) for h in self.hands]
        self._line_values = lines
        self.stock = deck[HAND_SIZE * n:][::-1]
        self.discards = []
        self.exchanges = [0] * n
        self.scored = [False] * n
        self.current_player = first
        self._masks[:, :NUM_EXCHANGES] = True  # a new round's first exchange is free
        self.observer.deal(self.round, len(self.stock), first, self.hands, lines)

    def _refill(self) -> None:
        # An empty stock is refilled when a card must be drawn; Decision (docs/rules.md §2.4):
        # the discards of this exchange are already in the pile.
        pile = sorted(self.discards)
        self.rng.shuffle(pile)
        self.stock, self.discards = pile, []
        self.reshuffles += 1

    # ------------------------------------------------------------ protocol
    def legal_mask(self) -> np.ndarray:
        p = self.current_player
        if p is None:
            return np.zeros(self.game.num_actions, dtype=bool)
        return self._masks[p].copy()

    def _rule_mask(self, p: int) -> np.ndarray:
        """The legal actions of seat ``p`` straight from the rules (audits the cached masks)."""
        mask = np.zeros(self.game.num_actions, dtype=bool)
        mask[:NUM_EXCHANGES] = self.exchanges[p] == 0 or self.chips[p] >= 1  # first exchange free, then 1 chip
        mask[FIRST_SCORE:] = self.written[p] == EMPTY
        return mask

    def _apply_action(self, action: int) -> None:
        p = self.current_player
        if p is None or not 0 <= action < self.game.num_actions:
            raise self._illegal(action)
        if action < NUM_EXCHANGES:
            self._exchange(p, action)
        else:
            self._score(p, action - FIRST_SCORE)

    def _exchange(self, p: int, action: int) -> None:
        if self.exchanges[p] > 0:
            if self.chips[p] < 1:
                raise self._illegal(action)
            self.chips[p] -= 1
            self.bank += 1
        if self.chips[p] < 1:
            self._masks[p, :NUM_EXCHANGES] = False  # the next exchange would cost a chip
        hand = self.hands[p]
        positions = EXCHANGE_POSITIONS[action]
        old = [hand[i] for i in positions]
        self.discards += old
        reshuffles = self.reshuffles
        stock = self.stock
        for i in positions:  # draw into the freed positions, in order
            if not stock:
                self._refill()
                stock = self.stock
            hand[i] = stock.pop()
        self.exchanges[p] += 1
        values = self.game.evaluator.values(hand)
        self._line_values[p] = values
        self.observer.exchanged(p, positions, old, hand, values, reshuffles != self.reshuffles, len(self.stock),
                                self.chips[p], self.exchanges[p])
        self._pass_turn(p)

    def _score(self, p: int, line: int) -> None:
        if self.written[p, line] != EMPTY:
            raise self._illegal(FIRST_SCORE + line)
        value = self._line_values[p][line]
        self.written[p, line] = value
        self._masks[p, FIRST_SCORE + line] = False
        self.totals[p] += value
        if self.game.reward == "score":
            self._earn()[p] += value
        hand = self.hands[p]
        self.discards.extend(hand)
        self.hands[p] = []
        self._line_values[p] = [0] * len(self.game.lines)
        self.scored[p] = True
        self.observer.scored(p, line, value, hand, self.totals[p])
        self._pass_turn(p)

    def _pass_turn(self, p: int) -> None:
        """Clockwise to the next player who has not scored; when all have, the next round."""
        scored, n = self.scored, self.game.num_players
        for step in range(1, n + 1):  # inline table.next_active: this runs on every step
            seat = (p + step) % n
            if not scored[seat]:
                self.current_player = seat
                self.observer.to_act(p, seat)
                return
        self.observer.to_act(p, None)
        self.round += 1
        if self.round < self.game.num_rounds:
            self._deal()
        else:
            self._end()
            self.observer.game_over(self.round)
            self._earn_row(self.game.final_rewards(self.totals))

    def view(self, player: int) -> BuffaloBillView:
        game = self.game
        return BuffaloBillView(
            player=player,
            num_players=game.num_players,
            lines=game.lines,
            round=self.round,
            num_rounds=game.num_rounds,
            dealer=self.dealer,
            first_player=self.first_player,
            current_player=self.current_player,
            hands=tuple(tuple(h) for h in self.hands),
            line_values=tuple(tuple(row) for row in self._line_values),
            written=tuple(tuple(None if v == EMPTY else int(v) for v in row) for row in self.written),
            totals=tuple(self.totals),
            chips=tuple(self.chips),
            exchanges=tuple(self.exchanges),
            scored=tuple(self.scored),
            discards=tuple(sorted(self.discards)),
            stock_size=len(self.stock),
            deck_size=len(game.deck),
        )

    # never truncated: every turn either spends the free exchange, a chip, or a line
    def _copy_rules(self) -> BuffaloBillState:
        new = copy.copy(self)
        new.hands = [list(h) for h in self.hands]
        new._line_values = [list(row) for row in self._line_values]
        new.written = self.written.copy()
        new.totals = list(self.totals)
        new.chips = list(self.chips)
        new.exchanges = list(self.exchanges)
        new.scored = list(self.scored)
        new.stock = list(self.stock)
        new.discards = list(self.discards)
        new.observer = self.observer.copy()
        new._masks = self._masks.copy()
        return new

    def determinize(self, player: int, rng: np.random.Generator) -> BuffaloBillState:
        """Hands, sheets, chips and discards are public; only the stock order, the
        future deals (stacked or random) and the random generator are resampled."""
        new = self.clone()
        stock = sorted(self.stock)
        rng.shuffle(stock)
        new.stock = stock
        new._resample_bookkeeping(rng, self.decks[: self.round + 1])  # later stacked decks are unknown to him
        return new

    def check_invariants(self) -> None:
        game = self.game
        ledger = Ledger(list(self.chips), pot=self.bank)
        ledger.check()
        assert ledger.total == game.num_players * game.config.chips, "chips not conserved"
        n = game.num_players
        cards = [c for h in self.hands for c in h] + self.stock + self.discards
        if not self.is_terminal():
            assert sorted(cards) == sorted(game.deck), "cards not conserved"
            for seat in range(n):
                assert len(self.hands[seat]) == (0 if self.scored[seat] else HAND_SIZE)
                assert self.exchanges[seat] <= 1 + game.config.chips
        if self.current_player is not None:
            assert (self.legal_mask() == self._rule_mask(self.current_player)).all(), "cached mask out of date"
        filled = (self.written != EMPTY).sum(axis=1)
        for seat in range(n):
            assert filled[seat] == self.round + (1 if self.scored[seat] and not self.is_terminal() else 0)
            assert self.totals[seat] == int(self.written[seat][self.written[seat] != EMPTY].sum())

    def stats(self) -> dict[str, list[float]]:
        """Per-player episode statistics for the evaluator."""
        return {
            "total": [float(t) for t in self.totals],
            "chips_left": [float(c) for c in self.chips],
            "scratched": [float(((self.written[s] == 0)).sum()) for s in range(self.game.num_players)],
        }
