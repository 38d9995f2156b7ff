"""The placements of a drawn turn's three cards on a board with four free slots, every
draw's and every placement's board judged in one batch.

:func:`agents.ofc.endgame.foul_after_four` asks, for each of a few draws of the next
turn's cards, the exact two-slot foul probability of every placement of the draw
(:func:`agents.ofc.endgame.foul_after_two`). Judged one board or one draw at a time,
the cost is the overhead of a dozen small array operations per call; here the
boards of all the draws are judged at once. Where no free row can make a flush (all
but a few in forty boards), over the card ranks (:mod:`agents.ofc.rank_classes`):
each row a 13x13 grid of ranks in a pool, picked by id, every (draw, plan) board's
grids gathered and counted in one call of a compiled kernel
(:mod:`agents.ofc.count_kernel`); else over the unseen cards (:mod:`agents.ofc.two_slots`), the
boards of one shape of free slots together. Either way the numbers are the exact
counts, the same whatever boards share a batch.
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np

from parlor.agents.ofc.rank_classes import (
    ROW_KEY_ARRAY,
    SUITED,
    cached_counts,
    grid_pool,
    kernel_fits,
    layout_rank_risks,
    row_key,
)
from parlor.agents.ofc.two_slots import RankCache, layout_risks, row_table
from parlor.envs.ofc_outlook.rollouts import assignments

DRAWN = "drawn"   # key of _drawn's numbers in the first draw's RankCache


class DrawLayout:
    """The placements of a drawn turn's three cards on a board with ``room`` (four free
    slots): ``plans`` (:func:`assignments` order), the distinct (row, card positions)
    ``parts`` they fill, the plans grouped by the free slots they leave (for
    :func:`layout_risks`), and which grid form (:class:`agents.ofc.rank_classes.GridPool`)
    of which part each plan reads per row."""

    def __init__(self, room: tuple[int, int, int]):
        self.room = room
        self.plans = tuple(tuple(d) for d in assignments([0, 1, 2], list(room), 1))
        parts: dict[tuple[int, tuple[int, ...]], int] = {}
        groups: dict[tuple[int, int, int], tuple[list[int], list[tuple[int, int, int]]]] = {}
        forms: dict[tuple[int, int], int] = {}   # (part, form) -> its place among a draw's grids
        picks: list[list[int]] = [[], [], []]    # per row, per plan: the grid it reads
        for i, dest in enumerate(self.plans):
            ids = (_part_id(parts, 0, dest), _part_id(parts, 1, dest), _part_id(parts, 2, dest))  # row order
            left = (room[0] - dest.count(0), room[1] - dest.count(1), room[2] - dest.count(2))
            members, plan_parts = groups.setdefault(left, ([], []))
            members.append(i)
            plan_parts.append(ids)
            first = min(r for r in range(3) if left[r])
            for r, k in enumerate(ids):   # a row with one free slot is the grid's first or second card
                form = 1 if left[r] == 1 and r != first else 0
                picks[r].append(forms.setdefault((k, form), len(forms)))
        self.parts = tuple(parts)
        self.groups = tuple((left, tuple(m), tuple(p)) for left, (m, p) in groups.items())
        self.forms = tuple(forms)
        self.picks = np.array(picks, dtype=np.intp)   # [3, plans]
        self.plan_parts = tuple(tuple(self.parts.index(p) for p in _plan_parts(dest)) for dest in self.plans)
        self._part_rows = np.array([r for r, _ in self.parts], dtype=np.intp)
        self._part_cards = np.array([(idx + (3, 3))[:2] for _, idx in self.parts], dtype=np.intp).T  # 3: no card
        self._form_parts = np.array([k for k, _ in self.forms], dtype=np.intp)
        self._form_offsets = np.array([f for _, f in self.forms], dtype=np.int64)
        self._plans_with = tuple(tuple(i for i, ks in enumerate(self.plan_parts) if k in ks)
                                 for k in range(len(self.parts)))

    def risks(self, rows: tuple[tuple[int, ...], ...], draws: Sequence[Sequence[int]], rests: Sequence[np.ndarray],
              caches: Sequence[RankCache]) -> list[list[float]]:
        """:func:`agents.ofc.endgame.foul_after_two` of every plan's board for each draw: the
        draw's cards placed on ``rows`` (each row sorted), judged against its ``rests`` (the
        same number of cards for every draw): over card ranks where the suits cannot
        matter, the other boards over the unseen cards."""
        counts, added, fits, taken = _drawn(draws, rests, caches)
        if counts is None or added is None:   # (both None together) a joker unseen: every board over the cards
            return self._by_group(rows, draws, rests, caches, [range(len(self.plans))] * len(draws))
        pool = grid_pool()
        pool.make_room(2 * len(self.parts) * len(draws))
        # every (draw, part) row's key: the board row's plus the draw's cards it takes
        cards = taken.get(self.room)   # the draws' part: the same for every board of this room
        if cards is None:
            cards = taken[self.room] = added[:, self._part_cards[0]] + added[:, self._part_cards[1]]
        keys = cards + np.array([row_key(r, rows[r]) for r in range(3)]).take(self._part_rows)
        known = pool.ids.get
        flat = keys.ravel().tolist()
        found = list(map(known, flat))
        if None in found:   # rows new to the pool (the same row may come twice)
            for at, got in enumerate(found):
                if got is None:
                    key = flat[at]
                    got = known(key)
                    if got is None:
                        d, k = divmod(at, len(self.parts))
                        r, idx = self.parts[k]
                        got = pool.add(r, rows[r] + tuple(draws[d][j] for j in idx), key)
                    found[at] = got
        grid = np.array(found).reshape(len(draws), len(self.parts))
        suited: list[list[int]] = [[] for _ in draws]   # per draw, the plans whose suits matter
        if SUITED in found:   # their grids are any: those plans are judged below
            for d, k in zip(*np.nonzero(grid == SUITED)):
                suited[d] = sorted(set(suited[d]) | set(self._plans_with[k]))
        plans = len(self.plans)
        values = layout_rank_risks(pool.grids, grid, self._form_parts, self._form_offsets, self.picks, counts,
                                   len(rests[0]), fits)
        out = [values[d * plans:(d + 1) * plans] for d in range(len(draws))]
        if any(suited):
            for d, row in enumerate(self._by_group(rows, draws, rests, caches, suited)):
                for i in suited[d]:
                    out[d][i] = row[i]
        return out

    def _by_group(self, rows: tuple[tuple[int, ...], ...], draws: Sequence[Sequence[int]],
                  rests: Sequence[np.ndarray], caches: Sequence[RankCache],
                  picked: Sequence[Sequence[int]]) -> list[list[float]]:
        """The ``picked`` plans of each draw (others left 0) over the unseen cards (the boards
        whose suits matter, or every board when a joker is unseen), in batches per shape of
        free slots."""
        out = [[0.0] * len(self.plans) for _ in draws]
        made: list[dict[int, object]] = [{} for _ in draws]   # per draw, the tables of the parts judged

        def table(d: int, k: int):
            got = made[d].get(k)
            if got is None:
                r, idx = self.parts[k]
                got = made[d][k] = row_table(rows[r] + tuple(draws[d][j] for j in idx), r, rests[d], caches[d])
            return got

        for left, members, plan_parts in self.groups:
            tables: list[list] = []
            at: list[tuple[int, int]] = []
            for d, plans in enumerate(picked):
                for i, ids in zip(members, plan_parts):
                    if i in plans:
                        tables.append([table(d, k) for k in ids])
                        at.append((d, i))
            if tables:
                for (d, i), p in zip(at, layout_risks(left, tables, len(rests[0]))):
                    out[d][i] = p
        return out


def _plan_parts(dest: tuple[int, ...]) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """The (row, card positions) a plan fills, per row."""
    return tuple((r, tuple(j for j, d in enumerate(dest) if d == r)) for r in range(3))


def _part_id(parts: dict[tuple[int, tuple[int, ...]], int], row: int, dest: Sequence[int]) -> int:
    """The number of the part of ``row`` a plan (``dest``) fills: the (row, card positions)
    pair, numbered in order of first appearance in ``parts``."""
    return parts.setdefault((row, tuple(j for j, d in enumerate(dest) if d == row)), len(parts))


def _drawn(draws: Sequence[Sequence[int]], rests: Sequence[np.ndarray],
           caches: Sequence[RankCache]) -> tuple[np.ndarray | None, np.ndarray | None, bool, dict]:
    """What a batch needs of its draws alone, kept in the first draw's cache for the boards
    judged against the same draws: the unseen cards per rank each leaves ([draws, 13]), the
    :data:`ROW_KEY` of each drawn card ([draws, 4], the last column 0 for no card), both
    None with a joker unseen; whether the counts fit the compiled count
    (:func:`agents.ofc.rank_classes.kernel_fits`); and, per room, the keys the draws' cards
    add to each part's row ([draws, parts], filled by :meth:`DrawLayout.risks`)."""
    shared = caches[0] if len(caches) else {}
    drawn = shared.get(DRAWN)
    if drawn is None:
        counts = [cached_counts(rest, ranks) for rest, ranks in zip(rests, caches)]
        stacked = added = None
        fits = False
        if all(c is not None for c in counts):
            stacked = np.array(counts)
            fits = kernel_fits(stacked)
            added = np.zeros((len(draws), 4), dtype=np.int64)
            added[:, :3] = ROW_KEY_ARRAY.take(np.array(draws))
        drawn = shared[DRAWN] = (stacked, added, fits, {})
    return drawn


@cache
def draw_layout(room: tuple[int, int, int]) -> DrawLayout:
    return DrawLayout(room)
