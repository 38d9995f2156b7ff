"""tests/kernel_wait.py: a test process's first numba compile waits for make test's background
compile (tests/warm_up.py), and only while that has not ended."""
from __future__ import annotations

import threading
import time
from pathlib import Path

import numba
import pytest
from numba.core.dispatcher import Dispatcher

from tests import kernel_wait
from tests.warm_up import DONE


def _touch_later(path: Path, seconds: float) -> threading.Thread:
    thread = threading.Thread(target=lambda: (time.sleep(seconds), path.touch()))
    thread.start()
    return thread


def test_wait_for_returns_when_the_file_appears_and_gives_up_after_the_timeout(tmp_path: Path) -> None:
    done = tmp_path / "done"
    assert not kernel_wait.wait_for(done, timeout=0.2, poll=0.01)
    thread = _touch_later(done, 0.2)
    start = time.monotonic()
    assert kernel_wait.wait_for(done, timeout=10, poll=0.01)
    assert time.monotonic() - start >= 0.15
    thread.join()


def test_the_first_compile_waits_for_the_background_compile_then_numba_compiles_as_usual(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    done = tmp_path / "kernels-compiled"
    monkeypatch.setenv(DONE, str(done))
    monkeypatch.setattr(Dispatcher, "compile", Dispatcher.compile)  # restored after the test
    kernel_wait.pytest_configure(None)  # type: ignore[arg-type]
    assert Dispatcher.compile.__name__ == "compile_when_ready"

    @numba.njit
    def twice(x: int) -> int:
        return 2 * x

    thread = _touch_later(done, 0.3)
    start = time.monotonic()
    assert twice(21) == 42
    assert time.monotonic() - start >= 0.25, "the compile did not wait for the background one"
    assert Dispatcher.compile.__name__ == "compile"  # numba's own method again, no more waiting
    thread.join()


def test_without_the_variable_nothing_is_patched(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DONE, raising=False)
    monkeypatch.setattr(Dispatcher, "compile", Dispatcher.compile)
    own = Dispatcher.compile
    kernel_wait.pytest_configure(None)  # type: ignore[arg-type]
    assert Dispatcher.compile is own
