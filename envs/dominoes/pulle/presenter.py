"""Pulle's words (docs/rules.md §4b): each seat's running total, the pool, the buy-back and the
totals a finished deal leaves. Text, picture and the deal's explanation print the same notes."""
from __future__ import annotations

from parlor.envs.dominoes.presenter import DominoPresenter
from parlor.envs.dominoes.pulle.state import BUY, LIMIT
from parlor.envs.dominoes.pulle.view import PulleView
from parlor.envs.dominoes.state import BUY_BACK
from parlor.envs.engine.svg import num

SITS_OUT = f"a total of {LIMIT} or more sits out"


class PullePresenter(DominoPresenter):
    def title(self, view: PulleView) -> str:
        return "Pulle"

    def seat_notes(self, view: PulleView) -> list[str]:
        """'total 57', 'total 104 (out)'."""
        return [total_note(t) for t in view.totals]

    def footer(self, view: PulleView) -> list[str]:
        notes = [f"pool {num(view.pool)}; {SITS_OUT}"]
        if view.phase == BUY_BACK:
            notes.append(f"P{view.current_player} may buy back: pay {view.stake / 2:g} to set "
                         f"the total to {view.buy_back_value}")
        return notes

    def extra_move(self, view: PulleView, actor: int, action: int) -> str:
        if action == BUY:
            return f"buys back: pays {view.stake / 2:g}, the total becomes {view.buy_back_value}"
        return "does not buy back"

    def deal_notes(self, view: PulleView) -> list[str]:
        """The totals as the deal left them (a later buy-back does not rewrite its story)."""
        deal = view.last_deal  # explain() asks only once a deal has ended; Pulle's record the totals
        if deal is None or deal.totals is None:
            raise ValueError("deal_notes() needs a view whose last_deal holds the totals it left")
        notes = ", ".join(f"P{s} {total_note(t)}" for s, t in enumerate(deal.totals))
        return [f"running totals now: {notes}; {SITS_OUT}"]


def total_note(total: int) -> str:
    """A seat's note: its running total, '(out)' from LIMIT on (it sits out the next deals)."""
    return f"total {total}" + (" (out)" if total >= LIMIT else "")
