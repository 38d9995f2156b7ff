"""Buki's optional feature block (option ``features=True``): numbers a bettor needs.

Everything is computed from one seat's ``BukiView`` (its own tiles, the public
line, counts, voids, bets), so nothing hidden can leak; the fast path
``BukiGame.observe`` and ``encode(view)`` both call :func:`fill_features`.

Block layout (``FEATURES`` = 176 entries, all in [0, 1], seats relative to the observer):

| slice    | meaning                                                                 |
|----------|-------------------------------------------------------------------------|
| 0        | estimated chance to win this deal (``win_estimate``)                      |
| 1        | edge of a bet: (3.5 p - 1) mapped from [-1, 1] to [0, 1] (0.5 = break-even 2/7) |
| 2        | p > 2/7 (the maximum bet pays more than the minimum)                      |
| 3        | expected chips of a minimum bet, b (3.5 p - 1), / (2.5 max_bet), + 0.5   |
| 4        | expected chips of a maximum bet, same scale                               |
| 5:9      | seat order from this deal's leader, one-hot (5 = I lead, 6 = I play 2nd ...) |
| 9:12     | own turns left before the bet is due: 0, 1, 2+ (all zero: bet placed or no bet) |
| 12       | own bet on the table / max_bet                                            |
| 13       | own tiles / 7                                                            |
| 14       | fewest tiles of another seat / 7                                          |
| 15       | own tiles minus that fewest, (d + 7) / 14                                 |
| 16       | distinct numbers in hand / 9                                              |
| 17       | pips in hand / 70                                                         |
| 18       | own tiles that fit an open end now (all when the line is empty) / 7       |
| 19       | unseen tiles that fit an open end / 16                                    |
| 20       | own known voids / 9                                                       |
| 21:24    | known voids of the next three seats / 9                                   |
| 24       | numbers held twice or more / 9                                            |
| 25       | control: sum over numbers x of own(x)^2 / (own(x) + unseen(x)), / 7      |
| 26       | the baseline heuristic's softmax win chance (agents' ``win_chance`` formula) |
| 27       | tiles on the line / 36                                                    |
| 28       | first deal of the episode (leader chosen by the heaviest tile)           |
| 29:32    | spare (0)                                                                 |
| 32:104   | per tile action ``2 t + e``: the baseline heuristic's score of the play / 40 (0: illegal) |
| 104:176  | per tile action: 1 for the heuristic's preferred legal play              |

The win estimate is a logistic model over ``raw_stats`` (one weight vector per
own turn 1, 2, 3+), fitted offline on heuristic self-play (banker seat 0,
default options); it is a fixed table, not learned during training.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from parlor.envs.dominoes.line import N_NUMBERS, PASS, PLAY_ACTIONS, TILES

FEATURES = 176
SCALARS = 32
SCORE, BEST = 32, 104
BREAK_EVEN = 2.0 / 7.0
PAYOUT = 2.5
PAIRS = TILES.tiles
WEIGHT = TILES.weight.tolist()
N_RAW = 24

# logistic weights per own turn (1, 2, 3+) over raw_stats (last entry: bias), fitted by maximum
# likelihood (small L2) on ~108k non-banker turn starts of 1,500 heuristic self-play episodes
# (all seats DominoesHeuristic, banker 0, default options); held-out log-loss 0.528 at turn 3
# against 0.562 for a constant
WIN_WEIGHTS = np.array([
    [0.13486, 0.28245, -0.02145, -0.39557, 0.0046, 0.00125, -0.00583, 0.00005, 0.09115, 0.13022, 0.10944,
     0.03051, 0.49726, -0.28348, 0.00485, 0.15645, -0.17081, -0.00001, 0.24301, -1.29877, -0.00824, 0.06888,
     0.41963, -0.26361, -6.80881],
    [-0.01324, 0.0338, 0.04944, -0.0696, 0.00014, 0.00433, -0.00392, -0.38977, 0.22705, 0.29098, 0.27379,
     0.0755, 0.26462, -0.23915, -0.01841, 0.20565, 0.07667, -0.37965, -0.01492, 0.18961, -0.0206, -0.02626,
     0.35314, -0.39152, -5.14849],
    [0.14294, 0.11283, -0.04507, -0.20882, 0.00103, 0.00617, -0.00819, -1.08674, 0.2632, 0.18749, 0.21533,
     0.21473, 0.32463, -0.29874, 0.01575, 0.24761, -0.02084, -0.20622, 0.05873, -0.04101, -0.00723, -0.00713,
     0.46671, 0.13934, -2.51891],
], dtype=np.float64)


def _numbers(tiles: Any) -> np.ndarray:
    out = np.zeros(N_NUMBERS, dtype=np.float64)
    for t in tiles:
        a, b = PAIRS[t]
        out[a] += 1.0
        out[b] += 1.0
    return out


def _fits(tile: int, ends: tuple[int, int] | None) -> bool:
    if ends is None:
        return True
    a, b = PAIRS[tile]
    return a in ends or b in ends


def heuristic_win_chance(view: Any, seat: int) -> float:
    """The baseline heuristic's strength softmax (same formula as parlor.agents.dominoes.heuristic)."""
    scores = {}
    for s in range(view.num_players):
        if not view.active[s]:
            continue
        score = -1.2 * view.hand_counts[s] - 0.6 * len(view.void[s])
        if s == view.player and view.hand:
            nums = {x for t in view.hand for x in PAIRS[t]}
            score += 0.5 * (len(nums) - 7.0) - 0.04 * (sum(WEIGHT[t] for t in view.hand) - 8.0 * len(view.hand))
            if view.ends is not None:
                fits = sum(1 for t in view.hand if _fits(t, view.ends))
                score += 0.4 * min(fits, 3)
        scores[s] = score
    top = max(scores.values())
    weights = {s: math.exp(v - top) for s, v in scores.items()}
    return weights[seat] / sum(weights.values())


def raw_stats(view: Any) -> np.ndarray:
    """Unscaled numbers of the observer's position (the win model's inputs)."""
    p, n = view.player, view.num_players
    rel = [(p + i) % n for i in range(n)]
    hand = list(view.hand)
    own = _numbers(hand)
    unseen_tiles = view.unseen
    unseen = _numbers(unseen_tiles)
    counts = [view.hand_counts[s] for s in rel]
    lead = (p - view.leader) % n
    banker = (view.banker - p) % n
    fit = sum(1 for t in hand if _fits(t, view.ends))
    ends_unseen = 0 if view.ends is None else sum(1 for t in unseen_tiles if _fits(t, view.ends))
    held = own > 0
    control = float((own[held] ** 2 / (own[held] + unseen[held])).sum()) if held.any() else 0.0
    x = np.zeros(N_RAW, dtype=np.float64)
    x[lead] = 1.0                                    # 0:4 order from the leader
    if banker:
        x[3 + banker] = 1.0                          # 4:7 banker 1st/2nd/3rd after me
    x[7:11] = counts
    x[11] = min(counts[1:])
    x[12] = float(held.sum())
    x[13] = sum(WEIGHT[t] for t in hand) / 10.0
    x[14] = fit
    x[15] = min(fit, 3)
    x[16] = ends_unseen / 10.0
    x[17] = len(view.void[p])
    x[18] = sum(len(view.void[s]) for s in rel[1:])
    x[19] = heuristic_win_chance(view, p)
    x[20] = view.first_by_weight
    x[21] = float((own >= 2).sum())
    x[22] = control
    x[23] = len(view.line) / 10.0
    return x


def win_estimate(view: Any, raw: np.ndarray | None = None) -> float:
    """Logistic estimate of the observer's chance to win the deal in play."""
    if raw is None:
        raw = raw_stats(view)
    k = view.turns[view.player]
    w = WIN_WEIGHTS[min(max(k, 1), 3) - 1]
    z = float(raw @ w[:-1] + w[-1])
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def tile_score(view: Any, action: int, hand: set[int], nxt: int | None) -> float:
    """The baseline heuristic's play score: heavier tiles first, keep numbers varied,
    keep the ends playable for me and not for ``nxt`` (the next seat in the deal)."""
    tile, end = action >> 1, action & 1
    a, b = PAIRS[tile]
    numbers = {x for t in hand if t != tile for x in PAIRS[t]}
    if view.ends is None:
        new_ends = {a, b}
    else:
        ends = list(view.ends)
        ends[end] = b if ends[end] == a else a
        new_ends = set(ends)
    score = float(a + b) + 1.5 * len(numbers) + 2.0 * sum(1 for x in new_ends if x in numbers)
    if nxt is not None:
        score += 2.5 * sum(1 for x in new_ends if x in view.void[nxt])
    return score


def next_active_seat(view: Any) -> int | None:
    """The next seat after the observer still in the deal (None if none)."""
    n = view.num_players
    for step in range(1, n):
        s = (view.player + step) % n
        if view.active[s]:
            return s
    return None


def _turns_left(view: Any) -> int | None:
    """Own turns after this one before the bet is due (None: no bet to make)."""
    p = view.player
    if p == view.banker or view.bets[p] > 0:
        return None
    deadline = 1 if view.must_bet_first[p] else 3
    k = view.turns[p]
    if view.current_player != p or view.phase != "bet":
        k += 1   # waiting for a turn: the next decision comes at the next turn
    return max(deadline - k, 0)


def fill_features(out: np.ndarray, view: Any, legal_plays: list[int]) -> None:
    """Write the block into ``out`` (length FEATURES, zero on entry). ``legal_plays``: the
    observer's legal tile actions now (empty unless he is to play a tile)."""
    raw = raw_stats(view)
    p = win_estimate(view, raw)
    lo, hi = view.min_bet, view.max_bet
    scale = PAYOUT * hi
    edge = 3.5 * p - 1.0
    out[0] = p
    out[1] = 0.5 + 0.5 * max(-1.0, min(1.0, edge))
    out[2] = p > BREAK_EVEN
    out[3] = min(1.0, max(0.0, 0.5 + lo * edge / (2 * scale)))
    out[4] = min(1.0, max(0.0, 0.5 + hi * edge / (2 * scale)))
    out[5:9] = raw[0:4]
    left = _turns_left(view)
    if left is not None:
        out[9 + min(left, 2)] = 1.0
    out[12] = view.bets[view.player] / hi
    counts = raw[7:11]
    out[13] = counts[0] / 7.0
    out[14] = raw[11] / 7.0
    out[15] = (counts[0] - raw[11] + 7.0) / 14.0
    out[16] = raw[12] / 9.0
    out[17] = min(1.0, raw[13] * 10.0 / 70.0)
    out[18] = raw[14] / 7.0
    out[19] = min(1.0, raw[16] * 10.0 / 16.0)
    out[20] = raw[17] / 9.0
    n = view.num_players
    for i in range(1, 4):
        out[20 + i] = len(view.void[(view.player + i) % n]) / 9.0 if i < n else 0.0
    out[24] = raw[21] / 9.0
    out[25] = min(1.0, raw[22] / 7.0)
    out[26] = raw[19]
    out[27] = len(view.line) / 36.0
    out[28] = raw[20]
    plays = [a for a in legal_plays if a < PLAY_ACTIONS]
    if plays:
        hand = set(view.hand)
        nxt = next_active_seat(view)
        best, best_key = -1, None
        for a in plays:
            s = tile_score(view, a, hand, nxt)
            out[SCORE + a] = min(1.0, s / 40.0)
            key = (s, -a)
            if best_key is None or key > best_key:
                best, best_key = a, key
        out[BEST + best] = 1.0


__all__ = ["FEATURES", "fill_features", "raw_stats", "win_estimate", "tile_score", "PASS"]
