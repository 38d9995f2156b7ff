"""A helper for the table-talk tests of every game."""
from __future__ import annotations

from typing import Any

from parlor.envs.engine.presenter import presenter_for


def told(game: Any, state: Any, action: int) -> list[str]:
    """Play ``action`` for the seat to act and return how each seat heard it
    (``game.describe_move`` on that seat's views before and after the move)."""
    actor = state.current_player
    before = [state.view(q) for q in range(game.num_players)]
    state.apply(action)
    return [presenter_for(game).describe_move(before[q], state.view(q), actor, action) for q in range(game.num_players)]
