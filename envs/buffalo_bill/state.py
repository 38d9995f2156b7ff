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

from parlor.envs.buffalo_bill.categories import MAX_VALUE
from parlor.envs.buffalo_bill.encode import (
    _VALUE,
    EXCHANGE_POSITIONS,
    FIRST_SCORE,
    HAND_SIZE,
    NUM_EXCHANGES,
)
from parlor.envs.buffalo_bill.view import BuffaloBillView
from parlor.envs.engine.chips import Ledger
from parlor.envs.engine.state import RulesState

if TYPE_CHECKING:
    from parlor.envs.buffalo_bill.game import BuffaloBillGame

EMPTY = -1  # an unwritten sheet line
_VALUES = _VALUE.tolist()  # float32 line values / MAX_VALUE as exact Python floats, for item writes


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
        # the observation parts, kept fresh (see ObservationLayout._init_state_buffer)
        layout = game.layout
        self.buffer = np.zeros(layout.buffer_size, dtype=np.float32)
        self._bind_buffer()
        self.seat_rows[:, layout._chips_at] = self.chips[0] / max(layout.chips, 1)
        self._deal()

    def _bind_buffer(self) -> None:
        layout, n = self.game.layout, self.game.num_players
        self.seat_rows = self.buffer[layout.rows_at:layout.turn_at].reshape(n, layout.seat_size)  # a view
        self._cells = memoryview(self.buffer)  # single-item writes through it cost half of numpy's

    # memoryviews do not pickle: rebuild the views instead
    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        del state["_cells"], state["seat_rows"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._bind_buffer()

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
        self._deal_observation(lines)

    def _deal_observation(self, lines: list[list[int]]) -> None:
        """Observation parts of a new deal. Every seat scored last round (or none played
        yet), which left its hand parts and line values zero."""
        layout, buf, cells = self.game.layout, self.buffer, self._cells
        buf[:layout.public_size] = 0.0  # round one-hot, stock, discards
        buf[layout.turn_at:] = 0.0  # to_act, first
        first, n = self.current_player, self.game.num_players
        cells[self.round] = 1.0
        cells[layout.num_lines] = len(self.stock) / layout.deck_size
        cells[layout.turn_at + first] = 1.0
        cells[layout.turn_at + n + first] = 1.0
        scored_at = layout.row_scored
        for (bases, row, values_at, chips_at), hand, seat_lines in zip(layout.seat_geometry, self.hands, lines):
            for base, c in zip(bases, hand):
                cells[base + c] = 1.0  # own hand by position
                cells[row + c] = 1.0  # the seat row's hand multi-hot
            for j, v in enumerate(seat_lines, values_at):
                cells[j] = _VALUES[v]
            cells[chips_at + 1] = 0.0  # no exchanges yet
            cells[row + scored_at] = 0.0

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
        if not 0 <= action < self.game.num_actions:
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
        self._exchange_observation(p, positions, old, values, reshuffles != self.reshuffles)
        self._pass_turn(p)

    def _exchange_observation(self, p: int, positions, old: list[int], values: list[int], reshuffled: bool) -> None:
        """Update the observation parts an exchange changed. A handful of single-item
        writes is cheaper than building index lists for ``put``."""
        layout, buf, hand = self.game.layout, self._cells, self.hands[p]
        bases, row, values_at, chips_at = layout.seat_geometry[p]
        for i, c in zip(positions, old):  # all zeros first: a discard may come back after a reshuffle
            buf[bases[i] + c] = 0.0  # own hand by position
            buf[row + c] = 0.0  # the seat row's hand multi-hot
        if reshuffled:  # the pile, this exchange's discards included, became the stock
            self.buffer[layout._discards_at:layout.public_size] = 0.0
        else:
            disc = layout._discards_at
            for c in old:
                buf[disc + c] = 1.0
        for i in positions:
            c = hand[i]
            buf[bases[i] + c] = 1.0
            buf[row + c] = 1.0
        for j, v in enumerate(values, values_at):
            buf[j] = _VALUES[v]
        buf[layout.num_lines] = len(self.stock) / layout.deck_size
        buf[chips_at] = self.chips[p] / max(layout.chips, 1)
        buf[chips_at + 1] = self.exchanges[p] / (layout.chips + 1)

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
        self._score_observation(p, line, value, hand)
        self._pass_turn(p)

    def _score_observation(self, p: int, line: int, value: int, hand: list[int]) -> None:
        """Update the observation parts scoring changed: hand gone, sheet, total, flag."""
        layout, cells = self.game.layout, self._cells
        bases, row, values_at, _ = layout.seat_geometry[p]
        disc = layout._discards_at
        for i, c in enumerate(hand):
            cells[bases[i] + c] = 0.0  # own hand by position
            cells[row + c] = 0.0  # the seat row's hand multi-hot
            cells[disc + c] = 1.0
        self.buffer[values_at:values_at + layout.num_lines] = 0.0
        cells[row + layout.row_used + line] = 1.0
        cells[row + layout.row_written + line] = _VALUES[value]
        cells[row + layout.row_total] = self.totals[p] / (MAX_VALUE * layout.num_lines)
        cells[row + layout.row_scored] = 1.0

    def _pass_turn(self, p: int) -> None:
        """Clockwise to the next player who has not scored; when all have, the next round."""
        scored, n = self.scored, self.game.num_players
        buf, to_act = self._cells, self.game.layout.turn_at
        buf[to_act + p] = 0.0
        for step in range(1, n + 1):  # inline table.next_active: this runs on every step
            seat = (p + step) % n
            if not scored[seat]:
                self.current_player = seat
                buf[to_act + seat] = 1.0
                return
        self.round += 1
        if self.round < self.game.num_rounds:
            self._deal()
        else:
            self._end()
            # the round one-hot is all 0 once the game is over; the first seat moves on
            buf[self.round - 1] = 0.0
            buf[to_act + n + (self.round - 1) % n] = 0.0
            buf[to_act + n + self.round % n] = 1.0
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
        new.buffer = self.buffer.copy()
        new._bind_buffer()
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
