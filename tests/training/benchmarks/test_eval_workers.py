"""``parlor bench --eval-workers``: one ``parlor eval`` per worker count and tree, in fresh processes;
the table compares each count with the first in the same round and checks the episodes agree."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from parlor.training.benchmarks.eval_workers import CPU_TAG, Run, eval_arguments, parse_counts, report, split_cpu

ROOT = Path(__file__).resolve().parents[3]


def test_worker_counts_and_eval_arguments_are_checked() -> None:
    assert parse_counts("1, 2,16") == [1, 2, 16]
    for bad in ("2", "1,0", "1,x", "1,65"):
        with pytest.raises(SystemExit, match="two or more comma-separated worker counts in 1..64"):
            parse_counts(bad)
    assert eval_arguments("tonk_v0 --agents heuristic,random --games 4") == ["tonk_v0", "--agents", "heuristic,random",
                                                                             "--games", "4"]
    with pytest.raises(SystemExit, match="leave out --workers"):
        eval_arguments("tonk_v0 --agents heuristic --workers=2")


def test_the_table_pairs_each_count_with_the_first_of_its_round_and_flags_other_episodes() -> None:
    rounds = [[Run("this code", 1, 10.0, 9.0, "a", 9.0, 0.0), Run("this code", 2, 5.0, 10.0, "a", 4.0, 6.0)],
              [Run("this code", 1, 12.0, 9.0, "a", 9.0, 0.0), Run("this code", 2, 8.0, 9.0, "a", 2.5, 6.0)]]
    lines = report(rounds, [1, 2])
    assert "10.0, 12.0" in lines[1] and "1.00x" in lines[1]
    assert "5.0, 8.0" in lines[2] and "1.75x (1.50-2.00)" in lines[2]
    # idle cores: 9 CPU-s serial against 4 + 6 / 2 = 7 and 3 + 6 / 2 = 6 seconds (the eval process's
    # 3 of the second round: 2.5 to its exit hooks and 0.5 after them, the interpreter's teardown)
    assert rounds[1][1].exit_cpu == 0.5
    assert "3.5+6.0" in lines[2] and "1.39x (1.29-1.50)" in lines[2]
    assert lines[3].endswith("yes")
    rounds[1][1] = Run("this code", 2, 8.0, 10.0, "b", 3.0, 6.0)
    assert report(rounds, [1, 2])[3].endswith("NO (a, b)")


def test_the_cpu_split_is_read_from_the_line_the_eval_prints_at_exit() -> None:
    assert split_cpu(f"warning: x\n{CPU_TAG} 4.25 7.5\n") == (4.25, 7.5)
    with pytest.raises(SystemExit, match=f"printed no {CPU_TAG} line"):
        split_cpu("Traceback ...")


def test_the_bench_runs_this_code_and_a_reference_tree(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-c", "import sys; from parlor.cli import main; sys.exit(main())",
                          "bench", "--eval-workers", "1,2", "--rounds", "1", "--reference", str(ROOT),
                          "--eval", "tonk_v0 --agents heuristic,random --games 4"],
                         capture_output=True, text=True, cwd=ROOT, timeout=300, check=True).stdout
    assert out.count("round 1:") == 4 and "reference" in out
    assert "same episodes.jsonl in every run: yes" in out
    assert out.count("eval process +") == 4 and "idle estimate:" in out
