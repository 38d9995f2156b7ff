"""envs.ofc_outlook.rollouts: the compiled completion of candidate boards against the oracle's
row-by-row reference (and the oracle's own vectorized completion against it, exactly)."""
from __future__ import annotations

import numpy as np

from parlor.envs.ofc_outlook.rollouts import DISCARD, TurnPlans, assignments, kernel, place, room_of
from tests.ofc_outlook.oracle import board_stats, complete
from tests.ofc_outlook.test_kernels import assert_stats_close


def _reference(boards, future, fl_next_hand):
    """Each candidate's rows filled one by one: fixed cards, then its slice of the draws
    (bottom first, then middle, then top)."""
    tops, mids, bots = [], [], []
    for top, mid, bot in boards:
        fb, fm, ft = 5 - len(bot), 5 - len(mid), 3 - len(top)

        def fill(fixed, drawn):
            fixed = np.broadcast_to(np.asarray(fixed, dtype=np.int64), (len(future), len(fixed)))
            return np.concatenate([fixed, drawn], axis=1)

        bots.append(fill(bot, future[:, :fb]))
        mids.append(fill(mid, future[:, fb:fb + fm]))
        tops.append(fill(top, future[:, fb + fm:fb + fm + ft]))
    return board_stats(np.stack(tops), np.stack(mids), np.stack(bots), fl_next_hand)


def test_turn_plans_complete_every_candidate_like_the_row_by_row_reference() -> None:
    rng = np.random.default_rng(7)
    for trial in range(40):
        cards = rng.permutation(52).tolist()
        placed = int(rng.integers(0, 10))
        board = [[], [], []]
        for c in cards[:placed]:   # a random board with room left
            board[int(rng.choice([r for r in range(3) if len(board[r]) < (3, 5, 5)[r]]))].append(c)
        room = room_of(board)
        n = int(rng.integers(1, min(5, sum(room)) + 1))
        owed = int(rng.integers(0, 2)) if n > 1 else 0
        pending = cards[placed:placed + n]
        cands = list(assignments(pending, room, owed))
        if trial % 2:  # a subset of the candidates, as completed_turn accepts
            cands = [cands[i] for i in sorted(rng.choice(len(cands), size=min(len(cands), 5), replace=False))]
        plans = TurnPlans(tuple(room), n, owed, cands)
        future = np.stack([rng.permutation(cards[placed + n:])[:plans.free] for _ in range(16)])
        fl_next = bool(trial % 3)
        want = _reference([place(board, pending, d) for d in cands], future, fl_next)
        fixed = np.array([*pending, *board[0], *board[1], *board[2]], dtype=np.int64)
        assert_stats_close(kernel().completion_stats(future.astype(np.int64), fixed, plans, fl_next), want, trial)
        arrays = complete(plans, board, pending, future).rows()
        for name in ("foul", "royalty", "strength", "fantasyland", "value"):
            np.testing.assert_array_equal(getattr(arrays.stats(fl_next), name), getattr(want, name), err_msg=name)
        np.testing.assert_array_equal(arrays.values(fl_next), want.value)
        assert all(DISCARD in d or owed == 0 for d in plans.dests)
