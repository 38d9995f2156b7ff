"""Dominoes: tile sets, tile ids, text parsing/formatting, a line of play, pips.

A set is ``double-N``, optionally without doubles (Buki's 36 tiles are
double-eight without doubles). Tile ids are the positions of ``(low, high)``
in lexicographic order: for the Buki set ``0 = 0-1, 1 = 0-2, ..., 35 = 7-8``.
One text form everywhere (decks, rendering, action names, typed moves): ``"3-5"``,
written low-high (``"5-3"`` is read as the same tile; a tile laid in a line is shown
as it lies, ``"5-3"`` when its 5 touches the left neighbour). Numpy lookup tables
(``low``, ``high``, ``weight``, ``has``, ``other``) keep hot paths cheap.
Framework-free.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TypeGuard

import numpy as np

_TOKEN = re.compile(r"^(\d+)-(\d+)$")


def _is_int(x: object) -> TypeGuard[int | np.integer]:
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


class TileSet:
    """The tiles of a double-``max_pip`` set, with or without the doubles."""

    def __init__(self, max_pip: int = 8, doubles: bool = False):
        if max_pip < 1:
            raise ValueError(f"max_pip={max_pip} must be at least 1")
        self.max_pip = max_pip
        self.doubles = doubles
        self.numbers = max_pip + 1
        self.tiles: tuple[tuple[int, int], ...] = tuple(
            (a, b) for a in range(self.numbers) for b in range(a if doubles else a + 1, self.numbers)
        )
        self.size = len(self.tiles)
        self._ids = {t: i for i, t in enumerate(self.tiles)}
        self.low = np.array([a for a, _ in self.tiles], dtype=np.int64)
        self.high = np.array([b for _, b in self.tiles], dtype=np.int64)
        self.weight = self.low + self.high
        # has[n, t]: tile t shows number n; other[t, n]: the other number of t (-1 if t lacks n)
        self.has = np.zeros((self.numbers, self.size), dtype=bool)
        self.other = np.full((self.size, self.numbers), -1, dtype=np.int64)
        for i, (a, b) in enumerate(self.tiles):
            self.has[a, i] = self.has[b, i] = True
            self.other[i, a] = b
            self.other[i, b] = a
        # heaviness: by weight, ties by the higher single number (Buki's lead rule)
        self.heaviness = self.weight * self.numbers + self.high

    def tile_id(self, a: int, b: int) -> int:
        key = (min(a, b), max(a, b))
        if key not in self._ids:
            kind = "double " if a == b else ""
            raise ValueError(f"no {kind}tile {a}-{b} in the double-{self.max_pip} set"
                             f"{'' if self.doubles else ' without doubles'}")
        return self._ids[key]

    def parse(self, deck: str | Sequence[object]) -> tuple[int, ...]:
        """Tile ids of ``"0-1 7-8"`` or a list of such tokens / ids / pairs; no duplicates."""
        if isinstance(deck, str):
            tokens: Iterable[object] = deck.split()
        elif isinstance(deck, (list, tuple)) or (isinstance(deck, np.ndarray) and deck.ndim == 1):
            tokens = deck
        else:
            raise ValueError(f"bad tiles {deck!r}: expected text like '0-1 7-8' or a list of tiles or ids")
        ids: list[int] = []
        for tok in tokens:
            ids.append(self._parse_one(tok))
        seen: set[int] = set()
        dups = [self.format_tile(t) for t in ids if t in seen or seen.add(t)]  # type: ignore[func-returns-value]
        if dups:
            raise ValueError(f"duplicate tile(s) {', '.join(dict.fromkeys(dups))}")
        return tuple(ids)

    def _parse_one(self, tok: object) -> int:
        if _is_int(tok):
            if not 0 <= int(tok) < self.size:
                raise ValueError(f"tile id {tok} out of range 0..{self.size - 1}")
            return int(tok)
        if isinstance(tok, tuple) and len(tok) == 2 and all(_is_int(x) for x in tok):
            return self.tile_id(int(tok[0]), int(tok[1]))  # tile_id refuses a pair not in the set
        m = _TOKEN.match(str(tok).strip())
        if not m:
            raise ValueError(f"unknown tile {tok!r}; write tiles like '0-1' or '7-8'")
        a, b = int(m.group(1)), int(m.group(2))
        if max(a, b) > self.max_pip:
            raise ValueError(f"unknown tile {tok!r}: numbers go from 0 to {self.max_pip}")
        return self.tile_id(a, b)

    def format_tile(self, t: int) -> str:
        if not 0 <= t < self.size:  # a negative id would index from the end: name no tile for it
            raise ValueError(f"tile id {t} out of range 0..{self.size - 1}")
        a, b = self.tiles[t]
        return f"{a}-{b}"

    def format(self, tiles: Iterable[int]) -> str:
        return " ".join(self.format_tile(int(t)) for t in tiles)

    def show(self, t: int, flipped: bool = False) -> str:
        """``3-5``; ``flipped`` shows the high number first (as laid in a line)."""
        a, b = self.tiles[t]
        return f"{b}-{a}" if flipped else f"{a}-{b}"

    def pips(self, tiles: Iterable[int]) -> int:
        return int(sum(int(self.weight[t]) for t in tiles))

    def heaviest(self, tiles: Iterable[int]) -> int:
        """The heaviest tile (highest weight; ties: the higher single number)."""
        return max(tiles, key=lambda t: int(self.heaviness[t]))


class Line:
    """A line of play with two open ends; end 0 is the left, end 1 the right.

    The first tile is laid low-left, high-right. ``placed`` keeps (tile, end)
    in play order; ``layout()`` gives the tiles left to right as shown.
    """

    __slots__ = ("tileset", "ends", "placed")

    def __init__(self, tileset: TileSet):
        self.tileset = tileset
        self.ends: list[int] = []
        self.placed: list[tuple[int, int]] = []

    @property
    def empty(self) -> bool:
        return not self.placed

    def can_play(self, tile: int, end: int) -> bool:
        if not self.placed:
            return True
        return bool(self.tileset.has[self.ends[end], tile])

    def play(self, tile: int, end: int) -> None:
        ts = self.tileset
        if not self.placed:
            self.ends = [int(ts.low[tile]), int(ts.high[tile])]
        else:
            other = int(ts.other[tile, self.ends[end]])
            if other < 0:
                raise ValueError(f"tile {ts.show(tile)} does not match open end {self.ends[end]}")
            self.ends[end] = other
        self.placed.append((tile, end))

    def copy(self) -> Line:
        new = Line(self.tileset)
        new.ends = list(self.ends)
        new.placed = list(self.placed)
        return new

    def layout(self) -> list[tuple[int, int]]:
        """Oriented (left number, right number) pairs of the line, left to right."""
        ts = self.tileset
        row: list[tuple[int, int]] = []
        left = right = -1
        for i, (t, end) in enumerate(self.placed):
            a, b = int(ts.low[t]), int(ts.high[t])
            if i == 0:
                row.append((a, b))
                left, right = a, b
            elif end == 0:
                other = int(ts.other[t, left])
                row.insert(0, (other, left))
                left = other
            else:
                other = int(ts.other[t, right])
                row.append((right, other))
                right = other
        return row

    def text(self) -> str:
        return " ".join(f"{a}-{b}" for a, b in self.layout())


BUKI_SET = TileSet(8, doubles=False)
