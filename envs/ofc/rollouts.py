"""Sampled completions of an OFC board: what a regular turn's placements lead to.

For a regular turn (the pending cards of a View), every way to send the cards
to the rows (and the owed discards) is a *candidate*; each candidate's board is
completed ``samples`` times with cards drawn from the seat's unseen cards (the
same draws for every candidate: common random numbers), half of them routed
strongest-first (bottom, middle, top) as a careful player would, half at
random. :func:`evaluate_turn` returns per candidate the foul rate, royalties,
row strength and Fantasyland rate over the completions plus one value that
weighs them (``FOUL_COST``, ``ROW_WEIGHT``, ``FL_BONUS``).

Used by the ``features=True`` observation (``envs.ofc.features``:
:func:`evaluate_turn_plans` gives per action of the next card the statistics of
the best plan starting with it, for a learner to weigh itself) and, outside the
game, by the rule-based heuristic (it plays the best-valued candidate) and the
training advisors of ``agents/ofc`` (foul risks, endgame guards). Reads only the
View: nothing hidden.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields

import numpy as np

from parlor.envs.engine.hands import CATEGORY_SHIFT, rank3, rank5, rank5_batch
from parlor.envs.ofc.scoring import BoardResult, fl_entry_cards, top_royalty
from parlor.envs.ofc.view import OFCView

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


def board_stats(tops: np.ndarray, mids: np.ndarray, bots: np.ndarray, fl_next_hand: bool) -> TurnStats:
    """Statistics of candidates from their finished boards: int arrays [C, R, 3/5/5]
    (C candidates, R completions each)."""
    c, r = tops.shape[:2]
    t = np.sort(tops >> 2, axis=2)
    top_rank = TOP_RANK[t[..., 0], t[..., 1], t[..., 2]]
    mid_rank = rank5_batch(mids.reshape(-1, 5)).astype(np.int64).reshape(c, r)
    bot_rank = rank5_batch(bots.reshape(-1, 5)).astype(np.int64).reshape(c, r)
    fouled = (top_rank > mid_rank) | (mid_rank > bot_rank)
    royalty = TOP_ROYALTY[t[..., 0], t[..., 1], t[..., 2]]
    royalty = royalty + row_royalty(mid_rank, MID_ROYALTY, 50) + row_royalty(bot_rank, BOT_ROYALTY, 25)
    strength = (top_rank + mid_rank + bot_rank) / STRENGTH_UNIT
    value = royalty + ROW_WEIGHT * (top_rank + mid_rank + bot_rank) / STRENGTH_UNIT  # the heuristic's exact arithmetic
    fl = TOP_FL[t[..., 0], t[..., 1], t[..., 2]]
    if fl_next_hand:
        value += FL_BONUS * fl
    clean = ~fouled
    return TurnStats(
        foul=fouled.mean(axis=1),
        royalty=np.where(clean, royalty, 0.0).mean(axis=1),
        strength=np.where(clean, strength, 0.0).mean(axis=1),
        fantasyland=(clean & fl).mean(axis=1),
        value=np.where(fouled, -FOUL_COST, value).mean(axis=1),
    )


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


def room_of(rows: Sequence[Sequence[int]]) -> list[int]:
    """Free slots per row (top, middle, bottom)."""
    return [ROW_SIZES[r] - len(rows[r]) for r in range(3)]


def turn_candidates(view: OFCView) -> list[list[int]]:
    """Every destination list for the view's pending cards."""
    return list(assignments(view.pending, room_of(view.own_rows), view.discards_owed))


def evaluate_turn(view: OFCView, cands: list[list[int]], rng: np.random.Generator,
                  samples: int = SAMPLES) -> TurnStats:
    """:class:`TurnStats` of ``cands`` (from :func:`turn_candidates`) over ``samples`` completions."""
    return completed_turn(view, cands, lambda pool: rng.random((samples, len(pool))))


def completed_turn(view: OFCView, cands: list[list[int]], noise: Callable[[np.ndarray], np.ndarray],
                    routed: float = 0.5) -> TurnStats:
    """:class:`TurnStats` of ``cands``, each board completed from the unseen cards once per
    row of ``noise(pool)`` ([R, len(pool)] sort keys for the ascending unseen ``pool``),
    the first ``routed`` share of them strongest-first (:func:`_route`)."""
    board = view.own_rows
    free = sum(room_of(board)) - (len(view.pending) - view.discards_owed)
    pool = np.asarray(view.unseen_cards(), dtype=np.int64)
    future = _route(pool[np.argsort(noise(pool), axis=1)[:, :free]], routed)
    return completed_stats([place(board, view.pending, dest) for dest in cands], future, view)


def _route(future: np.ndarray, routed: float) -> np.ndarray:
    """Sampled future cards [R, n]: the first ``routed`` share of the samples routed
    strongest-first (bottom, middle, top), the rest left in random order."""
    n = int(future.shape[0] * routed)
    future[:n] = -np.sort(-future[:n], axis=1)
    return future


NOISE_TABLES = 256
_NOISE = np.random.default_rng(20261122).random((NOISE_TABLES, SAMPLES, 52))  # fixed: sampling is a pure function


def sampled_turn(view: OFCView, key: int) -> tuple[list[list[int]], TurnStats]:
    """Every candidate of the turn (:func:`turn_candidates`) and its :class:`TurnStats`,
    completed ``SAMPLES`` times as :func:`evaluate_turn` does (the heuristic's planner)
    but with the draws from the fixed noise table picked by ``key``: equal keys,
    equal numbers. On the last turn nothing is drawn and the numbers are exact."""
    cands = turn_candidates(view)
    return cands, completed_turn(view, cands, lambda pool: _NOISE[key % NOISE_TABLES][:, pool])


def evaluate_turn_plans(view: OFCView, key: int) -> tuple[list[int], TurnStats]:
    """(actions, their :class:`TurnStats`) for the view's next pending card, each action
    judged by the best plan of the whole turn that starts with it (per first
    destination, the candidate of :func:`sampled_turn` with the highest value)."""
    cands, stats = sampled_turn(view, key)
    first = np.array([dest[0] for dest in cands])
    actions, best = [], []
    for a in (TOP, MIDDLE, BOTTOM, DISCARD):
        idx = np.flatnonzero(first == a)
        if idx.size:
            actions.append(a)
            best.append(int(idx[np.argmax(stats.value[idx])]))
    return actions, stats.take(best)


def place(board: Sequence[Sequence[int]], cards: Sequence[int], dest: Sequence[int]) -> list[list[int]]:
    """The rows after sending ``cards`` to ``dest`` (DISCARD drops a card)."""
    rows = [list(board[0]), list(board[1]), list(board[2])]
    for c, d in zip(cards, dest):
        if d != DISCARD:
            rows[d].append(c)
    return rows


def completed_stats(boards: list[list[list[int]]], future: np.ndarray, view: OFCView) -> TurnStats:
    """:class:`TurnStats` of candidate boards, each completed by every sample's drawn
    cards (``future`` [R, n]: bottom first, then middle, then top)."""
    c, r = len(boards), future.shape[0]
    tops, mids, bots = (np.empty((c, r, n), dtype=np.int64) for n in ROW_SIZES)
    # candidates with equal row lengths take the same slices of the draws: one numpy
    # assignment per shape instead of one concatenation per candidate and row (the hot path)
    shapes: dict[tuple[int, int, int], list[int]] = {}
    for i, rows in enumerate(boards):
        shapes.setdefault((len(rows[TOP]), len(rows[MIDDLE]), len(rows[BOTTOM])), []).append(i)
    for (nt, nm, nb), idx in shapes.items():
        fb, fm = 5 - nb, 5 - nm
        drawn = {BOTTOM: future[:, :fb], MIDDLE: future[:, fb:fb + fm], TOP: future[:, fb + fm:fb + fm + 3 - nt]}
        for row, out, n in ((TOP, tops, nt), (MIDDLE, mids, nm), (BOTTOM, bots, nb)):
            out[idx, :, :n] = np.array([boards[i][row] for i in idx], dtype=np.int64).reshape(len(idx), 1, n)
            out[idx, :, n:] = drawn[row]
    return board_stats(tops, mids, bots, view.hand_index + 1 < view.num_hands)
