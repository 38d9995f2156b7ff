"""The exact Fantasyland solver (agents.ofc.fantasyland) against brute force.

The oracle enumerates every board of a hand (every choice of the 13 cards and
their split into 3/5/5, around any cards already placed), judges each with the
showdown's own rules (hand ranks, ``scoring``'s royalties and ``fl_stays``) and
keeps the best by value, then bottom, middle and top strength. Full 14-card
hands (about a million boards each) are enumerated; larger hands are checked
with some cards placed, and against the solver with its bounds switched off.
"""
from __future__ import annotations

import math
from functools import cache
from itertools import combinations

import numpy as np
import pytest

from parlor.agents.ofc.fantasyland import DEFAULT_STAY_VALUE, solve
from parlor.envs.engine.cards import parse_cards as P
from parlor.envs.engine.hands import CATEGORY_SHIFT, rank3, rank3_batch, rank5, rank5_batch
from parlor.envs.ofc.scoring import BoardResult, bottom_royalty, evaluate_board, fl_stays, middle_royalty, top_royalty
from tests.tiers import first_of, first_share

OBJECTIVES = [("trips_fh_quads", 9.0), ("trips_quads", 9.0), ("none", 9.0), ("trips_fh_quads", 0.0),
              ("trips_fh_quads", 30.0), ("trips_quads", 2.5)]


# ---------------------------------------------------------------- the oracle
@cache
def partitions(free: int, need: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every way to send ``need`` = (top, middle, bottom) of ``free`` cards to the rows:
    free-card positions per row, one board per line (the rest is discarded)."""
    nt, nm, nb = need
    out = [np.zeros((1, 0), dtype=np.int16)] * 3
    left = np.arange(free, dtype=np.int16)[None, :]            # per partial board: the positions still free
    for row, k in ((2, nb), (1, nm), (0, nt)):                 # bottom, then middle, then top
        n = left.shape[1]
        picks = list(combinations(range(n), k))
        keep = np.array([[p for p in range(n) if p not in c] for c in picks], dtype=np.int64).reshape(len(picks), n - k)
        boards = len(left) * len(picks)
        out = [np.repeat(o, len(picks), axis=0) for o in out]
        out[row] = left[:, np.array(picks, dtype=np.int64).reshape(len(picks), k)].reshape(boards, k)
        left = left[:, keep].reshape(boards, n - k)
    return out[0], out[1], out[2]


def _by_value(ranks: np.ndarray, fn) -> np.ndarray:
    values, inverse = np.unique(ranks, return_inverse=True)
    return np.array([fn(int(v)) for v in values], dtype=np.int64)[inverse]


def brute_force(cards, placed=((), (), ()), discarded=()) -> dict:
    """Per (fl_stay, stay_value) of OBJECTIVES: (value, (bottom, middle, top) ranks), or None when every board fouls."""
    fixed = {c for row in placed for c in row} | set(discarded)
    free = np.array([c for c in cards if c not in fixed], dtype=np.int16)
    need = tuple(size - len(row) for size, row in zip((3, 5, 5), placed))
    top_at, mid_at, bot_at = partitions(len(free), need)

    def rows(fixed_row, at):
        return np.concatenate([np.broadcast_to(np.array(fixed_row, dtype=np.int16), (len(at), len(fixed_row))),
                               free[at]], axis=1)

    t, m, b = (rank3_batch(rows(placed[0], top_at)).astype(np.int64), rank5_batch(rows(placed[1], mid_at)).astype(
        np.int64), rank5_batch(rows(placed[2], bot_at)).astype(np.int64))
    clean = (t <= m) & (m <= b)
    royalty = _by_value(t, top_royalty) + _by_value(m, middle_royalty) + _by_value(b, bottom_royalty)
    kind = ((t >> CATEGORY_SHIFT) * 16 + (m >> CATEGORY_SHIFT)) * 16 + (b >> CATEGORY_SHIFT)
    kinds, first, inverse = np.unique(kind, return_index=True, return_inverse=True)
    out = {}
    for rule, stay_value in OBJECTIVES:
        stays = np.array([fl_stays(BoardResult((t[i], m[i], b[i]), False, (0, 0, 0), 0), rule) for i in first])
        value = np.where(clean, royalty + stay_value * stays[inverse], -np.inf)
        best = np.flatnonzero(value == value.max())
        for rank in (b, m, t):   # the tie-break: strongest bottom, then middle, then top
            best = best[rank[best] == rank[best].max()]
        i = best[0]
        out[rule, stay_value] = (float(value[i]), (int(b[i]), int(m[i]), int(t[i]))) if clean.any() else None
    return out


def check(cards, placed=((), (), ()), discarded=(), expected=None) -> None:
    expected = expected or brute_force(cards, placed, discarded)
    pending = [c for c in cards if c not in {c for row in placed for c in row} | set(discarded)]
    for (rule, stay_value), want in expected.items():
        board = solve(pending, rule, stay_value, placed, discarded)
        assert_board_is_consistent(board, cards, placed, discarded, rule, stay_value)
        if want is None:
            assert board.fouled and board.value == 0.0
            continue
        assert not board.fouled
        got = (board.value, (rank5(board.bottom), rank5(board.middle), rank3(board.top)))
        assert got == want, (rule, stay_value, board)


def assert_board_is_consistent(board, cards, placed, discarded, rule, stay_value) -> None:
    assert sorted(board.top + board.middle + board.bottom + board.discards) == sorted(cards)
    assert (len(board.top), len(board.middle), len(board.bottom)) == (3, 5, 5)
    for row, have in zip(placed, (board.top, board.middle, board.bottom)):
        assert set(row) <= set(have)
    assert set(discarded) <= set(board.discards)
    result = evaluate_board(board.top, board.middle, board.bottom)
    assert (board.royalty, board.fouled, board.stays) == (result.royalty, result.fouled, fl_stays(result, rule))
    assert board.value == result.royalty + stay_value * board.stays


def deal(seed: int, n: int, deck=range(52)) -> list[int]:
    return [int(c) for c in np.random.default_rng(seed).choice(np.array(deck), n, replace=False)]


# sub-decks that make rich hands: many pairs, trips, quads and straights; many flushes and straight flushes
BROADWAY = [c for c in range(52) if c >> 2 >= 7]            # 9 .. A, all suits
TWO_SUITS = [c for c in range(52) if c & 3 < 2]
LOW_WHEEL = [c for c in range(52) if c >> 2 <= 5 or c >> 2 == 12]


# ---------------------------------------------------------------- full hands by brute force
@pytest.mark.parametrize("seed", first_of(range(30), fast=5))   # make test: the first 5 hands
def test_random_fourteen_card_hands_match_brute_force(seed):
    check(deal(seed, 14))


@pytest.mark.parametrize("deck", [BROADWAY, TWO_SUITS, LOW_WHEEL], ids=["broadway", "two_suits", "low_wheel"])
@pytest.mark.parametrize("seed", first_of(range(5)))   # make test: the first hand of each sub-deck
def test_rich_fourteen_card_hands_match_brute_force(deck, seed):
    check(deal(100 + seed, 14, deck))


def test_thirteen_card_hand_matches_brute_force():
    check(deal(7, 13, TWO_SUITS))


@pytest.mark.parametrize("n", first_of([15, 16, 17]))   # make test: a 15-card hand of each sub-deck
@pytest.mark.parametrize("deck", [range(52), BROADWAY, TWO_SUITS], ids=["full", "broadway", "two_suits"])
def test_larger_hands_with_cards_placed_match_brute_force(n, deck):
    cards = deal(n * 10, n, deck)
    placed = (tuple(cards[:1]), tuple(cards[1:3]), ())   # a card on top, two in the middle
    discarded = tuple(cards[3:3 + n - 14])                # all discards but one made
    check(cards, placed, discarded)


@pytest.mark.parametrize("case", first_of([(n, deck) for n in (15, 16) for deck in ("full", "broadway", "two_suits")]
                                  + [(17, "full")], fast=3),   # make test: the 15-card hands; ~5 s for 17 unbounded
                         ids=lambda case: f"{case[0]}-{case[1]}")
def test_larger_hands_match_the_solver_without_bounds(case):
    n, deck = case
    deck = {"full": range(52), "broadway": BROADWAY, "two_suits": TWO_SUITS}[deck]
    cards = deal(n, n, deck)
    rule, stay_value = OBJECTIVES[n % len(OBJECTIVES)]
    assert solve(cards, rule, stay_value) == solve(cards, rule, stay_value, prune=False)


# ---------------------------------------------------------------- worked cases
def test_staying_beats_more_royalties_when_another_hand_follows():
    cards = P("2c 2h 2s 3d 4c 5s 6d 7d 7h Ts Qd Ad Ah As")
    # the episode's last hand: AA5 on top (9), trips 222 in the middle (2), the diamond flush (4) = 15
    last = solve(cards, "trips_fh_quads", 0.0)
    assert (rank3(last.top), rank5(last.middle), rank5(last.bottom)) == (
        rank3(P("Ah As 5s")), rank5(P("2c 2h 2s Ts 7h")), rank5(P("3d 6d 7d Qd Ad")))
    assert (last.royalty, last.stays, last.value) == (15, False, 15.0)
    # staying worth 9: 222 on top (10, stays), trips aces in the middle (2), the 3-7 straight (2) = 14 + 9
    board = solve(cards, "trips_fh_quads", 9.0)
    assert sorted(board.top) == sorted(P("2c 2h 2s")) and rank5(board.bottom) == rank5(P("3d 4c 5s 6d 7d"))
    assert (board.royalty, board.stays, board.value) == (14, True, 23.0)
    check(cards)


def test_a_middle_full_house_stays_only_under_trips_fh_quads():
    cards = P("2d 2h 5c 5d 5h 6c 6d 6s 7h 8s 9d Kh Ac Ad")
    # 555 22 in the middle (12) under 666 AA at the bottom (6), 8 9 K on top: 18 either way
    fh = solve(cards, "trips_fh_quads", 9.0)
    quads_only = solve(cards, "trips_quads", 9.0)
    for board in (fh, quads_only):
        assert (rank5(board.middle), rank5(board.bottom)) == (rank5(P("5c 5d 5h 2d 2h")), rank5(P("6c 6d 6s Ac Ad")))
        assert board.royalty == 18
    assert fh.stays and not quads_only.stays and not solve(cards, "none", 9.0).stays


def test_royal_flush_quads_and_trips_all_find_their_rows():
    board = solve(P("As Ks Qs Js Ts 9c 9d 9h 9s 2c 2d 2h 5c 7d"))
    result = evaluate_board(board.top, board.middle, board.bottom)
    assert result.royalties == (10, 20, 25) and board.stays   # 222 top, quads middle, royal bottom
    assert board.discards == tuple(P("5c")) and board.value == 55 + DEFAULT_STAY_VALUE


def test_a_hand_without_royalties_keeps_the_strongest_rows():
    # no straight, no flush, no trips, no pair above the fives: every clean board pays 0
    cards = P("2c 2d 3h 3s 4c 4d 5h 5s 7c 8d Th Js Qc Kd")
    board = solve(cards)
    assert rank5(board.bottom) == max(rank5(c) for c in combinations(cards, 5)) == rank5(P("5h 5s 4c 4d Kd"))
    assert board.royalty == 0 and not board.fouled
    check(cards)


def test_placed_cards_that_force_a_foul_give_a_fouled_board():
    cards = P("As Ah Kd 2c 3d 4h 5s 7c 9d Td Jc Qh 8s 6h")
    placed = (tuple(P("As Ah")), tuple(P("2c 3d 4h 5s 7c")), ())  # AA on top over a 7-high middle
    pending = [c for c in cards if c not in placed[0] + placed[1]]
    board = solve(pending, placed=placed)
    assert board.fouled and board.royalty == 0 and board.value == 0.0 and not board.stays
    assert set(placed[0]) <= set(board.top) and set(board.middle) == set(placed[1])
    check(cards, placed)


@pytest.mark.parametrize("seeds", first_share(8))  # make test: the first 8 seeds (40 hands)
def test_random_hands_never_foul(seeds):
    for seed in range(seeds or 40):
        for n in (13, 14, 15, 16, 17):
            assert not solve(deal(seed * 5 + n, n)).fouled


@pytest.mark.parametrize("kwargs, message", [
    ({"cards": [0] * 14}, "appears twice"),
    ({"cards": list(range(12))}, "13..17 cards"),
    ({"cards": list(range(18))}, "13..17 cards"),
    ({"cards": [*range(13), 52]}, "integers in 0..51"),
    ({"cards": list(range(14)), "fl_stay": "always"}, "allowed values: trips_fh_quads"),
    ({"cards": list(range(14)), "stay_value": -1}, "stay_value"),
    ({"cards": list(range(14)), "stay_value": math.nan}, "stay_value"),
    ({"cards": list(range(10)), "placed": ((10, 11, 12, 13), (), ())}, "top row holds 4"),
    ({"cards": list(range(12)), "discarded": (12, 13, 14)}, "discards 2"),
])
def test_bad_input_is_refused_with_a_clear_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        solve(**kwargs)
