"""docs/rules.md §1.2 and §1.5-§1.9 showdown: royalty table, fouls, pairwise scoring, Fantasyland qualification."""
from __future__ import annotations

import pytest

from parlor.envs.engine.cards import parse_cards as P
from parlor.envs.engine.hands import rank3, rank5
from parlor.envs.ofc.deal import fl_deal_sizes
from parlor.envs.ofc.scoring import (
    bottom_royalty,
    evaluate_board,
    fl_entry_cards,
    fl_stays,
    middle_royalty,
    pair_points,
    score_hand,
    top_royalty,
)

# a safe middle and bottom to put under any top in the tests below
TRIPS_MID, QUADS_BOT = "Kc Kd Kh 3c 4d", "Ac Ad Ah As 2c"


@pytest.mark.parametrize("top,royalty", [
    ("5c 5d Ah", 0), ("6c 6d 2h", 1), ("7c 7d 2h", 2), ("8c 8d 2h", 3), ("9c 9d 2h", 4), ("Tc Td 2h", 5),
    ("Jc Jd 2h", 6), ("Qc Qd 2h", 7), ("Kc Kd 2h", 8), ("Ac Ad 2h", 9), ("2c 3d 4h", 0), ("Ac Kd Qh", 0),
])
def test_r1_6_royalty_top_pairs_66_pays_1_up_to_aa_pays_9(top, royalty):
    assert top_royalty(rank3(P(top))) == royalty


@pytest.mark.parametrize("rank,royalty", list(zip("23456789TJQKA", range(10, 23))))
def test_r1_6_royalty_top_trips_222_pays_10_up_to_aaa_pays_22(rank, royalty):
    assert top_royalty(rank3(P(f"{rank}c {rank}d {rank}h"))) == royalty


@pytest.mark.parametrize("cards,middle,bottom", [
    ("Ac Kd 9h 7s 3c", 0, 0),          # high card
    ("Ac Ad 9h 7s 3c", 0, 0),          # pair
    ("Ac Ad 9h 9s 3c", 0, 0),          # two pair
    ("9c 9d 9h 7s 3c", 2, 0),          # trips
    ("5c 6d 7h 8s 9c", 4, 2),          # straight
    ("Ac 2d 3h 4s 5c", 4, 2),          # wheel
    ("Ac Jc 9c 7c 3c", 8, 4),          # flush
    ("9c 9d 9h 3s 3c", 12, 6),         # full house
    ("9c 9d 9h 9s 3c", 20, 10),        # quads
    ("5h 6h 7h 8h 9h", 30, 15),        # straight flush
    ("Ts Js Qs Ks As", 50, 25),        # royal flush
])
def test_r1_6_royalty_middle_and_bottom_rows(cards, middle, bottom):
    r = rank5(P(cards))
    assert middle_royalty(r) == middle
    assert bottom_royalty(r) == bottom


def board(top, mid, bot):
    return evaluate_board(P(top), P(mid), P(bot))


def test_r1_2_foul_qq7_over_qq654_is_fouled():
    assert board("Qs Qh 7c", "Qd Qc 6s 5h 4d", QUADS_BOT).fouled


def test_r1_2_foul_qq7_over_qq982_is_legal():
    res = board("Qs Qh 7c", "Qd Qc 9s 8h 2d", QUADS_BOT)
    assert not res.fouled and res.royalties == (7, 0, 10)


def test_r1_2_foul_top_equal_to_middle_over_its_own_three_cards_is_legal():
    assert not board("As Kh Qc", "Ad Kc Qs Jh 9d", QUADS_BOT).fouled


def test_r1_2_foul_middle_stronger_than_bottom():
    assert board("2c 3d 4h", "Kc Kd Kh 5s 5d", "Ac Ad Ah 7s 8d").fouled
    assert not board("2c 3d 4h", "Ac Ad Ah 7s 8d", "Kc Kd Kh 5s 5d").fouled


def test_r1_2_foul_top_trips_over_two_pair_middle():
    assert board("3c 3d 3h", "Ac Ad Kh Ks 8d", QUADS_BOT).fouled


def test_r1_6_fouled_board_has_no_royalties():
    res = board("Ac Ad Ah", "2c 2d 5h 6s 8d", "Ts Js Qs Ks As")
    assert res.fouled and res.royalty == 0 and res.royalties == (0, 0, 0)


def test_r1_5_scoring_rows_and_royalty_difference_without_scoop():
    a = board("2c 3d 5h", "Jc Jd 4h 6s 8d", "9c 9d 9h 7s 7d")     # royalties 0 + 0 + 6 (full house)
    b = board("Ac Kd 2h", "Tc Td 5s 6h 8c", "5c 6d 7c 8h 9s")     # royalties 0 + 0 + 2 (straight)
    # top: b wins (A high); middle: a wins (JJ > TT); bottom: a wins (FH > straight)
    assert pair_points(a, b) == (2 - 1) + (6 - 2)
    assert pair_points(b, a) == -5


def test_r1_5_scoring_scoop_adds_three():
    a = board("Qs Qh 2c", "9c 9d 9h 4s 5s", "Ac Kc 8c 6c 3c")      # 7 + 2 + 4
    b = board("2d 3d 4h", "Jc Jd 7h 8h Th", "Ts Js Qd Kd As")      # 0 + 0 + 2
    assert pair_points(a, b) == 3 + 3 + (13 - 2)


def test_r1_5_scoring_tied_rows_score_zero():
    a = board("2c 3d 5h", "Jc Jd 4h 6s 8d", "Kc Kd Ks 7s 7d")
    b = board("2d 3c 5s", "Jh Js 4c 6d 8c", "Ac Ad Ah 7c 7h")
    assert pair_points(a, b) == 0 + 0 - 1 + (6 - 6)


def test_r1_5_scoring_one_foul_pays_six_plus_royalties():
    fouled = board("Ac Ad Ah", "2c 2d 5h 6s 8d", "Ts Js Qs Ks As")
    clean = board("2h 3h 4d", "Tc Td 5s 6h 8c", "5c 6d 7c 8h 9s")  # straight bottom: 2
    assert pair_points(clean, fouled) == 6 + 2
    assert pair_points(fouled, clean) == -8


def test_r1_5_scoring_double_foul_is_zero():
    f1 = board("Ac Ad Ah", "2c 2d 5h 6s 8d", "Ts Js Qs Ks As")
    f2 = board("Kc Kd 2s", "3c 4d 7h 9s Jd", "Qc Qh Qd 5c 5d")
    assert f1.fouled and f2.fouled
    assert pair_points(f1, f2) == 0 == pair_points(f2, f1)


def test_r1_5_scoring_three_players_zero_sum_and_pairwise():
    a = board("Qs Qh 2c", "9c 9d 9h 4s 5s", "Ac Kc 8c 6c 3c")      # 13 royalties
    b = board("2d 3d 4h", "Jc Jd 7h 8h Th", "Ts Js Qd Kd As")      # 2 royalties
    c = board("As Ad Ah", "2s 2h 5h 6s 8d", "7c 7d 3h 3s Ks")      # fouled
    points = score_hand([a, b, c])
    assert points == [(6 + 11) + (6 + 13), (-17) + (6 + 2), -(6 + 13) - (6 + 2)]
    assert sum(points) == 0


def test_r1_5_scoring_four_players_zero_sum():
    boards = [
        board("Qs Qh 2c", "9c 9d 9h 4s 5s", "Ac Kc 8c 6c 3c"),
        board("2d 3d 4h", "Jc Jd 7h 8h Th", "Ts Js Qd Kd As"),
        board("As Ad Ah", "2s 2h 5h 6s 8d", "7c 7d 3h 3s Ks"),
        board("4c 5c 6d", "Kh Kd 4d 6h 9s", "Tc Td 8s 8d 7s"),
    ]
    points = score_hand(boards)
    assert sum(points) == 0
    assert points[3] == -pair_points(boards[0], boards[3]) - pair_points(boards[1], boards[3]) - pair_points(boards[2], boards[3])


@pytest.mark.parametrize("top,regular,progressive", [
    ("Jc Jd Ah", 0, 0), ("Qc Qd 2h", 14, 14), ("Kc Kd 2h", 14, 15), ("Ac Ad 2h", 14, 16), ("2c 2d 2h", 14, 17),
])
def test_r1_7_fantasyland_entry_qq_or_better_on_top(top, regular, progressive):
    res = board(top, TRIPS_MID if top != "2c 2d 2h" else "Kc Kd Kh 3c 4d", QUADS_BOT)
    assert not res.fouled
    assert fl_entry_cards(res, "regular") == regular
    assert fl_entry_cards(res, "progressive") == progressive


def test_r1_7_fantasyland_fouled_hand_never_enters_or_stays():
    res = board("Ac Ad Ah", "2c 2d 5h 6s 8d", "Ts Js Qs Ks As")
    assert fl_entry_cards(res, "regular") == 0
    for rule in ("trips_fh_quads", "trips_quads", "none"):
        assert not fl_stays(res, rule)


@pytest.mark.parametrize("top,mid,bot,fh_rule,quads_rule", [
    ("2c 2d 2h", "Kc Kd Kh 3c 4d", "Ac Ad Ah As 5c", True, True),     # trips on top
    ("3c 4d 6h", "9c 9d 9h 5s 5d", "Tc Td Th Ts 7c", True, True),     # quads at the bottom
    ("3c 4d 6h", "9c 9d 9h 5s 5d", "Jc Jd Jh 8s 8c", True, False),    # full house in the middle
    ("3c 4d 6h", "2c 3h 4s 5d 6c", "7c 8d 9h Tc Jd", False, False),   # straights only
    ("Qc Qd 6h", "Kc Kd 9h 5s 4d", "Ac Ad Ah 8c 2d", False, False),   # QQ again does not keep a seat
])
def test_r1_9_fantasyland_stay_rules(top, mid, bot, fh_rule, quads_rule):
    res = board(top, mid, bot)
    assert not res.fouled
    assert fl_stays(res, "trips_fh_quads") is fh_rule
    assert fl_stays(res, "trips_quads") is quads_rule
    assert fl_stays(res, "none") is False


def test_r1_7_fantasyland_deck_capacity_rule():
    assert fl_deal_sizes([14], 3, "original") == [13]          # 4 players: 52 - 39 = 13
    assert fl_deal_sizes([17], 2, "original") == [17]
    assert fl_deal_sizes([14, 14], 2, "original") == [13, 13]  # 52 - 26 = 26 for two
    assert fl_deal_sizes([16, 16], 1, "original") == [16, 16]
    assert fl_deal_sizes([17, 17], 1, "pineapple") == [17, 17] # 17 + 17 + 17 = 51
    assert fl_deal_sizes([17, 17, 17], 0, "pineapple") == [17, 17, 17]
    assert fl_deal_sizes([14, 14, 14, 14], 0, "original") == [13, 13, 13, 13]
    assert fl_deal_sizes([17, 14], 2, "original") == [13, 13]  # the later player keeps his 13
