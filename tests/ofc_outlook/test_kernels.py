"""The compiled parts of the ``features=True`` observation against the numpy / Python code
they replace: ``envs.ofc_outlook.turn_kernel`` (a turn's completion, best plans and outlook) and
``envs.ofc_outlook.block_kernel`` (the block's board part, read off the observation vector), bit
for bit; and the outlook's per-turn cache across branches of one position."""
from __future__ import annotations

import math

import numpy as np
import pytest

from parlor.envs.ofc.game import make_game
from parlor.envs.ofc_outlook import features as F
from parlor.envs.ofc_outlook import outlook as O
from parlor.envs.ofc_outlook.rollouts import assignments, room_of, turn_plans


def _random_turn(rng: np.random.Generator) -> tuple[list[list[int]], list[int], int, list[int]]:
    """(board, pending, discards owed, seen cards) of a random regular turn."""
    cards = rng.permutation(52).tolist()
    placed = int(rng.integers(0, 11))
    board: list[list[int]] = [[], [], []]
    for c in cards[:placed]:
        board[int(rng.choice([r for r in range(3) if len(board[r]) < (3, 5, 5)[r]]))].append(c)
    n = int(rng.integers(1, min(5, sum(room_of(board))) + 1))
    owed = int(rng.integers(0, 2)) if n > 1 and n < 5 else 0
    pending = cards[placed:placed + n]
    others = cards[placed + n:placed + n + int(rng.integers(0, 12))]   # an opponent's cards, discards
    return board, pending, owed, sorted(cards[:placed + n] + others)


def _kernel_turn(board, pending, owed, seen, key, fl_next):
    plans = turn_plans(tuple(room_of(board)), len(pending), owed)
    tree = O.prefix_tree(plans)
    fixed = np.array([*pending, *board[0], *board[1], *board[2]], dtype=np.int64)
    out = O.kernel().turn_stats(O._noise_order(key % O.NOISE_TABLES), np.array(seen, dtype=np.int64), fixed, plans,
                                tree, fl_next, O._SCALES)
    return plans, tree, out


def test_pairwise_sum_is_numpys_row_sum() -> None:
    rng = np.random.default_rng(3)
    for n in range(1, 129):
        x = rng.random((4, n)) * rng.integers(1, 10**6, (4, n))
        want = np.add.reduce(x, axis=1)
        got = [O.kernel()._pairwise_sum(row) for row in x]
        assert np.asarray(got).tobytes() == want.tobytes(), n


def test_turn_kernel_statistics_equal_the_numpy_completion() -> None:
    rng = np.random.default_rng(11)
    for trial in range(60):
        board, pending, owed, seen = _random_turn(rng)
        key, fl_next = int(rng.integers(0, 2**31)), bool(trial % 2)
        plans, _, (stats, _, _) = _kernel_turn(board, pending, owed, seen, key, fl_next)
        unseen = [c for c in range(52) if c not in seen]
        want = plans.complete(board, pending, O.outlook_future(key, unseen, plans.free)).rows().stats(fl_next)
        for k, name in enumerate(("foul", "royalty", "strength", "fantasyland", "value")):
            assert stats[k].tobytes() == getattr(want, name).tobytes(), (trial, name)


def test_turn_kernel_best_plans_and_outlooks_equal_the_python_reading() -> None:
    rng = np.random.default_rng(5)
    for trial in range(40):
        board, pending, owed, seen = _random_turn(rng)
        plans, tree, (stats, best, outlooks) = _kernel_turn(board, pending, owed, seen, int(rng.integers(0, 2**31)),
                                                            bool(trial % 3))
        values = stats[4].tolist()
        assert sorted(tree.ids.values()) == list(range(tree.size))
        for taken, p in tree.ids.items():
            k = len(taken)
            first: dict[int, int] = {}   # the best candidate per next action: the first of equals
            for i, dest in enumerate(plans.dests):
                if dest[:k] == taken and (dest[k] not in first or values[i] > values[first[dest[k]]]):
                    first[dest[k]] = i
            assert tree.actions[p] == tuple(sorted(first))
            assert [int(best[p, a]) for a in range(4)] == [first.get(a, -1) for a in range(4)]
            top = max(values[i] for i in first.values())
            want = [0.0] * 28
            for a, i in first.items():
                foul, royalty, strength, fantasyland, value = stats[:, i].tolist()
                want[7 * a:7 * a + 7] = [
                    1.0, foul, min(1.0, royalty / 25.0), min(1.0, strength / 27.0), fantasyland,
                    min(1.0, max(0.0, (value + 7.0) / 40.0)), (value - top) / 2.0]
            assert outlooks[p].tolist() == want, (trial, taken)
        assert len(plans.dests) == len(list(assignments(pending, room_of(board), owed)))


@pytest.mark.parametrize("options", [
    {"variant": "pineapple"},
    {"variant": "pineapple", "num_players": 3, "num_hands": 3},
    {"variant": "original", "num_players": 4, "num_hands": 2, "fl_cards": "progressive"},
])
def test_compiled_observe_equals_encode_of_the_view_for_every_seat(options: dict) -> None:
    game = make_game(features=True, **options)
    checked = 0
    for seed in range(4):
        rng = np.random.default_rng(seed)
        state = game.new_state(rng)
        while True:
            for p in range(game.num_players):   # every seat, its own turn or not, the terminal state too
                assert game.observe(state, p).tobytes() == game.encode(state.view(p)).tobytes()
                checked += 1
            if state.is_terminal():
                break
            state.apply(int(rng.choice(np.flatnonzero(state.legal_mask()))))
    assert checked > 200


def test_outlook_cache_follows_each_branch_of_a_turn() -> None:
    # two branches of one turn share the seen cards (so the cache key): each must read its own
    # placements, as a fresh completion of its position does
    game = make_game(variant="pineapple", features=True)
    state = game.new_state(np.random.default_rng(8))
    for _ in range(10):   # into the second turn of seat 0 or 1, at its first card
        state.apply(int(np.flatnonzero(state.legal_mask())[0]))
    p = state.current_player
    branches = []
    for action in np.flatnonzero(state.legal_mask())[:3]:
        branch = state.clone()
        branch.apply(int(action))
        branches.append(branch)
    assert len(branches) > 1
    cached = [game.observe(b, p) for b in branches for _ in range(2)]
    fresh = []
    for b in branches:
        O._TURNS.clear()
        fresh.append(game.observe(b, p))
    assert [x.tobytes() for x in cached] == [x.tobytes() for x in fresh for _ in range(2)]
    outlooks = {F.block_of(x, game.num_players)[-4 * F.OUTLOOK:].tobytes() for x in fresh}
    assert len(outlooks) == len(branches)   # the branches' outlooks differ: a stale read would show


def test_outlook_of_a_turn_reads_math_exp_of_the_exponent() -> None:
    game = make_game(variant="pineapple", features=True)
    state = game.new_state(np.random.default_rng(2))
    view = state.view(state.current_player)
    seen = tuple(sorted(view.seen_cards()))
    turn, taken = O.outlook_turn(view, F.turn_key(view, seen), seen)
    out = turn.outlook(taken)
    actions, plans = turn.best(taken)
    values = [turn.values[i] for i in plans]
    assert [out[7 * a + 6] for a in actions] == [math.exp((v - max(values)) / 2.0) for v in values]
    assert max(out[7 * a + 6] for a in actions) == 1.0
