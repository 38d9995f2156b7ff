"""The OFC presenter: text and picture of a view (``render.py``), moves and showdowns in
words (``narrate.py``), and each seat's score note both of them print."""
from __future__ import annotations

from parlor.envs.engine.presenter import Presenter
from parlor.envs.ofc import narrate, render
from parlor.envs.ofc.view import OFCView


class OFCPresenter(Presenter):
    def render(self, view: OFCView) -> str:
        return render.render(view, self.seat_notes(view))

    def render_svg(self, view: OFCView) -> str:
        return render.render_svg(view, self.seat_notes(view))

    def move_name(self, view: OFCView, action: int) -> str:
        return narrate.move_name(view, action)

    def describe_move(self, before: OFCView, after: OFCView, actor: int, action: int) -> str:
        return narrate.describe_move(before, after, actor, action)

    def explain(self, view: OFCView) -> str:
        return narrate.explain(view)

    def seat_notes(self, view: OFCView) -> list[str]:
        return [f"score {view.scores[q]:+d}, last hand {view.last_points[q]:+d}" for q in range(view.num_players)]
