"""The Washizu draw poker Game: options, action space, observation, rendering.

``make_game(**options)`` builds the validated config (``config.WashizuConfig``)
and the game; the state machine lives in ``state.py``.

Actions (one flat Discrete space, ``34 + max_raise`` ids):
0..31 discard the hand positions whose bits are set (0 = stand pat) and draw as
many; 32 drop; 33 call; 33 + k raise by k (k = 1..max_raise).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from parlor.envs.engine.config import build
from parlor.envs.engine.table import next_active, order_from
from parlor.envs.washizu_poker import encode as enc
from parlor.envs.washizu_poker import render as rnd
from parlor.envs.washizu_poker.config import WashizuConfig
from parlor.envs.washizu_poker.deck import full_deck, parse_deck
from parlor.envs.washizu_poker.features import WashizuTables
from parlor.envs.washizu_poker.state import CALL, DROP, NUM_DISCARDS, RAISE_BASE, SORT_KEY, WashizuState


class WashizuGame:
    name = "washizu_poker"

    def __init__(self, config: WashizuConfig):
        self.config = config
        self.num_players = config.num_players
        self.num_actions = RAISE_BASE + 1 + config.max_raise
        self.layout = enc.Layout(config.num_players)
        self.observation_shape = (self.layout.size,)
        self.observation_bounds = (0.0, 1.0)
        self.draw_mask = np.zeros(self.num_actions, dtype=bool)
        self.draw_mask[:NUM_DISCARDS] = True
        self.bet_masks = []
        for k in range(config.max_raise + 1):  # k = number of raise sizes allowed
            m = np.zeros(self.num_actions, dtype=bool)
            m[[DROP, CALL]] = True
            m[RAISE_BASE + 1: RAISE_BASE + 1 + k] = True
            self.bet_masks.append(m)
        self.no_mask = np.zeros(self.num_actions, dtype=bool)
        for m in (self.draw_mask, self.no_mask, *self.bet_masks):
            m.flags.writeable = False  # returned by legal_mask without a copy
        self.deck_array = np.array(full_deck(config), dtype=np.int64)
        self.deck_list = self.deck_array.tolist()
        # the sort key of sort_hand; None (plain ids, twice as fast) when it orders this deck's
        # ids as they are (every deck but the extra one, whose copies sort next to their twins)
        ids = self.deck_list
        self.hand_key = None if sorted(ids, key=SORT_KEY.__getitem__) == sorted(ids) else SORT_KEY.__getitem__
        self.zero_rewards = np.zeros(config.num_players)  # shared by every state: never written to
        self.zero_rewards.flags.writeable = False
        self._tables: dict[tuple[int, ...], WashizuTables] = {}
        self._orders: dict[tuple[int, tuple[bool, ...]], list[int]] = {}

    def deal_order(self, dealer: int, alive: Sequence[bool]) -> list[int]:
        """The seats still in the match clockwise from the one after ``dealer`` (a new list;
        built once per dealer and set of seats still in)."""
        key = (dealer, tuple(alive))
        order = self._orders.get(key)
        if order is None:
            order = self._orders[key] = order_from(next_active(dealer, alive), self.num_players, alive)
        return list(order)

    def new_state(self, rng: np.random.Generator, decks: Sequence[Sequence[int]] | None = None) -> WashizuState:
        return WashizuState(self, rng, decks)

    def parse_deck(self, deck: str | Sequence[Any]) -> tuple[int, ...]:
        return parse_deck(self.config, deck)

    def sample_deck(self, rng: np.random.Generator) -> tuple[int, ...]:
        """A random full deck in dealing order (for duplicate-deal replays)."""
        return tuple(self.deck_array[rng.permutation(self.deck_array.size)].tolist())

    def washizu_tables(self, washizu_ids: tuple[int, ...]) -> WashizuTables:
        """Feature tables of a Washizu set, built once per set (random13 sets are many: bounded cache)."""
        tables = self._tables.get(washizu_ids)
        if tables is None:
            if len(self._tables) >= 64:
                self._tables.clear()
            tables = self._tables[washizu_ids] = WashizuTables(washizu_ids)
        return tables

    def encode(self, view) -> np.ndarray:
        return enc.encode_view(view)

    def observe(self, state: WashizuState, player: int) -> np.ndarray:
        """Fast path equal to ``encode(state.view(player))`` (the state keeps every observer's
        row of ``state.obs`` up to date: a copy)."""
        return state.obs.row_list[player].copy()

    def render(self, view) -> str:
        return rnd.render(view, self.action_name)

    def action_name(self, action: int) -> str:
        return enc.action_name(action, self.config.max_raise)


def make_game(**options: Any) -> WashizuGame:
    return WashizuGame(build(WashizuConfig, options))
