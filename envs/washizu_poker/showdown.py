"""Showdown and settlement of a Washizu poker game (docs/rules.md §3.7): the best hand
takes the pot, tied best hands split it and the remainder leaves play.

A mixin of ``WashizuState`` over ``WashizuFields``; the match goes on in ``MatchSteps._end_game``.
"""
from __future__ import annotations

from parlor.envs.engine.chips import split_evenly
from parlor.envs.washizu_poker.fields import WashizuFields


class ShowdownSteps(WashizuFields):
    """Showdown and paying the pot."""

    def _showdown(self) -> None:
        hands, in_hand = self.hands, self.in_hand
        live = [p for p in self.order if in_hand[p]]  # (a seat in this game is in the match: in order)
        rank5 = self.game.rank5
        ranks = [rank5(hands[p]) for p in live]
        best = max(ranks)
        winners = tuple([p for p, r in zip(live, ranks) if r == best])
        shown = tuple([tuple(hands[p]) if in_hand[p] else None for p in range(self.game.num_players)])
        showdowns = self.stat["showdowns"]
        for p in live:
            showdowns[p] += 1
        self._settle(winners, shown)


    def _settle(self, winners: tuple[int, ...], shown: tuple[tuple[int, ...] | None, ...] | None) -> None:
        n = self.game.num_players
        pot = self.pot
        share, rest = split_evenly(pot, len(winners))  # tied best hands split; the remainder leaves play
        for w in winners:
            self.stacks[w] += share
        self.removed += rest
        self.contrib = [0] * n
        self.pot = 0
        for w in winners:
            self.stat["games_won"][w] += 1.0 / len(winners)
        self._result = (self.game_index, shown or (None,) * n, tuple(sorted(winners)), pot, rest)
        earned = [s - b for s, b in zip(self.stacks, self.chips_before)]
        self._earn_row(earned)
        self._end_game()
