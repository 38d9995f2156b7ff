"""docs/rules.md §2 through the real state machine with stacked decks: dealing order,
exchanges and chips, turn order, scoring, reshuffle, sheet completion, rewards,
dealer rotation, options and errors."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parlor.envs.buffalo_bill.encode import exchange_action, score_action
from parlor.envs.buffalo_bill.game import make_game
from parlor.envs.engine.cards import format_card, parse_cards
from parlor.envs.engine.game import ConfigError, IllegalActionError
from parlor.envs.engine.presenter import presenter_for


def stacked(game, top: str) -> tuple[int, ...]:
    """A full deck of the game: ``top`` first, then the other cards in id order."""
    head = parse_cards(top)
    return head + tuple(c for c in game.deck if c not in head)


def start(top: str | list[str], **options):
    game = make_game(**options)
    tops = [top] if isinstance(top, str) else top
    state = game.new_state(np.random.default_rng(0), [stacked(game, t) for t in tops])
    return game, state


def cards(text: str) -> list[int]:
    return list(parse_cards(text))


# ---------------------------------------------------------------- dealing
def test_r2_3_deal_five_face_up_to_each_player_from_the_first_to_act_then_stock_in_order():
    game, state = start("2c 3c 4c 5c 6c 7d 8d 9d Td Jd Qh Kh", num_players=2)
    assert state.hands[0] == cards("2c 3c 4c 5c 6c")
    assert state.hands[1] == cards("7d 8d 9d Td Jd")
    assert state.stock[-1] == parse_cards("Qh")[0] and state.stock[-2] == parse_cards("Kh")[0]
    assert len(state.stock) == 52 - 10
    assert state.current_player == 0 and state.dealer == 1
    view = state.view(1)
    assert view.hands[0] == tuple(cards("2c 3c 4c 5c 6c"))  # every hand is public


def test_r2_3_second_round_dealer_moves_and_the_next_seat_gets_the_first_cards():
    game, state = start(["", "Ac Ad Ah As Kc 2c 2d 2h 2s 3c 3d 3h 3s 4c 4d"], num_players=3)
    for _ in range(3):
        state.apply(score_action(8))  # everybody writes high card in round 0
    assert state.round == 1 and state.dealer == 0 and state.current_player == 1
    assert state.hands[1] == cards("Ac Ad Ah As Kc")
    assert state.hands[2] == cards("2c 2d 2h 2s 3c")
    assert state.hands[0] == cards("3d 3h 3s 4c 4d")


def test_r2_3_dealer_rotates_every_round():
    game, state = start("", num_players=3, sheet=["high card"] * 4)
    firsts = []
    while not state.is_terminal():
        firsts.append(state.current_player)
        for _ in range(3):
            state.apply(score_action(state.round))
    assert firsts == [0, 1, 2, 0]


# ---------------------------------------------------------------- exchanges and chips
def test_r2_4_exchange_discards_chosen_positions_and_fills_them_in_order_from_the_stock():
    game, state = start("2c 3c 4c 5c 6c 7d 8d 9d Td Jd Qh Kh", num_players=2)
    state.apply(exchange_action([1, 3]))
    assert state.hands[0] == cards("2c Qh 4c Kh 6c")
    assert sorted(state.discards) == sorted(cards("3c 5c"))
    assert state.current_player == 1  # one exchange per turn, then the turn passes
    assert state.line_values[0].tolist() == game.evaluator.values(state.hands[0])


def test_r2_4_first_exchange_free_later_ones_cost_one_chip_for_the_whole_game():
    game, state = start("", num_players=1, chips=2)
    state.apply(exchange_action([0]))
    assert state.chips == [2]
    state.apply(exchange_action([0]))
    assert state.chips == [1] and state.bank == 1
    state.apply(exchange_action([0]))
    assert state.chips == [0]
    mask = state.legal_mask()
    assert not mask[:31].any() and mask[31:].all()
    with pytest.raises(IllegalActionError, match="legal actions"):
        state.apply(exchange_action([0]))
    state.apply(score_action(8))
    # chips are never refilled, but the next round's first exchange is free again
    assert state.round == 1 and state.chips == [0]
    assert state.legal_mask()[:31].all()
    state.apply(exchange_action([2, 4]))
    assert not state.legal_mask()[:31].any()
    state.check_invariants()


def test_r2_4_player_without_chips_still_gets_the_free_exchange():
    game, state = start("", num_players=2, chips=0)
    assert state.legal_mask()[:31].all()
    state.apply(exchange_action([0]))
    state.apply(exchange_action([0]))
    assert not state.legal_mask()[:31].any()  # seat 0 again: a paid exchange is unaffordable


# ---------------------------------------------------------------- scoring
def test_r2_5_scoring_writes_the_best_value_discards_the_hand_and_ends_the_players_round():
    game, state = start("4c 4d 4h Td Ts 2c 3d 7h 9s Kd", num_players=2, reward="score")
    state.apply(score_action(6))  # two pair with 4-4-4-T-T: 28
    assert state.written[0, 6] == 28 and state.totals == [28, 0]
    assert state.take_rewards().tolist() == [28.0, 0.0]
    assert state.hands[0] == [] and state.scored == [True, False]
    assert sorted(state.discards) == sorted(cards("4c 4d 4h Td Ts"))
    assert state.current_player == 1
    state.apply(exchange_action([0]))
    assert state.current_player == 1  # the scored player is skipped
    state.apply(score_action(0))  # scratching straight flush
    assert state.written[1, 0] == 0
    assert state.round == 1


def test_r2_5_a_used_line_cannot_be_scored_again():
    game, state = start(["", ""], num_players=1)
    state.apply(score_action(3))
    assert not state.legal_mask()[score_action(3)]
    with pytest.raises(IllegalActionError, match=r"score line 3 \(flush\)"):
        state.apply(score_action(3))


def test_r2_2_sheet_complete_after_exactly_L_rounds():
    sheet = ["one pair", "gang", "puritan"]
    game, state = start("", num_players=2, sheet=sheet, reward="score")
    assert game.num_actions == 31 + 3
    rounds = 0
    while not state.is_terminal():
        for _ in range(2):
            state.apply(score_action(int(np.flatnonzero(state.legal_mask()[31:])[0])))
        rounds += 1
    assert rounds == 3 and state.round == 3
    assert (state.written >= 0).all()
    assert state.current_player is None and not state.legal_mask().any()
    state.check_invariants()


# ---------------------------------------------------------------- reshuffle
def test_r2_4_empty_stock_reshuffles_the_discard_pile_including_the_cards_just_discarded():
    top = "7c 7d 7h 7s 8c 8d 8h 8s 9c 9d 9h 9s Tc Td Th Ts Jc Jd Jh Js Qc Qd Qh Qs Kc Kd Kh Ks Ac Ad"
    game, state = start(top, num_players=4, deck="short32")
    assert len(state.stock) == 12
    state.apply(exchange_action([0, 1, 2, 3, 4]))
    state.apply(exchange_action([0, 1, 2, 3, 4]))
    assert len(state.stock) == 2 and len(state.discards) == 10
    old = list(state.hands[2])
    state.apply(exchange_action([0, 1, 2, 3, 4]))
    assert state.reshuffles == 1
    assert state.hands[2][:2] == cards("Ah As")  # the last two stock cards, in order
    assert len(state.stock) == 15 - 3 and state.discards == []
    assert set(old) - set(state.hands[2]) <= set(state.stock)  # own discards went into the new stock
    state.check_invariants()


# ---------------------------------------------------------------- rewards
def play_out(state, lines_per_player: list[list[int]]):
    """Each seat scores its listed lines in order (no exchanges)."""
    while not state.is_terminal():
        p = state.current_player
        state.apply(score_action(lines_per_player[p][state.round]))


def test_r2_8_reward_score_pays_each_line_when_written_return_is_the_total():
    game, state = start(["Ac Ad Kc Kd 2h 3c 3d 9h Ts 4c", "2c 2d 2h 5s 7c 8c 9d Jh Qs 4d"],
                        num_players=2, sheet=["two pair", "high card"], reward="score")
    state.apply(score_action(0))
    assert state.take_rewards().tolist() == [42.0, 0.0]
    play_out(state, [[0, 1], [0, 1]])
    total = state.take_rewards()
    # seat 1 (3-3 only) scratches two pair; round 1 deals first to seat 1: 2-2-2-5-7
    assert state.totals == [42 + 41, 0 + 18]
    assert total.tolist() == [41.0, 18.0]


def test_r2_8_reward_margin_is_own_total_minus_best_other_at_the_end():
    game, state = start(["Ac Ad Kc Kd 2h 3c 3d 9h 9s 4c 5c 5d 6h 6s 7c"], num_players=3, sheet=["two pair"])
    assert game.reward == "margin"
    play_out(state, [[0], [0], [0]])
    assert state.totals == [42, 6 + 18, 10 + 12]
    assert state.take_rewards().tolist() == [42 - 24, 24 - 42, 22 - 42]


def test_r2_8_reward_win_sole_winner_and_ties():
    game, state = start(["Ac Ad Kc Kd 2h 3c 3d 9h 9s 4c 5c 5d 6h 6s 7c"], num_players=3, sheet=["two pair"], reward="win")
    play_out(state, [[0], [0], [0]])
    assert state.take_rewards().tolist() == [1.0, -1.0, -1.0]
    game, state = start(["Ac Ad Kc Kd 2h As Ah Ks Kh 3c 5c 5d 6h 6s 7c"], num_players=3, sheet=["two pair"], reward="win")
    play_out(state, [[0], [0], [0]])
    assert state.totals[0] == state.totals[1] == 42
    assert state.take_rewards().tolist() == [0.0, 0.0, -1.0]


def test_r2_8_default_reward_is_score_alone_and_margin_with_others():
    assert make_game(num_players=1).reward == "score"
    assert make_game(num_players=3).reward == "margin"


# ---------------------------------------------------------------- options and errors
@pytest.mark.parametrize("options, field", [
    ({"num_players": 5}, "num_players"), ({"num_players": 0}, "num_players"),
    ({"deck": "double104"}, "deck"), ({"chips": -1}, "chips"), ({"sheet": "royal"}, "sheet"),
    ({"sheet": ["one pair", "royal flush"]}, "royal flush"), ({"sheet": []}, "sheet"),
    ({"reward": "money"}, "reward"), ({"num_players": 1, "reward": "win"}, "reward"),
])
def test_bad_options_raise_config_error_naming_the_field(options, field):
    with pytest.raises(ConfigError, match=field):
        make_game(**options)


def test_custom_sheet_names_are_normalized_and_kept_in_order():
    game = make_game(sheet=["Four_Straight", "plucked nickel", "gang"])
    assert game.lines == ("four straight", "high card", "gang")
    assert game.num_actions == 34
    assert game.action_name(33) == "score line 2 (gang)"
    assert game.action_name(exchange_action([0, 4])) == "exchange positions 0,4"


@pytest.mark.parametrize("deck, problem", [
    ("As Ks", "has 2 cards"), ("As As " + " ".join(["Kd"] * 50), "twice"), ("Zz", "bad card"),
])
def test_bad_stacked_deck_names_the_problem(deck, problem):
    with pytest.raises(ValueError, match=problem):
        make_game().parse_deck(deck)


def test_short_deck_rejects_cards_outside_seven_to_ace():
    game = make_game(deck="short32")
    with pytest.raises(ValueError, match="2♣ is not in this game.s deck"):
        game.parse_deck(["2c"] + [format_card(c) for c in game.deck[1:]])


# ---------------------------------------------------------------- views, observation, determinize
def test_observation_holds_the_value_each_line_would_score_for_every_hand():
    game, state = start("5h 7h 9h Qh Kh 4c 4d 4h Td Ts", num_players=2)
    obs = game.observe(state, 1)
    layout = game.layout
    rows = obs[layout.slices["seats"]].reshape(2, layout.seat_size)
    values = np.rint(rows[:, layout.seat_slices["line_values"]] * 54).astype(int)
    assert values[0].tolist() == game.evaluator.values(state.hands[1])  # row 0: the observer
    assert values[1][game.lines.index("flush")] == 41
    np.testing.assert_array_equal(obs, game.encode(state.view(1)))


def test_observation_seat_rows_are_relative_to_the_observer():
    game, state = start("2c 3c 4c 5c 6c 7d 8d 9d Td Jd Qh Kh As Ad Ac", num_players=3)
    layout = game.layout
    obs = game.observe(state, 1)
    rows = obs[layout.slices["seats"]].reshape(3, layout.seat_size)[:, layout.seat_slices["hand"]]
    assert [sorted(np.flatnonzero(r).tolist()) for r in rows] == [sorted(state.hands[s]) for s in (1, 2, 0)]
    assert obs[layout.slices["to_act"]].tolist() == [0, 0, 1]  # seat 0 acts: two seats after seat 1


def test_determinize_resamples_only_the_stock_order():
    game, state = start("", num_players=2)
    state.apply(exchange_action([0, 1]))
    world = state.determinize(1, np.random.default_rng(5))
    assert world.hands == state.hands and sorted(world.discards) == sorted(state.discards)
    assert sorted(world.stock) == sorted(state.stock) and world.stock != state.stock
    assert world.chips == state.chips and world.exchanges == state.exchanges


def test_render_shows_suit_symbols_and_sheet():
    game, state = start("As Kd Qh Jc 9s", num_players=2)
    text = presenter_for(game).render(state.view(0))
    assert "A♠ K♦ Q♥ J♣ 9♠" in text and "high card" in text


def test_text_prints_each_seats_note_on_its_line_as_the_picture_does():
    game, state = start("", num_players=2)
    state.apply(exchange_action([0, 1]))
    presenter = presenter_for(game)
    view = state.view(1)
    notes = presenter.seat_notes(view)
    assert notes == ["exchanges this round 1", "exchanges this round 0"]
    lines = presenter.render(view).splitlines()
    for seat, note in enumerate(notes):
        line = next(x for x in lines if x.startswith(f"seat {seat}"))
        assert f"| {note} |" in line


def test_stats_report_final_total_and_chips_left():
    game, state = start("", num_players=2, chips=3, sheet=["high card"])
    state.apply(exchange_action([0]))
    state.apply(score_action(0))
    state.apply(score_action(0))
    stats = state.stats()
    assert stats["total"] == [float(t) for t in state.totals]
    assert stats["chips_left"] == [3.0, 3.0]


# ---------------------------------------------------------------- property: random games
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(1, 4), chips=st.integers(0, 4),
       sheet=st.sampled_from(["standard", "bobtail", ("gang", "one pair")]), deck=st.sampled_from(["standard52", "short32"]))
def test_random_games_conserve_cards_and_chips_and_pay_the_totals(seed, players, chips, sheet, deck):
    game = make_game(num_players=players, chips=chips, sheet=sheet, deck=deck, reward="score")
    state = game.new_state(np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 1)
    paid = np.zeros(players)
    while not state.is_terminal():
        legal = np.flatnonzero(state.legal_mask())
        assert legal.size
        state.apply(int(rng.choice(legal)))
        paid += state.take_rewards()
        state.check_invariants()
    assert paid.tolist() == [float(t) for t in state.totals]
    assert all(0 <= c <= chips for c in state.chips)
    assert state.round == len(game.lines)
