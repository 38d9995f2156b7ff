"""The OFC advisors' benchmark: it measures the code tree it is asked to and says so."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from parlor.cli import main
from parlor.training.benchmarks.ofc_advisors import Row, compare, installed_root, plays, report, run_one


@pytest.mark.slow  # the copy compiles parlor and its numba kernels anew; the next test reads a tree (--tree) fast
def test_a_reference_tree_is_imported_in_place_of_the_installed_code(tmp_path: Path) -> None:
    root = Path(installed_root())
    for package in ("envs", "agents", "training"):
        shutil.copytree(root / package, tmp_path / package, ignore=shutil.ignore_patterns("*.zip", "__pycache__"))
    copied = run_one("heuristic", 1, str(tmp_path))
    installed = run_one("heuristic", 1, None)
    assert Path(copied["root"]).resolve() == tmp_path.resolve()
    assert Path(installed["root"]).resolve() == root.resolve()
    assert copied["digest"] == installed["digest"]  # the same code plays the same hand


def test_compare_reports_the_same_play_and_a_speed_up_near_one_for_the_same_code() -> None:
    [row] = compare(["observe"], installed_root(), rounds=1, scale=0.05)
    assert row.same is True and row.reference > 0 and row.ours > 0
    assert 0.2 < row.speedup < 5  # the same code, measured twice on a shared machine


def test_report_states_each_target_and_whether_it_was_met() -> None:
    rows = [Row("observe", 30.0, 360.0, True), Row("features", 20_000.0, 3_000.0, True),
            Row("ofc_pineapple_safe", 80.0, 600.0, True), Row("heuristic", 2.0, None, None)]
    lines = report(rows)
    assert "12.0x" in lines[1] and lines[1].endswith(">= 10x: ok")
    assert "6.7x" in lines[2] and lines[2].endswith(">= 10x: MISSED")
    assert lines[3].endswith("<= 50 ms: MISSED") and " yes " in lines[3]
    assert lines[4].split()[:2] == ["heuristic", "ms/hand"] and " - " in lines[4]


def test_bad_workloads_and_options_name_what_is_allowed(capsys) -> None:
    with pytest.raises(ValueError, match="allowed values: observe, features"):
        compare(["fast"], None)
    with pytest.raises(SystemExit, match="add --ofc-advisors"):
        main(["bench", "--reference", "/tmp"])
    with pytest.raises(SystemExit, match="not a checkout of parlor"):
        main(["bench", "--ofc-advisors", "--reference", "/nonexistent-parlor-tree"])


def test_a_tree_plays_a_policy_workload_only_if_it_ships_the_policy_file(tmp_path: Path) -> None:
    (tmp_path / "agents" / "pretrained").mkdir(parents=True)
    assert not plays("ofc_pineapple_multihand", str(tmp_path))  # compare then measures this code only
    assert plays("heuristic", str(tmp_path)) and plays("observe", str(tmp_path))
    assert plays("ofc_pineapple_multihand", installed_root())


@pytest.mark.slow  # a policy measured in a fresh process; the test above and the report test are the fast checks
def test_a_policy_the_reference_does_not_ship_is_measured_on_this_code_only(tmp_path: Path) -> None:
    root = Path(installed_root())
    for package in ("envs", "agents", "training"):
        shutil.copytree(root / package, tmp_path / package, ignore=shutil.ignore_patterns("*.zip", "__pycache__"))
    [row] = compare(["ofc_pineapple_multihand"], str(tmp_path), rounds=1, scale=0.05)
    assert row.reference is None and row.same is None and 0 < row.ours
    assert report([row])[1].endswith(("<= 50 ms: ok", "<= 50 ms: MISSED")) and " - " in report([row])[1]
