"""Play one episode of a Game with one agent per seat (the loop evaluate and play share).

It runs on the framework-free ``State`` directly (no AEC bookkeeping): the
observation is what the adapter gives (``game.observe``), the mask is ``int8``
as in the env, and search agents get ``sample_world = lambda rng:
state.determinize(player, rng)``.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from parlor.envs.engine.game import Game

StepHook = Callable[[Any, int, int, np.ndarray], None]  # (state after the move, player, action, rewards)


@dataclass
class EpisodeResult:
    rewards: list[float]                       # per seat, summed over the episode
    stats: dict[str, list[float]] = field(default_factory=dict)  # State.stats(), per seat
    steps: int = 0
    truncated: bool = False
    state: Any = None                          # the final State (for showing the end of the game)


def play_episode(
    game: Game,
    seat_agents: Sequence[Any],
    seed: int,
    decks: Sequence[Sequence[int]] | None = None,
    agent_seeds: Sequence[int | None] | None = None,
    on_step: StepHook | None = None,
) -> EpisodeResult:
    """Play a full episode; ``seat_agents[p]`` plays seat ``p``.

    ``seed`` seeds the game's generator and ``decks`` stacks the deals, so the
    same (seed, decks) replays the same cards whoever sits where.
    """
    if len(seat_agents) != game.num_players:
        raise ValueError(f"{game.name} needs {game.num_players} agents, got {len(seat_agents)}")
    for i, agent in enumerate(seat_agents):
        agent.reset(seed=None if agent_seeds is None else agent_seeds[i])
    state = game.new_state(np.random.default_rng(seed), list(decks) if decks is not None else None)
    totals = np.array(state.take_rewards(), dtype=float)
    steps = 0
    while not (state.is_terminal() or state.is_truncated()):
        player = state.current_player
        mask = state.legal_mask().astype(np.int8)
        view = state.view(player)
        obs = game.observe(state, player)
        action = int(seat_agents[player].act(obs, mask, view, sample_world=_sampler(state, player)))
        state.apply(action)
        earned = state.take_rewards()
        totals += earned
        steps += 1
        if on_step is not None:
            on_step(state, player, action, earned)
    stats = {k: [float(x) for x in v] for k, v in state.stats().items()}
    truncated = bool(state.is_truncated() and not state.is_terminal())
    return EpisodeResult([float(x) for x in totals], stats, steps, truncated, state)


def _sampler(state: Any, player: int) -> Callable[[np.random.Generator], Any]:
    return lambda rng: state.determinize(player, rng)
