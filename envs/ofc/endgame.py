"""Endgame foul probabilities of a Pineapple OFC board, exact or nearly so.

A regular Pineapple turn deals three cards, places two and discards one. Once a
board has at most four free slots, how likely it is to foul under the most
careful play that follows can be computed instead of guessed:

- 0 free slots: the board fouls or not;
- 2 free slots (:func:`foul_after_two`): the last turn deals 3 of the unseen
  cards and the seat keeps the 2 that avoid a foul if any pair does. With
  ``F[i, j]`` "the board fouls with card i in the first slot and j in the second",
  a deal {i, j, k} fouls when every ordered pair of it does, i.e. when i, j, k
  form a triangle of the graph ``G = F & F.T``: the probability is the triangle
  count ``trace(G^3) / 6`` over ``C(n, 3)``. Exact.
- 4 free slots (:func:`foul_after_four`): the next turn's three cards are drawn
  ``samples`` times from the unseen cards (the same draws for every board of
  the turn: common random numbers), the seat places the two that leave the
  smallest exact :func:`foul_after_two`, the average is the estimate.

The unseen cards are the seat's own (``OFCView.unseen_cards``): cards another
seat holds face down count as possible draws, as they must for a seat that
cannot see them.

:func:`action_risks` gives, per action of the next pending card, the lowest of
these probabilities over the turn's plans that start with it (None while the
turn leaves more than four free slots): what ``OFCGame.guarded_mask``'s
``endgame_foul`` guard reads. The strongest-first rollouts of
:mod:`envs.ofc.rollouts` route the future cards by a fixed rule and overstate
the risk a careful seat runs (see the README); this module lets the seat
choose.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from envs.engine.hands import rank3, rank5, rank5_batch
from envs.ofc.rollouts import BOTTOM, MIDDLE, ROW_SIZES, TOP, TOP_RANK, _place, assignments, turn_candidates
from envs.ofc.scoring import evaluate_board
from envs.ofc.view import OFCView

ENDGAME_SAMPLES = 32   # draws of the next turn's cards behind a 4-free-slot estimate
MAX_FREE = 4           # boards with more free slots are not judged

Rows = Sequence[Sequence[int]]
RankCache = dict  # (row, cards of the row) -> its rank, or the ranks completed by each unseen card(s)


def free_slots(rows: Rows) -> list[int]:
    """The row of every free slot, top first."""
    return [r for r in (TOP, MIDDLE, BOTTOM) for _ in range(ROW_SIZES[r] - len(rows[r]))]


def row_ranks(row: Sequence[int], fills: np.ndarray) -> np.ndarray:
    """Rank of ``row`` completed by each line of ``fills`` [N, k] (3 cards: top-row rank)."""
    cards = np.concatenate([np.broadcast_to(np.asarray(row, dtype=np.int64), (len(fills), len(row))), fills], axis=1)
    if cards.shape[1] == 3:
        t = np.sort(cards >> 2, axis=1)
        return TOP_RANK[t[:, 0], t[:, 1], t[:, 2]]
    return rank5_batch(cards).astype(np.int64)


def _row_rank_table(rows: Rows, row: int, unseen: np.ndarray, cache: RankCache):
    """The row's rank if full, else its rank completed by each unseen card ([n]) or
    each pair of unseen cards ([n, n], symmetric); cached per row content."""
    key = (row, tuple(rows[row]))
    table = cache.get(key)
    if table is None:
        free = ROW_SIZES[row] - len(rows[row])
        n = len(unseen)
        if free == 0:
            table = rank3(rows[row]) if row == TOP else rank5(rows[row])
        elif free == 1:
            table = row_ranks(rows[row], unseen[:, None])
        else:
            i, j = np.triu_indices(n, 1)
            table = np.zeros((n, n), dtype=np.int64)
            table[i, j] = table[j, i] = row_ranks(rows[row], np.stack([unseen[i], unseen[j]], axis=1))
        cache[key] = table
    return table


def foul_after_two(rows: Rows, unseen: np.ndarray, cache: RankCache | None = None) -> float:
    """Exact foul probability of a board with two free slots when the last turn deals
    three of ``unseen`` (ascending int array) and the seat places the best two.
    ``cache`` may carry row ranks between boards judged against the same ``unseen``."""
    slots = free_slots(rows)
    if len(slots) != 2:
        raise ValueError(f"foul_after_two needs a board with 2 free slots, got {len(slots)}")
    n = len(unseen)
    if n < 3:
        raise ValueError(f"foul_after_two needs at least 3 unseen cards, got {n}")
    cache = {} if cache is None else cache
    ranks = [_row_rank_table(rows, r, unseen, cache) for r in (TOP, MIDDLE, BOTTOM)]
    if slots[0] != slots[1]:
        first, second = slots
        ranks[first] = ranks[first][:, None]
        ranks[second] = ranks[second][None, :]
        fouled = np.broadcast_to((ranks[TOP] > ranks[MIDDLE]) | (ranks[MIDDLE] > ranks[BOTTOM]), (n, n))
        both_ways = fouled & fouled.T
    else:
        both_ways = np.broadcast_to((ranks[TOP] > ranks[MIDDLE]) | (ranks[MIDDLE] > ranks[BOTTOM]), (n, n))
    g = both_ways.astype(np.float64)
    np.fill_diagonal(g, 0.0)
    triangles = float(((g @ g) * g).sum()) / 6.0
    return triangles / (n * (n - 1) * (n - 2) / 6.0)


def next_turn_draws(n: int, key: int, samples: int = ENDGAME_SAMPLES) -> np.ndarray:
    """``samples`` draws of 3 distinct indices into ``n`` unseen cards, fixed by ``key``."""
    rng = np.random.default_rng(key)
    return np.argsort(rng.random((samples, n)), axis=1)[:, :3]


def foul_after_four(rows: Rows, unseen: np.ndarray, draws: np.ndarray,
                    caches: list[RankCache] | None = None) -> float:
    """Foul probability of a board with four free slots: over ``draws`` ([S, 3] indices
    into ``unseen``) of the next turn's cards, the mean of the best placement's
    :func:`foul_after_two`. ``caches`` (one per draw) may be shared by boards judged
    against the same ``unseen`` and ``draws``."""
    room = [ROW_SIZES[r] - len(rows[r]) for r in range(3)]
    if sum(room) != 4:
        raise ValueError(f"foul_after_four needs a board with 4 free slots, got {sum(room)}")
    caches = [{} for _ in draws] if caches is None else caches
    total = 0.0
    for draw, cache in zip(draws, caches):
        cards = [int(c) for c in unseen[draw]]
        rest = np.delete(unseen, draw)
        best = 1.0
        for dest in assignments(cards, room, 1):
            best = min(best, foul_after_two(_place(rows, cards, dest), rest, cache))
            if best == 0.0:
                break
        total += best
    return total / len(draws)


class EndgameJudge:
    """Foul probabilities of the boards a turn can leave, memoised for the turn (its
    cards share the unseen set and the draws; a new unseen set starts afresh)."""

    def __init__(self, samples: int = ENDGAME_SAMPLES):
        self.samples = samples
        self._turn: tuple | None = None          # (key, unseen) of the turn being judged
        self._memo: dict[tuple, float] = {}      # board -> foul probability, this turn
        self._unseen = np.empty(0, dtype=np.int64)
        self._ranks: RankCache = {}              # row ranks against the unseen cards
        self._draws = np.empty((0, 3), dtype=np.int64)
        self._draw_ranks: list[RankCache] = []   # row ranks against the unseen cards left by each draw

    def risk(self, rows: Rows, unseen: Sequence[int], key: int) -> float | None:
        """The board's foul probability (None with more than four free slots)."""
        turn = (key, tuple(unseen))
        if turn != self._turn:
            self._turn, self._memo, self._ranks = turn, {}, {}
            self._unseen = np.asarray(unseen, dtype=np.int64)
            self._draws = next_turn_draws(len(self._unseen), key, self.samples)
            self._draw_ranks = [{} for _ in self._draws]
        board = tuple(tuple(sorted(r)) for r in rows)
        if board not in self._memo:
            free = len(free_slots(rows))
            if free == 0:
                self._memo[board] = float(evaluate_board(*rows).fouled)
            elif free == 2:
                self._memo[board] = foul_after_two(rows, self._unseen, self._ranks)
            elif free == 4:
                self._memo[board] = foul_after_four(rows, self._unseen, self._draws, self._draw_ranks)
            else:
                return None
        return self._memo[board]


def action_risks(view: OFCView, key: int, judge: EndgameJudge | None = None) -> dict[int, float] | None:
    """Per action of the next pending card, the lowest foul probability over the turn's
    plans starting with it; None unless the turn leaves at most ``MAX_FREE`` free slots
    (or in a Fantasyland turn). ``key`` fixes the draws (constant over one turn, e.g.
    :func:`envs.ofc.features.turn_key`)."""
    if not view.pending or view.fantasyland[view.player]:
        return None
    board = view.own_rows
    left = sum(ROW_SIZES) - sum(len(r) for r in board) - (len(view.pending) - view.discards_owed)
    if left > MAX_FREE:
        return None
    judge = judge or EndgameJudge()
    unseen = view.unseen_cards()
    risks: dict[int, float] = {}
    for dest in turn_candidates(view):
        p = judge.risk(_place(board, view.pending, dest), unseen, key)
        risks[dest[0]] = min(risks.get(dest[0], 1.0), p)
    return risks

