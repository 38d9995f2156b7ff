"""States as text, game records and the final infos, for every env and preset (issue 24).

Per case, one check of the public harness :mod:`parlor.envs.testing` each: a state
serialized at random points of seeded random play restores to a state that plays on
identically (observations, masks, rewards, end); a recorded episode (random play through
the AEC API) survives JSON and re-simulates exactly; an edited action fails at its step; at
the end of an episode every agent's info carries its statistics and reward.
"""
from __future__ import annotations

import dataclasses

import pytest

from parlor.envs.engine.trace import ReplayError
from parlor.envs.records import Step, replay
from parlor.envs.testing import CHECKS
from parlor.envs.testing.common import random_episode
from tests.harness.cases import CASES, PLAYED, EnvCase

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")
ids = [c.id for c in CASES]


@pytest.mark.parametrize("case", PLAYED)
def test_a_serialized_state_restores_and_plays_on_identically(case: EnvCase) -> None:
    CHECKS["state_text_restores"](case.subject())


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_rewards_not_yet_taken_are_part_of_the_serialized_state(case: EnvCase) -> None:
    CHECKS["pending_rewards_serialize"](case.subject())


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_state_text_errors_name_the_problem(case: EnvCase) -> None:
    CHECKS["state_text_errors"](case.subject())


@pytest.mark.parametrize("case", PLAYED)
def test_a_recorded_episode_survives_json_and_resimulates_exactly(case: EnvCase) -> None:
    CHECKS["record_resimulates"](case.subject())


@pytest.mark.parametrize("case", PLAYED)
def test_an_edited_action_fails_at_its_step(case: EnvCase) -> None:
    why = CHECKS["edited_record_fails"](case.subject())
    if why:
        pytest.skip(why)


@pytest.mark.parametrize("case", PLAYED)
def test_final_infos_carry_each_seats_statistics_and_episode_reward(case: EnvCase) -> None:
    CHECKS["final_infos"](case.subject())


def test_a_record_names_its_steps_and_checks_the_names() -> None:
    case = next(c for c in CASES if c.id == "ofc_v0[default]")
    env, _, _ = random_episode(case.subject(), seed=1)
    record = env.record()
    assert record.steps[0] == Step(0, record.steps[0].action, record.steps[0].name)
    assert record.steps[0].name.startswith("place ") and "next card" not in record.steps[0].name
    renamed = (dataclasses.replace(record.steps[0], name="place A♠ on top"),) + record.steps[1:]
    with pytest.raises(ReplayError, match="step 1: the record names the move 'place A♠ on top'"):
        replay(dataclasses.replace(record, steps=renamed))


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_an_illegal_action_penalty_ends_with_infos_and_an_unfinished_record(case: EnvCase) -> None:
    why = CHECKS["penalty_record"](case.subject())
    if why:
        pytest.skip(why)
