"""``parlor eval`` keeps what it has played: killed (a worker, or the whole run), interrupted
with Ctrl-C, or out of disk, ``--resume RUN`` finishes it to the results an uninterrupted
run gives; ``--out`` is claimed safely before the first game."""
from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from parlor import envs
from parlor.cli import main
from parlor.training.evaluation.run_folder import EpisodeLog, RunFolder
from tests.training.cli.paced import DELAY_VARIABLE

ROOT = Path(__file__).resolve().parents[3]
# 100 duplicate deals (jobs) of 6 lineups: about a second of play, in-process; the child runs
# that tests interrupt pace the random player (PACE) so the signal lands mid-run even on a
# loaded machine (the moves, and so the results, stay those of the random agent)
RUN = ["tonk_v0", "--agents", "random=tests.training.cli.paced:PacedRandom,heuristic", "--games", "600", "--seed", "5", "--no-plot", "--quiet"]
PACE = "0.01"  # seconds per random move in interrupted children: about 10 s of play instead of 1
SMALL = ["tonk_v0", "--agents", "random,heuristic", "--games", "12", "--no-plot", "--quiet"]

# one xdist worker for the module: its module fixture (a whole run) is built once, not once per worker
pytestmark = [pytest.mark.skipif("tonk_v0" not in envs.ENVS, reason="tonk_v0 is not registered"),
              pytest.mark.xdist_group("test_eval_runs")]


def results_without_timing(folder: Path) -> dict:
    results = json.loads((folder / "results.json").read_text())
    del results["timing"]
    return results


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("eval") / "whole"
    assert main(["eval", *RUN, "--workers", "1", "--out", str(out)]) == 0
    return results_without_timing(out)


def start(out: Path, workers: int) -> subprocess.Popen:
    """The evaluation in a child process (its own process group, so the test can signal all of it)."""
    argv = [sys.executable, "-m", "parlor.training", "eval", *RUN, "--workers", str(workers), "--out", str(out)]
    return subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, env={**os.environ, DELAY_VARIABLE: PACE},
                            preexec_fn=ctrl_c_as_in_a_terminal)


def ctrl_c_as_in_a_terminal() -> None:
    """SIGINT back to its default in the child: a test suite started in the background (``make
    test &``, nohup) runs with SIGINT ignored, which a child would inherit, and Python then
    never raises KeyboardInterrupt (the Ctrl-C test would see the run finish)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def wait_for_episodes(process: subprocess.Popen, out: Path, lines: int) -> None:
    log = out / "episodes.jsonl"
    deadline = time.monotonic() + 120
    while not (log.is_file() and log.read_bytes().count(b"\n") >= lines):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the evaluation wrote no episodes"
        time.sleep(0.002)


def forked_children(pid: int) -> list[int]:
    """The child processes of ``pid`` that run its command line (forked workers, not helpers)."""
    cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            if ppid == pid and (stat.parent / "cmdline").read_bytes() == cmdline:
                out.append(int(stat.parent.name))
        except OSError:
            continue
    return out


def assert_one_line(err: str, *words: str) -> None:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    for word in words:
        assert word in lines[0], err


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds the worker processes in /proc")
def test_a_killed_worker_ends_the_run_and_resume_completes_it_identically(tmp_path, uninterrupted) -> None:
    out = tmp_path / "run"
    process = start(out, workers=2)
    wait_for_episodes(process, out, lines=30)
    workers = forked_children(process.pid)
    assert workers, "no worker processes"
    os.kill(workers[0], signal.SIGKILL)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 1
    assert_one_line(err, "worker process died", f"parlor eval --resume {out}")
    assert not (out / "results.json").exists()
    assert main(["eval", "--resume", str(out), "--quiet"]) == 0
    assert results_without_timing(out) == uninterrupted  # 2 workers and a resume: the same results
    assert (out / "command.txt").read_text().splitlines()[1] == f"parlor eval --resume {out}"


def test_a_run_killed_mid_write_resumes_past_its_torn_last_line(tmp_path, uninterrupted) -> None:
    out = tmp_path / "run"
    process = start(out, workers=1)
    wait_for_episodes(process, out, lines=30)
    os.killpg(process.pid, signal.SIGKILL)
    process.communicate(timeout=60)
    log = out / "episodes.jsonl"
    complete = log.read_bytes()
    complete = complete[:complete.rindex(b"\n") + 1]
    log.write_bytes(complete + b'{"job": 3, "matchup": 0, "deal": 3, "lineup": [0, 1, 1], "rew')  # kill -9 mid-write
    assert main(["eval", "--resume", str(out), "--quiet"]) == 0
    assert results_without_timing(out) == uninterrupted
    assert all(json.loads(line) for line in log.read_text().splitlines())  # the torn line is gone


def test_ctrl_c_says_in_one_line_how_to_resume_and_stops_the_workers(tmp_path, uninterrupted) -> None:
    out = tmp_path / "run"
    process = start(out, workers=2)
    wait_for_episodes(process, out, lines=30)
    os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130
    assert_one_line(err, "interrupted", str(out / "episodes.jsonl"), f"parlor eval --resume {out}")
    with pytest.raises(ProcessLookupError):
        os.killpg(process.pid, 0)  # no worker outlived the run
    assert main(["eval", "--resume", str(out), "--quiet"]) == 0
    assert results_without_timing(out) == uninterrupted


def test_a_full_disk_keeps_the_deals_played_so_far(tmp_path, monkeypatch, capsys, uninterrupted) -> None:
    out = tmp_path / "run"
    append = EpisodeLog.append
    written = []

    def fill_up(self, records):
        if len(written) == 3:
            raise OSError(errno.ENOSPC, "No space left on device", str(self.path))
        written.append(1)
        append(self, records)

    monkeypatch.setattr(EpisodeLog, "append", fill_up)
    assert main(["eval", *RUN, "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert_one_line(err, "No space left on device", "the 3 deals written before are kept", "--resume")
    monkeypatch.setattr(EpisodeLog, "append", append)
    assert main(["eval", "--resume", str(out), "--quiet"]) == 0
    assert results_without_timing(out) == uninterrupted


def test_a_read_only_out_fails_before_the_first_game_and_leaves_no_folder(tmp_path, monkeypatch, capsys) -> None:
    def read_only(self, *args):
        raise OSError(errno.EROFS, "Read-only file system", str(self.path / "config.yaml"))

    monkeypatch.setattr(RunFolder, "start", read_only)
    out = tmp_path / "new" / "run"
    assert main(["eval", *RUN, "--out", str(out)]) == 2
    assert_one_line(capsys.readouterr().err, f"cannot write the run folder {out}", "Read-only file system")
    assert not (tmp_path / "new").exists()


def test_out_under_a_file_is_refused(tmp_path, capsys) -> None:
    (tmp_path / "file").write_text("x")
    assert main(["eval", *RUN, "--out", str(tmp_path / "file" / "run")]) == 2
    assert str(tmp_path / "file") in capsys.readouterr().err


def test_a_second_run_into_the_same_out_is_refused_unless_forced(tmp_path, capsys) -> None:
    out = tmp_path / "run"
    assert main(["eval", *SMALL, "--out", str(out)]) == 0
    (out / "notes.txt").write_text("mine")
    before = (out / "results.json").read_text()
    assert main(["eval", *SMALL, "--seed", "6", "--out", str(out)]) == 2
    assert "not empty" in capsys.readouterr().err and (out / "results.json").read_text() == before
    assert main(["eval", *SMALL, "--seed", "6", "--out", str(out), "--force"]) == 0
    assert json.loads((out / "results.json").read_text())["seed"] == 6
    assert (out / "notes.txt").read_text() == "mine"  # --force replaces the evaluation, nothing else


def test_a_training_run_folder_is_refused_even_with_force(tmp_path, capsys) -> None:
    train_run = tmp_path / "train_run"
    (train_run / "checkpoints").mkdir(parents=True)
    (train_run / "config.yaml").write_text("env: tonk_v0\n")
    assert main(["eval", *RUN, "--out", str(train_run), "--force"]) == 2
    assert "training run folder" in capsys.readouterr().err
    assert (train_run / "config.yaml").read_text() == "env: tonk_v0\n"
    assert main(["eval", "--resume", str(train_run)]) == 2
    assert "parlor train --resume" in capsys.readouterr().err


def test_default_run_folders_of_the_same_second_differ(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(time, "strftime", lambda fmt, *a: "20250101-000000")
    suffixes = iter(["aaaaaa", "aaaaaa", "bbbbbb"])
    monkeypatch.setattr("secrets.token_hex", lambda n: next(suffixes))
    first = RunFolder.create(None, "tonk_v0").path
    second = RunFolder.create(None, "tonk_v0").path  # drew the taken suffix first, then another
    assert first != second and first.is_dir() and second.is_dir()
    assert second.name == "20250101-000000-tonk_v0-bbbbbb"


def test_resume_takes_no_other_options(tmp_path, capsys) -> None:
    out = tmp_path / "run"
    assert main(["eval", *SMALL, "--out", str(out)]) == 0
    assert main(["eval", "--resume", str(out), "--games", "20", "--workers", "2"]) == 2
    assert "leave out --games, --workers" in capsys.readouterr().err
    assert main(["eval", "--resume", str(out), "--quiet"]) == 0
    assert "nothing to resume" in capsys.readouterr().out
    assert main(["eval", "--resume", str(tmp_path)]) == 2
    assert "not an evaluation run folder" in capsys.readouterr().err
