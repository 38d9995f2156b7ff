"""The shared line-of-play rules (docs/rules.md §4): tiles, lead, must-play, block and draws."""
from __future__ import annotations

import numpy as np
import pytest

from parlor.envs.dominoes.austrian.game import make_game as austrian
from parlor.envs.dominoes.buki.game import make_game as buki
from parlor.envs.dominoes.line import PASS, PLAYABLE, TILES, Deal
from parlor.envs.engine.dominoes import Line, TileSet
from tests.dominoes.helpers import BLOCK_LINE, BUKI_BLOCK_SEAT2, deck, legal, pass_until_done, pips, play

# 2 players, block game, 11 tiles each: seat 0 holds 7-8 (leads) and 0-1; every other tile with
# a 0 or a 1 is among the 14 undealt tiles, so after 0-1 the line is blocked at once.
REST_2P = "2-3 2-4 2-5 3-4 2-6 3-5 2-7 3-6 4-5"
AUSTRIAN_2P_SEAT0_WINS = deck(
    f"0-1 7-8 {REST_2P}",
    "2-8 3-7 3-8 4-6 4-7 4-8 5-6 5-7 5-8 6-7 6-8",
)
AUSTRIAN_2P_DRAW = deck(
    "0-1 7-8 2-3 2-6 3-4 3-8 4-5 4-6 5-8 6-7 6-8",  # 15 + 90 = 105 pips after 0-1
    "2-4 2-5 2-7 2-8 3-5 3-6 3-7 4-7 4-8 5-6 5-7",  # 105 pips
)


def test_r4_1_the_set_is_double_eight_without_doubles():
    assert TILES.size == 36
    assert all(a < b <= 8 for a, b in TILES.tiles)
    assert TILES.format([0, 35]) == "0-1 7-8" and TILES.show(TILES.parse("3-5")[0]) == "3-5"
    assert int(TILES.weight.sum()) == 8 * 36  # each number 0..8 appears on 8 tiles
    assert TileSet(6, doubles=True).size == 28


def test_r4_1_parsing_rejects_bad_tiles():
    assert TILES.parse("1-0 7-8") == TILES.parse("0-1 8-7")
    for bad, msg in [("3-3", "double"), ("0-9", "numbers go"), ("x", "unknown tile"), ("0-1 1-0", "duplicate")]:
        with pytest.raises(ValueError, match=msg):
            TILES.parse(bad)
    game = buki()
    with pytest.raises(ValueError, match="whole deck of 36 tiles"):
        game.parse_deck("0-1 0-2")


def test_r4_2_line_has_two_open_ends():
    line = Line(TILES)
    line.play(TILES.parse("3-5")[0], 0)
    line.play(TILES.parse("5-8")[0], 1)
    line.play(TILES.parse("1-3")[0], 0)
    assert line.ends == [1, 8] and line.text() == "1-3 3-5 5-8"
    with pytest.raises(ValueError, match="does not match"):
        line.play(TILES.parse("2-4")[0], 0)


def test_r4_3_heaviest_tile_weight_then_higher_single_number():
    five_eight, six_seven = TILES.parse("5-8 6-7")
    assert TILES.weight[five_eight] == TILES.weight[six_seven] == 13
    assert TILES.heaviest([six_seven, five_eight]) == five_eight


def test_r4_3_first_deal_led_by_the_heaviest_tile_holder():
    game = buki()
    state = game.new_state(np.random.default_rng(0), [BUKI_BLOCK_SEAT2])  # 7-8, 6-8 in the Stamm
    assert state.deal.leader == 1  # 5-8 beats 6-7 (seat 0) on the higher single number
    state = austrian(num_players=2).new_state(np.random.default_rng(0), [AUSTRIAN_2P_SEAT0_WINS])
    assert state.current_player == 0


def test_r4_2_first_tile_may_be_any_tile_on_one_end():
    game = buki()
    state = game.new_state(np.random.default_rng(0), [BUKI_BLOCK_SEAT2])
    state.apply(game.LATER)
    hand = state.deal.hand(1)
    assert legal(state) == [2 * t for t in hand]


def test_r4_2_must_play_pass_only_without_a_fitting_tile():
    for l in range(9):
        for r in range(9):
            tiles = set((np.flatnonzero(PLAYABLE[l, r]) // 2).tolist())
            assert len(tiles) == (15 if l != r else 8)   # 8 tiles show each number
    game = buki()
    state = game.new_state(np.random.default_rng(0), [BUKI_BLOCK_SEAT2])
    state.apply(game.LATER); state.apply(BLOCK_LINE[0])   # ends 0 ... 2
    state.apply(game.LATER)
    assert PASS not in legal(state)                       # seat 2 holds 2-3, 1-2, 2-4
    assert set(legal(state)) == {play("2-3", 1), play("1-2", 1), play("2-4", 1)}


def test_r4_4_player_of_his_last_tile_wins():
    deal = Deal(2, [True, True], 1, list(range(36)), leader=0)
    deal.play(0)
    assert deal.result == "win" and deal.winner == 0 and deal.pips == [0, 2]  # seat 1 kept 0-2


def test_r4_4_blocked_deal_lowest_pip_count_wins():
    state = austrian(num_players=2).new_state(np.random.default_rng(0), [AUSTRIAN_2P_SEAT0_WINS])
    state.apply(play("0-1"))
    rewards = pass_until_done(state)
    assert state.deal.result == "blocked" and state.deal.winner == 0
    assert state.deal.pips == [15 + pips(REST_2P), 210 - 15 - pips(REST_2P)] == [83, 127]
    assert rewards.tolist() == [1.0, -1.0]


def test_r4_4_equal_lowest_pip_counts_draw_and_last_player_leads_next_deal():
    next_deck = deck("2-3 2-4 2-5 2-6 2-7 2-8 3-4 3-5 3-6 3-7 3-8", "7-8")  # heaviest at seat 1
    state = austrian(num_players=2, num_deals=2).new_state(np.random.default_rng(0),
                                                           [AUSTRIAN_2P_DRAW, next_deck])
    state.apply(play("0-1"))
    rewards = pass_until_done(state)
    assert rewards.tolist() == [0.0, 0.0] and state.deals_drawn == 1
    assert state.deal_index == 1 and state.current_player == 0 and not state.deal.by_weight


def test_r4_3_winner_leads_next_deal():
    game = buki()
    state = game.new_state(np.random.default_rng(0), [BUKI_BLOCK_SEAT2])
    for a in BLOCK_LINE:
        state.apply(game.LATER); state.apply(a)
    pass_until_done(state)
    assert state.deal_index == 1 and state.deal.leader == 2  # seat 3 played last, seat 2 won


def test_r4_5_passes_reveal_voids_in_the_observation():
    game = buki()
    state = game.new_state(np.random.default_rng(0), [BUKI_BLOCK_SEAT2])
    for a in BLOCK_LINE:
        state.apply(game.LATER); state.apply(a)
    state.apply(PASS)                                      # the banker passes on 0 ... 0
    view = state.view(2)
    assert view.void[0] == (0,) and view.ends == (0, 0)
    obs = game.encode(view)
    from parlor.envs.dominoes.encode import VOID
    rel = (0 - 2) % 4
    assert obs[VOID + 9 * rel] == 1.0 and obs[VOID + 9 * rel + 1:VOID + 9 * rel + 9].sum() == 0
