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
    assert "3.5+0.0+6.0" in lines[2] and "1.39x (1.29-1.50)" in lines[2]
    assert lines[3].endswith("yes")
    rounds[1][1] = Run("this code", 2, 8.0, 10.0, "b", 3.0, 6.0)
    assert report(rounds, [1, 2])[3].endswith("NO (a, b)")


def test_with_a_policy_server_the_estimate_runs_its_start_beside_the_parents_and_splits_the_rest() -> None:
    # the parent: 0.3 CPU-s when it starts the server, 2.0 when it forks, 2.4 in all (0.4 collecting);
    # the server: 2.5 to its first answer (torch), 3.0 in all; the workers 7.0
    marks = {"owner_at_start": 0.3, "owner_at_fork": 2.0, "ready": 2.5, "total": 3.0}
    served = Run("this code", 2, 6.0, 12.4, "a", 2.4, 10.0, marks)
    assert served.server_cpu == 3.0 and served.exit_cpu == 0.0
    # start: max(2.0, 0.3 + 2.5) = 2.8; then (7.0 workers + 0.5 serving + 0.4 collecting) / 2 = 3.95
    assert served.idle_seconds() == pytest.approx(6.75)
    later = Run("this code", 2, 6.0, 12.4, "a", 2.4, 10.0, {**marks, "owner_at_start": 0.3, "ready": 1.0})
    assert later.idle_seconds() == pytest.approx(2.0 + (10.0 - 1.0 + 0.4) / 2)  # the parent's start is the longer
    one = Run("this code", 1, 11.0, 11.0, "a", 11.0, 0.0)
    assert "11.0+0.0+0.0" in report([[one, served]], [1, 2])[1]
    assert "12.4" in report([[one, served]], [1, 2])[2] and "2.4+3.0+7.0" in report([[one, served]], [1, 2])[2]


def test_the_cpu_split_is_read_from_the_line_the_eval_prints_at_exit() -> None:
    assert split_cpu(f"warning: x\n{CPU_TAG} 4.25 7.5\n") == (4.25, 7.5, {})
    assert split_cpu(f"{CPU_TAG} 4.25 7.5 owner_at_start=0.300 owner_at_fork=2.000\n") == (
        4.25, 7.5, {"owner_at_start": 0.3, "owner_at_fork": 2.0})
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


def test_the_bench_prints_the_policy_servers_part(tmp_path: Path) -> None:
    from parlor import envs
    from tests.agents.policy_files import tiny_policy

    pytest.importorskip("sb3_contrib")
    policy = tiny_policy(tmp_path / "tonk.zip", envs.make_game("tonk_v0"), hidden=(16,))
    out = subprocess.run([sys.executable, "-c", "import sys; from parlor.cli import main; sys.exit(main())",
                          "bench", "--eval-workers", "1,2", "--rounds", "1",
                          "--eval", f"tonk_v0 --agents ppo:{policy},heuristic --games 12"],
                         capture_output=True, text=True, cwd=ROOT, timeout=300, check=True).stdout
    assert out.count("policy server (") == 1 and "same episodes.jsonl in every run: yes" in out
