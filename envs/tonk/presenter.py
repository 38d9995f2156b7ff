"""The Tonk presenter: text and picture of a view (``render.py``), moves and hand results
in words (``narrate.py``), and each seat's stakes note both of them print."""
from __future__ import annotations

from parlor.envs.engine.presenter import Presenter
from parlor.envs.tonk import narrate, render
from parlor.envs.tonk.view import TonkView


class TonkPresenter(Presenter):
    def render(self, view: TonkView) -> str:
        return render.render_view(view, self.seat_notes(view))

    def render_svg(self, view: TonkView) -> str:
        return render.render_svg(view, self.seat_notes(view))

    def move_name(self, view: TonkView, action: int) -> str:
        return narrate.move_name(view, action)

    def describe_move(self, before: TonkView, after: TonkView, actor: int, action: int) -> str:
        return narrate.describe_move(before, after, actor, action)

    def explain(self, view: TonkView) -> str:
        return narrate.explain(view)

    def seat_notes(self, view: TonkView) -> list[str]:
        """Stakes won or lost so far, and a drop the rules still block (§5)."""
        return [", ".join([f"stakes {view.stakes[s]:+d}"] + render.drop_note(view, s)) for s in range(view.num_players)]
