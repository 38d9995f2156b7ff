"""Pulle (``pulle_v0``): the config, the Game object and ``make_game``.

The rules of the game are described in the package docstring (``envs/dominoes/pulle/__init__.py``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from parlor.envs.dominoes.encode import squash
from parlor.envs.dominoes.game import DominoGame
from parlor.envs.dominoes.pulle.presenter import PullePresenter
from parlor.envs.dominoes.pulle.state import (
    BUY,
    NO_BUY,
    NUM_PLAYERS,
    TAIL,
    TOTAL_SCALE,
    PulleState,
)
from parlor.envs.dominoes.pulle.view import PulleView
from parlor.envs.dominoes.state import BUY_BACK
from parlor.envs.engine.config import MAX_CHIPS, MAX_DEALS, MAX_STAKE, build, check_bool, check_int, check_number
from parlor.envs.engine.presenter import register


@dataclass(frozen=True, slots=True, kw_only=True)
class PulleConfig:
    chips: int = 100
    stake: int = 4                         # each player's stake in the pool (again after a reset)
    buy_back: bool = False                 # pay stake/2 to take the median total of the other three
    per_deal_payment: int | float = 0      # each deal's winner gets this from every other player (0: off)
    max_deals: int = 100                   # cap; the episode is truncated there

    def __post_init__(self) -> None:
        check_int("chips", self.chips, 0, MAX_CHIPS)
        check_int("stake", self.stake, 1, MAX_STAKE)
        check_bool("buy_back", self.buy_back)
        check_number("per_deal_payment", self.per_deal_payment, 0, MAX_STAKE)  # finite: paid exactly (a Fraction)
        check_int("max_deals", self.max_deals, 1, MAX_DEALS)


class PulleGame(DominoGame[PulleState, PulleView]):
    name = "pulle_v0"
    state_class = PulleState
    tail_size = TAIL
    tail_blocks = [(0, 1), (4, 1)]

    def __init__(self, config: PulleConfig):
        super().__init__(config, NUM_PLAYERS, NO_BUY + 1)
        self.max_deals = config.max_deals  # the cap: an episode plays at most that many deals

    def pass_name(self) -> str:
        return "pass"

    def extra_action_name(self, a: int) -> str | None:
        return {BUY: "buy back (pay half the stake, take the median total)", NO_BUY: "no buy-back"}.get(a)

    def fill_tail(self, out: np.ndarray, src: Any, p: int) -> None:
        """Tail (11): totals / 200 0:4, out (101+) 4:8, pool squashed 8 (pool / all stakes,
        x / (1 + x)), buy-back decision 9, total a buy-back gives / 200 10."""
        for s in range(NUM_PLAYERS):
            i = (s - p) % NUM_PLAYERS
            out[i] = src.totals[s] / TOTAL_SCALE
            out[4 + i] = src.out[s]
        out[8] = squash(float(src.pool) / (NUM_PLAYERS * self.config.stake))
        out[9] = src.phase == BUY_BACK
        if src.buy_back_value is not None:
            out[10] = src.buy_back_value / TOTAL_SCALE



register(PulleGame, PullePresenter)  # words and pictures of its views (presenter.py)


def make_game(**options: Any) -> PulleGame:
    return PulleGame(build(PulleConfig, options))
