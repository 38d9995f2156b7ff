"""The Agent protocol every player implements, and the random baseline.

An agent decides from what its seat knows: the encoded observation, the
action mask and the game's ``View`` (a frozen dataclass with the same
information in readable form). Search agents may also receive
``sample_world``: a callable ``rng -> State`` that draws a full game state
consistent with the view (``state.determinize(player, rng)``); it reveals
nothing beyond the view.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import numpy as np

from parlor.envs.engine.game import Game


@runtime_checkable
class Agent(Protocol):
    def reset(self, seed: int | None = None) -> None:
        """Start a new episode; reseed the agent's own randomness."""

    def act(
        self,
        observation: np.ndarray,
        action_mask: np.ndarray,
        view: Any,
        sample_world: Callable[[np.random.Generator], Any] | None = None,
    ) -> int:
        """Return a legal action id (``action_mask[action] == 1``)."""


def legal_actions(action_mask: np.ndarray) -> np.ndarray:
    return np.flatnonzero(action_mask)


class SeededAgent:
    """Base for agents with their own generator: seeded at construction, reseeded by
    ``reset(seed)`` (``reset()`` without a seed keeps the stream going)."""

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)


class RandomAgent(SeededAgent):
    """Uniformly random legal action."""

    def __init__(self, game: Game | None = None, seed: int | None = None):
        super().__init__(seed)

    def act(self, observation, action_mask, view, sample_world=None) -> int:
        legal = legal_actions(action_mask)
        if legal.size == 0:
            raise ValueError("RandomAgent.act: no legal action in the mask")
        return int(legal[self.rng.integers(legal.size)])
