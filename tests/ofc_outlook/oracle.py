"""The numpy / Python statement of the OFC planner's and feature block's numbers: the test
oracle the compiled production path (``parlor.envs.ofc_outlook.turn_kernel`` and
``block_kernel``) is held to.

- :func:`complete` with :class:`RowTable` and :class:`CompletedRows`: a turn's candidates
  completed and their statistics in array operations (``turn_kernel.completion_stats``);
  :func:`board_stats` the same from finished boards, row by row; :func:`outlook_future`
  the outlook's draws from a noise table (``turn_kernel``'s ``_draws``);
- :func:`completed_stats`: ``rollouts.completed_stats`` (what the heuristic and the advisors
  judge a turn by) over these arrays;
- :func:`features`: the whole ``features=True`` block of a view in plain Python (made hands,
  flush and straight draws, row order; the outlook read as production reads it), from
  small memoised row facts (:func:`row_summary`).

Floats: the arrays' means are numpy's sums (pairwise), the kernel's a running sum, so the
statistics agree to a relative 1e-12 or so, not bit for bit; integers (ranks, draws,
counts) agree exactly.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from parlor.envs.engine.hands import CARD_KEY, category, rank3, rank5, rank5_batch, rank_from_keys, rank_values
from parlor.envs.ofc.view import OFCView
from parlor.envs.ofc_outlook.block_kernel import MAX_CATEGORY
from parlor.envs.ofc_outlook.features import NEXT_ROW, outlook
from parlor.envs.ofc_outlook.outlook import NOISE_TABLES, OUTLOOK, PrefixTree, _noise_order
from parlor.envs.ofc_outlook.rollouts import (
    BOT_ROYALTY,
    BOTTOM,
    FL_BONUS,
    FOUL_COST,
    LEAD_FL,
    LEAD_ROYALTY,
    LEAD_SHIFT,
    MID_ROYALTY,
    MIDDLE,
    ROW_SIZES,
    ROW_WEIGHT,
    STRENGTH_UNIT,
    TOP,
    TOP_FL,
    TOP_RANK,
    TOP_ROYALTY,
    TurnPlans,
    TurnStats,
    fl_next,
    route_future,
    row_royalty,
)


# ---------------------------------------------------------------- the turn's completion
@dataclass(frozen=True)
class CompletedRows:
    """Completed boards (C candidates, R completions each), as float64 (ranks are integers
    below 2**24, exact in a double): ``ranks`` and ``royalties`` [3, C, R] of the top, middle
    and bottom rows, ``top_fl`` [C, R] the top's Fantasyland flag (1.0 or 0.0)."""

    ranks: np.ndarray
    royalties: np.ndarray
    top_fl: np.ndarray

    def _weighed(self, fl_next_hand: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(fouled, royalty, rank sum, value before the foul) per completion: one arithmetic
        for every caller, so the numbers agree bit for bit (the rank sum is an exact
        integer, as it was when summed as int64)."""
        top, middle, bottom = self.ranks
        fouled = (top > middle) | (middle > bottom)
        royalty = self.royalties[0] + self.royalties[1] + self.royalties[2]
        total = top + middle + bottom
        value = royalty + ROW_WEIGHT * total / STRENGTH_UNIT
        if fl_next_hand:
            value += FL_BONUS * self.top_fl
        return fouled, royalty, total, value

    def values(self, fl_next_hand: bool) -> np.ndarray:
        """The ``value`` statistic alone (what a planner maximises)."""
        fouled, _, _, value = self._weighed(fl_next_hand)
        return np.where(fouled, -FOUL_COST, value).mean(axis=1)

    def stats(self, fl_next_hand: bool) -> TurnStats:
        """Every statistic: the five means per candidate in one reduction. Royalties and
        strengths are >= 0, so multiplying by the clean flag (1.0 or 0.0) zeroes exactly
        what ``np.where(clean, x, 0.0)`` zeroes and keeps the rest bit for bit."""
        fouled, royalty, total, value = self._weighed(fl_next_hand)
        rows = np.empty((5, *fouled.shape))
        foul = rows[0]
        foul[...] = fouled
        clean = 1.0 - foul
        np.multiply(royalty, clean, out=rows[1])
        np.divide(total, STRENGTH_UNIT, out=rows[2])
        rows[2] *= clean
        np.multiply(clean, self.top_fl, out=rows[3])
        np.copyto(rows[4], np.where(fouled, -FOUL_COST, value))
        return TurnStats(*(np.add.reduce(rows, axis=2) / fouled.shape[1]))


def board_stats(tops: np.ndarray, mids: np.ndarray, bots: np.ndarray, fl_next_hand: bool) -> TurnStats:
    """Statistics of candidates from their finished boards: int arrays [C, R, 3/5/5]
    (C candidates, R completions each)."""
    c, r = tops.shape[:2]
    t = np.sort(tops >> 2, axis=2)
    mid_rank = rank5_batch(mids.reshape(-1, 5)).astype(np.int64).reshape(c, r)
    bot_rank = rank5_batch(bots.reshape(-1, 5)).astype(np.int64).reshape(c, r)
    top = t[..., 0], t[..., 1], t[..., 2]
    ranks = np.stack((TOP_RANK[top], mid_rank, bot_rank)).astype(np.float64)
    royalties = np.stack((TOP_ROYALTY[top], row_royalty(mid_rank, MID_ROYALTY, 50), row_royalty(bot_rank, BOT_ROYALTY, 25)))
    return CompletedRows(ranks, royalties, TOP_FL[top].astype(np.float64)).stats(fl_next_hand)


def complete(plans: TurnPlans, board: Sequence[Sequence[int]], pending: Sequence[int], future: np.ndarray) -> RowTable:
    """The distinct completed rows of ``plans`` for ``board`` and ``pending`` when ``future``
    [R, free] holds each sample's drawn cards (ids of the unseen cards)."""
    fixed = [*pending, *board[TOP], *board[MIDDLE], *board[BOTTOM]]
    if not all(0 <= c < 52 for c in fixed):
        raise ValueError(f"card ids must lie in 0..51, got pending {pending} and board {board}")
    keys = np.zeros((plans.columns + 1, len(future)), dtype=np.int32)   # one key per card and sample
    CARD_KEY.take(future.T, out=keys[:plans.free])
    keys[plans.free:plans.columns] = CARD_KEY.take(fixed)[:, None]
    ranks = rank_from_keys(np.add.reduce(keys[plans.cols], axis=0), plans.table)
    lead = ranks >> LEAD_SHIFT
    return RowTable(plans, ranks.astype(np.float64), LEAD_ROYALTY.take(lead + plans.lead_base),
                    LEAD_FL.take(lead[:plans.num_top]))


@dataclass(frozen=True)
class RowTable:
    """The distinct completed rows of a :class:`TurnPlans` ([U, R] each): ranks and
    royalties (tops, middles, bottoms), the tops' Fantasyland flags."""

    plans: TurnPlans
    ranks: np.ndarray
    royalties: np.ndarray
    top_fl: np.ndarray

    def rows(self, index: np.ndarray | slice = slice(None)) -> CompletedRows:
        """The completed boards of the candidates at ``index``."""
        rows = self.plans.rows[:, index]
        return CompletedRows(self.ranks.take(rows, axis=0), self.royalties.take(rows, axis=0),
                             self.top_fl.take(rows[0], axis=0))


def completed_stats(view: OFCView, plans: TurnPlans, noise: Callable[[np.ndarray], np.ndarray],
                    routed: float = 0.5) -> TurnStats:
    """``rollouts.completed_stats`` in arrays: the same draws, completed by :func:`complete`."""
    pool = np.asarray(view.unseen_cards(), dtype=np.int64)
    future = route_future(pool[np.argsort(noise(pool), axis=1)[:, :plans.free]], routed)
    return complete(plans, view.own_rows, view.pending, future).rows().stats(fl_next(view))


def outlook_future(key: int, unseen: Sequence[int], free: int) -> np.ndarray:
    """The drawn cards [SAMPLES, free] of the noise table picked by ``key``, as
    :func:`completed_stats` draws them from ``unseen``, half routed (:func:`route_future`)."""
    order = _noise_order(key % NOISE_TABLES)
    in_pool = np.zeros(52, dtype=bool)
    in_pool[unseen] = True
    return route_future(order[in_pool[order]].reshape(len(order), -1)[:, :free], 0.5)


def best_and_outlooks(stats: np.ndarray, plans: TurnPlans, tree: PrefixTree,
                      scales: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(best [P, 4], outlooks [P, 28]) of ``turn_kernel.turn_stats`` from the candidates'
    statistics ``stats`` [5, C], read candidate by candidate in Python: per prefix of
    ``tree`` and next action, the first candidate of highest value that takes it, and the
    outlook block with the preference's exponent ``(value - best) / temperature``."""
    royalty_scale, strength_scale, value_scale, foul_cost, temperature = scales.tolist()
    values = stats[4].tolist()
    best = np.full((tree.size, 4), -1, dtype=np.int64)
    outlooks = np.zeros((tree.size, 4 * OUTLOOK))
    for taken, p in tree.ids.items():
        k = len(taken)
        first: dict[int, int] = {}
        for i, dest in enumerate(plans.dests):
            if dest[:k] == taken and (dest[k] not in first or values[i] > values[first[dest[k]]]):
                first[dest[k]] = i
        top = max(values[i] for i in first.values())
        for a, i in first.items():
            best[p, a] = i
            foul, royalty, strength, fantasyland, value = stats[:, i].tolist()
            outlooks[p, OUTLOOK * a:OUTLOOK * (a + 1)] = [
                1.0, foul, min(1.0, royalty / royalty_scale), min(1.0, strength / strength_scale), fantasyland,
                min(1.0, max(0.0, (value + foul_cost) / value_scale)), (value - top) / temperature]
    return best, outlooks


def completion_stats(future: np.ndarray, fixed: np.ndarray, plans: TurnPlans, fl_next_hand: bool) -> np.ndarray:
    """``turn_kernel.completion_stats`` in numpy: ``fixed`` split into the pending cards and
    the board's rows, completed by :func:`complete`."""
    n = plans.array.shape[1]
    pending, board = fixed[:n].tolist(), fixed[n:].tolist()
    held = [ROW_SIZES[r] - room for r, room in enumerate(plans.room)]
    rows = (board[:held[0]], board[held[0]:held[0] + held[1]], board[held[0] + held[1]:])
    table = complete(plans, rows, pending, future).rows().stats(fl_next_hand)
    return np.array([table.foul, table.royalty, table.strength, table.fantasyland, table.value])


def turn_stats(order: np.ndarray, seen: np.ndarray, fixed: np.ndarray, plans: TurnPlans, tree: PrefixTree,
               fl_next_hand: bool, scales: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``turn_kernel.turn_stats`` in numpy and Python: the draws as :func:`outlook_future`
    takes them (``order``: a noise table's card order), completed by :func:`completion_stats`,
    read by :func:`best_and_outlooks`."""
    in_pool = np.ones(52, dtype=bool)
    in_pool[seen] = False
    future = route_future(order[in_pool[order]].reshape(len(order), -1)[:, :plans.free], 0.5)
    stats = completion_stats(future, fixed, plans, fl_next_hand)
    return (stats, *best_and_outlooks(stats, plans, tree, scales))


class OracleKernel:
    """Stands in for :mod:`envs.ofc_outlook.turn_kernel` (``rollouts.kernel()``): the same entry
    points, computed by this oracle, so a digest can be taken on either path."""

    completion_stats = staticmethod(completion_stats)
    turn_stats = staticmethod(turn_stats)


# ---------------------------------------------------------------- the feature block
def made_hand(cards: Sequence[int], row: int) -> tuple[int, int, int]:
    """(category, leading rank, second rank) of a row so far.

    A complete row is ranked by the evaluator (straights and flushes count); a
    partial row only by its groups of equal rank (a pair, two pair, trips, full
    house, quads), ranks 0 = deuce .. 12 = ace; an empty row is (0, -1, -1).
    """
    return _made_hand(tuple(cards), row)


@lru_cache(maxsize=1 << 12)
def _made_hand(cards: tuple[int, ...], row: int) -> tuple[int, int, int]:
    if len(cards) == ROW_SIZES[row]:
        rank = rank3(cards) if row == 0 else rank5(cards)
        values = rank_values(rank)
        return int(category(rank)), values[0], values[1] if len(values) > 1 else -1
    if not cards:
        return 0, -1, -1
    counts: dict[int, int] = {}
    for c in cards:
        counts[c >> 2] = counts.get(c >> 2, 0) + 1
    groups = sorted(((n, r) for r, n in counts.items()), reverse=True)
    top_n = groups[0][0]
    second_n = groups[1][0] if len(groups) > 1 else 0
    if top_n == 4:
        cat = 7
    elif top_n == 3:
        cat = 6 if second_n >= 2 else 3
    elif top_n == 2:
        cat = 2 if second_n == 2 else 1
    else:
        cat = 0
    return cat, groups[0][1], groups[1][1] if len(groups) > 1 else -1


def hand_value(made: tuple[int, int, int]) -> int:
    """A made hand as one comparable number."""
    cat, first, second = made
    return (cat * 14 + first + 1) * 14 + second + 1


def flush_alive(cards: Sequence[int], row: int, suit_left: Sequence[int]) -> bool:
    if row == 0 or not cards:
        return row != 0
    suit = cards[0] & 3
    return all(c & 3 == suit for c in cards) and ROW_SIZES[row] - len(cards) <= suit_left[suit]


def straight_alive(cards: Sequence[int], row: int) -> bool:
    if row == 0:
        return False
    ranks = {c >> 2 for c in cards}
    if len(ranks) < len(cards):
        return False
    if not ranks:
        return True
    if max(ranks) - min(ranks) <= 4:
        return True
    low = {r if r != 12 else -1 for r in ranks}  # the wheel: ace plays low
    return max(low) - min(low) <= 4


class RowSummary(NamedTuple):
    """What the block reads off one row that depends on the row alone (memoised per row)."""

    head: tuple[float, float, float]   # made hand: category / 9, (first rank + 1) / 13, (second + 1) / 13
    fill: float                        # cards / row size
    straight: float                    # a straight can still be made
    full: bool
    value: int                         # hand_value of the made hand
    ranks: tuple[int, ...]             # the distinct ranks in the row
    room: int                          # free slots
    flush_suit: int                    # the suit every card shares: -1 never a flush (top, mixed), 4 empty


@lru_cache(maxsize=1 << 12)   # the rows of the hands in play: a small cache keeps the garbage collector's walks short
def row_summary(cards: tuple[int, ...], row: int) -> RowSummary:
    suits = {c & 3 for c in cards}
    flush_suit = -1 if row == 0 or len(suits) > 1 else (suits.pop() if suits else 4)
    if len(cards) == ROW_SIZES[row]:   # complete: ranked by the evaluator (straights and flushes count)
        return RowSummary(*_rank_facts(cards, row), flush_suit)
    # partial: everything but the flush is a function of the ranks (far fewer than the rows)
    return RowSummary(*_rank_facts(tuple(sorted(c & ~3 for c in cards)), row), flush_suit)


@lru_cache(maxsize=1 << 14)
def _rank_facts(cards: tuple[int, ...], row: int) -> tuple:
    """The fields of :class:`RowSummary` before ``flush_suit``."""
    made = _made_hand(cards, row)
    return ((made[0] / MAX_CATEGORY, (made[1] + 1) / 13, (made[2] + 1) / 13), len(cards) / ROW_SIZES[row],
            float(straight_alive(cards, row)), len(cards) == ROW_SIZES[row], hand_value(made),
            tuple({c >> 2 for c in cards}), ROW_SIZES[row] - len(cards))


def _flush(summary: RowSummary, suit_left: Sequence[int]) -> float:
    """:func:`flush_alive` from the row's summary."""
    suit = summary.flush_suit
    return float(suit == 4 or (suit >= 0 and summary.room <= suit_left[suit]))


def out_of_order(upper: tuple[int, int, int], upper_full: bool, lower: tuple[int, int, int],
                 lower_full: bool) -> tuple[float, float]:
    """(the upper row beats the lower now, and the lower row can no longer catch up)."""
    now = hand_value(upper) > hand_value(lower)
    return float(now), float(now and lower_full)


@lru_cache(maxsize=256)
def cards_left(seen: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Unseen cards per rank and per suit, given the seen cards (ascending)."""
    rank_left, suit_left = [4] * 13, [13] * 4
    for c in seen:
        rank_left[c >> 2] -= 1
        suit_left[c & 3] -= 1
    return tuple(rank_left), tuple(suit_left)


@lru_cache(maxsize=1 << 10)
def opponent_block(board: tuple[tuple[int, ...], ...]) -> tuple[float, ...]:
    """An opponent's part of the block: fill and made hand per row, rows out of order."""
    rows = [row_summary(board[r], r) for r in range(3)]
    out: list[float] = []
    for s in rows:
        out += (s.fill, s.head[0], s.head[1])
    return (*out, float(rows[0].value > rows[1].value), float(rows[1].value > rows[2].value))


def features(view: OFCView) -> np.ndarray:
    """The feature block of ``view`` (float32, every entry in [0, 1]). Row facts come
    from :func:`row_summary` (memoised); the numbers are those of :func:`flush_alive`,
    :func:`straight_alive`, :func:`made_hand` and :func:`out_of_order`."""
    p, n = view.player, view.num_players
    seen = tuple(sorted(view.seen_cards()))
    rank_left, suit_left = cards_left(seen)
    rows = view.rows[p]
    own = [row_summary(rows[r], r) for r in range(3)]
    out: list[float] = []
    for s in own:
        out += (s.fill, *s.head, _flush(s, suit_left), s.straight,
                sum(rank_left[r] for r in s.ranks) / 15,  # at most 5 ranks x 3 unseen copies
                float(s.full))
    for upper, lower in ((own[0], own[1]), (own[1], own[2])):
        now = upper.value > lower.value
        out += (float(now), float(now and lower.full))
    nxt = view.pending[0] if view.pending else None
    for r in range(3):
        if nxt is None or own[r].full:
            out += (0.0,) * NEXT_ROW
            continue
        after = row_summary((*rows[r], nxt), r)
        bad = (r > 0 and own[r - 1].value > after.value) or (r < 2 and after.value > own[r + 1].value)
        out += (1.0, after.head[0], after.head[1], sum(1 for c in rows[r] if c >> 2 == nxt >> 2) / 3,
                _flush(after, suit_left), after.straight, float(bad))
    free = sum(ROW_SIZES) - sum(len(row) for row in rows)
    if nxt is None:
        out += (0.0, 0.0, free / 13)
    else:
        out += (((nxt >> 2) + 1) / 13, rank_left[nxt >> 2] / 3, free / 13)
    for k in range(1, n):
        q = (p + k) % n
        out += opponent_block(view.rows[q] if not view.hidden[q] else ((), (), ()))
    out += outlook(view, seen)
    return np.asarray(out, dtype=np.float32)
