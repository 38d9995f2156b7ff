"""The one loop that plays games: every place that plays a game forward uses it.

:func:`play_until` is the core: it plays a framework-free ``State`` on, one
decision at a time, until the episode ends (terminal or truncated) or the
caller's ``stop`` says so, handing every transition and the rewards it paid to
``on_step``. On top of it:

- :func:`play_episode` plays a whole episode with one agent per seat
  (tournaments, the learner's periodic evaluation, ``parlor play``, the golden
  digests);
- :func:`seat_chooser` / :func:`decide` ask an agent for its action with
  exactly what the PettingZoo adapter would give it (the observation, the
  ``int8`` mask, the seat's view and ``sample_world``), so agents behave the
  same here as through the AEC API (the training wrapper's opponent turns use it);
- search playouts (:func:`parlor.agents.search.rollout`) call :func:`play_until`
  with a playout policy and a reward horizon.

It runs on the ``State`` directly, without the AEC bookkeeping, because these
loops are hot (search playouts, evaluation). The observation is what the
adapter gives: ``game.observe(state, player)``.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from parlor.envs.engine.config import check_seed
from parlor.envs.engine.game import Game

Choose = Callable[[Any, int], int]  # (state, player to act) -> action
Stop = Callable[[Any], bool]  # (state before a decision) -> True to stop there
StepHook = Callable[[Any, int, int, np.ndarray], None]  # (state after the move, player, action, rewards paid)


def play_until(state: Any, choose: Choose, stop: Stop | None = None, on_step: StepHook | None = None) -> int:
    """Play ``state`` (mutated) on and return the number of moves made.

    Before each decision ``stop(state)`` may end the play (e.g. when the learner
    is to act); ``choose(state, player)`` gives the move; after it,
    ``on_step(state, player, action, earned)`` receives the rewards that move
    paid (``state.take_rewards()``: callers that sum them see every reward
    exactly once). Play also ends when the episode is terminal or truncated.
    """
    steps = 0
    while not (state.is_terminal() or state.is_truncated()):
        if stop is not None and stop(state):
            break
        player = state.current_player
        action = choose(state, player)
        state.apply(action)
        steps += 1
        earned = state.take_rewards()
        if on_step is not None:
            on_step(state, player, action, earned)
    return steps


def world_sampler(state: Any, player: int) -> Callable[[np.random.Generator], Any]:
    """``sample_world`` for ``player``: full states consistent with its view."""
    return lambda rng: state.determinize(player, rng)


def decide(agent: Any, game: Game, state: Any, player: int, mask: np.ndarray | None = None) -> int:
    """``agent``'s action for ``player`` at ``state``; ``mask`` replaces the legal
    mask (e.g. narrowed by an action guard), else it is the state's, as ``int8``."""
    if mask is None:
        mask = state.legal_mask().astype(np.int8)
    return int(agent.act(game.observe(state, player), mask, state.view(player),
                         sample_world=world_sampler(state, player)))


def seat_chooser(game: Game, seat_agents: Sequence[Any] | Callable[[int], Any]) -> Choose:
    """A ``choose`` for :func:`play_until`: the agent of the seat to act decides
    (``seat_agents[player]``, or ``seat_agents(player)`` for a callable)."""
    agent_of = seat_agents if callable(seat_agents) else seat_agents.__getitem__
    return lambda state, player: decide(agent_of(player), game, state, player)


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
    on_start: Callable[[Any], None] | None = None,
) -> EpisodeResult:
    """Play a full episode; ``seat_agents[p]`` plays seat ``p``.

    ``seed`` seeds the game's generator and ``decks`` stacks the deals, so the
    same (seed, decks) replays the same cards whoever sits where. Each agent is
    reset with its ``agent_seeds`` entry (or ``None``: its stream goes on).
    ``on_start(state)`` sees the dealt state before the first move (``on_step`` every move).
    """
    if len(seat_agents) != game.num_players:
        raise ValueError(f"{game.name} needs {game.num_players} agents, got {len(seat_agents)}")
    for i, agent in enumerate(seat_agents):
        agent.reset(seed=None if agent_seeds is None else agent_seeds[i])
    state = game.new_state(np.random.default_rng(check_seed(seed)), list(decks) if decks is not None else None)
    totals = np.array(state.take_rewards(), dtype=float)
    if on_start is not None:
        on_start(state)

    def record(state: Any, player: int, action: int, earned: np.ndarray) -> None:
        np.add(totals, earned, out=totals)
        if on_step is not None:
            on_step(state, player, action, earned)

    steps = play_until(state, seat_chooser(game, seat_agents), on_step=record)
    stats = {k: [float(x) for x in v] for k, v in state.stats().items()}
    truncated = bool(state.is_truncated() and not state.is_terminal())
    return EpisodeResult([float(x) for x in totals], stats, steps, truncated, state)
