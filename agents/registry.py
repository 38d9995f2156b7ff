"""Agents by name, so tools and configs can say ``random``, ``heuristic``, ``search`` or ``ppo:<zip>``.

Specs understood by :func:`make_agent`. Every table is keyed by the env id, which is also
the game's ``Game.name``: an agent is built from the game alone.

| spec | agent |
|---|---|
| ``random`` | uniform over the legal actions |
| ``heuristic`` | the game's rule-based player (table ``HEURISTICS``) |
| extra names of a game (``EXTRAS``) | e.g. ``always_min`` / ``always_max`` (buki_v0), ``montecarlo`` (buffalo_bill_v0) |
| ``search[:BUDGET[:ROLLOUT[:HORIZON]]]`` | determinized Monte Carlo (:mod:`parlor.agents.search`): BUDGET rollouts per decision, ROLLOUT ``heuristic`` or ``random``, HORIZON ``episode`` or ``reward``; omitted parts take the game's defaults (``SEARCH_DEFAULTS``: a :class:`SearchDefaults` per env); decisions the env's advisor solves (OFC: Fantasyland hands) are played as solved |
| ``expert[:SAMPLES][:fl=VALUE]`` | OFC only: the Monte-Carlo expert (:mod:`parlor.agents.ofc.expert`), SAMPLES sampled worlds per regular turn (default ``agents.ofc.expert.DEFAULT_SAMPLES``), VALUE the points entering or staying in Fantasyland is worth to it (default ``agents.ofc.expert.EXPERT_FL_VALUE``, 11, measured for expert play) |
| ``ppo:PATH.zip`` | a trained policy (:class:`parlor.agents.policy.PolicyAgent`, deterministic; its signature must fit the env; torch is imported only then; decisions the env's advisor solves are played as solved; a late planner in its header plays the hand's last turns, :mod:`parlor.agents.policy_planner`) |
| ``package.module:Class`` | any class with the ``(game, seed=None)`` constructor |

Game modules are imported only when their agent is asked for, so a game that
is missing or broken never stops the others from working.
"""
from __future__ import annotations

import importlib
import inspect
import math
from dataclasses import dataclass
from typing import Any

from parlor.agents.base import RandomAgent
from parlor.envs.engine.game import ConfigError, Game, shown

HEURISTICS: dict[str, str] = {
    "ofc_v0": "parlor.agents.ofc.heuristic:OFCHeuristic",
    "buffalo_bill_v0": "parlor.agents.buffalo_bill.heuristic:BuffaloBillHeuristic",
    "washizu_poker_v0": "parlor.agents.washizu_poker.heuristic:WashizuHeuristic",
    "buki_v0": "parlor.agents.dominoes.heuristic:DominoesHeuristic",
    "pulle_v0": "parlor.agents.dominoes.heuristic:DominoesHeuristic",
    "austrian_dominoes_v0": "parlor.agents.dominoes.heuristic:DominoesHeuristic",
    "tonk_v0": "parlor.agents.tonk.heuristic:TonkHeuristic",
}

EXTRAS: dict[str, dict[str, str]] = {
    "buki_v0": {
        "always_min": "parlor.agents.dominoes.heuristic:AlwaysMinBettor",
        "always_max": "parlor.agents.dominoes.heuristic:AlwaysMaxBettor",
    },
    "buffalo_bill_v0": {"montecarlo": "parlor.agents.buffalo_bill.heuristic:BuffaloBillMonteCarlo"},
}

# agents that plan with a game's own model, by name: ``NAME`` or ``NAME:SAMPLES``
PLANNERS: dict[str, dict[str, str]] = {"ofc_v0": {"expert": "parlor.agents.ofc.expert:OFCExpert"}}

DEFAULT_SEARCH_BUDGET = 64
MAX_SEARCH_BUDGET = 100_000  # rollouts per decision: more would take hours a decision
MAX_PLANNER_SAMPLES = 100_000  # a planner's sampled worlds per turn: the expert's default 128 is ~0.7 s a hand
ROLLOUTS = ("heuristic", "random")
HORIZONS = ("episode", "reward")  # a search plays out to the episode's end or to the next reward


@dataclass(frozen=True)
class SearchDefaults:
    """Plain ``search`` of one game: ``budget`` rollouts per decision, played out by the
    ``rollout`` policy to the ``horizon`` (``episode``, or ``reward``: the next reward), over at
    most ``max_candidates`` legal actions (None: all of them)."""

    budget: int = DEFAULT_SEARCH_BUDGET
    rollout: str = "heuristic"
    horizon: str = "episode"
    max_candidates: int | None = None

    def __post_init__(self) -> None:
        if isinstance(self.budget, bool) or not isinstance(self.budget, int) or not 1 <= self.budget <= MAX_SEARCH_BUDGET:
            raise ConfigError(f"search budget {shown(self.budget)}: an integer in 1..{MAX_SEARCH_BUDGET:,} "
                              f"(rollouts per decision)")
        if self.rollout not in ROLLOUTS:
            raise ConfigError(f"search rollout {shown(self.rollout)}; allowed values: {', '.join(ROLLOUTS)}")
        if self.horizon not in HORIZONS:
            raise ConfigError(f"search horizon {shown(self.horizon)}; allowed values: {', '.join(HORIZONS)}")
        candidates = self.max_candidates
        if candidates is not None and (isinstance(candidates, bool) or not isinstance(candidates, int) or candidates < 1):
            raise ConfigError(f"search max_candidates {shown(candidates)}: None or an integer >= 1")


# plain ``search`` per game, chosen so an evaluation against the heuristic stays within
# minutes on one core
SEARCH_DEFAULTS: dict[str, SearchDefaults] = {
    "ofc_v0": SearchDefaults(8),
    "buffalo_bill_v0": SearchDefaults(8, max_candidates=4),    # up to 40 actions, 9-round playouts
    "washizu_poker_v0": SearchDefaults(16, max_candidates=8),
    "buki_v0": SearchDefaults(6, horizon="reward"),            # bets settle every deal: play out the deal
    "pulle_v0": SearchDefaults(4),                             # pays only at the end: long playouts
    "austrian_dominoes_v0": SearchDefaults(16),
    "tonk_v0": SearchDefaults(16),
}


def register_agents(env_name: str, *, heuristic: str | None = None,
                    search: SearchDefaults | tuple[int, str, str, int | None] | None = None,
                    extras: dict[str, str] | None = None) -> None:
    """Name the agents of a game from another package (docs/adding_a_game.md): its
    ``heuristic`` and ``extras`` (name -> ``"package.module:Class"``, imported only when
    asked for) and plain ``search``'s defaults (a :class:`SearchDefaults`, or its fields as a
    tuple: budget, rollout, horizon, max candidates). Call it in the game's entry module: the
    registry imports that module for such a game."""
    if search is not None:
        try:
            defaults = search if isinstance(search, SearchDefaults) else SearchDefaults(*search)
        except (TypeError, ValueError) as err:
            raise ConfigError(f"search defaults of {env_name}: {err}") from None
        SEARCH_DEFAULTS[env_name] = defaults
    if heuristic is not None:
        HEURISTICS[env_name] = heuristic
    if extras:
        EXTRAS.setdefault(env_name, {}).update(extras)


def _load_external(env_name: str | None) -> None:
    """A game registered from another package names its agents in its entry module: import it."""
    from parlor import envs

    if env_name is not None and env_name not in envs.BUILTIN and env_name in envs.EXTERNAL:
        envs.load(env_name)


def resolve(target: str) -> type:
    """``"package.module:Class"`` -> the class (imported now). A name that is not of that form
    or not a class is a ConfigError."""
    module_name, _, attr = target.partition(":")
    if not module_name or not attr:
        raise ConfigError(f"{target!r} is not of the form 'package.module:Class'")
    module = importlib.import_module(module_name)
    try:
        found = getattr(module, attr)
    except AttributeError:
        raise ConfigError(f"agent {target!r}: module {module_name!r} has no {attr!r}") from None
    if not inspect.isclass(found):
        raise ConfigError(f"{target!r} is a {type(found).__name__}, not a class")
    return found


def agent_names(env_name: str | None = None) -> list[str]:
    """Agent names usable for ``env_name``; without one, every name (extras tagged with their env)."""
    if env_name is None:
        extras = [f"{name} ({env})" for env, named in EXTRAS.items() for name in named]
        planners = [f"{name} ({env})" for env, named in PLANNERS.items() for name in named]
        return ["random", "heuristic", "search", "ppo:<zip>", *extras, *planners]
    names = ["random"]
    _load_external(env_name)
    if env_name in HEURISTICS:
        names.append("heuristic")
    names += list(EXTRAS.get(env_name, {}))
    names += list(PLANNERS.get(env_name, {}))
    names += ["search", "ppo:<zip>"]
    return names


def make_agent(spec: str, game: Game, seed: int | None = None) -> Any:
    """Build the agent named by ``spec`` for ``game`` (see the module table), looked up by its
    env id ``game.name``."""
    env_name = game.name
    _load_external(env_name)
    spec = spec.strip()
    if spec == "random":
        return RandomAgent(game, seed=seed)
    if spec.startswith("ppo:"):
        from parlor.agents.policy import PolicyAgent

        return PolicyAgent.from_file(spec[len("ppo:"):], game, seed=seed)
    if spec == "search" or spec.startswith("search:"):
        return _make_search(spec, game, env_name, seed)
    planner = spec.partition(":")[0]
    if planner in PLANNERS.get(env_name, {}):
        return _make_planner(spec, PLANNERS[env_name][planner], game, seed)
    named = dict(EXTRAS.get(env_name, {}))
    if env_name in HEURISTICS:
        named["heuristic"] = HEURISTICS[env_name]
    if spec in named:
        return resolve(named[spec])(game, seed=seed)
    if ":" in spec and "." in spec.partition(":")[0]:
        cls = _user_class(spec)
        if not callable(getattr(cls, "act", None)):
            raise ConfigError(f"agent {spec!r} is not an agent class (a class with act(observation, action_mask) "
                              "and the constructor (game, seed=None))")
        return cls(game, seed=seed)
    raise ConfigError(
        f"unknown agent {spec!r} for {env_name}; available: "
        f"{', '.join(agent_names(env_name))}, search:BUDGET[:ROLLOUT], package.module:Class"
    )


def _make_planner(spec: str, target: str, game: Game, seed: int | None) -> Any:
    """``NAME[:SAMPLES][:fl=VALUE]`` of :data:`PLANNERS`: SAMPLES an integer in
    1..MAX_PLANNER_SAMPLES, VALUE the points a Fantasyland hand is worth to the planner."""
    name, *parts = spec.split(":")
    kwargs: dict[str, Any] = {}
    for i, part in enumerate(parts):
        key, eq, value = part.partition("=")
        if not eq:
            if i or not (part.isascii() and part.isdigit()) or not 1 <= int(part) <= MAX_PLANNER_SAMPLES:
                raise ConfigError(f"bad {name} budget {part[:40]!r} in {spec[:80]!r}: an integer in "
                                  f"1..{MAX_PLANNER_SAMPLES:,} (sampled worlds per turn) right after {name}, "
                                  f"e.g. {name}:64 or {name}:64:fl=11")
            kwargs["samples"] = int(part)
        elif key == "fl" and "fl_value" not in kwargs:
            kwargs["fl_value"] = _fl_value(name, value, spec)
        else:
            raise ConfigError(f"bad {name} option {part[:40]!r} in {spec[:80]!r}; allowed: fl=VALUE (once), "
                              f"e.g. {name}:fl=11")
    planner = resolve(target)
    try:
        return planner(game, seed=seed, **kwargs)
    except ValueError as err:  # the planner's own check of a value (e.g. the range of fl)
        raise ConfigError(f"bad {name} spec {spec[:80]!r}: {err}") from None


def _fl_value(name: str, text: str, spec: str) -> float:
    """The points of ``fl=VALUE``, a finite number (the planner checks its range)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not math.isfinite(value):
        raise ConfigError(f"bad {name} fl={text[:40]!r} in {spec[:80]!r}: the points a Fantasyland hand is worth, "
                          f"a number, e.g. {name}:fl=11")
    return value


def check_agent(spec: str, game: Game) -> None:
    """Fail as :func:`make_agent` would for ``spec``, building nothing heavy: a policy is
    checked without torch (:func:`parlor.agents.policy.check_policy`), so a process that only
    plans (an evaluation's parent) can fork workers that never inherit torch."""
    if spec.strip().startswith("ppo:"):
        from parlor.agents.policy import check_policy

        check_policy(spec.strip()[len("ppo:"):], game)
        return
    make_agent(spec, game)


def _user_class(spec: str) -> type:
    """The class a user named: a module that is not there is a ConfigError (a module that
    the named one imports and is missing, an extra or a bug, stays an ImportError)."""
    module_name = spec.partition(":")[0]
    try:
        return resolve(spec)
    except ModuleNotFoundError as err:
        if err.name is None or not (module_name == err.name or module_name.startswith(err.name + ".")):
            raise
        raise ConfigError(f"agent {spec!r}: no module named {err.name!r} (package.module:Class must be "
                          "importable)") from None


def search_defaults(env_name: str) -> SearchDefaults:
    """The defaults of plain ``search`` for ``env_name``."""
    _load_external(env_name)
    rollout = "heuristic" if env_name in HEURISTICS else "random"
    return SEARCH_DEFAULTS.get(env_name, SearchDefaults(rollout=rollout))


def _make_search(spec: str, game: Game, env_name: str, seed: int | None) -> Any:
    from parlor.agents.advisors import advisor_for
    from parlor.agents.search import AgentRollout, SearchAgent

    parts = spec.split(":")
    if len(parts) > 4:
        raise ConfigError(f"bad search spec {spec!r}; use search[:BUDGET[:ROLLOUT[:HORIZON]]], e.g. search:64:heuristic")
    defaults = search_defaults(env_name)
    budget, rollout, horizon = defaults.budget, defaults.rollout, defaults.horizon
    if len(parts) > 1 and parts[1]:
        if not (parts[1].isascii() and parts[1].isdigit()) or not 1 <= int(parts[1]) <= MAX_SEARCH_BUDGET:
            raise ConfigError(f"bad search budget {parts[1][:40]!r} in {spec[:80]!r}: an integer in "
                              f"1..{MAX_SEARCH_BUDGET:,} (rollouts per decision)")
        budget = int(parts[1])
    if len(parts) > 2 and parts[2]:
        rollout = parts[2]
    if len(parts) > 3 and parts[3]:
        horizon = parts[3]
    if rollout not in ROLLOUTS:
        raise ConfigError(f"bad search rollout {rollout!r} in {spec!r}; allowed values: {', '.join(ROLLOUTS)}")
    if horizon not in HORIZONS:
        raise ConfigError(f"bad search horizon {horizon!r} in {spec!r}; allowed values: {', '.join(HORIZONS)}")
    policy = None
    if rollout == "heuristic":
        if env_name not in HEURISTICS:
            raise ConfigError(f"{env_name} has no heuristic agent for search rollouts; use search:{budget}:random")
        cls = resolve(HEURISTICS[env_name])
        # the game heuristics read only the view (DESIGN.md), so playouts skip encoding
        policy = AgentRollout(game, lambda s: cls(game, seed=s), name="heuristic", encode=False)
    return SearchAgent(game, seed=seed, budget=budget, rollout=policy, horizon=horizon,
                       max_candidates=defaults.max_candidates, advisor=advisor_for(game))
