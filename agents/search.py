"""Determinized Monte Carlo search: the generic search baseline for every game.

At each decision the agent draws full worlds consistent with its view
(``sample_world(rng)``, i.e. ``state.determinize(player, rng)``), tries every
legal action in each world (``clone`` + ``apply``), plays the world out to the
end of the episode with a rollout policy and keeps the action whose rollouts
earned the acting player the most reward on average. All actions of one round
are tried in the same sampled worlds with the same rollout seeds (common random
numbers), so their comparison is not blurred by different deals.

Budget = rollouts per decision (split over the legal actions). With
``allocation="halving"`` (default) the budget is spent by sequential halving:
each round shares its part of the budget among the surviving actions, then the
worse half is dropped, so good actions get most of the rollouts; ``"uniform"``
gives every action the same number. Decisions with one legal action cost
nothing. With a policy playout (the game's heuristic) the search improves on
that policy: it keeps the policy's own choice unless fresh worlds show a
better action (see ``confidence``). The agent only ever sees its view and the
worlds ``sample_world`` draws from it, so it knows no more than its seat.
Decisions the game's advisor solves exactly (``advisor.solved_action``, e.g. OFC's
Fantasyland hands, :mod:`parlor.agents.advisors`) are played as solved, unsearched.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np

from parlor.agents.advisors import Advisor, solved_action
from parlor.agents.base import legal_actions
from parlor.agents.episodes import play_until
from parlor.agents.registry import HORIZONS
from parlor.envs.engine.game import Game

ALLOCATIONS = ("halving", "uniform")
MIN_CHECK_WORLDS = 6  # fewer paired samples give a standard error too noisy to trust


class RolloutPolicy(Protocol):
    def reset(self, seed: int | None = None) -> None: ...

    def __call__(self, state: Any, rng: np.random.Generator) -> int:
        """A legal action for ``state.current_player``."""


class RandomRollout:
    """Uniform over the legal actions: the fastest playout policy."""

    name = "random"

    def reset(self, seed: int | None = None) -> None:
        pass

    def __call__(self, state: Any, rng: np.random.Generator) -> int:
        legal = np.flatnonzero(state.legal_mask())
        return int(legal[rng.integers(legal.size)])


class AgentRollout:
    """Every seat of the playout is played by an agent (e.g. the game's heuristic).

    ``make_agent(seed)`` builds one agent per seat (agents may remember things
    about their own seat). The observation is ``game.encode(view)``; with
    ``encode=False`` (agents that read only the view, like the game heuristics)
    ``None`` is passed instead, which saves encoding every playout step.
    """

    def __init__(self, game: Game, make_agent: Callable[[int | None], Any], name: str = "agent",
                 encode: bool = True):
        self.game = game
        self.name = name
        self.agents = [make_agent(None) for _ in range(game.num_players)]
        self.encode = encode

    def reset(self, seed: int | None = None) -> None:
        seeds = np.random.SeedSequence(seed).generate_state(len(self.agents))
        for agent, s in zip(self.agents, seeds):
            agent.reset(seed=int(s))

    def __call__(self, state: Any, rng: np.random.Generator) -> int:
        player = state.current_player
        view = state.view(player)
        obs = self.game.encode(view) if self.encode else None
        return int(self.agents[player].act(obs, state.legal_mask(), view))


def rollout(state: Any, player: int, policy: Callable[[Any, np.random.Generator], int],
            rng: np.random.Generator, horizon: str = "episode") -> float:
    """Play ``state`` (mutated) on with ``policy``; return what ``player`` earned,
    pending rewards included (the shared loop :func:`parlor.agents.episodes.play_until`).

    ``horizon="episode"`` plays to the end of the episode; ``"reward"`` stops after
    the first transition that pays anyone (the settlement that ends the current
    deal or hand in games paying per deal).
    """
    earned = state.take_rewards()
    total = float(earned[player])
    if horizon == "reward":
        paid = bool(np.any(earned))

        def add_until_paid(_state: Any, _mover: int, _action: int, earned: np.ndarray) -> None:
            nonlocal total, paid
            total += float(earned[player])
            paid = bool(np.any(earned))

        play_until(state, lambda s, _p: policy(s, rng), stop=lambda _s: paid, on_step=add_until_paid)
        return total

    def add(_state: Any, _mover: int, _action: int, earned: np.ndarray) -> None:
        nonlocal total
        total += float(earned[player])

    play_until(state, lambda s, _p: policy(s, rng), on_step=add)
    return total


class SearchAgent:
    """Determinized Monte Carlo agent (flat search over the legal actions).

    ``budget``: rollouts per decision (at least one per legal action);
    ``rollout``: a :class:`RolloutPolicy` (default random playouts);
    ``allocation``: ``"halving"`` or ``"uniform"``; ``horizon``: ``"episode"``
    (playouts to the end) or ``"reward"`` (to the next payment: the end of the
    current deal in games that settle every deal).

    ``confidence``: with a policy rollout (e.g. the heuristic), the action the
    policy itself would play here is a candidate that is never pruned, and the
    search leaves it only when the best action beats it, on fresh worlds (a
    quarter of the budget, at least ``MIN_CHECK_WORLDS``), by more than
    ``confidence`` standard errors of
    their paired difference (same worlds, same playout seeds). The best mean
    of many noisy estimates is biased upwards, so this check on fresh worlds
    keeps a small budget from making the agent worse than its playout policy
    by noise alone (rollout policy improvement). ``confidence=0`` switches
    whenever the fresh worlds favour the best action at all.

    ``max_candidates``: with more legal actions than this, only the policy's
    choice and a random sample of the others are searched (for games with
    large action sets and long playouts).

    ``advisor``: the game's advisor (``agents.advisors.advisor_for``); the decisions it
    solves (``solved_action``) are played as solved.
    """

    def __init__(self, game: Game, seed: int | None = None, budget: int = 64,
                 rollout: RolloutPolicy | None = None, allocation: str = "halving",
                 horizon: str = "episode", confidence: float = 1.5, max_candidates: int | None = None,
                 advisor: Advisor | None = None):
        if not isinstance(budget, int) or isinstance(budget, bool) or budget < 1:
            raise ValueError(f"search budget={budget!r} must be a positive integer (rollouts per decision)")
        if allocation not in ALLOCATIONS:
            raise ValueError(f"search allocation={allocation!r}; allowed values: {', '.join(ALLOCATIONS)}")
        if horizon not in HORIZONS:
            raise ValueError(f"search horizon={horizon!r}; allowed values: {', '.join(HORIZONS)}")
        if confidence < 0:
            raise ValueError(f"search confidence={confidence!r} must be >= 0")
        if max_candidates is not None and max_candidates < 2:
            raise ValueError(f"search max_candidates={max_candidates!r} must be >= 2 (or None: every legal action)")
        self.game = game
        self.budget = budget
        self.policy = rollout if rollout is not None else RandomRollout()
        self.allocation = allocation
        self.horizon = horizon
        self.confidence = float(confidence)
        self.max_candidates = max_candidates
        self.advisor = advisor
        self.rng = np.random.default_rng(seed)
        self.policy.reset(seed)
        self.last_values: dict[int, float] = {}

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)
            self.policy.reset(seed)

    def act(self, observation, action_mask, view, sample_world=None) -> int:
        legal = [int(a) for a in legal_actions(action_mask)]
        if not legal:
            raise ValueError("SearchAgent.act: no legal action in the mask")
        solved = solved_action(self.advisor, view) if len(legal) > 1 else None
        if len(legal) == 1 or solved is not None:
            self.last_values = {}
            return legal[0] if solved is None else solved
        if sample_world is None:
            raise ValueError("SearchAgent.act needs sample_world (rng -> State consistent with the view)")
        worlds = iter(range(1 << 62))
        first = sample_world(self.rng)
        default = self._policy_choice(first)
        legal = self._candidates(legal, default)
        values: dict[int, dict[int, float]] = {a: {} for a in legal}  # action -> world index -> return
        budget = self.budget if default is None else max(1, self.budget - self.budget // 4)
        alive = legal
        rounds = 1 if self.allocation == "uniform" else max(1, math.ceil(math.log2(len(legal))))
        for r in range(rounds):
            if r:
                alive = _best_half(alive, values, keep=default)
            for _ in range(max(1, budget // (rounds * len(alive)))):
                world, first = (first, None) if first is not None else (sample_world(self.rng), None)
                self._round(world, next(worlds), alive, values)
        self.last_values = {a: _mean(v) for a, v in values.items()}
        best = min(alive, key=lambda a: (-self.last_values[a], a))
        if default is None or best == default:
            return best
        # the best mean is biased upwards (the maximum of noisy estimates): check it
        # against the policy's own choice on fresh worlds before leaving that choice
        fresh: dict[int, dict[int, float]] = {best: {}, default: {}}
        for _ in range(max(MIN_CHECK_WORLDS, self.budget // 4)):
            self._round(sample_world(self.rng), next(worlds), [best, default], fresh)
        return best if _beats(fresh[best], fresh[default], self.confidence) else default

    def _candidates(self, legal: list[int], default: int | None) -> list[int]:
        """Every legal action, or the policy's choice plus a random sample of the others
        when there are more than ``max_candidates`` (large action sets, costly playouts)."""
        m = self.max_candidates
        if m is None or len(legal) <= m:
            return legal
        others = [a for a in legal if a != default]
        keep = m - 1 if default is not None else m
        picked = sorted(int(a) for a in self.rng.choice(others, size=keep, replace=False))
        return sorted(picked + ([default] if default is not None else []))

    def _policy_choice(self, world: Any) -> int | None:
        """What the playout policy would play here (None for random playouts)."""
        if isinstance(self.policy, RandomRollout):
            return None
        return int(self.policy(world.clone(), self.rng))

    def _round(self, world: Any, index: int, actions: list[int], values: dict) -> None:
        player = world.current_player
        world.take_rewards()  # what was earned before this decision is the same for every action
        seed = int(self.rng.integers(2**63))
        for a in actions:
            child = world.clone()
            child.apply(a)
            values[a][index] = rollout(child, player, self.policy, np.random.default_rng(seed), self.horizon)


def _mean(v: dict[int, float]) -> float:
    return sum(v.values()) / len(v)


def _best_half(alive: list[int], values: dict, keep: int | None) -> list[int]:
    ranked = sorted(alive, key=lambda a: (-_mean(values[a]), a))
    half = ranked[: max(1, math.ceil(len(ranked) / 2))]
    if keep is not None and keep in alive and keep not in half:
        half.append(keep)
    return half


def _beats(challenger: dict[int, float], incumbent: dict[int, float], z: float) -> bool:
    """The challenger's paired advantage (on the worlds both played) exceeds z standard errors."""
    common = sorted(set(challenger) & set(incumbent))
    if not common:
        return False
    diffs = np.array([challenger[w] - incumbent[w] for w in common])
    mean = float(diffs.mean())
    if mean <= 0:
        return False
    if z == 0:
        return True
    if diffs.size < 2:
        return False
    se = float(diffs.std(ddof=1)) / math.sqrt(diffs.size)
    return mean > z * se
