"""Card ids, decks and text round-trips (envs/engine/cards.py)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from parlor.envs.engine import cards as C


def test_standard_deck_has_52_distinct_cards_of_13_ranks_and_4_suits() -> None:
    deck = C.standard52()
    assert len(set(deck)) == 52
    assert sorted({C.rank_of(c) for c in deck}) == list(range(13))
    assert sorted({C.suit_of(c) for c in deck}) == list(range(4))


def test_short32_is_seven_to_ace() -> None:
    deck = C.short32()
    assert len(deck) == 32
    assert C.format_cards(sorted({C.rank_of(c) * 4 for c in deck})) == "7c 8c 9c Tc Jc Qc Kc Ac"


def test_double104_copies_are_distinct_ids_of_the_same_card() -> None:
    deck = C.double104()
    assert len(set(deck)) == 104
    a, b = C.parse_cards("As As*")
    assert a != b and C.base_of(a) == C.base_of(b) and C.rank_of(b) == 12 and C.suit_of(b) == 3
    assert C.copy_of(a) == 0 and C.copy_of(b) == 1


def test_jokers_are_appended_and_written_Xx_Xy() -> None:
    deck = C.make_deck("standard52", jokers=2)
    assert len(deck) == 54
    assert C.format_cards(deck[-2:]) == "Xx Xy"
    assert all(C.is_joker(c) for c in deck[-2:]) and C.rank_of(deck[-1]) == -1


def test_parse_and_format_round_trip_with_symbols() -> None:
    text = "As Kd Th 2c Xx Qh*"
    ids = C.parse_cards(text)
    assert C.format_cards(ids) == text
    assert C.format_cards(ids, symbols=True) == "A♠ K♦ T♥ 2♣ Xx Q♥*"
    assert C.parse_cards(C.format_cards(ids, symbols=True)) == ids
    assert C.parse_cards("10s") == C.parse_cards("Ts")


@given(st.lists(st.integers(0, C.NUM_IDS - 1), max_size=20))
def test_every_id_round_trips_through_text(ids: list[int]) -> None:
    assert C.parse_cards(C.format_cards(ids)) == tuple(ids)
    assert C.parse_cards(C.format_cards(ids, symbols=True)) == tuple(ids)


@pytest.mark.parametrize("token", ["1s", "Ax", "AsX", "", "Xq", "Xx*"])
def test_bad_card_text_raises_naming_the_token(token: str) -> None:
    with pytest.raises(ValueError, match="bad card"):
        C.parse_card(token)


def test_parse_cards_names_the_bad_token_in_a_list() -> None:
    with pytest.raises(ValueError, match="'Zz'"):
        C.parse_cards("As Zz Kd")


def test_numpy_tables_match_scalar_functions() -> None:
    for c in range(C.NUM_IDS):
        assert C.RANK[c] == C.rank_of(c) and C.SUIT[c] == C.suit_of(c) and C.BASE[c] == C.base_of(c)
        assert bool(C.IS_JOKER[c]) == C.is_joker(c)


def test_validate_deck_reports_duplicates_unknown_and_size() -> None:
    full = C.standard52()
    with pytest.raises(ValueError, match="twice"):
        C.validate_deck(C.parse_cards("As As"), full, allow_partial=True)
    with pytest.raises(ValueError, match="not in this game's deck"):
        C.validate_deck(C.parse_cards("Xx"), full, allow_partial=True)
    with pytest.raises(ValueError, match="has 2 cards"):
        C.validate_deck(C.parse_cards("As Ks"), full)
    C.validate_deck(full, full)


def test_complete_deck_keeps_the_prefix_and_adds_the_rest() -> None:
    prefix = C.parse_cards("As Kd")
    deck = C.complete_deck(prefix, C.standard52(), np.random.default_rng(0))
    assert deck[:2] == prefix and sorted(deck) == list(range(52))
