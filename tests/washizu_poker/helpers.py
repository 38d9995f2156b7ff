"""Rigged decks and short-hands for the Washizu poker rule tests."""
from __future__ import annotations

import numpy as np

from parlor.envs.engine.cards import format_cards, parse_cards
from parlor.envs.washizu_poker.betting import CALL, DROP, RAISE_BASE
from parlor.envs.washizu_poker.deck import full_deck
from parlor.envs.washizu_poker.encode import discard_action
from parlor.envs.washizu_poker.game import make_game

PAT = 0


def stacked(game, *hands: str, stock: str = "") -> tuple[int, ...]:
    """A full deck: the given hands (dealt in turn order), then ``stock`` from its top,
    then every other card of the game's deck in id order."""
    head = [c for part in (*hands, stock) for c in parse_cards(part)]
    rest = [c for c in full_deck(game.config) if c not in set(head)]
    return game.parse_deck(format_cards(head + rest))


def rigged(*hands: str, stock: str = "", **options):
    """A game and its first state dealt from a rigged deck."""
    game = make_game(**options)
    state = game.new_state(np.random.default_rng(0), decks=[stacked(game, *hands, stock=stock)])
    return game, state


def raise_by(k: int) -> int:
    return RAISE_BASE + k


def discard(state, cards: str) -> int:
    """The action discarding ``cards`` from the current player's hand."""
    return discard_action(state.hands[state.current_player], parse_cards(cards))


def play(state, *actions: int) -> np.ndarray:
    """Apply actions in order; returns the rewards earned meanwhile."""
    total = np.zeros(state.game.num_players)
    for a in actions:
        state.apply(a)
        state.check_invariants()
        total += state.take_rewards()
    return total


__all__ = ["CALL", "DROP", "PAT", "discard", "play", "raise_by", "rigged", "stacked"]
