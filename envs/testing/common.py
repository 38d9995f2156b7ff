"""What every check of the harness shares: the subject under test, what a seat cannot see
(``Hidden``), random play and position comparison, and ``raises`` (pytest's, without pytest)."""
from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from parlor.envs.engine.game import Game, State


@dataclass(frozen=True)
class Hidden:
    """What seat ``p`` cannot see in one state."""

    in_hands: tuple[int, ...]  # per other seat: its cards p cannot name (hand and own discards)
    undealt: tuple[int, ...]   # cards nobody holds yet, in dealing order
    unstored: int = 0          # hidden cards the state does not keep (Kuhn's third card)

    @property
    def places(self) -> int:
        """How many places (other seats, the undealt cards) hold hidden cards."""
        return sum(1 for k in self.in_hands if k) + bool(self.undealt) + bool(self.unstored)

    @property
    def hands_can_differ(self) -> bool:
        """Some other seat holds hidden cards that could be elsewhere: a redeal can change them."""
        return any(self.in_hands) and self.places >= 2

    @property
    def deck_can_differ(self) -> bool:
        return len(self.undealt) >= 2


@dataclass(frozen=True)
class Subject:
    """An environment under test: its factory, the options it is built with, where its
    hidden cards are (``hidden(state, seat)``; None: not told), how many random playouts
    the playout checks make, and how many seeded episodes the whole-episode checks play
    (``episodes``: the no-leak and the clone check). ``episodes=None`` keeps their own counts:
    5 for the clone check, and for the no-leak check 5 or a tenth of ``playouts``, whichever
    is more. Episode ``i`` plays the same whatever the count, so fewer episodes check a prefix."""

    env_fn: Callable[..., Any]
    options: Mapping[str, Any] = field(default_factory=dict)
    hidden: Callable[[Any, int], Hidden] | None = None
    playouts: int = 200
    name: str = "env"
    episodes: int | None = None

    def __post_init__(self) -> None:
        e = self.episodes
        if e is not None and (isinstance(e, bool) or not isinstance(e, int) or e < 1):
            raise ValueError(f"episodes={e!r}: a positive integer (episodes per whole-episode check) or None")

    def episodes_or(self, default: int) -> int:
        """The episodes a whole-episode check plays: ``episodes``, or the check's own ``default``."""
        return default if self.episodes is None else self.episodes

    def make(self, **extra: Any) -> Any:
        return self.env_fn(**{**self.options, **extra})

    def make_raw(self, **extra: Any) -> Any:
        return self.make(**extra).unwrapped


@contextmanager
def raises(kind: type[BaseException], pattern: str, what: str) -> Iterator[None]:
    """Like ``pytest.raises(kind, match=pattern)``, without pytest; ``what`` names the call."""
    try:
        yield
    except kind as err:
        assert re.search(pattern, str(err)), f"{what}: {kind.__name__} {str(err)!r} does not match {pattern!r}"
    else:
        raise AssertionError(f"{what} did not raise {kind.__name__}")


def random_action(env: Any, agent: str, rng: np.random.Generator) -> int | None:
    if env.terminations[agent] or env.truncations[agent]:
        return None
    legal = np.flatnonzero(env.action_mask(agent))
    assert legal.size > 0, f"{agent} must act but has no legal action"
    return int(legal[rng.integers(legal.size)])


def random_episode(s: Subject, seed: int) -> tuple[Any, dict[str, float], dict[str, dict]]:
    """A raw env after a full episode of seeded random play, each agent's summed reward, final infos."""
    env = s.make_raw()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    finals = {}
    for agent in env.agent_iter(max_iter=100_000):
        _, reward, term, trunc, info = env.last()
        returns[agent] += reward
        if term or trunc:
            finals[agent] = info
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(env.action_mask(agent)))))
    return env, returns, finals


def assert_same_position(game: Game, a: State, b: State) -> None:
    assert a.current_player == b.current_player
    assert (a.is_terminal(), a.is_truncated()) == (b.is_terminal(), b.is_truncated())
    for p in range(game.num_players):
        np.testing.assert_array_equal(game.observe(a, p), game.observe(b, p))
    np.testing.assert_array_equal(a.legal_mask(), b.legal_mask())


def bad_action(env: Any, agent: str) -> int:
    illegal = np.flatnonzero(env.unwrapped.action_mask(agent) == 0)
    return int(illegal[0]) if illegal.size else env.action_space(agent).n

