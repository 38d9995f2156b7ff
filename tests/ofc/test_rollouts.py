"""envs.ofc.rollouts: the vectorized completion of candidate boards."""
from __future__ import annotations

import numpy as np

from parlor.envs.ofc.game import make_game
from parlor.envs.ofc.rollouts import board_stats, completed_stats


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


def test_completed_stats_fills_every_candidate_shape_like_the_row_by_row_reference() -> None:
    rng = np.random.default_rng(7)
    game = make_game(variant="pineapple", num_players=2)
    view = game.new_state(np.random.default_rng(0)).view(0)
    for _ in range(20):
        cards = rng.permutation(52)
        placed = int(rng.integers(0, 12))
        board_cards = cards[:placed].tolist()
        boards = []
        for _ in range(int(rng.integers(1, 30))):
            sizes = [0, 0, 0]
            rows = [[], [], []]
            for c in board_cards:   # random rows with room: candidates of many shapes
                row = int(rng.choice([r for r in range(3) if sizes[r] < (3, 5, 5)[r]]))
                rows[row].append(c)
                sizes[row] += 1
            boards.append(rows)
        future = np.stack([rng.permutation(cards[placed:])[:13 - placed] for _ in range(16)])
        got, want = completed_stats(boards, future, view), _reference(boards, future, view.hand_index + 1 < view.num_hands)
        for name in ("foul", "royalty", "strength", "fantasyland", "value"):
            np.testing.assert_array_equal(getattr(got, name), getattr(want, name), err_msg=name)
