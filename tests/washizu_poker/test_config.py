"""Options, stacked-deck validation, action names and rendering."""
from __future__ import annotations

import numpy as np
import pytest

from parlor.envs import washizu_poker_v0
from parlor.envs.engine.game import ConfigError
from parlor.envs.engine.presenter import presenter_for
from parlor.envs.washizu_poker.encode import Layout
from parlor.envs.washizu_poker.game import make_game
from tests.washizu_poker.helpers import rigged


def test_defaults_follow_the_rulebook() -> None:
    cfg = make_game().config
    assert (cfg.jokers, cfg.starting_chips, cfg.num_games, cfg.max_raise) == (1, 15, 5, 3)
    assert cfg.num_players == 4 and cfg.washizu == "suit"
    assert make_game().num_actions == 37 and make_game(max_raise=5).num_actions == 39


@pytest.mark.parametrize("options,field", [
    ({"num_players": 7}, "num_players"),
    ({"num_players": 1}, "num_players"),
    ({"jokers": 3}, "jokers"),
    ({"washizu": "glass"}, "washizu"),
    ({"num_games": 0}, "num_games"),
    ({"max_raise": 0}, "max_raise"),
    ({"starting_chips": 0}, "starting_chips"),
    ({"washizu": "none", "washizu_cards": "h"}, "washizu_cards"),
    ({"washizu": "suit", "washizu_cards": "2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh As"}, "washizu_cards"),
    ({"washizu": "random13", "washizu_cards": "2h 3h"}, "washizu_cards"),
    ({"washizu": "random13", "washizu_cards": "2h 2h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh Ah"}, "washizu_cards"),
    ({"washizu": "random13", "washizu_cards": "Zz"}, "washizu_cards"),
])
def test_bad_options_name_the_field(options, field) -> None:
    with pytest.raises(ConfigError, match=field):
        make_game(**options)


def test_unknown_option_lists_the_allowed_ones() -> None:
    with pytest.raises(ConfigError, match="allowed options: num_players, jokers"):
        make_game(players=3)


def test_washizu_cards_accepts_a_suit_letter_or_the_cards() -> None:
    a = make_game(washizu="suit", washizu_cards="d").config.washizu_cards
    b = make_game(washizu="suit", washizu_cards=" ".join(f"{r}d" for r in "23456789TJQKA")).config.washizu_cards
    assert a == b == tuple(range(1, 52, 4))


@pytest.mark.parametrize("deck,problem", [
    ("As Kd", "has 2 cards"),
    ("As As", "twice"),
    ("As Zq", "bad card"),
])
def test_bad_stacked_deck_names_the_problem(deck, problem) -> None:
    with pytest.raises(ValueError, match=problem):
        make_game().parse_deck(deck)


def test_stacked_deck_of_the_extra_deck_game_has_104_cards_and_jokers() -> None:
    game = make_game(washizu="extra_deck", jokers=2)
    assert len(game.parse_deck([*range(104), 104, 105])) == 106
    with pytest.raises(ValueError, match="not in this game's deck"):
        make_game(washizu="suit", jokers=0).parse_deck("As*")


def test_action_names() -> None:
    game = make_game()
    assert game.action_name(0) == "stand pat (draw 0)"
    assert game.action_name(0b10101) == "discard positions 0,2,4 and draw 3"
    assert [game.action_name(a) for a in (32, 33, 34, 36)] == ["drop", "call", "raise by 1", "raise by 3"]
    with pytest.raises(ValueError):
        game.action_name(37)


def test_observation_layout_matches_the_spec() -> None:
    for n in range(2, 7):
        assert make_game(num_players=n).observation_shape == (208 + 59 * n,)
        assert Layout(n).slices["table"].stop == 208 + 59 * n
    assert f"{208 + 59 * 4}" in washizu_poker_v0.__doc__


def test_render_shows_own_hand_visible_washizu_and_hides_the_rest() -> None:
    game, state = rigged("7h Jh 5d 9s Qd", "Kh Kd 2d 3c 4s", num_players=2, jokers=0, washizu="suit",
                         washizu_cards="h")
    text = presenter_for(game).render(state.view(1))
    assert "[7♥] [J♥] ?? ?? ??" in text and "5♦" not in text
    assert "[K♥]" in text and "K♦" in text and "(you)" in text
    assert "your move" not in text
    assert "your move" in presenter_for(game).render(state.view(0))


def test_env_entry_point_plays_a_match() -> None:
    env = washizu_poker_v0.env(num_players=3, render_mode="ansi")
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        legal = np.flatnonzero(obs["action_mask"])
        env.step(None if term or trunc else int(legal[rng.integers(legal.size)]))
    assert sum(totals.values()) <= 0 and any(totals.values())
