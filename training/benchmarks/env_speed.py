"""Environment speed: random-play AEC steps per second, next to PettingZoo's
``texas_holdem_v4`` (the reference), measured back to back in one run.

The workload plays through the PettingZoo AEC API (``agent_iter``, ``last``,
``step``) on purpose: what is measured is the environment as a user drives it,
adapter included. Everything else that plays games uses the framework-free loop
of :mod:`parlor.agents.episodes`; this loop is the exception because the
adapter's cost is part of what it measures. Ratios matter, not absolute numbers:
the machines are shared and noisy.
"""
from __future__ import annotations

import time
from collections.abc import Callable
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


def steps_per_second(make_env: Callable[[], object], seconds: float, seed: int = 0) -> float:
    """AEC steps per second of random play in a fresh ``make_env()`` for about ``seconds``."""
    env = make_env()
    rng = np.random.default_rng(seed)
    steps, episode = 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        # seed once: reseeding every episode would time numpy's generator set-up, not the game
        _, n = play_random_episode(env, rng, seed=seed if episode == 0 else None)
        steps += n
        episode += 1
    return steps / (time.perf_counter() - start)


def reference_env() -> object:
    """PettingZoo's ``texas_holdem_v4``: the reference every env is measured against."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pettingzoo.classic import texas_holdem_v4
    return texas_holdem_v4.env()
