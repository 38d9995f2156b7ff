"""Counted nouns: one of a thing is singular, any other count plural (never "(1 cards)")."""
from __future__ import annotations

from parlor.envs.engine.presenter import presenter_for
from parlor.envs.engine.words import count, noun


def test_one_is_singular_every_other_count_plural() -> None:
    assert count(1, "card") == "1 card"
    assert [count(n, "tile") for n in (0, 2, 17)] == ["0 tiles", "2 tiles", "17 tiles"]
    assert noun(1, "seat") == "seat" and noun(3, "seat") == "seats"
    assert count(1, "match", "matches") == "1 match" and count(2, "match", "matches") == "2 matches"


def test_a_one_card_discard_pile_is_one_card() -> None:
    import numpy as np

    from parlor import envs

    game = envs.make_game("tonk_v0", num_players=2)
    text = presenter_for(game).render(game.new_state(np.random.default_rng(0)).view(0))
    assert "(1 card)" in text and "(1 cards)" not in text and "player_0: 5 cards" in text
