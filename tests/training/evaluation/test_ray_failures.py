"""Clear failures of ``parlor eval --ray``: no cluster at the address is one line before any
run folder is made (no ``--resume`` to suggest); a cluster lost mid-run is one line naming
the ``--resume`` command, and the resumed run gives the results of ``--workers 1``."""
from __future__ import annotations

import json
import re
import socket
import time

import pytest

from parlor.cli import main
from parlor.training.evaluation import ray_runner

pytestmark = pytest.mark.xdist_group("ray")  # one xdist worker, one Ray instance for every Ray test


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # free once closed: nothing listens there


@pytest.mark.parametrize("flag", ["auto", "HOST:PORT", "ray://HOST:PORT"])
def test_no_cluster_at_the_address_is_one_line_and_leaves_no_folder(flag, tmp_path, monkeypatch, capsys) -> None:
    ray = pytest.importorskip("ray", reason="the [scale] extra (ray) is not installed")
    port = _closed_port()
    monkeypatch.setattr(ray, "is_initialized", lambda: False)  # as in a fresh `parlor eval` process
    monkeypatch.setenv("RAY_ADDRESS", f"127.0.0.1:{port}")  # what `auto` finds (Ray reads it first)
    address = flag.replace("HOST:PORT", f"127.0.0.1:{port}")
    run = tmp_path / "run"
    assert main(["eval", "tonk_v0", "--agents", "random,heuristic", "--games", "4", "--quiet", "--no-plot",
                 "--ray", address, "--out", str(run)]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    # (Ray dials this machine's own address for 127.0.0.1)
    assert re.fullmatch(rf"parlor eval: no Ray cluster at {re.escape(repr(address))}: nothing answers at \S+:{port} "
                        r"\(is it started, e\.g\. `ray start --head`, and is the address right\?\)", line), line
    assert not run.exists()


def test_a_lost_cluster_is_one_line_with_the_resume_command_and_resume_finishes(ray_cluster, tmp_path, monkeypatch,
                                                                               capsys) -> None:
    argv = ["eval", "tonk_v0", "--option", "num_players=2", "--agents", "random,heuristic", "--games", "200",
            "--seed", "4", "--quiet", "--no-plot"]
    run = tmp_path / "ray"
    monkeypatch.setattr(ray_runner, "answers", lambda where, timeout=0: False)  # the GCS stops answering
    monkeypatch.setattr(ray_runner, "GCS_GRACE", 0.0)
    monkeypatch.setattr(ray_runner, "POLL_SECONDS", 0.001)
    assert main(argv + ["--ray", "local", "--out", str(run)]) == 1
    monkeypatch.undo()
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("parlor eval: lost the Ray cluster at 'local': its GCS (")
    assert line.endswith(f"deals are kept in {run / 'episodes.jsonl'}; continue with: parlor eval --resume {run}")
    assert not (run / "results.json").exists()
    assert main(["eval", "--resume", str(run), "--quiet", "--no-plot"]) == 0
    assert main(argv + ["--out", str(tmp_path / "one")]) == 0
    results = {name: json.loads((tmp_path / name / "results.json").read_text()) for name in ("one", "ray")}
    assert results["ray"]["agents"] == results["one"]["agents"]


def test_parlor_train_rllib_with_no_cluster_is_one_line_and_leaves_no_folder(tmp_path, monkeypatch, capsys) -> None:
    ray = pytest.importorskip("ray.rllib", reason="the [scale] extra (ray[rllib]) is not installed") and __import__("ray")
    port = _closed_port()
    monkeypatch.setattr(ray, "is_initialized", lambda: False)  # as in a fresh `parlor train` process
    config = tmp_path / "tonk.yaml"
    config.write_text("env: tonk_v0\nbackend: rllib\ntotal_steps: 128\n")
    assert main(["train", str(config), "--ray", f"127.0.0.1:{port}", "--out", str(tmp_path / "runs"),
                 "--no-progress"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("parlor train: no Ray cluster at '127.0.0.1:") and "nothing answers at" in line
    assert not (tmp_path / "runs").exists()


def test_a_watched_block_hears_of_a_silent_gcs_once_and_a_quiet_one_never(monkeypatch) -> None:
    heard: list[str] = []
    monkeypatch.setattr(ray_runner, "gcs_of_session", lambda address: ("10.0.0.5", 6379))
    monkeypatch.setattr(ray_runner, "POLL_SECONDS", 0.01)
    monkeypatch.setattr(ray_runner, "GCS_GRACE", 0.05)
    monkeypatch.setattr(ray_runner, "answers", lambda where, timeout=0: True)
    with ray_runner.watched("10.0.0.5:6379", heard.append):
        time.sleep(0.3)
    assert heard == []
    monkeypatch.setattr(ray_runner, "answers", lambda where, timeout=0: False)
    with ray_runner.watched("10.0.0.5:6379", heard.append):
        deadline = time.monotonic() + 10
        while not heard and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.2)
    assert heard == ["lost the Ray cluster at '10.0.0.5:6379': its GCS (10.0.0.5:6379) has not answered for 0 s"]


def test_a_lost_training_cluster_prints_the_resume_command_and_ends_the_process(tmp_path, monkeypatch,
                                                                               capsys) -> None:
    pytest.importorskip("ray.rllib", reason="the [scale] extra (ray[rllib]) is not installed")
    from parlor.training.learning import rllib_train

    exits = []
    monkeypatch.setattr(rllib_train.os, "_exit", exits.append)
    rllib_train.cluster_lost(tmp_path / "run", "10.0.0.5:6379", "lost the Ray cluster at '10.0.0.5:6379': gone")
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line == (f"parlor train: lost the Ray cluster at '10.0.0.5:6379': gone; the checkpoints are kept in "
                    f"{tmp_path / 'run' / 'checkpoints'}; continue with: parlor train --resume {tmp_path / 'run'} "
                    "--ray 10.0.0.5:6379")
    assert exits == [1]


def test_an_oserror_on_a_worker_is_not_called_a_run_folder_problem(ray_cluster, tmp_path, capsys) -> None:
    run = tmp_path / "run"
    assert main(["eval", "tonk_v0", "--agents", "tests.training.evaluation.ray_agents:NoDisk,random", "--games", "4",
                 "--quiet", "--no-plot", "--ray", "local", "--out", str(run)]) == 1
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("parlor eval: a Ray task failed on its machine: FileNotFoundError: ")
    assert "/gone/on/the/worker" in line and "make room" not in line
    assert line.endswith(f"continue with: parlor eval --resume {run}")
