"""The Austrian block and draw games (docs/rules.md §4c)."""
from __future__ import annotations

import numpy as np
import pytest

from parlor.envs.dominoes.austrian.game import make_game
from parlor.envs.dominoes.austrian.state import HAND_SIZES
from parlor.envs.dominoes.line import PASS, Deal
from parlor.envs.engine.game import ConfigError
from tests.dominoes.helpers import deck, legal, play

DRAW_2P = deck("0-1 7-8 2-4 2-5 2-6 2-7 2-8 3-4",
               "3-5 3-6 3-7 3-8 4-5 4-6 4-7 4-8",   # no 0, no 1
               rest_first="2-3 0-4")                 # boneyard: 2-3 does not fit, 0-4 does


@pytest.mark.parametrize("mode,n,sizes", [("block", 2, (11, 12)), ("block", 3, (8, 9)), ("block", 4, (7, 8)),
                                          ("draw", 2, (8, 9)), ("draw", 3, (7,)), ("draw", 4, (6,))])
def test_r4c_1_hand_size_table(mode, n, sizes):
    assert HAND_SIZES[mode][n] == sizes
    for size in sizes:
        state = make_game(mode=mode, num_players=n, hand_size=size).new_state(np.random.default_rng(0))
        assert state.deal.counts == [size] * n and len(state.deal.stock) == 36 - n * size
    assert make_game(mode=mode, num_players=n).config.hand_size == sizes[0]
    with pytest.raises(ConfigError, match="hand_size"):
        make_game(mode=mode, num_players=n, hand_size=10)


def test_r4c_5_options_are_validated():
    with pytest.raises(ConfigError, match="num_players"):
        make_game(num_players=5)
    with pytest.raises(ConfigError, match="mode"):
        make_game(mode="muggins")
    with pytest.raises(ConfigError, match="max_draws"):
        make_game(mode="block", max_draws=3)


def test_r4c_3_draw_game_draws_until_a_tile_fits_then_must_play_it():
    state = make_game(mode="draw", num_players=2).new_state(np.random.default_rng(0), [DRAW_2P])
    assert state.current_player == 0
    state.apply(play("0-1"))
    assert legal(state) == [PASS] and state.game.action_name(PASS).startswith("draw")
    state.apply(PASS)
    assert state.current_player == 1 and state.deal.draws == 2 and state.deal.counts == [7, 10]
    assert legal(state) == [play("0-4", 0)]        # the drawn 0-4 fits the 0 end: he must play it
    assert state.view(0).stock_count == 18 and state.view(0).void[1] == (0, 1)
    state.apply(play("0-4", 0))
    assert state.current_player == 0 and state.deal.ends == (4, 1)


def test_r4c_3_max_draws_then_pass():
    state = make_game(mode="draw", num_players=2, max_draws=1).new_state(np.random.default_rng(0), [DRAW_2P])
    state.apply(play("0-1"))
    state.apply(PASS)                              # draws 2-3 (no fit), limit reached: passes
    assert state.current_player == 0 and state.deal.counts == [7, 9] and state.deal.passes == 1


def test_r4c_3_empty_boneyard_means_pass():
    # all 36 tiles dealt: seat 0 holds 0-1 .. 2-5 (ids 0..17), seat 1 holds 2-6 .. 7-8
    deal = Deal(2, [True, True], 18, list(range(36)), leader=0, draw_mode=True)
    assert not deal.stock and not deal.can_draw()
    deal.play(play("0-1"))
    assert np.flatnonzero(deal.tile_mask()).tolist() == [PASS]
    assert deal.pass_or_draw() == []
    assert deal.passes == 1 and deal.current == 0 and deal.counts == [17, 18]


def test_r4c_4_block_game_reward_plus_one_minus_a_third():
    game = make_game()
    rng = np.random.default_rng(5)
    for seed in range(30):
        state = game.new_state(np.random.default_rng(seed))
        total = np.zeros(4)
        while not state.is_terminal():
            moves = legal(state)
            state.apply(moves[rng.integers(len(moves))])
            total += state.take_rewards()
        if state.deal.winner is None:
            assert total.tolist() == [0.0] * 4
        else:
            w = state.deal.winner
            assert total[w] == 1.0 and all(total[s] == pytest.approx(-1 / 3) for s in range(4) if s != w)
