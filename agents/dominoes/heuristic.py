"""Rule-based baselines for Buki, Pulle and the Austrian block/draw games.

``DominoesHeuristic(game, seed=None)`` plays what a decent player plays: the
heaviest playable tile while keeping variety of numbers in hand, preferring
ends it can follow and ends the next player is known to lack. In Buki it bets
the minimum unless its estimated win chance (tile count, spread of numbers,
pips, playability, opponents' known voids) makes the maximum worth it
(a bet b wins 2.5 b and loses b: break-even at 2/7), and bets later when unsure;
as banker it refuses raises from players who look likely to win. In Pulle it
buys back a high total. ``AlwaysMinBettor`` / ``AlwaysMaxBettor`` play tiles
like the heuristic but bet (and raise to) a fixed amount at once.

The bettors compared in a non-banker seat against a heuristic table, on the
same deals (95% confidence intervals): ``parlor eval buki_v0 --agents
random,heuristic,always_min,always_max --field heuristic --seats 1,2,3``. (A fair
non-banker betting b every deal expects about b(3.5 x 1/4 - 1) = -b/8 per deal
before draws, i.e. -0.25 at the minimum: the banker has the edge.)

Agents read only the View (``view``), never the hidden state.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from parlor.agents.base import SeededAgent, legal_actions
from parlor.envs.dominoes.buki.features import next_active_seat, tile_score
from parlor.envs.dominoes.buki.game import BukiGame
from parlor.envs.dominoes.game import DominoGame
from parlor.envs.dominoes.line import PASS, PLAY_ACTIONS, TILES

BREAK_EVEN = 2.0 / 7.0  # Buki: a bet b wins 2.5 b or loses b


def _tile_score(view: Any, action: int, hand: set[int]) -> float:
    """Heavier tiles first, keep numbers varied, keep the ends playable for me and not for the next."""
    return tile_score(view, action, hand, next_active_seat(view))


def strength(view: Any, seat: int) -> float:
    """A seat's chance-of-winning score from what ``view`` shows (bigger = stronger)."""
    score = -1.2 * view.hand_counts[seat] - 0.6 * len(view.void[seat])
    if seat == view.player and view.hand:
        numbers = {x for t in view.hand for x in TILES.tiles[t]}
        score += 0.5 * (len(numbers) - 7.0) - 0.04 * (TILES.pips(view.hand) - 8.0 * len(view.hand))
        if view.ends is not None:
            fits = sum(1 for t in view.hand if view.ends[0] in TILES.tiles[t] or view.ends[1] in TILES.tiles[t])
            score += 0.4 * min(fits, 3)
    return score


def win_chance(view: Any, seat: int) -> float:
    """Softmax of the strengths of the seats playing this deal."""
    seats = [s for s in range(view.num_players) if view.active[s]]
    scores = {s: strength(view, s) for s in seats}
    top = max(scores.values())
    weights = {s: math.exp(v - top) for s, v in scores.items()}
    return weights[seat] / sum(weights.values())


class DominoesHeuristic(SeededAgent):
    """The baseline for all three domino games (Agent protocol of agents/base.py)."""

    def __init__(self, game: DominoGame, seed: int | None = None):
        self.game = game
        super().__init__(seed)

    def _buki(self) -> BukiGame:
        """The game, when it is Buki's: the bet and accept phases are Buki's only."""
        if not isinstance(self.game, BukiGame):
            raise TypeError(f"a bet or accept phase in {self.game.name}: only buki_v0 has them")
        return self.game

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: Any,
            sample_world: Callable[[np.random.Generator], Any] | None = None) -> int:
        legal = legal_actions(action_mask)
        if legal.size == 1:
            return int(legal[0])
        if view.phase == "tile":
            return self.choose_tile(view, legal)
        if view.phase == "bet":
            return self.choose_bet(view, legal)
        if view.phase == "accept":
            return self.choose_accept(view)
        return self.choose_buy_back(view)

    def choose_tile(self, view: Any, legal: np.ndarray) -> int:
        plays = [int(a) for a in legal if a < PLAY_ACTIONS]
        if not plays:
            return PASS
        hand = set(view.hand)
        return max(plays, key=lambda a: (_tile_score(view, a, hand), -a))

    # ------------------------------------------------------------ Buki
    def choose_bet(self, view: Any, legal: np.ndarray) -> int:
        g = self._buki()
        amounts = [int(a) for a in legal if a < g.LATER]
        can_wait = bool((legal == g.LATER).any())
        p = win_chance(view, view.player)
        if view.bets[view.player] > 0:  # a raise: only when clearly ahead
            return g.bet_id(max(g.bet_amount(a) for a in amounts)) if p > BREAK_EVEN + 0.08 else g.LATER
        if p > BREAK_EVEN + 0.05:
            return amounts[-1]
        if can_wait and p > BREAK_EVEN - 0.08:
            return g.LATER
        return amounts[0]

    def choose_accept(self, view: Any) -> int:
        p = win_chance(view, view.raiser)
        g = self._buki()
        return g.REFUSE if p > BREAK_EVEN else g.ACCEPT

    # ------------------------------------------------------------ Pulle
    def choose_buy_back(self, view: Any) -> int:
        from parlor.envs.dominoes.pulle.state import BUY, NO_BUY

        total = view.totals[view.player]
        return BUY if total >= 70 and total - view.buy_back_value >= 15 else NO_BUY


class _FixedBettor(DominoesHeuristic):
    """Tiles like the heuristic; bets a fixed amount at the first chance."""

    use_max = False

    def choose_bet(self, view: Any, legal: np.ndarray) -> int:
        g = self._buki()
        amounts = [int(a) for a in legal if a < g.LATER]
        if view.bets[view.player] > 0:
            return amounts[-1] if self.use_max else g.LATER
        return amounts[-1] if self.use_max else amounts[0]


class DeadlineBettor(DominoesHeuristic):
    """Tiles like the heuristic; puts the bet off to the last allowed turn, then bets the
    maximum if the feature block's win estimate (parlor.envs.dominoes.buki.features) beats the
    2/7 break-even, else the minimum (a carried bet is raised only then). A teacher for
    the Buki training's warm start (configs/buki_betting.yaml)."""

    def choose_bet(self, view: Any, legal: np.ndarray) -> int:
        from parlor.envs.dominoes.buki.features import win_estimate

        g = self._buki()
        amounts = [int(a) for a in legal if a < g.LATER]
        if view.bets[view.player] > 0:  # a carried bet: raise to the maximum at the 3rd turn if ahead
            ahead = view.turns[view.player] >= 3 and win_estimate(view) > BREAK_EVEN
            return amounts[-1] if ahead else g.LATER
        if bool((legal == g.LATER).any()):
            return g.LATER
        return amounts[-1] if win_estimate(view) > BREAK_EVEN else amounts[0]


class AlwaysMinBettor(_FixedBettor):
    use_max = False


class AlwaysMaxBettor(_FixedBettor):
    use_max = True
