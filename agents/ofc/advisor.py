"""The OFC advisor: the guards and foul-risk estimators of one OFC game, in one object.

``agents.advisors.advisor_for(game)`` builds it; training (the action
guard and potential shaping of ``SingleAgentEnv``) and trained policies played
inside a guard use it. What it offers depends on the game's options:

- ``guarded_stats``: the tolerances ``guarded_mask`` reads (:mod:`agents.ofc.guards`):
  ``foul``, ``opening_foul``, ``foul_cap`` with ``features=True`` (the outlook's foul
  rates, read off the feature block), ``endgame_foul``, ``midgame_foul`` in Pineapple
  (the endgame's foul probabilities, :mod:`agents.ofc.endgame`, judged on the view);
- ``estimated_stats``: the statistics ``stat_estimates`` predicts
  (:mod:`agents.ofc.risk`): ``foul`` (:func:`agents.ofc.risk.foul_risk`: the foul rate
  of the turn's safest plan over 96 completions filled strongest-first) and, in
  Pineapple, ``foul:endgame`` (the turn's lowest endgame foul probability).

- ``solved_action``: a Fantasyland decision, taken by the exact solver
  (:class:`agents.ofc.fantasyland.FantasylandPlayer`: the board with the most royalties
  plus the value of staying, never fouled); None for a regular decision. The search agent,
  trained policies and the training wrapper (for the learner's seat) play it, so every
  OFC agent plays its Fantasyland hands the same, best way.

One endgame judge memoises the probabilities of the turn being judged, shared by
the guards and the estimators (they judge the same turns).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from parlor.agents.ofc import guards, risk
from parlor.agents.ofc.endgame import EndgameJudge
from parlor.agents.ofc.fantasyland import FantasylandPlayer
from parlor.envs.ofc.game import OFCGame
from parlor.envs.ofc.state import OFCState
from parlor.envs.ofc.view import OFCView


class OFCAdvisor:
    """The :class:`agents.advisors.Advisor` of ``ofc_v0``."""

    def __init__(self, game: OFCGame):
        config = game.config
        self.num_players = config.num_players
        self.guarded_stats = guards.guarded_stats(config.variant, config.features)
        self.estimated_stats = risk.estimated_stats(config.variant)
        self.judge = EndgameJudge()
        self.fantasyland = FantasylandPlayer.for_game(game)

    def guarded_mask(self, observation: np.ndarray, mask: np.ndarray, guard: Mapping[str, float],
                     view: OFCView | None = None) -> np.ndarray:
        """``mask`` without the actions ``guard`` finds too risky (:func:`agents.ofc.guards.guarded_mask`);
        ``view`` is the acting seat's (the endgame guards judge its board)."""
        return guards.guarded_mask(observation, mask, guard, view, self.num_players, self.judge)

    def first_kept(self, observation: np.ndarray, mask: np.ndarray, guard: Mapping[str, float],
                   view: OFCView | None, order: Sequence[int]) -> int:
        """The first action of ``order`` that ``guarded_mask`` keeps, judging only what that
        needs (:func:`agents.ofc.guards.first_kept`)."""
        return guards.first_kept(observation, mask, guard, view, self.num_players, self.judge, order)

    def solved_action(self, view: OFCView) -> int | None:
        """The solver's action for a decision of the seat's Fantasyland hand, else None."""
        return self.fantasyland.action(view) if self.fantasyland.plays(view) else None

    def stat_estimates(self, state: OFCState, player: int,
                       names: Sequence[str] = ("foul",)) -> dict[str, float | None]:
        """``player``'s final foul rate expected now, per estimator (:func:`agents.ofc.risk.stat_estimates`)."""
        return risk.stat_estimates(state, player, names, self.judge)
