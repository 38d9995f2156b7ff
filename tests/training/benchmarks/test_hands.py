"""The hand-evaluator benchmark runs and reports every installed evaluator."""
from __future__ import annotations

import numpy as np

from parlor.envs.engine.hands import rank5_batch
from parlor.training.benchmarks.hands import bench_hands, random_hands


def test_random_hands_have_five_distinct_standard_cards() -> None:
    hands = random_hands(20_000, seed=1)
    assert hands.shape == (20_000, 5) and hands.min() >= 0 and hands.max() < 52
    s = np.sort(hands, axis=1)
    assert (s[:, 1:] != s[:, :-1]).all()
    assert (rank5_batch(hands) > 0).all()


def test_bench_hands_rows() -> None:
    rows = bench_hands(seconds=0.05, batch_n=20_000, scalar_n=1000)
    names = [r["name"] for r in rows]
    assert names[:3] == ["parlor rank5 (scalar)", "parlor rank5_batch (N=20k)", "treys evaluate (scalar)"]
    assert all(r["hands_per_s"] > 0 for r in rows)


def test_summary_states_the_three_targets() -> None:
    from parlor.training.benchmarks.hands import summary

    rows = [{"name": "parlor rank5 (scalar)", "hands_per_s": 2e6},
            {"name": "parlor rank5_batch (N=1M)", "hands_per_s": 60e6},
            {"name": "treys evaluate (scalar)", "hands_per_s": 5e5},
            {"name": "eval7 (compiled, scalar)", "hands_per_s": 1e6}]
    assert summary(rows) == ["rank5 / treys: 4.0x (target >= 2x)",
                             "rank5_batch / fastest compiled: 60.0x (target >= 5x)",
                             "rank5_batch: 60.0 M hands/s (target >= 30 M)"]
