"""``parlor eval --record`` with durable runs: each game's record is streamed inside its
``episodes.jsonl`` line, so a run killed mid-way and resumed (with any number of workers)
writes the ``records.jsonl`` an uninterrupted run writes, in the order of ``episodes.csv``;
``record`` is part of the run's config and of its reproducing command."""
from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from parlor import envs
from parlor.cli import main
from parlor.envs.records import read_records, replay
from tests.training.cli.test_eval_runs import ROOT, results_without_timing, wait_for_episodes

# 40 duplicate deals (jobs) of 6 lineups, each episode recorded
RUN = ["tonk_v0", "--agents", "random,heuristic", "--games", "240", "--seed", "5", "--record", "--no-plot", "--quiet"]

# one xdist worker for the module: its module fixture (a whole run) is built once, not once per worker
pytestmark = [pytest.mark.skipif("tonk_v0" not in envs.ENVS, reason="tonk_v0 is not registered"),
              pytest.mark.xdist_group("test_eval_records")]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("eval") / "whole"
    assert main(["eval", *RUN, "--workers", "1", "--out", str(out)]) == 0
    return out


def episode_rows(folder: Path) -> list[dict]:
    with open(folder / "episodes.csv", newline="", encoding="utf-8") as fh:
        return [row for row in csv.DictReader(fh) if row["seat"] == "0"]  # one row per seat: seat 0's per episode


# slow: a 240-game run killed and resumed; make test resumes runs in test_eval_runs.py (a torn last line)
# and rebuilds a resumed run's episodes from their records in test_eval_resume_trust.py
@pytest.mark.slow
def test_a_killed_recording_run_resumes_to_the_same_records(tmp_path, uninterrupted, capsys) -> None:
    out = tmp_path / "run"
    argv = [sys.executable, "-m", "parlor.training", "eval", *RUN, "--workers", "2", "--out", str(out)]
    process = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    wait_for_episodes(process, out, lines=30)
    os.killpg(process.pid, signal.SIGKILL)  # the run and its workers, mid-way
    process.communicate(timeout=60)
    assert not (out / "results.json").exists() and not (out / "records.jsonl").exists()
    kept = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()[:-1]]  # last may be torn
    assert kept and all(e["record"]["format"] == "parlor-record" for e in kept)

    assert main(["eval", "--resume", str(out)]) == 0  # the config says record: true; --resume takes no --record
    printed = capsys.readouterr().out
    assert f"parlor replay {out / 'records.jsonl'} --worst random --html worst.html" in printed
    assert (out / "records.jsonl").read_text() == (uninterrupted / "records.jsonl").read_text()
    assert results_without_timing(out) == results_without_timing(uninterrupted)

    records = read_records(out / "records.jsonl")
    rows = episode_rows(out)
    assert len(records) == len(rows) == 240
    for record, row in zip(records, rows):  # the order of episodes.csv
        assert (record.tags["matchup"], record.tags["deal"]) == (int(row["matchup"]), int(row["deal"]))
        assert record.agents[0] == row["agent"] and record.rewards[0] == float(row["reward"])
    replay(records[-1])


def test_record_is_part_of_the_config_and_of_the_reproducing_command(uninterrupted) -> None:
    results = json.loads((uninterrupted / "results.json").read_text())
    assert results["record"] is True
    assert results["command"] == "parlor eval tonk_v0 --agents random,heuristic --games 240 --seed 5 --record"
    assert "record: true" in (uninterrupted / "config.yaml").read_text()
    assert (uninterrupted / "command.txt").read_text().split()[-5:] == ["--record", "--workers", "1", "--out",
                                                                        str(uninterrupted)]


def test_episodes_that_do_not_fit_the_record_setting_are_refused_on_resume(tmp_path, capsys) -> None:
    out = tmp_path / "run"
    small = ["tonk_v0", "--agents", "random,heuristic", "--games", "12", "--no-plot", "--quiet"]
    assert main(["eval", *small, "--out", str(out)]) == 0
    (out / "results.json").unlink()  # as if interrupted at the end
    config = out / "config.yaml"
    config.write_text(config.read_text() + "record: true\n")
    assert main(["eval", "--resume", str(out)]) == 2
    assert "job 0 episode 0 has no game record, but this run's config says record: true" in capsys.readouterr().err


def test_force_removes_the_records_of_the_evaluation_it_replaces(tmp_path) -> None:
    out = tmp_path / "run"
    small = ["tonk_v0", "--agents", "random,heuristic", "--games", "12", "--no-plot", "--quiet", "--out", str(out)]
    assert main(["eval", *small, "--record"]) == 0
    assert len(read_records(out / "records.jsonl")) == 12
    assert main(["eval", *small, "--force"]) == 0
    assert not (out / "records.jsonl").exists()
    assert "record" not in (out / "config.yaml").read_text()
