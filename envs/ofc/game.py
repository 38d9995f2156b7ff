"""Open Face Chinese poker (docs/rules.md §1): the config and the Game.

The State (deal, placement, showdown, Fantasyland) lives in ``state.py``, the
showdown arithmetic in ``scoring.py``. Framework-free (numpy only).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from parlor.envs.engine.cards import card_name, parse_stacked_deck, standard52
from parlor.envs.engine.config import MAX_DEALS, build, check_bool, check_choice, check_int
from parlor.envs.engine.decks import check_decks
from parlor.envs.engine.game import ConfigError
from parlor.envs.engine.presenter import register
from parlor.envs.engine.trace import Serializable
from parlor.envs.ofc import encode as _encode
from parlor.envs.ofc.deal import deal_plan
from parlor.envs.ofc.presenter import OFCPresenter
from parlor.envs.ofc.scoring import FL_CARDS_OPTIONS, FL_STAY_OPTIONS
from parlor.envs.ofc.state import OFCState
from parlor.envs.ofc.stats import MULTI_HAND_RATIOS
from parlor.envs.ofc.view import OFCView
from parlor.envs.ofc_outlook import features as _features

VARIANTS = ("original", "pineapple")
MAX_PLAYERS = {"original": 4, "pineapple": 3}


@dataclass(frozen=True, slots=True, kw_only=True)
class OFCConfig:
    """Options of docs/rules.md §1.12 with their defaults."""

    variant: str = "original"
    num_players: int = 2
    num_hands: int = 1
    fl_cards: str = "regular"
    fl_stay: str = "trips_fh_quads"
    features: bool = False

    def __post_init__(self) -> None:
        check_choice("variant", self.variant, VARIANTS)
        check_int("num_players", self.num_players, 2, 4)
        if self.num_players > MAX_PLAYERS[self.variant]:
            raise ConfigError(
                f"num_players={self.num_players} is not allowed for variant={self.variant!r}; "
                f"allowed values: 2..{MAX_PLAYERS[self.variant]}"
            )
        check_int("num_hands", self.num_hands, 1, MAX_DEALS)
        check_choice("fl_cards", self.fl_cards, FL_CARDS_OPTIONS)
        check_choice("fl_stay", self.fl_stay, FL_STAY_OPTIONS)
        check_bool("features", self.features)


class OFCGame(Serializable):
    """Builds OFC states and encodes their views (``OFCPresenter`` shows them)."""

    name = "ofc_v0"
    # a policy plays any number of hands and any Fantasyland rule: the observation's layout
    # and the actions stay the same (its Fantasyland hands are solved, agents.advisors)
    portable_options = ("num_hands", "fl_cards", "fl_stay")
    num_actions = _encode.NUM_ACTIONS
    observation_bounds = (0.0, 1.0)

    def __init__(self, config: OFCConfig):
        self.config = config
        self.num_players = config.num_players
        self.layout = _encode.Layout(config.num_players)
        self.features = config.features
        # part of a trained policy's signature (parlor.agents.policy.layout_version)
        self.observation_version = _features.FEATURES_VERSION if config.features else None
        if config.features:   # load the block's compiled kernels now, not at the first observation
            _features.kernels()
        self.max_deals = config.num_hands
        self.stat_ratios = MULTI_HAND_RATIOS if config.num_hands > 1 else {}
        self.observation_shape = (self.layout.size + (_features.size(config.num_players) if config.features else 0),)
        self.deck = standard52()
        n = config.num_players
        # watchers[p]: (seat, offset of p's board in that seat's observation) for every other seat
        self.watchers = tuple(tuple((q, self.layout.opponent_base(q, p)) for q in range(n) if q != p) for p in range(n))
        lay = self.layout
        self.state_constants = (  # unpacked by OFCState.__init__
            n, config.variant, config.num_hands, config.fl_cards, config.fl_stay, lay,
            (lay.unseen_rank, lay.unseen_suit), (lay.pending_left, lay.discards_owed), self.watchers,
        )
        self._hand_cache: dict[tuple[int, tuple[int, ...]], tuple] = {}

    def hand_setup(self, start: int, fl_next: tuple[int, ...]) -> tuple:
        """(turn plan, Fantasyland deal sizes, per-seat observation header) of a hand; cached."""
        key = (start, fl_next)
        setup = self._hand_cache.get(key)
        if setup is None:
            plan, fl_dealt = deal_plan(start, fl_next, self.config.variant)
            in_fl = [k > 0 for k in fl_next]
            headers = []
            for p in range(self.num_players):
                h = np.zeros(self.layout.size, dtype=np.float32)
                _encode.hand_header(self.layout, h, p, 0, self.config.num_hands, in_fl, start)
                headers.append(h)
            setup = self._hand_cache[key] = (tuple(plan), tuple(fl_dealt), tuple(headers))
        return setup

    def new_state(self, rng: np.random.Generator, decks: Sequence[Sequence[int]] | None = None) -> OFCState:
        return OFCState(self, rng, check_decks(decks, self.deck, name=card_name))

    def parse_deck(self, deck: str | Sequence[Any]) -> tuple[int, ...]:
        """A full 52-card deck in dealing order (text ``"As Kd ..."`` or ids)."""
        return parse_stacked_deck(deck, self.deck)

    def sample_deck(self, rng: np.random.Generator) -> tuple[int, ...]:
        """A random full deck in dealing order, as ``new_state`` accepts in ``decks``."""
        return tuple(int(c) for c in rng.permutation(52))

    def encode(self, view: OFCView) -> np.ndarray:
        obs = _encode.encode(view, self.layout)
        return _features.encode(view, obs, self.layout, self.observation_shape[0]) if self.features else obs

    def observe(self, state: OFCState, player: int) -> np.ndarray:
        """Fast path: equals ``encode(state.view(player))`` (kept up to date incrementally)."""
        if self.features:
            return _features.observe(state, player, self.observation_shape[0])
        return state.obs[player].copy()

    def action_name(self, action: int) -> str:
        return _encode.action_name(action)


register(OFCGame, OFCPresenter)  # words and pictures of its views (presenter.py)


def make_game(**options: Any) -> OFCGame:
    return OFCGame(build(OFCConfig, options))
