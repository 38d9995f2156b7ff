"""The Pulle State: stakes, the pool, running totals, buy-backs, the settlement, and the chips
rule that lets a balance go negative (the game's rules: ``envs/dominoes/pulle/__init__.py``).
"""
from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from parlor.envs.dominoes.line import FIRST_GAME_ACTION
from parlor.envs.dominoes.observer import DominoObserver
from parlor.envs.dominoes.pulle.view import PulleView
from parlor.envs.dominoes.state import BUY_BACK, TILE, DominoState
from parlor.envs.engine.chips import Ledger

if TYPE_CHECKING:
    from parlor.envs.dominoes.pulle.game import PulleGame

NUM_PLAYERS = 4
HAND_SIZE = 7
LIMIT = 101          # a total of LIMIT or more sits out
TOTAL_SCALE = 200.0  # totals stay below 101 + 90 (the seven heaviest tiles)
BUY, NO_BUY = FIRST_GAME_ACTION, FIRST_GAME_ACTION + 1
TAIL = 11


def buy_back_total(others: Sequence[int]) -> int:
    """The total a buy-back sets: the median of the other three; all three equal: that + 1."""
    a, b, c = sorted(others)
    return a + 1 if a == c else b


class DebtLedger(Ledger):
    """Decision: Pulle balances may go below zero (a player owes; settled after the session).
    Conservation is still exact."""

    def _debit(self, player: int, amount: int | Fraction) -> None:
        if amount < 0:
            raise ValueError(f"negative amount {amount}")
        self.balances[player] -= amount

    def copy(self) -> DebtLedger:
        new = DebtLedger(list(self.balances), self.pot, self.removed)
        new.total = self.total
        return new

    def check(self) -> None:
        now = sum(self.balances, Fraction(0)) + self.pot + self.removed
        assert now == self.total, f"chips not conserved: {now} != {self.total}"
        assert self.pot >= 0 and self.removed >= 0


class PulleObserver(DominoObserver):
    """Pulle's tail changes on one event of its own besides a deal's end: a buy-back answered
    (the total may drop, the pool grow, the next seat be asked)."""

    def buy_back_answered(self) -> None:
        self.tail_dirty = True


class PulleState(DominoState):
    counts_pips_every_deal = True  # every deal's pips go onto the running totals
    observer_class = PulleObserver
    observer: PulleObserver
    game: PulleGame

    def __init__(self, game: PulleGame, rng: np.random.Generator, decks: Sequence[Sequence[int]] | None):
        super().__init__(game, rng, decks)
        cfg = self.cfg = game.config
        self.ledger = DebtLedger.equal(NUM_PLAYERS, cfg.chips)
        self.totals = [0] * NUM_PLAYERS
        self.out = [False] * NUM_PLAYERS
        self.committed = [Fraction(0)] * NUM_PLAYERS  # put in the pool since it was last won
        self.queue: list[int] = []
        self.buy_back_value: int | None = None
        self.pool_won = [0] * NUM_PLAYERS
        self.buy_backs = [0] * NUM_PLAYERS
        self.resets = 0
        self._stake_all()
        self._start(None)
        self.observer.sync_tail(self)

    @property
    def pool(self) -> int | Fraction:
        return self.ledger.pot

    @property
    def chips(self) -> list[int | Fraction]:
        return self.ledger.balances

    def _stake_all(self) -> None:
        for s in range(NUM_PLAYERS):
            self._into_pool(s, Fraction(self.cfg.stake))

    def _into_pool(self, s: int, amount: Fraction) -> None:
        self.ledger.to_pot(s, amount)
        self.committed[s] += amount

    def _start(self, leader: int | None) -> None:
        active = [not o for o in self.out]
        self._new_deal(active, HAND_SIZE, leader)
        if self.cfg.buy_back and all(active):
            lead = self.deal.leader
            self.queue = [(lead + i) % NUM_PLAYERS for i in range(NUM_PLAYERS)]
        self._next_buy_back()

    def _next_buy_back(self) -> None:
        """Ask the next seat (clockwise from the leader) for whom a buy-back lowers the total."""
        while self.queue:
            s = self.queue.pop(0)
            value = buy_back_total([self.totals[o] for o in range(NUM_PLAYERS) if o != s])
            if value < self.totals[s]:
                self.phase, self.current_player, self.buy_back_value = BUY_BACK, s, value
                return
        self.phase, self.current_player, self.buy_back_value = TILE, self.deal.current, None

    def _fill_mask(self, mask: np.ndarray) -> None:
        if self.phase == TILE:
            self.deal.fill_tile_mask(mask)
        else:
            mask[BUY] = mask[NO_BUY] = True

    def _apply(self, a: int) -> None:
        if self.phase == TILE:
            self._play_tile(a)
            return
        s, value = self.current_player, self.buy_back_value
        assert s is not None and value is not None  # the BUY_BACK phase asks a seat with a value
        self.observer.buy_back_answered()
        if a == BUY:
            self._into_pool(s, Fraction(self.cfg.stake, 2))
            self.totals[s] = value
            self.buy_backs[s] += 1
        self._next_buy_back()

    def _end_deal(self) -> None:
        deal, cfg = self.deal, self.cfg
        playing = [s for s in range(NUM_PLAYERS) if deal.active[s]]
        for s in playing:
            self.totals[s] += deal.pips[s]
        w = deal.winner
        if w is not None and cfg.per_deal_payment:
            pay = Fraction(cfg.per_deal_payment) / (2 if deal.result == "blocked" else 1)
            for s in playing:
                if s != w:
                    self.ledger.transfer(s, w, pay)
                    rewards = self._earn()
                    rewards[s] -= float(pay)
                    rewards[w] += float(pay)
        left = [s for s in playing if self.totals[s] < LIMIT]
        if len(left) == 1:
            self._settle_pool(left[0])
            self._finish()
            return
        if not left:  # everybody still in reached 101 together: start over, new stakes
            self.totals = [0] * NUM_PLAYERS
            self.resets += 1
            self._stake_all()
        self.out = [t >= LIMIT for t in self.totals]
        if self.deal_index + 1 >= cfg.max_deals:
            for s in range(NUM_PLAYERS):  # Decision: a truncated episode gives the pool back
                self.ledger.pay_from_pot(s, self.committed[s])
            self.committed = [Fraction(0)] * NUM_PLAYERS
            self._finish(truncated=True)
            return
        self._start(self._next_leader([not o for o in self.out]))

    def _deal_totals(self) -> tuple[int, ...]:
        return tuple(self.totals)

    def _settle_pool(self, w: int) -> None:
        pot = self.ledger.pot
        rewards = self._earn()
        for s in range(NUM_PLAYERS):
            rewards[s] += float((pot if s == w else 0) - self.committed[s])
        self.ledger.pay_from_pot(w, pot)
        self.committed = [Fraction(0)] * NUM_PLAYERS
        self.pool_won[w] += 1

    # ------------------------------------------------------------ protocol extras
    def _num_deals(self) -> int:
        return self.cfg.max_deals

    def _copy_extra(self, new: PulleState) -> None:
        new.ledger = self.ledger.copy()
        new.totals, new.out, new.committed = list(self.totals), list(self.out), list(self.committed)
        new.queue, new.pool_won, new.buy_backs = list(self.queue), list(self.pool_won), list(self.buy_backs)

    def _check_extra(self) -> None:
        self.ledger.check()
        assert self.ledger.pot == sum(self.committed), "the pool must equal what was put in"
        if self.current_player is not None:
            assert sum(not o for o in self.out) >= 2, "a live deal needs two players"

    def view(self, player: int) -> PulleView:
        return PulleView(**self._view_fields(player), totals=tuple(self.totals), out=tuple(self.out),
                         pool=self.ledger.pot, chips=tuple(self.ledger.balances), stake=self.cfg.stake,
                         buy_back_value=self.buy_back_value)

    def stats(self) -> dict[str, list[float]]:
        return {"pool_won": [float(x) for x in self.pool_won],
                "deals_won": [float(x) for x in self.deals_won],
                "buy_backs": [float(x) for x in self.buy_backs],
                "chip_change": [float(b - self.cfg.chips + self.committed[s])
                                for s, b in enumerate(self.ledger.balances)]}
