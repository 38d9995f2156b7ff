"""docs/rules.md §3.2 and §3.9 Washizu cards: transparent in a hand, hidden once discarded; ordinary
cards only to their owner. Checked per ``washizu`` option on views and observations."""
from __future__ import annotations

import numpy as np
import pytest

from parlor.envs.engine.cards import parse_cards
from parlor.envs.washizu_poker.game import make_game
from tests.washizu_poker.helpers import discard, play, rigged

OTHER = "Kc Kd 2d 3h 4s"


def observations(options: dict, hand0: str) -> list[np.ndarray]:
    game, state = rigged(hand0, OTHER, num_players=2, jokers=0, **options)
    return [game.encode(state.view(1)), game.observe(state, 1)]


@pytest.mark.parametrize("options,washizu_in_hand0", [
    ({"washizu": "none"}, ""),
    ({"washizu": "suit", "washizu_cards": "h"}, "7h Jh"),
    ({"washizu": "random13", "washizu_cards": "7h Jc 2c 3c 4c 5c 6c 8c 9c Tc Qc Kc Ac"}, "7h Jc"),
    ({"washizu": "extra_deck"}, "7h* Js*"),
])
def test_r3_9_washizu_cards_are_seen_by_all_ordinary_cards_only_by_the_owner(options, washizu_in_hand0) -> None:
    ordinary_a, ordinary_b = "5d 9s Qd", "6d 8s Td"
    hand_a = f"{washizu_in_hand0} {ordinary_a}".split()[:5]
    hand_b = f"{washizu_in_hand0} {ordinary_b}".split()[:5]
    if len(hand_a) < 5:  # no Washizu cards: pad with ordinary ones
        hand_a += ["2s", "3s"]
        hand_b += ["2s", "3s"]
    game, state = rigged(" ".join(hand_a), OTHER, num_players=2, jokers=0, **options)
    expected = set(parse_cards(washizu_in_hand0))
    assert set(state.view(1).visible[0]) == expected
    assert set(state.view(0).visible[0]) == expected  # the owner knows which of his cards others see
    # two deals that differ only in seat 0's ordinary cards look the same to seat 1 ...
    obs_a = observations(options, " ".join(hand_a))
    obs_b = observations(options, " ".join(hand_b))
    np.testing.assert_array_equal(obs_a[0], obs_b[0])
    np.testing.assert_array_equal(obs_a[1], obs_b[1])
    # ... but a different Washizu card in his hand is seen
    if washizu_in_hand0:
        swapped = " ".join(hand_a).replace("7h", "8h")
        assert not np.array_equal(observations(options, swapped)[0], obs_a[0])


def test_r3_9_a_discarded_washizu_card_leaves_view() -> None:
    game, state = rigged("7h Jh 5d 9s Qd", OTHER, stock="2c 3c", num_players=2, jokers=0, washizu="suit",
                         washizu_cards="h")
    play(state, discard(state, "7h 5d"))
    view = state.view(1)
    assert view.visible[0] == tuple(parse_cards("Jh"))
    assert view.left_view == tuple(parse_cards("7h"))
    assert view.my_discards == ()  # seat 1 never learns the ordinary discard 5d
    assert sorted(state.view(0).my_discards) == sorted(parse_cards("7h 5d"))
    assert view.drawn == (2, -1)


def test_r3_9_drawn_washizu_card_becomes_visible() -> None:
    game, state = rigged("2s 5d 9s Qd Ks", OTHER, stock="7h 3c", num_players=2, jokers=0, washizu="suit",
                         washizu_cards="h")
    assert state.view(1).visible[0] == ()
    play(state, discard(state, "2s 5d"))
    assert state.view(1).visible[0] == tuple(parse_cards("7h"))


def test_r3_2_washizu_set_is_drawn_per_episode_unless_fixed() -> None:
    game = make_game(washizu="random13")
    sets = {game.new_state(np.random.default_rng(s)).washizu_ids for s in range(5)}
    assert len(sets) > 1 and all(len(w) == 13 for w in sets)
    game = make_game(washizu="suit")
    for s in range(5):
        w = game.new_state(np.random.default_rng(s)).washizu_ids
        assert len({c % 4 for c in w}) == 1 and len(w) == 13
    assert make_game(washizu="extra_deck").new_state(np.random.default_rng(0)).washizu_ids == tuple(range(52, 104))
    assert make_game(washizu="none").new_state(np.random.default_rng(0)).washizu_ids == ()

