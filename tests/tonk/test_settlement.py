"""docs/rules.md §5.6-§5.7 Settlement: every row, with scripted stacked-deck hands through the real state."""
from __future__ import annotations

from parlor.envs.engine.cards import format_card
from parlor.envs.tonk import settle
from parlor.envs.tonk.encode import DRAW_STOCK, DROP, END_LAYING
from tests.tonk.helpers import discard, lay, new, turn

P0_TRIPS_AND_RUN = "5c 5d 5h 9s Ts"
P1_41 = "8h Jc Qd 7s 6s"
P2_43 = "Kc Ks Th 9h 4h"


def rewards(state) -> list[float]:
    return state.take_rewards().tolist()


def test_r5_7_tonk_out_empties_the_hand_by_laying_and_is_paid_two_by_each():
    game, s = new([P0_TRIPS_AND_RUN, P1_41, P2_43], start="Qh", stock="Js")
    turn(s, plays=[lay("5c 5d 5h"), lay("9s Ts Js")])
    assert s.is_terminal() and s.last_result.reason == "tonk"
    assert rewards(s) == [4.0, -2.0, -2.0]
    assert s.stats()["tonk"] == [1.0, 0.0, 0.0] and s.stats()["won"] == [1.0, 0.0, 0.0]


def test_r5_7_going_out_by_discarding_the_last_card_is_paid_one_by_each():
    game, s = new(["5c 6c 7c 8c Kd", P1_41, P2_43], start="Qh", stock="9c")
    turn(s, plays=[lay("5c 6c 7c 8c 9c")], throw="Kd")
    assert s.is_terminal() and s.last_result.reason == "out"
    assert rewards(s) == [2.0, -1.0, -1.0]
    assert s.stats()["out"] == [1.0, 0.0, 0.0]


def test_r5_7_drop_with_the_strictly_lowest_count_wins_one_from_each():
    game, s = new(["Ac Ad 2c 2d 3c", P1_41, P2_43], start="Qh")
    s.apply(DROP)
    assert s.last_result.reason == "drop_won" and s.last_result.counts == (9, 41, 43)
    assert rewards(s) == [2.0, -1.0, -1.0]
    assert s.stats()["drop"] == [1.0, 0.0, 0.0] and s.stats()["caught"] == [0.0, 0.0, 0.0]


def test_r5_7_caught_dropper_pays_the_lower_and_everyone_else_pays_the_lowest():
    game, s = new(["9c 9d 2s 3s Ah", "Ad 2c 2d 3c 3d", P2_43], start="Qh")
    s.apply(DROP)
    assert s.last_result.reason == "drop_caught" and s.last_result.winners == (1,)
    assert rewards(s) == [-1.0, 2.0, -1.0]
    assert s.stats()["caught"] == [1.0, 0.0, 0.0]


def test_r5_7_caught_dropper_pays_each_lower_player_not_only_the_lowest():
    # counts 24 (dropper), 11 (lowest), 16 (lower than the dropper), 37
    game, s = new(["9c 9d 2s 3s Ac", "Ad 2c 2d 3c 3d", "5h 5s 2h 3h Ah", P2_43], start="Qh", num_players=4)
    s.apply(DROP)
    assert s.last_result.counts == (24, 11, 16, 43)
    assert rewards(s) == [-2.0, 3.0, 0.0, -1.0]


def test_r5_7_caught_dropper_with_tied_lowest_pays_both_and_both_are_paid_by_the_rest():
    game, s = new(["9c 9d 4s Ac Tc", "Ad 2c 2d 3c 3d", "Ah 2h 2s 3h 3s", P2_43], start="Qh", num_players=4)
    s.apply(DROP)
    assert s.last_result.counts == (33, 11, 11, 43) and s.last_result.winners == (1, 2)
    assert rewards(s) == [-2.0, 2.0, 2.0, -2.0]


def test_r5_7_dropper_tying_for_lowest_is_caught_and_pays_two_to_the_sole_winner():
    game, s = new(["Ad 2c 2d 3c 3d", "Ah 2h 2s 3h 3s", P2_43], start="Qh")
    s.apply(DROP)
    assert s.last_result.reason == "drop_tie" and s.last_result.winners == (1,)
    assert rewards(s) == [-2.0, 3.0, -1.0]
    assert s.stats()["caught"] == [1.0, 0.0, 0.0] and s.stats()["won"] == [0.0, 1.0, 0.0]


def test_r5_9_texas_caught_dropper_pays_the_lowest_double():
    game, s = new(["9c 9d 2s 3s Ac", "Ad 2c 2d 3c 3d", "5h 5s 2h 3h Ah", P2_43], start="Qh",
                  num_players=4, texas=True)
    s.apply(DROP)
    assert rewards(s) == [-3.0, 4.0, 0.0, -1.0]


def test_r5_9_texas_keeps_a_winning_drop_single_and_a_tie_unchanged():
    s = new(["Ac Ad 2c 2d 3c", P1_41, P2_43], start="Qh", texas=True)[1]
    s.apply(DROP)
    assert rewards(s) == [2.0, -1.0, -1.0]
    s = new(["Ad 2c 2d 3c 3d", "Ah 2h 2s 3h 3s", P2_43], start="Qh", texas=True)[1]
    s.apply(DROP)
    assert rewards(s) == [-2.0, 3.0, -1.0]


def test_r5_9_texas_tonk_is_paid_double():
    s = new([P0_TRIPS_AND_RUN, P1_41, P2_43], start="Qh", stock="Js", texas=True)[1]
    turn(s, plays=[lay("5c 5d 5h"), lay("9s Ts Js")])
    assert rewards(s) == [4.0, -2.0, -2.0]


def _five_player_deck_hands(tie: bool) -> list[str]:
    if tie:
        return ["2c 2d 2h 2s 3c 3d 3h 3s 5c", "Ac Ad Ah As 4c 4d 4h 4s 5d"]
    return []


def test_r5_6_stock_exhaustion_ends_the_turn_that_drew_the_last_card_lowest_paid_one():
    # five players x 9 cards, no start card: 45 dealt, 7 in the stock
    game, s = new([], num_players=5, hand_size=9, start_discard=False, natural="none")
    assert len(s.stock) == 7 and s.counts()[0] == 24
    for _ in range(7):
        c = s.stock[-1]
        turn(s, throw=format_card(c))
    assert s.is_terminal() and s.last_result.reason == "stock_out" and s.last_result.winners == (0,)
    assert rewards(s) == [4.0, -1.0, -1.0, -1.0, -1.0]


def test_r5_7_stock_exhaustion_with_tied_lowest_is_a_draw():
    game, s = new(_five_player_deck_hands(tie=True), num_players=5, hand_size=9, start_discard=False,
                  natural="none")
    assert s.counts()[:2] == [25, 25]
    for _ in range(7):
        c = s.stock[-1]
        turn(s, throw=format_card(c))
    assert s.is_terminal() and s.last_result.reason == "draw_stock_out"
    assert rewards(s) == [0.0] * 5


def test_r5_6_last_stock_card_drawn_play_continues_to_the_end_of_that_turn():
    game, s = new([], num_players=5, hand_size=9, start_discard=False, natural="none")
    for _ in range(6):
        c = s.stock[-1]
        turn(s, throw=format_card(c))
    assert s.current_player == 1
    s.apply(DRAW_STOCK)  # the last stock card
    assert not s.stock and not s.is_terminal()
    s.apply(lay("4d 4h 4s"))  # the turn goes on: laying is still allowed
    s.apply(END_LAYING)
    assert not s.is_terminal()
    s.apply(discard("6d"))
    assert s.is_terminal() and s.last_result.reason == "stock_out"


def test_settle_functions_are_zero_sum():
    for counts in ([5, 5, 5], [1, 9, 9, 3], [10, 20, 10, 20, 10], [30, 2]):
        for d in range(len(counts)):
            for texas in (False, True):
                net, winners, _ = settle.drop(counts, d, texas)
                assert sum(net) == 0 and winners
        assert sum(settle.lowest_wins(counts, "stock_out")[0]) == 0
    assert settle.side_pot([True, True, False], [51, -1, -1])[0] == [1, -1, 0]
    assert settle.side_pot([True, False, False], [51, -1, -1])[0] == [0, 0, 0]


def test_r5_7_three_way_tie_with_the_dropper_pays_each_other_lowest_two():
    net, winners, reason = settle.drop([10, 10, 10, 30], 0)
    assert reason == "drop_tie" and winners == (1, 2)
    assert net == [-4, 3, 3, -2]
