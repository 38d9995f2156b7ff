"""Action guards of OFC: the actions a guard finds too risky leave the mask.

A guard maps tolerances by name to numbers >= 0 (``action_guard`` in a training
config, a policy's ``parlor.json``, ``parlor shield --guard``); :func:`guarded_mask`
returns the mask without the actions it drops:

- ``endgame_foul`` (Pineapple; needs the seat's view): once the turn leaves at most
  four free slots, drop an action whose foul probability under careful play
  (:func:`agents.ofc.endgame.action_risks`: exact from two free slots on, over 32
  draws of the next turn's cards from four) exceeds the turn's lowest among the
  actions the other guards leave by more than the tolerance.
- ``midgame_foul`` (Pineapple; needs the seat's view): a cap for the turn that leaves
  six free slots (the first three-card turn): drop an action none of whose plans
  keeps the foul probability under careful play
  (:func:`agents.ofc.endgame.midgame_action_risks`: over 16 draws of the next turn's
  cards and 4 of the turn after's) within the cap; if no action can, the lowest stays.

The others are judged by the outlook's foul rates (only with ``features=True``: the
outlook is read from the observation's feature block, ``envs.ofc_outlook.features``):

- ``foul``: a tolerance: drop an action whose foul rate exceeds that of the
  planner's choice by more than it;
- ``opening_foul``: replaces ``foul`` while the seat places its first five cards
  (the opening turn, where most fouls are decided);
- ``foul_cap``: a ceiling: drop an action whose foul rate exceeds both it and the
  planner's choice's (the risk a hand may creep up to, step by step).

The action of lowest risk (the planner's choice for the outlook's) always stays,
and a decision the guards do not judge (a Fantasyland turn, an opening) keeps
every legal action. Not a rule of the game: played through ``agents.ofc.advisor``.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from parlor.agents.ofc.endgame import (
    MAX_FREE,
    MIDGAME_FREE,
    EndgameJudge,
    action_risks,
    first_action_risk,
    free_after_turn,
    midgame_action_risks,
)
from parlor.envs.ofc.view import OFCView
from parlor.envs.ofc_outlook import features as _features

OUTLOOK_GUARDS = ("foul", "opening_foul", "foul_cap")   # read off the feature block
BOARD_GUARDS = ("endgame_foul", "midgame_foul")         # judged on the seat's board (Pineapple)
OPENING_FREE = 8  # a seat with more free slots is still placing its first five cards


def guarded_stats(variant: str, features: bool) -> tuple[str, ...]:
    """The tolerances :func:`guarded_mask` can keep in check with these options."""
    return (OUTLOOK_GUARDS if features else ()) + (BOARD_GUARDS if variant == "pineapple" else ())


def guarded_mask(observation: np.ndarray, mask: np.ndarray, guard: Mapping[str, float], view: OFCView | None,
                 num_players: int, judge: EndgameJudge) -> np.ndarray:
    """``mask`` without the actions ``guard`` finds too risky (see the module docstring);
    ``judge`` memoises the endgame's probabilities for the turn."""
    if guard.keys() & set(OUTLOOK_GUARDS):
        mask = outlook_guard(observation, mask, guard, num_players)
    if "endgame_foul" in guard:  # after the outlook's: its lowest risk is among the actions left
        mask = endgame_guard(mask, guard["endgame_foul"], view, judge)
    if "midgame_foul" in guard:  # judges other turns than endgame_foul: the order is free
        mask = midgame_guard(mask, guard["midgame_foul"], view, judge)
    return mask


def outlook_guard(observation: np.ndarray, mask: np.ndarray, guard: Mapping[str, float],
                  num_players: int) -> np.ndarray:
    """The ``foul``, ``opening_foul`` and ``foul_cap`` guards, on the outlook of the
    observation's feature block."""
    block = _features.block_of(observation, num_players)
    planned = planned_foul(block[-4 * _features.OUTLOOK:])
    if planned is None:
        return mask
    outlook = np.asarray(block[-4 * _features.OUTLOOK:]).reshape(4, _features.OUTLOOK)
    tolerance = guard.get("foul")
    if "opening_foul" in guard and in_opening(block):
        tolerance = guard["opening_foul"]
    ceiling = np.inf if tolerance is None else planned + tolerance
    if "foul_cap" in guard:
        ceiling = min(ceiling, max(planned, guard["foul_cap"]))
    risky = (outlook[:, 0] > 0) & (outlook[:, 1] > ceiling + 1e-9)
    return mask & ~risky


def planned_foul(block: np.ndarray) -> float | None:
    """The foul rate of the planner's choice (the available action of highest value) in
    an :func:`envs.ofc_outlook.features.outlook` block, or None when the block is empty (no pending card, or a
    Fantasyland turn)."""
    best = None
    for a in range(4):
        entry = block[a * _features.OUTLOOK:(a + 1) * _features.OUTLOOK]
        if entry[0] and (best is None or entry[5] > best[5]):
            best = entry
    return None if best is None else float(best[1])


def in_opening(block: np.ndarray) -> bool:
    """Whether the feature block (from its start) belongs to a seat still placing its
    first five cards (the opening turn: more than ``OPENING_FREE`` free slots)."""
    return round(float(block[_features.FREE_SLOTS]) * 13) > OPENING_FREE


def endgame_guard(mask: np.ndarray, tolerance: float, view: OFCView | None, judge: EndgameJudge) -> np.ndarray:
    """The ``endgame_foul`` guard."""
    view = needs_view("endgame_foul", view)
    risks = action_risks(view, _features.turn_key(view), judge)
    return drop_above(mask, risks, lambda lowest: lowest + tolerance)


def midgame_guard(mask: np.ndarray, cap: float, view: OFCView | None, judge: EndgameJudge) -> np.ndarray:
    """The ``midgame_foul`` guard."""
    view = needs_view("midgame_foul", view)
    key = _features.turn_key(view)
    risks = midgame_action_risks(view, key, cap, judge)
    if risks is None:
        return mask
    if not any(p <= cap for a, p in risks.items() if mask[a]):  # none within: the lowest stays
        return drop_above(mask, midgame_action_risks(view, key, 1.0, judge), lambda lowest: lowest)
    return drop_above(mask, risks, lambda lowest: cap)


def needs_view(guard: str, view: OFCView | None) -> OFCView:
    if view is None:
        raise ValueError(f"the {guard} guard needs the seat's view: guarded_mask(..., view=state.view(seat))")
    return view


def drop_above(mask: np.ndarray, risks: dict[int, float] | None, ceiling: Callable[[float], float]) -> np.ndarray:
    """``mask`` without the actions whose risk exceeds ``ceiling(lowest risk among the
    actions it allows)``; unchanged when the decision is not judged (``risks`` None)."""
    if risks is None:
        return mask
    allowed = {a: p for a, p in risks.items() if mask[a]}
    if not allowed:
        return mask
    limit = ceiling(min(allowed.values()))
    risky = [a for a, p in allowed.items() if p > limit + 1e-12]
    if not risky:
        return mask
    mask = mask.copy()
    mask[risky] = False
    return mask


# ---------------------------------------------------------------- judging only what a choice needs
def first_kept(observation: np.ndarray, mask: np.ndarray, guard: Mapping[str, float], view: OFCView | None,
               num_players: int, judge: EndgameJudge, order: Sequence[int]) -> int:
    """The first action of ``order`` that :func:`guarded_mask` keeps, the same action as
    ``[a for a in order if guarded_mask(...)[a]][0]``, judging the board guards' actions
    in that order and stopping as soon as the answer is certain: a deterministic policy
    needs its best kept action, not the whole mask, and the other actions' searches are
    most of a guarded hand's time (an action with no plan within the midgame cap is
    judged over all its plans). Where the answer needs every action's risk, the full
    mask decides. ``order``: the legal actions, most preferred first."""
    if guard.keys() & set(OUTLOOK_GUARDS):
        mask = outlook_guard(observation, mask, guard, num_players)
    candidates = [a for a in order if mask[a]]
    if not candidates:
        raise ValueError("first_kept: no action of the order is legal")
    left = None if view is None or not guard.keys() & set(BOARD_GUARDS) else free_after_turn(view)
    if view is None or left is None or (left > MAX_FREE and left != MIDGAME_FREE):
        return _first_of(guarded_mask(observation, mask, guard, view, num_players, judge), candidates)
    key = _features.turn_key(view)
    if "endgame_foul" in guard and left <= MAX_FREE:
        # every risk is >= 0, so an action within the tolerance of 0 is within that of the lowest
        tolerance = guard["endgame_foul"]
        if first_action_risk(view, key, judge, candidates[0], 1.0, within=tolerance) <= tolerance:
            return candidates[0]
    elif "midgame_foul" in guard and left == MIDGAME_FREE:
        cap = guard["midgame_foul"]
        for action in candidates:
            p = first_action_risk(view, key, judge, action, cap, within=cap)
            if p <= cap:  # some action is within the cap: those outside it (the earlier ones) leave
                return action
            if p <= cap + 1e-12:  # kept or not as others fall: the full mask decides
                break
    return _first_of(guarded_mask(observation, mask, guard, view, num_players, judge), candidates)


def _first_of(mask: np.ndarray, candidates: Sequence[int]) -> int:
    return next(a for a in candidates if mask[a])
