"""Rendering of the domino games: what a seat's view shows."""
from __future__ import annotations

import numpy as np

from parlor.envs.dominoes.buki import game as buki
from parlor.envs.dominoes.pulle import game as pulle
from parlor.envs.engine.presenter import presenter_for
from tests.dominoes.helpers import BLOCK_LINE, BUKI_BLOCK_SEAT2


def test_render_shows_tiles_line_and_ends():
    game = buki.make_game()
    state = game.new_state(np.random.default_rng(0), [BUKI_BLOCK_SEAT2])
    for a in BLOCK_LINE[:2]:
        state.apply(game.LATER); state.apply(a)
    text = presenter_for(game).render(state.view(3))
    assert "line: 0-2 2-3 " in text and "open ends: 0 ... 3" in text and "banker" in text
    assert "your tiles: 0-3" in text
    assert "Pulle" in presenter_for(pulle.make_game()).render(pulle.make_game().new_state(np.random.default_rng(0)).view(0))


def test_buki_picture_at_the_episode_end_says_the_bets_are_settled_not_still_to_come():
    from parlor import envs
    from parlor.agents.episodes import play_episode
    from parlor.agents.registry import make_agent

    game = envs.make_game("buki_v0")
    result = play_episode(game, [make_agent("random", game, seed=i) for i in range(4)], seed=6)
    render_svg = presenter_for(game).render_svg
    end = render_svg(result.state.view(0))
    assert "bets settled" in end and "no bet yet" not in end
    first = render_svg(game.new_state(np.random.default_rng(6)).view(1))
    assert "no bet yet" in first and "bets settled" not in first
