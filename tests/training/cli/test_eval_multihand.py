"""``parlor eval`` of multi-hand OFC matches (issue 26) through the durable run folder: the
game's rates (``stat_ratios``) are in results.json, results.csv/md and the plot, a run
interrupted after some deals and resumed reports the same rates and statistics as an
uninterrupted one, and its game records re-simulate."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from parlor.cli import main
from parlor.envs.ofc.stats import MULTI_HAND_RATIOS
from parlor.envs.records import read_records, replay
from tests.training.cli.test_eval_runs import results_without_timing

RUN = ["ofc_v0", "--agents", "heuristic,random", "--option", "variant=pineapple", "--option", "num_hands=3",
       "--games", "8", "--seed", "3", "--record", "--quiet"]

# one xdist worker for the module: its module fixture (a whole run) is built once, not once per worker
pytestmark = pytest.mark.xdist_group("test_eval_multihand")


@pytest.fixture(scope="module")
def whole(tmp_path_factory) -> Path:
    pytest.importorskip("matplotlib")
    out = tmp_path_factory.mktemp("eval") / "whole"
    assert main(["eval", *RUN, "--out", str(out)]) == 0
    return out


def test_the_rates_of_a_multi_hand_match_are_in_every_output(whole) -> None:
    results = results_without_timing(whole)
    heuristic, rand = results["agents"]
    assert list(heuristic["ratios"]) == list(MULTI_HAND_RATIOS)
    assert heuristic["ratios"]["points_per_regular_hand"]["mean"] > 0 > rand["ratios"]["points_per_regular_hand"]["mean"]
    assert heuristic["ratios"]["fl_entry_rate"]["mean"] >= 0
    header = (whole / "results.csv").read_text().splitlines()[0].split(",")
    assert {"fl_entry_rate", "fl_entry_rate_ci95", "points_per_regular_hand"} <= set(header)
    assert "| agent | fl_entry_rate | fl_stay_rate |" in (whole / "results.md").read_text()
    assert (whole / "results.png").stat().st_size > 0


def test_a_resumed_multi_hand_run_reports_what_an_uninterrupted_one_does(whole, tmp_path) -> None:
    part = tmp_path / "part"   # the run as a kill after its first two deals leaves it
    part.mkdir()
    for name in ("config.yaml", "command.txt", "git_revision.txt"):
        shutil.copy(whole / name, part / name)
    lines = (whole / "episodes.jsonl").read_text().splitlines(keepends=True)
    kept = [line for line in lines if json.loads(line)["job"] < 2]
    assert 0 < len(kept) < len(lines)
    (part / "episodes.jsonl").write_text("".join(kept))
    assert main(["eval", "--resume", str(part), "--quiet"]) == 0
    resumed, uninterrupted = results_without_timing(part), results_without_timing(whole)
    assert resumed == uninterrupted
    assert [a["ratios"] for a in resumed["agents"]] == [a["ratios"] for a in uninterrupted["agents"]]
    records = read_records(part / "records.jsonl")
    assert records == read_records(whole / "records.jsonl") and len(records) == uninterrupted["episodes"]
    for record in records:   # each 3-hand match re-simulates to its statistics
        assert {k: list(v) for k, v in record.stats.items()} == replay(record).stats()
