"""replace_atomically: the old file stays whole when a write fails; no temporary file is left behind."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from parlor.envs.engine.files import atomic_write_bytes, atomic_write_text, replace_atomically


def test_a_finished_write_replaces_the_file(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "f.txt"
    atomic_write_text(path, "one")
    atomic_write_text(path, "two\r\n")
    assert path.read_bytes() == b"two\r\n"  # newlines as given (CSV writers choose their own)
    assert sorted(p.name for p in path.parent.iterdir()) == ["f.txt"]


@pytest.mark.parametrize("error", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_a_write_interrupted_by_an_exception_leaves_the_old_file_intact(tmp_path: Path, error: BaseException) -> None:
    path = tmp_path / "results.json"
    atomic_write_bytes(path, b"old content")

    def half_then_fail(tmp: Path) -> None:
        tmp.write_text("half of the new")
        raise error

    with pytest.raises(type(error)):
        replace_atomically(path, half_then_fail)
    assert path.read_bytes() == b"old content"
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]


def test_a_failure_while_syncing_to_disk_leaves_the_old_file_intact(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "f.bin"
    atomic_write_bytes(path, b"old")

    def full_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError, match="No space left"):
        atomic_write_bytes(path, b"new")
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["f.bin"]


def test_the_file_gets_the_usual_permissions(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    atomic_write_text(path, "x")
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask  # others can read a shipped policy
