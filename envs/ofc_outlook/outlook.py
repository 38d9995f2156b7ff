"""The outlook's sampled turns: a regular turn completed with a fixed noise table.

The ``features=True`` observation (:mod:`envs.ofc_outlook.features`), the rule-based heuristic
and the advisors judge a turn's plans over the same ``SAMPLES`` completions of the board
(:func:`envs.ofc_outlook.rollouts.completed_stats`) drawn from one of ``NOISE_TABLES`` fixed noise
tables, picked by a key that stays the same for every card of one turn
(:func:`envs.ofc_outlook.features.turn_key`): equal keys, equal numbers.

:func:`outlook_turn` completes a turn once, at its first card: the later cards of the turn
(same seen cards, same samples) read their plans off that turn (:class:`CompletedTurn`),
which gives the very numbers a fresh completion of the smaller turn would. The completion
runs compiled (:mod:`envs.ofc_outlook.turn_kernel`); ``tests/ofc_outlook/oracle.py`` states
it in numpy and ``tests/ofc_outlook/test_kernels.py`` holds the kernel to that.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache
from typing import NamedTuple

import numpy as np

from parlor.envs.ofc.view import Board, OFCView
from parlor.envs.ofc_outlook.rollouts import (
    BOTTOM,
    DISCARD,
    FOUL_COST,
    MIDDLE,
    SAMPLES,
    TOP,
    TurnPlans,
    TurnStats,
    fl_next,
    kernel,
    plans_of,
)

NOISE_TABLES = 256


@cache
def _orders() -> np.ndarray:
    """The 52 card ids by ascending noise, per table and sample (one argsort for all tables).
    A row's noise values are distinct, so any pool's cards come in this order, as sorting the
    pool's own noise (``completed_stats``) puts them. Made at the first turn completed, not
    at import (every process that imports the game would pay for it)."""
    noise = np.random.default_rng(20261122).random((NOISE_TABLES, SAMPLES, 52))  # fixed: sampling is a pure function
    return np.argsort(noise, axis=2)


def _noise_order(table: int) -> np.ndarray:
    """The 52 card ids by ascending noise, per sample of noise table ``table``."""
    return _orders()[table]


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
class TurnView(NamedTuple):
    """What the outlook reads of a seat's :class:`OFCView` (the same fields): ``OFCGame.observe``
    builds it straight from the State, a fraction of the cost of the whole view, and has the
    seat's seen cards at hand (a TurnView comes with them: ``seen``)."""

    player: int
    hand_index: int
    num_hands: int
    own_rows: Board
    pending: tuple[int, ...]
    discards_owed: int
    discards: tuple[int, ...]


def sorted_seen(view: OFCView | TurnView) -> tuple[int, ...]:
    """The cards ``view``'s seat has seen, ascending; a :class:`TurnView` holds no seen cards:
    its caller passes them (``seen``)."""
    if isinstance(view, TurnView):
        raise ValueError("a TurnView carries no seen cards: pass them as seen=")
    return tuple(sorted(view.seen_cards()))


OUTLOOK = 7                 # per action: available, foul, royalties, strength, Fantasyland, value, preference
ROYALTY_SCALE, STRENGTH_SCALE = 25.0, 27.0
VALUE_SCALE = 40.0          # planner values run from -FOUL_COST (a sure foul) to about +30
PREF_TEMPERATURE = 2.0      # points: preference exp((value - best) / T)
_SCALES = np.array([ROYALTY_SCALE, STRENGTH_SCALE, VALUE_SCALE, FOUL_COST, PREF_TEMPERATURE])


class PrefixTree:
    """The prefixes of a turn shape's candidates (the destinations taken so far) that
    have a card left: ``ids`` numbers them (the empty prefix 0), ``actions[p]`` are the
    next card's destinations some candidate takes after prefix p (ascending) and
    ``parents`` [n, C] the id of each candidate's first k destinations (``dests`` [C, n]:
    the candidates' destinations, as the kernel reads them)."""

    def __init__(self, plans: TurnPlans):
        dests = plans.dests
        n = plans.array.shape[1]
        self.ids: dict[tuple[int, ...], int] = {}
        self.parents = np.empty((n, len(dests)), dtype=np.int64)
        following: list[set[int]] = []
        for i, dest in enumerate(dests):
            for k in range(n):
                p = self.ids.setdefault(dest[:k], len(self.ids))
                if p == len(following):
                    following.append(set())
                following[p].add(dest[k])
                self.parents[k, i] = p
        self.actions = tuple(tuple(sorted(a)) for a in following)
        self.size = len(self.ids)
        self.dests = plans.array.astype(np.int64)


@cache
def prefix_tree(plans: TurnPlans) -> PrefixTree:
    """The :class:`PrefixTree` of ``plans`` (a cached :func:`turn_plans`: one per turn shape)."""
    return PrefixTree(plans)


class CompletedTurn:
    """A turn completed at its first card with the outlook's samples: its later cards
    (the same seen cards, so the same pool and samples, and the same free slots once
    the turn is placed) are the candidates that begin with the destinations taken so
    far, completed to the very same boards. Every number comes from one compiled pass
    (:mod:`envs.ofc_outlook.turn_kernel`): each candidate's statistics, the best candidate per
    prefix and next action, and the feature block's outlook per prefix."""

    def __init__(self, view: OFCView | TurnView, key: int, seen: tuple[int, ...]):
        self.board, self.pending, self.owed = view.own_rows, view.pending, view.discards_owed
        self.plans = plans_of(view)
        self.tree = prefix_tree(self.plans)
        self.fl_next = fl_next(view)
        board = self.board
        fixed = (*self.pending, *board[TOP], *board[MIDDLE], *board[BOTTOM])
        if not 0 <= min(fixed) <= max(fixed) < 52:
            raise ValueError(f"card ids must lie in 0..51, got pending {self.pending} and board {board}")
        # stats [5, C]: TurnStats columns; best [P, 4]: candidate per prefix and action; outlooks [P, 28]
        self.array, self._best_array, self._outlooks = kernel().turn_stats(
            _noise_order(key % NOISE_TABLES), np.array(seen, dtype=np.int64), np.array(fixed, dtype=np.int64),
            self.plans, self.tree, self.fl_next, _SCALES)
        self.values = self.array[-1]   # what the plans are chosen by
        self._index: dict[tuple[int, ...], tuple[int, ...]] = {(): tuple(range(len(self.values)))}

    def stats(self, index: Sequence[int]) -> TurnStats:
        """The :class:`TurnStats` of the candidates at ``index`` (each candidate's numbers are
        its own: those of a completion of the candidates at ``index`` alone)."""
        return TurnStats(*self.array[:, np.asarray(index, dtype=np.intp)])

    def continued(self, view: OFCView | TurnView) -> tuple[int, ...] | None:
        """The destinations this turn's cards took before ``view`` (None unless ``view``
        is this turn, further on)."""
        pending = view.pending
        done = len(self.pending) - len(pending)
        if done < 0 or self.pending[done:] != pending:
            return None
        if not done:
            return () if view.own_rows == self.board and view.discards_owed == self.owed else None
        placed: tuple[list[int], list[int], list[int]] = ([], [], [])
        rows, taken, owed = view.own_rows, [], self.owed
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
        p = self.tree.ids[taken]
        actions = self.tree.actions[p]
        row = self._best_array[p]
        return list(actions), [int(row[a]) for a in actions]

    def outlook(self, taken: tuple[int, ...]) -> list[float]:
        """The feature block's outlook after ``taken`` (:func:`envs.ofc_outlook.features.outlook`)."""
        p = self.tree.ids[taken]
        out = self._outlooks[p].tolist()
        for a in self.tree.actions[p]:
            out[a * OUTLOOK + 6] = math.exp(out[a * OUTLOOK + 6])
        return out


_TURNS: dict[tuple, CompletedTurn] = {}
MAX_TURNS = 64  # turns kept: one per seat and noise key in play, with room for searches


def outlook_turn(view: OFCView | TurnView, key: int, seen: tuple[int, ...] | None = None) -> tuple[CompletedTurn, tuple[int, ...]]:
    """(the view's turn completed with the noise table of ``key``, the destinations its
    placed cards took): computed at the turn's first card, then read (``seen``: the
    view's seen cards in ascending order, when the caller has them)."""
    seen = sorted_seen(view) if seen is None else seen
    memo = (key, fl_next(view), seen)
    turn = _TURNS.get(memo)
    taken = turn.continued(view) if turn is not None else None
    if turn is None or taken is None:
        turn, taken = CompletedTurn(view, key, seen), ()
        if len(_TURNS) >= MAX_TURNS:
            del _TURNS[next(iter(_TURNS))]
        _TURNS[memo] = turn
    return turn, taken
