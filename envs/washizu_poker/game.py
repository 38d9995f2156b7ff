"""Washizu draw poker (docs/rules.md §3): the config, the Game object and ``make_game``.

The other modules of the package are listed in its docstring
(``envs/washizu_poker/__init__.py``).

Actions (one flat Discrete space, ``34 + max_raise`` ids):
0..31 discard the hand positions whose bits are set (0 = stand pat) and draw as
many; 32 drop; 33 call; 33 + k raise by k (k = 1..max_raise).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from parlor.envs.engine.cards import NUM_SUITS, SUIT_CHARS, card_name, format_cards, parse_cards, suit_of
from parlor.envs.engine.config import build, check_choice, check_int
from parlor.envs.engine.decks import check_decks
from parlor.envs.engine.double_deck_hands import evaluators
from parlor.envs.engine.game import ConfigError, shown
from parlor.envs.engine.presenter import register
from parlor.envs.engine.table import next_active, order_from
from parlor.envs.engine.trace import Serializable
from parlor.envs.washizu_poker import encode as enc
from parlor.envs.washizu_poker.betting import CALL, DROP, RAISE_BASE
from parlor.envs.washizu_poker.deck import full_deck, parse_deck
from parlor.envs.washizu_poker.draw import NUM_DISCARDS
from parlor.envs.washizu_poker.observation_cache import WashizuTables
from parlor.envs.washizu_poker.presenter import WashizuPresenter
from parlor.envs.washizu_poker.state import SORT_KEY, WashizuState
from parlor.envs.washizu_poker.view import WashizuView

WASHIZU_MODES = ("none", "suit", "random13", "extra_deck")


@dataclass(frozen=True, slots=True, kw_only=True)
class WashizuConfig:
    """Options (docs/rules.md §3.10), validated on construction: ``num_players`` 2..6;
    ``jokers`` 0..2 wild cards; ``starting_chips`` per player;
    ``washizu``: which cards are transparent; ``washizu_cards`` fixes the 13 Washizu
    cards for ``suit``/``random13`` (text like ``"2s 3s ..."``, a list of cards, or a
    suit letter ``"s"`` for ``suit``); ``num_games`` deals per match; ``max_raise``
    the largest raise step."""

    num_players: int = 4
    jokers: int = 1
    starting_chips: int = 15
    washizu: str = "suit"
    washizu_cards: Any = None
    num_games: int = 5
    max_raise: int = 3

    def __post_init__(self) -> None:
        check_int("num_players", self.num_players, 2, 6)
        check_int("jokers", self.jokers, 0, 2)
        check_int("starting_chips", self.starting_chips, 1, 10_000)
        check_choice("washizu", self.washizu, WASHIZU_MODES)
        check_int("num_games", self.num_games, 1, 1_000)
        check_int("max_raise", self.max_raise, 1, 100)
        object.__setattr__(self, "washizu_cards", _normalize_washizu_cards(self.washizu, self.washizu_cards))


def _normalize_washizu_cards(mode: str, value: Any) -> tuple[int, ...] | None:
    """The fixed Washizu set as sorted standard ids, or None (drawn per episode)."""
    if value is None:
        return None
    if mode not in ("suit", "random13"):
        raise ConfigError(f"washizu_cards={shown(value)} is only allowed with washizu='suit' or 'random13', not {mode!r}")
    if mode == "suit" and isinstance(value, str) and value.strip() in SUIT_CHARS and len(value.strip()) == 1:
        suit = SUIT_CHARS.index(value.strip())
        return tuple(r * NUM_SUITS + suit for r in range(13))
    try:
        cards = parse_cards(value)
    except ValueError as err:
        raise ConfigError(f"washizu_cards: {err}") from None
    if len(cards) != 13 or len(set(cards)) != 13 or any(c >= 52 for c in cards):
        raise ConfigError(
            f"washizu_cards={shown(value)} must be 13 distinct standard cards (2c..As, no '*' copies, no jokers)"
        )
    if mode == "suit" and len({suit_of(c) for c in cards}) != 1:
        raise ConfigError(
            f"washizu_cards={format_cards(sorted(cards), symbols=True)!r} must be the 13 cards of one suit for washizu='suit' "
            f"(or a suit letter: {', '.join(SUIT_CHARS)})"
        )
    return tuple(sorted(cards))


class WashizuGame(Serializable):
    name = "washizu_poker_v0"
    observation_version = None  # no optional observation block
    stat_ratios: Mapping[str, tuple[str, str]] = {}  # no rates of State.stats() entries
    portable_options: tuple[str, ...] = ()  # a policy fits only the options it was trained with

    def __init__(self, config: WashizuConfig):
        self.config = config
        self.num_players = config.num_players
        self.max_deals = config.num_games
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
        # the hand evaluator of this deck: with extra_deck a joker in a flush may be a twin (§3.3)
        self.rank5, self.rank5_batch = evaluators(config.washizu == "extra_deck")
        self.deck_array = np.array(full_deck(config), dtype=np.int64)
        self.deck_list = self.deck_array.tolist()
        # the sort key of sort_hand; None (plain ids, twice as fast) when it orders this deck's
        # ids as they are (every deck but the extra one, whose copies sort next to their twins)
        ids = self.deck_list
        self.hand_key = None if sorted(ids, key=SORT_KEY.__getitem__) == sorted(ids) else SORT_KEY.__getitem__
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
        return WashizuState(self, rng, check_decks(decks, self.deck_list, name=card_name))

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

    def encode(self, view: WashizuView) -> np.ndarray:
        return enc.encode_view(view)

    def observe(self, state: WashizuState, player: int) -> np.ndarray:
        """Fast path equal to ``encode(state.view(player))`` (the state's observer keeps every
        seat's observation up to date: a copy)."""
        return state.observer.observe(player)

    def action_name(self, action: int) -> str:
        return enc.action_name(action, self.config.max_raise)


register(WashizuGame, WashizuPresenter)  # words and pictures of its views (presenter.py)


def make_game(**options: Any) -> WashizuGame:
    return WashizuGame(build(WashizuConfig, options))
