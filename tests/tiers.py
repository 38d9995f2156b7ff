"""The two tiers of the test suite: ``make test`` (every test not marked ``slow``) and
``make test-all`` (all of them). docs/testing.md lists what runs only in the second and
which fast test covers it. These helpers split a parametrized check into a fast share and
the rest, so that every check keeps a fast case."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import pytest


def first_share(fast: int) -> list:
    """Parameters for a check whose seeded episodes each stand alone (episode ``i`` plays the
    same whatever the count): ``fast`` (the first ``fast`` episodes) in ``make test``, and
    None (all of them, the test's own count) marked slow, in ``make test-all``."""
    return [pytest.param(fast, id="first"), pytest.param(None, id="all", marks=pytest.mark.slow)]


def examples_share(fast: int, full: int) -> list:
    """Example counts for a Hypothesis property: ``fast`` random examples in ``make test`` and
    ``full``, marked slow, in ``make test-all``. The test takes the count as a parameter and
    runs its property under ``@settings(max_examples=count)`` (the same property, fewer draws)."""
    return [pytest.param(fast, id="few"), pytest.param(full, id="all", marks=pytest.mark.slow)]


def first_of(values: Iterable[Any], fast: int = 1) -> list:
    """``values`` as parameters: the first ``fast`` in ``make test``, the others marked slow,
    for a check of code that is the same for each value (the values differ in what they feed it)."""
    return [pytest.param(v, marks=() if i < fast else pytest.mark.slow) for i, v in enumerate(values)]


def first_preset_of_each_env(cases: list[Any]) -> list:
    """``cases`` as parameters: each env's first preset in ``make test``, the others marked
    slow (``make test-all``), for checks whose cost is per preset and whose code is per env."""
    seen: set[str] = set()
    params = []
    for case in cases:
        params.append(pytest.param(case, id=case.id, marks=() if case.env_name not in seen else pytest.mark.slow))
        seen.add(case.env_name)
    return params


def shorter_or_twin(cases: list[Any], fast: Mapping[str, Any]) -> list:
    """``cases`` as parameters for a check that plays whole episodes of each case. A case whose
    id ``fast`` names runs as itself only in ``make test-all`` (marked slow); in ``make test``
    it runs as ``fast[id]`` when that is a case (the same rules over a shorter match) and not at
    all when it is a string (the id of the fast case that plays the same code, named in
    docs/testing.md). The other cases run as they are in both tiers."""
    ids = {case.id for case in cases}
    unknown = [name for name, twin in fast.items() if name not in ids or (isinstance(twin, str) and twin not in ids)]
    if unknown:
        raise ValueError(f"fast twins of cases that do not exist (or name none): {unknown}")
    params = []
    for case in cases:
        twin = fast.get(case.id)
        if twin is None:
            params.append(pytest.param(case, id=case.id))
            continue
        if not isinstance(twin, str):
            params.append(pytest.param(twin, id=twin.id))
        params.append(pytest.param(case, id=case.id, marks=pytest.mark.slow))
    return params


def fewer_after_first_of_each_env(params: list, fewer: Callable[[Any], Any]) -> list:
    """``params`` (cases, as ``shorter_or_twin`` gives them) for a check that plays a count of
    seeded episodes, each standing alone. In ``make test`` each env's first case plays as it is
    and every other case as ``fewer(case)`` (its first episodes only, id ``<case>-few``); those
    also play as they are, marked slow, in ``make test-all``. Slow params stay as they are."""
    seen: set[str] = set()
    out = []
    for param in params:
        case = param.values[0]
        if any(mark.name == "slow" for mark in param.marks):
            out.append(param)
            continue
        if case.env_name not in seen:  # the env's first case of make test plays in full there
            seen.add(case.env_name)
            out.append(param)
            continue
        out.append(pytest.param(fewer(case), id=f"{param.id}-few"))
        out.append(pytest.param(case, id=param.id, marks=pytest.mark.slow))
    return out
