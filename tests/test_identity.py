"""One identity: the env id (``ofc_v0``, ``tonk_v0``, ...) is every game's one name.

The env's metadata, ``Game.name``, records, state texts, the agent registry and the
advisors all say the env id; ``envs.make_game`` builds the Game without the AEC adapter;
the training wrapper deals and punishes illegal actions with the adapter's own code.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from parlor import envs
from parlor.agents import advisors, registry
from parlor.envs import aec
from parlor.envs.engine.game import ConfigError, IllegalActionError
from parlor.envs.engine.trace import OLD_GAME_NAMES
from parlor.training.learning import wrapper as wrapper_module
from parlor.training.learning.opponents import PoolEntry
from parlor.training.learning.wrapper import SingleAgentEnv, make_env_game
from tests.harness import kuhn
from tests.harness.hidden import HIDDEN
from tests.training.scripted import LEDGER_RAW_ENV, FixedAgent, register

register()


@pytest.mark.parametrize("name", envs.ENVS)
def test_the_env_id_is_the_name_of_the_env_its_game_records_and_state_texts(name: str) -> None:
    env = envs.make_raw(name)
    env.reset(seed=3)
    assert env.metadata["name"] == env.game.name == envs.make_game(name).name == name
    assert env.record().env == name
    assert json.loads(env.game.serialize_state(env.state))["game"] == name


def test_the_agent_and_advisor_tables_are_keyed_by_env_ids() -> None:
    for table in (registry.HEURISTICS, registry.SEARCH_DEFAULTS, registry.EXTRAS, registry.PLANNERS,
                  advisors.ADVISORS):
        assert set(table) <= set(envs.ENVS), table
    assert set(envs.ENVS) <= set(HIDDEN) and set(envs.ENVS) <= set(registry.SEARCH_DEFAULTS)
    assert all(isinstance(d, registry.SearchDefaults) for d in registry.SEARCH_DEFAULTS.values())


@pytest.mark.parametrize("name", envs.ENVS)
def test_agents_and_advisors_are_found_from_the_game_alone(name: str) -> None:
    game = envs.make_game(name)
    heuristic = registry.make_agent("heuristic", game, seed=0)
    assert f"{type(heuristic).__module__}:{type(heuristic).__name__}" == registry.HEURISTICS[name]
    search = registry.make_agent("search", game, seed=0)
    assert (search.budget, search.horizon) == (registry.SEARCH_DEFAULTS[name].budget,
                                               registry.SEARCH_DEFAULTS[name].horizon)
    advisor = advisors.advisor_for(game)
    assert (advisor is None) == (name not in advisors.ADVISORS)
    if advisor is not None:
        assert f"{type(advisor).__module__}:{type(advisor).__name__}" == advisors.ADVISORS[name]


def test_the_same_game_under_another_name_gets_that_names_agents() -> None:
    game = kuhn.make_game()
    assert "heuristic" not in registry.agent_names(game.name)
    game.name = "tonk_v0"  # looked up by Game.name, nothing else
    with pytest.raises(ConfigError, match="unknown agent 'genius' for tonk_v0; available: random, heuristic"):
        registry.make_agent("genius", game)


@pytest.mark.parametrize("old,name", sorted(OLD_GAME_NAMES.items()))
def test_state_texts_written_with_the_old_game_names_still_load(old: str, name: str) -> None:
    game = envs.make_game(name)
    state = game.new_state(np.random.default_rng(5))
    text = json.loads(game.serialize_state(state))
    text["game"] = old
    again = game.deserialize_state(json.dumps(text))
    assert game.serialize_state(again) == game.serialize_state(state)
    other = envs.make_game("tonk_v0")
    with pytest.raises(ConfigError, match=f"a state of '{old}', not of 'tonk_v0'"):
        other.deserialize_state(json.dumps({**text, "options": {}}))


def _no_adapter(*args, **kwargs):
    raise AssertionError("a TableEnv was built")


@pytest.mark.parametrize("name", envs.ENVS)
def test_make_game_builds_no_adapter(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setattr(aec.TableEnv, "__init__", _no_adapter)
    assert envs.make_game(name).name == name
    with pytest.raises(AssertionError, match="a TableEnv was built"):
        envs.make_raw(name)  # the patch does bite


def test_make_game_refuses_adapter_options_and_a_game_named_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError, match="render_mode"):
        envs.make_game("tonk_v0", render_mode="ansi")
    module = envs.load("tonk_v0")
    monkeypatch.setattr(module, "make_game", lambda **options: kuhn.make_game())
    with pytest.raises(ConfigError, match="the game of env 'tonk_v0' is named 'kuhn_test': Game.name must be the env id"):
        envs.make_game("tonk_v0")
    monkeypatch.delattr(module, "make_game")
    with pytest.raises(ConfigError, match="entry module parlor.envs.tonk_v0 of env 'tonk_v0' has no make_game"):
        envs.make_game("tonk_v0")
    monkeypatch.setitem(wrapper_module._EXTRA_GAMES, "misnamed_test", kuhn.make_game)
    with pytest.raises(ConfigError, match="the game of env 'misnamed_test' is named 'kuhn_test'"):
        make_env_game("misnamed_test")


# ---------------------------------------------------------------- the training wrapper
def _wrapper(**options) -> SingleAgentEnv:
    return SingleAgentEnv("ledger_test", {"rounds": 3, **options}, opponents=[PoolEntry("fixed")],
                          agent_factories={"fixed": FixedAgent}, learner_seats=[0], seed=0)


def test_the_wrapper_plays_without_an_adapter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(aec.TableEnv, "__init__", _no_adapter)
    env = _wrapper()
    env.reset(seed=1)
    _, reward, *_ = env.step(0)
    assert reward == 0 - 20  # own move +0, the fixed opponent's reply costs 10 * 2


@pytest.mark.parametrize("illegal", [1, None])
def test_the_wrapper_and_the_adapter_pay_the_same_penalty(illegal: int | None) -> None:
    table = LEDGER_RAW_ENV(rounds=3, illegal_action="penalty", illegal_reward=-7.5)
    table.reset(seed=0)
    table.step(illegal)  # seat 0's first turn: only even actions
    wrapper = _wrapper(illegal_action="penalty", illegal_reward=-7.5)
    wrapper.reset(seed=0)
    _, reward, terminated, _, info = wrapper.step(illegal)
    assert table.illegal == wrapper.illegal == aec.IllegalActions("penalty", -7.5)
    assert reward == table.rewards["player_0"] == -7.5
    assert terminated and all(table.terminations.values())
    assert info["illegal_action"] is table.infos["player_0"]["illegal_action"] is True


def test_the_wrapper_and_the_adapter_raise_the_same_error_and_read_decks_alike() -> None:
    table = aec.TableEnv(make_env_game("kuhn_test"))
    wrapper = SingleAgentEnv("kuhn_test", opponents=[PoolEntry("random")], seed=0)
    for env in (table, wrapper):
        with pytest.raises(ConfigError, match=r"options\['deck'\]: stacked deck must hold J, Q and K exactly once"):
            env.reset(seed=0, options={"deck": "J J Q"})
        with pytest.raises(ConfigError, match="unknown reset option"):
            env.reset(seed=0, options={"shuffle": True})
    table.reset(seed=0, options={"deck": "K J Q"})
    wrapper.reset(seed=0, options={"learner_seat": 0, "deck": "K J Q"})
    assert table.state.view(0) == wrapper.state.view(0)
    errors = []
    for env in (table, wrapper):
        with pytest.raises(IllegalActionError) as caught:
            env.step(5)
        errors.append(str(caught.value))
    assert errors[0] == errors[1]


@pytest.mark.parametrize("options,error", [({"illegal_action": "ignore"}, "illegal_action='ignore'"),
                                           ({"illegal_reward": float("nan")}, "illegal_reward")])
def test_the_illegal_action_policy_is_checked_once_for_both(options, error: str) -> None:
    with pytest.raises(ConfigError, match=error):
        aec.IllegalActions.of(options)
    with pytest.raises(ConfigError, match=error):
        _wrapper(**options)
    with pytest.raises(ConfigError, match=error):
        aec.TableEnv(make_env_game("ledger_test"), **options)


def test_the_wrapper_and_the_adapter_play_the_learners_action_through_one_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    played = []
    real = aec.IllegalActions.play

    def spy(self: aec.IllegalActions, game, state, action):
        played.append(action)
        return real(self, game, state, action)

    monkeypatch.setattr(aec.IllegalActions, "play", spy)
    table = LEDGER_RAW_ENV(rounds=3)
    table.reset(seed=0)
    table.step(2)
    wrapper = _wrapper()
    wrapper.reset(seed=0)
    wrapper.step(0)  # the opponent's reply is no learner action: played by the rules alone
    assert played == [2, 0]
