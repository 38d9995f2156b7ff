"""Austrian dominoes' words (docs/rules.md §4c): the block or draw game in the title, deals won
per seat, and the draws of the turn. Text and picture print the same notes."""
from __future__ import annotations

from parlor.envs.dominoes.austrian.view import AustrianView
from parlor.envs.dominoes.presenter import DominoPresenter


class AustrianPresenter(DominoPresenter):
    def title(self, view: AustrianView) -> str:
        return f"Austrian {view.mode} game"

    def seat_notes(self, view: AustrianView) -> list[str]:
        return [f"deals won {view.deals_won[s]}" for s in range(view.num_players)]

    def footer(self, view: AustrianView) -> list[str]:
        notes = [f"at most {view.max_draws} draws a turn"] if view.max_draws else []
        if view.draws_this_turn:
            notes.append(f"drawn this turn: {view.draws_this_turn}")
        return notes
