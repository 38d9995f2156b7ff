"""The fast share of the harness (tests/tiers.py, tests/harness/cases.py): every preset keeps
a fast case of each episode-playing check, and a shortened preset changes only its length."""
from __future__ import annotations

import re

import pytest

from parlor import envs
from tests.harness.cases import CASES, FAST_TWINS, PLAYED
from tests.tiers import shorter_or_twin

# the options that only say how many deals a match has (each game's max_deals: OFC's hands, Washizu's games)
MATCH_LENGTH = {"max_deals", "num_deals", "num_hands", "num_games"}


def slow(param) -> bool:
    return any(mark.name == "slow" for mark in param.marks)


def test_every_case_plays_whole_in_test_all_and_fast_as_itself_or_its_twin() -> None:
    fast = {p.values[0].id for p in PLAYED if not slow(p)}
    whole = {p.values[0].id for p in PLAYED}
    assert whole >= {c.id for c in CASES}
    for case in CASES:
        twin = FAST_TWINS.get(case.id)
        if twin is None:
            assert case.id in fast
        else:
            assert case.id not in fast and (twin if isinstance(twin, str) else twin.id) in fast


def test_a_shorter_match_changes_only_the_number_of_deals_and_lowers_it() -> None:
    for name, twin in FAST_TWINS.items():
        if isinstance(twin, str):
            continue
        case = next(c for c in CASES if c.id == name)
        changed = {k for k in twin.options if twin.options[k] != case.options.get(k)}
        assert changed and changed <= MATCH_LENGTH, (name, changed)
        config = envs.make_game(case.env_name, **case.options).config
        assert all(twin.options[k] < getattr(config, k) for k in changed), name


def test_a_twin_of_no_case_is_refused() -> None:
    case = CASES[0]
    with pytest.raises(ValueError, match="no_such"):
        shorter_or_twin(CASES, {"no_such[preset]": case})
    with pytest.raises(ValueError, match=re.escape(case.id)):
        shorter_or_twin(CASES, {case.id: "no_such[preset]"})
