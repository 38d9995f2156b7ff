"""The fast share of the harness (tests/tiers.py, tests/harness/cases.py): every preset keeps
a fast case of each episode-playing check, and a shortened preset changes only its length."""
from __future__ import annotations

import re

import pytest

from parlor import envs
from tests.harness.cases import CASES, EPISODES_PLAYED, FAST_TWINS, FEW_EPISODES, PLAYED
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


def test_the_episode_checks_play_each_envs_first_case_in_full_and_the_rest_in_part_in_make_test() -> None:
    """No-leak and clone (EPISODES_PLAYED): in make test each env's first case plays its full
    count and every other case FEW_EPISODES; make test-all plays every case in full."""
    fast = [p.values[0] for p in EPISODES_PLAYED if not slow(p)]
    assert [c.id for c in fast] == [p.values[0].id for p in PLAYED if not slow(p)]  # the same cases
    firsts = {}
    for case in fast:
        firsts.setdefault(case.env_name, case)
    assert set(firsts) == {c.env_name for c in CASES}
    for case in fast:
        assert case.episodes == (None if firsts[case.env_name] is case else FEW_EPISODES), case.id
    # make test-all: every case of either tier in full (None: the checks' own count), ids unique
    full = {p.values[0].id for p in EPISODES_PLAYED if p.values[0].episodes is None}
    assert full >= {c.id for c in CASES} | {c.id for c in fast}
    ids = [p.id for p in EPISODES_PLAYED]
    assert len(ids) == len(set(ids))
    assert FEW_EPISODES < 5
