"""Random-agent play through the AEC API: the smallest complete episode loop,
shared by the demo and the speed benchmark."""
from __future__ import annotations

from typing import Any

import numpy as np


def play_random_episode(env: Any, rng: np.random.Generator, seed: int | None = None) -> tuple[dict[str, float], int]:
    """Play one episode with uniformly random legal actions.

    Returns each agent's total reward and the number of ``step`` calls.
    """
    env.reset(seed=seed)
    returns = {a: 0.0 for a in env.possible_agents}
    steps = 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        returns[agent] += reward
        if term or trunc:
            action = None
        else:
            legal = obs["action_mask"].nonzero()[0]  # not np.flatnonzero: its wrappers cost more than a step
            action = int(legal[rng.integers(legal.size)])
        env.step(action)
        steps += 1
    return returns, steps
