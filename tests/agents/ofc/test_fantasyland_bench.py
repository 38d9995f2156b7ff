"""The Fantasyland solver's benchmark runs and reports what docs/benchmarks_fantasyland.md shows."""
from __future__ import annotations

import pytest

from parlor.agents.ofc.fantasyland_bench import main, time_solver


def test_time_solver_reports_ordered_figures():
    t = time_solver(14, hands=5, seed=3)
    assert (t.size, t.hands) == (14, 5)
    assert 0 < t.median <= t.p99 <= t.max and t.mean <= t.max and t.tables_ms >= 0
    assert 1 <= t.visited_median <= t.visited_max <= t.subsets == 2002


def test_cli_prints_one_row_per_size(capsys):
    main(["--hands", "3", "--sizes", "13", "15"])
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| 1")]
    assert [r.split("|")[1].strip() for r in rows] == ["13", "15"]


def test_cli_refuses_no_hands():
    with pytest.raises(SystemExit):
        main(["--hands", "0"])
