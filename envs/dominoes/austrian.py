"""The Austrian block and draw games of docs/rules.md §4c: 2-4 players, no bets.

Owns the config (mode, hand-size table, ``max_draws``) and the per-deal reward
(+1 to the winner, -1/(n-1) to each other player, 0 for all on a draw). The
line of play, drawing and blocking are the shared rules (``rules.py``).
Action ids: 0..71 tile plays, 72 draw (draw game, while allowed) or pass.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from parlor.envs.dominoes.encode import CORE_SIZE
from parlor.envs.dominoes.rules import N_TILES
from parlor.envs.dominoes.state import DominoGame, DominoState, DominoView
from parlor.envs.engine.config import build, check_choice, check_int
from parlor.envs.engine.game import ConfigError

MODES = ("block", "draw")
# tiles per player: default first, alternatives after (docs/rules.md §4c.1; draw 4p = 6 is a Decision)
HAND_SIZES = {
    "block": {2: (11, 12), 3: (8, 9), 4: (7, 8)},
    "draw": {2: (8, 9), 3: (7,), 4: (6,)},
}
TAIL = 6


@dataclass(frozen=True, slots=True, kw_only=True)
class AustrianConfig:
    num_players: int = 4
    mode: str = "block"
    hand_size: int | None = None     # None: the table's default for mode and players
    max_draws: int | None = None     # draw game: draws per turn before passing (None: unlimited)
    num_deals: int = 1

    def __post_init__(self) -> None:
        check_int("num_players", self.num_players, 2, 4)
        check_choice("mode", self.mode, MODES)
        allowed = HAND_SIZES[self.mode][self.num_players]
        if self.hand_size is None:
            object.__setattr__(self, "hand_size", allowed[0])
        check_choice("hand_size", self.hand_size, allowed)
        if self.max_draws is not None:
            check_int("max_draws", self.max_draws, 1)
            if self.mode != "draw":
                raise ConfigError("max_draws applies to the draw game only; allowed values: None with mode='block'")
        check_int("num_deals", self.num_deals, 1)


@dataclass(frozen=True, slots=True, kw_only=True)
class AustrianView(DominoView):
    mode: str
    max_draws: int | None
    deals_won: tuple[int, ...]


class AustrianState(DominoState):
    def __init__(self, game: AustrianGame, rng: np.random.Generator, decks: Sequence[Sequence[int]] | None):
        super().__init__(game, rng, decks)
        self.cfg = game.config
        self._start(None)
        self._sync_tail()

    @property
    def draws_this_turn(self) -> int:
        return self.deal.draws

    def _start(self, leader: int | None) -> None:
        cfg = self.cfg
        self._new_deal([True] * self.n, cfg.hand_size, leader, cfg.mode == "draw", cfg.max_draws)

    def _apply(self, a: int) -> None:
        self._play_tile(a)

    def _sync_tail_step(self) -> None:
        self.pub[CORE_SIZE] = self.deal.draws / self.game.draw_scale

    def _end_deal(self) -> None:
        self._tail_dirty = True
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


class AustrianGame(DominoGame):
    name = "austrian_dominoes_v0"
    state_class = AustrianState
    tail_size = TAIL
    tail_blocks = [(2, 1)]

    def __init__(self, config: AustrianConfig):
        super().__init__(config, config.num_players, 73)
        n, h = config.num_players, config.hand_size
        self.hand_capacity = N_TILES - (n - 1) * h if config.mode == "draw" else h
        self.draw_scale = config.max_draws or max(1, N_TILES - n * h)

    def pass_name(self) -> str:
        return "draw a tile (pass when no draw is allowed)" if self.config.mode == "draw" else "pass"

    def extra_action_name(self, a: int) -> str | None:
        return None

    def fill_tail(self, out: np.ndarray, src: Any, p: int) -> None:
        """Tail (6): tiles drawn this turn / (max_draws or initial boneyard) 0, draw game 1,
        deals won / num_deals 2:6."""
        n = self.num_players
        out[0] = src.draws_this_turn / self.draw_scale
        out[1] = self.config.mode == "draw"
        for s in range(n):
            out[2 + (s - p) % n] = src.deals_won[s] / self.config.num_deals

    def title(self) -> str:
        return f"Austrian {self.config.mode} game"

    def seat_notes(self, view: AustrianView) -> list[str]:
        return [f"won {view.deals_won[s]}" for s in range(view.num_players)]

    def footer(self, view: AustrianView) -> list[str]:
        if view.mode == "draw" and view.draws_this_turn:
            return [f"drawn this turn: {view.draws_this_turn}"]
        return []


def make_game(**options: Any) -> AustrianGame:
    return AustrianGame(build(AustrianConfig, options))
