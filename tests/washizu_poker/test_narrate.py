"""Washizu poker table talk: discards chosen and shown as cards, other seats' discards told by
count and Washizu card, the legend, and each game's result explained (hands and why)."""
from __future__ import annotations

import io

from parlor.agents.human import HumanAgent
from parlor.envs.engine.presenter import presenter_for
from tests.washizu_poker.helpers import CALL, DROP, PAT, discard, play, rigged

SPADES = {"num_players": 2, "washizu": "suit", "washizu_cards": "s", "jokers": 2, "num_games": 1}


def test_discards_are_listed_and_typed_as_cards_in_either_notation() -> None:
    game, state = rigged("As Kd 7c 7h 2s", "3c 4d 8h 9c Jd", stock="5s 6h 9d Tc", **SPADES)
    view = state.view(0)
    want = discard(state, "Kd 2s")
    assert presenter_for(game).move_name(view, want) == "discard [2♠] K♦ and draw 2"  # the hand's order
    assert presenter_for(game).move_name(view, PAT) == "stand pat (draw 0)"
    human = HumanAgent(game, io.StringIO(), io.StringIO())
    legal = list(range(32))
    for typed in ("discard K♦ [2♠]", "2s Kd", "discard kd 2♠", "K♦ 2♠"):
        assert human.parse(typed, legal, view) == (want, ""), typed
    assert human.parse("stand", legal, view) == (PAT, "")
    assert human.parse("Kd", legal, view) == (discard(state, "Kd"), "")  # exactly the cards named


def test_a_discard_is_told_with_its_cards_to_its_owner_and_by_washizu_cards_to_the_others() -> None:
    game, state = rigged("As Kd 7c 7h 2s", "3c 4d 8h 9c Jd", stock="5s 6h 9d Tc", **SPADES)
    before = [state.view(q) for q in (0, 1)]
    action = discard(state, "Kd 2s")
    state.apply(action)
    after = [state.view(q) for q in (0, 1)]
    assert presenter_for(game).describe_move(before[0], after[0], 0, action) == "discards [2♠] K♦ and draws 2: [5♠] 6♥"
    assert presenter_for(game).describe_move(before[1], after[1], 0, action) == \
        "discards 2 cards (Washizu [2♠] among them) and draws 2 (Washizu [5♠] among them)"


def test_the_legend_explains_washizu_brackets_and_jokers() -> None:
    game, state = rigged("As Kd 7c 7h 2s", "3c 4d 8h 9c Jd", **SPADES)
    text = presenter_for(game).render(state.view(0))
    assert "legend: [K♣] = a Washizu card (transparent: every seat sees it); Xx, Xy = jokers (wild)" in text
    assert "seat 0 (you): in      chips  14 bet  0 drew -  [2♠] 7♣ 7♥ K♦ [A♠]" in text  # cards, no positions


def test_the_showdown_names_every_hand_and_why_the_winner_won() -> None:
    game, state = rigged("Ah Ac Ad As Xx", "9s Ts Js Qs Ks", num_players=2, washizu="none", jokers=2, num_games=1)
    play(state, PAT, PAT, CALL, CALL)
    text = presenter_for(game).explain(state.view(1))
    assert text.splitlines() == [
        "game 1/1: showdown",
        "  P0: A♣ A♦ A♥ A♠ Xx (five of a kind A)",
        "  P1 (you): 9♠ T♠ J♠ Q♠ K♠ (straight flush K)",
        "  P0 takes the pot of 4: five of a kind beats straight flush",
    ]
    game, state = rigged("Kh Kd 9c 7d 2h", "Ks Kc 8h 7s 4h", num_players=2, washizu="none", jokers=0, num_games=1)
    play(state, PAT, PAT, CALL, CALL)
    assert presenter_for(game).explain(state.view(0)).endswith("P0 takes the pot of 4: both pair K: kicker 9 beats 8")


def test_a_game_won_by_the_others_dropping_says_so() -> None:
    game, state = rigged("Ah Ac Ad As Xx", "9s Ts Js Qs Ks", num_players=2, washizu="none", jokers=2, num_games=1)
    play(state, PAT, PAT, CALL, DROP)
    assert presenter_for(game).explain(state.view(0)) == "game 1/1: P0 takes the pot of 3: everyone else dropped"
