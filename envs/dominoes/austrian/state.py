"""The Austrian State: deals until ``num_deals`` and the per-deal reward (the game's rules:
``envs/dominoes/austrian/__init__.py``).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from parlor.envs.dominoes.austrian.view import AustrianView
from parlor.envs.dominoes.encode import CORE_SIZE
from parlor.envs.dominoes.observer import DominoObserver
from parlor.envs.dominoes.state import DominoState

if TYPE_CHECKING:
    from parlor.envs.dominoes.austrian.game import AustrianGame

MODES = ("block", "draw")
# tiles per player: default first, alternatives after (docs/rules.md §4c.1; draw 4p = 6 is a Decision)
HAND_SIZES: dict[str, dict[int, tuple[int, ...]]] = {
    "block": {2: (11, 12), 3: (8, 9), 4: (7, 8)},
    "draw": {2: (8, 9), 3: (7,), 4: (6,)},
}
TAIL = 6


class AustrianObserver(DominoObserver):
    """Austrian's tail also counts the current turn's draws, which change on ordinary steps."""

    step_sync = True

    def step_tail(self, state: AustrianState) -> None:
        self.pub[CORE_SIZE] = state.deal.draws / state.game.draw_scale


class AustrianState(DominoState):
    observer_class = AustrianObserver
    game: AustrianGame

    def __init__(self, game: AustrianGame, rng: np.random.Generator, decks: Sequence[Sequence[int]] | None):
        super().__init__(game, rng, decks)
        self.cfg = game.config
        self._start(None)
        self.observer.sync_tail(self)

    @property
    def draws_this_turn(self) -> int:
        return self.deal.draws

    def _start(self, leader: int | None) -> None:
        cfg = self.cfg
        self._new_deal([True] * self.n, cfg.hand_size, leader, cfg.mode == "draw", cfg.max_draws)

    def _apply(self, a: int) -> None:
        self._play_tile(a)

    def _end_deal(self) -> None:
        w = self.deal.winner
        if w is not None:
            rewards = self._earn()
            for s in range(self.n):
                rewards[s] += 1.0 if s == w else -1.0 / (self.n - 1)
        if self.deal_index + 1 >= self.cfg.num_deals:
            self._finish()
        else:
            self._start(self._next_leader([True] * self.n))

    def _num_deals(self) -> int:
        return self.cfg.num_deals

    def _hand_capacity(self) -> int:
        return self.game.hand_capacity

    def view(self, player: int) -> AustrianView:
        return AustrianView(**self._view_fields(player), mode=self.cfg.mode, max_draws=self.cfg.max_draws,
                            deals_won=tuple(self.deals_won))

    def stats(self) -> dict[str, list[float]]:
        deals = self.deal_index + 1
        return {"deals_won": [float(x) for x in self.deals_won],
                "win_rate": [x / deals for x in self.deals_won]}
