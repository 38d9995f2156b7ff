"""The presenter all three domino games share: text and picture of a view (``render.py``) and
table talk (``narrate.py``), with the words each game adds (``buki/``, ``pulle/``,
``austrian/`` ``presenter.py``): its title, a note per seat, footer lines, its own moves
and what a finished deal leaves behind. Text and picture print the same notes and footer."""
from __future__ import annotations

from abc import abstractmethod
from typing import Any

from parlor.envs.dominoes import narrate, render
from parlor.envs.dominoes.view import DominoView
from parlor.envs.engine.presenter import Presenter


class DominoPresenter(Presenter):
    """Shared behaviour; a game's subclass words ``title``, ``seat_notes`` and ``footer``,
    and where it has them its own moves (``extra_move``) and deal notes (``deal_notes``).
    Those hooks take ``Any`` view: each game's presenter reads its own View subclass."""

    def render(self, view: DominoView) -> str:
        return render.render(view, self.title(view), self.seat_notes(view), self.footer(view))

    def render_svg(self, view: DominoView) -> str:
        return render.render_svg(view, self.title(view), self.seat_notes(view), self.footer(view))

    def move_name(self, view: DominoView, action: int) -> str:
        return narrate.move_name(self, view, action)

    def describe_move(self, before: DominoView, after: DominoView, actor: int, action: int) -> str:
        return narrate.describe_move(self, before, after, actor, action)

    def explain(self, view: DominoView) -> str:
        return narrate.explain(self, view)

    @abstractmethod
    def title(self, view: Any) -> str:
        """The game's name in the header of its text and picture."""

    def footer(self, view: Any) -> list[str]:
        """Lines under the table: the game's stakes and the decision now due."""
        return []

    def extra_move(self, view: Any, actor: int, action: int) -> str:
        """Third-person words for a move that is not a tile play or pass (bets, buy-backs)."""
        return narrate.third_person(self.action_name(action))

    def deal_notes(self, view: Any) -> list[str]:
        """Lines the game adds to the explanation of a finished deal (e.g. Pulle's totals)."""
        return []
