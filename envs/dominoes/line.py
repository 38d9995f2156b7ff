"""The line-of-play rules shared by Buki, Pulle and the Austrian games (docs/rules.md §4).

One ``Deal`` is one deal of the 36-tile set (double-eight without doubles):
dealing, who leads, must-play, passing, drawing (draw game), the end of the
deal by domino or by block (lowest pip count wins; equal lowest is a draw),
and the public void inference (a player who passes or draws on ends ``a, b``
holds no ``a`` and no ``b`` for the rest of the deal; ``determinize.py`` redeals
the hidden tiles consistently with it). Game specifics (bets, pools, scores)
live in the sub-packages ``buki``, ``pulle`` and ``austrian``. numpy only.

Action ids shared by the three games: ``2 * tile + end`` plays ``tile`` on
``end`` (0 = left, 1 = right; the first tile of a deal uses end 0), ``PASS``
(72) passes, or draws in the draw game when a draw is allowed.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from parlor.envs.engine.dominoes import BUKI_SET, Line

TILES = BUKI_SET
N_TILES = TILES.size          # 36
N_NUMBERS = TILES.numbers     # 9 (0..8)
PLAY_ACTIONS = 2 * N_TILES    # 72
PASS = PLAY_ACTIONS           # 72: pass, or draw in the draw game
FIRST_GAME_ACTION = PASS + 1  # 73: game-specific ids start here
EMPTY = N_NUMBERS             # end index used while the line is empty
MAX_SEATS = 4

ACTION_TILE = np.repeat(np.arange(N_TILES), 2)
ACTION_END = np.tile(np.arange(2), N_TILES)


def _playable_table() -> np.ndarray:
    """PLAYABLE[l, r]: bool[72] tile-end actions that fit open ends (l, r); [EMPTY, EMPTY] = first tile."""
    table = np.zeros((N_NUMBERS + 1, N_NUMBERS + 1, PLAY_ACTIONS), dtype=bool)
    for l in range(N_NUMBERS):
        for r in range(N_NUMBERS):
            table[l, r, 0::2] = TILES.has[l]
            table[l, r, 1::2] = TILES.has[r]
    table[EMPTY, EMPTY, 0::2] = True
    return table


PLAYABLE = _playable_table()
_PLAYABLE_ROWS: dict[int, list[list[np.ndarray]]] = {}


def _playable_rows(width: int) -> list[list[np.ndarray]]:
    """PLAYABLE zero-padded to ``width``, as read-only rows rows[l][r] (cached per width)."""
    rows = _PLAYABLE_ROWS.get(width)
    if rows is None:
        table = np.zeros((N_NUMBERS + 1, N_NUMBERS + 1, width), dtype=bool)
        table[:, :, :PLAY_ACTIONS] = PLAYABLE
        table.flags.writeable = False
        rows = _PLAYABLE_ROWS[width] = [list(t) for t in table]
    return rows
# FITS[l][r]: bit t set when tile t fits open ends (l, r): a Python-int test for "can he play"
# is far cheaper than ndarray.any() on the mask
FITS = [[sum(1 << t for t in range(N_TILES) if PLAYABLE[l, r, 2 * t] or PLAYABLE[l, r, 2 * t + 1])
         for r in range(N_NUMBERS + 1)] for l in range(N_NUMBERS + 1)]
HEAVINESS = TILES.heaviness
HEAVY = HEAVINESS.tolist()
LOW, HIGH, OTHER = TILES.low.tolist(), TILES.high.tolist(), TILES.other.tolist()
BIT = [1 << t for t in range(N_TILES)]


def _chunk_sums(values: Sequence[int]) -> list[int]:
    """table[k]: the sum of ``values[i]`` over the bits ``i`` set in ``k`` (0 <= k < 2**len(values))."""
    table = [0] * (1 << len(values))
    for k in range(1, len(table)):
        low = k & -k
        table[k] = table[k ^ low] + values[low.bit_length() - 1]
    return table


_WEIGHT = TILES.weight.tolist()
_PIPS_LO, _PIPS_MID, _PIPS_HI = (_chunk_sums(_WEIGHT[i:i + 12]) for i in (0, 12, 24))


def bits_pips(bits: int) -> int:
    """The pip total of a hand given as a bit set of tile ids: three table lookups, where
    summing ``TILES.weight`` over the tiles costs microseconds (and runs every deal)."""
    return _PIPS_LO[bits & 4095] + _PIPS_MID[bits >> 12 & 4095] + _PIPS_HI[bits >> 24]


def next_seats(active: Sequence[bool]) -> list[int]:
    """after[s]: the next active seat clockwise after seat ``s`` (``s`` itself if none is)."""
    n = len(active)
    after = []
    for s in range(n):
        seat = s
        for _ in range(n):
            seat = (seat + 1) % n
            if active[seat]:
                break
        after.append(seat)
    return after


_SEATING: dict[tuple[tuple[bool, ...], int], tuple[tuple[int, ...], list[int], np.ndarray]] = {}


def _seating(active: Sequence[bool], hand_size: int) -> tuple[tuple[int, ...], list[int], np.ndarray]:
    """(active seats, ``next_seats``, seat * N_TILES per dealt position) of a deal, cached:
    a deal starts with one dict lookup instead of three Python loops (never mutate them)."""
    key = (tuple(active), hand_size)
    seating = _SEATING.get(key)
    if seating is None:
        seats = tuple(s for s in range(len(active)) if active[s])
        offsets = np.repeat(np.array(seats, dtype=np.int64) * N_TILES, hand_size)
        seating = _SEATING[key] = (seats, next_seats(active), offsets)
    return seating


class Deal:
    """One deal in progress: hands, line, stock, whose turn, passes, the result."""

    __slots__ = ("n", "active", "n_active", "hand_size", "hands", "hand72", "counts",
                 "played", "played_seq", "void", "line", "ends", "stock", "current", "passes", "turns",
                 "draws", "draw_mode", "max_draws", "result", "winner", "last_player", "leader",
                 "by_weight", "pips", "bits", "width", "rows", "playable", "after")

    def __init__(self, n: int, active: Sequence[bool], hand_size: int, order: Sequence[int],
                 leader: int | None, draw_mode: bool = False, max_draws: int | None = None,
                 width: int = PLAY_ACTIONS + 1):
        """Deal ``order``: ``hand_size`` tiles to each active seat in seat order, the rest is the
        stock (Stamm / boneyard) in order. ``leader=None``: the heaviest tile's holder leads.
        ``width``: length of the game's action mask (``legal_tiles`` returns that length)."""
        self.n = n
        self.active = list(active)
        self.n_active = sum(self.active)
        self.hand_size = hand_size
        seats, self.after, offsets = _seating(self.active, hand_size)
        pos = hand_size * len(seats)
        dealt = list(order[:pos])
        self.stock = list(order[pos:])
        self.counts = [0] * n
        self.bits = [0] * n
        tile_bits = list(map(BIT.__getitem__, dealt))
        for i, seat in enumerate(seats):
            # a bit set of the seat's tiles (distinct tiles: the sum is their union)
            self.bits[seat] = sum(tile_bits[i * hand_size:(i + 1) * hand_size])
            self.counts[seat] = hand_size
        # hands and hand72 (see _sync_hand72) with vectorized writes instead of per-tile ones
        hands = np.zeros(n * N_TILES, dtype=bool)
        hands[np.array(dealt, dtype=np.int64) + offsets] = True
        self.hands = hands.reshape(n, N_TILES)
        self.width = width
        self.playable = _playable_rows(width)
        self.hand72 = np.zeros((n, width), dtype=bool)
        self.hand72[:, :PLAY_ACTIONS] = self.hands.repeat(2, axis=1)
        self.rows = list(self.hand72)
        self.played = np.zeros((n, N_TILES), dtype=bool)
        self.played_seq: list[list[int]] = [[] for _ in range(n)]  # each seat's tiles in play order
        self.void = np.zeros((n, N_NUMBERS), dtype=bool)
        self.line = Line(TILES)
        self.ends = (EMPTY, EMPTY)
        self.passes = 0
        self.turns = [0] * n
        self.draws = 0
        self.draw_mode = draw_mode
        self.max_draws = max_draws
        self.result: str | None = None   # None, "win", "blocked" (won on pips) or "draw"
        self.winner: int | None = None
        self.last_player: int | None = None
        self.pips: list[int] = [0] * n
        self.by_weight = leader is None
        if leader is None:
            # the holder of the heaviest dealt tile (== heaviest_holder(): heaviness values are distinct)
            leader = seats[dealt.index(max(dealt, key=HEAVY.__getitem__)) // hand_size]
        elif not self.active[leader]:
            raise ValueError(f"leader {leader} is not playing this deal")
        self.leader = leader
        self.current = leader
        self.turns[leader] = 1

    def _sync_hand72(self) -> None:
        """hand72[s, 2t + e]: seat s holds tile t, zero-padded to ``width`` so that a legal
        mask is one ufunc call; ``rows`` are its row views in a list (no numpy indexing)."""
        self.hand72 = np.zeros((self.n, self.width), dtype=bool)
        self.hand72[:, :PLAY_ACTIONS] = self.hands[:, ACTION_TILE]
        self.rows = list(self.hand72)

    def _sync_bits(self) -> None:
        """bits[s]: seat s's hand as a bit set of tile ids (kept in step with ``hands``)."""
        self.bits = [sum(1 << t for t in np.flatnonzero(row).tolist()) for row in self.hands]

    def hands_changed(self) -> None:
        """Rebuild what follows from ``hands`` (``hand72``, ``rows``, ``bits``) after the hands
        were rewritten wholesale (``envs.dominoes.determinize``)."""
        self._sync_hand72()
        self._sync_bits()

    # ------------------------------------------------------------ queries
    def heaviest_holder(self) -> int:
        dealt = np.flatnonzero(self.hands.any(axis=0))
        best = int(dealt[np.argmax(HEAVINESS[dealt])])
        return int(np.flatnonzero(self.hands[:, best])[0])

    def hand(self, seat: int) -> list[int]:
        return np.flatnonzero(self.hands[seat]).tolist()

    def tile_mask(self) -> np.ndarray:
        """bool[73]: legal plays of the current player, or PASS (pass / draw) if none."""
        mask = np.zeros(PLAY_ACTIONS + 1, dtype=bool)
        self.fill_tile_mask(mask)
        return mask

    def legal_tiles(self) -> np.ndarray:
        """A new bool[width] mask of the tile actions of the current player (as fill_tile_mask)."""
        l, r = self.ends
        cur = self.current
        if self.bits[cur] & FITS[l][r]:
            return np.logical_and(self.rows[cur], self.playable[l][r])
        mask = np.zeros(self.width, dtype=bool)
        mask[PASS] = True
        return mask

    def fill_tile_mask(self, mask: np.ndarray) -> None:
        """Write the tile actions (ids 0..72) of the current player into ``mask``."""
        l, r = self.ends
        if self.bits[self.current] & FITS[l][r]:
            np.logical_and(self.hand72[self.current, :PLAY_ACTIONS], PLAYABLE[l, r], out=mask[:PLAY_ACTIONS])
        else:
            mask[PASS] = True

    def can_draw(self) -> bool:
        """In the draw game: the stock is not empty and the turn's draw limit is not reached."""
        return self.draw_mode and bool(self.stock) and (self.max_draws is None or self.draws < self.max_draws)

    @property
    def over(self) -> bool:
        return self.result is not None

    # ------------------------------------------------------------ transitions
    def play(self, action: int) -> None:
        """Play tile ``action // 2`` on end ``action % 2`` (the caller checked legality)."""
        p = self.current
        tile, end = action >> 1, action & 1
        # Line.play inlined with Python tables (the caller checked the tile fits)
        line = self.line
        if line.placed:
            ends = line.ends
            ends[end] = OTHER[tile][ends[end]]
        else:
            ends = line.ends = [LOW[tile], HIGH[tile]]
        line.placed.append((tile, end))
        self.ends = (ends[0], ends[1])
        self.hands[p, tile] = False
        self.bits[p] &= ~(1 << tile)
        row = self.rows[p]          # two scalar writes: cheaper than a slice
        row[action & ~1] = False
        row[action | 1] = False
        self.played[p, tile] = True
        self.played_seq[p].append(tile)
        self.counts[p] -= 1
        self.passes = 0
        self.last_player = p
        if self.counts[p] == 0:
            self._finish("win", p)
        else:
            self._next_turn()

    def pass_or_draw(self) -> list[int]:
        """The current player cannot play. Draw game: he draws one tile at a time until one
        fits (then he must play it: his turn goes on) or no draw is allowed; then he passes.
        Returns the tiles drawn. Every tile he keeps lacks both open numbers, so those are
        his voids (in the draw game a draw replaces his older voids)."""
        p = self.current
        l, r = self.ends
        drawn: list[int] = []
        if self.can_draw():
            self.void[p] = False
        self.void[p, l] = self.void[p, r] = True
        while self.can_draw():
            tile = self.stock.pop(0)
            self.hands[p, tile] = True
            self.bits[p] |= 1 << tile
            self.hand72[p, 2 * tile:2 * tile + 2] = True
            self.counts[p] += 1
            self.draws += 1
            drawn.append(tile)
            if TILES.has[l, tile] or TILES.has[r, tile]:
                return drawn
        self.passes += 1
        if self.passes >= self.n_active:
            self._block()
        else:
            self._next_turn()
        return drawn

    def _next_turn(self) -> None:
        seat = self.current = self.after[self.current]
        self.turns[seat] += 1
        self.draws = 0

    def _block(self) -> None:
        """Nobody can play: the lowest pip count wins; equal lowest counts draw."""
        totals = {s: bits_pips(self.bits[s]) for s in range(self.n) if self.active[s]}
        low = min(totals.values())
        best = [s for s, v in totals.items() if v == low]
        if len(best) == 1:
            self._finish("blocked", best[0])
        else:
            self._finish("draw", None)

    def _finish(self, result: str, winner: int | None) -> None:
        self.result = result
        self.winner = winner
        self.pips = [bits_pips(b) if a else 0 for a, b in zip(self.active, self.bits)]

    def next_leader(self) -> int:
        """Who leads the next deal: the winner, after a draw the player of the last tile."""
        if self.winner is not None:
            return self.winner
        if self.last_player is None:  # never at a deal's end: its leader plays the first tile
            raise RuntimeError("no tile was played this deal: no one to lead the next")
        return int(self.last_player)

    # ------------------------------------------------------------ copies
    # pickle and deepcopy bring a numpy view back as a copy of its own: rebind rows to hand72
    def __getstate__(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in Deal.__slots__ if name != "rows"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        self.rows = list(self.hand72)

    def copy(self) -> Deal:
        new = Deal.__new__(Deal)
        for name in Deal.__slots__:
            setattr(new, name, getattr(self, name))
        new.active = list(self.active)
        new.hands, new.played, new.void = self.hands.copy(), self.played.copy(), self.void.copy()
        new.hand72 = self.hand72.copy()
        new.rows = list(new.hand72)
        new.counts, new.turns, new.pips = list(self.counts), list(self.turns), list(self.pips)
        new.bits = list(self.bits)
        new.stock = list(self.stock)
        new.played_seq = [list(x) for x in self.played_seq]
        new.line = self.line.copy()
        return new
