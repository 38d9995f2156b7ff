"""Buki (docs/rules.md §4a) through the real state machine with rigged decks."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from parlor.envs.dominoes.buki.game import make_game
from parlor.envs.dominoes.line import PASS
from parlor.envs.engine.game import ConfigError, IllegalActionError
from tests.dominoes.helpers import (
    BLOCK_LINE,
    BUKI_BLOCK_BANKER,
    BUKI_BLOCK_DRAW,
    BUKI_BLOCK_SEAT1,
    BUKI_BLOCK_SEAT2,
    legal,
    pass_until_done,
)


def new(decks, **options):
    game = make_game(**options)
    return game, game.new_state(np.random.default_rng(0), [game.parse_deck(d) for d in decks])


def bet(game, amount):
    return game.bet_id(amount)


def test_r4a_1_defaults_four_players_six_tiles_bets_two_to_six():
    game, state = new([BUKI_BLOCK_SEAT2])
    assert game.config.max_bet == 6 and game.num_players == 4
    assert state.deal.counts == [6, 6, 6, 6] and len(state.deal.stock) == 12
    assert game.num_actions == 73 + 5 + 3


def test_r4a_2_seven_tiles_leave_an_eight_tile_stamm():
    _, state = new([], hand_size=7)
    assert state.deal.counts == [7, 7, 7, 7] and len(state.deal.stock) == 8


def test_r4a_7_bad_options_name_the_field():
    with pytest.raises(ConfigError, match="hand_size"):
        make_game(hand_size=5)
    with pytest.raises(ConfigError, match="max_bet"):
        make_game(min_bet=4, max_bet=3)
    with pytest.raises(ConfigError, match="chips"):
        make_game(num_deals=20)  # 20 deals x 11 worst-case banker loss > 100 chips


def test_r4a_5_winner_gets_bet_back_plus_two_and_a_half_times_from_banker():
    game, state = new([BUKI_BLOCK_SEAT2])
    assert state.current_player == 1 and state.phase == "bet"
    state.apply(bet(game, 2)); state.apply(BLOCK_LINE[0])      # seat 1 bets 2, leads 0-2
    state.apply(bet(game, 3)); state.apply(BLOCK_LINE[1])      # seat 2 bets 3
    state.apply(bet(game, 4)); state.apply(BLOCK_LINE[2])      # seat 3 bets 4
    assert state.ledger.pot == 9
    rewards = pass_until_done(state)                           # blocked: seat 2 has 26 pips, lowest
    assert state.deals_won == [0, 0, 1, 0]
    assert state.ledger.balances == [Fraction(197, 2), 98, Fraction(215, 2), 96]  # 3 back + 7.5
    assert rewards.tolist() == [-1.5, -2.0, 7.5, -4.0]
    assert state.ledger.pot == 0 and state.bets == [0, 0, 0, 0]


def test_r4a_5_the_payout_per_bet_equals_the_table_it_replaced_at_both_ends_of_the_bets():
    """``game.payout(bet)`` (computed per bet) gives what the table built up to ``max_bet``
    held: 2.5 x bet exactly, a plain int for an even bet, a Fraction for an odd one."""
    from parlor.envs.engine.config import MAX_STAKE

    game = make_game(min_bet=1, max_bet=MAX_STAKE, num_deals=1, chips=3 * MAX_STAKE)
    rng = np.random.default_rng(0)
    bets = [0, 1, 2, 3, 4, 5, 6, 7, MAX_STAKE - 1, MAX_STAKE, *rng.integers(1, MAX_STAKE, 50).tolist()]
    for b in bets:
        table = 5 * b // 2 if b % 2 == 0 else Fraction(5 * b, 2)   # exact(PAYOUT * b), the old entry
        got = game.payout(b)
        assert got == table and type(got) is type(table), (b, got)
    assert make_game().payout(6) == 15 and make_game().payout(5) == Fraction(25, 2)


def test_r4a_5_banker_takes_every_bet_when_he_wins():
    game, state = new([BUKI_BLOCK_BANKER])
    state.apply(bet(game, 5)); state.apply(BLOCK_LINE[0])
    state.apply(bet(game, 2)); state.apply(BLOCK_LINE[1])
    state.apply(bet(game, 6)); state.apply(BLOCK_LINE[2])
    rewards = pass_until_done(state)
    assert rewards.tolist() == [13.0, -5.0, -2.0, -6.0]
    assert state.ledger.balances == [113, 95, 98, 94]


def test_r4a_3_deal_ending_before_a_bet_charges_the_minimum():
    game, state = new([BUKI_BLOCK_SEAT2])
    for a in BLOCK_LINE:
        state.apply(game.LATER); state.apply(a)
    rewards = pass_until_done(state)   # nobody reached his 3rd turn
    assert rewards.tolist() == [-1.0, -2.0, 5.0, -2.0]


def test_r4a_5_drawn_deal_carries_bets_which_may_be_raised_not_lowered():
    game, state = new([BUKI_BLOCK_DRAW, BUKI_BLOCK_SEAT2])
    state.apply(bet(game, 3)); state.apply(BLOCK_LINE[0])
    state.apply(bet(game, 2)); state.apply(BLOCK_LINE[1])
    state.apply(game.LATER); state.apply(BLOCK_LINE[2])
    rewards = pass_until_done(state)   # seats 2 and 3 both hold 32 pips: a draw
    assert rewards.tolist() == [0.0, 0.0, 0.0, 0.0] and state.deals_drawn == 1
    assert state.bets == [0, 3, 2, 2] and state.ledger.pot == 7   # seat 3 charged the minimum
    assert state.carried == [False, True, True, True]
    # the last tile was seat 3's: he leads deal 2 (not 5-8's holder, seat 1)
    assert state.deal_index == 1 and state.current_player == 3 and state.phase == "bet"
    assert legal(state) == [bet(game, 3), bet(game, 4), bet(game, 5), bet(game, 6), game.LATER]
    with pytest.raises(IllegalActionError, match="legal actions"):
        state.apply(bet(game, 2))


def test_r4a_5_carried_bet_raise_window_closes_after_the_third_turn():
    game = make_game()
    bet_turns, late_turns = set(), 0
    for seed in range(6):
        state = game.new_state(np.random.default_rng(seed), [game.parse_deck(BUKI_BLOCK_DRAW)])
        for a in BLOCK_LINE:
            state.apply(game.LATER); state.apply(a)
        pass_until_done(state)
        assert state.bets == [0, 2, 2, 2]
        rng = np.random.default_rng(seed)
        while state.deal_index == 1 and state.current_player is not None:  # deal 2 is shuffled
            p = state.current_player
            if state.phase == "bet":
                assert state.carried[p] and state.deal.turns[p] <= 3
                bet_turns.add(state.deal.turns[p])
                state.apply(game.LATER)   # keep the carried bet
            else:
                late_turns += p != 0 and state.deal.turns[p] >= 4
                moves = legal(state)
                state.apply(moves[rng.integers(len(moves))])
    assert bet_turns == {1, 2, 3} and late_turns > 0


def test_r4a_3_previous_winner_must_bet_before_his_first_turn():
    game, state = new([BUKI_BLOCK_SEAT2, BUKI_BLOCK_SEAT2])
    for a in BLOCK_LINE:
        state.apply(game.LATER); state.apply(a)
    pass_until_done(state)
    assert state.must_bet_first == [False, False, True, False]
    assert state.current_player == 2 and state.phase == "bet"   # the winner leads deal 2
    assert game.LATER not in legal(state) and state.bet_due
    assert legal(state) == [bet(game, x) for x in range(2, 7)]


def test_r4a_3_bet_is_due_on_the_third_turn():
    game = make_game()
    rng = np.random.default_rng(11)
    for seed in range(5):
        state = game.new_state(np.random.default_rng(seed))
        while state.current_player is not None:
            p = state.current_player
            if state.phase == "bet":
                k, due = state.deal.turns[p], state.bets[p] == 0 and state.deal.turns[p] == 3
                assert (game.LATER not in legal(state)) == (due or state.must_bet_first[p] and k == 1)
                state.apply(game.LATER if game.LATER in legal(state) else legal(state)[0])
            else:
                if state.deal.turns[p] > 3 and p != state.banker:
                    assert state.bets[p] > 0, "a non-banker acted on his 4th turn without a bet"
                moves = legal(state)
                state.apply(moves[rng.integers(len(moves))])


def test_r4a_4_raise_before_4th_needs_the_bankers_consent():
    game, state = new([BUKI_BLOCK_SEAT2], raise_before_4th=True)
    state.apply(bet(game, 2)); state.apply(BLOCK_LINE[0])
    state.apply(bet(game, 2)); state.apply(BLOCK_LINE[1])
    state.apply(game.LATER); state.apply(BLOCK_LINE[2])
    assert state.current_player == 0 and legal(state) == [PASS]   # the banker never bets
    state.apply(PASS)
    # seat 1, turn 2: may propose a raise; the banker refuses
    assert state.current_player == 1 and state.phase == "bet"
    assert legal(state) == [bet(game, x) for x in range(3, 7)] + [game.LATER]
    state.apply(bet(game, 5))
    assert state.current_player == 0 and state.phase == "accept"
    assert legal(state) == [game.ACCEPT, game.REFUSE]
    state.apply(game.REFUSE)
    assert state.bets[1] == 2 and state.current_player == 1 and legal(state) == [PASS]
    state.apply(PASS)
    # seat 2, turn 2: proposes 6, accepted
    state.apply(bet(game, 6))
    state.apply(game.ACCEPT)
    assert state.bets[2] == 6 and state.ledger.pot == 8
    state.apply(PASS)
    state.apply(bet(game, 2)); state.apply(PASS)              # seat 3 bets at his 2nd turn
    assert state.deal_index == 1                               # blocked: seat 2 won
    assert state.deals_won[2] == 1
    assert state.ledger.balances == [89, 98, 115, 98]     # 6 back + 15 from the banker


def test_r4a_4_without_the_option_a_placed_bet_is_final():
    game, state = new([BUKI_BLOCK_SEAT2])
    state.apply(bet(game, 2)); state.apply(BLOCK_LINE[0])
    state.apply(bet(game, 2)); state.apply(BLOCK_LINE[1])
    state.apply(bet(game, 2)); state.apply(BLOCK_LINE[2])
    state.apply(PASS)
    assert state.current_player == 1 and state.phase == "tile"


def test_r4a_6_episode_is_num_deals_and_drawn_last_deal_returns_bets():
    game, state = new([BUKI_BLOCK_DRAW], num_deals=1)
    state.apply(bet(game, 4)); state.apply(BLOCK_LINE[0])
    for a in BLOCK_LINE[1:]:
        state.apply(game.LATER); state.apply(a)
    rewards = pass_until_done(state)
    assert state.is_terminal() and state.current_player is None
    assert rewards.tolist() == [0.0] * 4 and state.ledger.balances == [100] * 4 and state.ledger.pot == 0


def test_r4a_6_chip_results_in_stats():
    game, state = new([BUKI_BLOCK_SEAT2], num_deals=1)
    for a in BLOCK_LINE:
        state.apply(game.LATER); state.apply(a)
    pass_until_done(state)
    stats = state.stats()
    assert stats["deals_won"] == [0.0, 0.0, 1.0, 0.0]
    assert stats["chips_per_deal"] == [-1.0, -2.0, 5.0, -2.0]


def play_blocked_deal(game, state, bets) -> np.ndarray:
    """One deal of a BLOCK_LINE deck: seats 1, 2, 3 bet ``bets`` at their first turn (a seat
    whose bet is carried and at the most passes on raising), then the line blocks."""
    for seat, tile in zip((1, 2, 3), BLOCK_LINE):
        assert state.current_player == seat
        if state.phase == "bet":
            state.apply(bet(game, bets[seat - 1]) if state.bets[seat] == 0 else game.LATER)
        state.apply(tile)
    return pass_until_done(state)


def test_r4a_5_banker_collects_the_losing_bets_before_paying_the_winner():
    # issue 23: chips=11 covers one deal (2.5 x 6 - 2 x 2 = 11) only if the banker collects the
    # two losing bets before he pays seat 1's 15; paying first failed ("cannot pay 15")
    game, state = new([BUKI_BLOCK_SEAT1], num_deals=1, chips=11)
    rewards = play_blocked_deal(game, state, (6, 2, 2))
    assert state.deals_won == [0, 1, 0, 0] and state.is_terminal()
    assert rewards.tolist() == [-11.0, 15.0, -2.0, -2.0]
    assert state.ledger.balances == [0, 26, 9, 9]


@pytest.mark.parametrize("min_bet, max_bet, num_deals, need", [
    (2, 6, 3, 33),     # the banker's 2.5 x 6 - 2 x 2 = 11 a deal
    (2, 5, 1, 9),      # 8.5, in whole chips 9
    (3, 9, 8, 132),    # min_bet=3 and the default max_bet 9 need 132 chips, not the default 100
    (3, 7, 8, 92),     # ... with max_bet 7 the default 100 chips are enough
    (6, 6, 2, 12),     # a non-banker losing 6 a deal costs more than the banker's 3
])
def test_r4a_1_the_chips_bound_is_the_worst_run_of_deals(min_bet, max_bet, num_deals, need):
    options = dict(min_bet=min_bet, max_bet=max_bet, num_deals=num_deals)
    make_game(chips=need, **options)
    with pytest.raises(ConfigError, match=f"chips={need - 1} cannot cover.*allowed values: chips >= {need}"):
        make_game(chips=need - 1, **options)


@pytest.mark.parametrize("min_bet, max_bet, num_deals", [(2, 6, 3), (2, 5, 2), (6, 6, 2), (1, 3, 4)])
def test_r4a_1_the_worst_run_settles_at_the_bound(min_bet, max_bet, num_deals):
    """Seat 1 wins every deal at max_bet while seats 2 and 3 bet min_bet (the banker's worst
    run) or max_bet (their own worst): with the fewest chips allowed every deal settles, and
    one of the two runs leaves its loser less than a chip (the bound is exact)."""
    from parlor.envs.dominoes.buki.game import chips_needed

    need = chips_needed(min_bet, max_bet, num_deals)
    chips = math.ceil(need)
    ends = []
    for others, loser in ((min_bet, 0), (max_bet, 2)):
        game, state = new([BUKI_BLOCK_SEAT1] * num_deals, min_bet=min_bet, max_bet=max_bet,
                          num_deals=num_deals, chips=chips)
        for _ in range(num_deals):
            play_blocked_deal(game, state, (max_bet, others, others))
            state.check_invariants()
        assert state.is_terminal() and state.deals_won == [0, num_deals, 0, 0]
        worst = Fraction(5, 2) * max_bet - 2 * min_bet if loser == 0 else max_bet
        assert state.ledger.balances[loser] == chips - num_deals * worst >= 0
        ends.append(state.ledger.balances[loser])
    assert min(ends) == chips - need < 1


@pytest.mark.parametrize("options", [dict(num_deals=1, chips=11), dict(min_bet=3, max_bet=7),
                                     dict(min_bet=1, max_bet=4, num_deals=3, chips=24, raise_before_4th=True)])
def test_r4a_1_every_accepted_setting_settles_under_random_play(options):
    game = make_game(**options)
    rng = np.random.default_rng(0)
    for episode in range(30):
        state = game.new_state(np.random.default_rng(episode))
        while not state.is_terminal():
            state.apply(int(rng.choice(np.flatnonzero(state.legal_mask()))))
            state.check_invariants()
