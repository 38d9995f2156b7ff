"""Option validation and strict config loading (envs/engine/config.py)."""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

import pytest

from parlor.envs.engine.config import build, check_bool, check_choice, check_int, check_number, load_yaml
from parlor.envs.engine.game import ConfigError, IllegalActionError


@dataclass(frozen=True, slots=True, kw_only=True)
class SampleConfig:
    variant: str = "a"
    players: int = 2

    def __post_init__(self) -> None:
        check_choice("variant", self.variant, ("a", "b"))
        check_int("players", self.players, 2, 4)


def test_build_rejects_unknown_options_naming_the_allowed_ones() -> None:
    with pytest.raises(ConfigError, match="unknown option.*'colour'.*allowed options: variant, players"):
        build(SampleConfig, {"colour": 1})


def test_bad_values_name_the_field_and_allowed_values() -> None:
    with pytest.raises(ConfigError, match="variant='c'.*allowed values: 'a', 'b'"):
        build(SampleConfig, {"variant": "c"})
    with pytest.raises(ConfigError, match="players=5.*2..4"):
        build(SampleConfig, {"players": 5})
    with pytest.raises(ConfigError, match="players=True must be an integer"):
        build(SampleConfig, {"players": True})
    with pytest.raises(ConfigError, match="must be true or false"):
        check_bool("flag", 1)
    with pytest.raises(ConfigError, match="must be a number"):
        check_number("x", "1")


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_nan_and_infinite_numbers_are_refused_naming_the_field(value: float) -> None:
    with pytest.raises(ConfigError, match=f"stake={value!r} must be a finite number"):
        check_number("stake", value)
    with pytest.raises(ConfigError, match="must be a finite number"):
        check_number("stake", value, 0, 10)  # a range alone lets NaN through: every comparison is False


@pytest.mark.parametrize("env_name, options, field", [
    ("tonk_v0", {"stake": float("nan")}, "stake=nan"),
    ("pulle_v0", {"per_deal_payment": float("nan")}, "per_deal_payment=nan"),
    ("pulle_v0", {"stake": float("nan")}, "stake=nan"),
    ("ofc_v0", {"illegal_reward": float("inf")}, "illegal_reward=inf"),
    ("washizu_poker_v0", {"washizu_cards": 0}, "washizu_cards: bad cards 0"),
    ("washizu_poker_v0", {"washizu": "random13", "washizu_cards": [None] * 13}, "washizu_cards: bad card None"),
])
def test_issue_examples_of_bad_options_raise_config_error(env_name: str, options: dict, field: str) -> None:
    from parlor import envs

    with pytest.raises(ConfigError, match=re.escape(field)):
        envs.make(env_name, **options)


def test_config_is_frozen() -> None:
    cfg = build(SampleConfig, {"players": 3})
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.players = 4  # type: ignore[misc]


def test_yaml_is_loaded_safely(tmp_path) -> None:
    good = tmp_path / "good.yaml"
    good.write_text("variant: b\nplayers: 3\n")
    assert build(SampleConfig, load_yaml(str(good))) == SampleConfig(variant="b", players=3)
    evil = tmp_path / "evil.yaml"
    evil.write_text("players: !!python/object/apply:os.system ['echo hi']\n")
    with pytest.raises(ConfigError, match=r"evil.yaml: not valid YAML at line 1, column 10: the tag "
                       r"'tag:yaml.org,2002:python/object/apply:os.system' is not allowed"):
        load_yaml(str(evil))
    listy = tmp_path / "list.yaml"
    listy.write_text("- 1\n- 2\n")
    with pytest.raises(ConfigError, match="mapping"):
        load_yaml(str(listy))


def test_illegal_action_error_names_action_meaning_and_legal_actions() -> None:
    err = IllegalActionError(3, [0, 1], lambda a: ["pass", "bet", "raise", "fold"][a])
    assert isinstance(err, ValueError)
    assert str(err) == "illegal action 3 (fold); legal actions: 0 (pass), 1 (bet)"
    assert "unknown" in str(IllegalActionError(9, [0], lambda a: ["pass"][a]))


def test_illegal_action_error_survives_pickling_with_its_message() -> None:
    import copy
    import pickle

    err = IllegalActionError(3, [0, 1], lambda a: ["pass", "bet", "raise", "fold"][a])
    for again in (pickle.loads(pickle.dumps(err)), copy.copy(err)):
        assert type(again) is IllegalActionError and str(again) == str(err)
        assert (again.action, again.legal) == (3, [0, 1])
