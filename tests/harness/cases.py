"""The environments the harness runs: every registered env with each of its PRESETS,
plus the test-only Kuhn game (so the adapter is exercised whatever has landed)."""
from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from parlor import envs
from parlor.envs.aec import entry_points
from parlor.envs.testing import Subject
from tests.harness import kuhn
from tests.harness.hidden import hidden as hidden_of

KUHN_ENV, KUHN_RAW_ENV = entry_points("kuhn_test", kuhn.make_game)


@dataclass(frozen=True)
class EnvCase:
    env_name: str
    preset: str
    options: dict[str, Any]
    env_fn: Callable[..., Any]
    raw_env_fn: Callable[..., Any]
    playouts: int | None = None   # at most this many random playouts (None: its share, playouts_per_case)

    @property
    def id(self) -> str:
        return f"{self.env_name}[{self.preset}]"

    def make(self, **extra):
        return self.env_fn(**self.options, **extra)

    def make_raw(self, **extra):
        return self.raw_env_fn(**self.options, **extra)

    def subject(self) -> Subject:
        """This case for the checks of :mod:`parlor.envs.testing`, with where its game hides
        cards (tests/harness/hidden.py) and its share of the random playouts."""
        hidden = functools.partial(hidden_of, self.env_name)
        share = playouts_per_case(self)
        return Subject(self.env_fn, dict(self.options), hidden, share if self.playouts is None else min(self.playouts, share),
                       self.id)


def all_cases() -> list[EnvCase]:
    cases = [EnvCase("kuhn_test", "default", {}, KUHN_ENV, KUHN_RAW_ENV)]
    for name in envs.ENVS:
        module = envs.load(name)
        for preset, options in module.PRESETS.items():
            cases.append(EnvCase(name, preset, dict(options), module.env, module.raw_env))
    return cases


CASES = all_cases()


def playouts_per_case(case: EnvCase, total: int = 200) -> int:
    """Split ``total`` random playouts per env over its presets (at least 20 each)."""
    presets = sum(1 for c in CASES if c.env_name == case.env_name)
    return max(20, -(-total // presets))

