"""The Washizu poker presenter: text and picture of a view (``render.py``), moves and
showdowns in words (``narrate.py``), and each seat's standing in the match, which the text
and the picture both print."""
from __future__ import annotations

from parlor.envs.engine.presenter import Presenter
from parlor.envs.washizu_poker import narrate, render
from parlor.envs.washizu_poker.view import WashizuView


class WashizuPresenter(Presenter):
    def render(self, view: WashizuView) -> str:
        return render.render(view, self.seat_notes(view), self.action_name, jokers=self.game.config.jokers > 0)

    def render_svg(self, view: WashizuView) -> str:
        return render.render_svg(view, self.seat_notes(view))

    def move_name(self, view: WashizuView, action: int) -> str:
        return narrate.move_name(view, action, self.action_name)

    def describe_move(self, before: WashizuView, after: WashizuView, actor: int, action: int) -> str:
        return narrate.describe_move(before, after, actor, action)

    def explain(self, view: WashizuView) -> str:
        return narrate.explain(view, self.game.rank5)  # the evaluator the showdown uses (one or two decks)

    def seat_notes(self, view: WashizuView) -> list[str]:
        """In the match or out, in the game or dropped, the bet and the cards drawn."""
        return [render.seat_note(view, s) for s in range(view.num_players)]
