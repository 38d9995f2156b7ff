"""Austrian (``austrian_dominoes_v0``): the config, the Game object and ``make_game``.

The rules of the game are described in the package docstring (``envs/dominoes/austrian/__init__.py``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from parlor.envs.dominoes.austrian.presenter import AustrianPresenter
from parlor.envs.dominoes.austrian.state import HAND_SIZES, MODES, TAIL, AustrianState
from parlor.envs.dominoes.austrian.view import AustrianView
from parlor.envs.dominoes.game import DominoGame
from parlor.envs.dominoes.line import N_TILES
from parlor.envs.engine.config import MAX_DEALS, build, check_choice, check_int
from parlor.envs.engine.game import ConfigError
from parlor.envs.engine.presenter import register


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
            check_int("max_draws", self.max_draws, 1, N_TILES)  # no turn can draw more than the set
            if self.mode != "draw":
                raise ConfigError("max_draws applies to the draw game only; allowed values: None with mode='block'")
        check_int("num_deals", self.num_deals, 1, MAX_DEALS)


class AustrianGame(DominoGame[AustrianState, AustrianView]):
    name = "austrian_dominoes_v0"
    state_class = AustrianState
    tail_size = TAIL
    tail_blocks = [(2, 1)]

    def __init__(self, config: AustrianConfig):
        super().__init__(config, config.num_players, 73)
        self.max_deals = config.num_deals
        n, h = config.num_players, config.hand_size
        assert h is not None  # AustrianConfig.__post_init__ sets the table's default
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



register(AustrianGame, AustrianPresenter)  # words and pictures of its views (presenter.py)


def make_game(**options: Any) -> AustrianGame:
    return AustrianGame(build(AustrianConfig, options))
