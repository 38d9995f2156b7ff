"""Deck composition, the per-episode Washizu set, and stacked-deck parsing."""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from parlor.envs.engine.cards import NUM_IDS, NUM_SUITS, make_deck, parse_cards, validate_deck

if TYPE_CHECKING:
    from parlor.envs.washizu_poker.game import WashizuConfig

HAND_SIZE = 5


def full_deck(config: WashizuConfig) -> tuple[int, ...]:
    """52 cards (104 with the Washizu extra deck) plus the jokers, in id order."""
    name = "double104" if config.washizu == "extra_deck" else "standard52"
    return make_deck(name, config.jokers)


def choose_washizu(config: WashizuConfig, rng: np.random.Generator) -> tuple[int, ...]:
    """The Washizu card ids of one episode (public knowledge: the deck is built in the open)."""
    mode = config.washizu
    if mode == "none":
        return ()
    if mode == "extra_deck":
        return tuple(range(52, 104))
    if config.washizu_cards is not None:
        return config.washizu_cards
    if mode == "suit":
        suit = int(rng.integers(NUM_SUITS))
        return tuple(r * NUM_SUITS + suit for r in range(13))
    return tuple(sorted(int(c) for c in rng.choice(52, size=13, replace=False)))


def washizu_mask(ids: Sequence[int]) -> np.ndarray:
    mask = np.zeros(NUM_IDS, dtype=bool)
    mask[list(ids)] = True
    return mask


def parse_deck(config: WashizuConfig, deck: str | Sequence[Any]) -> tuple[int, ...]:
    """A full stacked deck for one game (first card dealt first); ValueError names the problem."""
    cards = parse_cards(deck)
    validate_deck(cards, full_deck(config))
    return cards
