"""Duplicate deals: the same cards for every seating, a function of (seed, deal) only.

Deal ``d`` is one game seed plus one pre-sampled deck (``game.sample_deck``, which
every Game has) per hand/deal/game/round of the episode (``game.max_deals``), both
derived from (``seed``, ``d``) only. Tournaments replay each deal in every lineup
and the learner's periodic evaluation replays it in every seat, so the luck of the
deal cancels out of comparisons.
"""
from __future__ import annotations

import numpy as np

from parlor.envs.engine.game import Game

UNBOUNDED_DEALS = 64  # decks pre-sampled when a game's episode has no fixed number of deals


def decks_per_episode(game: Game) -> int:
    """How many stacked decks one episode can use: one per hand, deal, game or round
    (``game.max_deals``; ``UNBOUNDED_DEALS`` when the episode has no bound)."""
    return UNBOUNDED_DEALS if game.max_deals is None else game.max_deals


def deal_for(game: Game, seed: int, deal: int) -> tuple[int, list[tuple[int, ...]]]:
    """(game seed, decks) of duplicate deal ``deal``: a function of (seed, deal) only."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, deal, 0]))
    game_seed = int(rng.integers(2**63))
    return game_seed, [tuple(int(c) for c in game.sample_deck(rng)) for _ in range(decks_per_episode(game))]
