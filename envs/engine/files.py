"""Writing files so that a reader never sees half of one: :func:`replace_atomically`.

A crash, a full disk or Ctrl-C in the middle of a plain ``open(path, "w")`` leaves
a torn file where a good one stood (a policy, a checkpoint, a learning curve, an
evaluation's results). Here the new content goes to a temporary file in the same
folder, is flushed to disk, and only then renamed over ``path`` with :func:`os.replace`,
which is atomic on POSIX and Windows: ``path`` holds either the old content or the
new, never a mix. It lives in the engine (framework-free, importable from every layer)
because agents and training both write files that others read back.
"""
from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any


def replace_atomically(path: str | Path, write: Callable[[Path], Any]) -> None:
    """``write(tmp)`` a temporary file next to ``path`` (any writer that takes a path: text,
    bytes, ``savefig``), sync it to disk, then rename it over ``path``. If ``write`` or the
    sync fails (an exception, Ctrl-C), the old file (or no file) stays and the temporary one
    is removed. The parent folder is created."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")  # unique: two writers never share one
    try:
        write(tmp)
        with open(tmp, "rb+") as fh:  # the bytes reach the disk before the rename makes them the file
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Replace ``path`` by ``data`` atomically (see :func:`replace_atomically`)."""
    replace_atomically(path, lambda tmp: tmp.write_bytes(data))


def atomic_write_text(path: str | Path, text: str) -> None:
    """Replace ``path`` by ``text`` (UTF-8, newlines as given) atomically (see :func:`replace_atomically`)."""
    replace_atomically(path, lambda tmp: tmp.write_bytes(text.encode("utf-8")))
