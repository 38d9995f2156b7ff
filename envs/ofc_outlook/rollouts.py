"""Sampled completions of an OFC board: what a regular turn's placements lead to.

For a regular turn (the pending cards of a View), every way to send the cards
to the rows (and the owed discards) is a *candidate*; each candidate's board is
completed ``samples`` times with cards drawn from the seat's unseen cards (the
same draws for every candidate: common random numbers), half of them routed
strongest-first (bottom, middle, top) as a careful player would, half at
random. :func:`evaluate_turn` returns per candidate the foul rate, royalties,
row strength and Fantasyland rate over the completions plus one value that
weighs them (``FOUL_COST``, ``ROW_WEIGHT``, ``FL_BONUS``).

Used by the ``features=True`` observation (``envs.ofc_outlook.features``: the outlook's
turns of :mod:`envs.ofc_outlook.outlook` give per action of the next card the statistics of
the best plan starting with it, for a learner to weigh itself) and, outside the
game, by the rule-based heuristic (it plays the best-valued candidate) and the
training advisors of ``agents/ofc`` (foul risks, endgame guards). Reads only the
View: nothing hidden.

How it stays fast (the planner runs at every decision of the heuristic, of the
search agent's playouts and of a ``features=True`` observation):

- the candidates of a turn shape (free slots per row, cards, discards owed) and
  the rows their boards complete to are listed once (:func:`turn_plans`): a
  completed row depends only on the cards the candidate sends to it and on where
  its slice of the draws starts, so the 232 candidates of an opening share 32
  bottoms, about 100 middles and 26 tops, and only those are ranked;
- the boards are completed and their statistics taken in one compiled pass
  (:mod:`envs.ofc_outlook.turn_kernel`), the production path; ``tests/ofc_outlook/oracle.py``
  states the same numbers in numpy for the tests;
- the outlook (:mod:`envs.ofc_outlook.outlook`) completes a turn once, at its first card,
  and its later cards read their plans off it.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from parlor.envs.engine.hands import (
    CATEGORY_SHIFT,
    TOP_ROWS,
    rank3,
    rank5,
)
from parlor.envs.ofc.scoring import BoardResult, fl_entry_cards, top_royalty
from parlor.envs.ofc.view import OFCView

if TYPE_CHECKING:
    from parlor.envs.ofc_outlook.outlook import TurnView

ROW_SIZES = (3, 5, 5)
TOP, MIDDLE, BOTTOM, DISCARD = 0, 1, 2, 3
FOUL_COST = 7.0          # a foul pays 6 plus the opponent's royalties and loses our own
FL_BONUS = 9.0           # rough worth of a Fantasyland hand
ROW_WEIGHT = 0.6         # points per category step of a row (winning rows against others)
SAMPLES = 32             # sampled completions of the board per decision
# royalties by category (index = Category) for partial-row estimates
MID_ROYALTY = (0, 0, 0, 2, 4, 8, 12, 20, 30, 30)
BOT_ROYALTY = (0, 0, 0, 0, 2, 4, 6, 10, 15, 15)


# ---------------------------------------------------------------- vectorized row tables
def _top_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Top-row rank, royalty and Fantasyland flag for every triple of card ranks."""
    ranks = np.zeros((13, 13, 13), dtype=np.int64)
    royalty = np.zeros((13, 13, 13), dtype=np.float64)
    fl = np.zeros((13, 13, 13), dtype=bool)
    for a, b, c in itertools.product(range(13), repeat=3):
        r = rank3([a * 4, b * 4 + 1, c * 4 + 2])
        ranks[a, b, c], royalty[a, b, c] = r, top_royalty(r)
        fl[a, b, c] = fl_entry_cards(BoardResult((r, 0, 0), False, (0, 0, 0), 0), "regular") > 0
    return ranks, royalty, fl


TOP_RANK, TOP_ROYALTY, TOP_FL = _top_tables()
ROYAL = rank5([48, 44, 40, 36, 32])  # A K Q J T of clubs
STRENGTH_UNIT = float(1 << CATEGORY_SHIFT)  # rank / unit = category + tie-break fraction


def row_royalty(ranks: np.ndarray, table: Sequence[int], royal_value: int) -> np.ndarray:
    out = np.asarray(table, dtype=np.float64)[ranks >> CATEGORY_SHIFT]
    return np.where(ranks == ROYAL, float(royal_value), out)


LEAD_SHIFT = 16   # rank >> LEAD_SHIFT: a row's category and leading rank


def _lead_tables() -> tuple[np.ndarray, np.ndarray]:
    """Royalties of a top, middle and bottom row, and the top's Fantasyland flag, by the
    row's category and leading rank (``rank >> LEAD_SHIFT``): all they depend on (a
    royal flush is the straight flush led by the ace; a top pays and enters Fantasyland
    by its pair or trips). Built from :data:`TOP_ROYALTY`, :data:`TOP_FL` and
    :func:`row_royalty`, and checked to be functions of the lead."""
    leads = 10 << (CATEGORY_SHIFT - LEAD_SHIFT)
    royalty, fl = np.zeros((3, leads)), np.zeros(leads, dtype=bool)
    five = np.arange(leads, dtype=np.int64) << LEAD_SHIFT
    royalty[MIDDLE], royalty[BOTTOM] = row_royalty(five, MID_ROYALTY, 50), row_royalty(five, BOT_ROYALTY, 25)
    lead = TOP_RANK.ravel() >> LEAD_SHIFT
    royalty[TOP, lead], fl[lead] = TOP_ROYALTY.ravel(), TOP_FL.ravel()
    if (royalty[TOP, lead] != TOP_ROYALTY.ravel()).any() or (fl[lead] != TOP_FL.ravel()).any():
        raise AssertionError("top royalties must depend on the top's lead only")
    return royalty.ravel(), fl.astype(np.float64)


LEAD_ROYALTY, LEAD_FL = _lead_tables()   # by role * leads + lead (role: TOP, MIDDLE, BOTTOM); by lead (1.0 / 0.0)


@dataclass(frozen=True)
class TurnStats:
    """Per candidate (arrays of length C), over the sampled completions."""

    foul: np.ndarray       # share of completions that foul
    royalty: np.ndarray    # mean royalties (0 for a fouled completion)
    strength: np.ndarray   # mean sum of the rows' categories (with tie-break fractions), clean boards
    fantasyland: np.ndarray  # share of clean completions whose top earns Fantasyland
    value: np.ndarray      # the weighed value: royalties + ROW_WEIGHT*strength (+ FL_BONUS), -FOUL_COST if fouled

    def take(self, index: Sequence[int]) -> TurnStats:
        """The statistics of the candidates at ``index``, in that order."""
        return TurnStats(*(getattr(self, f.name)[list(index)] for f in fields(self)))


# ---------------------------------------------------------------- regular turns
def assignments(pending: Sequence[int], room: list[int], discards: int):
    """Every destination list for ``pending`` that fits the rows and owes exactly ``discards``."""
    n = len(pending)

    def rec(i: int, room: list[int], left: int, acc: list[int]):
        if i == n:
            if left == 0:
                yield list(acc)
            return
        if n - i > left:
            for r in (BOTTOM, MIDDLE, TOP):
                if room[r]:
                    room[r] -= 1
                    acc.append(r)
                    yield from rec(i + 1, room, left, acc)
                    acc.pop()
                    room[r] += 1
        if left:
            acc.append(DISCARD)
            yield from rec(i + 1, room, left - 1, acc)
            acc.pop()

    yield from rec(0, list(room), discards, [])


def room_of(rows: Sequence[Sequence[int]]) -> tuple[int, int, int]:
    """Free slots per row (top, middle, bottom)."""
    return ROW_SIZES[0] - len(rows[0]), ROW_SIZES[1] - len(rows[1]), ROW_SIZES[2] - len(rows[2])


class TurnPlans:
    """Candidates of one turn shape and the rows their boards complete to.

    A completion reads the evaluator's card keys per sample: the ``free`` drawn cards
    (bottom's slice first, then the middle's, then the top's), the pending cards, the
    board's top, middle and bottom cards and a zero key. ``cols`` [5, U] are the
    distinct completed rows as columns of those (``num_top`` tops, then the middles,
    then the bottoms); candidate i completes to the rows ``rows[:, i]`` (top, middle,
    bottom)."""

    def __init__(self, room: tuple[int, int, int], n: int, discards: int, dests: Sequence[Sequence[int]]):
        self.dests = tuple(tuple(d) for d in dests)
        self.array = np.array(self.dests, dtype=np.int8).reshape(len(self.dests), n)
        self.room = tuple(room)   # free slots per row (top, middle, bottom) before the turn
        self.free = sum(room) - (n - discards)
        held = [ROW_SIZES[r] - room[r] for r in range(3)]
        self.columns = self.free + n + sum(held)   # the drawn, pending and board cards
        start = [self.free + n, self.free + n + held[0], self.free + n + held[0] + held[1]]
        board_cols = [tuple(range(start[r], start[r] + held[r])) for r in range(3)]
        rows: tuple[dict, dict, dict] = ({}, {}, {})   # per row: column tuple -> index
        index = np.empty((3, len(self.dests)), dtype=np.intp)
        for i, dest in enumerate(self.dests):
            fixed = [board_cols[r] + tuple(self.free + j for j, d in enumerate(dest) if d == r) for r in range(3)]
            fb, fm = 5 - len(fixed[BOTTOM]), 5 - len(fixed[MIDDLE])
            drawn = (range(fb + fm, fb + fm + 3 - len(fixed[TOP])), range(fb, fb + fm), range(fb))
            for r in range(3):
                cols = fixed[r] + tuple(drawn[r])
                index[r, i] = rows[r].setdefault(cols, len(rows[r]))
        self.num_top, num_mid = len(rows[TOP]), len(rows[MIDDLE])
        # the rows' card columns [5, U] (tops, then middles, then bottoms; a top's last two
        # columns are a column of zero keys), and which rank table each row reads
        tops = [cols + (self.columns, self.columns) for cols in rows[TOP]]
        self.cols = np.array(tops + list(rows[MIDDLE]) + list(rows[BOTTOM]), dtype=np.intp).reshape(-1, 5).T.copy()
        # per distinct row: where its role's royalties start in LEAD_ROYALTY
        leads = len(LEAD_FL)
        roles = [TOP] * self.num_top + [MIDDLE] * num_mid + [BOTTOM] * len(rows[BOTTOM])
        self.table = np.where(np.array(roles) == TOP, TOP_ROWS, 0).reshape(-1, 1)
        self.lead_base = (np.array(roles, dtype=np.int64) * leads).reshape(-1, 1)
        self.table_flat, self.lead_base_flat = self.table.ravel().astype(np.int64), self.lead_base.ravel()   # the compiled outlook's
        # per candidate: its top, middle and bottom row in the table (tops, then middles, then bottoms)
        self.rows = index + np.array([[0], [self.num_top], [self.num_top + num_mid]])


@cache
def turn_plans(room: tuple[int, int, int], n: int, discards: int) -> TurnPlans:
    """The :class:`TurnPlans` of every candidate (:func:`assignments` order) of a turn shape."""
    return TurnPlans(room, n, discards, list(assignments(range(n), list(room), discards)))


def plans_of(view: OFCView | TurnView) -> TurnPlans:
    return turn_plans(room_of(view.own_rows), len(view.pending), view.discards_owed)


def turn_candidates(view: OFCView) -> list[list[int]]:
    """Every destination list for the view's pending cards."""
    return [list(d) for d in plans_of(view).dests]


def _plans_for(view: OFCView, cands: list[list[int]]) -> TurnPlans:
    """The turn's own plans when ``cands`` are all its candidates, else plans of just ``cands``."""
    plans = plans_of(view)
    if len(cands) == len(plans.dests) and all(tuple(c) == d for c, d in zip(cands, plans.dests)):
        return plans
    return TurnPlans(room_of(view.own_rows), len(view.pending), view.discards_owed, cands)


def evaluate_turn(view: OFCView, cands: list[list[int]], rng: np.random.Generator,
                  samples: int = SAMPLES) -> TurnStats:
    """:class:`TurnStats` of ``cands`` (from :func:`turn_candidates`) over ``samples`` completions."""
    return completed_turn(view, cands, lambda pool: rng.random((samples, len(pool))))


def completed_turn(view: OFCView, cands: list[list[int]], noise: Callable[[np.ndarray], np.ndarray],
                   routed: float = 0.5) -> TurnStats:
    """:class:`TurnStats` of ``cands``, each board completed from the unseen cards once per
    row of ``noise(pool)`` ([R, len(pool)] sort keys for the ascending unseen ``pool``),
    the first ``routed`` share of them strongest-first (:func:`route_future`)."""
    return completed_stats(view, _plans_for(view, cands), noise, routed)


def completed_stats(view: OFCView, plans: TurnPlans, noise: Callable[[np.ndarray], np.ndarray],
                    routed: float = 0.5, unseen: Sequence[int] | None = None) -> TurnStats:
    """The :class:`TurnStats` of every candidate of ``plans`` for the view's board, completed
    as :func:`completed_turn` does (``unseen``: the view's unseen cards, when the caller has
    them), in one compiled pass (:func:`envs.ofc_outlook.turn_kernel.completion_stats`)."""
    pool = np.asarray(view.unseen_cards() if unseen is None else unseen, dtype=np.int64)
    future = route_future(pool[np.argsort(noise(pool), axis=1)[:, :plans.free]], routed)
    board, pending = view.own_rows, view.pending
    fixed = [*pending, *board[TOP], *board[MIDDLE], *board[BOTTOM]]
    if not all(0 <= c < 52 for c in fixed):
        raise ValueError(f"card ids must lie in 0..51, got pending {pending} and board {board}")
    stats = kernel().completion_stats(np.ascontiguousarray(future), np.array(fixed, dtype=np.int64), plans,
                                      fl_next(view))
    return TurnStats(*stats)


def kernel():
    """The compiled turn completion (:mod:`envs.ofc_outlook.turn_kernel`), imported and loaded
    at the first call: numba is imported only by code that plans."""
    global _KERNEL
    if _KERNEL is None:
        from parlor.envs.ofc_outlook import turn_kernel

        turn_kernel.warm_up()
        _KERNEL = turn_kernel
    return _KERNEL


_KERNEL = None


def fl_next(view: OFCView | TurnView) -> bool:
    """Whether another hand follows (a top that earns Fantasyland is worth ``FL_BONUS``)."""
    return view.hand_index + 1 < view.num_hands


def route_future(future: np.ndarray, routed: float) -> np.ndarray:
    """Sampled future cards [R, n]: the first ``routed`` share of the samples routed
    strongest-first (bottom, middle, top), the rest left in random order."""
    n = int(future.shape[0] * routed)
    future[:n] = -np.sort(-future[:n], axis=1)
    return future


def place(board: Sequence[Sequence[int]], cards: Sequence[int], dest: Sequence[int]) -> list[list[int]]:
    """The rows after sending ``cards`` to ``dest`` (DISCARD drops a card)."""
    rows = [list(board[0]), list(board[1]), list(board[2])]
    for c, d in zip(cards, dest):
        if d != DISCARD:
            rows[d].append(c)
    return rows
