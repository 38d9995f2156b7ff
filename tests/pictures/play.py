"""Seeded random play for the picture tests: views along an episode and replay frames."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from parlor import envs
from parlor.envs.engine.presenter import svg_renderer
from parlor.training.evaluation.html import Frame


def acting_seat(env: Any) -> int:
    """The seat to act, or the last actor once the episode is over (what render() shows)."""
    player = env.state.current_player
    return env._last_actor if player is None else player


def random_steps(env: Any, seed: int, max_steps: int = 10_000) -> Iterator[tuple[int, int] | None]:
    """Play uniformly random legal actions on a raw env from ``reset(seed)``; yields None
    after the reset and then (seat, action) of each step taken, until the episode ends."""
    env.reset(seed=seed)
    yield None
    rng = np.random.default_rng(seed)
    for _ in range(max_steps):
        seat = env.state.current_player
        if seat is None:
            return
        action = int(rng.choice(np.flatnonzero(env.action_mask(env.agent_selection))))
        env.step(action)
        yield seat, action


def episode_views(env_name: str, options: dict[str, Any], seed: int = 0) -> list[Any]:
    """The acting seat's view at the start, a third of the way, two thirds and the end."""
    env = envs.make_raw(env_name, **options)
    views = [env.state.view(acting_seat(env)) for _ in random_steps(env, seed)]
    picks = sorted({0, len(views) // 3, 2 * len(views) // 3, len(views) - 1})
    return [views[i] for i in picks]


def random_frames(env_name: str, steps: int = 10, seed: int = 0, **options: Any) -> list[Frame]:
    """Replay frames of the first ``steps`` random actions: the acting seat's view after each."""
    env = envs.make_raw(env_name, **options)
    draw = svg_renderer(env.game)
    frames = []
    for k, step in enumerate(random_steps(env, seed)):
        seat = acting_seat(env)
        what = "start" if step is None else f"step {k}: P{step[0]} {env.game.action_name(step[1])}"
        frames.append(Frame(draw(env.state.view(seat)), f"{what} - view of P{seat}"))
        if k == steps:
            break
    return frames
