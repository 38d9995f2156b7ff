"""The learner's opponents in training: a weighted pool of named agents (``heuristic``,
``random``, ``search:16``, ``ppo:<zip>``, built by ``parlor.agents.registry.make_agent`` or
a name -> factory mapping the caller gives) and frozen snapshots of the learner (the pool
entry ``self``). Used by :class:`parlor.training.learning.wrapper.SingleAgentEnv` and the
training configs (``opponents:``)."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from parlor.agents.registry import make_agent as registry_make_agent
from parlor.envs.engine.config import check_number
from parlor.envs.engine.game import ConfigError, Game, shown

SELF = "self"  # the pool entry played by frozen snapshots of the learner
AgentFactory = Callable[..., Any]  # (game, seed=None) -> Agent


@dataclass(frozen=True, slots=True)
class PoolEntry:
    """One kind of opponent and its weight in the pool."""

    agent: str
    weight: float = 1.0

    def __post_init__(self) -> None:
        if not isinstance(self.agent, str) or not self.agent.strip():
            raise ConfigError(f"opponent agent={shown(self.agent)} must be a non-empty agent name (e.g. heuristic, random, self)")
        check_number("opponent weight", self.weight, 0.0)


def make_agent(spec: str, game: Game, seed: int | None, factories: Mapping[str, AgentFactory] | None) -> Any:
    """Build an agent by name: the caller's factories first, then ``parlor.agents.registry``."""
    if factories and spec in factories:
        return factories[spec](game, seed=seed)
    return registry_make_agent(spec, game, seed=seed)


class OpponentPool:
    """Weighted opponents; the ``self`` entry draws uniformly among the snapshots.

    While no snapshot exists the ``self`` weight is left out (the other entries
    are renormalised), so self-play can join the pool later in training.
    """

    def __init__(self, entries: Sequence[PoolEntry], game: Game,
                 factories: Mapping[str, AgentFactory] | None = None, keep: int = 5):
        self.entries = tuple(entries)
        self.game, self.factories = game, factories
        self.keep = keep
        self.snapshots: list[Any] = []
        self._agents: dict[tuple[str, int], Any] = {}
        for entry in self.entries:  # build each named agent once now: bad names fail at start
            if entry.agent != SELF:
                self.agent(entry.agent, 0)

    def agent(self, spec: str, seat: int) -> Any:
        key = (spec, seat)  # one instance per seat: agents may keep per-episode memory
        if key not in self._agents:
            self._agents[key] = make_agent(spec, self.game, None, self.factories)
        return self._agents[key]

    def add_snapshot(self, agent: Any) -> None:
        self.snapshots.append(agent)
        del self.snapshots[:-self.keep]

    def draw(self, seat: int, rng: np.random.Generator) -> tuple[str, Any]:
        """(name, agent) for ``seat`` this episode."""
        usable = [e for e in self.entries if e.weight > 0 and (e.agent != SELF or self.snapshots)]
        if not usable:
            raise ConfigError("the opponent pool is empty: give at least one opponent with weight > 0 "
                              "(a 'self' entry only counts once a snapshot exists)")
        weights = np.array([e.weight for e in usable], dtype=float)
        entry = usable[int(rng.choice(len(usable), p=weights / weights.sum()))]
        if entry.agent == SELF:
            i = int(rng.integers(len(self.snapshots)))
            return f"self[{i}]", self.snapshots[i]
        return entry.agent, self.agent(entry.agent, seat)
