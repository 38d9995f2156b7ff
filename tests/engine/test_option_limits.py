"""Numeric options have documented limits (docs/rules.md §0.4, engine/config.py), and every
reward an accepted option set pays is finite (issue 34: ``stake=1e308`` paid ``inf``)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from parlor import envs
from parlor.envs.dominoes.buki.game import chips_needed
from parlor.envs.engine.config import MAX_CHIPS, MAX_DEALS, MAX_STAKE, check_seed
from parlor.envs.engine.game import ConfigError


@pytest.mark.parametrize("name, option, value", [
    ("tonk_v0", "stake", 1e308),
    ("tonk_v0", "stake", MAX_STAKE * 1.5),
    ("tonk_v0", "stake", float("inf")),
    ("tonk_v0", "stake", float("nan")),
    ("tonk_v0", "num_hands", MAX_DEALS + 1),
    ("ofc_v0", "num_hands", 10**20),
    ("pulle_v0", "per_deal_payment", 1e308),
    ("pulle_v0", "stake", MAX_STAKE + 1),
    ("pulle_v0", "chips", MAX_CHIPS + 1),
    ("pulle_v0", "max_deals", 10**20),
    ("buki_v0", "chips", 10**30),
    ("buki_v0", "min_bet", MAX_STAKE + 1),
    ("buki_v0", "num_deals", 10**9),
    ("austrian_dominoes_v0", "num_deals", 10**20),
    ("washizu_poker_v0", "starting_chips", 10**6),
    ("buffalo_bill_v0", "chips", 10**6),
])
def test_a_number_past_its_limit_is_refused_naming_the_option(name: str, option: str, value) -> None:
    with pytest.raises(ConfigError, match=f"^{option}=") as error:
        envs.make_game(name, **{option: value})
    assert "allowed" in str(error.value) or "must be" in str(error.value)


def test_a_buffalo_bill_sheet_has_at_most_100_lines() -> None:
    envs.make_game("buffalo_bill_v0", sheet=["blaze"] * 100)
    with pytest.raises(ConfigError, match=r"sheet=.* list of 1\.\.100 category names"):
        envs.make_game("buffalo_bill_v0", sheet=["blaze"] * 101)


def test_austrian_max_draws_is_bounded_by_the_set() -> None:
    envs.make_game("austrian_dominoes_v0", mode="draw", max_draws=36)
    with pytest.raises(ConfigError, match="max_draws=37"):
        envs.make_game("austrian_dominoes_v0", mode="draw", max_draws=37)


BUKI_DEALS = 2
LARGEST = {  # every money option at its limit (episodes kept short)
    "tonk_v0": {"stake": MAX_STAKE, "num_players": 5, "num_hands": 3, "texas": True, "spades_side_pot": True,
                "low_natural": "9_triple_13_double"},
    "pulle_v0": {"chips": MAX_CHIPS, "stake": MAX_STAKE, "per_deal_payment": MAX_STAKE, "max_deals": 5,
                 "buy_back": True},
    "buki_v0": {"chips": MAX_CHIPS, "min_bet": MAX_STAKE, "max_bet": MAX_STAKE, "num_deals": BUKI_DEALS},
    "washizu_poker_v0": {"starting_chips": 10_000, "max_raise": 100, "num_games": 3},
    "buffalo_bill_v0": {"chips": 1000},
}


@pytest.mark.parametrize("name", LARGEST)
def test_rewards_stay_finite_with_every_money_option_at_its_limit(name: str) -> None:
    assert math.ceil(chips_needed(MAX_STAKE, MAX_STAKE, BUKI_DEALS)) <= MAX_CHIPS  # the Buki set is accepted
    game = envs.make_game(name, **LARGEST[name])
    for seed in range(3):
        state = game.new_state(np.random.default_rng(seed))
        rng = np.random.default_rng(seed)
        total = np.array(state.take_rewards(), dtype=float)
        while not (state.is_terminal() or state.is_truncated()):
            state.apply(int(rng.choice(np.flatnonzero(state.legal_mask()))))
            total += state.take_rewards()
        assert np.isfinite(total).all() and np.abs(total).max() < 1e15, total


@pytest.mark.parametrize("value", [0, 7, 2**64 - 1, np.int64(3), np.uint64(2**64 - 1)])
def test_check_seed_takes_integers_in_range(value) -> None:
    assert check_seed(value) == int(value) and type(check_seed(value)) is int


@pytest.mark.parametrize("value", [True, -1, 2**64, 1.0, "1", None])
def test_check_seed_refuses_the_rest(value) -> None:
    with pytest.raises(ConfigError, match="is not a seed"):
        check_seed(value, "--seed")
    assert check_seed(None, none=True) is None


def test_an_error_quotes_a_huge_value_briefly() -> None:
    """A value shared 9 ways at 30 levels (what a YAML alias bomb loads as) has a repr of 9^30
    items; the message quotes a few of them, at once."""
    bomb: list = ["lol"] * 9
    for _ in range(30):
        bomb = [bomb] * 9
    for option in ("natural", "stake", "num_hands", "texas"):
        with pytest.raises(ConfigError, match=rf"^{option}=\[\[\[") as error:
            envs.make_game("tonk_v0", **{option: bomb})
        assert len(str(error.value)) < 400
    env = envs.make("tonk_v0")
    with pytest.raises(ConfigError) as error:
        env.reset(options={"decks": {"a": bomb}})
    assert len(str(error.value)) < 400
