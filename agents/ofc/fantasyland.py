"""The exact Fantasyland solver for OFC (docs/rules.md §1.6-§1.9): the best board of a Fantasyland hand.

A Fantasyland player holds all 13..17 cards of his hand at once. :func:`solve`
picks the 13 cards and their split into top (3), middle (5) and bottom (5) that
maximise

    royalties(top, middle, bottom) + stay_value * [the board stays in Fantasyland]

over the boards that do not foul (staying follows ``fl_stay`` exactly as
``envs.ofc.scoring.fl_stays`` decides it). A clean board always exists when no
card is placed yet: the strongest 5 cards as the bottom, the strongest 5 of the
rest as the middle and any 3 left as the top never foul, since a 5-card hand
holding the top's 3 cards is at least as strong as that top. Only a board with
cards already fixed (:func:`solve`'s ``placed``) can be forced to foul; then
every completion scores the same (no royalties, all rows lost, no stay) and the
strongest rows, bottom first, are returned.

Tie-break, among boards of equal value: the stronger bottom, then the stronger
middle, then the stronger top (hand ranks, so kickers count): rows that win
more often at the showdown, the bottom first because its strength costs the
rows above nothing (they only have to stay below it).

Search (exact; the speed comes from the bounds, not from sampling):

1. Rank every 5-card subset of the hand once (``rank5_batch``) and every
   3-card subset (``rank3_batch``); subsets are numbered in colex order so the
   index of any subset is a sum of binomials.
2. Bound each bottom: its royalty + the best middle royalty the cards left
   could make in a category not above the bottom's (trips, straight, flush,
   full house, quads, straight flush read off the four 13-bit suit masks of
   the cards left) + the best top royalty the rest holds, capped by what may sit below
   the bottom + the stay value if some row could still stay.
3. Visit the bottoms by bound (then strength), and stop once no bound can beat
   the best board found, tie-break included.
4. Per bottom, bound every middle (vectorized over the <= 792 middles of the
   rest) the same way, then solve the top exactly for the promising middles in
   growing chunks (<= 35 tops each, vectorized).

Figures: ``docs/benchmarks_fantasyland.md``
(``python -m parlor.agents.ofc.fantasyland_bench``).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache
from itertools import combinations, combinations_with_replacement
from numbers import Real
from typing import NamedTuple

import numpy as np

from parlor.envs.engine.hands import CATEGORY_SHIFT, Category, rank3, rank3_batch, rank5_batch
from parlor.envs.ofc.scoring import BOARD_SIZE, FL_STAY_OPTIONS, evaluate_board, fl_stays, top_royalty
from parlor.envs.ofc.view import OFCView
from parlor.envs.ofc_outlook.rollouts import BOT_ROYALTY, MID_ROYALTY, ROYAL, row_royalty

# What a Fantasyland hand is worth, in points, over a regular hand, measured in 6-hand
# heads-up Pineapple matches of the heuristic (docs/experiments/ofc_multihand.md): a
# Fantasyland hand scored 14.66 points more than a regular one and stayed 15.5 points of
# a hundred more often than a regular hand entered, so entering is worth
# 14.66 / (1 - 0.155) = 17.3 points. The solver's value of staying, for every OFC agent,
# and the heuristic planner's bonus for entering (OFCHeuristic.fl_bonus). The rollouts'
# FL_BONUS, 9, stays the feature block's constant: the trained policies read it.
FANTASYLAND_VALUE = 17.0
DEFAULT_STAY_VALUE = FANTASYLAND_VALUE
# a Fantasyland deal: 13 (what a crowded table's deck can spare) .. 17 (progressive, trips on top)
MIN_CARDS, MAX_CARDS = BOARD_SIZE, 17
_TIE_SHIFT = 24   # ranks are < 2**24: middle << 24 | top orders boards of one bottom


class FantasylandBoard(NamedTuple):
    """A solved Fantasyland board (card ids) and what it earns."""

    top: tuple[int, ...]
    middle: tuple[int, ...]
    bottom: tuple[int, ...]
    discards: tuple[int, ...]
    royalty: int      # royalties of the board (0 when fouled)
    stays: bool       # earns another Fantasyland hand under the fl_stay rule
    fouled: bool      # only when the placed cards leave no clean board
    value: float      # royalty + stay_value * stays

    def destination(self, card: int) -> int:
        """The action that sends ``card`` where this board has it (0 top .. 3 discard)."""
        for action, row in enumerate((self.top, self.middle, self.bottom, self.discards)):
            if card in row:
                return action
        raise ValueError(f"card {card} is not in this Fantasyland board")


# ---------------------------------------------------------------- tables per hand size
def _straight_masks() -> np.ndarray:
    """For every 13-bit set of ranks: does it hold 5 ranks in a row (A-2-3-4-5 included)."""
    windows = [0b11111 << low for low in range(9)] + [0b1_0000_0000_1111]
    masks = np.arange(1 << 13)
    return np.logical_or.reduce([(masks & w) == w for w in windows])


STRAIGHT = _straight_masks()
POPCOUNT = np.array([bin(m).count("1") for m in range(1 << 13)], dtype=np.int8)
ROYAL_BITS = 0b1_1111_0000_0000   # T J Q K A


def _by_highest_rank(royalty_of_rank) -> np.ndarray:
    """A table over 13-bit sets of ranks: the royalty of the set's highest rank (0 for none)."""
    by_rank = [royalty_of_rank(r) for r in range(13)]
    return np.array([0] + [by_rank[m.bit_length() - 1] for m in range(1, 1 << 13)], dtype=np.int64)


# the top royalty of the best pair (any kicker) / trips among a set of ranks, by scoring's own rule
PAIR_ROYALTY = _by_highest_rank(lambda r: top_royalty(rank3([4 * r, 4 * r + 1, 4 * ((r + 1) % 13)])))
TRIPS_ROYALTY = _by_highest_rank(lambda r: top_royalty(rank3([4 * r, 4 * r + 1, 4 * r + 2])))


def _top_ranks() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every top-row rank value ascending, its royalty, and the best royalty at or below it."""
    values = sorted({rank3([4 * a, 4 * b + 1, 4 * c + 2]) for a, b, c in combinations_with_replacement(range(13), 3)})
    royalty = np.array([top_royalty(v) for v in values], dtype=np.int64)
    return np.array(values, dtype=np.int64), royalty, np.maximum.accumulate(royalty)


TOP_VALUES, TOP_ROYALTY, TOP_CAP = _top_ranks()


def _colex(n: int, k: int) -> np.ndarray:
    """All k-subsets of range(n) as ascending rows, row i being the subset of colex index i."""
    out = np.empty((math.comb(n, k), k), dtype=np.int64)
    for c in combinations(range(n), k):
        out[sum(math.comb(p, i + 1) for i, p in enumerate(c))] = c
    return out


class _Tables(NamedTuple):
    c5: np.ndarray       # (C(n,5), 5) hand positions of each 5-subset (colex order)
    c3: np.ndarray       # (C(n,3), 3)
    bits5: np.ndarray    # bitmask of each 5-subset's positions
    bits3: np.ndarray
    binom: np.ndarray    # binom[k, p] = C(p, k): colex index = sum over ascending positions
    rest: np.ndarray     # (C(n,5), n-5) positions outside each 5-subset, ascending
    mids: np.ndarray     # (C(n,5), C(n-5,5)) colex index of every 5-subset of that rest
    tops: np.ndarray     # (C(n-5,5), C(n-10,3), 3) positions within the rest of the tops each middle leaves


@cache
def tables(n: int) -> _Tables:
    """The index tables of an ``n``-card hand (built once per size: about 0.3 s for 17 cards)."""
    c5, c3 = _colex(n, 5), _colex(n, 3)
    binom = np.array([[math.comb(p, k) for p in range(n + 1)] for k in range(6)], dtype=np.int64)
    weights = 1 << np.arange(n, dtype=np.int64)
    rest = np.array([[p for p in range(n) if p not in row] for row in c5.tolist()], dtype=np.int64)
    local = np.array(list(combinations(range(n - 5), 5)), dtype=np.int64)
    mids = sum(binom[i + 1][rest[:, local[:, i]]] for i in range(5)).astype(np.int32)
    tops = np.array([list(combinations([p for p in range(n - 5) if p not in row], 3)) for row in local.tolist()],
                    dtype=np.int64).reshape(len(local), math.comb(n - 10, 3), 3)
    return _Tables(c5, c3, weights[c5].sum(1), weights[c3].sum(1), binom, rest, mids, tops)


# ---------------------------------------------------------------- the solver
class _Hand:
    """Per-hand arrays over all 5- and 3-subsets: ranks, royalties, stay flags, bounds."""

    def __init__(self, cards: np.ndarray, fl_stay: str, stay_value: float, fixed: tuple[int, int, int, int],
                 prune: bool = True):
        t = self.t = tables(len(cards))
        self.stay_value, self.prune = stay_value, prune
        self.visited = 0   # bottoms the search looked under
        r5 = self.r5 = rank5_batch(cards[t.c5]).astype(np.int64)
        cat5 = r5 >> CATEGORY_SHIFT
        self.rb = row_royalty(r5, BOT_ROYALTY, 25).astype(np.int64)
        self.rm = row_royalty(r5, MID_ROYALTY, 50).astype(np.int64)
        self.top_cap5 = TOP_CAP[np.searchsorted(TOP_VALUES, r5, side="right") - 1]
        r3 = self.r3 = rank3_batch(cards[t.c3]).astype(np.int64)
        self.rt = TOP_ROYALTY[np.searchsorted(TOP_VALUES, r3)]
        top_rule, mid_rule = stay_value > 0 and fl_stay != "none", stay_value > 0 and fl_stay == "trips_fh_quads"
        self.st_b = (cat5 >= Category.QUADS) & top_rule            # both rules stay on quads at the bottom
        self.st_m = (cat5 >= Category.FULL_HOUSE) & mid_rule
        self.st_t = ((r3 >> CATEGORY_SHIFT) == Category.TRIPS) & top_rule
        self.trips_up = cat5 >= Category.TRIPS
        ft, fm, fb, fd = fixed
        self.ok_b = ((t.bits5 & fb) == fb) & ((t.bits5 & (ft | fm | fd)) == 0)
        self.ok_m = ((t.bits5 & fm) == fm) & ((t.bits5 & (ft | fb | fd)) == 0)
        self.ok_t = ((t.bits3 & ft) == ft) & ((t.bits3 & (fm | fb | fd)) == 0)
        self._bottom_bounds(cards, top_rule, mid_rule)

    def _bottom_bounds(self, cards: np.ndarray, top_rule: bool, mid_rule: bool) -> None:
        """Per bottom: an upper bound of the middle's and top's royalties and of staying,
        from the ranks each suit still holds in the cards it leaves (13-bit masks)."""
        t, cat5 = self.t, self.r5 >> CATEGORY_SHIFT
        card_bit = 1 << ((cards & 3) * 13 + (cards >> 2))               # suit-major 52-bit masks
        rest = int(card_bit.sum()) - card_bit[t.c5].sum(1)
        a, b, c, d = ((rest >> (13 * suit)) & 0x1FFF for suit in range(4))
        pairs = (a & b) | (a & c) | (a & d) | (b & c) | (b & d) | (c & d)   # ranks held twice or more
        trips_mask = (a & b & (c | d)) | (c & d & (a | b))
        trips, quads = trips_mask != 0, (a & b & c & d) != 0
        full = trips & (POPCOUNT[pairs] >= 2)
        sflush = STRAIGHT[a] | STRAIGHT[b] | STRAIGHT[c] | STRAIGHT[d]
        flush = (POPCOUNT[a] >= 5) | (POPCOUNT[b] >= 5) | (POPCOUNT[c] >= 5) | (POPCOUNT[d] >= 5)
        feasible = {Category.TRIPS: trips, Category.STRAIGHT: STRAIGHT[a | b | c | d], Category.FLUSH: flush,
                    Category.FULL_HOUSE: full, Category.QUADS: quads, Category.STRAIGHT_FLUSH: sflush}
        mid = np.zeros(len(cat5), dtype=np.int64)
        for cat, possible in feasible.items():  # middle royalties grow with the category
            mid = np.where(possible & (cat5 >= cat), MID_ROYALTY[cat], mid)
        royal = (((a & ROYAL_BITS) == ROYAL_BITS) | ((b & ROYAL_BITS) == ROYAL_BITS) | ((c & ROYAL_BITS) == ROYAL_BITS)
                 | ((d & ROYAL_BITS) == ROYAL_BITS))
        mid = np.where(royal & (self.r5 == ROYAL), 50, mid)
        self.top_rest = np.maximum(PAIR_ROYALTY[pairs], TRIPS_ROYALTY[trips_mask])
        self.trips_rest = trips & top_rule
        stay = self.st_b | (mid_rule & (full | quads | sflush) & (cat5 >= Category.FULL_HOUSE))
        stay |= self.trips_rest & self.trips_up
        self.bound = self.rb + mid + np.minimum(self.top_rest, self.top_cap5) + self.stay_value * stay
        if not self.prune:
            self.bound = np.full(len(cat5), np.inf)

    def solve(self) -> tuple[float, tuple[int, int, int]] | None:
        """(value, (bottom, middle, top) subset indices) of the best clean board, None if none."""
        best: tuple | None = None   # (value, bottom rank, middle << 24 | top rank), (b, m, t)
        order = np.lexsort((-self.r5, -self.bound))
        order = order[self.ok_b[order]]
        for b in order.tolist():
            if best is not None and (self.bound[b], self.r5[b]) < best[0][:2]:
                break
            self.visited += 1
            best = self._best_under(b, best)
        return None if best is None else (best[0][0], best[1])

    def _best_under(self, b: int, best: tuple | None) -> tuple | None:
        """The best board with bottom ``b`` if it beats ``best`` (tie-break included), else ``best``."""
        t, s = self.t, self.stay_value
        mids = t.mids[b]
        rank_m = self.r5[mids]
        local = np.flatnonzero((rank_m <= self.r5[b]) & self.ok_m[mids])
        if not local.size:
            return best
        m = mids[local]
        stay_mb = self.st_b[b] | self.st_m[m]
        top_stay = self.trips_rest[b] & self.trips_up[m]   # trips on top need a middle of trips or better
        bound = (self.rb[b] + self.rm[m] + np.minimum(self.top_rest[b], self.top_cap5[m])) + s * (stay_mb | top_stay)
        if not self.prune:
            bound = np.full(len(m), np.inf)
        order = np.lexsort((-rank_m[local], -bound))
        local, m, bound, stay_mb = local[order], m[order], bound[order], stay_mb[order]
        rest = t.rest[b]
        start, chunk = 0, 4 if self.prune else len(local)
        while start < len(local):
            if best is not None:  # the middles that could still beat the best board
                key = best[0]
                rb = self.r5[b]
                alive = (bound[start:] > key[0]) | ((bound[start:] == key[0]) & (
                    (rb > key[1]) | ((rb == key[1]) & (self.r5[m[start:]] >= key[2] >> _TIE_SHIFT))))
                if not alive[0]:
                    alive_at = np.flatnonzero(alive)
                    if not alive_at.size:
                        break
                    start += int(alive_at[0])
            end = min(start + chunk, len(local))
            best = self._exact_tops(b, local[start:end], m[start:end], stay_mb[start:end], rest, best)
            start, chunk = end, chunk * 4
        return best

    def _exact_tops(self, b: int, local: np.ndarray, m: np.ndarray, stay_mb: np.ndarray, rest: np.ndarray,
                    best: tuple | None) -> tuple | None:
        """Solve the top exactly for bottom ``b`` and the middles ``m`` (positions ``local`` in its rest)."""
        t, s = self.t, self.stay_value
        pos = rest[t.tops[local]]                                   # (middles, tops, 3) hand positions
        idx = t.binom[1][pos[..., 0]] + t.binom[2][pos[..., 1]] + t.binom[3][pos[..., 2]]
        r3 = self.r3[idx]
        rank_m = self.r5[m]
        clean = (r3 <= rank_m[:, None]) & self.ok_t[idx]
        if not clean.any():
            return best
        royalty = self.rb[b] + self.rm[m][:, None] + self.rt[idx]
        value = np.where(clean, royalty + s * (stay_mb[:, None] | self.st_t[idx]), -np.inf)
        top_value = value.max()
        tie = np.where(value == top_value, rank_m[:, None] << _TIE_SHIFT | r3, -1)
        i, j = np.unravel_index(int(tie.argmax()), tie.shape)
        key = (float(top_value), int(self.r5[b]), int(tie[i, j]))
        if best is None or key > best[0]:
            return key, (b, int(m[i]), int(idx[i, j]))
        return best

    def strongest_fouled(self) -> tuple[int, int, int]:
        """The placed cards force a foul: the strongest allowed rows, bottom first (all fouls score alike)."""
        t = self.t
        b = int(np.flatnonzero(self.ok_b)[np.argmax(self.r5[self.ok_b])])
        mids = t.mids[b][self.ok_m[t.mids[b]]]
        m = int(mids[np.argmax(self.r5[mids])])
        free = np.flatnonzero((t.bits3 & (t.bits5[b] | t.bits5[m])) == 0)
        tops = free[self.ok_t[free]]
        return b, m, int(tops[np.argmax(self.r3[tops])])


# ---------------------------------------------------------------- the API
def solve(cards: Sequence[int], fl_stay: str = "trips_fh_quads", stay_value: float = DEFAULT_STAY_VALUE,
          placed: Sequence[Sequence[int]] = ((), (), ()), discarded: Sequence[int] = (), *,
          prune: bool = True) -> FantasylandBoard:
    """The best board of a Fantasyland hand (see the module docstring for the objective and tie-break).

    ``cards`` are the cards still to place; ``placed`` (top, middle, bottom) and
    ``discarded`` are this hand's cards already sent somewhere, which the board
    keeps there. Together they are the 13..17 cards of the hand. ``stay_value``
    (points, >= 0) is what another Fantasyland hand is worth: pass 0 in an
    episode's last hand, where staying earns nothing. ``prune=False`` switches the
    bounds off and visits every board: the same answer, slowly (to check the bounds)."""
    hand, solver, found = _search(cards, fl_stay, stay_value, placed, discarded, prune)
    t = solver.t
    b, m, top = solver.strongest_fouled() if found is None else found[1]
    top_row, middle_row, bottom_row = (tuple(hand[i] for i in subset) for subset in (t.c3[top], t.c5[m], t.c5[b]))
    used = set(top_row + middle_row + bottom_row)
    result = evaluate_board(top_row, middle_row, bottom_row)   # what the showdown will say of it
    stays = fl_stays(result, fl_stay)
    return FantasylandBoard(top_row, middle_row, bottom_row, discards=tuple(c for c in hand if c not in used), royalty=result.royalty,
                            stays=stays, fouled=result.fouled, value=float(result.royalty + stay_value * stays))


def bottoms_visited(cards: Sequence[int], fl_stay: str = "trips_fh_quads",
                    stay_value: float = DEFAULT_STAY_VALUE) -> tuple[int, int]:
    """How much searching a hand takes: (bottoms the search looked under, 5-card subsets of the hand)."""
    _, solver, _ = _search(cards, fl_stay, stay_value, ((), (), ()), (), True)
    return solver.visited, len(solver.r5)


def _search(cards: Sequence[int], fl_stay: str, stay_value: float, placed: Sequence[Sequence[int]],
            discarded: Sequence[int], prune: bool) -> tuple[list[int], _Hand, tuple | None]:
    """The hand ascending, its searched arrays, and :meth:`_Hand.solve`'s answer."""
    rows = tuple(tuple(row) for row in placed)
    hand = _check_hand(cards, rows, discarded, fl_stay, stay_value)
    position = {c: i for i, c in enumerate(hand)}

    def bits(group: Sequence[int]) -> int:  # the group's cards as bits of their hand positions
        return sum(1 << position[c] for c in group)

    top, middle, bottom = rows  # _check_hand made sure there are 3
    fixed = (bits(top), bits(middle), bits(bottom), bits(discarded))
    solver = _Hand(np.array(hand, dtype=np.int64), fl_stay, float(stay_value), fixed, prune)
    return hand, solver, solver.solve()


def _check_hand(cards: Sequence[int], placed: tuple[tuple[int, ...], ...], discarded: Sequence[int],
                fl_stay: str, stay_value: float) -> list[int]:
    """The hand's cards ascending (the search's positions), after checking every argument."""
    if fl_stay not in FL_STAY_OPTIONS:
        raise ValueError(f"fl_stay={fl_stay!r} is not allowed; allowed values: {', '.join(FL_STAY_OPTIONS)}")
    if isinstance(stay_value, bool) or not (isinstance(stay_value, Real) and math.isfinite(stay_value)
                                            and stay_value >= 0):
        raise ValueError(f"stay_value must be a finite number >= 0 (points), got {stay_value!r}")
    if len(placed) != 3:
        raise ValueError(f"placed must hold 3 rows (top, middle, bottom), got {len(placed)}")
    for name, row, size in zip(("top", "middle", "bottom"), placed, (3, 5, 5)):
        if len(row) > size:
            raise ValueError(f"placed {name} row holds {len(row)} cards; it takes at most {size}")
    hand = [*cards, *(c for row in placed for c in row), *discarded]
    if not all(isinstance(c, (int, np.integer)) and 0 <= c < 52 for c in hand):
        raise ValueError(f"card ids must be integers in 0..51, got {hand!r}")
    if len(set(hand)) != len(hand):
        raise ValueError(f"a card appears twice in the Fantasyland hand {sorted(hand)!r}")
    if not MIN_CARDS <= len(hand) <= MAX_CARDS:
        raise ValueError(f"a Fantasyland hand has {MIN_CARDS}..{MAX_CARDS} cards, got {len(hand)}")
    if len(discarded) > len(hand) - BOARD_SIZE:
        raise ValueError(f"{len(discarded)} cards discarded, but a {len(hand)}-card hand discards "
                         f"{len(hand) - BOARD_SIZE}")
    return sorted(int(c) for c in hand)


# ---------------------------------------------------------------- the agents' adapter
class FantasylandPlayer:
    """Plays a seat's Fantasyland hand card by card by the solved board: every OFC
    agent hands its Fantasyland decisions (:meth:`plays`) to one of these.

    The board is solved once per hand and cached; should the seat's cards already
    placed differ from it (another player placed them, e.g. a search's rollout
    starting mid-hand), it is solved again around them. Staying is worth
    ``stay_value`` points, or nothing in the episode's last hand."""

    def __init__(self, fl_stay: str = "trips_fh_quads", stay_value: float = DEFAULT_STAY_VALUE):
        _check_hand(range(MIN_CARDS), ((), (), ()), (), fl_stay, stay_value)
        self.fl_stay, self.stay_value = fl_stay, stay_value
        self._cached: tuple[tuple, FantasylandBoard] | None = None

    @classmethod
    def for_game(cls, game, stay_value: float = DEFAULT_STAY_VALUE) -> FantasylandPlayer:
        """A player for ``game``'s (an OFCGame's) staying rule."""
        return cls(game.config.fl_stay, stay_value)

    @staticmethod
    def plays(view: OFCView) -> bool:
        """Whether ``view`` is a decision of a Fantasyland hand (the seat's turn, in Fantasyland)."""
        return bool(view.pending) and view.fantasyland[view.player]

    def board(self, view: OFCView) -> FantasylandBoard:
        """The board this seat's Fantasyland hand is heading for (solved or cached)."""
        if not self.plays(view):
            raise ValueError("FantasylandPlayer decides only a seat's own Fantasyland turn "
                             "(view.pending non-empty and view.fantasyland[view.player])")
        placed = view.own_rows
        key = (view.hand_index, view.num_hands, frozenset((*view.pending, *view.discards, *sum(placed, ()))))
        if self._cached is not None and self._cached[0] == key:
            board = self._cached[1]
            planned = (board.top, board.middle, board.bottom)
            if all(set(row) <= set(plan) for row, plan in zip(placed, planned)) and set(view.discards) <= set(
                    board.discards):
                return board
        stay = self.stay_value if view.hand_index + 1 < view.num_hands else 0.0
        board = solve(view.pending, self.fl_stay, stay, placed, view.discards)
        self._cached = (key, board)
        return board

    def action(self, view: OFCView) -> int:
        """Where the next pending card goes: 0 top, 1 middle, 2 bottom, 3 discard."""
        return self.board(view).destination(view.pending[0])
