"""The human-play agent on scripted text: numbers, names, prefixes, help and quitting; forced
moves played without asking."""
from __future__ import annotations

import io

import numpy as np
import pytest

from parlor.agents.human import Abandon, HumanAgent
from parlor.envs.engine.presenter import presenter_for
from tests.harness import kuhn

GAME = kuhn.make_game()


def test_input_by_number_or_unique_prefix() -> None:
    human = HumanAgent(GAME, io.StringIO(), io.StringIO())
    assert human.parse("1", [0, 1]) == (1, "")
    assert human.parse("  BeT ", [0, 1]) == (1, "")
    assert human.parse("pa", [0, 1]) == (0, "")
    action, message = human.parse("1", [0])
    assert action is None and "not legal now" in message


def test_act_shows_the_view_reprompts_on_bad_input_and_abandons_on_quit() -> None:
    state = GAME.new_state(np.random.default_rng(0), decks=[(2, 0, 1)])
    out = io.StringIO()
    human = HumanAgent(GAME, io.StringIO("bogus\n?\nbet\n"), out)
    assert human.act(None, np.array([1, 1], np.int8), state.view(0)) == 1
    text = out.getvalue()
    assert presenter_for(GAME).render(state.view(0)) in text and "'bogus' is not a legal action now" in text
    assert text.count("legal actions:") == 2
    for script, why in (("q\n", "you quit"), ("", "input ended")):
        with pytest.raises(Abandon, match=why):
            HumanAgent(GAME, io.StringIO(script), io.StringIO()).act(None, np.array([1, 1], np.int8), state.view(0))


def test_the_prompt_reminds_of_the_notation_the_moves_use() -> None:
    from parlor.agents.human import prompt

    assert "cards as K♣ or Kc" in prompt({0: "place K♣ on top", 3: "discard K♣"})
    assert "tiles as 3-5" in prompt({0: "play 3-5 on the left end (on the open 3)", 72: "pass"})
    assert "cards" not in prompt({0: "pass", 1: "bet"}) and "tiles" not in prompt({0: "pass", 1: "bet"})


def test_a_forced_move_is_played_and_said_without_asking() -> None:
    state = GAME.new_state(np.random.default_rng(0), decks=[(2, 0, 1)])
    out = io.StringIO()
    human = HumanAgent(GAME, io.StringIO(""), out)  # reading any input would abandon the game
    assert human.act(None, np.array([0, 1], np.int8), state.view(0)) == 1
    assert out.getvalue() == f"your only legal move: {presenter_for(GAME).move_name(state.view(0), 1)} (played for you)\n"
