"""A pytest plugin for ``make test``: wait for the kernels that tests/warm_up.py compiles.

``make test`` compiles the OFC numba kernels in the background (tests/warm_up.py) while the
tests start. A test process that reaches a kernel first would otherwise compile it too (each
about 3-10 CPU-s, on a machine whose cores are all taken): with this plugin (``-p
tests.kernel_wait``) its first numba compile waits until the file named by
``PARLOR_KERNELS_DONE`` exists, and numba then finds the signature in its cache. Without that
variable, or once the file exists, or after ``WAIT_S``, numba compiles as usual: the wait
changes no result, only who compiles.
"""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from tests.warm_up import DONE

WAIT_S = 600.0  # the background compile takes about a minute; past this, compile here


def wait_for(done: Path, timeout: float = WAIT_S, poll: float = 0.1) -> bool:
    """Whether ``done`` exists, waiting up to ``timeout`` seconds for it."""
    deadline = time.monotonic() + timeout
    while not done.exists():
        if time.monotonic() >= deadline:
            return False
        time.sleep(poll)
    return True


def pytest_configure(config: pytest.Config) -> None:
    if not os.environ.get(DONE):
        return
    from numba.core.dispatcher import Dispatcher

    done = Path(os.environ[DONE])
    compile_now = Dispatcher.compile

    # Dispatcher.compile is where numba looks in its cache and, on a miss, compiles: the first
    # call waits once for the background compile, then numba's own method takes over again
    def compile_when_ready(self: Any, sig: Any) -> Any:
        wait_for(done)
        Dispatcher.compile = compile_now
        return compile_now(self, sig)

    Dispatcher.compile = compile_when_ready
