"""Soak run: long random legal play over every registered env and preset, with the
invariants checked as it goes (``parlor soak`` prints it; docs/soak.md has a run).

Every env x preset gets an equal share of the steps and plays seeded episodes through
the AEC adapter (``reset``, ``agent_iter``, ``last``, ``step``) with uniformly random
legal actions. A *step* is one decision (a ``step`` of an agent that must act). Checked:

- at every step: the agent to act has a legal action (non-empty mask); after the step the
  state's conservation checks hold (``State.check_invariants``: cards, tiles, chips) and,
  where the rules say the game is zero-sum (``ZERO_SUM``), the rewards the step paid sum
  to zero (Washizu: to minus the chips a split pot's remainder took out of play, §3.7);
- every ``check_every`` steps: the observation equals ``encode(view)`` of the acting seat;
  a ``clone`` shows every seat the same observation and mask and, given the same action,
  pays the same rewards and shows the same observations afterwards; a ``determinize``
  for the acting seat keeps the conservation checks, his observation and his mask;
- at the end of an episode: every agent is removed.

A violation is the first failed check (or any exception) of an episode; the episode is
abandoned there and the run goes on. Nothing here imports agents or training.
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from parlor import envs

# The envs whose rules make every payment zero-sum, with the rulebook section that says so
# (docs/rules.md); Buffalo Bill's rewards (scores, margins, win/loss) are not.
ZERO_SUM = {
    "ofc_v0": "§1.5",
    "washizu_poker_v0": "§3.7",
    "buki_v0": "§4a.6",
    "pulle_v0": "§4b.6",
    "austrian_dominoes_v0": "§4c.4",
    "tonk_v0": "§5.11",
}
# chips that leave play in a zero-sum game: the rewards of a step sum to minus their growth
LEFT_PLAY: dict[str, Callable[[Any], float]] = {"washizu_poker_v0": lambda state: float(state.removed)}
MAX_MESSAGES = 20  # violation messages kept per case (all are counted)


@dataclass
class CaseReport:
    """What the soak of one env preset did."""

    env_name: str
    preset: str
    steps: int = 0
    episodes: int = 0
    violations: int = 0
    messages: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.env_name}[{self.preset}]"


@dataclass
class SoakReport:
    cases: list[CaseReport]
    seconds: float

    @property
    def steps(self) -> int:
        return sum(c.steps for c in self.cases)

    @property
    def episodes(self) -> int:
        return sum(c.episodes for c in self.cases)

    @property
    def violations(self) -> int:
        return sum(c.violations for c in self.cases)


class Violation(AssertionError):
    """A failed soak check; the message says which and where."""


def env_cases(env_names: Iterable[str] | None = None) -> list[tuple[str, str, dict[str, Any]]]:
    """(env, preset, options) of every preset of the named envs (all registered by default)."""
    names = list(envs.ENVS if env_names is None else env_names)
    return [(name, preset, dict(options)) for name in names for preset, options in envs.load(name).PRESETS.items()]


def soak(total_steps: int, seed: int = 0, env_names: Iterable[str] | None = None, check_every: int = 16,
         on_case: Callable[[CaseReport], None] | None = None) -> SoakReport:
    """Random legal play of about ``total_steps`` steps, split evenly over every env preset;
    ``on_case`` is called with each case's report when it is done."""
    if total_steps < 1 or check_every < 1:
        raise ValueError(f"total_steps={total_steps} and check_every={check_every} must be >= 1")
    cases = env_cases(env_names)
    share = math.ceil(total_steps / len(cases))
    start = time.perf_counter()
    reports = []
    for index, (name, preset, options) in enumerate(cases):
        report = soak_case(name, preset, options, share, seed=seed * 1000 + index, check_every=check_every)
        reports.append(report)
        if on_case is not None:
            on_case(report)
    return SoakReport(reports, time.perf_counter() - start)


def soak_case(env_name: str, preset: str, options: dict[str, Any], steps: int, seed: int = 0,
              check_every: int = 16, make_env: Callable[[], Any] | None = None) -> CaseReport:
    """Episodes of one env preset until ``steps`` steps are played (the last episode is
    played to its end) or ``steps`` episodes were played; episode ``k`` is seeded
    ``seed * 1_000_000 + k``. ``make_env``: the raw env to play instead of the registered
    ``env_name`` with ``options`` (tests)."""
    report = CaseReport(env_name, preset)
    env = make_env() if make_env is not None else envs.make_raw(env_name, **options)
    rng = np.random.default_rng(seed)
    checks = EpisodeChecks(env, env_name in ZERO_SUM, LEFT_PLAY.get(env_name), check_every, rng)
    while report.steps < steps and report.episodes < steps:  # (episodes: ends a run that fails at once)
        episode_seed = seed * 1_000_000 + report.episodes
        try:
            checks.play(episode_seed)
        except Exception as err:  # any failure is a finding to report, not a reason to stop
            report.violations += 1
            if len(report.messages) < MAX_MESSAGES:
                kind = "" if isinstance(err, Violation) else f"{type(err).__name__}: "
                report.messages.append(f"{report.id} seed {episode_seed} step {checks.steps}: {kind}{err}")
        report.steps += checks.steps
        report.episodes += 1
    return report


class EpisodeChecks:
    """Plays one episode at a time on ``env`` with the checks of the module docstring."""

    def __init__(self, env: Any, zero_sum: bool, left_play: Callable[[Any], float] | None, check_every: int,
                 rng: np.random.Generator):
        self.env, self.game = env, env.game
        self.zero_sum, self.left_play, self.check_every, self.rng = zero_sum, left_play, check_every, rng
        self.steps = 0

    def play(self, seed: int) -> None:
        env, rng = self.env, self.rng
        self.steps = 0
        env.reset(seed=seed)
        for agent in env.agent_iter(max_iter=10_000_000):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            if legal.size == 0:
                raise Violation(f"{agent} must act but has no legal action")
            action = int(legal[rng.integers(legal.size)])
            twin = self._check_state(env.state) if self.steps % self.check_every == 0 else None
            left = self.left_play(env.state) if self.left_play is not None else 0.0
            env.step(action)
            self.steps += 1
            env.state.check_invariants()
            if self.zero_sum:
                self._check_zero_sum(self.left_play(env.state) - left if self.left_play is not None else 0.0)
            if twin is not None:
                self._check_twin(twin, action)
        if env.agents:
            raise Violation(f"the episode ended with agents {env.agents} still in")

    def _check_zero_sum(self, left_play: float) -> None:
        paid = list(self.env.rewards.values())
        if abs(math.fsum(paid) + left_play) > 1e-9 * max(1.0, math.fsum(map(abs, paid))):
            raise Violation(f"rewards {paid} do not sum to zero (chips that left play: {left_play:g})")

    def _check_state(self, state: Any) -> Any:
        """Observation == encode(view), determinize keeps the acting seat's view; returns a clone."""
        game, player = self.game, state.current_player
        seen = game.encode(state.view(player))
        if not np.array_equal(game.observe(state, player), seen):
            raise Violation(f"observe(state, {player}) differs from encode(view)")
        world = state.determinize(player, np.random.default_rng(int(self.rng.integers(2**63))))
        world.check_invariants()
        if not np.array_equal(game.encode(world.view(player)), seen):
            raise Violation(f"determinize({player}) changed what seat {player} sees")
        if not np.array_equal(world.legal_mask(), state.legal_mask()):
            raise Violation(f"determinize({player}) changed the legal actions")
        twin = state.clone()
        self._check_same(twin, state, "clone")
        return twin

    def _check_twin(self, twin: Any, action: int) -> None:
        """The clone, given the same action, pays the same and shows the same as the env's state."""
        twin.apply(action)
        paid = [self.env.rewards[a] for a in self.env.possible_agents]
        if twin.take_rewards().tolist() != paid:
            raise Violation(f"a clone paid differently after action {action}")
        self._check_same(twin, self.env.state, f"a clone after action {action}")

    def _check_same(self, twin: Any, state: Any, what: str) -> None:
        game = self.game
        if twin.current_player != state.current_player or twin.is_terminal() != state.is_terminal():
            raise Violation(f"{what} has another player to act or another end")
        for p in range(game.num_players):
            if not np.array_equal(game.encode(twin.view(p)), game.encode(state.view(p))):
                raise Violation(f"{what} shows seat {p} another observation")
        if state.current_player is not None and not np.array_equal(twin.legal_mask(), state.legal_mask()):
            raise Violation(f"{what} has other legal actions")
