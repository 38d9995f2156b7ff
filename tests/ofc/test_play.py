"""docs/rules.md §1 / issue 3 through the real state machine: dealing order, masks,
scripted hands with stacked decks and their rewards, hidden discards, options."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parlor.envs import ofc_v0
from parlor.envs.engine.cards import format_cards
from parlor.envs.engine.cards import parse_cards as P
from parlor.envs.engine.game import ConfigError, IllegalActionError
from parlor.envs.engine.presenter import presenter_for
from parlor.envs.ofc.encode import Layout
from parlor.envs.ofc.game import make_game
from tests.ofc.helpers import FOULER, LOSER, OTHER_FOULER, WINNER, hand_script, new_state, run, seq


def legal(state) -> list[int]:
    return np.flatnonzero(state.legal_mask()).tolist()


def test_r1_3_dealing_original_five_then_one_card_per_turn_from_the_top():
    deck, actions = hand_script({0: WINNER, 1: LOSER}, 2)
    game, s = new_state([deck])
    assert s.current_player == 0 and s.view(0).pending == deck[:5]
    assert s.view(1).pending == ()  # cards are dealt as a turn begins
    for _ in range(5):
        s.apply(actions.pop(0)[1])
    assert s.current_player == 1 and s.view(1).pending == deck[5:10]
    for _ in range(5):
        s.apply(actions.pop(0)[1])
    assert s.current_player == 0 and s.view(0).pending == deck[10:11]


def test_r1_3_dealing_pineapple_three_cards_place_two_discard_one():
    a = seq("Qs Qh 2c", "9c 9d 9h 4s 5s", "Ac Kc 8c 6c 3c", discards="7s 7c Jh Tc")
    b = seq("2d 3d 4h", "Jc Jd 7h 8h Th", "Ts Js Qd Kd As", discards="5c 5h 6s 8s")
    deck, actions = hand_script({0: a, 1: b}, 2, variant="pineapple")
    game, s = new_state([deck], variant="pineapple")
    run(s, actions[:10])
    assert s.current_player == 0 and len(s.view(0).pending) == 3 and s.view(0).discards_owed == 1
    assert legal(s) == [1, 2, 3]  # the top is full after the first five cards


def test_r1_3_mask_discard_only_while_owed_and_placement_only_while_owed():
    a = seq("Qs Qh 2c", "9c 9d 9h 4s 5s", "Ac Kc 8c 6c 3c", discards="7s 7c Jh Tc")
    b = seq("2d 3d 4h", "Jc Jd 7h 8h Th", "Ts Js Qd Kd As", discards="5c 5h 6s 8s")
    deck, actions = hand_script({0: a, 1: b}, 2, variant="pineapple")
    game, s = new_state([deck], variant="pineapple")
    assert 3 not in legal(s)  # first 5 cards: no discard owed
    run(s, actions[:10])
    s.apply(3)  # discard first, then both remaining cards must be placed
    assert 3 not in legal(s)
    s.apply(1)
    s.apply(1)
    assert s.current_player == 1
    game, s = new_state([deck], variant="pineapple")
    run(s, actions[:10])
    s.apply(2)
    s.apply(2)  # two placed: the third card must be discarded
    assert legal(s) == [3]


def test_r1_3_mask_full_rows_are_closed():
    deck, actions = hand_script({0: WINNER, 1: LOSER}, 2)
    game, s = new_state([deck])
    for _ in range(3):
        s.apply(0)
    assert legal(s) == [1, 2]


def test_r1_5_scripted_hand_scoop_pays_rows_scoop_and_royalties():
    deck, actions = hand_script({0: WINNER, 1: LOSER}, 2)
    game, s = new_state([deck])
    total = run(s, actions)
    assert s.is_terminal() and s.current_player is None
    assert total.tolist() == [3 + 3 + 13 - 2, -(3 + 3 + 13 - 2)]


def test_r1_5_scripted_hand_through_env_with_stacked_deck():
    deck, actions = hand_script({0: LOSER, 1: WINNER}, 2)
    env = ofc_v0.raw_env()
    env.reset(seed=0, options={"deck": format_cards(deck)})  # the text form of the deck
    got = dict.fromkeys(env.possible_agents, 0.0)
    for seat, action in actions:
        assert env.agent_selection == f"player_{seat}"
        env.step(action)
        for a in env.agents:
            got[a] += env.rewards[a]
    assert got == {"player_0": -17.0, "player_1": 17.0}
    assert all(env.terminations.values())


def test_r1_5_scripted_hand_one_foul_pays_six_plus_royalties():
    deck, actions = hand_script({0: FOULER, 1: LOSER}, 2)
    game, s = new_state([deck])
    total = run(s, actions)
    assert total.tolist() == [-(6 + 2), 6 + 2]
    assert s.stats()["foul"] == [1.0, 0.0]
    assert s.stats()["royalties"] == [0.0, 2.0]


def test_r1_5_scripted_hand_three_players_pairwise_sum():
    deck, actions = hand_script({0: WINNER, 1: LOSER, 2: FOULER}, 3)
    game, s = new_state([deck], num_players=3)
    total = run(s, actions)
    assert total.tolist() == [(6 + 11) + (6 + 13), -17 + (6 + 2), -(6 + 13) - (6 + 2)]
    assert total.sum() == 0


def test_r1_5_scripted_hand_four_players_double_foul_is_zero_between_them():
    deck, actions = hand_script({0: WINNER, 1: LOSER, 2: FOULER, 3: OTHER_FOULER}, 4)
    game, s = new_state([deck], num_players=4)
    total = run(s, actions)
    assert s.stats()["foul"] == [0.0, 0.0, 1.0, 1.0]
    # the two foulers pay the clean players and nothing to each other
    assert total[2] == total[3] == -(6 + 13) - (6 + 2)
    assert total[0] == 17 + 19 + 19 and total[1] == -17 + 8 + 8
    assert total.sum() == 0


def test_r1_11_pineapple_discards_are_hidden_from_the_other_player():
    a = seq("Qs Qh 2c", "9c 9d 9h 4s 5s", "Ac Kc 8c 6c 3c", discards="7s 7c Jh Tc")
    b = seq("2d 3d 4h", "Jc Jd 7h 8h Th", "Ts Js Qd Kd As", discards="5c 5h 6s 8s")
    deck, actions = hand_script({0: a, 1: b}, 2, variant="pineapple")
    game, s = new_state([deck], variant="pineapple")
    run(s, actions[:13])  # seat 0 has placed 2 and discarded 7s
    assert s.view(0).discards == P("7s")
    assert s.view(1).discards == ()
    assert P("7s")[0] not in s.view(1).seen_cards()
    lay = Layout(2)
    obs1 = game.observe(s, 1)
    assert P("7h")[0] in s.view(1).pending
    assert obs1[lay.unseen_rank + 5] == 0.75  # 7c, 7d and the discarded 7s are unseen for seat 1
    total = run(s, actions[13:])
    assert total.tolist() == [17, -17]


def test_r1_3_multi_hand_start_player_rotates_without_fantasyland():
    plain = seq("2s 3s 5h", "Jc Jd 7h 8h Th", "Ts Js Qd Kd As")
    low = seq("2d 3d 4h", "9c 9d 6s 4s 5s", "Ac Kc 8c 6c 3c")
    deck, actions = hand_script({0: low, 1: plain}, 2)
    deck2, actions2 = hand_script({0: low, 1: plain}, 2, start=1)
    game, s = new_state([deck, deck2], num_hands=2)
    first = run(s, actions)
    assert not s.is_terminal() and s.start_player == 1 and s.current_player == 1
    second = run(s, actions2)
    assert s.is_terminal()
    assert first.tolist() == second.tolist() and first.sum() == 0


def test_r1_12_options_are_validated():
    with pytest.raises(ConfigError, match="num_players"):
        make_game(variant="pineapple", num_players=4)
    with pytest.raises(ConfigError, match="variant"):
        make_game(variant="chinese")
    with pytest.raises(ConfigError, match="fl_cards"):
        make_game(fl_cards="huge")
    with pytest.raises(ConfigError, match="fl_stay"):
        make_game(fl_stay="always")
    with pytest.raises(ConfigError, match="num_hands"):
        make_game(num_hands=0)
    with pytest.raises(ConfigError, match="allowed options"):
        make_game(jokers=1)


def test_r1_12_stacked_deck_is_validated():
    game = make_game()
    with pytest.raises(ValueError, match="appears twice"):
        game.parse_deck("As As " + " ".join(["2c"] * 50))
    with pytest.raises(ValueError, match="52"):
        game.parse_deck("As Kd")
    with pytest.raises(ValueError, match="bad card"):
        game.parse_deck("Zz")


def test_r0_6_illegal_action_names_the_legal_ones():
    game = make_game()
    s = game.new_state(np.random.default_rng(0))
    for _ in range(3):
        s.apply(0)
    with pytest.raises(IllegalActionError, match=r"legal actions: 1 \(place next card in middle\), 2"):
        s.apply(0)
    with pytest.raises(IllegalActionError):
        s.apply(3)
    with pytest.raises(IllegalActionError):
        s.apply(7)
    s.apply(np.int64(1))  # numpy integers are fine


def test_r0_6_render_shows_rows_with_suit_symbols():
    deck, actions = hand_script({0: WINNER, 1: LOSER}, 2)
    game, s = new_state([deck])
    run(s, actions[:12])
    text = presenter_for(game).render(s.view(0))
    assert "Q♠ Q♥" in text and "to place" in text and "player 1" in text


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), variant=st.sampled_from(["original", "pineapple"]),
       players=st.integers(2, 4), hands=st.integers(1, 3), progressive=st.booleans())
def test_r1_5_property_random_play_conserves_cards_and_is_zero_sum(seed, variant, players, hands, progressive):
    if variant == "pineapple":
        players = min(players, 3)
    game = make_game(variant=variant, num_players=players, num_hands=hands,
                     fl_cards="progressive" if progressive else "regular")
    rng = np.random.default_rng(seed)
    s = game.new_state(rng)
    total = np.zeros(players)
    steps = 0
    while not s.is_terminal():
        mask = s.legal_mask()
        assert mask.any()
        s.apply(int(rng.choice(np.flatnonzero(mask))))
        earned = s.take_rewards()
        assert earned.sum() == 0
        total += earned
        s.check_invariants()
        steps += 1
        if steps % 7 == 0:
            p = s.current_player if s.current_player is not None else 0
            np.testing.assert_array_equal(game.observe(s, p), game.encode(s.view(p)))
    assert total.tolist() == list(s.totals)


@pytest.mark.parametrize("variant", ["original", "pineapple"])
def test_r1_10_reward_of_a_hand_is_given_when_its_showdown_is_scored(variant):
    game = make_game(variant=variant, num_players=3, num_hands=3)
    rng = np.random.default_rng(11)
    s = game.new_state(rng)
    paid_hands = 0
    while not s.is_terminal():
        done_before = s.hands_done
        s.apply(int(rng.choice(np.flatnonzero(s.legal_mask()))))
        earned = s.take_rewards()
        if s.hands_done == done_before:
            assert not earned.any()  # nothing is paid while a hand is being placed
        else:  # the step that completes the hand pays exactly its showdown's points
            assert earned.tolist() == list(s.view(0).last_points)
            paid_hands += 1
    assert paid_hands == 3
