"""Observation vectors and action names for the domino games.

Every entry lies in [0, 1]. Seats are *relative*: slot 0 is the observer,
slot 1 the next seat clockwise, and so on (4 slots; unused slots are zero).

Core layout (``CORE_SIZE`` = 294), shared by Buki, Pulle and Austrian:

| slice      | meaning                                                      |
|------------|--------------------------------------------------------------|
| 0:36       | own tiles (tile ids of the 36-tile set)                       |
| 36:72      | tiles unseen by the observer (not in his hand, not played)    |
| 72:81      | unseen tiles showing each number / 8                          |
| 81:90      | left open end, one-hot number 0..8 (zero while the line is empty) |
| 90:99      | right open end, one-hot                                       |
| 99         | the line is empty (the next tile leads)                       |
| 100:244    | tiles played by each seat, 4 x 36                             |
| 244:248    | tiles held by each seat / hand capacity                       |
| 248:284    | known voids: seat passed or drew on that number, 4 x 9        |
| 284:288    | seat to act, one-hot                                          |
| 288:292    | seats playing this deal                                      |
| 292        | deal index / number of deals (Pulle: / max_deals)             |
| 293        | tiles in the stock (Stamm / boneyard) / 36                    |

Each game appends its tail (see ``buki_tail``, ``pulle_tail``, ``austrian_tail``).
The fast path ``observe(game, state, player)`` writes the same numbers from the
state's arrays; the harness asserts it equals ``encode(state.view(player))``.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from parlor.envs.dominoes.line import EMPTY, MAX_SEATS, N_NUMBERS, N_TILES, PASS, PLAY_ACTIONS, TILES

HAND, UNSEEN, UNSEEN_NUM, PRIVATE = 0, 36, 72, 81   # 0:PRIVATE depends on the observer
LEFT, RIGHT, LINE_EMPTY, PLAYED = 81, 90, 99, 100
COUNTS, VOID, TO_ACT, SEATED, PROGRESS, STOCK = 244, 248, 284, 288, 292, 293
CORE_SIZE = 294
HAS = TILES.has.astype(np.float32)
HAS_T = np.ascontiguousarray(HAS.T)
_REL = {n: [[(p + i) % n for i in range(n)] for p in range(n)] for n in range(2, MAX_SEATS + 1)}


def squash(x: float) -> float:
    """Map an unbounded non-negative amount into [0, 1): x / (1 + x)."""
    return x / (1.0 + x)


def _fill_private(out: np.ndarray, hand: np.ndarray, played: np.ndarray) -> None:
    out[HAND:HAND + N_TILES] = hand
    unseen = ~(hand | played.any(axis=0))
    out[UNSEEN:UNSEEN + N_TILES] = unseen
    out[UNSEEN_NUM:PRIVATE] = HAS @ unseen.astype(np.float32) / 8.0


def _fill_core(out: np.ndarray, p: int, n: int, hand: np.ndarray, ends: tuple[int, int],
               played: np.ndarray, counts: Any, void: np.ndarray, current: int | None,
               active: Any, progress: float, stock: int, cap: int) -> None:
    _fill_private(out, hand, played)
    _fill_public(out, p, n, ends, played, counts, void, current, active, progress, stock, cap)


def _fill_public(out: np.ndarray, p: int, n: int, ends: tuple[int, int], played: np.ndarray,
                 counts: Any, void: np.ndarray, current: int | None, active: Any, progress: float,
                 stock: int, cap: int) -> None:
    """Everything of the core from PRIVATE on (``out`` zero there)."""
    rel = _REL[n][p]
    l, r = ends
    if l == EMPTY:
        out[LINE_EMPTY] = 1.0
    else:
        out[LEFT + l] = 1.0
        out[RIGHT + r] = 1.0
    out[PLAYED:PLAYED + N_TILES * n] = played[rel].ravel()
    out[VOID:VOID + N_NUMBERS * n] = void[rel].ravel()
    for i, s in enumerate(rel):
        out[COUNTS + i] = counts[s] / cap
        out[SEATED + i] = active[s]
    if current is not None:
        out[TO_ACT + (current - p) % n] = 1.0
    out[PROGRESS] = progress
    out[STOCK] = stock / N_TILES


def sync_deal_start(obs: Any, state: Any) -> None:
    """Rewrite the public core of ``obs.pub`` (absolute seats) and every seat's private
    block ``obs.priv`` (hand, unseen, unseen per number) for ``state``'s new deal."""
    d = state.deal
    pub, n = obs.pub, state.n
    pub[:CORE_SIZE] = 0.0
    # what _fill_public writes for a fresh deal (empty line, nothing played, no voids, nobody
    # to act in the absolute vector), as a few scalar and list writes
    pub[LINE_EMPTY] = 1.0
    cap = state._cap
    pub[COUNTS:COUNTS + n] = [c / cap for c in d.counts]
    pub[SEATED:SEATED + n] = d.active
    pub[PROGRESS] = state.deal_index / state._num_deals()
    pub[STOCK] = len(d.stock) / N_TILES
    # nothing is played yet: unseen = not in hand, and each number shows on 8 tiles, so every
    # seat's private block is one product with PRIV_MAP (the same exact float32 values as
    # _fill_private: all multiples of 1/8)
    priv = obs.priv
    np.matmul(d.hands.astype(np.float32), PRIV_MAP, out=priv)
    priv += PRIV_BASE


def _private_map() -> tuple[np.ndarray, np.ndarray]:
    """(map, base) with ``hand @ map + base`` = the private block (hand, unseen, unseen per
    number / 8) of a hand when nothing is played yet."""
    table = np.zeros((N_TILES, PRIVATE), dtype=np.float32)
    table[:, HAND:HAND + N_TILES] = np.eye(N_TILES)
    table[:, UNSEEN:UNSEEN + N_TILES] = -np.eye(N_TILES)
    table[:, UNSEEN_NUM:PRIVATE] = -HAS_T / 8.0
    table += 0.0   # -0.0 -> +0.0: no signed zero can reach an observation
    base = np.zeros(PRIVATE, dtype=np.float32)
    base[UNSEEN:PRIVATE] = 1.0
    return table, base


PRIV_MAP, PRIV_BASE = _private_map()


LOW, HIGH = TILES.low.tolist(), TILES.high.tolist()


def _see(flat: Any, row: int, tile: int) -> None:
    """Seat at ``row`` (offset into the flat private array) now sees ``tile``: scalar updates
    (much cheaper than numpy vector ops on these tiny arrays)."""
    flat[row + UNSEEN + tile] = 0.0
    flat[row + UNSEEN_NUM + LOW[tile]] -= 0.125
    flat[row + UNSEEN_NUM + HIGH[tile]] -= 0.125


def sync_play(obs: Any, state: Any, p: int, action: int) -> None:
    """Seat ``p`` played ``action`` (tile ``action >> 1`` on end ``action & 1``): single entries
    of ``obs.buf`` through ``obs.cells``."""
    d, cells, game = state.deal, obs.cells, state.game
    tile = action >> 1
    cells[PLAYED + N_TILES * p + tile] = 1.0
    l, r = d.ends
    if len(d.line.placed) == 1:   # the first tile: the line is no longer empty
        cells[LINE_EMPTY] = 0.0
        cells[LEFT + l] = 1.0
        cells[RIGHT + r] = 1.0
    else:   # one end moved from the tile's matching number to its other one (no doubles)
        at, new = (RIGHT, r) if action & 1 else (LEFT, l)
        cells[at + LOW[tile] + HIGH[tile] - new] = 0.0
        cells[at + new] = 1.0
    cells[COUNTS + p] = d.counts[p] / state._cap
    cells[game.priv_rows[p] + HAND + tile] = 0.0
    u, lo, hi = UNSEEN + tile, UNSEEN_NUM + LOW[tile], UNSEEN_NUM + HIGH[tile]
    for row in game.other_rows[p]:   # the player had seen his own tile already; _see, inlined
        cells[row + u] = 0.0
        cells[row + lo] -= 0.125
        cells[row + hi] -= 0.125


def sync_pass(obs: Any, state: Any, p: int, drawn: list[int]) -> None:
    d, pub = state.deal, obs.pub
    pub[VOID + N_NUMBERS * p:VOID + N_NUMBERS * (p + 1)] = d.void[p]
    pub[COUNTS + p] = d.counts[p] / state._cap
    pub[STOCK] = len(d.stock) / N_TILES
    for tile in drawn:
        obs.priv_flat[PRIVATE * p + HAND + tile] = 1.0
        _see(obs.priv_flat, PRIVATE * p, tile)


def seat_permutations(size: int, n: int, blocks: list[tuple[int, int]]) -> list[np.ndarray]:
    """perm[p]: gather indices turning the absolute-seat vector into seat ``p``'s relative one.
    ``blocks``: (offset, width) of every per-seat block (4 slots of ``width``)."""
    perms = []
    for p in range(n):
        perm = np.arange(size)
        for off, width in blocks:
            for i in range(n):
                src = off + ((p + i) % n) * width
                perm[off + i * width:off + (i + 1) * width] = np.arange(src, src + width)
        perms.append(perm)
    return perms


CORE_BLOCKS = [(PLAYED, N_TILES), (COUNTS, 1), (VOID, N_NUMBERS), (SEATED, 1)]


def buffer_permutations(perms: list[np.ndarray]) -> list[np.ndarray]:
    """``perms`` re-aimed at a state's ``buf`` (pub, then one private block per seat): seat
    ``p``'s first PRIVATE entries come from its own block instead of pub's (unused) ones."""
    size = perms[0].size
    out = []
    for p, perm in enumerate(perms):
        full = perm.copy()
        full[:PRIVATE] = size + PRIVATE * p + np.arange(PRIVATE)
        out.append(full)
    return out


def observe(game: Any, state: Any, player: int) -> np.ndarray:
    """The observation from the state's incrementally kept public vector (equals
    ``encode(state.view(player))``): gather into relative seats with the private parts."""
    out = state.observer.buf[game.buf_perms[player]]
    current = state.current_player
    if current is not None:
        out[TO_ACT + (current - player) % state.n] = 1.0
    return out


def encode(game: Any, view: Any) -> np.ndarray:
    out = np.zeros(game.observation_shape, dtype=np.float32)
    n = view.num_players
    hand = np.zeros(N_TILES, dtype=bool)
    hand[list(view.hand)] = True
    played = np.zeros((n, N_TILES), dtype=bool)
    void = np.zeros((n, N_NUMBERS), dtype=bool)
    for s in range(n):
        played[s, list(view.played[s])] = True
        void[s, list(view.void[s])] = True
    ends = view.ends if view.ends is not None else (EMPTY, EMPTY)
    _fill_core(out, view.player, n, hand, ends, played, view.hand_counts, void, view.current_player,
               view.active, view.deal_index / view.num_deals, view.stock_count, view.hand_capacity)
    game.fill_tail(out[CORE_SIZE:], view, view.player)
    return out


def action_name(game: Any, action: int) -> str:
    a = int(action)
    if 0 <= a < PLAY_ACTIONS:
        tile, end = a >> 1, a & 1
        where = "left end (or as the first tile)" if end == 0 else "right end"
        return f"play {TILES.show(tile)} on the {where}"
    if a == PASS:
        return game.pass_name()
    name = game.extra_action_name(a)
    if name is None:
        raise ValueError(f"action {a} out of range 0..{game.num_actions - 1}")
    return name


def sync_private(obs: Any, state: Any) -> None:
    """Recompute every seat's private block (after hidden tiles were redealt)."""
    d = state.deal
    for p in range(state.n):
        _fill_private(obs.priv[p], d.hands[p], d.played)
