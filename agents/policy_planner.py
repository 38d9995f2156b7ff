"""A policy's late turns played by a planner: the network opens, search finishes.

A policy file may carry ``late_planner`` in its header, ``{"agent": SPEC, "turns": N}``:
a planner agent of its env (``agents.registry.PLANNERS``, e.g. OFC's ``expert:16``)
plays every decision of the seat's last ``N`` regular turns of a hand, and the network
plays the others. With ``"shortlist": K`` as well, the network plays no regular turn
alone: on the earlier turns it shortlists its ``K`` most probable placements of the
turn's cards and the planner plays the best of them by its own scoring (a planner that
takes a ``prior``, as OFC's expert does: ``agents.ofc.shortlist``): part of the planner's
judgement at a few per cent of its cost. With ``"samples": [S1, ..., SN]`` the planner
(one with a ``samples`` budget, as the OFC expert) plans the first late turn with ``S1``
samples, ..., the last with ``SN``, and the earlier turns with its spec's own: the budget
goes where a turn's misplays cost most (``parlor bench --ofc-misplays`` shows them by turn).
Planning is cheap where few cards are left: the OFC expert's last turn is exact and the
turns before it are expectimaxes over a few dozen sampled futures, while a network has to
learn every end position from examples. So a distilled network with its last turns planned
is stronger than the network alone at a few milliseconds more a hand
(docs/experiments/ofc_distilled.md). ``parlor shield --late-planner SPEC --late-turns N``
writes it into a copy of a policy; :class:`parlor.agents.policy.PolicyAgent` plays it
wherever the file is loaded, so ``ppo:PATH`` carries it through evaluation workers, Ray
and ``parlor play`` unchanged.

The planner is built with the agent's seed and reseeded with it, so its play depends only
on the views and the seed. A planner tells which turns are late through its
``turns_left(view)``: the seat's regular turns from the current one to the hand's end
(None outside a regular turn), constant within a turn, so a turn is played by one side.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from parlor.envs.engine.game import ConfigError, Game

HEADER_KEY = "late_planner"
MAX_TURNS = 64  # more turns than any hand has: the planner plays every regular turn
MAX_SHORTLIST = 64  # placements a network may shortlist for the planner
MAX_SAMPLES = 1 << 16  # a planner's budget on one late turn (OFC's expert: worlds per turn, its own cap)
KEYS = {"agent", "turns", "shortlist", "samples"}


def late_planner_of(header: Mapping[str, Any]) -> dict[str, Any] | None:
    """The ``late_planner`` setting a policy header records (None for none), its shape checked:
    ``agent`` a spec string and ``turns`` an integer in 1..MAX_TURNS."""
    setting = header.get(HEADER_KEY)
    if setting is None:
        return None
    if not isinstance(setting, Mapping) or not {"agent", "turns"} <= set(setting) <= KEYS:
        raise ConfigError(f"{HEADER_KEY}: expected an object with the keys agent and turns (and optionally "
                          f"shortlist and samples), got {setting!r}")
    return checked_setting(setting["agent"], setting["turns"], setting.get("shortlist"), setting.get("samples"))


def checked_setting(agent: Any, turns: Any, shortlist: Any = None, samples: Any = None) -> dict[str, Any]:
    """``{"agent": agent, "turns": turns}`` (with ``"shortlist"`` and ``"samples"`` unless
    None) if each has the right type and range, else ConfigError."""
    if not isinstance(agent, str) or not agent.strip():
        raise ConfigError(f"{HEADER_KEY}.agent: a planner's spec such as 'expert:16', got {agent!r}")
    if isinstance(turns, bool) or not isinstance(turns, int) or not 1 <= turns <= MAX_TURNS:
        raise ConfigError(f"{HEADER_KEY}.turns: an integer in 1..{MAX_TURNS} (the hand's last turns the "
                          f"planner plays), got {turns!r}")
    setting = {"agent": agent.strip(), "turns": turns}
    if shortlist is not None:
        if isinstance(shortlist, bool) or not isinstance(shortlist, int) or not 1 <= shortlist <= MAX_SHORTLIST:
            raise ConfigError(f"{HEADER_KEY}.shortlist: an integer in 1..{MAX_SHORTLIST} (the network's placements "
                              f"the planner compares on the earlier turns), got {shortlist!r}")
        setting["shortlist"] = shortlist
    if samples is not None:
        setting["samples"] = checked_samples(samples, turns)
    return setting


def checked_samples(samples: Any, turns: int) -> list[int]:
    """The planner's budget on each of the ``turns`` late turns, first to last: a list of
    ``turns`` integers in 1..MAX_SAMPLES, else ConfigError."""
    if (not isinstance(samples, Sequence) or isinstance(samples, str) or len(samples) != turns
            or not all(isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= MAX_SAMPLES for n in samples)):
        raise ConfigError(f"{HEADER_KEY}.samples: a list of {turns} integers in 1..{MAX_SAMPLES} (the planner's "
                          f"samples on each late turn, first to last), got {samples!r}")
    return list(samples)


def check_late_planner(setting: Mapping[str, Any], game: Game) -> None:
    """ConfigError unless ``setting``'s agent is a planner of ``game``'s env that can tell late
    turns (builds it: planners import no torch)."""
    LatePlanner(setting, game)


class LatePlanner:
    """The planner of a ``late_planner`` setting for ``game``, seeded with ``seed``; ``prior``
    (views -> the network's logits for each) is what a shortlist is drawn from."""

    def __init__(self, setting: Mapping[str, Any], game: Game, seed: int | None = None,
                 prior: Callable[[Sequence[Any]], np.ndarray] | None = None):
        from parlor.agents.registry import PLANNERS, make_agent

        setting = checked_setting(setting.get("agent"), setting.get("turns"), setting.get("shortlist"),
                                  setting.get("samples"))
        spec, planners = setting["agent"], PLANNERS.get(game.name, {})
        if spec.partition(":")[0] not in planners:
            raise ConfigError(f"{HEADER_KEY}.agent {spec!r}: not a planner of {game.name}; "
                              f"planners: {', '.join(planners) or 'none'}")
        self.agent = make_agent(spec, game, seed=seed)
        if not callable(getattr(self.agent, "turns_left", None)):
            raise ConfigError(f"{HEADER_KEY}.agent {spec!r} cannot tell a hand's late turns (no turns_left)")
        self.spec, self.turns, self.shortlist = spec, int(setting["turns"]), setting.get("shortlist")
        if self.shortlist is not None and not hasattr(self.agent, "prior"):
            raise ConfigError(f"{HEADER_KEY}.agent {spec!r} cannot plan among a network's shortlist (no prior)")
        self.prior = prior
        # the budget of each late turn, first to last (None: the spec's on every turn), and the
        # spec's own budget, which the earlier (shortlisted) turns keep
        self.samples = setting.get("samples")
        if self.samples is not None and not isinstance(getattr(self.agent, "samples", None), int):
            raise ConfigError(f"{HEADER_KEY}.agent {spec!r} has no budget of samples to set per turn")
        self.base_samples = getattr(self.agent, "samples", None)

    def takes(self, view: Any) -> bool:
        """Whether the planner plays the decision of ``view``: one of the hand's last ``turns``
        regular turns, or with a shortlist any regular turn."""
        left = self.agent.turns_left(view)
        return left is not None and (left <= self.turns or self.shortlist is not None)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: Any) -> int:
        if self.shortlist is None and self.samples is None:  # the planner as its spec has it
            return int(self.agent.act(observation, action_mask, view))
        # set at each decision: constant within a turn, which the planner plans at its first card
        left = self.agent.turns_left(view)
        late = left <= self.turns
        if self.shortlist is not None:
            if self.prior is None:
                raise ValueError(f"{HEADER_KEY}: a shortlist needs the network's prior")
            self.agent.prior = None if late else self.prior
            self.agent.shortlist_size = self.shortlist
        if self.samples is not None:
            self.agent.samples = self.samples[self.turns - left] if late else self.base_samples
        return int(self.agent.act(observation, action_mask, view))

    def reset(self, seed: int | None = None) -> None:
        self.agent.reset(seed)
