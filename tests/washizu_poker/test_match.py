"""docs/rules.md §3.4, §3.5 and §3.8: ante, deal, draw with reshuffle, elimination, dealer, match length."""
from __future__ import annotations

import numpy as np

from parlor.envs.engine.cards import parse_cards
from parlor.envs.washizu_poker.game import make_game
from parlor.envs.washizu_poker.state import sort_hand
from tests.washizu_poker.helpers import CALL, DROP, PAT, discard, play, rigged, stacked

HANDS3 = ("Ac Ad 2h 3s 4c", "Kc Kd 2d 3h 4s", "Qc Qd 5h 6s 8c")
OPTS3 = {"num_players": 3, "washizu": "none", "jokers": 0}


def cards(text: str) -> list[int]:
    return sort_hand(list(parse_cards(text)))


def test_r3_4_ante_and_deal_five_cards_each_in_turn_order() -> None:
    game, state = rigged(*HANDS3, stock="7h 7d", **OPTS3)
    assert state.pot == 3 and state.stacks == [14, 14, 14]
    assert [state.hands[p] for p in range(3)] == [cards(h) for h in HANDS3]
    assert state.stock[-2:] == list(parse_cards("7d 7h"))  # the top of the stock is the last element


def test_r3_5_replacement_cards_come_from_the_top_of_the_stock() -> None:
    game, state = rigged(*HANDS3, stock="7h 7d 9c", **OPTS3)
    play(state, discard(state, "2h 3s"))
    assert state.hands[0] == cards("Ac Ad 4c 7h 7d")
    play(state, discard(state, "4s"))
    assert state.hands[1] == cards("Kc Kd 2d 3h 9c")
    assert state.view(2).drawn == (2, 1, -1)


def test_r3_5_discarding_and_drawing_zero_is_a_pass() -> None:
    game, state = rigged(*HANDS3, stock="7h", **OPTS3)
    play(state, PAT)
    assert state.hands[0] == cards(HANDS3[0]) and state.view(1).drawn[0] == 0
    assert game.action_name(PAT) == "stand pat (draw 0)"


def test_r3_5_empty_stock_reshuffles_the_discards_but_not_the_drawers_own() -> None:
    # 6 players, 52 cards: 30 dealt, 22 in the stock. Seats 0-3 draw 5 each (20), seat 4
    # gets the last 2, then the 20 discards of seats 0-3 are shuffled into a new stock.
    game, state = rigged(num_players=6, washizu="none", jokers=0)
    for _ in range(4):
        play(state, 31)
    own = list(state.hands[4])
    play(state, 31)
    assert state.reshuffle_turn == 4 and state.reshuffle_taken == 2
    assert not set(own) & set(state.hands[4])  # his own discards were set aside
    assert sorted(state.pile) == sorted(own)
    assert len(state.stock) == 20 - 3
    play(state, 31)  # seat 5 draws from the new stock
    assert len(state.stock) == 12


def test_r3_8_elimination_at_zero_chips_and_the_match_ends_with_one_player() -> None:
    game, state = rigged("Ac Ad 2h 3s 4c", "Kc Kd 2d 3h 4s", num_players=2, washizu="none", jokers=0, starting_chips=2)
    rewards = play(state, PAT, PAT, CALL, CALL)
    assert state.is_terminal() and state.current_player is None
    assert rewards.tolist() == [2.0, -2.0]
    assert state.stats()["eliminated"] == [0.0, 1.0] and state.stats()["games_won"] == [1.0, 0.0]


def test_r3_8_eliminated_player_gets_no_cards_and_the_dealer_skips_him() -> None:
    # game 1: seat 1 (2 chips) loses everything; game 2: dealer moves from seat 2 to seat 0,
    # seat 1 is out: seat 2 acts first, then seat 0
    game = make_game(num_players=3, washizu="none", jokers=0, starting_chips=2, num_games=3)
    deck = stacked(game, *HANDS3)
    state = game.new_state(np.random.default_rng(1), decks=[deck, deck])
    play(state, PAT, PAT, PAT, CALL, CALL, DROP)
    assert state.alive == [True, False, True] and state.game_index == 1
    assert state.dealer == 0 and state.order == [2, 0] and state.current_player == 2
    assert state.hands[1] == [] and state.hands[2] == cards(HANDS3[0])  # the first 5 cards go to seat 2
    view = state.view(0)
    assert view.alive == (True, False, True) and view.in_hand == (True, False, True)


def test_r3_8_the_match_lasts_num_games_and_rewards_sum_to_the_chip_change() -> None:
    game, state = rigged(*HANDS3, **(OPTS3 | {"num_games": 2}))
    total = play(state, PAT, PAT, PAT, DROP, DROP)  # seat 2 takes 3 antes
    assert state.game_index == 1 and state.dealer == 0 and state.current_player == 1
    total += play(state, PAT, PAT, PAT, DROP, DROP)  # game 2: seat 1, 2 drop; seat 0 wins
    assert state.is_terminal()
    assert total.tolist() == [1.0, -2.0, 1.0]
    assert [s - 15 for s in state.stacks] == total.tolist()
    assert state.stats()["final_chips"] == [16.0, 13.0, 16.0]


def test_r0_3_stacked_decks_one_per_game_later_games_shuffled() -> None:
    game, state = rigged(*HANDS3, **(OPTS3 | {"num_games": 3}))
    deck2 = stacked(game, "2c 2d 2h 2s 3c")
    state = game.new_state(np.random.default_rng(5), decks=[stacked(game, *HANDS3), deck2])
    play(state, PAT, PAT, PAT, DROP, DROP)
    assert state.hands[1] == cards("2c 2d 2h 2s 3c")  # game 2 starts with seat 1
    play(state, PAT, PAT, PAT, DROP, DROP)
    assert state.game_index == 2 and sum(len(h) for h in state.hands) == 15
