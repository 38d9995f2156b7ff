"""The compiled production path against the test oracle (``tests/ofc_outlook/oracle.py``):
``envs.ofc_outlook.turn_kernel`` (a turn's completion, best plans and outlook; its floats
within a relative 1e-12, the oracle's numpy means summing in another order) and
``envs.ofc_outlook.block_kernel`` (the block's board part, read off the observation vector,
byte for byte); and the outlook's per-turn cache across branches of one position."""
from __future__ import annotations

import math

import numpy as np
import pytest

from parlor.envs.ofc.game import make_game
from parlor.envs.ofc_outlook import features as F
from parlor.envs.ofc_outlook import outlook as O
from parlor.envs.ofc_outlook.rollouts import assignments, completed_stats, kernel, plans_of, room_of, turn_plans
from tests.ofc_outlook import oracle


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


def _fixed(board, pending) -> np.ndarray:
    """The turn's known cards as the kernels take them: the pending cards, then the rows."""
    return np.array([*pending, *board[0], *board[1], *board[2]], dtype=np.int64)


def _turn_inputs(board, pending, seen, key) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What ``turn_stats`` (the kernel's and the oracle's) takes before the plans."""
    return O._noise_order(key % O.NOISE_TABLES), np.array(seen, dtype=np.int64), _fixed(board, pending)


def _kernel_turn(board, pending, owed, seen, key, fl_next):
    plans = turn_plans(tuple(room_of(board)), len(pending), owed)
    tree = O.prefix_tree(plans)
    out = kernel().turn_stats(*_turn_inputs(board, pending, seen, key), plans, tree, fl_next, O._SCALES)
    return plans, tree, out


def _kernel_turns(seed: int, trials: int):
    """``trials`` random turns from ``seed``, each with its key, Fantasyland flag and the kernel's turn."""
    rng = np.random.default_rng(seed)
    for trial in range(trials):
        board, pending, owed, seen = _random_turn(rng)
        key, fl_next = int(rng.integers(0, 2**31)), bool(trial % 2)
        yield trial, (board, pending, owed, seen), key, fl_next, _kernel_turn(board, pending, owed, seen, key, fl_next)


STATS = ("foul", "royalty", "strength", "fantasyland", "value")
EXACT = STATS[:4]   # means of integers and dyadic fractions: exact in any order of summation


def assert_stats_close(got: np.ndarray, want, context) -> None:
    """The kernel's [5, C] statistics against the oracle's :class:`TurnStats`: the foul,
    royalty, strength and Fantasyland means exactly, the value within a relative 1e-12."""
    for k, name in enumerate(STATS):
        if name in EXACT:
            assert got[k].tobytes() == getattr(want, name).tobytes(), (context, name)
        else:
            np.testing.assert_allclose(got[k], getattr(want, name), rtol=1e-12, atol=1e-12, err_msg=f"{context} {name}")


def test_turn_kernel_statistics_equal_the_numpy_completion() -> None:
    for trial, (board, pending, _, seen), key, fl_next, (plans, _, (stats, _, _)) in _kernel_turns(11, 60):
        unseen = [c for c in range(52) if c not in seen]
        future = oracle.outlook_future(key, unseen, plans.free)
        assert_stats_close(stats, oracle.complete(plans, board, pending, future).rows().stats(fl_next), trial)


def test_completion_stats_equal_the_numpy_completion_for_any_draws() -> None:
    # the heuristic's and the advisors' path: the draws given (here 96 samples, as foul_risk
    # takes), a subset of the candidates or all of them
    rng = np.random.default_rng(12)
    for trial in range(40):
        board, pending, owed, seen = _random_turn(rng)
        plans = turn_plans(tuple(room_of(board)), len(pending), owed)
        unseen = np.array([c for c in range(52) if c not in seen])
        future = np.stack([rng.permutation(unseen)[:plans.free] for _ in range(96)]).astype(np.int64)
        fl_next = bool(trial % 2)
        got = kernel().completion_stats(future, _fixed(board, pending), plans, fl_next)
        assert_stats_close(got, oracle.complete(plans, board, pending, future).rows().stats(fl_next), trial)


def test_completed_stats_equal_the_oracles_for_a_game_view() -> None:
    game = make_game(variant="pineapple")
    state = game.new_state(np.random.default_rng(4))
    rng = np.random.default_rng(0)
    checked = 0
    while not state.is_terminal():
        view = state.view(state.current_player)
        if view.pending and not view.fantasyland[view.player]:
            plans = plans_of(view)

            def noise(pool, seed=checked):
                return np.random.default_rng(seed).random((32, len(pool)))

            got = completed_stats(view, plans, noise)
            want = oracle.completed_stats(view, plans, noise)
            assert_stats_close(np.array([getattr(got, n) for n in STATS]), want, checked)
            checked += 1
        state.apply(int(rng.choice(np.flatnonzero(state.legal_mask()))))
    assert checked >= 5


def test_turn_kernel_best_plans_and_outlooks_equal_the_python_reading() -> None:
    rng = np.random.default_rng(5)
    for trial in range(40):
        board, pending, owed, seen = _random_turn(rng)
        plans, tree, (stats, best, outlooks) = _kernel_turn(board, pending, owed, seen, int(rng.integers(0, 2**31)),
                                                            bool(trial % 3))
        assert sorted(tree.ids.values()) == list(range(tree.size))
        want_best, want_outlooks = oracle.best_and_outlooks(stats, plans, tree, O._SCALES)
        for p in tree.ids.values():
            assert tree.actions[p] == tuple(a for a in range(4) if want_best[p, a] >= 0)
        assert best.tolist() == want_best.tolist(), trial
        assert outlooks.tolist() == want_outlooks.tolist(), trial
        assert len(plans.dests) == len(list(assignments(pending, room_of(board), owed)))


def test_turn_kernel_equals_the_oracles_whole_turn() -> None:
    for trial, (board, pending, _, seen), key, fl_next, (plans, tree, (stats, best, outlooks)) in _kernel_turns(6, 20):
        want = oracle.turn_stats(*_turn_inputs(board, pending, seen, key), plans, tree, fl_next, O._SCALES)
        np.testing.assert_allclose(stats, want[0], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(outlooks, want[2], rtol=1e-12, atol=1e-12)
        # the same plans per prefix and action, or (a near-tie the sums' order flips) plans as good
        assert ((best < 0) == (want[1] < 0)).all(), trial
        np.testing.assert_allclose(stats[4][best], want[0][4][want[1]], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("options", [
    {"variant": "pineapple"},
    {"variant": "pineapple", "num_players": 3, "num_hands": 3},
    {"variant": "original", "num_players": 4, "num_hands": 2, "fl_cards": "progressive"},
])
def test_compiled_observe_equals_encode_and_the_oracles_block_for_every_seat(options: dict) -> None:
    game = make_game(features=True, **options)
    checked = 0
    for seed in range(4):
        rng = np.random.default_rng(seed)
        state = game.new_state(rng)
        while True:
            for p in range(game.num_players):   # every seat, its own turn or not, the terminal state too
                view = state.view(p)
                observed = game.observe(state, p)
                assert observed.tobytes() == game.encode(view).tobytes()
                block = F.block_of(observed, game.num_players)
                assert np.asarray(block).tobytes() == oracle.features(view).tobytes()
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
