"""The evaluation run folder: claimed safely, filled as games finish, resumable.

``runs/eval/<time>-<env>-<random>/`` (or ``--out``) holds

- ``config.yaml``: the :class:`~.runner.EvalConfig` (what ``--resume`` and ``--config`` read);
- ``command.txt``: the ``parlor eval`` command that started it, then one line per resume;
- ``git_revision.txt``: the revision it started at;
- ``episodes.jsonl``: one JSON line per episode, appended and flushed job by job as
  the jobs finish (synced to disk at least every ``SYNC_SECONDS``), so a run that is
  killed keeps everything it finished; a torn last line is dropped on resume;
- written at the end, each atomically (a temporary file renamed over the old one):
  ``episodes.csv``, ``records.jsonl`` (with ``record: true``: every episode's game
  record, which travels inside its ``episodes.jsonl`` line), ``results.csv``,
  ``results.md``, ``results.png`` and last ``results.json``, whose presence marks a
  complete run.

Before the first game the folder is claimed: a default folder is new (never shared
with a run started in the same second), a given ``--out`` must be empty unless
``force``, which replaces only an evaluation's files (a folder that is not an
evaluation run folder, a training run folder above all, is always refused), and the first files are written,
so a read-only or missing path fails at once; a folder this made is removed again
when that fails (:meth:`RunFolder.discard`).
"""
from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from parlor.envs.engine.files import replace_atomically
from parlor.envs.engine.game import ConfigError

CONFIG, COMMAND, REVISION, EPISODES, RESULTS = "config.yaml", "command.txt", "git_revision.txt", "episodes.jsonl", "results.json"
RECORDS = "records.jsonl"  # the game records of ``parlor eval --record`` (and ``parlor play --record``)
OUTPUTS = ("episodes.csv", RECORDS, "results.csv", "results.md", "results.png", RESULTS)  # written at the end, results.json last
RUN_FILES = (CONFIG, COMMAND, REVISION, EPISODES, *OUTPUTS)
TRAINING_MARKS = ("checkpoints", "config.resolved.yaml", "model.zip")  # what `parlor train` puts in its run folders
SYNC_SECONDS = 1.0  # fsync the episode log at most this often (flushed after every job)


class RunFolderError(ConfigError):
    """A run folder that cannot be used as asked; the message names the path and the way out."""


def default_run_dir(env_name: str, parent: str | Path = Path("runs", "eval")) -> Path:
    """``runs/eval/<time>-<env>-<6 hex>``: where a run goes unless the caller names one."""
    return Path(parent) / f"{time.strftime('%Y%m%d-%H%M%S')}-{env_name}-{secrets.token_hex(3)}"


def is_evaluation_run(path: Path) -> bool:
    """``path`` holds an evaluation's files: its config, its episode log and a command that
    is ``parlor eval`` (what ``--force`` may replace)."""
    if not ((path / CONFIG).is_file() and (path / EPISODES).is_file() and (path / COMMAND).is_file()):
        return False
    with open(path / COMMAND, "rb") as fh:
        return fh.read(64).startswith(b"parlor eval")


def is_training_run(path: Path) -> bool:
    return any((path / mark).exists() for mark in TRAINING_MARKS)


class RunFolder:
    """One evaluation's folder; :meth:`create` claims a new one, :meth:`reopen` an interrupted one."""

    def __init__(self, path: Path, made: Path | None = None):
        self.path = path
        self.made = made  # the top folder this process created (removed by discard), if any
        self.log = EpisodeLog(path / EPISODES)

    @classmethod
    def create(cls, out: str | Path | None, env_name: str, force: bool = False) -> RunFolder:
        """A folder for a new run: a fresh default one, or ``out`` if it is empty (or ``force``:
        the files of an earlier evaluation there are removed first)."""
        if out is None:
            while True:
                path = default_run_dir(env_name)
                made = _first_missing(path)
                try:
                    path.mkdir(parents=True)
                    return cls(path, made)
                except FileExistsError:
                    continue  # the same second and the same random suffix: draw again
        path = Path(out)
        if path.exists() and not path.is_dir():
            raise RunFolderError(f"--out {path} is a file, not a folder")
        if path.is_dir():
            if is_training_run(path):
                raise RunFolderError(f"--out {path} is a training run folder (its config.yaml and command.txt "
                                     f"let `parlor train --resume` continue it); write the evaluation elsewhere, "
                                     f"e.g. --out {path / 'eval'}")
            if any(path.iterdir()):
                if not force:
                    raise RunFolderError(f"--out {path} is not empty; use a new folder (or leave --out out), "
                                         "or --force to replace the evaluation in it")
                if not is_evaluation_run(path):
                    raise RunFolderError(f"--out {path} is not an evaluation run folder (it has no {CONFIG} and "
                                         f"{EPISODES}, or its {COMMAND} is not a parlor eval command); --force "
                                         "replaces only an evaluation's files: use a new folder")
                for name in RUN_FILES:
                    (path / name).unlink(missing_ok=True)
            return cls(path)
        made = _first_missing(path)
        path.mkdir(parents=True)
        return cls(path, made)

    @classmethod
    def reopen(cls, run: str | Path) -> RunFolder:
        """An evaluation folder to resume; refuses what is not one."""
        path = Path(run)
        if not path.is_dir():
            raise RunFolderError(f"--resume {path}: no such folder")
        if is_training_run(path):
            raise RunFolderError(f"{path} is a training run folder; continue it with: parlor train --resume {path}")
        if not (path / CONFIG).is_file() or not (path / EPISODES).is_file():
            raise RunFolderError(f"{path} is not an evaluation run folder (it needs {CONFIG} and {EPISODES})")
        return cls(path)

    def is_complete(self) -> bool:
        return (self.path / RESULTS).is_file()

    def start(self, config: dict, command: str, revision: str) -> None:
        """The first files of a new run; an OSError here means the folder is not writable."""
        import yaml

        (self.path / CONFIG).write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
        (self.path / COMMAND).write_text(command + "\n", encoding="utf-8")
        (self.path / REVISION).write_text(revision + "\n", encoding="utf-8")
        (self.path / EPISODES).touch()

    def add_command(self, command: str) -> None:
        with open(self.path / COMMAND, "a", encoding="utf-8") as fh:
            fh.write(command + "\n")

    def revision(self) -> str:
        path = self.path / REVISION
        return path.read_text(encoding="utf-8").strip() if path.is_file() else "unknown (no git_revision.txt)"

    def discard(self) -> None:
        """Undo a claim that failed before any game: remove the folder this process made, or
        the run files it wrote into a folder that was there (empty, or given up by --force)."""
        with contextlib.suppress(OSError):
            self.log.close()
        if self.made is not None:
            shutil.rmtree(self.made, ignore_errors=True)
            return
        for name in RUN_FILES:
            with contextlib.suppress(OSError):
                (self.path / name).unlink(missing_ok=True)


def _first_missing(path: Path) -> Path | None:
    """The outermost folder of ``path`` that does not exist yet (what mkdir(parents=True) makes)."""
    missing = None
    for p in (path, *path.parents):
        if p.exists():
            break
        missing = p
    return missing


class EpisodeLog:
    """``episodes.jsonl``: one line per episode, each job's lines written, flushed (and at
    least every ``SYNC_SECONDS`` synced) at once; resumable after a crash."""

    def __init__(self, path: Path):
        self.path = path
        self.jobs = 0  # complete jobs in the file
        self.rebuilt = 0  # episodes whose results resume() took from their record, not their line
        self._checked: tuple[Any, Any] | None = None  # check()'s last result, for resume()
        self._fh: Any = None
        self._synced = 0.0

    def resume(self, jobs: Sequence[Any], names: Sequence[str], recorded: bool = False,
               game: Any = None) -> dict[int, list[dict]]:
        """The complete jobs in the file by index, checked against the schedule ``jobs``, the
        agent ``names`` and ``recorded`` (every episode has its game record, or none has); the
        file is rewritten to hold only those (a job cut short by a crash, a torn last line, are
        dropped) and opened for appending. With records and ``game`` each episode's results
        (rewards, statistics, steps, truncation) are rebuilt by replaying its record, so a
        line edited by hand cannot change the results (``rebuilt`` counts the lines that
        disagreed with their record); a record that does not replay is a RunFolderError."""
        done, kept, data = self.check(jobs, names, recorded, game)
        self.jobs = len(done)  # kept even if the rewrite below fails (a read-only folder): say so
        if kept != data:
            replace_atomically(self.path, lambda tmp: _write_synced(tmp, kept))
        self._fh = open(self.path, "ab")  # kept open while the jobs are played
        return done

    def check(self, jobs: Sequence[Any], names: Sequence[str], recorded: bool = False,
              game: Any = None) -> tuple[dict[int, list[dict]], bytes, bytes]:
        """What :meth:`resume` keeps, checked, without changing the file: (the complete jobs by
        index, the bytes of their lines, the file's bytes). ``parlor eval --resume`` calls it
        before it touches the run folder; :meth:`resume` then reuses the result."""
        key = (id(jobs), tuple(names), recorded, id(game))
        if self._checked is not None and self._checked[0] == key:
            return self._checked[1]
        by_job: dict[int, list[tuple[dict, bytes]]] = {}
        data = self.path.read_bytes() if self.path.exists() else b""
        lines = data.split(b"\n")
        lines.pop()  # b"" after the last newline, or a line torn by a crash
        for number, line in enumerate(lines, 1):
            try:
                record = json.loads(line)
                index = int(record["job"])
            except (ValueError, KeyError, TypeError, RecursionError):
                raise RunFolderError(f"{self.path} line {number} is not an episode record; the file was changed "
                                     "by hand or by another program") from None
            if not 0 <= index < len(jobs):
                raise RunFolderError(f"{self.path} line {number}: job {index} is not in this run's schedule "
                                     f"of {len(jobs)} jobs; is {self.path.parent / CONFIG} the one it ran with?")
            by_job.setdefault(index, []).append((record, line))
        done = {i: [r for r, _ in rows] for i, rows in sorted(by_job.items()) if len(rows) == len(jobs[i].lineups)}
        for i, records in done.items():
            _check_job(self.path, i, jobs[i], records, names, recorded)
            if recorded and game is not None:
                done[i] = [self._rebuilt(i, k, episode, game) for k, episode in enumerate(records)]
        kept = b"".join(line + b"\n" for i in done for _, line in by_job[i])
        self._checked = (key, (done, kept, data))
        return done, kept, data

    def _rebuilt(self, index: int, k: int, episode: dict, game: Any) -> dict:
        """``episode`` with its results replayed from its game record."""
        from parlor.envs.records import Record, replay

        try:
            record = Record.from_dict(episode["record"])
            replay(record, game)
        except (ValueError, TypeError, KeyError, IndexError) as exc:  # ReplayError, ConfigError are ValueErrors
            raise RunFolderError(f"{self.path}: job {index} episode {k}: its game record does not replay "
                                 f"({' '.join(str(exc).split())[:300]}); the file was changed by hand or by another "
                                 "program") from None
        results = {"rewards": list(record.rewards), "stats": {key: list(v) for key, v in record.stats.items()},
                   "steps": len(record.steps), "truncated": record.truncated}
        if any(episode.get(key) != value for key, value in results.items()):
            self.rebuilt += 1
        return {**episode, **results}

    def append(self, records: Sequence[dict]) -> None:
        """Write one finished job's episodes (an OSError such as a full disk reaches the caller)."""
        if self._fh is None:
            raise RuntimeError("EpisodeLog.append before resume(): the log is not open")
        self._fh.write(b"".join(json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in records))
        self._fh.flush()
        now = time.monotonic()
        if now - self._synced >= SYNC_SECONDS:
            os.fsync(self._fh.fileno())
            self._synced = now
        self.jobs += 1

    def close(self) -> None:
        if self._fh is not None:
            try:
                self._fh.flush()
                os.fsync(self._fh.fileno())
            finally:
                self._fh.close()
                self._fh = None


def _write_synced(path: Path, data: bytes) -> None:
    with open(path, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def _check_job(path: Path, index: int, job: Any, records: list[dict], names: Sequence[str], recorded: bool) -> None:
    for k, (record, lineup) in enumerate(zip(records, job.lineups)):
        if ("record" in record) != recorded:
            has = "has a game record" if "record" in record else "has no game record"
            raise RunFolderError(f"{path}: job {index} episode {k} {has}, but this run's config says "
                                 f"record: {str(recorded).lower()}; is {path.parent / CONFIG} the one it ran with?")
        agents = [names[a] for a in lineup]
        if (record.get("matchup"), record.get("deal"), record.get("lineup"), record.get("agents")) != (
                job.matchup, job.deal, list(lineup), agents):
            raise RunFolderError(f"{path}: job {index} episode {k} was played as matchup {record.get('matchup')}, "
                                 f"deal {record.get('deal')}, agents {record.get('agents')}; this run's config "
                                 f"schedules matchup {job.matchup}, deal {job.deal}, agents {agents}")
