"""Washizu poker table talk: discards chosen and shown as cards, other seats' discards told by
count and Washizu card, the legend, and each game's result explained (hands and why)."""
from __future__ import annotations

import io

import numpy as np

from parlor.agents.human import HumanAgent
from parlor.envs.engine.presenter import presenter_for
from parlor.envs.washizu_poker.game import make_game
from tests.washizu_poker.helpers import CALL, DROP, PAT, discard, play, raise_by, rigged

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
    assert "seat 0 (you): chips  14  in, bet 0  [2♠] 7♣ 7♥ K♦ [A♠]" in text  # cards, no positions



def _seat_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("seat ")]


def test_the_text_table_prints_each_seat_note_as_the_picture_does() -> None:
    """The presenter's seat notes (in or dropped or out of the match, the bet, the draw) are
    the text table's column, word for word, on the seat's own line, as in the picture."""
    game = make_game(num_players=3, washizu="none", jokers=0)
    presenter = presenter_for(game)
    state = game.new_state(np.random.default_rng(5))
    play(state, 3, PAT, 1, raise_by(1), DROP)  # seat 0 draws 2, seat 2 draws 1; seat 0 raises, seat 1 drops
    view = state.view(2)
    notes = presenter.seat_notes(view)
    assert notes == ["in, bet 2, drew 2", "dropped, bet 0, drew 0", "in, bet 0, drew 1"]
    lines = _seat_lines(presenter.render(view))
    assert [line.split(":")[0] for line in lines] == ["seat 0", "seat 1", "seat 2 (you)"]
    assert all(f"  {note}  " in line for note, line in zip(notes, lines))
    picture = presenter.render_svg(view)
    assert all(f">{note}</text>" in picture for note in notes)
    # one chip each: the ante leaves nothing to bet, the showdown ends the match for two seats
    game = make_game(num_players=3, washizu="none", jokers=0, starting_chips=1)
    state = game.new_state(np.random.default_rng(5))
    play(state, 3, PAT, 1)
    view = state.view(0)
    notes = presenter_for(game).seat_notes(view)
    assert state.is_terminal() and notes[1:] == ["out of the match, bet 0, drew 0", "out of the match, bet 0, drew 1"]
    lines = _seat_lines(presenter_for(game).render(view))
    assert lines[1].endswith("chips   0  out of the match, bet 0, drew 0")  # no cards: nothing after the note
    assert all(note in line for note, line in zip(notes, lines))


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
