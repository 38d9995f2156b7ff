"""Pulle (``pulle_v0``): the config, the Game object and ``make_game``.

The rules of the game are described in the package docstring (``envs/dominoes/pulle/__init__.py``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from parlor.envs.dominoes.encode import squash
from parlor.envs.dominoes.game import DominoGame
from parlor.envs.dominoes.pulle.state import (
    BUY,
    LIMIT,
    NO_BUY,
    NUM_PLAYERS,
    TAIL,
    TOTAL_SCALE,
    PulleState,
)
from parlor.envs.dominoes.pulle.view import PulleView
from parlor.envs.dominoes.state import BUY_BACK
from parlor.envs.engine.config import MAX_CHIPS, MAX_DEALS, MAX_STAKE, build, check_bool, check_int, check_number


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


class PulleGame(DominoGame):
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

    def title(self) -> str:
        return "Pulle"

    def extra_move(self, view: PulleView, actor: int, action: int) -> str:
        if action == BUY:
            return f"buys back: pays {view.stake / 2:g}, the total becomes {view.buy_back_value}"
        return "does not buy back"

    def deal_notes(self, view: PulleView) -> list[str]:
        totals = ", ".join(f"P{s} {t}{' (out)' if view.out[s] else ''}" for s, t in enumerate(view.totals))
        return [f"running totals now: {totals} ({LIMIT} or more sits out)"]

    def seat_notes(self, view: PulleView) -> list[str]:
        return [f"total {view.totals[s]}  chips {float(view.chips[s]):g}" for s in range(view.num_players)]

    def footer(self, view: PulleView) -> list[str]:
        notes = [f"pool {float(view.pool):g}; {LIMIT} or more sits out"]
        if view.phase == BUY_BACK:
            notes.append(f"P{view.current_player} may buy back: pay {view.stake / 2:g} to set "
                         f"the total to {view.buy_back_value}")
        return notes


def make_game(**options: Any) -> PulleGame:
    return PulleGame(build(PulleConfig, options))
