"""``parlor bench --ofc-expert``: the expert's CPU per heads-up hand beside the heuristic's."""
from __future__ import annotations

import itertools

import pytest

from parlor.cli import main
from parlor.training.benchmarks.ofc_expert import report, timed_hands


def test_timed_hands_counts_every_turn_of_the_agent() -> None:
    ticks = itertools.count()
    cost = timed_hands("expert:2", {"variant": "pineapple"}, hands=2, clock=lambda: float(next(ticks)))
    # the fake clock ticks once per reading: each timed decision takes exactly 1 "second"
    assert cost.hands == 2 and len(cost.by_turn_s) == 5
    assert cost.by_turn_s[0] == 5.0 and cost.by_turn_s[1:] == (3.0,) * 4   # 5 cards, then 3 a turn (one discarded)
    assert cost.mean_s == sum(cost.by_turn_s) == cost.max_hand_s
    lines = report([cost], {"variant": "pineapple"})
    assert "expert:2" in lines[-1]


def test_bench_option_rejects_bad_budgets(capsys) -> None:
    with pytest.raises(SystemExit, match="positive sample counts"):
        main(["bench", "--ofc-expert", "0,x"])
    with pytest.raises(SystemExit, match="heads-up"):
        main(["bench", "--ofc-expert", "4", "--option", "num_players=3"])


def test_bench_times_other_agents_beside_the_heuristic(capsys) -> None:
    assert main(["bench", "--ofc-agents", "random", "--hands", "1"]) == 0
    rows = capsys.readouterr().out
    assert "heuristic" in rows and "random" in rows and "expert" not in rows
    with pytest.raises(SystemExit, match="--ofc-agents ',': comma-separated agent names"):
        main(["bench", "--ofc-agents", ","])
