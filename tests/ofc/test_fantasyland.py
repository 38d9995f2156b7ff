"""docs/rules.md §1.7-§1.9 Fantasyland through the state machine: entry, deal sizes (regular and
progressive), staying, several players at once, the deck-capacity rule, hidden
boards and the start player that does not move before a Fantasyland hand."""
from __future__ import annotations

import numpy as np
import pytest

from parlor.envs.engine.cards import parse_cards as P
from parlor.envs.ofc.encode import Layout
from tests.ofc.helpers import (
    FOULER,
    LOSER,
    OTHER_FOULER,
    PLAIN_B,
    WINNER,
    fl_seq,
    hand_script,
    new_state,
    run,
    seq,
)

OPP = seq("3d 4h 5h", "Jc Jd 7h 8h Th", "Ts Js Qd Kd 9s")       # plain: straight bottom 2
TOPS = {  # first-hand boards of seat 0 by what they put on top (all clean, none uses OPP's cards)
    "QQ": seq("Qs Qh 2c", "9c 9d 9h 4s 5s", "Ac Kc 8c 6c 3c"),
    "KK": seq("Ks Kh 2c", "9c 9d 9h 4s 5s", "Ac Qc 8c 6c 3c"),
    "AA": seq("As Ah 2c", "9c 9d 9h 4s 5s", "Kc Qc 8c 6c 3c"),
    "222": seq("2s 2h 2c", "9c 9d 9h 4s 5s", "Ac Kc 8c 6c 3c"),
}
# Fantasyland boards (seat 0 in hand 2), before the discards
FL_TRIPS = ("Qc Qh Qs", "Kc Kd Kh 3s 6s", "Ac Ad Ah 9s 9d")     # trips on top: stays
FL_PLAIN = ("2c 3c 5h", "Kc Kd 7h 3s 6s", "Ac Ad Ah 9s 9d")     # clean, nothing that stays
FL_FULL_MIDDLE = ("2c 3c 5h", "Kc Kd Kh 3s 3d", "Ac Ad Ah 9s 9d")  # full house middle (9s FH < A FH)


def fl_board(rows: tuple[str, str, str], dealt: int, opponent=PLAIN_B) -> list[tuple[int, int]]:
    """A Fantasyland seat's script: ``rows`` plus discards from cards nobody uses."""
    used = set(P(" ".join(rows))) | {c for c, _ in opponent}
    spare = [c for c in range(52) if c not in used][: dealt - 13]
    return fl_seq(*rows) + [(c, 3) for c in spare]


def first_hand(top: str = "QQ", n: int = 2):
    return hand_script({0: TOPS[top], 1: OPP}, n)


@pytest.mark.parametrize("top,regular,progressive", [("QQ", 14, 14), ("KK", 14, 15), ("AA", 14, 16), ("222", 14, 17)])
@pytest.mark.parametrize("fl_cards", ["regular", "progressive"])
def test_r1_8_fantasyland_entry_deals_all_cards_at_once(top, regular, progressive, fl_cards):
    dealt = regular if fl_cards == "regular" else progressive
    deck1, act1 = first_hand(top)
    deck2, act2 = hand_script({0: fl_board(FL_PLAIN, dealt), 1: PLAIN_B}, 2, fl=(0,))
    game, s = new_state([deck1, deck2], num_hands=2, fl_cards=fl_cards)
    run(s, act1)
    assert s.stats()["fantasyland"] == [1.0, 0.0]
    v = s.view(0)
    assert v.fantasyland == (True, False) and v.fl_dealt == (dealt, 0)
    assert s.current_player == 0 and v.pending == deck2[:dealt] and v.discards_owed == dealt - 13
    assert s.start_player == 0  # the start player does not move before a Fantasyland hand
    run(s, act2)
    assert s.is_terminal()


def test_r1_7_fantasyland_fouled_qq_does_not_enter():
    fouled_qq = seq("Qs Qh 2c", "9c 9d 4c 4s 5s", "Ac Kc 8d 6c 3c")  # two pair middle, A-high bottom: fouled
    deck1, act1 = hand_script({0: fouled_qq, 1: OPP}, 2)
    game, s = new_state([deck1], num_hands=2)
    run(s, act1)
    assert s.view(0).fantasyland == (False, False) and s.start_player == 1 and s.current_player == 1


def test_r1_8_fantasyland_board_is_hidden_from_the_others_until_the_showdown():
    deck1, act1 = first_hand()
    deck2, act2 = hand_script({0: fl_board(FL_PLAIN, 14), 1: PLAIN_B}, 2, fl=(0,))
    game, s = new_state([deck1, deck2], num_hands=2)
    run(s, act1)
    run(s, act2[:14])  # seat 0 has placed all and discarded one
    assert s.current_player == 1
    v = s.view(1)
    assert v.hidden == (True, False) and v.rows[0] == ((), (), ())
    lay = Layout(2)
    obs = game.observe(s, 1)
    assert not obs[lay.opponents:lay.unseen_rank].any()  # nothing of seat 0's board observed
    assert obs[lay.fantasyland + 1] == 1.0 and obs[lay.unseen_rank + 12] == 1.0  # all aces unseen
    assert s.view(0).hidden == (False, False) and len(s.view(0).rows[1][2]) == 0  # seat 1 has not placed yet
    world = s.determinize(1, np.random.default_rng(3))
    world.check_invariants()
    again = s.determinize(1, np.random.default_rng(4)).determinize(1, np.random.default_rng(3))
    for q in range(2):  # depends only on what seat 1 saw (not on seat 0's true board)
        np.testing.assert_array_equal(game.encode(again.view(q)), game.encode(world.view(q)))
    np.testing.assert_array_equal(game.encode(world.view(1)), game.encode(v))
    assert [len(r) for r in world.rows[0]] == [3, 5, 5]
    assert not set(c for r in world.rows[0] for c in r) & v.seen_cards()
    total = run(s, act2[14:])
    assert s.is_terminal() and s.view(1).hidden == (False, False)
    assert s.view(1).rows[0] == tuple(tuple(P(r)) for r in FL_PLAIN)
    obs = game.observe(s, 1)
    assert obs[lay.opponents + 2 * 52 + P("Ac")[0]] == 1.0  # revealed at the showdown
    # royalties cancel (aces full vs eights full: 6 each);
    # top 5-high vs 6-high: seat 1; middle KK vs 77: seat 0; bottom AAA99 vs 888 44: seat 0
    assert total.tolist() == [1, -1]


@pytest.mark.parametrize("rows,rule,stays", [
    (FL_TRIPS, "trips_fh_quads", True), (FL_TRIPS, "trips_quads", True), (FL_TRIPS, "none", False),
    (FL_FULL_MIDDLE, "trips_fh_quads", True), (FL_FULL_MIDDLE, "trips_quads", False),
    (FL_PLAIN, "trips_fh_quads", False),
])
def test_r1_9_fantasyland_stay_deals_fourteen_again(rows, rule, stays):
    deck1, act1 = first_hand("222")  # trips on top: progressive would give 17 on entry
    deck2, act2 = hand_script({0: fl_board(rows, 17), 1: PLAIN_B}, 2, fl=(0,))
    game, s = new_state([deck1, deck2], num_hands=3, fl_cards="progressive", fl_stay=rule)
    run(s, act1)
    assert s.fl_dealt == [17, 0]
    run(s, act2)
    if stays:
        assert s.view(1).fantasyland == (True, False) and s.fl_dealt == [14, 0]
        assert s.start_player == 0 and s.current_player == 0
    else:
        assert s.view(1).fantasyland == (False, False)
        assert s.start_player == 1 and s.current_player == 1  # rotation resumes
    assert s.stats()["fantasyland"] == [0.5, 0.0]  # one entry in two hands (staying is not an entry)
    stats = s.stats()
    assert stats["fl_hands"] == [0.5, 0.0] and stats["regular_hands"] == [0.5, 1.0]
    assert stats["fl_stays"] == ([0.5, 0.0] if stays else [0.0, 0.0])


def test_r1_9_fantasyland_entry_rule_does_not_apply_inside_fantasyland():
    qq_in_fl = ("Qc Qh 2s", "Kc Kd 7h 3s 6s", "Ac Ad Ah 9s 9d")  # QQ on top while in Fantasyland
    deck1, act1 = first_hand()
    deck2, act2 = hand_script({0: fl_board(qq_in_fl, 14), 1: PLAIN_B}, 2, fl=(0,))
    game, s = new_state([deck1, deck2], num_hands=3)
    run(s, act1)
    run(s, act2)
    assert s.view(0).fantasyland == (False, False)


def test_r1_8_fantasyland_non_start_player_acts_first_and_start_stays():
    deck1, act1 = hand_script({0: OPP, 1: TOPS["QQ"]}, 2)
    deck2, act2 = hand_script({1: fl_board(FL_PLAIN, 14), 0: PLAIN_B}, 2, fl=(1,))
    game, s = new_state([deck1, deck2], num_hands=2)
    run(s, act1)
    assert s.start_player == 0 and s.current_player == 1
    run(s, act2)
    assert s.is_terminal()


def test_r1_7_fantasyland_several_players_at_once_in_seat_order():
    kk = seq("Ks Kh 3d", "Tc Td Th 4d 5d", "2s 3s 6s 7s Js")
    third = seq("2h 4h 5h", "Jc Jd 7h 8h 9s", "As Ad Ah 6d 7d")
    deck1, act1 = hand_script({0: WINNER, 1: kk, 2: third}, 3)
    fl0 = fl_seq("2c 3c 5h", "Kc Kd 7h 3s 6s", "Ac Ad Ah 9s 9d") + [(P("Jh")[0], 3)]
    fl1 = fl_seq("2d 3d 4d", "Qc Qd 8h 8c 7c", "Tc Th Ts Td 5c") + [(P("Js")[0], 3)]
    p2 = seq("2s 4s 5s", "6c 6h 7s 8s 9c", "Qh Qs Kh Ks 4c")
    deck2, act2 = hand_script({0: fl0, 1: fl1, 2: p2}, 3, fl=(0, 1))
    game, s = new_state([deck1, deck2], num_players=3, num_hands=2)
    run(s, act1)
    assert s.view(2).fantasyland == (True, True, False) and s.start_player == 0
    assert s.current_player == 0 and s.view(0).pending == deck2[:14]
    run(s, act2[:14])
    assert s.current_player == 1 and s.view(1).pending == deck2[14:28]
    assert s.view(1).hidden == (True, False, False)  # the other Fantasyland board is face down too
    run(s, act2[14:28])
    assert s.current_player == 2 and s.view(2).pending == deck2[28:33]
    run(s, act2[28:])
    assert s.is_terminal()


def test_r1_7_fantasyland_deck_capacity_four_players_original_gets_thirteen():
    deck1, act1 = hand_script({0: WINNER, 1: LOSER, 2: FOULER, 3: OTHER_FOULER}, 4)
    game, s = new_state([deck1], num_players=4, num_hands=2)
    run(s, act1)
    v = s.view(0)
    assert v.fantasyland == (True, False, False, False) and v.fl_dealt == (13, 0, 0, 0)
    assert len(v.pending) == 13 and v.discards_owed == 0
    assert 3 not in np.flatnonzero(s.legal_mask())


def test_r1_10_multi_hand_statistics_split_the_points_by_regular_and_fantasyland_hands():
    deck1, act1 = first_hand("AA")
    deck2, act2 = hand_script({0: fl_board(FL_TRIPS, 14), 1: PLAIN_B}, 2, fl=(0,))
    game, s = new_state([deck1, deck2], num_hands=3)
    first = run(s, act1)
    second = run(s, act2)
    stats = s.stats()   # two hands played: seat 0 regular then Fantasyland (stays: trips on top)
    assert stats["points"] == [x / 2 for x in s.totals]
    assert stats["regular_points"] == [first[0] / 2, (first[1] + second[1]) / 2]
    assert stats["fl_points"] == [second[0] / 2, 0.0] and second[0] > 0
    assert stats["fl_hands"] == [0.5, 0.0] and stats["fl_stays"] == [0.5, 0.0]
    assert stats["fantasyland"] == [0.5, 0.0] and stats["regular_hands"] == [0.5, 1.0]
    assert game.stat_ratios == {
        "fl_entry_rate": ("fantasyland", "regular_hands"), "fl_stay_rate": ("fl_stays", "fl_hands"),
        "points_per_fl_hand": ("fl_points", "fl_hands"), "points_per_regular_hand": ("regular_points", "regular_hands"),
    }


def test_r1_10_single_hand_episodes_report_foul_fantasyland_and_royalties_only():
    game, s = new_state([], num_hands=1)
    assert sorted(s.stats()) == ["fantasyland", "foul", "royalties"] and game.stat_ratios == {}
