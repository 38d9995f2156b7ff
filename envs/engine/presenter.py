"""The Presenter contract: how a game is shown to people, the same signatures for every game.

A game's rules (``engine/game.py``: Game and State) never format words or pictures. Its
presenter does, from Views only: the text of a view (``render``: ``parlor play``, ``replay``,
``env.render()``), its picture (``render_svg``: ``rgb_array`` frames and HTML replay pages),
actions and moves in words (``action_name``, ``move_name``: human play and game records),
a move as one seat saw it (``describe_move``) and why the latest hand or deal paid what it
did (``explain``). ``seat_notes`` is the one place a seat's standing is worded (bets, totals,
scores): the text, the picture and the explanation quote it, so they cannot say it
differently.

Presenters are registered explicitly, one per Game class, by the module that defines the
Game (``register(OFCGame, OFCPresenter)``), and found with :func:`presenter_for`.
"""
from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

from parlor.envs.engine.game import ConfigError


class Presenter(ABC):
    """Words and pictures of one game's Views. Subclasses implement every abstract method;
    ``action_name`` is the game's own name of an action id and ``render_svg`` is optional (a
    game without a picture renders as text only)."""

    def __init__(self, game: Any):
        self.game = game

    @abstractmethod
    def render(self, view: Any) -> str:
        """Human-readable text (suit symbols) of a view."""

    def render_svg(self, view: Any) -> str:
        """The view as one standalone SVG picture of a fixed size per game configuration
        (drawn with ``engine/svg.py``)."""
        raise ConfigError(f"render_mode='rgb_array' needs a picture of the game: {type(self).__name__} has no "
                          "render_svg(view); allowed render_mode values here: ansi, human")

    def action_name(self, action: int) -> str:
        """Readable meaning of an action id, e.g. 'place next card on top' (the game's
        ``action_name``, which error messages of the rules use too)."""
        return self.game.action_name(action)

    @abstractmethod
    def move_name(self, view: Any, action: int) -> str:
        """The move as the acting seat (whose ``view`` it is) would say it, naming the cards or
        tiles it moves (e.g. 'place K♣ in middle', 'discard K♣ 7♦ and draw 2'): what human
        play lists and matches typed moves against, and what records caption steps with.
        Cards and tiles in the notation the parsers read."""

    @abstractmethod
    def describe_move(self, before: Any, after: Any, actor: int, action: int) -> str:
        """Seat ``actor``'s move as the seat of ``before`` and ``after`` (its views just before and
        after the move) saw it, in the third person without the subject: 'places K♣ in middle',
        'discards a card face down'. Names only what that seat may see."""

    @abstractmethod
    def explain(self, view: Any) -> str:
        """Why the latest finished hand or deal of the episode paid what it did, as the seat of
        ``view`` knows it (hands and their names, royalties, fouls, who went out or blocked,
        pip counts, payouts); '' before the first one has finished."""

    @abstractmethod
    def seat_notes(self, view: Any) -> list[str]:
        """One short note per seat (absolute seat order) on its standing as the seat of
        ``view`` knows it, e.g. 'score +3, last hand +3', 'bet 4 (carried over)'. Text and
        picture print these words as they are."""


# the methods every presenter has, with the signatures of Presenter's (differing_signatures)
METHODS = ("render", "render_svg", "action_name", "move_name", "describe_move", "explain", "seat_notes")


def differing_signatures(presenter_class: type[Presenter]) -> list[str]:
    """The methods of :data:`METHODS` whose parameters (names, kinds, defaults; a game may
    annotate its own View type) differ from the Presenter base's, each as 'name(...) vs (...)'."""
    def shape(function: Callable[..., Any]) -> list[tuple[str, Any, Any]]:
        return [(p.name, p.kind, p.default) for p in inspect.signature(function).parameters.values()]

    return [f"{name}{inspect.signature(getattr(presenter_class, name))} vs {inspect.signature(getattr(Presenter, name))}"
            for name in METHODS if shape(getattr(presenter_class, name)) != shape(getattr(Presenter, name))]


_REGISTRY: dict[type, type[Presenter]] = {}


def register(game_class: type, presenter_class: type[Presenter]) -> None:
    """Make ``presenter_class`` the presenter of ``game_class`` (and of its subclasses that
    register none of their own). Registering a second, different one is an error."""
    if not (isinstance(presenter_class, type) and issubclass(presenter_class, Presenter)):
        raise TypeError(f"register() takes a Presenter subclass, not {presenter_class!r}")
    known = _REGISTRY.get(game_class)
    if known is not None and known is not presenter_class:
        raise ValueError(f"{game_class.__name__} already has the presenter {known.__name__}")
    _REGISTRY[game_class] = presenter_class


def presenter_for(game: Any) -> Presenter:
    """The presenter of ``game``: the one registered for its class or the nearest base class."""
    for cls in type(game).__mro__:
        found = _REGISTRY.get(cls)
        if found is not None:
            return found(game)
    raise ConfigError(f"no presenter is registered for {type(game).__name__}; register one with "
                      "parlor.envs.engine.presenter.register(GameClass, PresenterClass)")


def draws_pictures(presenter: Presenter) -> bool:
    """Whether ``presenter`` draws SVG pictures (its class overrides ``render_svg``)."""
    return type(presenter).render_svg is not Presenter.render_svg


def svg_renderer(game: Any) -> Callable[[Any], str]:
    """The picture function ``render_svg(view) -> str`` of ``game``'s presenter; ConfigError
    (naming the text modes) for a game without pictures."""
    presenter = presenter_for(game)
    if not draws_pictures(presenter):
        presenter.render_svg(None)  # raises the ConfigError that names the allowed modes
    return presenter.render_svg
