"""How fast the exact Fantasyland solver is: random hands of each size, timed one by one.

    python -m parlor.agents.ofc.fantasyland_bench --hands 10000

solves ``hands`` random hands (drawn from a shuffled 52-card deck, seeded) of
each size, times every :func:`parlor.agents.ofc.fantasyland.solve` call (the
whole call: checks, search, the board) and prints the median, 99th percentile
and maximum per size, and how many bottoms the search looked under (median
and maximum, counted in a second, untimed solve). The per-size index tables
are built before the clock starts (once per process; their build time is
printed apart). The figures in ``docs/benchmarks_fantasyland.md`` come from
this command.
"""
from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from parlor.agents.ofc.fantasyland import DEFAULT_STAY_VALUE, bottoms_visited, solve, tables


@dataclass(frozen=True)
class SolverTimes:
    """Per-hand solve times of one hand size, in milliseconds."""

    size: int
    hands: int
    median: float
    p99: float
    max: float
    mean: float
    tables_ms: float   # building the size's index tables (once per process, not in the figures above)
    visited_median: float   # bottoms the search looked under (of ``subsets`` 5-card subsets), untimed rerun
    visited_max: int
    subsets: int


def time_solver(size: int, hands: int, seed: int = 0, fl_stay: str = "trips_fh_quads",
                stay_value: float = DEFAULT_STAY_VALUE) -> SolverTimes:
    """Solve ``hands`` random ``size``-card hands and time each call."""
    start = time.perf_counter()
    tables(size)
    tables_ms = 1000 * (time.perf_counter() - start)
    rng = np.random.default_rng([seed, size])
    times, visited = np.empty(hands), np.empty(hands, dtype=np.int64)
    for i in range(hands):
        cards = rng.permutation(52)[:size].tolist()
        start = time.perf_counter()
        solve(cards, fl_stay, stay_value)
        times[i] = time.perf_counter() - start
        visited[i], subsets = bottoms_visited(cards, fl_stay, stay_value)
    times *= 1000
    return SolverTimes(size, hands, float(np.median(times)), float(np.percentile(times, 99)), float(times.max()),
                       float(times.mean()), tables_ms, float(np.median(visited)), int(visited.max()), subsets)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="time the exact Fantasyland solver on random hands")
    parser.add_argument("--hands", type=int, default=10_000, help="random hands per size")
    parser.add_argument("--sizes", type=int, nargs="+", default=[14, 15, 16, 17], choices=range(13, 18))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--fl-stay", default="trips_fh_quads", choices=("trips_fh_quads", "trips_quads", "none"))
    parser.add_argument("--stay-value", type=float, default=DEFAULT_STAY_VALUE)
    args = parser.parse_args(argv)
    if args.hands < 1:
        parser.error(f"--hands must be >= 1, got {args.hands}")
    print(f"exact Fantasyland solver, {args.hands} random hands per size, seed {args.seed}, "
          f"fl_stay={args.fl_stay}, stay_value={args.stay_value:g}")
    print("| cards | hands | median ms | p99 ms | max ms | mean ms | tables ms (once) | bottoms visited: "
          "median / max / of |")
    print("|---|---|---|---|---|---|---|---|")
    for size in args.sizes:
        t = time_solver(size, args.hands, args.seed, args.fl_stay, args.stay_value)
        print(f"| {t.size} | {t.hands} | {t.median:.2f} | {t.p99:.2f} | {t.max:.2f} | {t.mean:.2f} | "
              f"{t.tables_ms:.0f} | {t.visited_median:g} / {t.visited_max} / {t.subsets} |", flush=True)


if __name__ == "__main__":
    main()
