"""One presenter per game (engine/presenter.py): registered explicitly for every env, with the
base's signatures, and text, picture and explanation quoting the same seat notes."""
from __future__ import annotations

from xml.sax.saxutils import escape

import numpy as np
import pytest

from parlor import envs
from parlor.envs.aec import entry_points
from parlor.envs.dominoes.buki.game import make_game as buki
from parlor.envs.dominoes.pulle.game import make_game as pulle
from parlor.envs.engine.game import ConfigError
from parlor.envs.engine.presenter import Presenter, differing_signatures, draws_pictures, presenter_for, register
from parlor.envs.testing import CHECKS, check_env
from tests.dominoes.helpers import BLOCK_LINE, BUKI_BLOCK_DRAW, BUKI_BLOCK_SEAT2, pass_until_done
from tests.harness import kuhn


@pytest.mark.parametrize("name", envs.ENVS)
def test_every_env_has_its_own_presenter_with_the_base_signatures(name: str) -> None:
    game = envs.make_game(name)
    presenter = presenter_for(game)
    assert isinstance(presenter, Presenter) and type(presenter) is not Presenter and presenter.game is game
    assert draws_pictures(presenter), f"{name} has no picture"
    assert differing_signatures(type(presenter)) == []
    # the game itself carries no presentation: one place for it
    for method in ("render", "render_svg", "move_name", "describe_move", "explain", "seat_notes"):
        assert not hasattr(game, method), f"{name}'s Game still has {method}"


@pytest.mark.parametrize("name", envs.ENVS)
def test_the_picture_and_the_text_print_the_seat_notes_as_written(name: str) -> None:
    game = envs.make_game(name)
    presenter = presenter_for(game)
    state, rng = game.new_state(np.random.default_rng(1)), np.random.default_rng(1)
    for _ in range(12):  # a few moves in: notes that say more than the opening
        if state.is_terminal():
            break
        legal = np.flatnonzero(state.legal_mask())
        state.apply(int(legal[rng.integers(legal.size)]))
    view = state.view(0)
    notes = presenter.seat_notes(view)
    assert len(notes) == game.num_players and all(notes)
    picture, text = presenter.render_svg(view), presenter.render(view)
    for note in notes:
        assert f">{escape(note)}</text>" in picture
        assert note in text


def test_buki_text_and_picture_say_the_carried_bets_and_the_raise_alike() -> None:
    game = buki(raise_before_4th=True)
    presenter = presenter_for(game)
    state = game.new_state(np.random.default_rng(0), [BUKI_BLOCK_DRAW, BUKI_BLOCK_SEAT2])
    for a in (game.bet_id(3), BLOCK_LINE[0], game.bet_id(2), BLOCK_LINE[1], game.LATER, BLOCK_LINE[2]):
        state.apply(a)
    pass_until_done(state)  # a drawn deal: the bets carry over into deal 2
    view = state.view(0)
    assert presenter.seat_notes(view) == ["banker", "bet 3 (carried over)", "bet 2 (carried over)",
                                         "bet 2 (carried over)"]
    text, picture = presenter.render(view), presenter.render_svg(view)
    assert "  P1: 6 tiles  bet 3 (carried over)  chips 97  played -" in text
    assert "*" not in text and "bet 3 (carried over)" in picture  # the text's own mark '3*' is gone
    # a raise asked of the banker: the same words under the text and the picture
    state = game.new_state(np.random.default_rng(0), [BUKI_BLOCK_SEAT2])
    for a in (game.bet_id(2), BLOCK_LINE[0], game.bet_id(2), BLOCK_LINE[1], game.LATER, BLOCK_LINE[2], 72):
        state.apply(a)
    state.apply(game.bet_id(5))
    view = state.view(2)
    ask = "P1 asks to raise to 5: the banker accepts or refuses"
    assert presenter.footer(view)[-1] == ask and ask in presenter.render(view).splitlines()
    assert escape(ask) in presenter.render_svg(view)


def test_pulle_explanation_quotes_the_seat_notes_of_its_text_and_picture() -> None:
    game = pulle()
    presenter = presenter_for(game)
    state, rng = game.new_state(np.random.default_rng(3)), np.random.default_rng(3)
    while state.view(0).last_deal is None:
        legal = np.flatnonzero(state.legal_mask())
        state.apply(int(legal[rng.integers(legal.size)]))
    view = state.view(0)
    notes = presenter.seat_notes(view)
    assert notes == [f"total {t}{' (out)' if view.out[s] else ''}" for s, t in enumerate(view.totals)]
    told = presenter.explain(view).splitlines()[-1]
    assert told == "  running totals now: " + ", ".join(f"P{s} {note}" for s, note in enumerate(notes)) \
        + "; a total of 101 or more sits out"
    picture, text = presenter.render_svg(view), presenter.render(view)
    assert all(note in text and note in picture for note in notes)
    assert "a total of 101 or more sits out" in text and "a total of 101 or more sits out" in picture


class _Unregistered:
    num_players = 2


def test_an_unregistered_game_is_refused_by_name_and_a_second_presenter_too() -> None:
    with pytest.raises(ConfigError, match="no presenter is registered for _Unregistered"):
        presenter_for(_Unregistered())
    game = envs.make_game("pulle_v0")
    with pytest.raises(ValueError, match="already has the presenter PullePresenter"):
        register(type(game), type(presenter_for(envs.make_game("buki_v0"))))
    with pytest.raises(TypeError, match="Presenter subclass"):
        register(_Unregistered, object)  # type: ignore[arg-type]


def test_a_changed_signature_is_named_with_both_forms() -> None:
    class Odd(type(presenter_for(envs.make_game("pulle_v0")))):  # type: ignore[misc]
        def move_name(self, view, action, verbose=False):
            return super().move_name(view, action)

    assert differing_signatures(Odd) == ["move_name(self, view, action, verbose=False) vs "
                                         "(self, view: 'Any', action: 'int') -> 'str'"]


class _OddKuhn(kuhn.KuhnGame):
    """Kuhn poker whose presenter gives one seat note too few."""

    name = "odd_kuhn_test"  # a game's name is its env id


class _OddKuhnPresenter(kuhn.KuhnPresenter):
    def seat_notes(self, view):
        return super().seat_notes(view)[:1]


register(_OddKuhn, _OddKuhnPresenter)


def test_the_public_harness_checks_the_presenter_of_a_users_game() -> None:
    good, _ = entry_points("kuhn_test", kuhn.make_game)
    only = tuple(name for name in CHECKS if name != "presenter")
    assert check_env(good, skip=only) == {}
    odd, _ = entry_points("odd_kuhn_test", lambda **options: _OddKuhn(kuhn.KuhnConfig(**options)))
    with pytest.raises(AssertionError, match=r"check 'presenter' failed.*_OddKuhnPresenter.seat_notes gave \['card"):
        check_env(odd, skip=only)


class _TextOnly(Presenter):
    def render(self, view):
        return "text"

    def move_name(self, view, action):
        return "move"

    def describe_move(self, before, after, actor, action):
        return "moves"

    def explain(self, view):
        return ""

    def seat_notes(self, view):
        return []


def test_a_presenter_must_implement_every_abstract_method() -> None:
    class Partial(Presenter):
        def render(self, view):
            return "text"

    with pytest.raises(TypeError, match="abstract method"):
        Partial(None)  # type: ignore[abstract]


def test_a_presenter_without_a_picture_refuses_rgb_array_naming_the_text_modes() -> None:
    with pytest.raises(ConfigError, match=r"render_mode='rgb_array'.*has no render_svg.*ansi, human"):
        _TextOnly(None).render_svg(None)


def test_a_pulle_buy_back_does_not_rewrite_the_story_of_the_deal_before_it() -> None:
    """The explanation of a finished deal is told once (``parlor play``, replay captions): a
    buy-back at the next deal's start changes the totals, not what the deal left."""
    from parlor.envs.dominoes.pulle.state import BUY

    game = pulle(buy_back=True)
    presenter = presenter_for(game)
    bought = 0
    for seed in range(20):
        state, rng = game.new_state(np.random.default_rng(seed)), np.random.default_rng(seed)
        while not (state.is_terminal() or state.is_truncated()):
            legal = np.flatnonzero(state.legal_mask())
            action = BUY if BUY in legal else int(legal[rng.integers(legal.size)])
            seat, view = state.current_player, state.view(0)
            before = presenter.explain(view)
            state.apply(action)
            if action == BUY:
                bought += 1
                after = state.view(0)
                assert presenter.explain(after) == before
                assert f"P{seat} total {view.totals[seat]}" in before  # the total the deal left
                assert presenter.seat_notes(after)[seat] == f"total {view.buy_back_value}"  # the table moved on
        if bought >= 3:
            break
    assert bought >= 3


def test_tonk_text_at_the_end_shows_every_hand_beside_the_side_pot_spades() -> None:
    """The end of a Tonk episode shows the hands and each side-pot spade: the text used to
    reuse one name for both and crash on the seat after the first side-pot entry."""
    game = envs.make_game("tonk_v0", spades_side_pot=True)
    presenter = presenter_for(game)
    state, rng = game.new_state(np.random.default_rng(0)), np.random.default_rng(0)
    while not (state.is_terminal() or state.is_truncated()):
        legal = np.flatnonzero(state.legal_mask())
        state.apply(int(legal[rng.integers(legal.size)]))
    view = state.view(0)
    assert view.last_result is not None and any(j is not None for j in view.side_pot_joined)
    text = presenter.render(view)
    assert sum("shown " in line for line in text.splitlines()) == game.num_players - 1
    assert "side pot: " in text and "side pot: " in presenter.render_svg(view)
