"""The Buffalo Bill presenter: text and picture of a view (``render.py``), exchanges,
scores and the final sheet in words (``narrate.py``), and each seat's exchanges note."""
from __future__ import annotations

from parlor.envs.buffalo_bill import narrate, render
from parlor.envs.buffalo_bill.encode import action_name
from parlor.envs.buffalo_bill.view import BuffaloBillView
from parlor.envs.engine.presenter import Presenter


class BuffaloBillPresenter(Presenter):
    def render(self, view: BuffaloBillView) -> str:
        return render.render_view(view, self.seat_notes(view))

    def render_svg(self, view: BuffaloBillView) -> str:
        return render.render_svg(view, self.seat_notes(view))

    def move_name(self, view: BuffaloBillView, action: int) -> str:
        action_name(action, self.game.lines)  # the range check
        return narrate.move_name(view, action, self.game.lines)

    def describe_move(self, before: BuffaloBillView, after: BuffaloBillView, actor: int, action: int) -> str:
        return narrate.describe_move(before, after, actor, action, self.game.lines)

    def explain(self, view: BuffaloBillView) -> str:
        return narrate.explain(view, self.game.reward)

    def seat_notes(self, view: BuffaloBillView) -> list[str]:
        """Exchanges made this round (text and picture print them as they are)."""
        return [f"exchanges this round {view.exchanges[s]}" for s in range(view.num_players)]
