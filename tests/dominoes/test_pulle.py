"""Pulle (docs/rules.md §4b): totals, sitting out at 101, the pool, buy-backs, per-deal payments."""
from __future__ import annotations

import numpy as np

from parlor.envs.dominoes.pulle.game import make_game
from parlor.envs.dominoes.pulle.state import BUY, NO_BUY, buy_back_total
from tests.dominoes.helpers import BLOCK_LINE, deck, legal, pass_until_done

# seat 1 leads with 7-8; 0-2, 2-3, 0-3 make the ends 0 ... 0 and every other 0 tile is undealt
PULLE_BLOCK = deck(
    "6-8 6-7 5-8 5-7 4-8 5-6 4-7",        # seat 0: 86 pips
    "0-2 7-8 3-8 4-6 3-7 2-8 4-5",        # seat 1: 65 after 0-2
    "2-3 1-4 1-5 2-4 1-6 2-5 1-2",        # seat 2: 34 after 2-3 (lowest: wins)
    "0-3 1-7 1-8 2-6 2-7 3-5 3-6",        # seat 3: 51 after 0-3
)
PIPS = [86, 65, 34, 51]


def new(totals=(0, 0, 0, 0), **options):
    game = make_game(**options)
    state = game.new_state(np.random.default_rng(0), [PULLE_BLOCK, PULLE_BLOCK])
    state.totals = list(totals)   # running totals as if from earlier deals
    return game, state


def block(state):
    total = np.zeros(4)
    for a in BLOCK_LINE:
        state.apply(a)
        total += state.take_rewards()
    return total + pass_until_done(state)


def test_r4b_2_stakes_go_to_the_pool_and_pips_are_added_to_totals():
    _, state = new()
    assert state.ledger.pot == 16 and state.ledger.balances == [96] * 4 and state.deal.counts == [7] * 4
    assert state.current_player == 1
    rewards = block(state)
    assert state.totals == PIPS and rewards.tolist() == [0.0] * 4
    assert state.current_player == 2  # the winner leads


def test_r4b_2_total_of_101_sits_out_the_following_deals():
    _, state = new((15, 0, 0, 0))
    block(state)
    assert state.totals[0] == 101 and state.out == [True, False, False, False]
    assert state.deal.counts == [0, 7, 7, 7] and state.view(1).active == (False, True, True, True)


def test_r4b_3_last_player_in_wins_the_pool():
    _, state = new((15, 36, 0, 50))
    rewards = block(state)
    assert state.is_terminal() and state.pool_won == [0, 0, 1, 0]
    assert rewards.tolist() == [-4.0, -4.0, 12.0, -4.0] and state.ledger.balances == [96, 96, 112, 96]


def test_r4b_3_all_reaching_101_together_start_over_with_new_stakes():
    _, state = new((15, 36, 67, 50))
    rewards = block(state)
    assert not state.is_terminal() and state.resets == 1
    assert state.totals == [0] * 4 and state.out == [False] * 4
    assert state.ledger.pot == 32 and state.ledger.balances == [92] * 4 and rewards.tolist() == [0.0] * 4


def test_r4b_4_buy_back_median_cases():
    assert buy_back_total([37, 54, 88]) == 54
    assert buy_back_total([88, 54, 54]) == 54      # two equal: that value
    assert buy_back_total([37, 37, 88]) == 37
    assert buy_back_total([50, 50, 50]) == 51      # all three equal: that value + 1


def test_r4b_4_buy_back_pays_half_the_stake_for_the_median_total():
    _, state = new((2, 31, 3, 3), buy_back=True)   # after the deal: 88, 96, 37, 54
    block(state)
    assert state.totals == [88, 96, 37, 54]
    # asked clockwise from the leader (seat 2); only when it lowers the total
    assert state.phase == "buy_back" and state.current_player == 0 and state.buy_back_value == 54
    assert legal(state) == [BUY, NO_BUY]
    state.apply(NO_BUY)
    assert state.current_player == 1 and state.buy_back_value == 54   # 37, 54, 88 -> 54
    state.apply(BUY)
    assert state.totals[1] == 54 and state.ledger.pot == 18 and state.ledger.balances[1] == 94
    assert state.phase == "tile" and state.current_player == 2


def test_r4b_4_no_buy_back_unless_all_four_are_in():
    _, state = new((15, 31, 3, 3), buy_back=True)
    block(state)
    assert state.out[0] and state.phase == "tile"


def test_r4b_5_per_deal_payment_is_halved_after_a_block():
    _, state = new(per_deal_payment=2)
    rewards = block(state)
    assert rewards.tolist() == [-1.0, -1.0, 3.0, -1.0]


def test_r4b_5_per_deal_payment_in_full_for_a_domino():
    game = make_game(per_deal_payment=2)
    rng = np.random.default_rng(1)
    checked = 0
    for seed in range(20):
        state = game.new_state(np.random.default_rng(seed))
        while not state.is_terminal() and checked < 5:
            deal = state.deal
            moves = legal(state)
            state.apply(moves[rng.integers(len(moves))])
            rewards = state.take_rewards()
            if deal.over and deal.result == "win" and not state.is_terminal():
                players = sum(deal.active)
                expected = [2.0 * (players - 1) if s == deal.winner else (-2.0 if deal.active[s] else 0.0)
                            for s in range(4)]
                assert rewards.tolist() == expected
                checked += 1
    assert checked == 5


def test_r4b_6_truncation_at_max_deals_returns_the_pool():
    _, state = new(max_deals=1)
    rewards = block(state)
    assert state.is_truncated() and not state.is_terminal() and state.current_player is None
    assert state.ledger.balances == [100] * 4 and rewards.tolist() == [0.0] * 4


def test_r4b_6_stats_for_the_evaluator():
    _, state = new((15, 36, 0, 50))
    block(state)
    stats = state.stats()
    assert stats["pool_won"] == [0.0, 0.0, 1.0, 0.0] and stats["deals_won"] == [0.0, 0.0, 1.0, 0.0]
    assert stats["chip_change"] == [-4.0, -4.0, 12.0, -4.0]
