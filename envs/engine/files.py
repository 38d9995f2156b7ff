"""Writing files so that a reader never sees half of one: :func:`atomic_write`.

A crash, a full disk or Ctrl-C in the middle of a plain ``open(path, "w")`` leaves
a torn file where a good one stood (a policy, a checkpoint, a learning curve).
Here the bytes go to a temporary file in the same folder, are flushed to disk,
and only then renamed over ``path`` with :func:`os.replace`, which is atomic on
POSIX and Windows: ``path`` holds either the old content or the new, never a mix.
It lives in the engine (framework-free, importable from every layer) because
agents and training both write files that others read back.
"""
from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any


@contextlib.contextmanager
def atomic_write(path: str | Path, mode: str = "wb", **open_kwargs: Any) -> Iterator[IO[Any]]:
    """``with atomic_write(path, "w", encoding="utf-8") as fh: fh.write(...)``: ``path`` is
    replaced only when the block ends without an exception; otherwise the old file (or
    no file) stays and the temporary file is removed. The parent folder is created."""
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write: mode={mode!r} is not allowed; allowed values: 'w', 'wb'")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    # os.open with 0o666 (not mkstemp's 0o600): the file gets the umask's usual permissions
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(fd, mode, **open_kwargs) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Replace ``path`` by ``data`` atomically (see :func:`atomic_write`)."""
    with atomic_write(path, "wb") as fh:
        fh.write(data)


def atomic_write_text(path: str | Path, text: str) -> None:
    """Replace ``path`` by ``text`` (UTF-8) atomically (see :func:`atomic_write`)."""
    with atomic_write(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)
