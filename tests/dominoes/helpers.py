"""Rigged decks and small drivers for the domino tests (tiles written low-high)."""
from __future__ import annotations

from typing import Any

import numpy as np

from parlor.envs.dominoes.line import PASS, TILES


def deck(*hands: str, rest_first: str = "") -> tuple[int, ...]:
    """Hands in seat order, then ``rest_first``, then every other tile in id order."""
    head = list(TILES.parse(" ".join(hands) + " " + rest_first))
    return tuple(head + [t for t in range(TILES.size) if t not in head])


def play(tile: str, end: int = 0) -> int:
    """Action id of playing ``tile`` on ``end`` (0 left / first tile, 1 right)."""
    return 2 * TILES.parse(tile)[0] + end


def pips(tiles: str) -> int:
    return TILES.pips(TILES.parse(tiles))


def legal(state: Any) -> list[int]:
    return np.flatnonzero(state.legal_mask()).tolist()


def run(state: Any, *actions: int) -> np.ndarray:
    """Apply actions in order; return the rewards earned meanwhile."""
    total = np.zeros(state.n)
    for a in actions:
        state.apply(a)
        total += state.take_rewards()
    return total


def pass_until_done(state: Any, max_steps: int = 20) -> np.ndarray:
    """Everybody passes (a blocked line runs out); Buki bet decisions are put off ("later")."""
    total = np.zeros(state.n)
    deal = state.deal
    for _ in range(max_steps):
        if state.deal is not deal or state.current_player is None:
            break
        if state.phase == "bet":
            state.apply(state.game.LATER)
        else:
            assert legal(state) == [PASS], "expected a forced pass"
            state.apply(PASS)
        total += state.take_rewards()
    return total


# --- Buki decks (6 tiles each, banker seat 0). Seat 1 leads with 5-8 (weight 13, beats 6-7 on
# the higher single number). 1: 0-2, 2: 2-3, 3: 0-3 (right end) makes the ends 0 ... 0; every
# other 0 tile is in the Stamm, so the line is blocked.
BUKI_BLOCK_SEAT2 = deck(
    "6-7 5-6 4-7 3-7 2-7 1-8",        # seat 0 (banker): 63 pips
    "0-2 5-8 4-6 3-6 4-5 2-6",        # seat 1: 49 pips after 0-2
    "2-3 1-2 1-3 1-4 2-4 3-5",        # seat 2: 26 pips after 2-3 (lowest)
    "0-3 1-5 1-6 1-7 2-5 3-4",        # seat 3: 35 pips after 0-3
)
BUKI_BLOCK_DRAW = deck(
    "6-7 5-6 4-7 3-7 2-7 1-8",        # seat 0: 63
    "0-2 5-8 3-4 3-6 4-5 2-6",        # seat 1: 46
    "2-3 1-2 1-7 2-5 3-5 1-5",        # seat 2: 32
    "0-3 1-3 1-4 1-6 2-4 4-6",        # seat 3: 32 -> equal lowest: a draw
)
BUKI_BLOCK_BANKER = deck(
    "1-2 1-3 1-4 2-4 1-5 1-6",        # seat 0 (banker): 31 (lowest)
    "0-2 5-8 1-8 3-6 4-5 2-6",        # seat 1: 48
    "2-3 3-5 2-5 1-7 3-4 4-6",        # seat 2: 40
    "0-3 6-7 5-6 4-7 3-7 2-7",        # seat 3: 54
)
BUKI_BLOCK_SEAT1 = deck(
    "6-7 5-6 4-7 3-7 2-7 4-6",        # seat 0 (banker): 64
    "0-2 5-8 1-2 1-3 1-4 2-4",        # seat 1: 31 pips after 0-2 (lowest)
    "2-3 3-5 2-5 1-7 3-4 1-6",        # seat 2: 37 after 2-3
    "0-3 1-5 2-6 3-6 4-5 1-8",        # seat 3: 41 after 0-3
)
BLOCK_LINE = (play("0-2"), play("2-3", 1), play("0-3", 1))
