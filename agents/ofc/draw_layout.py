"""The placements of a drawn turn's three cards on a board with four free slots, every
draw's and every placement's board judged in one batch.

:func:`agents.ofc.endgame.foul_after_four` asks, for each of a few draws of the next
turn's cards, the exact two-slot foul probability of every placement of the draw
(:func:`agents.ofc.endgame.foul_after_two`). Judged one board or one draw at a time,
the cost is the overhead of a dozen small array operations per call; here the
boards of all the draws are judged at once. Where no free row can make a flush (all
but a few in forty boards), over the card ranks (:mod:`agents.ofc.rank_classes`):
each row a 13x13 grid of ranks picked from the rows the placements make, in one
gather per row; else over the unseen cards (:mod:`agents.ofc.two_slots`), the
boards of one shape of free slots together. Either way the numbers are the exact
counts, the same whatever boards share a batch.
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np

from parlor.agents.ofc.rank_classes import (
    POOL,
    ROW_KEY,
    cached_counts,
    class_risks,
    rank_graph_risks,
    rank_table,
    row_key,
)
from parlor.agents.ofc.two_slots import RankCache, layout_risks, row_table
from parlor.envs.ofc.rollouts import assignments


class DrawLayout:
    """The placements of a drawn turn's three cards on a board with ``room`` (four free
    slots): ``plans`` (:func:`assignments` order), the distinct (row, card positions)
    ``parts`` they fill, the plans grouped by the free slots they leave (for
    :func:`layout_risks`), and which grid form (:class:`agents.ofc.rank_classes.GridPool`)
    of which part each plan reads per row."""

    def __init__(self, room: tuple[int, int, int]):
        self.plans = tuple(tuple(d) for d in assignments([0, 1, 2], list(room), 1))
        parts: dict[tuple[int, tuple[int, ...]], int] = {}
        groups: dict[tuple[int, int, int], tuple[list[int], list[tuple[int, int, int]]]] = {}
        forms: dict[tuple[int, int], int] = {}   # (part, form) -> its place among a draw's grids
        picks: list[list[int]] = [[], [], []]    # per row, per plan: the grid it reads
        for i, dest in enumerate(self.plans):
            ids = tuple(parts.setdefault((r, tuple(j for j, d in enumerate(dest) if d == r)), len(parts))
                        for r in range(3))
            left = tuple(room[r] - dest.count(r) for r in range(3))
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
        self._at: dict[int, np.ndarray] = {}
        # the rows a draw's cards change: (part, row, first card position, second or -1)
        self._moved = tuple((k, r, idx[0], idx[1] if len(idx) > 1 else -1)
                            for k, (r, idx) in enumerate(self.parts) if idx)
        self._kept = tuple((k, r) for k, (r, idx) in enumerate(self.parts) if not idx)

    def risks(self, rows: tuple[tuple[int, ...], ...], draws: Sequence[Sequence[int]], rests: Sequence[np.ndarray],
              caches: Sequence[RankCache]) -> list[list[float]]:
        """:func:`agents.ofc.endgame.foul_after_two` of every plan's board for each draw: the
        draw's cards placed on ``rows`` (each row sorted), judged against its ``rests`` (the
        same number of cards for every draw): over card ranks where the suits cannot
        matter, the other boards over the unseen cards."""
        counts = [cached_counts(rest, ranks) for rest, ranks in zip(rests, caches)]
        if any(c is None for c in counts):   # a joker unseen: every board over the cards
            return self._by_group(rows, draws, rests, caches, [range(len(self.plans))] * len(draws))
        pool = POOL
        pool.make_room(2 * len(self.parts) * len(draws))
        known, missing = pool.ids, pool.ids   # missing: a sentinel no id tuple equals
        made: list = [None] * len(self.parts)
        for k, r in self._kept:
            made[k] = pool.forms(r, rows[r])
        base = [row_key(r, rows[r]) for r in range(3)]
        ids: list[int] = []
        suited: list[list[int]] = []   # per draw, the plans whose suits matter
        for cards in draws:
            add = [ROW_KEY[c] for c in cards]
            for k, r, j, j2 in self._moved:   # the row's key with the card(s) added
                forms = known.get(base[r] + add[j] + (add[j2] if j2 >= 0 else 0), missing)
                if forms is missing:
                    forms = pool.add(r, rows[r] + ((cards[j],) if j2 < 0 else (cards[j], cards[j2])))
                made[k] = forms
            if None in made:
                bad = {k for k, f in enumerate(made) if f is None}
                suited.append([i for i, ks in enumerate(self.plan_parts) if not bad.isdisjoint(ks)])
                # any grid for those plans' rows: they are judged below
                ids.extend([0 if made[k] is None else made[k][form] for k, form in self.forms])
            else:
                suited.append([])
                ids.extend([made[k][form] for k, form in self.forms])
        at = np.array(ids).take(self._offsets(len(draws)))
        plans = len(self.plans)
        grids = pool.grids
        values = rank_graph_risks(grids[at[0]], grids[at[1]], grids[at[2]],
                                  np.repeat(np.array(counts), plans, axis=0), len(rests[0]))
        out = [values[d * plans:(d + 1) * plans] for d in range(len(draws))]
        if any(suited):
            for d, row in enumerate(self._by_group(rows, draws, rests, caches, suited)):
                for i in suited[d]:
                    out[d][i] = row[i]
        return out

    def _offsets(self, draws: int) -> np.ndarray:
        """Per row, the grid of each (draw, plan) board among the draws' grids: [3, draws * plans]."""
        at = self._at.get(draws)
        if at is None:
            at = self._at[draws] = (np.arange(draws)[None, :, None] * len(self.forms)
                                    + self.picks[:, None, :]).reshape(3, -1)
        return at

    def _by_group(self, rows: tuple[tuple[int, ...], ...], draws: Sequence[Sequence[int]],
                  rests: Sequence[np.ndarray], caches: Sequence[RankCache],
                  picked: Sequence[Sequence[int]]) -> list[list[float]]:
        """The ``picked`` plans of each draw (others left 0), in batches per shape of free
        slots: over ranks where the board allows, else over cards."""
        n = len(rests[0])
        judged = [_DrawParts(rows, self.parts, cards, rest, cache) for cards, rest, cache in zip(draws, rests, caches)]
        out = [[0.0] * len(self.plans) for _ in draws]
        for left, members, plan_parts in self.groups:
            ranked: list[list] = []
            counts: list[np.ndarray] = []
            ranked_at: list[tuple[int, int]] = []
            carded: list[list] = []
            carded_at: list[tuple[int, int]] = []
            for d, parts in enumerate(judged):
                for i, ids in zip(members, plan_parts):
                    if i not in picked[d]:
                        continue
                    tables = [parts.ranked[k] for k in ids]
                    if parts.counts is not None and all(t is not None for t in tables):
                        ranked.append(tables)
                        counts.append(parts.counts)
                        ranked_at.append((d, i))
                    else:
                        carded.append([parts.carded(k) for k in ids])
                        carded_at.append((d, i))
            if ranked:
                for (d, i), p in zip(ranked_at, class_risks(left, ranked, counts, n)):
                    out[d][i] = p
            if carded:
                for (d, i), p in zip(carded_at, layout_risks(left, carded, n)):
                    out[d][i] = p
        return out


def _plan_parts(dest: tuple[int, ...]) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """The (row, card positions) a plan fills, per row."""
    return tuple((r, tuple(j for j, d in enumerate(dest) if d == r)) for r in range(3))


class _DrawParts:
    """The rows a drawn turn's placements make on a board, as rank tables (None where the
    suits matter) and, on demand, as tables over the unseen cards the draw leaves."""

    def __init__(self, rows: tuple[tuple[int, ...], ...], parts: tuple, cards: Sequence[int], rest: np.ndarray,
                 cache: RankCache):
        self.rest, self.cache, self.parts = rest, cache, parts
        self.contents = [rows[r] + tuple(cards[j] for j in idx) for r, idx in parts]
        self.ranked = [rank_table(r, tuple(sorted(c))) for (r, _), c in zip(parts, self.contents)]
        self.counts = cached_counts(rest, cache)

    def carded(self, k: int):
        return row_table(self.contents[k], self.parts[k][0], self.rest, self.cache)


@cache
def draw_layout(room: tuple[int, int, int]) -> DrawLayout:
    return DrawLayout(room)
