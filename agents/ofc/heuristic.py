"""A rule-based Open Face Chinese poker player (the baseline a decent human would write).

How it plays (reads only the View):
- Regular turns: it lists every way to send this turn's pending cards to the
  rows (and to the discard in Pineapple) and keeps the one whose board scores
  best over 32 sampled completions from the unseen cards (the same samples for
  every candidate). Half the completions route the strongest cards downwards
  (bottom, then middle, then top), as a careful player would, half fill the
  free slots at random. A completed board scores -7 if fouled, else its
  royalties, 0.6 per category of row strength (rows won against others) and,
  when another hand follows, 9 for a top that earns Fantasyland. So it keeps
  the rows ordered, builds the bottom and middle and takes royalties when the
  foul risk allows.
- Fantasyland: it searches the arrangements of all its cards (the 40 best
  bottoms, the best middles under each with ``rank5_batch``, every top under
  the middle) for the most royalties plus 9 for staying; never fouls.

Its results against the other baselines (points, foul rate, royalties per hand,
duplicate deals with 95% confidence intervals) come from ``parlor eval``, e.g.
``parlor eval ofc_v0 --agents heuristic,random --games 2000``.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from parlor.agents.base import SeededAgent
from parlor.envs.engine.hands import CATEGORY_SHIFT, rank3, rank5_batch
from parlor.envs.ofc.features import turn_key
from parlor.envs.ofc.game import OFCGame
from parlor.envs.ofc.rollouts import (
    BOT_ROYALTY,
    BOTTOM,
    DISCARD,
    FL_BONUS,
    MID_ROYALTY,
    MIDDLE,
    SAMPLES,
    TOP,
    evaluate_turn,
    row_royalty,
    sampled_turn,
    turn_candidates,
)
from parlor.envs.ofc.scoring import BoardResult, fl_stays, top_royalty
from parlor.envs.ofc.view import OFCView


def plan_turn(view: OFCView, rng: np.random.Generator, samples: int = SAMPLES) -> list[int]:
    """Destinations for the pending cards of a regular turn: the candidate whose
    board scores best over sampled completions (common samples for all candidates)."""
    cands = turn_candidates(view)
    if len(cands) == 1:
        return cands[0]
    return cands[int(np.argmax(evaluate_turn(view, cands, rng, samples).value))]


# ---------------------------------------------------------------- Fantasyland
_COMBOS: dict[tuple[int, int], np.ndarray] = {}


def combos(n: int, k: int) -> np.ndarray:
    if (n, k) not in _COMBOS:
        _COMBOS[n, k] = np.array(list(itertools.combinations(range(n), k)), dtype=np.int64).reshape(-1, k)
    return _COMBOS[n, k]


def plan_fantasyland(cards: Sequence[int], stay_rule: str, next_hand: bool) -> list[int]:
    """Destinations for all Fantasyland cards: the most royalties (plus a staying bonus), no foul."""
    cards = np.asarray(cards, dtype=np.int64)
    n = len(cards)
    bottoms = combos(n, 5)
    bot_ranks = rank5_batch(cards[bottoms]).astype(np.int64)
    bot_value = row_royalty(bot_ranks, BOT_ROYALTY, 25) + 0.1 * (bot_ranks >> CATEGORY_SHIFT)
    order = np.argsort(-bot_value - 1e-9 * bot_ranks, kind="stable")[:40]
    best, best_value = None, -math.inf
    for b in order:
        rest = np.setdiff1d(np.arange(n), bottoms[b])
        mids = rest[combos(len(rest), 5)]
        mid_ranks = rank5_batch(cards[mids]).astype(np.int64)
        ok = mid_ranks <= bot_ranks[b]
        if not ok.any():
            continue
        # the tiny rank term makes the strongest middle come first among equals: with the
        # strongest bottom it can always take a top that does not foul
        mid_value = row_royalty(mid_ranks, MID_ROYALTY, 50) + 0.1 * (mid_ranks >> CATEGORY_SHIFT) + 1e-9 * mid_ranks
        mid_value = np.where(ok, mid_value, -np.inf)
        for m in np.argsort(-mid_value, kind="stable")[:4]:
            if not ok[m]:
                break
            left = np.setdiff1d(rest, mids[m])
            for t in itertools.combinations(left.tolist(), 3):
                top = [int(cards[i]) for i in t]
                tr = rank3(top)
                if tr > mid_ranks[m]:
                    continue
                value = float(bot_value[b] + mid_value[m]) + top_royalty(tr) + 0.1 * (tr >> CATEGORY_SHIFT)
                if next_hand and fl_stays(BoardResult((tr, int(mid_ranks[m]), int(bot_ranks[b])), False, (0, 0, 0), 0), stay_rule):
                    value += FL_BONUS
                if value > best_value:
                    best_value = value
                    best = (set(t), set(mids[m].tolist()), set(bottoms[b].tolist()))
    top_i, mid_i, bot_i = best
    return [TOP if i in top_i else MIDDLE if i in mid_i else BOTTOM if i in bot_i else DISCARD for i in range(n)]


# ---------------------------------------------------------------- the agent
class OFCHeuristic(SeededAgent):
    """Agent protocol (agents/base.py): decides from the View. Its sampling uses its
    own generator (``seed``), so a seeded agent replays identically."""

    def __init__(self, game: OFCGame | None = None, seed: int | None = None):
        self.game = game
        self.stay_rule = game.config.fl_stay if game is not None else "trips_fh_quads"
        super().__init__(seed)
        self._plan: tuple[tuple, list[int]] | None = None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._plan = None

    def plan_regular_turn(self, view: OFCView) -> list[int]:
        return plan_turn(view, self.rng)

    def act(self, observation, action_mask, view: OFCView, sample_world=None) -> int:
        key = (view.hand_index, view.pending, view.own_rows)
        if self._plan is None or self._plan[0] != key:
            if view.fantasyland[view.player]:
                dest = plan_fantasyland(view.pending, self.stay_rule, view.hand_index + 1 < view.num_hands)
            else:
                dest = self.plan_regular_turn(view)
            self._plan = (key, dest)
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


class OutlookPlanner(OFCHeuristic):
    """The heuristic's planner on the ``features=True`` outlook's samples (the fixed
    noise table picked by :func:`parlor.envs.ofc.features.turn_key`): it plays the plan whose
    first action the outlook's preference marks 1.0 (ties as the heuristic breaks
    them), so a policy reading the features can imitate it exactly. The behaviour-
    cloning teacher of ``configs/ofc_pineapple.yaml``; as strong as the heuristic."""

    def plan_regular_turn(self, view: OFCView) -> list[int]:
        cands, stats = sampled_turn(view, turn_key(view))
        return cands[int(np.argmax(stats.value))]
