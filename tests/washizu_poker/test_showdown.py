"""docs/rules.md §3.3 and §3.7 hand ranking and showdown, through the real state machine (rigged decks)."""
from __future__ import annotations

import numpy as np

from parlor.envs.engine.cards import parse_cards
from parlor.envs.engine.hands import Category, category, rank5, rank_values
from parlor.envs.washizu_poker.state import sort_hand
from tests.washizu_poker.helpers import CALL, DROP, PAT, play, raise_by, rigged


def showdown_2p(hand0: str, hand1: str, **options) -> tuple[np.ndarray, object]:
    """Two players stand pat and call: returns the rewards and the state."""
    options = {"num_players": 2, "washizu": "none", "jokers": 2, "num_games": 1} | options
    game, state = rigged(hand0, hand1, **options)
    rewards = play(state, PAT, PAT, CALL, CALL)
    assert state.is_terminal()
    return rewards, state


def test_r3_3_five_of_a_kind_with_a_joker_beats_a_straight_flush() -> None:
    rewards, state = showdown_2p("Ah Ac Ad As Xx", "9s Ts Js Qs Ks")
    assert category(rank5(state.hands[0])) == Category.FIVE_OF_A_KIND
    assert category(rank5(state.hands[1])) == Category.STRAIGHT_FLUSH
    assert rewards.tolist() == [2.0, -2.0]


def test_r3_3_two_jokers_make_five_of_a_kind_from_three() -> None:
    rewards, state = showdown_2p("9h 9c 9d Xx Xy", "5s 6s 7s 8s 9s")
    assert category(rank5(state.hands[0])) == Category.FIVE_OF_A_KIND
    assert rewards.tolist() == [2.0, -2.0]


def test_r3_3_joker_completes_a_straight_with_the_best_substitution() -> None:
    # 9-T-J-Q + joker: the joker is the king (K-high straight), beating the J-high straight 7..J
    rewards, state = showdown_2p("9c Td Jh Qs Xx", "7c 8d 9h Th Jc")
    assert category(rank5(state.hands[0])) == Category.STRAIGHT
    assert rewards.tolist() == [2.0, -2.0]


def test_r3_3_joker_completes_a_flush_and_the_best_hand_is_taken() -> None:
    # four hearts + joker: a flush (not just a pair), beating a straight
    rewards, state = showdown_2p("2h 7h 9h Kh Xx", "4c 5d 6h 7s 8c")
    assert category(rank5(state.hands[0])) == Category.FLUSH
    assert rewards.tolist() == [2.0, -2.0]


def test_r3_3_joker_pair_makes_trips_over_two_pair() -> None:
    rewards, _ = showdown_2p("3c 3d 8h 9s Xx", "Ac Ad Kh Ks Qc")
    assert rewards.tolist() == [2.0, -2.0]


def test_r3_3_wheel_is_the_lowest_straight_and_there_is_no_wraparound() -> None:
    rewards, _ = showdown_2p("Ac 2d 3h 4s 5c", "2c 3d 4h 5s 6c", jokers=0)
    assert rewards.tolist() == [-2.0, 2.0]
    # K-A-2-3-4 is no straight: ace high loses to a pair of twos
    rewards, _ = showdown_2p("Kc Ad 2h 3s 4c", "2d 2s 7h 9c Jd", jokers=0)
    assert rewards.tolist() == [-2.0, 2.0]


def test_r3_3_double_deck_identical_cards_pair_and_make_five_of_a_kind() -> None:
    # extra_deck: As and As* are both real; As As* Ah Ah* Ad is five aces without a joker
    rewards, state = showdown_2p("As As* Ah Ah* Ad", "Ts Js Qs Ks Xx", washizu="extra_deck", jokers=1)
    assert category(rank5(state.hands[0])) == Category.FIVE_OF_A_KIND
    assert rewards.tolist() == [2.0, -2.0]
    rewards, _ = showdown_2p("7c 7c* 2d 4h 9s", "Ac Kd Qh Js 9d", washizu="extra_deck", jokers=0)
    assert rewards.tolist() == [2.0, -2.0]


def test_r3_3_double_deck_joker_in_a_flush_may_be_the_twin_of_a_card_in_hand() -> None:
    # issue 23: with extra_deck the joker may be As*: A-A-K-Q-2 beats A-K-Q-J-9 (it lost before)
    rewards, state = showdown_2p("As Ks Qs 2s Xx", "Ah Kh Qh Jh 9h", washizu="extra_deck", jokers=1)
    assert rank_values(state.game.rank5(state.hands[0])) == (12, 12, 11, 10, 0)
    assert rewards.tolist() == [2.0, -2.0]
    # one deck has no second As: the joker is the best missing card, A-K-Q-J-2 loses to A-K-Q-J-9
    rewards, _ = showdown_2p("As Ks Qs 2s Xx", "Ah Kh Qh Jh 9h", washizu="none", jokers=1)
    assert rewards.tolist() == [-2.0, 2.0]


def test_r3_7_suits_never_break_ties_the_pot_is_split() -> None:
    rewards, state = showdown_2p("Ac Kc Qc Jc 9d", "Ad Kd Qd Jd 9c", jokers=0)
    assert rewards.tolist() == [0.0, 0.0]
    assert state.last_result.winners == (0, 1)


def test_r3_7_split_pot_remainder_is_removed_from_play() -> None:
    # 3 players: antes 3, seat 0 raises to 2, seat 1 drops, seat 2 calls 2: pot 7 between two
    # tied hands: 3 each, 1 chip leaves play
    game, state = rigged("Ac Kc Qc Jc 9d", "2c 3d 4h 7s 8c", "Ad Kd Qd Jd 9c",
                         num_players=3, washizu="none", jokers=0, num_games=1)
    rewards = play(state, PAT, PAT, PAT, raise_by(1), DROP, CALL)
    assert state.last_result.pot == 7 and state.last_result.removed == 1
    assert rewards.tolist() == [0.0, -1.0, 0.0]
    assert rewards.sum() == -1 and int(state.ledger.removed) == 1
    assert state.stacks == [15, 14, 15]


def test_r3_7_showdown_hands_are_shown_to_everyone_afterwards() -> None:
    game, state = rigged("Ac Ad 2h 3s 4c", "Kc Kd 2d 3h 4s", num_players=2, washizu="none", jokers=0)
    play(state, PAT, PAT, CALL, CALL)
    view = state.view(1)
    assert view.last_result.shown[0] == tuple(sort_hand(list(parse_cards("Ac Ad 2h 3s 4c"))))
    assert view.last_result.winners == (0,)
