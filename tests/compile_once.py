"""A pytest plugin for ``make test``: compile once what every test process would compile.

A fresh clone has neither bytecode (the install writes none) nor numba's cached kernels.
``make test`` starts the tests at once, with ``-n 2`` workers, and names a folder in
``PARLOR_COMPILE_ONCE``; with this plugin (``-p tests.compile_once``):

- **bytecode**: the first worker (``gw0``) collects the tests alone, writing the bytecode of
  everything they import, and leaves ``collected`` in the folder; the other workers wait for
  that file, then collect from the bytecode (about 8 CPU-s instead of 24 each). mypy and the
  kernels' compile, running beside, use the core meanwhile;
- **kernels**: tests/warm_up.py compiles the OFC numba kernels in the background and leaves
  ``kernels`` in the folder when it ends; a test process's first numba compile waits for that
  file, and numba then finds the signature in its cache instead of compiling it again on
  cores that are all taken.

Without the variable nothing changes; a wait gives up after ``WAIT_S`` and the process
compiles for itself. The waits change no result, only who compiles.
"""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

FOLDER = "PARLOR_COMPILE_ONCE"  # the folder the files below appear in
KERNELS = "kernels"  # tests/warm_up.py has ended
COLLECTED = "collected"  # the first worker has collected the tests
FIRST_WORKER = "gw0"
WAIT_S = 600.0  # each of the two takes about a minute; past this, compile here


def wait_for(done: Path, timeout: float = WAIT_S, poll: float = 0.1) -> bool:
    """Whether ``done`` exists, waiting up to ``timeout`` seconds for it."""
    deadline = time.monotonic() + timeout
    while not done.exists():
        if time.monotonic() >= deadline:
            return False
        time.sleep(poll)
    return True


def _folder() -> Path | None:
    return Path(os.environ[FOLDER]) if os.environ.get(FOLDER) else None


def _worker() -> str | None:
    return os.environ.get("PYTEST_XDIST_WORKER")


def pytest_configure(config: pytest.Config) -> None:
    folder = _folder()
    if folder is None:
        return
    from numba.core.dispatcher import Dispatcher

    compile_now = Dispatcher.compile

    # Dispatcher.compile is where numba looks in its cache and, on a miss, compiles: the first
    # call waits once for the background compile, then numba's own method takes over again
    def compile_when_ready(self: Any, sig: Any) -> Any:
        wait_for(folder / KERNELS)
        Dispatcher.compile = compile_now
        return compile_now(self, sig)

    Dispatcher.compile = compile_when_ready


def pytest_sessionstart(session: pytest.Session) -> None:
    folder, worker = _folder(), _worker()
    if folder is not None and worker not in (None, FIRST_WORKER):
        wait_for(folder / COLLECTED)


def _say_collected() -> None:
    folder = _folder()
    if folder is not None and _worker() == FIRST_WORKER:
        (folder / COLLECTED).touch()


def pytest_collection_finish(session: pytest.Session) -> None:
    _say_collected()


def pytest_unconfigure(config: pytest.Config) -> None:
    _say_collected()   # a first worker that failed before the end of its collection must not hold the others
