"""The advisor registry (agents.advisors): found by env name, typed, and the guard checks."""
from __future__ import annotations

import numpy as np
import pytest

from parlor import envs
from parlor.agents.advisors import ADVISORS, Advisor, advisor_for, check_guard, check_tolerances, guarded
from parlor.agents.ofc.advisor import OFCAdvisor
from parlor.envs.engine.game import ConfigError


def test_ofc_has_an_advisor_whose_guards_and_estimators_follow_the_options() -> None:
    assert set(ADVISORS) <= set(envs.ENVS)
    plain = advisor_for(envs.make_game("ofc_v0"))
    assert isinstance(plain, OFCAdvisor) and isinstance(plain, Advisor)
    assert plain.guarded_stats == () and plain.estimated_stats == ("foul",)
    rich = advisor_for(envs.make_game("ofc_v0", variant="pineapple", features=True))
    assert rich.guarded_stats == ("foul", "opening_foul", "foul_cap", "endgame_foul", "midgame_foul")
    assert rich.estimated_stats == ("foul", "foul:endgame")
    assert advisor_for(envs.make_game("ofc_v0", variant="pineapple")).guarded_stats == (
        "endgame_foul", "midgame_foul")


@pytest.mark.parametrize("env_name", sorted(set(envs.ENVS) - set(ADVISORS)))
def test_other_envs_have_no_advisor_and_no_guard(env_name: str) -> None:
    advisor = advisor_for(envs.make_game(env_name))
    assert advisor is None
    check_guard(advisor, {}, env_name)  # no guard: nothing to check
    with pytest.raises(ConfigError, match=f"{env_name} cannot guard 'foul'.*allowed values: none"):
        check_guard(advisor, {"foul": 0.0}, env_name)
    mask = np.array([True, False])
    assert guarded(advisor, np.zeros(1), mask, {}) is mask


def test_guard_names_and_tolerances_are_checked() -> None:
    advisor = advisor_for(envs.make_game("ofc_v0", variant="pineapple"))
    check_guard(advisor, {"endgame_foul": 0.0, "midgame_foul": 0.02}, "ofc_v0")
    with pytest.raises(ConfigError, match="ofc_v0 cannot guard 'foul'.*allowed values: endgame_foul, midgame_foul$"):
        check_guard(advisor, {"foul": 0.0}, "ofc_v0")
    with pytest.raises(ConfigError, match="action_guard.endgame_foul"):
        check_guard(advisor, {"endgame_foul": -0.1}, "ofc_v0")
    with pytest.raises(ConfigError, match="action_guard.foul"):
        check_tolerances({"foul": "high"})
