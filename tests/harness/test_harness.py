"""The generic harness every environment must pass (DESIGN.md, issue 2).

Parametrized over every registered env and each of its PRESETS, each test runs one check
of the public harness :mod:`parlor.envs.testing` (what ``check_env`` runs for a user's
game): PettingZoo's api_test and seed_test, random masked playouts with the game's
invariants, no-leak via determinize, clone replay, illegal actions and bad options.
"""
from __future__ import annotations

from dataclasses import replace

import pytest

from parlor.envs.engine.game import IllegalActionError
from parlor.envs.testing import CHECKS
from tests.harness.cases import CASES, EPISODES_PLAYED, PLAYED, EnvCase
from tests.tiers import first_preset_of_each_env, first_share

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")
ids = [c.id for c in CASES]


@pytest.mark.parametrize("case", PLAYED)
def test_pettingzoo_api(case: EnvCase) -> None:
    CHECKS["pettingzoo_api"](case.subject())


@pytest.mark.parametrize("case", PLAYED)
def test_seed_gives_identical_games(case: EnvCase) -> None:
    CHECKS["seed"](case.subject())


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_game_and_state_declare_every_member_of_the_engine_protocol(case: EnvCase) -> None:
    CHECKS["protocol"](case.subject())


@pytest.mark.parametrize("playouts", first_share(5))  # make test: the first 5 playouts of each case
@pytest.mark.parametrize("case", CASES, ids=ids)
def test_random_playouts_keep_invariants(case: EnvCase, playouts: int | None) -> None:
    case = case if playouts is None else replace(case, playouts=playouts)
    CHECKS["random_playouts"](case.subject())


@pytest.mark.parametrize("case", EPISODES_PLAYED)  # make test: 2 episodes past each env's first case
def test_no_leak_determinize_keeps_each_players_view_and_redeals_what_he_cannot_see(case: EnvCase) -> None:
    """What each game hides comes from tests/harness/hidden.py (docs/rules.md's Information
    sections), so a ``determinize`` that returns the true state fails here."""
    CHECKS["no_leak"](case.subject())


@pytest.mark.parametrize("case", EPISODES_PLAYED)  # make test: 2 episodes past each env's first case
def test_clone_plays_on_identically(case: EnvCase) -> None:
    CHECKS["clone"](case.subject())


@pytest.mark.parametrize("case", PLAYED)
def test_env_pickles_and_deep_copies_and_the_copy_plays_on_identically(case: EnvCase) -> None:
    CHECKS["pickle"](case.subject())


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_illegal_action_raises_naming_legal_actions(case: EnvCase) -> None:
    CHECKS["illegal_action_raises"](case.subject())
    assert issubclass(IllegalActionError, ValueError)


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_illegal_action_penalty_option_ends_episode(case: EnvCase) -> None:
    CHECKS["illegal_action_penalty"](case.subject())


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_unknown_option_names_allowed_fields(case: EnvCase) -> None:
    CHECKS["unknown_option"](case.subject())


# make test: each env's first preset (every preset has the same option fields; the others, slow, vary the
# options set beside the bad one)
@pytest.mark.parametrize("case", first_preset_of_each_env(CASES))
def test_every_option_refuses_bad_values_with_config_error(case: EnvCase) -> None:
    CHECKS["bad_option_values"](case.subject())


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_render_ansi_returns_text(case: EnvCase) -> None:
    CHECKS["render_ansi"](case.subject())


@pytest.mark.parametrize("case", PLAYED)
def test_presenter_has_the_base_signatures_and_words_every_view(case: EnvCase) -> None:
    CHECKS["presenter"](case.subject())


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_bad_stacked_deck_raises(case: EnvCase) -> None:
    CHECKS["bad_stacked_deck"](case.subject())


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_sampled_deck_replays_the_same_deal_whatever_the_seed(case: EnvCase) -> None:
    CHECKS["sampled_deck"](case.subject())
