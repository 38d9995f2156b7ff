"""Issue 34: ``parlor eval --resume`` does not trust what a hand can change in a run folder.
With records, each kept episode's results are rebuilt from its game record (an edited reward
in ``episodes.jsonl`` changes nothing, and is reported); a record that does not replay is
refused in one line before the folder is touched; a resume that fails rewriting the log
reports the deals it kept."""
from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest

from parlor import envs
from parlor.cli import main
from parlor.training.evaluation import run_folder
from tests.training.cli.test_eval_runs import results_without_timing

RUN = ["tonk_v0", "--agents", "random,heuristic", "--games", "24", "--seed", "5", "--no-plot", "--quiet"]

# one xdist worker for the module: its module fixture (a whole run) is built once, not once per worker
pytestmark = [pytest.mark.skipif("tonk_v0" not in envs.ENVS, reason="tonk_v0 is not registered"),
              pytest.mark.xdist_group("test_eval_resume_trust")]


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("eval") / "whole"
    assert main(["eval", *RUN, "--record", "--out", str(out)]) == 0
    return out


def interrupted_copy(finished: Path, dest: Path, edit=None) -> Path:
    """A copy of the finished run as if it had stopped before writing its results."""
    dest.mkdir()
    for name in ("config.yaml", "command.txt", "git_revision.txt", "episodes.jsonl"):
        (dest / name).write_bytes((finished / name).read_bytes())
    if edit is not None:
        lines = [json.loads(line) for line in (dest / "episodes.jsonl").read_text().splitlines()]
        edit(lines)
        (dest / "episodes.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return dest


def test_an_edited_reward_is_rebuilt_from_the_record(finished: Path, tmp_path: Path, capsys) -> None:
    def cheat(lines: list[dict]) -> None:
        lines[0]["rewards"] = [1e9, -1e9, 0.0]
        lines[1]["steps"] = 1
    run = interrupted_copy(finished, tmp_path / "run", cheat)
    assert main(["eval", "--resume", str(run)]) == 0
    err = capsys.readouterr().err
    assert "2 episode line(s)" in err and "rebuilt from the records" in err
    assert results_without_timing(run) == results_without_timing(finished)


def test_a_record_that_does_not_replay_is_refused_in_one_line(finished: Path, tmp_path: Path, capsys) -> None:
    def cheat(lines: list[dict]) -> None:
        lines[3]["record"]["rewards"] = [5.0, -5.0, 0.0]
        lines[3]["rewards"] = [5.0, -5.0, 0.0]
    run = interrupted_copy(finished, tmp_path / "run", cheat)
    before = {p.name: p.read_bytes() for p in run.iterdir()}
    assert main(["eval", "--resume", str(run)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "job 0 episode 3: its game record does not replay" in lines[0], lines
    assert {p.name: p.read_bytes() for p in run.iterdir()} == before  # refused before the folder was touched


def test_a_failed_resume_says_how_many_deals_it_kept(finished: Path, tmp_path: Path, monkeypatch, capsys) -> None:
    run = interrupted_copy(finished, tmp_path / "run")
    kept = len({json.loads(line)["job"] for line in (run / "episodes.jsonl").read_text().splitlines()})
    with open(run / "episodes.jsonl", "ab") as fh:
        fh.write(b'{"job": 0, "torn')  # a torn last line: resume must rewrite the log

    def read_only(path, write):
        raise OSError(errno.EROFS, "Read-only file system", str(path))
    monkeypatch.setattr(run_folder, "replace_atomically", read_only)
    assert main(["eval", "--resume", str(run)]) == 1
    err = capsys.readouterr().err
    assert f"the {kept} deals written before are kept" in err and "Read-only file system" in err, err
