"""The evaluation run folder: the episode log keeps whole jobs only and refuses lines that do
not belong to the run; results files are replaced atomically; claims are undone cleanly."""
from __future__ import annotations

import json

import pytest

from parlor.training.evaluation.run_folder import EpisodeLog, RunFolder, RunFolderError
from parlor.training.evaluation.tournament import schedule

NAMES = ["a", "b"]
JOBS = schedule(2, 2, games=8)  # 4 deals of 2 lineups each


def records(index: int) -> list[dict]:
    job = JOBS[index]
    return [{"job": index, "matchup": job.matchup, "deal": job.deal, "lineup": list(lineup),
             "agents": [NAMES[a] for a in lineup], "rewards": [1.0, -1.0], "stats": {}, "steps": 3,
             "truncated": False} for lineup in job.lineups]


def test_resume_keeps_whole_jobs_and_drops_a_job_cut_short_and_a_torn_line(tmp_path) -> None:
    log = EpisodeLog(tmp_path / "episodes.jsonl")
    assert log.resume(JOBS, NAMES) == {}
    for i in (0, 1):
        log.append(records(i))
    log.close()
    first_of_job_2 = json.dumps(records(2)[0]) + "\n"
    with open(log.path, "a") as fh:
        fh.write(first_of_job_2 + '{"job": 2, "matchup": 0, "de')  # killed between and inside a line
    again = EpisodeLog(log.path)
    done = again.resume(JOBS, NAMES)
    assert sorted(done) == [0, 1] and done[1] == records(1) and again.jobs == 2
    again.append(records(3))
    again.close()
    lines = [json.loads(line) for line in log.path.read_text().splitlines()]
    assert [r["job"] for r in lines] == [0, 0, 1, 1, 3, 3]


def test_resume_refuses_lines_that_are_not_this_runs_episodes(tmp_path) -> None:
    path = tmp_path / "episodes.jsonl"
    path.write_text("not json\n" + json.dumps(records(0)[0]) + "\n")
    with pytest.raises(RunFolderError, match="line 1 is not an episode record"):
        EpisodeLog(path).resume(JOBS, NAMES)
    path.write_text("".join(json.dumps({**r, "job": 9}) + "\n" for r in records(0)))
    with pytest.raises(RunFolderError, match="job 9 is not in this run's schedule of 4 jobs"):
        EpisodeLog(path).resume(JOBS, NAMES)
    path.write_text("".join(json.dumps(r) + "\n" for r in records(0)))
    with pytest.raises(RunFolderError, match=r"agents \['a', 'b'\]; this run's config schedules .* agents \['x', 'b'\]"):
        EpisodeLog(path).resume(JOBS, ["x", "b"])


def test_discard_removes_only_what_the_claim_made(tmp_path) -> None:
    made = RunFolder.create(tmp_path / "a" / "b" / "run", "tonk_v0")
    made.start({"env": "tonk_v0"}, "parlor eval tonk_v0", "abc")
    made.discard()
    assert not (tmp_path / "a").exists()
    existing = tmp_path / "empty"
    existing.mkdir()
    claimed = RunFolder.create(existing, "tonk_v0")
    claimed.start({"env": "tonk_v0"}, "parlor eval tonk_v0", "abc")
    claimed.discard()
    assert existing.is_dir() and not any(existing.iterdir())
