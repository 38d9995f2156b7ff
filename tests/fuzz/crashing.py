"""An agent class with a bug (for the test that a parlor bug keeps its traceback)."""
from __future__ import annotations

from typing import Any


class CrashingAgent:
    def __init__(self, game: Any, seed: int | None = None):
        self.game = game

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, observation: Any, action_mask: Any, view: Any = None, sample_world: Any = None) -> int:
        return 1 // 0


class BrokenAtBirth:
    """An agent class whose constructor has a bug that raises ValueError (a parlor-side bug, not user input)."""

    def __init__(self, game: Any, seed: int | None = None):
        raise ValueError("a bug in an agent's constructor")

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, observation: Any, action_mask: Any, view: Any = None, sample_world: Any = None) -> int:
        return 0
