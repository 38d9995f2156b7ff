"""docs/rules.md §5.8-§5.10 house rules: naturals, low naturals, texas, tonk_needs_six, the spades side pot."""
from __future__ import annotations

import numpy as np

from parlor.envs.tonk.encode import DECLARE_49, DROP, SIDE_JOIN, SIDE_PASS
from parlor.envs.tonk.view import START
from tests.tonk.helpers import lay, new, turn

LOW = "Ad 2c 2d 3c 3d"        # 11
MID = "8h Jc Qd 7s 6s"        # 41
HIGH = "Kc Ks Th 9h 4h"       # 43
FIFTY = "Kd Kh Qc Qs Jd"      # 50
FORTY_NINE = "Jh Js Tc Td 9c"  # 49


def legal(state) -> list[int]:
    return np.flatnonzero(state.legal_mask()).tolist()


def test_r5_8_a_dealt_50_wins_at_once_paid_two_by_each():
    game, s = new([MID, FIFTY, HIGH], start="2h")
    assert s.current_player == 1 and legal(s) == [DECLARE_49]
    s.apply(DECLARE_49)
    assert s.is_terminal() and s.last_result.reason == "natural" and s.last_result.winners == (1,)
    assert s.take_rewards().tolist() == [-2.0, 4.0, -2.0]


def test_r5_8_a_dealt_49_wins_at_once_paid_two_by_each():
    game, s = new([MID, HIGH, FORTY_NINE], start="2h")
    assert s.current_player == 2
    s.apply(DECLARE_49)
    assert s.take_rewards().tolist() == [-2.0, -2.0, 4.0]


def test_r5_8_two_naturals_draw_and_nothing_is_paid():
    game, s = new([MID, FIFTY, FORTY_NINE], start="2h")
    assert s.current_player == 1 and legal(s) == [DECLARE_49]
    s.apply(DECLARE_49)
    assert s.last_result.reason == "draw_naturals"
    assert s.take_rewards().tolist() == [0.0, 0.0, 0.0]


def test_r5_8_natural_none_plays_a_dealt_50_normally():
    game, s = new([MID, FIFTY, HIGH], start="2h", natural="none")
    assert s.current_player == 0 and DECLARE_49 not in legal(s)


def test_r5_8_50_auto_49_turn_declares_49_at_the_start_of_the_first_turn():
    game, s = new([MID, FORTY_NINE, HIGH], start="2h", stock="2s 3s", natural="50_auto_49_turn")
    assert s.current_player == 0 and DECLARE_49 not in legal(s)
    turn(s, throw="2s")
    assert s.current_player == 1 and DECLARE_49 in legal(s)
    s.apply(DECLARE_49)
    assert s.last_result.reason == "natural" and s.take_rewards().tolist() == [-2.0, 4.0, -2.0]


def test_r5_9_texas_a_49_declared_on_the_first_turn_is_a_single_prize():
    game, s = new([FORTY_NINE, MID, HIGH], start="2h", natural="50_auto_49_turn", texas=True)
    assert s.current_player == 0 and DROP in legal(s) and DECLARE_49 in legal(s)
    s.apply(DECLARE_49)
    assert s.take_rewards().tolist() == [2.0, -1.0, -1.0]


def test_r5_8_50_auto_49_turn_claim_lapses_after_the_first_turn():
    game, s = new([MID, FORTY_NINE, HIGH], start="2h", stock="2s 3s 4s 5s", natural="50_auto_49_turn")
    turn(s, throw="2s")
    turn(s, throw="3s")  # seat 1 plays his first turn instead of declaring
    turn(s, throw="4s")
    turn(s, throw="5s")
    assert s.current_player == 1 and DECLARE_49 not in legal(s)


def test_r5_8_50_auto_49_turn_a_drop_before_the_49_turn_settles_normally():
    game, s = new([LOW, FORTY_NINE, HIGH], start="2h", natural="50_auto_49_turn")
    s.apply(DROP)
    assert s.last_result.reason == "drop_won" and s.take_rewards().tolist() == [2.0, -1.0, -1.0]


def test_r5_8_50_auto_49_turn_50_still_wins_at_once():
    game, s = new([MID, HIGH, FIFTY], start="2h", natural="50_auto_49_turn")
    assert s.current_player == 2 and legal(s) == [DECLARE_49]


def test_r5_8_low_natural_13_double_pays_two():
    game, s = new([MID, "Ac Ad 2c 2d 6c", HIGH], start="2h", low_natural="13_double")
    assert s.dealt_counts[1] == 12 and s.current_player == 1
    s.apply(DECLARE_49)
    assert s.take_rewards().tolist() == [-2.0, 4.0, -2.0]


def test_r5_8_low_natural_9_triple_13_double():
    game, s = new([MID, HIGH, "Ac Ad 2c 2d 3c"], start="2h", low_natural="9_triple_13_double")
    s.apply(DECLARE_49)
    assert s.take_rewards().tolist() == [-3.0, -3.0, 6.0]
    game, s = new([MID, HIGH, "Ac Ad 2c 2d 6c"], start="2h", low_natural="9_triple_13_double")
    s.apply(DECLARE_49)
    assert s.take_rewards().tolist() == [-2.0, -2.0, 4.0]


def test_r5_8_low_natural_none_by_default():
    game, s = new(["Ac Ad 2c 2d 3c", MID, HIGH], start="2h")
    assert s.current_player == 0 and DROP in legal(s)


def test_r5_9_texas_dealt_50_double_and_dealt_49_single():
    s = new([MID, FIFTY, HIGH], start="2h", texas=True)[1]
    s.apply(DECLARE_49)
    assert s.take_rewards().tolist() == [-2.0, 4.0, -2.0]
    s = new([MID, FORTY_NINE, HIGH], start="2h", texas=True)[1]
    s.apply(DECLARE_49)
    assert s.take_rewards().tolist() == [-1.0, 2.0, -1.0]


def _lay_then_empty_on_a_later_turn(**options):
    game, s = new(["5c 5d 5h 9s Ts", MID, HIGH], start="2h", stock="Kh 3c 4d Js", **options)
    turn(s, plays=[lay("5c 5d 5h")], throw="Kh")
    turn(s, throw="3c")
    turn(s, throw="4d")
    turn(s, plays=[lay("9s Ts Js")])
    return s


def test_r5_9_emptying_the_hand_on_a_later_turn_is_a_tonk_by_default():
    s = _lay_then_empty_on_a_later_turn()
    assert s.last_result.reason == "tonk" and s.take_rewards().tolist() == [4.0, -2.0, -2.0]


def test_r5_9_tonk_needs_six_a_shorter_hand_emptied_is_paid_as_going_out():
    s = _lay_then_empty_on_a_later_turn(tonk_needs_six=True)
    assert s.last_result.reason == "out" and s.take_rewards().tolist() == [2.0, -1.0, -1.0]


def test_r5_9_tonk_needs_six_all_six_cards_is_still_a_tonk():
    game, s = new(["5c 5d 5h 9s Ts", MID, HIGH], start="2h", stock="Js", tonk_needs_six=True)
    turn(s, plays=[lay("5c 5d 5h"), lay("9s Ts Js")])
    assert s.last_result.reason == "tonk" and s.take_rewards().tolist() == [4.0, -2.0, -2.0]


SPADE_HANDS = ["As 2c 3c 4d 9h", "Ks 5c 6d 7h 8h", "2d 3d 4h 5h 6h"]


def test_r5_10_spades_side_pot_highest_spade_among_joiners_takes_the_pot():
    game, s = new(SPADE_HANDS, start="Qh", spades_side_pot=True)
    assert legal(s) == [SIDE_JOIN, SIDE_PASS]
    for _ in range(3):
        s.apply(SIDE_JOIN)
    assert s.phase == START and s.current_player == 0
    assert s.take_rewards().tolist() == [2.0, -1.0, -1.0]
    view = s.view(2)
    assert view.side_pot_joined == (True, True, True)
    assert view.side_pot_shown[:2] == (51, 47) and view.side_pot_shown[2] == -1


def test_r5_10_spades_side_pot_only_joiners_pay_and_show():
    game, s = new(SPADE_HANDS, start="Qh", spades_side_pot=True)
    s.apply(SIDE_PASS)
    s.apply(SIDE_JOIN)
    s.apply(SIDE_JOIN)
    assert s.take_rewards().tolist() == [0.0, 1.0, -1.0]
    assert s.view(0).side_pot_shown == (-1, 47, -1)


def test_r5_10_spades_side_pot_a_lone_joiner_gets_his_stake_back():
    game, s = new(SPADE_HANDS, start="Qh", spades_side_pot=True)
    s.apply(SIDE_JOIN)
    s.apply(SIDE_PASS)
    s.apply(SIDE_PASS)
    assert s.take_rewards().tolist() == [0.0, 0.0, 0.0]


def test_r5_10_spades_side_pot_payments_stay_in_the_episode_rewards_after_the_hand():
    game, s = new(SPADE_HANDS, start="Qh", spades_side_pot=True)
    for _ in range(3):
        s.apply(SIDE_JOIN)
    s.apply(DROP)  # seat 0 count 1+2+3+4+9 = 19 is lowest
    assert s.last_result.payments == (4, -2, -2)
    assert s.stakes == [4, -2, -2]
