"""docs/rules.md §5.4-§5.6 and §5.11 turn structure: drop, draw, lay, hit, blocking, truncation, hands, masks, errors."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parlor.envs.engine.cards import format_card, parse_card, parse_cards
from parlor.envs.engine.game import ConfigError, IllegalActionError
from parlor.envs.tonk.encode import DRAW_STOCK, DROP, END_LAYING, MAX_SLOTS, NUM_ACTIONS, TAKE_DISCARD, action_name
from parlor.envs.tonk.game import make_game
from parlor.envs.tonk.view import DISCARD, LAY, START
from tests.tiers import examples_share
from tests.tonk.helpers import deck, discard, hit, lay, new, turn

MID = "8h Jc Qd 7s 6s"
HIGH = "Kc Ks Th 9h 4h"


def legal(state) -> list[int]:
    return np.flatnonzero(state.legal_mask()).tolist()


def test_r5_4_turn_is_drop_or_draw_then_lay_then_discard():
    game, s = new(["5c 5d 5h 9s Ts", MID, HIGH], start="2h", stock="Kd")
    assert s.phase == START and legal(s) == [DROP, DRAW_STOCK, TAKE_DISCARD]
    s.apply(DRAW_STOCK)
    assert s.phase == LAY and lay("5c 5d 5h") in legal(s) and END_LAYING in legal(s)
    assert DROP not in legal(s) and discard("Kd") not in legal(s)
    s.apply(END_LAYING)
    assert s.phase == DISCARD and legal(s) == sorted(discard(c) for c in ["5c", "5d", "5h", "9s", "Ts", "Kd"])
    s.apply(discard("Kd"))
    assert s.current_player == 1 and s.view(1).top_discard == parse_card("Kd")


def test_r5_4_lay_step_offers_only_end_laying_when_nothing_fits():
    game, s = new([MID, HIGH, "5c 5d 5h 9s Ts"], start="2h", stock="2c")
    s.apply(DRAW_STOCK)
    assert legal(s) == [END_LAYING]


def test_r5_12_taking_the_discard_is_public():
    game, s = new(["5c 5d 9c 9s Ts", MID, HIGH], start="5h")
    s.apply(TAKE_DISCARD)
    assert s.view(2).taken_from_discard[0] == (parse_card("5h"),)
    assert s.view(2).discard_pile == ()
    s.apply(lay("5c 5d 5h"))
    assert [sp.cards for sp in s.view(1).spreads] == [tuple(parse_cards("5c 5d 5h"))]


def test_r5_5_hit_another_players_run_at_both_ends():
    game, s = new(["5c 6c 7c Kd Qd", "8c 2d 3d 9h Jh", "4c 2h 3h Th Qh"], start="Ac", stock="2s 3s 4s")
    turn(s, plays=[lay("5c 6c 7c")], throw="2s")
    turn(s, plays=[hit("8c", 0)], throw="3s")
    turn(s, plays=[hit("4c", 0)], throw="4s")
    assert s.view(0).spreads[0].cards == tuple(parse_cards("4c 5c 6c 7c 8c"))
    assert s.view(0).spreads[0].owner == 0


def test_r5_5_a_set_hit_up_to_four_leaves_the_table():
    game, s = new(["5c 5d 5h Kd Qd", "5s 2d 3d 9h Jh", "4c 2h 3h Th Qh"], start="Ac", stock="2s 3s")
    turn(s, plays=[lay("5c 5d 5h")], throw="2s")
    s.apply(DRAW_STOCK)
    assert hit("5s", 0) in legal(s)
    s.apply(hit("5s", 0))
    view = s.view(2)
    assert view.spreads == () and view.out_of_play == tuple(parse_cards("5c 5d 5h 5s"))
    assert not any(a >= hit("2c", 0) and a < hit("2c", 0) + 52 * MAX_SLOTS for a in legal(s))


def test_r5_5_hit_runs_only_forbids_hitting_sets():
    game, s = new(["5c 5d 5h Kd Qd", "5s 2d 3d 9h Jh", "4c 2h 3h Th Qh"], start="Ac", stock="2s 3s",
                  hit_runs_only=True)
    turn(s, plays=[lay("5c 5d 5h")], throw="2s")
    s.apply(DRAW_STOCK)
    assert legal(s) == [END_LAYING]
    with pytest.raises(IllegalActionError, match="legal actions"):
        s.apply(hit("5s", 0))


BLOCK_HANDS = ["5c 6c 7c Kd Qd", "8c 2d 3d 9h Jh", "4c 2h 3h Th Qh"]
BLOCK_STOCK = "2s 3s 4s 6s 7s 8s 9s Ts Js Qs"


def _two_hits_on_seat_0(**options):
    game, s = new(BLOCK_HANDS, start="Ac", stock=BLOCK_STOCK, **options)
    turn(s, plays=[lay("5c 6c 7c")], throw="2s")
    turn(s, plays=[hit("8c", 0)], throw="3s")
    turn(s, plays=[hit("4c", 0)], throw="4s")
    return s


def test_r5_5_each_hit_blocks_the_owners_drop_for_one_more_turn():
    s = _two_hits_on_seat_0()
    assert s.view(1).drop_blocked == (2, 0, 0)
    assert s.current_player == 0 and DROP not in legal(s)
    turn(s, throw="6s")
    assert s.view(1).drop_blocked == (1, 0, 0)
    turn(s, throw="7s")
    turn(s, throw="8s")
    assert DROP not in legal(s)
    turn(s, throw="9s")
    turn(s, throw="Ts")
    turn(s, throw="Js")
    assert s.current_player == 0 and DROP in legal(s)
    with pytest.raises(IllegalActionError):
        _two_hits_on_seat_0().apply(DROP)


def test_r5_5_hit_blocks_drop_off_lets_the_hit_player_drop():
    s = _two_hits_on_seat_0(hit_blocks_drop=False)
    assert s.view(1).drop_blocked == (0, 0, 0) and DROP in legal(s)


def test_r5_5_hitting_ones_own_spread_does_not_block_ones_drop():
    game, s = new(["5c 6c 7c 8c Kd", MID, HIGH], start="Ac", stock="2s 3s 4s")
    turn(s, plays=[lay("5c 6c 7c"), hit("8c", 0)], throw="2s")
    assert s.blocked == [0, 0, 0]


def test_r5_11_max_turns_ends_the_hand_as_a_draw_with_truncation():
    game, s = new(["5c 6c 7c 8c Kd", MID, HIGH], start="Ac", max_turns=2)
    turn(s, throw="Kd")
    turn(s, throw="6s")
    assert s.is_truncated() and not s.is_terminal() and s.current_player is None
    assert s.last_result.reason == "truncated" and s.take_rewards().tolist() == [0.0, 0.0, 0.0]


def test_r5_11_truncated_earlier_hand_is_a_draw_and_the_episode_goes_on():
    game, s = new(["5c 6c 7c 8c Kd", MID, HIGH], start="Ac", max_turns=1, num_hands=2)
    turn(s, throw="Kd")
    assert s.hand_index == 1 and not s.is_truncated() and s.current_player == 1


def test_r5_2_dealer_moves_clockwise_and_decks_are_used_in_order():
    game = make_game(num_hands=2)
    d1 = game.parse_deck(deck("Ac Ad 2c 2d 3c", MID, HIGH, start="Qh"))
    d2 = game.parse_deck(deck("Ac Ad 2c 2d 3c", MID, HIGH, start="Qh"))
    s = game.new_state(np.random.default_rng(0), [d1, d2])
    assert s.dealer == 2 and s.current_player == 0
    s.apply(DROP)
    assert s.take_rewards().tolist() == [2.0, -1.0, -1.0]
    assert s.dealer == 0 and s.current_player == 1 and s.hand_index == 1
    assert s.view(1).hand == tuple(sorted(parse_cards("Ac Ad 2c 2d 3c")))  # first 5 cards to the first player
    s.apply(DROP)
    assert s.is_terminal() and s.stakes == [1, 1, -2]
    assert s.stats()["drop"] == [1.0, 1.0, 0.0]


def test_view_hides_other_hands_and_the_stock():
    """Two deals that differ only in seat 0's hand and the stock look the same to seat 1."""
    game, a = new(["5c 5d 5h 9s Ts", MID, HIGH], start="2h", stock="3c 3d")
    game, b = new(["3c 3d 5h 9s Ts", MID, HIGH], start="2h", stock="5c 5d")
    for state in (a, b):
        state.apply(DRAW_STOCK)
    assert a.view(1) == b.view(1) and a.view(2) == b.view(2)
    np.testing.assert_array_equal(game.encode(a.view(1)), game.encode(b.view(1)))
    assert a.view(0) != b.view(0)


def test_determinize_keeps_cards_taken_from_the_pile_in_the_takers_hand():
    game, s = new(["5c 5d 9c 9s Ts", MID, HIGH], start="5h")
    s.apply(TAKE_DISCARD)
    s.apply(END_LAYING)
    s.apply(discard("Ts"))
    for seed in range(5):
        world = s.determinize(1, np.random.default_rng(seed))
        assert world.hands[0] >> parse_card("5h") & 1
        assert world.hands[1] == s.hands[1]
        world.check_invariants()


def test_illegal_action_names_the_legal_ones():
    game, s = new(["5c 5d 5h 9s Ts", MID, HIGH], start="2h")
    with pytest.raises(IllegalActionError, match=r"legal actions: 0 \(drop\), 1 \(draw from stock\)"):
        s.apply(END_LAYING)
    with pytest.raises(IllegalActionError):
        s.apply(NUM_ACTIONS)



@pytest.mark.parametrize("num_hands", [1, 2])
def test_nothing_is_legal_once_no_one_is_to_act(num_hands):
    """After the episode (one hand) or in the snapshot of a hand that ended (two): no seat to
    act, an all-False mask, and every id refused."""
    game, s = new([MID, HIGH, "5c 5d 5h 9s Ts"], start="2h", num_hands=num_hands)
    s.apply(DROP)
    assert s.stats()["drop"] == [1.0, 0.0, 0.0]
    over = s if num_hands == 1 else s.ended_hand
    assert over.current_player is None and over.legal_mask().tolist() == [False] * NUM_ACTIONS
    for a in (DROP, DRAW_STOCK, END_LAYING):
        with pytest.raises(IllegalActionError, match="legal actions: none"):
            over.apply(a)


@pytest.mark.parametrize("options, field", [
    ({"num_players": 6}, "num_players"), ({"hand_size": 6}, "hand_size"), ({"natural": "51"}, "natural"),
    ({"low_natural": "x"}, "low_natural"), ({"stake": 0}, "stake"), ({"max_turns": 0}, "max_turns"),
    ({"texas": "yes"}, "texas"), ({"num_hands": 0}, "num_hands"),
])
def test_bad_options_name_the_field(options, field):
    with pytest.raises(ConfigError, match=field):
        make_game(**options)


@pytest.mark.parametrize("text, problem", [
    ("As Kd", "52"), ("As As " + " ".join(["2c"] * 50), "twice"), ("Zz", "bad card"),
])
def test_parse_deck_rejects_bad_decks(text, problem):
    with pytest.raises(ValueError, match=problem):
        make_game().parse_deck(text)


def test_action_names_cover_every_id():
    names = {action_name(a) for a in range(NUM_ACTIONS)}
    assert len(names) == NUM_ACTIONS
    assert action_name(lay("Qh Kh Ah")) == "lay run Q♥ K♥ A♥"  # the screen notation (the parser reads Qh too)
    with pytest.raises(ValueError):
        action_name(NUM_ACTIONS)


def test_stake_option_scales_rewards():
    game, s = new(["Ac Ad 2c 2d 3c", MID, HIGH], start="Qh", stake=2.5)
    s.apply(DROP)
    assert s.take_rewards().tolist() == [5.0, -2.5, -2.5]


class NeverDrop:
    """Random play that never drops (so hands reach the stock's end or max_turns)."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def __call__(self, mask):
        legal_ids = np.flatnonzero(mask)
        if legal_ids.size > 1:
            legal_ids = legal_ids[legal_ids != DROP]
        return int(legal_ids[self.rng.integers(legal_ids.size)])


@pytest.mark.parametrize("examples", examples_share(12, 40))
def test_stakes_sum_to_zero_every_hand_and_cards_are_conserved(examples: int) -> None:
    @settings(max_examples=examples, deadline=None)
    @given(
        seed=st.integers(0, 10_000), n=st.integers(2, 5), hand_size=st.sampled_from([5, 7, 9]),
        texas=st.booleans(), side=st.booleans(), no_drop=st.booleans(),
        natural=st.sampled_from(["none", "49_50", "50_auto_49_turn"]),
        low=st.sampled_from(["none", "13_double", "9_triple_13_double"]),
    )
    def check(seed, n, hand_size, texas, side, no_drop, natural, low):
        game = make_game(num_players=n, hand_size=hand_size, texas=texas, spades_side_pot=side, num_hands=3,
                         natural=natural, low_natural=low, max_turns=40)
        s = game.new_state(np.random.default_rng(seed))
        pick = NeverDrop(seed) if no_drop else None
        rng = np.random.default_rng(seed)
        total = np.zeros(n)
        seen_hands = 0
        while not (s.is_terminal() or s.is_truncated()):
            mask = s.legal_mask()
            assert mask.any()
            a = pick(mask) if pick else int(rng.choice(np.flatnonzero(mask)))
            s.apply(a)
            total += s.take_rewards()
            if s.last_result is not None and s.last_result.hand_index >= seen_hands:
                assert sum(s.last_result.payments) == 0
                seen_hands = s.last_result.hand_index + 1
            s.check_invariants()
        assert abs(total.sum()) < 1e-9 and seen_hands == 3
        assert np.allclose(total, s.stakes)

    check()


def test_env_deals_a_stacked_deck_given_at_reset():
    from parlor.envs import tonk_v0

    env = tonk_v0.env(render_mode="ansi")
    env.reset(seed=1, options={"deck": " ".join(format_card(c) for c in deck("Ac Ad 2c 2d 3c", MID, HIGH, start="Qh"))})
    assert env.unwrapped.view("player_0").hand == tuple(sorted(parse_cards("Ac Ad 2c 2d 3c")))
    assert "♣" in env.render()
    env.step(DROP)
    assert env.rewards == {"player_0": 2.0, "player_1": -1.0, "player_2": -1.0}
    assert all(env.terminations.values())
