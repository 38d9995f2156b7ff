"""The ``features=True`` observation block: hand-worked positions, layout, option checks."""
from __future__ import annotations

import numpy as np
import pytest

from envs.engine.cards import parse_cards
from envs.engine.game import ConfigError
from envs.ofc import features as F
from envs.ofc.rules import make_game
from envs.ofc.view import OFCView


def view(own: tuple[str, str, str], opp: tuple[str, str, str], pending: str, discards: str = "") -> OFCView:
    rows = (tuple(tuple(parse_cards(r)) for r in own), tuple(tuple(parse_cards(r)) for r in opp))
    return OFCView(
        player=0, num_players=2, variant="pineapple", hand_index=0, num_hands=1, start_player=0,
        current_player=0, rows=rows, hidden=(False, False), pending=parse_cards(pending), discards_owed=1,
        discards=parse_cards(discards), fantasyland=(False, False), fl_dealt=(0, 0), scores=(0, 0),
        last_points=(0, 0), terminal=False,
    )


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
    assert F.made_hand(parse_cards("Ks Kd 5h"), 1) == (1, 11, 3)              # pair of kings, 7 kicker
    assert F.made_hand(parse_cards("Ks Kd 5h 5c"), 1) == (2, 11, 3)           # two pair
    assert F.made_hand(parse_cards("5s 5d 5h Kc"), 2) == (3, 3, 11)           # trips
    assert F.made_hand(parse_cards("2c 3c 4c 5c 6c"), 2)[0] == 8              # complete: straight flush
    assert F.made_hand(parse_cards("Qs Qd 2h"), 0) == (1, 10, 0)              # complete top by rank3
    assert F.made_hand((), 2) == (0, -1, -1)
    assert F.hand_value(F.made_hand(parse_cards("As Ad"), 0)) > F.hand_value(F.made_hand(parse_cards("Ks Kd 5h"), 1))


def test_hand_worked_position() -> None:
    # top A A, middle K K 7, bottom 2c 3c 4c (flush and straight alive); next card Ah
    v = view(("As Ad", "Ks Kd 7h", "2c 3c 4c"), ("Qs", "Js Jd", "9h 9d 9c"), "Ah 8s 8d")
    b = blocks(F.features(v))
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
    v = view(("Ks Kd", "Qs Qd 2h 3h", "4c 4d 5c 5d"), ("", "", ""), "Kh 8s 9s")
    out = blocks(F.features(v))["outlook"].reshape(4, F.OUTLOOK)
    assert out[:, 0].tolist() == [1.0, 1.0, 1.0, 1.0]
    assert out[:3, 1].tolist() == [1.0, 1.0, 1.0]
    assert out[3, 1] > 0.9
    assert out[:3, 2].tolist() == [0.0, 0.0, 0.0]  # a fouled board earns no royalties
    again = blocks(F.features(v))["outlook"]
    np.testing.assert_array_equal(again, out.reshape(-1))  # a pure function of the view


def test_outlook_finds_the_placement_that_cannot_foul() -> None:
    # top 2 3, middle 8 8 9 9, bottom K K K, next card Ah. In the middle it makes
    # A-high two pair: the top can reach a pair at most, the bottom keeps trips or
    # better: no completion fouls. Anywhere else the middle may fill up (88999/88899)
    # and beat the bottom's trips.
    v = view(("2s 3d", "8s 8d 9c 9h", "Ks Kd Kc"), ("", "", ""), "Ah 4s 6d")
    out = blocks(F.features(v))["outlook"].reshape(4, F.OUTLOOK)
    assert out[:, 0].tolist() == [1.0, 1.0, 1.0, 1.0]
    assert out[1, 1] == 0.0
    assert out[1, 1] <= out[[0, 2, 3], 1].min()
    assert 0.0 <= out.min() and out.max() <= 1.0


def test_final_foul_flag_when_the_lower_row_is_complete() -> None:
    v = view(("Qs Qd", "2s 3d 4h 5c 7d", "Kc Kd Ks"), ("", "", ""), "9h 9s 9d")
    order = blocks(F.features(v))["order"]
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
