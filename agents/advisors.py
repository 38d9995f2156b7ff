"""Advisors: what training and play know about a game beyond its rules, found by its env id.

A game (``parlor.envs``) holds rules, views and observations only. Knowledge that
helps a learner but is no rule lives here, per game: action guards (the actions a
tolerance finds too risky leave the mask: a safety shield a policy is trained and
played inside) and estimators of a statistic during an episode (the potential of
potential-based reward shaping) and decisions an exact solver takes better than any
learner (``solved_action``: OFC's Fantasyland hands). :func:`advisor_for` builds the advisor of a
game, looked up by its env id ``Game.name`` (None for an env without one); ``ADVISORS`` lists them:

| env | advisor | guards | estimators | solved decisions |
|---|---|---|---|---|
| ``ofc_v0`` | :class:`agents.ofc.advisor.OFCAdvisor` | ``foul``, ``opening_foul``, ``foul_cap`` (``features=True``), ``endgame_foul``, ``midgame_foul`` (Pineapple) | ``foul``, ``foul:endgame`` (Pineapple) | Fantasyland hands (the exact solver) |

Callers: ``agents.policy.PolicyAgent`` (a policy's guard; ``agents.policy.shield_policy``
checks a guard before writing it; solved decisions), ``agents.search.SearchAgent``
(solved decisions), ``training.learning.wrapper.SingleAgentEnv`` (``action_guard``,
``shaping_mode: potential``; the learner's solved decisions are played for it),
``parlor shield``.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from parlor.agents.registry import resolve
from parlor.envs.engine.config import check_number
from parlor.envs.engine.game import ConfigError, Game, State

ADVISORS: dict[str, str] = {  # env id (Game.name) -> "module:Class", built with (game); imported when asked for
    "ofc_v0": "parlor.agents.ofc.advisor:OFCAdvisor",
}


@runtime_checkable
class Advisor(Protocol):
    """The guards and estimators of one game (with fixed options)."""

    guarded_stats: tuple[str, ...]    # the tolerances guarded_mask reads (may be empty)
    estimated_stats: tuple[str, ...]  # the State.stats() entries (or STAT:ESTIMATOR) stat_estimates predicts

    def guarded_mask(self, observation: np.ndarray, mask: np.ndarray, guard: Mapping[str, float],
                     view: Any = None) -> np.ndarray:
        """``mask`` (bool[num_actions]) without the actions ``guard`` finds too risky; the action
        of lowest risk always stays. ``observation`` and ``view`` are the acting seat's."""

    def first_kept(self, observation: np.ndarray, mask: np.ndarray, guard: Mapping[str, float],
                   view: Any, order: Sequence[int]) -> int:
        """The first action of ``order`` (legal actions, most preferred first) that
        ``guarded_mask`` keeps, judging no more than that needs (a deterministic policy's
        choice inside its guard)."""

    def stat_estimates(self, state: State, player: int,
                       names: Sequence[str] = ...) -> dict[str, float | None]:
        """Per name in ``names`` (from ``estimated_stats``), ``player``'s statistic as
        ``state.stats()`` will report it at the episode's end, expected from what the seat
        knows now; None where the estimator does not judge this decision."""

    def solved_action(self, view: Any) -> int | None:
        """The action an exact solver takes at this decision of the seat of ``view`` (the
        acting seat's), or None when the decision is the agent's own."""


def solved_action(advisor: Advisor | None, view: Any) -> int | None:
    """``advisor``'s solved action for ``view`` (None without an advisor or a solution)."""
    return None if advisor is None else advisor.solved_action(view)


def first_guarded(advisor: Advisor | None, observation: np.ndarray, mask: np.ndarray, guard: Mapping[str, float],
                  view: Any, order: Sequence[int]) -> int:
    """The first action of ``order`` that :func:`guarded` keeps (the first legal one
    without a guard)."""
    if guard:
        assert advisor is not None  # check_guard refuses a guard without an advisor
        return advisor.first_kept(observation, mask, guard, view, order)
    return next(a for a in order if mask[a])


def advisor_for(game: Game) -> Advisor | None:
    """The advisor of ``game``'s env (its ``Game.name``) for ``game`` (a new one: it may
    memoise per decision), or None when the env has none."""
    target = ADVISORS.get(game.name)
    return None if target is None else resolve(target)(game)


def check_tolerances(guard: Mapping[str, float]) -> None:
    """Every tolerance of a guard is a number >= 0."""
    for name, tolerance in guard.items():
        check_number(f"action_guard.{name}", tolerance, 0.0)


def check_guard(advisor: Advisor | None, guard: Mapping[str, float], env_name: str) -> None:
    """A guard may only name the tolerances the env's advisor reads (``guarded_stats``),
    each a number >= 0."""
    allowed = advisor.guarded_stats if advisor is not None else ()
    for name in guard:
        if name not in allowed:
            raise ConfigError(f"action_guard: {env_name} cannot guard {name!r} (with these options); allowed "
                              f"values: {', '.join(allowed) or 'none'}")
    check_tolerances(guard)


def guarded(advisor: Advisor | None, observation: np.ndarray, mask: np.ndarray, guard: Mapping[str, float],
            view: Any = None) -> np.ndarray:
    """``mask`` narrowed by the advisor's ``guarded_mask`` (unchanged without a guard; a
    guard passed :func:`check_guard`, so there is an advisor)."""
    if not guard:
        return mask
    assert advisor is not None  # check_guard refuses a guard without an advisor
    return advisor.guarded_mask(observation, mask, guard, view=view)
