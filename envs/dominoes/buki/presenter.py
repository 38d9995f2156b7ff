"""Buki's words (docs/rules.md §4a): the banker and each seat's bet, the bet or raise now due,
and bets and raises told as moves. Text and picture print these notes as they are."""
from __future__ import annotations

from parlor.envs.dominoes.buki.view import BukiView
from parlor.envs.dominoes.line import FIRST_GAME_ACTION
from parlor.envs.dominoes.presenter import DominoPresenter
from parlor.envs.dominoes.state import ACCEPT, BET


class BukiPresenter(DominoPresenter):
    def title(self, view: BukiView) -> str:
        return "Buki"

    def seat_notes(self, view: BukiView) -> list[str]:
        """'banker', 'bet 4', 'bet 4 (carried over)' (from a drawn deal), and for a seat without a
        bet 'no bet yet', or 'bets settled' once the episode is over (the last deal paid them)."""
        unbet = "no bet yet" if view.current_player is not None or view.phase == "deal over" else "bets settled"
        return [("banker" if s == view.banker else
                 f"bet {view.bets[s]}{' (carried over)' if view.carried[s] else ''}" if view.bets[s] else unbet)
                for s in range(view.num_players)]

    def footer(self, view: BukiView) -> list[str]:
        notes = [f"bets {view.min_bet}..{view.max_bet}"]
        if view.phase == BET:
            notes.append(f"P{view.current_player}: bet due now" if view.bet_due else
                         f"P{view.current_player} may bet now or later")
        if view.phase == ACCEPT:
            notes.append(f"P{view.raiser} asks to raise to {view.pending_raise}: the banker accepts or refuses")
        return notes

    def extra_move(self, view: BukiView, actor: int, action: int) -> str:
        game = self.game
        if FIRST_GAME_ACTION <= action < game.LATER:
            amount = game.bet_amount(action)
            return f"raises the bet to {amount}" if view.bets[actor] else f"bets {amount}"
        return {game.LATER: "bets later" if not view.bets[actor] else "keeps the bet",
                game.ACCEPT: "accepts the raise", game.REFUSE: "refuses the raise"}[action]
