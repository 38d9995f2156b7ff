"""A rule-based Open Face Chinese poker player (the baseline a decent human would write).

How it plays (reads only the View):
- Regular turns: it lists every way to send this turn's pending cards to the
  rows (and to the discard in Pineapple) and keeps the one whose board scores
  best over 32 sampled completions from the unseen cards (the same samples for
  every candidate). Half the completions route the strongest cards downwards
  (bottom, then middle, then top), as a careful player would, half fill the
  free slots at random. A completed board scores -7 if fouled, else its
  royalties, 0.6 per category of row strength (rows won against others) and,
  when another hand follows, ``fl_bonus`` for a top that earns Fantasyland: the
  measured worth of a Fantasyland hand, 17 points
  (``agents.ofc.fantasyland.FANTASYLAND_VALUE``; it was 9 before the measurement,
  :class:`HeuristicBonus9`, and 17 did as well as 9 in 4,000-match runs,
  docs/experiments/ofc_multihand.md). So it keeps the rows ordered, builds the
  bottom and middle and takes royalties when the foul risk allows.
- Fantasyland: it plays the exact solver's board (``agents.ofc.fantasyland``):
  the most royalties plus ``FANTASYLAND_VALUE`` for staying when another hand
  follows (``stay_value``; the solver's choice is exact, so it gets the
  measured worth); never fouls.

Its results against the other baselines (points, foul rate, royalties per hand,
duplicate deals with 95% confidence intervals) come from ``parlor eval``, e.g.
``parlor eval ofc_v0 --agents heuristic,random --games 2000``.
"""
from __future__ import annotations

import numpy as np

from parlor.agents.base import SeededAgent
from parlor.agents.ofc.fantasyland import FANTASYLAND_VALUE, FantasylandPlayer
from parlor.envs.ofc.game import OFCGame
from parlor.envs.ofc.view import OFCView
from parlor.envs.ofc_outlook.features import turn_key
from parlor.envs.ofc_outlook.outlook import outlook_turn
from parlor.envs.ofc_outlook.rollouts import DISCARD, FL_BONUS, SAMPLES, TurnStats, completed_stats, plans_of


def plan_turn(view: OFCView, rng: np.random.Generator, samples: int = SAMPLES,
              fl_bonus: float = FL_BONUS) -> list[int]:
    """Destinations for the pending cards of a regular turn: the candidate whose
    board scores best over sampled completions (common samples for all candidates),
    a top that earns Fantasyland worth ``fl_bonus`` when another hand follows."""
    plans = plans_of(view)  # the candidates of envs.ofc_outlook.rollouts.turn_candidates, scored as evaluate_turn does
    if len(plans.dests) == 1:
        return list(plans.dests[0])
    stats = completed_stats(view, plans, lambda pool: rng.random((samples, len(pool))))
    return list(plans.dests[int(np.argmax(valued(stats, view, fl_bonus)))])


def valued(stats: TurnStats, view: OFCView, fl_bonus: float) -> np.ndarray:
    """The candidates' values with a Fantasyland top worth ``fl_bonus``: the rollouts value it
    at ``FL_BONUS`` (the feature block's constant, which stays as it is), and a clean
    completion earning Fantasyland adds the bonus once, so the difference is linear in
    the share ``stats.fantasyland`` of such completions."""
    if fl_bonus == FL_BONUS or view.hand_index + 1 >= view.num_hands:
        return stats.value
    return stats.value + (fl_bonus - FL_BONUS) * stats.fantasyland


# ---------------------------------------------------------------- the agent
class OFCHeuristic(SeededAgent):
    """Agent protocol (agents/base.py): decides from the View. Its sampling uses its
    own generator (``seed``), so a seeded agent replays identically. ``fl_bonus``: a
    top that earns Fantasyland is worth that many points to its planner; ``stay_value``:
    staying in Fantasyland is worth that many to its Fantasyland solver."""

    fl_bonus: float = FANTASYLAND_VALUE
    stay_value: float = FANTASYLAND_VALUE

    def __init__(self, game: OFCGame | None = None, seed: int | None = None):
        self.game = game
        stay = self.stay_value
        self.fantasyland = FantasylandPlayer.for_game(game, stay) if game is not None else FantasylandPlayer(
            stay_value=stay)
        super().__init__(seed)
        self._plan: tuple[tuple, list[int]] | None = None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._plan = None

    def plan_regular_turn(self, view: OFCView) -> list[int]:
        return plan_turn(view, self.rng, fl_bonus=self.fl_bonus)

    def act(self, observation, action_mask, view: OFCView, sample_world=None) -> int:
        if self.fantasyland.plays(view):
            return self.fantasyland.action(view)
        key = (view.hand_index, view.pending, view.own_rows)
        if self._plan is None or self._plan[0] != key:
            self._plan = (key, self.plan_regular_turn(view))
        dest = self._plan[1]
        action = dest[0]
        # the plan for the rest of this turn, keyed by the board after this card
        rows = list(view.own_rows)
        if action != DISCARD:
            rows[action] = rows[action] + (view.pending[0],)
        self._plan = ((view.hand_index, view.pending[1:], tuple(rows)), dest[1:])
        if not action_mask[action]:  # cannot happen with a consistent plan; stay legal regardless
            action = int(np.flatnonzero(action_mask)[0])
        return int(action)


class HeuristicBonus9(OFCHeuristic):
    """The heuristic as it was before Fantasyland's worth was measured: a Fantasyland hand
    worth 9 points (the rollouts' ``FL_BONUS``), entering and staying alike; the agent of
    the measurement (``parlor.agents.ofc.heuristic:HeuristicBonus9``,
    docs/experiments/ofc_multihand.md)."""

    fl_bonus = FL_BONUS
    stay_value = FL_BONUS


class MeasuredBonusHeuristic(OFCHeuristic):
    """The name the measurement gave the heuristic with the measured worth of a Fantasyland
    hand (17) for entering and staying alike, now the heuristic itself; kept so the recorded
    commands of docs/experiments/ofc_multihand.md still run."""


class OutlookPlanner(OFCHeuristic):
    """The heuristic's planner on the ``features=True`` outlook's samples (the fixed
    noise table picked by :func:`parlor.envs.ofc_outlook.features.turn_key`): it plays the plan whose
    first action the outlook's preference marks 1.0 (ties as the heuristic breaks
    them), so a policy reading the features can imitate it exactly. Its regular turns
    value Fantasyland as the features do (``FL_BONUS``). The behaviour-cloning teacher
    of ``configs/ofc_pineapple.yaml``; as strong as the heuristic."""

    def plan_regular_turn(self, view: OFCView) -> list[int]:
        turn, taken = outlook_turn(view, turn_key(view))  # sampled_turn's candidates and values
        index = turn.index(taken)
        return list(turn.plans.dests[index[int(np.argmax([turn.values[i] for i in index]))]][len(taken):])
