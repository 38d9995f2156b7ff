"""Tonk (docs/rules.md §5): the config, the Game object and ``make_game``.

The other modules of the package are listed in its docstring
(``envs/tonk/__init__.py``). Framework-free (numpy only).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from parlor.envs.engine.cards import card_name, parse_stacked_deck, shuffled, standard52
from parlor.envs.engine.config import MAX_DEALS, MAX_STAKE, build, check_bool, check_choice, check_int, check_number
from parlor.envs.engine.decks import check_decks
from parlor.envs.engine.game import ConfigError
from parlor.envs.engine.melds import SPREAD_SIZE
from parlor.envs.engine.presenter import register
from parlor.envs.engine.trace import Serializable
from parlor.envs.tonk import encode as enc
from parlor.envs.tonk.encode import NUM_ACTIONS, action_name
from parlor.envs.tonk.presenter import TonkPresenter
from parlor.envs.tonk.settle import natural_prize
from parlor.envs.tonk.state import TonkState
from parlor.envs.tonk.view import TonkView

NATURALS = ("none", "49_50", "50_auto_49_turn")
LOW_NATURALS = ("none", "13_double", "9_triple_13_double")
HAND_SIZES = (5, 7, 9)
MAX_DEALT_COUNT = 10 * max(HAND_SIZES)  # a card counts at most 10


@dataclass(frozen=True, slots=True, kw_only=True)
class TonkConfig:
    num_players: int = 3
    hand_size: int = 5
    start_discard: bool = True
    stake: float = 1
    hit_runs_only: bool = False
    hit_blocks_drop: bool = True
    natural: str = "49_50"
    low_natural: str = "none"
    texas: bool = False
    tonk_needs_six: bool = False
    spades_side_pot: bool = False
    num_hands: int = 1
    max_turns: int = 200

    def __post_init__(self) -> None:
        check_int("num_players", self.num_players, 2, 5)
        check_choice("hand_size", self.hand_size, HAND_SIZES)
        check_bool("start_discard", self.start_discard)
        check_number("stake", self.stake, hi=MAX_STAKE)
        if self.stake <= 0:
            raise ConfigError(f"stake={self.stake!r} is out of range; allowed values: > 0 and <= {MAX_STAKE}")
        for name in ("hit_runs_only", "hit_blocks_drop", "texas", "tonk_needs_six", "spades_side_pot"):
            check_bool(name, getattr(self, name))
        check_choice("natural", self.natural, NATURALS)
        check_choice("low_natural", self.low_natural, LOW_NATURALS)
        check_int("num_hands", self.num_hands, 1, MAX_DEALS)
        check_int("max_turns", self.max_turns, 1, 1_000_000)


class TonkGame(Serializable):
    """Tonk for 2-5 players; see ``envs/tonk_v0.py`` for the full spec table."""

    name = "tonk_v0"
    num_actions = NUM_ACTIONS
    observation_bounds = (-1.0, 1.0)
    observation_version = None  # no optional observation block
    stat_ratios: Mapping[str, tuple[str, str]] = {}  # no rates of State.stats() entries
    portable_options: tuple[str, ...] = ()  # a policy fits only the options it was trained with

    def __init__(self, config: TonkConfig):
        self.config = config
        self.num_players = config.num_players
        self.max_deals = config.num_hands
        self.deck = standard52()
        self.observation_shape = (enc.observation_size(config.num_players),)
        # a hand never holds more than hand_size + 1 cards: longer spreads cannot be laid
        self.layable = np.flatnonzero(SPREAD_SIZE <= config.hand_size + 1)
        self._gather = enc.gather_indices(config.num_players)
        # per-config constants, so that a new episode computes nothing twice
        self.stake_scale = enc.stake_scale(config.num_players, config.num_hands)
        self.buffer_size = enc.buffer_parts(config.num_players)[-1]
        self.deal_prizes = [natural_prize(c, config.natural, config.low_natural, config.texas)
                            for c in range(MAX_DEALT_COUNT + 1)]

    def new_state(self, rng: np.random.Generator, decks: Sequence[Sequence[int]] | None = None) -> TonkState:
        return TonkState(self, rng, check_decks(decks, self.deck, name=card_name))

    def parse_deck(self, deck: str | Sequence[Any]) -> tuple[int, ...]:
        """A full 52-card deck in dealing order (see the module docstring of ``tonk_v0``)."""
        return parse_stacked_deck(deck, self.deck)

    def sample_deck(self, rng: np.random.Generator) -> tuple[int, ...]:
        return tuple(shuffled(self.deck, rng))

    def encode(self, view: TonkView) -> np.ndarray:
        return enc.encode(view, self.config.num_hands, self.config.max_turns)

    def observe(self, state: TonkState, player: int) -> np.ndarray:
        """Fast path equal to ``encode(state.view(player))``, from the state's buffers."""
        return state.observer.buf.take(self._gather[player])

    def action_name(self, action: int) -> str:
        return action_name(action)


register(TonkGame, TonkPresenter)  # words and pictures of its views (presenter.py)


def make_game(**options: Any) -> TonkGame:
    return TonkGame(build(TonkConfig, options))
