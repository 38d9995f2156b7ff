"""OFC table talk: actions and moves named by their card, Pineapple discards hidden from the
other seats, and the showdown explained (rows, hand names, royalties, fouls, pair points)."""
from __future__ import annotations

import io

from parlor.agents.human import HumanAgent
from parlor.envs.engine.presenter import presenter_for
from tests.ofc.helpers import FOULER, LOSER, WINNER, hand_script, new_state, run, seq

PINEAPPLE_A = seq("Qs Qh 2c", "9c 9d 9h 4s 5s", "Ac Kc 8c 6c 3c", discards="7s 7c Jh Tc")
PINEAPPLE_B = seq("2d 3d 4h", "Jc Jd 7h 8h Th", "Ts Js Qd Kd As", discards="5c 5h 6s 8s")


def test_actions_name_the_next_card_and_a_row_word_or_its_start_picks_one() -> None:
    deck, _ = hand_script({0: WINNER, 1: LOSER}, 2)
    game, state = new_state([deck])
    view = state.view(0)
    assert [presenter_for(game).move_name(view, a) for a in range(3)] == ["place Q♠ on top", "place Q♠ in middle",
                                                               "place Q♠ on bottom"]
    human = HumanAgent(game, io.StringIO(), io.StringIO())
    for typed, action in (("middle", 1), ("mid", 1), ("top", 0), ("bot", 2), ("place Qs on bottom", 2),
                          ("place next card in middle", 1)):
        assert human.parse(typed, [0, 1, 2], view) == (action, ""), typed
    assert "matches several actions" in human.parse("place", [0, 1, 2], view)[1]


def test_moves_name_their_card_but_a_pineapple_discard_only_for_its_owner() -> None:
    deck, actions = hand_script({0: PINEAPPLE_A, 1: PINEAPPLE_B}, 2, variant="pineapple")
    game, state = new_state([deck], variant="pineapple")
    run(state, actions[:10])
    told: dict[int, list[str]] = {0: [], 1: []}
    for seat, action in actions[10:13]:  # seat 0: 9♥ and 4♠ to the middle, 7♠ discarded
        before = [state.view(q) for q in (0, 1)]
        state.apply(action)
        for q in (0, 1):
            told[q].append(presenter_for(game).describe_move(before[q], state.view(q), seat, action))
    assert told[0] == ["places 9♥ in middle", "places 4♠ in middle", "discards 7♠ (face down)"]
    assert told[1] == ["places 9♥ in middle", "places 4♠ in middle", "discards a card face down"]


def test_showdown_explains_each_row_its_royalty_and_why_a_board_fouled() -> None:
    deck, actions = hand_script({0: WINNER, 1: FOULER}, 2)
    game, state = new_state([deck])
    assert presenter_for(game).explain(state.view(0)) == ""  # nothing to explain before the showdown
    run(state, actions)
    text = presenter_for(game).explain(state.view(0))
    assert ("P0 (you): top Q♠ Q♥ 2♣ (pair Q 2, royalty 7); middle 9♣ 9♦ 9♥ 4♠ 5♠ (three of a kind 9 5 4, "
            "royalty 2); bottom A♣ K♣ 8♣ 6♣ 3♣ (flush A K 8 6 3, royalty 4); royalties 13") in text
    assert "P1: FOUL, middle (two pair K 8 3) beats bottom (pair A 7 6 4): two pair beats pair" in text
    assert "P0 vs P1: P1 fouled and pays P0 6 + royalties 13 = 19" in text
    assert text.endswith("points: P0 +19, P1 -19")


def test_pair_points_show_rows_won_the_scoop_and_royalties() -> None:
    deck, actions = hand_script({0: WINNER, 1: LOSER, 2: FOULER}, 3)
    game, state = new_state([deck], num_players=3)
    points = run(state, actions)
    text = presenter_for(game).explain(state.view(1))
    assert "P0 vs P1: rows top P0, middle P0, bottom P0 (3-0, scoop 3), royalties 13 - 2: P0 +17" in text
    assert "P1 (you): top 2♦ 3♦ 4♥ (high card 4 3 2)" in text and "(straight A, royalty 2)" in text
    assert text.endswith(f"points: P0 {points[0]:+.0f}, P1 {points[1]:+.0f}, P2 {points[2]:+.0f}")


def test_a_showdown_stays_explained_after_the_next_hand_is_dealt() -> None:
    deck, actions = hand_script({0: WINNER, 1: FOULER}, 2)
    game, state = new_state([deck], num_hands=2)
    run(state, actions)
    view = state.view(1)
    assert view.hand_index == 1 and all(not row for row in view.rows[0])  # hand 2 is dealt
    assert presenter_for(game).explain(view).startswith("showdown of hand 1/2:")
