"""The ``features=True`` observation block: hand-worked positions (the compiled block, equal to
the oracle's), layout, option checks; the oracle's made hands."""
from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from parlor.envs.engine.cards import parse_cards
from parlor.envs.engine.game import ConfigError
from parlor.envs.ofc.game import OFCGame, make_game
from parlor.envs.ofc.view import OFCView
from parlor.envs.ofc_outlook import features as F
from tests.ofc.helpers import turn_view
from tests.ofc_outlook import oracle


@cache
def pineapple() -> OFCGame:
    """Heads-up Pineapple with features, made by the first test that uses it: not at
    collection, where every pytest process would load the block's compiled kernels."""
    return make_game(variant="pineapple", features=True)


def block(view: OFCView) -> np.ndarray:
    """The production block of a heads-up Pineapple ``view`` (``encode(view)``'s end), held to
    the oracle's plain statement of it on the way."""
    out = np.asarray(F.block_of(pineapple().encode(view), view.num_players))
    assert out.tobytes() == oracle.features(view).tobytes()
    return out


def blocks(x: np.ndarray) -> dict[str, np.ndarray]:
    out, i = {}, 0
    for name, n in (("top", F.OWN_ROW), ("middle", F.OWN_ROW), ("bottom", F.OWN_ROW), ("order", F.ORDER),
                    ("next_top", F.NEXT_ROW), ("next_middle", F.NEXT_ROW), ("next_bottom", F.NEXT_ROW),
                    ("card", F.CARD), ("opponent", F.OPP), ("outlook", 4 * F.OUTLOOK)):
        out[name] = x[i:i + n]
        i += n
    assert i == x.size
    return out


def test_made_hand_of_partial_and_complete_rows() -> None:
    assert oracle.made_hand(parse_cards("Ks Kd 5h"), 1) == (1, 11, 3)              # pair of kings, 7 kicker
    assert oracle.made_hand(parse_cards("Ks Kd 5h 5c"), 1) == (2, 11, 3)           # two pair
    assert oracle.made_hand(parse_cards("5s 5d 5h Kc"), 2) == (3, 3, 11)           # trips
    assert oracle.made_hand(parse_cards("2c 3c 4c 5c 6c"), 2)[0] == 8              # complete: straight flush
    assert oracle.made_hand(parse_cards("Qs Qd 2h"), 0) == (1, 10, 0)              # complete top by rank3
    assert oracle.made_hand((), 2) == (0, -1, -1)
    assert oracle.hand_value(oracle.made_hand(parse_cards("As Ad"), 0)) > oracle.hand_value(oracle.made_hand(parse_cards("Ks Kd 5h"), 1))


def test_hand_worked_position() -> None:
    # top A A, middle K K 7, bottom 2c 3c 4c (flush and straight alive); next card Ah
    v = turn_view(("As Ad", "Ks Kd 7h", "2c 3c 4c"), ("Qs", "Js Jd", "9h 9d 9c"), "Ah 8s 8d")
    b = blocks(block(v))
    seen_aces = 3  # As Ad Ah: one ace unseen
    np.testing.assert_allclose(b["top"], [2 / 3, 1 / 9, 13 / 13, 0.0, 0.0, 0.0, (4 - seen_aces) / 15, 0.0], rtol=1e-6)
    np.testing.assert_allclose(b["middle"][:6], [3 / 5, 1 / 9, 12 / 13, 6 / 13, 0.0, 0.0], rtol=1e-6)
    np.testing.assert_allclose(b["bottom"][:6], [3 / 5, 0.0, 3 / 13, 2 / 13, 1.0, 1.0], rtol=1e-6)
    # aces over kings: out of order now, not final (the middle has room)
    np.testing.assert_allclose(b["order"], [1.0, 0.0, 1.0, 0.0])
    # Ah on top: trips, pairs twice, still over the middle
    np.testing.assert_allclose(b["next_top"], [1.0, 3 / 9, 1.0, 2 / 3, 0.0, 0.0, 1.0], rtol=1e-6)
    # Ah in the middle: still a pair of kings under the top's aces
    np.testing.assert_allclose(b["next_middle"], [1.0, 1 / 9, 12 / 13, 0.0, 0.0, 0.0, 1.0], rtol=1e-6)
    # Ah on the bottom: kills flush (suit) but A-2-3-4 keeps the wheel alive
    np.testing.assert_allclose(b["next_bottom"], [1.0, 0.0, 13 / 13, 0.0, 0.0, 1.0, 1.0], rtol=1e-6)
    np.testing.assert_allclose(b["card"], [13 / 13, 1 / 3, 5 / 13], rtol=1e-6)
    # opponent: Q / J J / 9 9 9: in order
    np.testing.assert_allclose(b["opponent"], [1 / 3, 0.0, 11 / 13, 2 / 5, 1 / 9, 10 / 13, 3 / 5, 3 / 9, 8 / 13, 0, 0],
                               rtol=1e-6)


def test_outlook_counts_fouls_of_each_placement() -> None:
    # top K K, middle Q Q 2 3, bottom 4 4 5 5, next card Kh, a discard owed.
    # Kh on top: trips over a middle that can reach at most trips of queens: always fouls.
    # Kh in the middle: a pair of queens under the top's kings: always fouls.
    # Kh on the bottom: the middle must beat the top's kings (two pair or trips of
    # queens) and then beats the bottom's fives-up two pair: always fouls.
    # Discarding it: only a middle two pair/trips plus a bottom full house escape: rare.
    v = turn_view(("Ks Kd", "Qs Qd 2h 3h", "4c 4d 5c 5d"), ("", "", ""), "Kh 8s 9s")
    out = blocks(block(v))["outlook"].reshape(4, F.OUTLOOK)
    assert out[:, 0].tolist() == [1.0, 1.0, 1.0, 1.0]
    assert out[:3, 1].tolist() == [1.0, 1.0, 1.0]
    assert out[3, 1] > 0.9
    assert out[:3, 2].tolist() == [0.0, 0.0, 0.0]  # a fouled board earns no royalties
    again = blocks(block(v))["outlook"]
    np.testing.assert_array_equal(again, out.reshape(-1))  # a pure function of the view


def test_outlook_finds_the_placement_that_cannot_foul() -> None:
    # top 2 3, middle 8 8 9 9, bottom K K K, next card Ah. In the middle it makes
    # A-high two pair: the top can reach a pair at most, the bottom keeps trips or
    # better: no completion fouls. Anywhere else the middle may fill up (88999/88899)
    # and beat the bottom's trips.
    v = turn_view(("2s 3d", "8s 8d 9c 9h", "Ks Kd Kc"), ("", "", ""), "Ah 4s 6d")
    out = blocks(block(v))["outlook"].reshape(4, F.OUTLOOK)
    assert out[:, 0].tolist() == [1.0, 1.0, 1.0, 1.0]
    assert out[1, 1] == 0.0
    assert out[1, 1] <= out[[0, 2, 3], 1].min()
    assert 0.0 <= out.min() and out.max() <= 1.0


def test_final_foul_flag_when_the_lower_row_is_complete() -> None:
    v = turn_view(("Qs Qd", "2s 3d 4h 5c 7d", "Kc Kd Ks"), ("", "", ""), "9h 9s 9d")
    order = blocks(block(v))["order"]
    np.testing.assert_allclose(order, [1.0, 1.0, 0.0, 0.0])  # queens over a complete high-card middle: a foul


def test_game_option_appends_the_block_and_encode_matches_observe() -> None:
    plain, rich = make_game(variant="pineapple"), make_game(variant="pineapple", features=True)
    assert rich.observation_shape[0] == plain.observation_shape[0] + F.size(2)
    state = rich.new_state(np.random.default_rng(3))
    rng = np.random.default_rng(0)
    while not state.is_terminal():
        p = state.current_player
        obs = rich.observe(state, p)
        np.testing.assert_array_equal(obs, rich.encode(state.view(p)))
        np.testing.assert_array_equal(obs[:plain.observation_shape[0]], plain.encode(state.view(p)))
        assert obs.min() >= 0.0 and obs.max() <= 1.0
        state.apply(int(rng.choice(np.flatnonzero(state.legal_mask()))))


def test_bad_features_value_names_the_field() -> None:
    with pytest.raises(ConfigError, match="features"):
        make_game(features="yes")


def _outlook(v: OFCView) -> np.ndarray:
    return blocks(block(v))["outlook"].reshape(4, F.OUTLOOK)


def test_outlook_preference_marks_the_best_plan_and_zeroes_illegal_actions() -> None:
    # the top is full: no top action; a discard is owed: all of middle, bottom, discard are open
    v = turn_view(("As Ad Kc", "8s 8d", "2c 3c"), ("", "", ""), "Ah 4s 6d")
    out = _outlook(v)
    assert out[0].tolist() == [0.0] * F.OUTLOOK
    assert out[1:, 0].tolist() == [1.0, 1.0, 1.0]
    prefs = out[1:, 6]
    assert prefs.max() == 1.0 and (prefs <= 1.0).all() and (prefs > 0.0).all()
    # preference = exp((value - best) / T) and value = (v + FOUL_COST) / VALUE_SCALE
    values = out[1:, 5] * F.VALUE_SCALE
    np.testing.assert_allclose(prefs, np.exp((values - values.max()) / F.PREF_TEMPERATURE), rtol=1e-5)


def test_outlook_is_exact_on_the_last_turn() -> None:
    # two free slots (top and middle), three cards, one discard: nothing is sampled.
    # Qh on top pairs the queens over a middle of nothing: a sure foul; Qh in the
    # middle or discarded (then 5h/9c fill in) are judged on the finished board.
    v = turn_view(("Qs Qd", "Ks Kd 2c 7h", "3s 3d 3c 4h 4d"), ("", "", ""), "Qh 5h 9c")
    out = _outlook(v)
    assert set(out[:, 1].tolist()) <= {0.0, 1.0}  # every foul rate exact
    assert out[0, 1] == 1.0  # Qh on top: queens-up trips over kings: foul
    assert out[1, 1] == 0.0  # Qh in the middle: K K Q + 5h/9c on top: in order


def test_turn_key_is_the_same_for_every_card_of_a_turn() -> None:
    game = make_game(variant="pineapple", features=True)
    state = game.new_state(np.random.default_rng(5))
    rng = np.random.default_rng(1)
    same_turn, keys = 0, set()
    while not state.is_terminal():
        p = state.current_player
        before = state.view(p)
        state.apply(int(rng.choice(np.flatnonzero(state.legal_mask()))))
        after = state.view(p)
        keys.add(F.turn_key(before))
        same_hand = after.hand_index == before.hand_index
        if not state.is_terminal() and state.current_player == p and after.pending and same_hand:
            assert F.turn_key(after) == F.turn_key(before)  # the rest of the same turn
            same_turn += 1
    assert same_turn > 20
    assert len(keys) == 10  # one key per turn: 2 seats x 5 turns (new cards, new key)


def test_outlook_planner_plays_the_preferred_action_on_every_card() -> None:
    # the planner (the behaviour-cloning teacher) and the outlook agree card by card,
    # so a policy reading the block can follow it exactly
    from parlor.agents.ofc.heuristic import OutlookPlanner

    game = make_game(variant="pineapple", features=True)
    for seed in range(3):
        state = game.new_state(np.random.default_rng(seed))
        planners = [OutlookPlanner(game, seed=seed * 10 + i) for i in range(2)]
        checked = 0
        while not state.is_terminal():
            p = state.current_player
            v = state.view(p)
            mask = state.legal_mask()
            action = planners[p].act(game.observe(state, p), mask, v)
            if v.pending and not v.fantasyland[p]:
                out = _outlook(v)
                assert out[action, 6] == 1.0, (seed, v.pending, out[:, 6])
                checked += 1
            state.apply(action)
        assert checked > 20
