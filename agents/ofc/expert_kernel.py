"""The OFC expert's inner loops, compiled (numba): sampled worlds played to the showdown.

:func:`candidate_values` scores every candidate placement of a regular turn by the
points it earns at the showdown, averaged over ``K`` sampled worlds (the same worlds
for every candidate: common random numbers). A world is a random order of the seat's
unseen cards; it deals, in this order, the hidden Fantasyland boards of the opponents
(solved outside, :mod:`agents.ofc.expert`), the seat's own later turns, then each
regular opponent's later turns. In each world:

- every regular opponent completes his board once (it does not depend on our
  candidate) with the *rollout policy* below;
- for each candidate, our board gets the candidate's cards and is completed with
  the rollout policy, except our last turn, which is played exactly: every legal
  completion is scored against the opponents' finished boards of the world
  (points plus the Fantasyland value) and the best is kept;
- the finished boards are scored as the showdown scores them (rows won, scoop,
  fouls, royalties on both sides: ``envs.ofc.scoring.pair_points``) plus
  ``fl_value`` when our board earns Fantasyland and another hand follows.

The rollout policy places each later turn's cards greedily: of every legal way to
place them it keeps the one whose board scores best over ``fills`` random fillings of
its free slots with cards the seat has not been dealt in the world (the same fillings
for every placement; half of them routed strongest-first, bottom then middle then top,
as :mod:`envs.ofc_outlook.rollouts` does); a filled board scores ``-foul_cost`` if fouled, else
its royalties, ``row_weight`` per category of row strength and ``fl_value`` for a
Fantasyland top when another hand follows.

Rows are carried as sums of the evaluator's card keys (``envs.engine.hands.CARD_KEY``),
ranked by the shared tables (``ROW_TABLE``; the top row from ``TOP_ROWS`` on) and paid
by ``envs.ofc_outlook.rollouts.LEAD_ROYALTY``: the hand evaluator and royalties of the game, not
a second copy. All randomness comes from the ``seed`` argument (numba's generator,
seeded at each call), so a call is a pure function of its arguments.
"""
from __future__ import annotations

from collections.abc import Sequence

import numba
import numpy as np

from parlor.envs.engine.hands import CARD_KEY, FLUSH_OFFSET, RANK_MASK, ROW_TABLE, SUIT_SHIFT, TOP_ROWS
from parlor.envs.ofc.scoring import ROWS_PLUS_SCOOP, SCOOP_BONUS
from parlor.envs.ofc_outlook.rollouts import LEAD_FL, LEAD_ROYALTY, LEAD_SHIFT, STRENGTH_UNIT
from parlor.envs.ofc_outlook.turn_kernel import sort_descending

LEADS = len(LEAD_FL)         # LEAD_ROYALTY holds one block of this many per row (top, middle, bottom)
DISCARD = 3
CAPACITY = (3, 5, 5)
# a finished board as the kernel returns it: top, middle, bottom rank, royalty, fouled (0/1), Fantasyland top (0/1)
RESULT = 6


@numba.njit(cache=True, nogil=True)
def _rank(keys: int, row: int, row_table: np.ndarray, flush_offset: np.ndarray) -> int:
    """The rank of a full row from its key sum (row 0 is the 3-card top)."""
    base = TOP_ROWS if row == 0 else 0
    return row_table[(keys & RANK_MASK) + flush_offset[keys >> SUIT_SHIFT] + base]


@numba.njit(cache=True, nogil=True)
def _ranks(keys: np.ndarray, tabs) -> tuple[int, int, int]:
    """The top, middle and bottom ranks of the full rows with key sums ``keys`` [3]."""
    row_table, flush_offset = tabs[0], tabs[1]
    # rows as int64, not constants: numba would compile _rank once per constant
    top, middle, bottom = np.int64(0), np.int64(1), np.int64(2)
    return (_rank(keys[0], top, row_table, flush_offset), _rank(keys[1], middle, row_table, flush_offset),
            _rank(keys[2], bottom, row_table, flush_offset))


@numba.njit(cache=True, nogil=True)
def _royalty(t: int, m: int, b: int, lead_royalty: np.ndarray) -> float:
    return (lead_royalty[t >> LEAD_SHIFT] + lead_royalty[LEADS + (m >> LEAD_SHIFT)]
            + lead_royalty[2 * LEADS + (b >> LEAD_SHIFT)])


@numba.njit(cache=True, nogil=True)
def _finish(keys: np.ndarray, out: np.ndarray, tabs) -> None:
    """``out`` [RESULT]: the finished board of the row key sums ``keys`` [3]."""
    t, m, b = _ranks(keys, tabs)
    out[0], out[1], out[2] = t, m, b
    if t > m or m > b:
        out[3], out[4], out[5] = 0.0, 1.0, 0.0
    else:
        out[3], out[4], out[5] = _royalty(t, m, b, tabs[2]), 0.0, tabs[3][t >> LEAD_SHIFT]


@numba.njit(cache=True, nogil=True)
def _pair_points(a: np.ndarray, b: np.ndarray) -> float:
    """What board ``a`` receives from board ``b`` (``envs.ofc.scoring.pair_points``)."""
    if a[4] > 0.0:
        return 0.0 if b[4] > 0.0 else -(ROWS_PLUS_SCOOP + b[3])
    if b[4] > 0.0:
        return ROWS_PLUS_SCOOP + a[3]
    won = 0
    lost = 0
    for r in range(3):
        if a[r] > b[r]:
            won += 1
        elif a[r] < b[r]:
            lost += 1
    scoop = SCOOP_BONUS if won == 3 else (-SCOOP_BONUS if lost == 3 else 0)
    return won - lost + scoop + a[3] - b[3]


@numba.njit(cache=True, nogil=True)
def _fillings(cards: np.ndarray, lo: int, free: int, fills: int, out: np.ndarray) -> None:
    """``out`` [fills, free]: random draws of ``free`` distinct cards of ``cards[lo:]``,
    the first half sorted strongest-first."""
    n = cards.shape[0] - lo
    scratch = cards[lo:].copy()
    for r in range(fills):
        for i in range(free):
            j = i + np.random.randint(0, n - i)
            scratch[i], scratch[j] = scratch[j], scratch[i]
            out[r, i] = scratch[i]
        if r < fills // 2:
            sort_descending(out[r, :free])


@numba.njit(cache=True, nogil=True)
def _filling_sums(cards: np.ndarray, lo: int, free: int, fills: int, card_key: np.ndarray, fill: np.ndarray,
                  out: np.ndarray) -> None:
    """``out`` [fills, free + 1]: for each of ``fills`` random fillings of ``free`` slots from
    ``cards[lo:]`` (:func:`_fillings`, drawn into the scratch ``fill``), the key sums of its
    first 0..free cards, so a row's share of a filling is a difference of two (key sums are
    integers: exact)."""
    _fillings(cards, lo, free, fills, fill)
    for r in range(fills):
        out[r, 0] = 0
        for i in range(free):
            out[r, i + 1] = out[r, i] + card_key[fill[r, i]]


@numba.njit(cache=True, nogil=True)
def _ranked_value(t: int, m: int, b: int, params: np.ndarray, tabs) -> float:
    """The rollout policy's score of a full board of row ranks ``t``, ``m``, ``b``:
    -foul_cost, or royalties + row strength + Fantasyland."""
    if t > m or m > b:
        return -params[1]
    value = _royalty(t, m, b, tabs[2]) + params[2] * (t + m + b) / STRENGTH_UNIT
    return value + params[3] * tabs[3][t >> LEAD_SHIFT]


def _destination_counts(max_cards: int) -> np.ndarray:
    """[max_cards + 1, 4 ** max_cards, 4]: for ``k`` cards and destination code ``code`` (2 bits
    per card), how many go to the top, middle and bottom and how many are discarded."""
    out = np.zeros((max_cards + 1, 4 ** max_cards, 4), dtype=np.int64)
    for k in range(max_cards + 1):
        for code in range(4 ** k):
            for i in range(k):
                out[k, code, (code >> (2 * i)) & 3] += 1
    return out


MAX_TURN_CARDS = 5   # the most cards a later turn deals (the opening's five: never a later turn in the shipped variants)
DESTINATION_COUNTS = _destination_counts(MAX_TURN_CARDS)


@numba.njit(cache=True, nogil=True)
def _placement_ok(code: int, k: int, d: int, counts: np.ndarray, dest_counts: np.ndarray) -> bool:
    """Whether destination code ``code`` (2 bits per card) of ``k`` cards fits the rows and
    discards exactly ``d`` (``dest_counts``: :data:`DESTINATION_COUNTS`)."""
    return (dest_counts[k, code, DISCARD] == d and dest_counts[k, code, 0] <= CAPACITY[0] - counts[0]
            and dest_counts[k, code, 1] <= CAPACITY[1] - counts[1] and dest_counts[k, code, 2] <= CAPACITY[2] - counts[2])


@numba.njit(cache=True, nogil=True)
def _copy(source: np.ndarray, target: np.ndarray) -> None:
    """``target[:] = source`` (same length), element by element: a slice assignment compiles
    numba's shape-mismatch error message (string formatting: seconds of the first compile)."""
    for i in range(target.shape[0]):
        target[i] = source[i]


@numba.njit(cache=True, nogil=True)
def _apply(code: int, cards: np.ndarray, keys: np.ndarray, counts: np.ndarray, card_key: np.ndarray) -> None:
    for i in range(cards.shape[0]):
        dest = (code >> (2 * i)) & 3
        if dest != DISCARD:
            keys[dest] += card_key[cards[i]]
            counts[dest] += 1


@numba.njit(cache=True, nogil=True)
def _placed(code: int, cards: np.ndarray, keys: np.ndarray, counts: np.ndarray, card_key: np.ndarray,
            trial_keys: np.ndarray, trial_counts: np.ndarray) -> None:
    """``trial_keys``/``trial_counts``: the board ``keys``/``counts`` after the legal placement ``code``.
    (Not merged with :func:`_placement_ok` into one call that reports legality: that shape
    made numba's call cost about eight times the loop's own work.)"""
    _copy(keys, trial_keys)
    _copy(counts, trial_counts)
    _apply(code, cards, trial_keys, trial_counts, card_key)


@numba.njit(cache=True, nogil=True)
def _greedy_turn(cards: np.ndarray, d: int, keys: np.ndarray, counts: np.ndarray, sums: np.ndarray,
                 card_key: np.ndarray, params: np.ndarray, tabs) -> None:
    """Place ``cards`` (discarding ``d``) where the rollout score over the fillings of prefix
    key sums ``sums`` [fills, free + 1] (:func:`_filling_sums`) is best: each filling fills the
    bottom's free slots first, then the middle's, then the top's."""
    k = cards.shape[0]
    fills = sums.shape[0]
    best_code, best = np.int64(-1), -np.inf   # int64 from the start: one compile of _apply
    trial_keys = np.empty(3, dtype=np.int64)
    trial_counts = np.empty(3, dtype=np.int64)
    top, middle, bottom = np.int64(0), np.int64(1), np.int64(2)
    for code in range(1 << (2 * k)):
        if not _placement_ok(code, k, d, counts, tabs[4]):
            continue
        _placed(code, cards, keys, counts, card_key, trial_keys, trial_counts)
        to_bottom = CAPACITY[2] - trial_counts[2]
        to_middle = to_bottom + CAPACITY[1] - trial_counts[1]
        to_top = to_middle + CAPACITY[0] - trial_counts[0]
        total = 0.0
        for r in range(fills):
            b = _rank(trial_keys[2] + sums[r, to_bottom], bottom, tabs[0], tabs[1])
            m = _rank(trial_keys[1] + sums[r, to_middle] - sums[r, to_bottom], middle, tabs[0], tabs[1])
            t = _rank(trial_keys[0] + sums[r, to_top] - sums[r, to_middle], top, tabs[0], tabs[1])
            total += _ranked_value(t, m, b, params, tabs)
        if total > best:
            best, best_code = total, code
    _apply(best_code, cards, keys, counts, card_key)


@numba.njit(cache=True, nogil=True)
def _complete_opponent(world: np.ndarray, start: int, keys: np.ndarray, counts: np.ndarray, sk: np.ndarray,
                       sd: np.ndarray, turns: int, fills: int, card_key: np.ndarray, params: np.ndarray, tabs,
                       out: np.ndarray) -> None:
    """An opponent's board completed by the rollout policy from ``world[start:]``; ``out`` [RESULT]."""
    pos = start
    fill = np.empty((fills, 13), dtype=np.int64)
    sums = np.empty((fills, 14), dtype=np.int64)
    for j in range(turns):
        dealt = world[pos:pos + sk[j]]
        pos += sk[j]
        free = 13 - counts[0] - counts[1] - counts[2] - (sk[j] - sd[j])
        _filling_sums(world, pos, free, fills, card_key, fill, sums)
        _greedy_turn(dealt, sd[j], keys, counts, sums[:, :free + 1], card_key, params, tabs)
    _finish(keys, out, tabs)


@numba.njit(cache=True, nogil=True)
def _last_turn(cards: np.ndarray, d: int, keys: np.ndarray, counts: np.ndarray, opps: np.ndarray,
               fl_value: float, tabs, card_key: np.ndarray) -> float:
    """The best score of every legal completion of the board by its last turn's ``cards``:
    points against the finished boards ``opps`` [Q, RESULT] plus the Fantasyland value."""
    k = cards.shape[0]
    best = -np.inf
    trial_keys = np.empty(3, dtype=np.int64)
    trial_counts = np.empty(3, dtype=np.int64)
    board = np.empty(RESULT)
    for code in range(1 << (2 * k)):
        if not _placement_ok(code, k, d, counts, tabs[4]):
            continue
        _placed(code, cards, keys, counts, card_key, trial_keys, trial_counts)
        score = _score(trial_keys, opps, fl_value, tabs, board)
        if score > best:
            best = score
    return best


@numba.njit(cache=True, nogil=True)
def _score(keys: np.ndarray, opps: np.ndarray, fl_value: float, tabs, board: np.ndarray) -> float:
    """Points of the finished board ``keys`` against ``opps`` plus the Fantasyland value it earns."""
    _finish(keys, board, tabs)
    total = 0.0
    for q in range(opps.shape[0]):
        total += _pair_points(board, opps[q])
    return total + fl_value * board[5]


@numba.njit(cache=True, nogil=True)
def _candidate_values(dests, pending, own_keys, own_counts, sk, sd, worlds, fl_boards, opp_keys, opp_counts,
                      opp_sk, opp_sd, opp_turns, opp_start, own_start, discards, fills, params, seed, card_key, tabs):
    np.random.seed(seed)
    num_cands, n = dests.shape
    num_worlds = worlds.shape[0]
    num_fl, num_reg = fl_boards.shape[0], opp_keys.shape[0]
    own_turns = sk.shape[0]
    fl_value = params[0]
    values = np.zeros(num_cands)
    opps = np.empty((num_fl + num_reg, RESULT))
    keys = np.empty(3, dtype=np.int64)
    counts = np.empty(3, dtype=np.int64)
    board = np.empty(RESULT)
    codes = np.zeros(num_cands, dtype=np.int64)
    for c in range(num_cands):
        for i in range(n):
            codes[c] |= np.int64(dests[c, i]) << (2 * i)
    fill = np.empty((fills, 13), dtype=np.int64)
    sums = np.empty((max(own_turns, 1), fills, 14), dtype=np.int64)
    free_at = np.zeros(max(own_turns, 1), dtype=np.int64)
    for w in range(num_worlds):
        world = worlds[w]
        for q in range(num_fl):
            _copy(fl_boards[q, w], opps[q])
        for q in range(num_reg):
            _copy(opp_keys[q], keys)
            _copy(opp_counts[q], counts)
            _complete_opponent(world, opp_start[q], keys, counts, opp_sk[q], opp_sd[q], opp_turns[q], fills,
                               card_key, params, tabs, opps[num_fl + q])
        # our fillings per later turn (all but the last): shared by every candidate
        pos = own_start
        placed = own_counts[0] + own_counts[1] + own_counts[2] + n - discards
        for j in range(own_turns):
            pos += sk[j]
            placed += sk[j] - sd[j]
            if j < own_turns - 1:
                free_at[j] = 13 - placed
                _filling_sums(world, pos, free_at[j], fills, card_key, fill, sums[j])
        for c in range(num_cands):
            _copy(own_keys, keys)
            _copy(own_counts, counts)
            _apply(codes[c], pending, keys, counts, card_key)
            if own_turns == 0:
                values[c] += _score(keys, opps, fl_value, tabs, board)
                continue
            pos = own_start
            for j in range(own_turns - 1):
                _greedy_turn(world[pos:pos + sk[j]], sd[j], keys, counts, sums[j, :, :free_at[j] + 1], card_key,
                             params, tabs)
                pos += sk[j]
            j = own_turns - 1
            values[c] += _last_turn(world[pos:pos + sk[j]], sd[j], keys, counts, opps, fl_value, tabs, card_key)
    return values / num_worlds


def candidate_values(dests: np.ndarray, pending: Sequence[int] | np.ndarray, own_keys: np.ndarray, own_counts: np.ndarray,
                     schedule: np.ndarray, worlds: np.ndarray, fl_boards: np.ndarray, opp_keys: np.ndarray,
                     opp_counts: np.ndarray, opp_schedule: np.ndarray, opp_turns: np.ndarray, opp_start: np.ndarray,
                     own_start: int, discards: int, fills: int, fl_value: float, foul_cost: float, row_weight: float,
                     rollout_fl: float, seed: int) -> np.ndarray:
    """Mean showdown score per candidate over ``worlds`` (see the module docstring).

    ``dests`` [C, n]: destinations (0 top, 1 middle, 2 bottom, 3 discard) of the ``pending``
    cards; ``own_keys``/``own_counts`` [3]: our rows' key sums and card counts;
    ``schedule`` [J, 2]: (cards dealt, discards owed) of our later turns; ``worlds`` [K, P]:
    orders of the unseen cards (our later turns deal from ``own_start``); ``discards``:
    how many of the pending cards every candidate discards;
    ``fl_boards`` [F, K, RESULT]: the hidden Fantasyland opponents' finished boards per
    world; regular opponents: ``opp_keys``/``opp_counts`` [Q, 3], ``opp_schedule`` [Q, T, 2],
    ``opp_turns`` [Q] (how many of the T are real), ``opp_start`` [Q] (where in a world
    their cards start). ``fl_value``: points of earning Fantasyland (0 without a next
    hand); the rollout policy scores a filled board with ``foul_cost``, ``row_weight`` and
    ``rollout_fl``."""
    params = np.array([fl_value, foul_cost, row_weight, rollout_fl], dtype=np.float64)
    sched = np.asarray(schedule, dtype=np.int64).reshape(-1, 2)
    osched = np.asarray(opp_schedule, dtype=np.int64)
    if osched.ndim != 3 or osched.shape[0] != len(opp_keys) or osched.shape[2] != 2:
        raise ValueError(f"opp_schedule must be [Q, T, 2] for Q = {len(opp_keys)} opponents, got {osched.shape}")
    dealt = np.concatenate((sched[:, 0], osched[:, :, 0].ravel()))
    if dealt.size and dealt.max() > MAX_TURN_CARDS:
        raise ValueError(f"a later turn deals {int(dealt.max())} cards; the kernel plays turns of at most "
                         f"{MAX_TURN_CARDS} (MAX_TURN_CARDS)")
    tabs = (ROW_TABLE, FLUSH_OFFSET, LEAD_ROYALTY, LEAD_FL, DESTINATION_COUNTS)
    return _candidate_values(
        np.ascontiguousarray(dests, dtype=np.int64), np.asarray(pending, dtype=np.int64),
        np.asarray(own_keys, dtype=np.int64).reshape(3), np.asarray(own_counts, dtype=np.int64).reshape(3),
        np.ascontiguousarray(sched[:, 0]), np.ascontiguousarray(sched[:, 1]),
        np.ascontiguousarray(worlds, dtype=np.int64), np.asarray(fl_boards, dtype=np.float64).reshape(-1, len(worlds), RESULT),
        np.asarray(opp_keys, dtype=np.int64).reshape(-1, 3), np.asarray(opp_counts, dtype=np.int64).reshape(-1, 3),
        np.ascontiguousarray(osched[:, :, 0]), np.ascontiguousarray(osched[:, :, 1]),
        np.asarray(opp_turns, dtype=np.int64), np.asarray(opp_start, dtype=np.int64),
        int(own_start), int(discards), int(fills), params, int(seed), CARD_KEY.astype(np.int64), tabs)
