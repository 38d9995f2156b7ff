"""Buki (``buki_v0``): the config, the Game object and ``make_game``.

The rules of the game are described in the package docstring (``envs/dominoes/buki/__init__.py``).
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from parlor.envs.dominoes import encode as _encode
from parlor.envs.dominoes.buki import features as buki_features
from parlor.envs.dominoes.buki.presenter import BukiPresenter
from parlor.envs.dominoes.buki.state import NUM_PLAYERS, ONE_HOT5, PAYOUT, TAIL, BukiState
from parlor.envs.dominoes.buki.view import BukiView
from parlor.envs.dominoes.encode import CORE_SIZE
from parlor.envs.dominoes.game import DominoGame
from parlor.envs.dominoes.line import FIRST_GAME_ACTION
from parlor.envs.dominoes.state import ACCEPT, BET, TILE
from parlor.envs.engine.chips import exact
from parlor.envs.engine.config import MAX_CHIPS, MAX_DEALS, MAX_STAKE, build, check_bool, check_choice, check_int
from parlor.envs.engine.game import ConfigError
from parlor.envs.engine.presenter import register


@dataclass(frozen=True, slots=True, kw_only=True)
class BukiConfig:
    """Options of docs/rules.md §4a.7 with their defaults."""

    banker: int = 0                 # banker seat, fixed for the episode
    chips: int = 100                # starting chips of every player
    min_bet: int = 2
    max_bet: int | None = None      # None: 3 x min_bet
    hand_size: int = 6              # 6 or 7 tiles each; the rest is the unused Stamm
    raise_before_4th: bool = False  # raises before the 4th turn, banker accepts or refuses
    num_deals: int = 8
    features: bool = False          # append the bettor's feature block (buki/features.py)

    def __post_init__(self) -> None:
        check_int("banker", self.banker, 0, NUM_PLAYERS - 1)
        check_int("chips", self.chips, 1, MAX_CHIPS)
        check_int("min_bet", self.min_bet, 1, MAX_STAKE)
        max_bet = 3 * self.min_bet if self.max_bet is None else self.max_bet
        object.__setattr__(self, "max_bet", max_bet)
        check_int("max_bet", max_bet, self.min_bet, MAX_STAKE)
        check_choice("hand_size", self.hand_size, (6, 7))
        check_bool("raise_before_4th", self.raise_before_4th)
        check_int("num_deals", self.num_deals, 1, MAX_DEALS)
        check_bool("features", self.features)
        need = math.ceil(chips_needed(self.min_bet, max_bet, self.num_deals))
        if self.chips < need:
            raise ConfigError(
                f"chips={self.chips} cannot cover the worst run of num_deals={self.num_deals} deals at bets "
                f"{self.min_bet}..{max_bet} (docs/rules.md §4a.7); allowed values: chips >= {need} "
                f"(or a lower max_bet, or fewer num_deals)")


def chips_needed(min_bet: int, max_bet: int, num_deals: int) -> Fraction:
    """The fewest starting chips with which every run of ``num_deals`` deals settles
    (docs/rules.md §4a.7). A settled deal costs the banker at most 2.5 x max_bet - 2 x min_bet
    (a non-banker wins at max_bet, the other two lose min_bet, which the banker collects
    before he pays: §4a.5) and a non-banker at most max_bet (a drawn deal carries the bets,
    so a bet is lost once). Exact: a seat winning every deal at max_bet while the others bet
    min_bet leaves the banker at 0, a seat losing max_bet every deal leaves itself at 0."""
    banker_worst = PAYOUT * max_bet - (NUM_PLAYERS - 2) * min_bet
    return num_deals * max(banker_worst, Fraction(max_bet))


@functools.lru_cache(maxsize=1024)
def banker_payout(bet: int) -> int | Fraction:
    """The banker's exact 2.5 x ``bet`` (docs/rules.md §4a.5): an int for an even bet. Cached per
    bet, so a deal pays without a Fraction product; computed on demand, not as a table up to
    ``max_bet`` (at its limit, ``MAX_STAKE``, that table was a million Fractions per game)."""
    return exact(PAYOUT * bet)


class BukiGame(DominoGame[BukiState, BukiView]):
    name = "buki_v0"
    state_class = BukiState
    tail_size = TAIL
    tail_blocks = [(0, 1), (4, 1), (8, 1), (12, 5), (32, 1), (36, 1), (44, 1)]
    payout = staticmethod(banker_payout)  # the banker's 2.5 x a bet (cached per bet)

    def __init__(self, config: BukiConfig):
        max_bet = config.max_bet
        assert max_bet is not None  # BukiConfig.__post_init__ sets the default (3 x min_bet)
        self.n_bets = max_bet - config.min_bet + 1
        self.LATER = FIRST_GAME_ACTION + self.n_bets
        self.ACCEPT, self.REFUSE = self.LATER + 1, self.LATER + 2
        # the optional feature block sits after the tail (zero in ``pub``, filled per observer)
        self.tail_size = TAIL + (buki_features.FEATURES if config.features else 0)
        super().__init__(config, NUM_PLAYERS, self.REFUSE + 1)
        self.total_chips = NUM_PLAYERS * config.chips
        self.max_deals = config.num_deals
        if config.features:  # else observe stays the base's fast path
            self.observe = self._observe_features

    def encode(self, view: BukiView) -> np.ndarray:
        out = super().encode(view)
        if self.config.features:
            buki_features.fill_features(out[CORE_SIZE + TAIL:], view, _legal_plays(view))
        return out

    def _observe_features(self, state: BukiState, player: int) -> np.ndarray:
        """``observe`` with the feature block: the fast path, then the block from the view."""
        out = _encode.observe(self, state, player)
        view = state.view(player)
        buki_features.fill_features(out[CORE_SIZE + TAIL:], view, _legal_plays(view))
        return out

    def bet_id(self, amount: int) -> int:
        return FIRST_GAME_ACTION + amount - self.config.min_bet

    def bet_amount(self, action: int) -> int:
        return self.config.min_bet + action - FIRST_GAME_ACTION

    def pass_name(self) -> str:
        return "pass"

    def extra_action_name(self, a: int) -> str | None:
        if FIRST_GAME_ACTION <= a < self.LATER:
            return f"bet (or raise to) {self.bet_amount(a)}"
        return {self.LATER: "bet later (or keep the bet)", self.ACCEPT: "accept the raise",
                self.REFUSE: "refuse the raise"}.get(a)

    def fill_tail(self, out: np.ndarray, src: Any, p: int) -> None:
        """Tail (48): banker 0:4, bets / max_bet 4:8, chips / all chips 8:12, own turns begun
        one-hot 0..4+ 12:32, must bet before 1st turn 32:36, carried bet 36:40, bet decision 40,
        bet due now 41, accept decision 42, pending raise / max_bet 43, raiser 44:48."""
        n, cfg = NUM_PLAYERS, self.config
        out[(src.banker - p) % n] = 1.0
        for s in range(n):
            i = (s - p) % n
            out[4 + i] = src.bets[s] / cfg.max_bet
            out[8 + i] = float(src.chips[s]) / self.total_chips
            out[32 + i] = src.must_bet_first[s]
            out[36 + i] = src.carried[s]
        self.fill_flow(out, src, p)

    def fill_flow(self, out: np.ndarray, src: Any, p: int) -> None:
        """The flow entries (turns, phase, pending raise); ordinary steps update them in place
        (``BukiState._begin_turn`` / ``_end_bet``)."""
        n, turns = NUM_PLAYERS, src.turns
        for s in range(n):
            i = (s - p) % n
            out[12 + 5 * i:17 + 5 * i] = ONE_HOT5[turns[s] if turns[s] < 4 else 4]
        out[40] = src.phase == BET
        out[41] = src.bet_due
        out[42] = src.phase == ACCEPT
        out[43] = src.pending_raise / self.config.max_bet
        out[44:48] = 0.0
        if src.raiser is not None:
            out[44 + (src.raiser - p) % n] = 1.0



register(BukiGame, BukiPresenter)  # words and pictures of its views (presenter.py)


def _legal_plays(view: BukiView) -> list[int]:
    """The observer's legal tile actions when he is to play a tile (else none), from his view."""
    if view.current_player != view.player or view.phase != TILE:
        return []
    ends = view.ends
    if ends is None:
        return [2 * t for t in view.hand]
    plays = []
    for t in view.hand:
        a, b = buki_features.PAIRS[t]
        if ends[0] in (a, b):
            plays.append(2 * t)
        if ends[1] in (a, b):
            plays.append(2 * t + 1)
    return plays


def make_game(**options: Any) -> BukiGame:
    return BukiGame(build(BukiConfig, options))
