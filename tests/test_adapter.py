"""The AEC adapter and the registry, exercised with the test-only Kuhn game."""
from __future__ import annotations

import numpy as np
import pytest
from gymnasium.error import ResetNeeded

from parlor import envs
from parlor.envs import ofc_v0
from parlor.envs.engine.game import ConfigError, IllegalActionError
from tests.harness.cases import KUHN_ENV, KUHN_RAW_ENV


def test_spaces_and_agents() -> None:
    env = KUHN_ENV()
    env.reset(seed=0)
    assert env.possible_agents == ["player_0", "player_1"]
    assert env.action_space("player_0").n == 2
    obs = env.observe("player_1")
    assert obs["action_mask"].dtype == np.int8 and not obs["action_mask"].any()
    assert env.observe("player_0")["action_mask"].tolist() == [1, 1]


def test_stacked_deck_deals_in_order_and_rewards_arrive_at_showdown() -> None:
    env = KUHN_RAW_ENV()
    env.reset(seed=0, options={"deck": "K J Q"})
    assert env.view("player_0").card == 2 and env.view("player_1").card == 0
    env.step(1)  # bet
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
    env.step(1)  # call: K beats J, 2 chips
    assert env.rewards == {"player_0": 2.0, "player_1": -2.0}
    assert all(env.terminations.values())


def test_decks_option_gives_one_deck_per_episode_start() -> None:
    env = KUHN_RAW_ENV()
    env.reset(seed=0, options={"decks": ["Q K J"]})
    assert env.view("player_0").card == 1


@pytest.mark.parametrize("deck, message", [("K J", "exactly once"), ("K K J", "exactly once"), ("K J A", "bad card 'A'")])
def test_bad_stacked_deck_raises_clearly(deck: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        KUHN_RAW_ENV().reset(seed=0, options={"deck": deck})


def test_deck_and_decks_together_are_rejected() -> None:
    with pytest.raises(ValueError, match="either"):
        KUHN_RAW_ENV().reset(seed=0, options={"deck": "K J Q", "decks": ["K J Q"]})


def test_unknown_reset_option_is_an_error_naming_the_allowed_keys() -> None:
    with pytest.raises(ConfigError, match="unknown reset option.*'dekc'.*allowed keys: deck, decks"):
        KUHN_RAW_ENV().reset(seed=0, options={"dekc": "K J Q"})


def test_pettingzoo_api_test_reset_probe_is_accepted_without_a_warning(recwarn) -> None:
    env = KUHN_RAW_ENV()
    env.reset(seed=0, options={"options": 1})  # what pettingzoo.test.api_test passes
    assert not [w for w in recwarn if "reset option" in str(w.message)]


@pytest.mark.parametrize("options, message", [
    ([1, 2], r"reset options=\[1, 2\] must be a dict"),
    ({"deck": None}, r"options\['deck'\]=None must be a deck"),
    ({"deck": 5}, r"options\['deck'\]=5 must be a deck"),
    ({"decks": None}, r"options\['decks'\]=None must be a list of decks"),
    ({"decks": "K J Q"}, r"options\['decks'\]='K J Q' must be a list of decks"),
    ({"decks": ["K J Q", None]}, r"options\['decks'\]\[1\]=None must be a deck"),
    ({"deck": "K J"}, r"options\['deck'\]: .*exactly once"),
    ({"deck": np.zeros((1, 3), dtype=np.int64)}, r"options\['deck'\]=array\(.*\) must be a deck"),
    ({"deck": np.array(2)}, r"options\['deck'\]=array\(2\) must be a deck"),
])
def test_bad_reset_options_raise_config_error_naming_the_option(options, message: str) -> None:
    env = KUHN_RAW_ENV()
    with pytest.raises(ConfigError, match=message):
        env.reset(seed=0, options=options)


def test_a_deck_given_as_a_numpy_array_of_ids_deals_as_the_same_list() -> None:
    ids = [int(c) for c in np.random.default_rng(3).permutation(52)]
    observed = []
    for deck in (ids, np.array(ids, dtype=np.int64)):
        env = ofc_v0.raw_env()
        env.reset(seed=0, options={"deck": deck})
        observed.append(env.observe("player_0")["observation"])
    assert np.array_equal(*observed) and observed[0].any()


@pytest.mark.parametrize("action, kind", [
    (1.0, "float"), (73.7, "float"), (float("nan"), "float"), ("1", "str"), (True, "bool"),
    (np.array([1]), r"ndarray, shape \(1,\)"), (np.float64(1.0), "float64"), (np.array(1.0), r"ndarray, shape \(\)"),
])
@pytest.mark.parametrize("mode", ["raise", "penalty"])
def test_actions_that_are_not_integers_raise_naming_the_type(action, kind: str, mode: str) -> None:
    env = KUHN_RAW_ENV(illegal_action=mode)
    env.reset(seed=0)
    with pytest.raises(TypeError, match=f"\\(type {kind}\\) is not an integer"):
        env.step(action)
    assert env.agent_selection == "player_0" and not any(env.terminations.values())  # nothing was played


@pytest.mark.parametrize("action", [1, np.int64(1), np.int8(1), np.array(1), np.uint16(1)])
def test_integer_actions_of_any_integer_type_are_played(action) -> None:
    env = KUHN_RAW_ENV()
    env.reset(seed=0)
    env.step(action)
    assert env.agent_selection == "player_1"


def test_step_none_for_a_live_agent_is_an_illegal_action_in_penalty_mode() -> None:
    env = KUHN_ENV(illegal_action="penalty", illegal_reward=-3.0)
    env.reset(seed=0)
    env.step(None)
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -3.0, "player_1": 0.0}
    assert env.infos["player_0"] == {"illegal_action": True, "stats": {}, "episode_reward": -3.0}
    assert "illegal_action" not in env.infos["player_1"]


@pytest.mark.parametrize("call", ["step", "render", "observe", "view"])
def test_raw_env_before_reset_raises_reset_needed(call: str) -> None:
    env = KUHN_RAW_ENV(render_mode="ansi")
    args = {"step": (0,), "render": (), "observe": ("player_0",), "view": ("player_0",)}[call]
    with pytest.raises(ResetNeeded, match=f"{call}\\(\\) before reset\\(\\); call reset\\(\\) first"):
        getattr(env, call)(*args)


def test_illegal_action_message_names_legal_actions() -> None:
    env = KUHN_ENV()
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match=r"illegal action 5 \(unknown\); legal actions: 0 \(pass\), 1 \(bet\)"):
        env.step(5)
    with pytest.raises(IllegalActionError, match=r"illegal action None \(no action, but this seat must act\); legal"):
        env.step(None)


def test_adapter_options_are_validated() -> None:
    with pytest.raises(ConfigError, match="illegal_action='ignore'.*'raise', 'penalty'"):
        KUHN_ENV(illegal_action="ignore")
    with pytest.raises(ConfigError, match="render_mode"):
        KUHN_ENV(render_mode="rgb_array")
    with pytest.raises(ConfigError, match="ante=0"):
        KUHN_ENV(ante=0)


def test_reset_without_seed_continues_the_generator() -> None:
    env = KUHN_RAW_ENV()
    env.reset(seed=1)
    first = [env.view("player_0").card]
    for _ in range(20):
        env.reset()
        first.append(env.view("player_0").card)
    assert len(set(first)) > 1


def test_human_render_prints(capsys) -> None:
    env = KUHN_ENV(render_mode="human")
    env.reset(seed=0)
    env.step(0)
    assert "player" in capsys.readouterr().out


def test_registry_rejects_unknown_env_naming_the_available_ones() -> None:
    with pytest.raises(ValueError, match="unknown environment 'nope'; available"):
        envs.make("nope")


def test_env_config_yaml_is_strict(tmp_path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("env: kuhn\nopts: {}\n")
    with pytest.raises(ConfigError, match="unknown key"):
        envs.load_env_config(str(bad))
    missing = tmp_path / "missing.yaml"
    missing.write_text("options: {}\n")
    with pytest.raises(ConfigError, match="missing key 'env'"):
        envs.load_env_config(str(missing))
