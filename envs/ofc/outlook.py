"""The outlook's sampled turns: a regular turn completed with a fixed noise table.

The ``features=True`` observation (:mod:`envs.ofc.features`), the rule-based heuristic
and the advisors judge a turn's plans over the same ``SAMPLES`` completions of the board
(:func:`envs.ofc.rollouts.completed_rows`) drawn from one of ``NOISE_TABLES`` fixed noise
tables, picked by a key that stays the same for every card of one turn
(:func:`envs.ofc.features.turn_key`): equal keys, equal numbers.

:func:`outlook_turn` completes a turn once, at its first card: the later cards of the turn
(same seen cards, same samples) read their plans off that turn (:class:`CompletedTurn`),
which gives the very numbers a fresh completion of the smaller turn would.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from functools import cache

import numpy as np

from parlor.envs.ofc.rollouts import (
    BOTTOM,
    DISCARD,
    MIDDLE,
    SAMPLES,
    TOP,
    TurnStats,
    fl_next,
    plans_of,
    route_future,
)
from parlor.envs.ofc.view import OFCView

NOISE_TABLES = 256
_NOISE = np.random.default_rng(20261122).random((NOISE_TABLES, SAMPLES, 52))  # fixed: sampling is a pure function


@cache
def _noise_order(table: int) -> np.ndarray:
    """The 52 card ids by ascending noise, per sample of noise table ``table``. A row's
    noise values are distinct, so any pool's cards come in this order, as sorting the
    pool's own noise (``completed_rows``) puts them."""
    return np.argsort(_NOISE[table], axis=1)


def outlook_future(key: int, unseen: Sequence[int], free: int) -> np.ndarray:
    """The drawn cards [SAMPLES, free] of the noise table picked by ``key``, as
    :func:`completed_rows` draws them from ``unseen``, half routed (:func:`route_future`)."""
    order = _noise_order(key % NOISE_TABLES)
    in_pool = np.zeros(52, dtype=bool)
    in_pool[unseen] = True
    return route_future(order[in_pool[order]].reshape(len(order), -1)[:, :free], 0.5)


def sampled_turn(view: OFCView, key: int) -> tuple[list[list[int]], TurnStats]:
    """Every candidate of the turn (:func:`turn_candidates`) and its :class:`TurnStats`,
    completed ``SAMPLES`` times as :func:`evaluate_turn` does (the heuristic's planner)
    but with the draws from the fixed noise table picked by ``key``: equal keys,
    equal numbers. On the last turn nothing is drawn and the numbers are exact."""
    turn, taken = outlook_turn(view, key)
    index = turn.index(taken)
    return [list(turn.plans.dests[i][len(taken):]) for i in index], turn.stats(index)


def evaluate_turn_plans(view: OFCView, key: int) -> tuple[list[int], TurnStats]:
    """(actions, their :class:`TurnStats`) for the view's next pending card, each action
    judged by the best plan of the whole turn that starts with it (per first
    destination, the candidate of :func:`sampled_turn` with the highest value)."""
    turn, taken = outlook_turn(view, key)
    actions, best = turn.best(taken)
    return actions, turn.stats(best)


# ---------------------------------------------------------------- the outlook's turns
class CompletedTurn:
    """A turn completed at its first card with the outlook's samples: its later cards
    (the same seen cards, so the same pool and samples, and the same free slots once
    the turn is placed) are the candidates that begin with the destinations taken so
    far, completed to the very same boards."""

    def __init__(self, view: OFCView, key: int, unseen: list[int]):
        self.board, self.pending, self.owed = view.own_rows, view.pending, view.discards_owed
        self.plans = plans_of(view)
        table = self.plans.complete(self.board, self.pending, outlook_future(key, unseen, self.plans.free))
        self.table, self.fl_next = table, fl_next(view)
        stats = table.rows().stats(self.fl_next)
        # tuples, not lists: the garbage collector stops tracking tuples of numbers
        self.columns = tuple(tuple(getattr(stats, f.name).tolist()) for f in fields(TurnStats))
        self.values = self.columns[-1]   # what the plans are chosen by
        # per destinations taken: the candidates that begin with them, and the best per next action
        self._index: dict[tuple[int, ...], tuple[int, ...]] = {(): tuple(range(len(self.values)))}
        self._best: dict[tuple[int, ...], tuple[list[int], list[int]]] = {}

    def stats(self, index: Sequence[int]) -> TurnStats:
        """The :class:`TurnStats` of the candidates at ``index`` (the rows of a completion
        of the whole turn: the same numbers, candidate by candidate)."""
        return self.table.rows(np.asarray(index, dtype=np.intp)).stats(self.fl_next)

    def stat_rows(self, index: Sequence[int]) -> list[tuple[float, ...]]:
        """(foul, royalty, strength, fantasyland, value) of the candidates at ``index``."""
        return [tuple(column[i] for column in self.columns) for i in index]

    def continued(self, view: OFCView) -> tuple[int, ...] | None:
        """The destinations this turn's cards took before ``view`` (None unless ``view``
        is this turn, further on)."""
        done = len(self.pending) - len(view.pending)
        if done < 0 or self.pending[done:] != view.pending:
            return None
        rows, placed, taken, owed = view.own_rows, ([], [], []), [], self.owed
        for c in self.pending[:done]:
            for r in (TOP, MIDDLE, BOTTOM):
                if c in rows[r]:
                    placed[r].append(c)
                    taken.append(r)
                    break
            else:
                if c not in view.discards:
                    return None
                owed -= 1
                taken.append(DISCARD)
        if owed != view.discards_owed or any(rows[r] != self.board[r] + tuple(placed[r]) for r in range(3)):
            return None
        return tuple(taken)

    def index(self, taken: tuple[int, ...]) -> tuple[int, ...]:
        """Candidates (indices) that begin with ``taken``, in candidate order."""
        index = self._index.get(taken)
        if index is None:
            k, dests = len(taken) - 1, self.plans.dests
            index = self._index[taken] = tuple(i for i in self.index(taken[:-1]) if dests[i][k] == taken[k])
        return index

    def best(self, taken: tuple[int, ...]) -> tuple[list[int], list[int]]:
        """Per action of the next card after ``taken``, the candidate of highest value that
        takes it (the first of equals, as ``argmax``): (actions, candidates)."""
        known = self._best.get(taken)
        if known is None:
            k, dests, values = len(taken), self.plans.dests, self.values
            best: dict[int, int] = {}
            for i in self.index(taken):
                a = dests[i][k]
                if a not in best or values[i] > values[best[a]]:
                    best[a] = i
            actions = sorted(best)
            known = self._best[taken] = (actions, [best[a] for a in actions])
        return known


_TURNS: dict[tuple, CompletedTurn] = {}
MAX_TURNS = 64  # turns kept: one per seat and noise key in play, with room for searches


def outlook_turn(view: OFCView, key: int, seen: tuple[int, ...] | None = None) -> tuple[CompletedTurn, tuple[int, ...]]:
    """(the view's turn completed with the noise table of ``key``, the destinations its
    placed cards took): computed at the turn's first card, then read (``seen``: the
    view's seen cards in ascending order, when the caller has them)."""
    seen = tuple(sorted(view.seen_cards())) if seen is None else seen
    memo = (key, fl_next(view), seen)
    turn = _TURNS.get(memo)
    taken = turn.continued(view) if turn is not None else None
    if turn is None or taken is None:
        known = set(seen)
        turn, taken = CompletedTurn(view, key, [c for c in range(52) if c not in known]), ()
        if len(_TURNS) >= MAX_TURNS:
            del _TURNS[next(iter(_TURNS))]
        _TURNS[memo] = turn
    return turn, taken
