"""Foul-risk estimators of an OFC hand: the potential of ``shaping_mode: potential``.

:func:`stat_estimates` predicts a seat's ``State.stats()["foul"]`` at the
episode's end from what the seat knows now: the fouls of its finished hands plus
the current hand's risk, by the estimator a name asks for (``STAT:ESTIMATOR``
estimates ``STAT`` another way):

- ``foul``: :func:`foul_risk` (the turn's safest plan, completed strongest-first);
- ``foul:endgame`` (Pineapple): the turn's lowest foul probability under careful
  play (:func:`agents.ofc.endgame.action_risks`), None while the turn leaves more
  than four free slots.

Not a rule of the game: training reads it through ``agents.ofc.advisor``.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from parlor.agents.ofc.endgame import EndgameJudge, action_risks
from parlor.envs.ofc.state import OFCState
from parlor.envs.ofc.view import OFCView
from parlor.envs.ofc_outlook.features import turn_key
from parlor.envs.ofc_outlook.rollouts import completed_turn, turn_candidates

RISK_SAMPLES = 96  # completions per foul_risk estimate


def foul_risk(view: OFCView, key: int, samples: int = RISK_SAMPLES) -> float:
    """How likely the hand is to foul, judged at a regular turn: the foul rate of the
    turn's safest plan (the lowest over :func:`turn_candidates`) when ``samples`` draws
    from the unseen cards fill the free slots strongest-first (bottom, middle, top),
    as a careful player fills them. The draws come from a generator seeded by ``key``
    (:func:`envs.ofc_outlook.features.turn_key`: the same draws for every card of a turn), so
    the estimate moves with the seat's decisions, not with re-drawing. Exact on the
    last turn (0 or 1).

    Unlike the outlook's foul rates (half the completions at random, so they read
    0.2-0.5 for the safest openings), this ignores risk the seat can still steer
    around: the potential of ``shaping_mode: potential``."""
    cands = turn_candidates(view)
    stats = completed_turn(view, cands, lambda pool: np.random.default_rng(key).random((samples, len(pool))), 1.0)
    return float(stats.foul.min())



def estimated_stats(variant: str) -> tuple[str, ...]:
    """The ``State.stats()`` entries (and ``STAT:ESTIMATOR`` names) :func:`stat_estimates`
    predicts in ``variant``."""
    return ("foul", "foul:endgame") if variant == "pineapple" else ("foul",)


def stat_estimates(state: OFCState, player: int, names: Sequence[str],
                   judge: EndgameJudge) -> dict[str, float | None]:
    """``player``'s foul rate as ``state.stats()`` will report it at the episode's end,
    expected from what the seat knows now, per estimator in ``names`` (see the module
    docstring; ``judge`` memoises the endgame's probabilities for the turn). Exact once
    the episode is over; None while the seat has no regular turn to judge (no pending
    card, or a Fantasyland turn) or the estimator does not judge the turn (the
    potential then stays where it was)."""
    if state.is_terminal():
        return dict.fromkeys(names, state.stats()["foul"][player])
    view = state.view(player)
    if not view.pending or view.fantasyland[player]:
        return dict.fromkeys(names)
    allowed = estimated_stats(state.variant)
    out: dict[str, float | None] = {}
    for name in names:
        if name == "foul":
            current: float | None = foul_risk(view, turn_key(view))
        elif name == "foul:endgame" and name in allowed:
            risks = action_risks(view, turn_key(view), judge)
            current = None if risks is None else min(risks.values())
        else:
            raise ValueError(f"{state.game.name} does not estimate {name!r} with these options; allowed values: "
                             f"{', '.join(allowed)}")
        out[name] = None if current is None else (state.tally.foul[player] + current) / state.num_hands
    return out
