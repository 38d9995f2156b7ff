"""docs/rules.md §2.6-§2.7 category values: the seed's worked examples, every variant category
by hand-made cases, and the fast tables against a literal brute-force reading of
the rules table (best subset of the cards that forms the category)."""
from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parlor.envs.buffalo_bill.categories import CARD_VALUE, CATEGORIES, EXTENDED, LineEvaluator, canonical_name
from parlor.envs.engine.cards import parse_cards, short32, standard52

ALL = LineEvaluator(CATEGORIES)


def value(category: str, hand: str) -> int:
    return ALL.values(parse_cards(hand))[CATEGORIES.index(category)]


# ---------------------------------------------------------------- the seed's examples
def test_r2_6_seed_flush_worth_41():
    assert value("flush", "5h 7h 9h Qh Kh") == 41


def test_r2_6_seed_one_pair_worth_14():
    assert value("one pair", "7c 7d 2h 9s Kd") == 14


def test_r2_6_seed_full_house_4_4_4_T_T_scores_32_12_28_20():
    hand = "4c 4d 4h Td Ts"
    assert value("full house", hand) == 32
    assert value("three of a kind", hand) == 12
    assert value("two pair", hand) == 28
    assert value("one pair", hand) == 20


# ---------------------------------------------------------------- standard categories
def test_r2_6_card_values_ace_11_faces_10():
    assert CARD_VALUE == (2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 11)
    assert value("high card", "As Kd Qh Jc 9s") == 11 + 10 + 10 + 10 + 9


def test_r2_6_high_card_always_scorable_all_five_cards():
    assert value("high card", "2c 3d 4h 5s 7c") == 21
    assert value("high card", "4c 4d 4h 4s 7c") == 23


def test_r2_6_wheel_is_a_straight_with_ace_worth_11():
    assert value("straight", "Ac 2d 3h 4s 5c") == 25
    assert value("straight", "Tc Jd Qh Ks Ac") == 51


def test_r2_6_no_wrap_around_straight():
    assert value("straight", "Qc Kd Ah 2s 3c") == 0


def test_r2_6_straight_flush_also_scores_as_flush_straight_and_high_card():
    hand = "5h 6h 7h 8h 9h"
    for name in ("straight flush", "flush", "straight", "high card"):
        assert value(name, hand) == 35
    assert value("straight flush", "5h 6h 7h 8h 9s") == 0


def test_r2_6_four_of_a_kind_counts_the_four_and_can_be_played_lower():
    hand = "9c 9d 9h 9s Ac"
    assert value("four of a kind", hand) == 36
    assert value("three of a kind", hand) == 27
    assert value("one pair", hand) == 18
    assert value("two pair", hand) == 0  # two pair needs two different ranks
    assert value("full house", hand) == 0


def test_r2_6_two_pair_takes_the_two_best_pairs_of_different_ranks():
    assert value("two pair", "Ac Ad Kc Kd Kh") == 22 + 20
    assert value("two pair", "3c 3d 8h 8s Qd") == 6 + 16
    assert value("one pair", "3c 3d 8h 8s Qd") == 16


def test_r2_5_scratching_a_line_the_hand_does_not_make_scores_zero():
    hand = "2c 5d 9h Js Kd"
    for name in ("straight flush", "four of a kind", "full house", "flush", "straight",
                 "three of a kind", "two pair", "one pair"):
        assert value(name, hand) == 0


# ---------------------------------------------------------------- variant categories
def test_r2_7_blaze_five_face_cards_no_aces():
    assert value("blaze", "Jc Qd Kh Js Qc") == 50
    assert value("blaze", "Jc Qd Kh Js Ac") == 0


def test_r2_7_four_blaze_four_face_cards():
    assert value("four blaze", "Jc Qd Kh Js 2c") == 40
    assert value("four blaze", "Jc Qd Kh As 2c") == 0
    assert value("four blaze", "Jc Qd Kh Js Qc") == 40


def test_r2_7_big_bobtail_best_four_card_straight_flush():
    assert value("big bobtail", "8h 9h Th Jh 2c") == 37
    assert value("big bobtail", "9h Th Jh Qh Kh") == 40  # T-J-Q-K of the five
    assert value("big bobtail", "8h 9h Th Jd Qh") == 0


def test_r2_7_little_bobtail_three_card_straight_flush_ace_high_or_low():
    assert value("little bobtail", "2s 3s 4s 9d Kc") == 9
    assert value("little bobtail", "As 2s 3s 9d Kc") == 16
    assert value("little bobtail", "Qs Ks As 9d 2c") == 31
    assert value("little bobtail", "Ks As 2s 9d 7c") == 0  # no wrap


def test_r2_7_four_flush_best_four_of_one_suit():
    assert value("four flush", "As 2s 3s 9s Kd") == 25
    assert value("four flush", "2h 5h 7h 9h Kh") == 5 + 7 + 9 + 10
    assert value("four flush", "As 2s 3s 9d Kd") == 0


def test_r2_7_four_straight_and_sequence():
    assert value("four straight", "6c 7d 8h 9s Kc") == 30
    assert value("four straight", "Ac 2d 3h 4s 9c") == 20
    assert value("four straight", "Tc Jd Qh Ks Ac") == 41
    assert value("sequence", "Qc Kd Ah 2s 5c") == 31
    assert value("sequence", "Kc Ad 2h 7s 9c") == 0


def test_r2_7_gang_all_red_or_all_black():
    assert value("gang", "As 2c 5s 9c Kc") == 37
    assert value("gang", "Ah 2d 5h 9d Kd") == 37
    assert value("gang", "As 2c 5s 9c Kd") == 0


def test_r2_7_puritan_five_number_cards():
    assert value("puritan", "2c 5d 9h Ts 7c") == 33
    assert value("puritan", "2c 5d 9h Js 7c") == 0
    assert value("puritan", "2c 5d 9h As 7c") == 0


def test_r2_7_bobtail_is_the_best_straight_flush_of_three_four_or_five():
    assert value("bobtail", "9h Th Jh Qh Kh") == 49
    assert value("bobtail", "9h Th Jh Qh 2c") == 39
    assert value("bobtail", "9h Th Jh 2c 4d") == 29
    assert value("bobtail", "9h Th Js 2c 4d") == 0


def test_r2_7_flush_or_gang():
    assert value("flush or gang", "2h 5h 7h 9h Kh") == 33
    assert value("flush or gang", "2h 5d 7h 9d Kh") == 33
    assert value("flush or gang", "2h 5d 7h 9d Ks") == 0


def test_r2_7_face_cards_and_number_cards_any_number():
    assert value("face cards", "As Kd 2c Jc Th") == 20
    assert value("face cards", "As 9d 2c 3c Th") == 0
    assert value("number cards", "As Kd 2c 3c Th") == 15
    assert value("number cards", "As Kd Qc Jc Ah") == 0


# ---------------------------------------------------------------- short deck
def test_r2_6_short32_ace_seven_eight_nine_ten_is_not_a_straight():
    assert value("straight", "Ac 7d 8h 9s Tc") == 0
    assert value("high card", "Ac 7d 8h 9s Tc") == 45
    assert value("straight", "7c 8d 9h Ts Jc") == 44
    assert value("straight flush", "Ac 7c 8c 9c Tc") == 0
    assert value("flush", "Ac 7c 8c 9c Tc") == 45


def test_r2_6_short32_four_straight_never_uses_the_ace_below_seven():
    assert value("four straight", "Ac 7d 8h 9s Kc") == 0
    assert value("four straight", "Ac 7d 8h 9s Tc") == 34  # 7-8-9-T, not A-7-8-9
    assert value("sequence", "Ac 7d 8h Js Kc") == 0
    assert value("big bobtail", "Ac 7c 8c 9c Kd") == 0


# ---------------------------------------------------------------- names
def test_category_names_are_normalized():
    assert canonical_name("Four_of_a_Kind") == "four of a kind"
    assert canonical_name("plucked nickel") == "high card"
    assert canonical_name("royal flush") is None


# ---------------------------------------------------------------- brute force reference
def _is_run(ranks: list[int]) -> bool:
    if len(set(ranks)) != len(ranks):
        return False
    for r in (ranks, [-1 if x == 12 else x for x in ranks]):
        if max(r) - min(r) == len(r) - 1:
            return True
    return False


def _suited(cards) -> bool:
    return len({c & 3 for c in cards}) == 1


def _counts(cards) -> list[int]:
    return sorted(sum(1 for d in cards if d >> 2 == c >> 2) for c in cards)


FACE, NUMBER = {9, 10, 11}, set(range(9))
REFERENCE = {  # category: (subset sizes, predicate on the subset), read off the docs/rules.md §2.6-§2.7 tables
    "straight flush": ((5,), lambda s: _suited(s) and _is_run([c >> 2 for c in s])),
    "four of a kind": ((4,), lambda s: len({c >> 2 for c in s}) == 1),
    "full house": ((5,), lambda s: _counts(s) == [2, 2, 3, 3, 3]),
    "flush": ((5,), _suited),
    "straight": ((5,), lambda s: _is_run([c >> 2 for c in s])),
    "three of a kind": ((3,), lambda s: len({c >> 2 for c in s}) == 1),
    "two pair": ((4,), lambda s: _counts(s) == [2, 2, 2, 2]),
    "one pair": ((2,), lambda s: len({c >> 2 for c in s}) == 1),
    "high card": ((5,), lambda s: True),
    "blaze": ((5,), lambda s: all(c >> 2 in FACE for c in s)),
    "big bobtail": ((4,), lambda s: _suited(s) and _is_run([c >> 2 for c in s])),
    "four blaze": ((4,), lambda s: all(c >> 2 in FACE for c in s)),
    "little bobtail": ((3,), lambda s: _suited(s) and _is_run([c >> 2 for c in s])),
    "four flush": ((4,), _suited),
    "four straight": ((4,), lambda s: _is_run([c >> 2 for c in s])),
    "sequence": ((3,), lambda s: _is_run([c >> 2 for c in s])),
    "gang": ((5,), lambda s: len({(c & 3) in (0, 3) for c in s}) == 1),
    "puritan": ((5,), lambda s: all(c >> 2 in NUMBER for c in s)),
    "bobtail": ((3, 4, 5), lambda s: _suited(s) and _is_run([c >> 2 for c in s])),
    "flush or gang": ((5,), lambda s: _suited(s) or len({(c & 3) in (0, 3) for c in s}) == 1),
    "face cards": ((0, 1, 2, 3, 4, 5), lambda s: all(c >> 2 in FACE for c in s)),
    "number cards": ((0, 1, 2, 3, 4, 5), lambda s: all(c >> 2 in NUMBER for c in s)),
}


def reference_value(category: str, hand) -> int:
    sizes, made = REFERENCE[category]
    return max(
        (sum(CARD_VALUE[c >> 2] for c in sub) for k in sizes for sub in combinations(hand, k) if made(sub)),
        default=0,
    )


def test_reference_covers_every_category():
    assert set(REFERENCE) == set(CATEGORIES)


@pytest.mark.parametrize("deck", [standard52(), short32()], ids=["standard52", "short32"])
def test_tables_match_brute_force_on_sampled_hands(deck):
    rng = np.random.default_rng(7)
    hands = np.array([rng.choice(deck, 5, replace=False) for _ in range(600)])
    batch = ALL.batch(hands)
    for hand, row in zip(hands.tolist(), batch.tolist()):
        expected = [reference_value(c, hand) for c in CATEGORIES]
        assert ALL.values(hand) == expected, hand
        assert row == expected, hand


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 51), min_size=5, max_size=5, unique=True))
def test_tables_match_brute_force_property(hand):
    assert ALL.values(hand) == [reference_value(c, hand) for c in CATEGORIES]


def test_sheet_evaluator_picks_its_lines_in_order():
    ev = LineEvaluator(EXTENDED)
    hand = parse_cards("Jc Qd Kh Js Qc")
    assert ev.values(hand) == [ALL.values(hand)[CATEGORIES.index(c)] for c in EXTENDED]
