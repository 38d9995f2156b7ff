"""Buffalo Bill game state: rounds, exchanges, chips, scoring, rewards (RULES.md §2).

A round: the whole deck is shuffled (or taken from the stacked deck of that
round), 5 cards go face up to each player starting with the first to act (the
seat after the dealer), the rest is the stock. Turns go clockwise among the
players who have not scored this round; each turn is one exchange (first of the
round free, later ones 1 chip) or scoring one empty line. Round ``r`` has
dealer ``(n - 1 + r) % n``, so seat 0 acts first in round 0.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

import numpy as np

from envs.buffalo_bill.encode import EXCHANGE_POSITIONS, FIRST_SCORE, HAND_SIZE, NUM_EXCHANGES
from envs.engine.chips import Ledger
from envs.engine.game import IllegalActionError
from envs.engine.table import order_from

if TYPE_CHECKING:
    from envs.buffalo_bill.rules import BuffaloBillGame

EMPTY = -1  # an unwritten sheet line


@dataclass(frozen=True)
class BuffaloBillView:
    """What ``player`` knows: everything except the stock order (all hands are public)."""

    player: int
    num_players: int
    lines: tuple[str, ...]
    round: int  # 0-based; equals num_rounds once the game is over
    num_rounds: int
    dealer: int
    first_player: int
    current_player: int | None
    hands: tuple[tuple[int, ...], ...]  # by seat, by position; () once the seat scored this round
    line_values: tuple[tuple[int, ...], ...]  # by seat, by line: what the hand would score now
    written: tuple[tuple[int | None, ...], ...]  # by seat, by line; None = still empty
    totals: tuple[int, ...]
    chips: tuple[int, ...]
    exchanges: tuple[int, ...]  # exchanges each seat made this round
    scored: tuple[bool, ...]  # seat has scored this round
    discards: tuple[int, ...]  # discard pile, sorted
    stock_size: int
    deck_size: int

    def open_lines(self, seat: int | None = None) -> list[int]:
        seat = self.player if seat is None else seat
        return [k for k, v in enumerate(self.written[seat]) if v is None]

    def exchange_cost(self, seat: int | None = None) -> int:
        """Chips the next exchange of ``seat`` costs this round (first one free)."""
        seat = self.player if seat is None else seat
        return 0 if self.exchanges[seat] == 0 else 1

    def can_exchange(self, seat: int | None = None) -> bool:
        seat = self.player if seat is None else seat
        return self.chips[seat] >= self.exchange_cost(seat)


def _copy_rng(rng: np.random.Generator) -> np.random.Generator:
    """An independent generator in the same state (cheaper than deepcopy)."""
    bit_generator = type(rng.bit_generator)(0)
    bit_generator.state = rng.bit_generator.state
    return np.random.Generator(bit_generator)


class BuffaloBillState:
    def __init__(self, game: "BuffaloBillGame", rng: np.random.Generator, decks: Sequence[Sequence[int]] | None):
        n, lines = game.num_players, len(game.lines)
        self.game = game
        self.rng = rng
        self.decks = [tuple(d) for d in decks or ()]
        self.round = 0
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.line_values = np.zeros((n, lines), dtype=np.int16)
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
        self._rewards = np.zeros(n)
        self.seat_rows = np.zeros((n, game.layout.seat_size), dtype=np.float32)  # observation rows, kept fresh
        self._masks = np.ones((n, game.num_actions), dtype=bool)  # legal actions per seat, kept fresh
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
    def stock_size(self) -> int:
        return len(self.stock)

    # ------------------------------------------------------------ dealing
    def _deal(self) -> None:
        game = self.game
        n = game.num_players
        if self.round < len(self.decks):
            deck = list(self.decks[self.round])
        else:
            deck = list(game.deck)
            self.rng.shuffle(deck)
        first = self.first_player
        for i, seat in enumerate(order_from(first, n)):
            self.hands[seat] = deck[HAND_SIZE * i: HAND_SIZE * (i + 1)]
            self.line_values[seat] = game.evaluator.values(self.hands[seat])
        self.stock = deck[HAND_SIZE * n:][::-1]
        self.discards = []
        self.exchanges = [0] * n
        self.scored = [False] * n
        self.current_player = first
        self._masks[:, :NUM_EXCHANGES] = True  # a new round's first exchange is free
        for seat in range(n):
            self._refresh_sheet(seat)
            self._refresh_hand(seat)

    # the observation rows of the seats, refreshed part by part when they change
    def _refresh_sheet(self, seat: int) -> None:
        self.game.layout.sheet_part(self.seat_rows[seat], self.written[seat], self.totals[seat], self.scored[seat])

    def _refresh_hand(self, seat: int) -> None:
        self.game.layout.hand_part(
            self.seat_rows[seat], self.hands[seat], self.line_values[seat], self.chips[seat], self.exchanges[seat]
        )

    def _draw(self) -> int:
        if not self.stock:
            # An empty stock is refilled when a card must be drawn; Decision (RULES.md):
            # the discards of this exchange are already in the pile.
            pile = sorted(self.discards)
            self.rng.shuffle(pile)
            self.stock, self.discards = pile, []
            self.reshuffles += 1
        return self.stock.pop()

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

    def _illegal(self, action: int) -> IllegalActionError:
        return IllegalActionError(action, np.flatnonzero(self.legal_mask()), self.game.action_name)

    def apply(self, action: int) -> None:
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
        self.discards += [hand[i] for i in positions]
        for i in positions:
            hand[i] = self._draw()
        self.exchanges[p] += 1
        self.line_values[p] = self.game.evaluator.values(hand)
        self._refresh_hand(p)
        self._pass_turn(p)

    def _score(self, p: int, line: int) -> None:
        if self.written[p, line] != EMPTY:
            raise self._illegal(FIRST_SCORE + line)
        value = int(self.line_values[p, line])
        self.written[p, line] = value
        self._masks[p, FIRST_SCORE + line] = False
        self.totals[p] += value
        if self.game.reward == "score":
            self._rewards[p] += value
        self.discards.extend(self.hands[p])
        self.hands[p] = []
        self.line_values[p] = 0
        self.scored[p] = True
        self._refresh_sheet(p)
        self._refresh_hand(p)
        self._pass_turn(p)

    def _pass_turn(self, p: int) -> None:
        """Clockwise to the next player who has not scored; when all have, the next round."""
        scored, n = self.scored, self.game.num_players
        for step in range(1, n + 1):  # inline table.next_active: this runs on every step
            seat = (p + step) % n
            if not scored[seat]:
                self.current_player = seat
                return
        self.round += 1
        if self.round < self.game.num_rounds:
            self._deal()
        else:
            self.current_player = None
            self._rewards += self.game.final_rewards(self.totals)

    def is_terminal(self) -> bool:
        return self.current_player is None

    def is_truncated(self) -> bool:
        return False  # every turn either spends the free exchange, a chip, or a line

    def take_rewards(self) -> np.ndarray:
        out = self._rewards
        self._rewards = np.zeros(self.game.num_players)
        return out

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
            line_values=tuple(tuple(int(v) for v in row) for row in self.line_values),
            written=tuple(tuple(None if v == EMPTY else int(v) for v in row) for row in self.written),
            totals=tuple(self.totals),
            chips=tuple(self.chips),
            exchanges=tuple(self.exchanges),
            scored=tuple(self.scored),
            discards=tuple(sorted(self.discards)),
            stock_size=len(self.stock),
            deck_size=len(game.deck),
        )

    def clone(self) -> "BuffaloBillState":
        new = copy.copy(self)
        new.rng = _copy_rng(self.rng)
        new.hands = [list(h) for h in self.hands]
        new.line_values = self.line_values.copy()
        new.written = self.written.copy()
        new.totals = list(self.totals)
        new.chips = list(self.chips)
        new.exchanges = list(self.exchanges)
        new.scored = list(self.scored)
        new.stock = list(self.stock)
        new.discards = list(self.discards)
        new._rewards = self._rewards.copy()
        new.seat_rows = self.seat_rows.copy()
        new._masks = self._masks.copy()
        return new

    def determinize(self, player: int, rng: np.random.Generator) -> "BuffaloBillState":
        """Hands, sheets, chips and discards are public; only the stock order, the
        future deals (stacked or random) and the random generator are resampled."""
        new = self.clone()
        stock = sorted(self.stock)
        rng.shuffle(stock)
        new.stock = stock
        new.decks = new.decks[: self.round + 1]  # later stacked decks are unknown to the player
        new.rng = np.random.default_rng(int(rng.integers(2**63)))
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
