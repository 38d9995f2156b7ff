"""The one stacked-deck check (envs/engine/decks.py) on its own: sub-multisets of a deck with
jokers and two copies, the whole deck or a given length, ids of the right type only."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parlor.envs.engine import cards as C
from parlor.envs.engine.decks import check_deck, check_decks
from parlor.envs.engine.dominoes import BUKI_SET
from parlor.envs.engine.game import ConfigError
from tests.tiers import examples_share

DOUBLE_WITH_JOKERS = C.make_deck("double104", 2)


def test_a_permutation_of_the_deck_is_accepted_as_plain_ints() -> None:
    deck = np.random.default_rng(0).permutation(DOUBLE_WITH_JOKERS)
    out = check_deck(deck, DOUBLE_WITH_JOKERS, name=C.card_name)
    assert out == tuple(deck.tolist()) and all(type(c) is int for c in out)
    assert check_deck([np.int16(c) for c in deck], DOUBLE_WITH_JOKERS) == out


@pytest.mark.parametrize("deck, says", [
    ([*C.parse_cards("As As* As")], r"A♠ appears twice; this game's deck holds it once"),  # two decks, one A♠
    ([*C.parse_cards("Xx Xy Xz")], r"Xz is not in this game's deck \(its ids: 0\.\.105\)"),
    ([*range(104), 104, 104], r"Xx appears twice; this game's deck holds it once"),
    ([*range(105)], r"has 105 cards; a stacked deck is this game's whole deck of 106 cards \(missing e.g. Xy\)"),
    ([10**30], r"id 1000000000000000000000000000000 is not in this game's deck"),
    ("As Kd", r"must be a list of ids"),
    ([None], r"\[0\]=None is not an id"),
    (np.zeros((2, 53), dtype=int), r"must be a list of integer ids, got an array of int64 with shape \(2, 53\)"),
    (np.arange(106, dtype=float), r"array of float64"),
])
def test_an_impossible_deck_is_one_config_error_naming_the_card(deck, says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        check_deck(deck, DOUBLE_WITH_JOKERS, where="decks[0]", name=C.card_name)


def test_min_length_allows_a_prefix_and_still_checks_it() -> None:
    assert check_deck([5, 3], range(52), min_length=0) == (5, 3)
    with pytest.raises(ConfigError, match="has 1 cards; a stacked deck holds at least 2 cards"):
        check_deck([5], range(52), min_length=2)
    assert C.complete_deck(C.parse_cards("As*"), C.double104(), np.random.default_rng(0))[0] == C.parse_card("As*")
    with pytest.raises(ConfigError, match="A♠ appears twice"):
        C.complete_deck(C.parse_cards("As As"), C.standard52(), np.random.default_rng(0))


def test_tiles_are_named_as_tiles() -> None:
    tiles = tuple(range(BUKI_SET.size))
    with pytest.raises(ConfigError, match="0-1 appears twice"):
        check_deck([0, *tiles], tiles, name=BUKI_SET.format_tile, unit="tiles")
    with pytest.raises(ConfigError, match="id -1 is not in"):  # not the last tile, as tiles[-1] would be
        check_deck([-1, *tiles[1:]], tiles, name=BUKI_SET.format_tile, unit="tiles")
    with pytest.raises(ConfigError, match="has 35 tiles"):
        check_deck(tiles[1:], tiles, name=BUKI_SET.format_tile, unit="tiles")


def test_check_decks_names_the_deck_and_takes_none() -> None:
    full = C.standard52()
    assert check_decks(None, full) == []
    assert check_decks(np.array([full, full[::-1]]), full) == [full, full[::-1]]
    with pytest.raises(ConfigError, match=r"decks\[1\]: A♠ appears twice"):
        check_decks([full, [51, 51, *range(50)]], full, name=C.card_name)
    with pytest.raises(ConfigError, match="must be a list of stacked decks"):
        check_decks("As Kd", full)



# ---------------------------------------------------------------- properties
ids = st.one_of(st.integers(-3, 115), st.integers(), st.booleans(), st.floats(), st.text(max_size=3), st.none())


@pytest.mark.parametrize("examples", examples_share(60, 300))
def test_any_list_is_a_valid_deck_or_one_config_error(examples: int) -> None:
    @settings(max_examples=examples, deadline=None)
    @given(deck=st.lists(ids, max_size=110), min_length=st.one_of(st.none(), st.integers(0, 106)))
    def check(deck: list, min_length: int | None) -> None:
        try:
            out = check_deck(deck, DOUBLE_WITH_JOKERS, name=C.card_name, min_length=min_length)
        except ConfigError as error:
            assert "\n" not in str(error) and len(str(error)) < 400
            return
        assert out == tuple(deck) and not (Counter(out) - Counter(DOUBLE_WITH_JOKERS))
        assert len(out) >= (len(DOUBLE_WITH_JOKERS) if min_length is None else min_length)

    check()


@pytest.mark.parametrize("examples", examples_share(50, 200))
def test_an_edited_permutation_is_accepted_exactly_when_it_is_still_one(examples: int) -> None:
    @settings(max_examples=examples, deadline=None)
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        deck = list(data.draw(st.permutations(DOUBLE_WITH_JOKERS)))
        for _ in range(data.draw(st.integers(1, 3))):
            at = data.draw(st.integers(0, len(deck) - 1))
            edit = data.draw(st.sampled_from(["replace", "delete", "duplicate", "swap"]))
            if edit == "replace":
                deck[at] = data.draw(st.integers(-1, 112))
            elif edit == "delete":
                del deck[at]
            elif edit == "duplicate":
                deck.insert(at, deck[at])
            else:
                deck[0], deck[at] = deck[at], deck[0]
        still = sorted(deck) == sorted(DOUBLE_WITH_JOKERS)
        try:
            check_deck(deck, DOUBLE_WITH_JOKERS, name=C.card_name)
            assert still
        except ConfigError:
            assert not still

    check()
