"""``parlor train`` on the command line: runs, resumes, errors without tracebacks."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from parlor.agents.policy import read_signature
from parlor.cli import main
from tests.training.scripted import KUHN, register

register()


def test_cli_trains_and_resumes_a_run_folder(tmp_path: Path, capsys) -> None:
    cfg = tmp_path / "kuhn.yaml"
    cfg.write_text(KUHN)
    assert main(["train", str(cfg), "--out", str(tmp_path / "runs"), "--no-progress"]) == 0
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert (run_dir / "config.yaml").read_text() == KUHN
    assert f"evaluate it: parlor eval kuhn_test --agents ppo:{run_dir / 'model.zip'},random" in capsys.readouterr().out
    assert main(["train", "--resume", str(run_dir), "--total-steps", "384", "--no-progress"]) == 0
    assert "resuming" in capsys.readouterr().out
    assert read_signature(run_dir / "model.zip")["num_timesteps"] == 384
    assert len((run_dir / "command.txt").read_text().splitlines()) == 2


def test_cli_reports_a_bad_config_without_a_traceback(tmp_path: Path, capsys) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("env: kuhn_test\nbogus: 1\n")
    assert main(["train", str(path), "--out", str(tmp_path)]) == 2
    assert "bogus" in capsys.readouterr().err
    path.write_text("env: kuhn_test\noptions: {ante: 99}\n")
    assert main(["train", str(path), "--out", str(tmp_path)]) == 2
    assert "ante=99" in capsys.readouterr().err
    assert np.array_equal(sorted(p.name for p in tmp_path.iterdir()), ["bad.yaml"])


def test_an_init_that_does_not_exist_is_refused_before_any_folder_is_made(tmp_path: Path, capsys) -> None:
    cfg = tmp_path / "kuhn.yaml"
    cfg.write_text(KUHN)
    assert main(["train", str(cfg), "--init", str(tmp_path / "missing.zip"), "--out", str(tmp_path / "runs")]) == 2
    assert "missing.zip: no such file" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


def test_a_policy_opponent_that_does_not_exist_is_refused_before_any_folder_is_made(tmp_path: Path, monkeypatch,
                                                                                     capsys) -> None:
    monkeypatch.chdir(tmp_path)
    opponents = "opponents: [{agent: random, weight: 1.0}, {agent: 'ppo:pol/gone.zip', weight: 1.0}]"
    (tmp_path / "kuhn.yaml").write_text("\n".join(opponents if line.startswith("opponents:") else line
                                                  for line in KUHN.splitlines()) + "\n")
    assert main(["train", "kuhn.yaml", "--out", "runs", "--no-progress"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line == f"parlor train: agent ppo:pol/gone.zip: no file 'pol/gone.zip' (looked for {tmp_path}/pol/gone.zip)"
    assert not (tmp_path / "runs").exists()
