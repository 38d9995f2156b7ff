"""Duplicate deals: the same cards for every seating, a function of (seed, deal) only.

Deal ``d`` is one game seed plus, for games that can stack their decks
(``game.sample_deck``), one pre-sampled deck per hand/deal/round of the episode,
both derived from (``seed``, ``d``) only. Tournaments replay each deal in every
lineup and the learner's periodic evaluation replays it in every seat, so the
luck of the deal cancels out of comparisons.
"""
from __future__ import annotations

from typing import Any

import numpy as np

EPISODE_LENGTH_FIELDS = ("num_hands", "num_deals", "num_games", "num_rounds", "max_deals")
UNBOUNDED_DEALS = 64  # decks pre-sampled when a game's episode has no fixed number of deals


def decks_per_episode(game: Any) -> int:
    """How many stacked decks one episode can use: one per hand, deal, game or round."""
    for source in (game, game.config):
        for name in EPISODE_LENGTH_FIELDS:
            value = getattr(source, name, None)
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                return value
    return UNBOUNDED_DEALS


def stacks_decks(game: Any) -> bool:
    """Whether duplicate deals replay pre-sampled decks (else they replay the game seed only)."""
    return callable(getattr(game, "sample_deck", None))


def deal_for(game: Any, seed: int, deal: int) -> tuple[int, list[tuple[int, ...]] | None]:
    """(game seed, decks) of duplicate deal ``deal``: a function of (seed, deal) only.

    A game without ``sample_deck`` gets no stacked decks: the shared game seed then
    replays the same shuffles as long as its random draws do not depend on the play.
    """
    rng = np.random.default_rng(np.random.SeedSequence([seed, deal, 0]))
    game_seed = int(rng.integers(2**63))
    if not stacks_decks(game):
        return game_seed, None
    return game_seed, [tuple(int(c) for c in game.sample_deck(rng)) for _ in range(decks_per_episode(game))]

