"""tests/compile_once.py: under ``make test`` a worker waits for the first worker's collection,
and a test process's first numba compile for the background compile (tests/warm_up.py), each
only while the other has not ended."""
from __future__ import annotations

import threading
import time
from pathlib import Path

import numba
import pytest
from numba.core.dispatcher import Dispatcher

from tests import compile_once


def _touch_later(path: Path, seconds: float) -> threading.Thread:
    thread = threading.Thread(target=lambda: (time.sleep(seconds), path.touch()))
    thread.start()
    return thread


def test_wait_for_returns_when_the_file_appears_and_gives_up_after_the_timeout(tmp_path: Path) -> None:
    done = tmp_path / "done"
    assert not compile_once.wait_for(done, timeout=0.2, poll=0.01)
    thread = _touch_later(done, 0.2)
    start = time.monotonic()
    assert compile_once.wait_for(done, timeout=10, poll=0.01)
    assert time.monotonic() - start >= 0.15
    thread.join()


def test_the_first_compile_waits_for_the_background_compile_then_numba_compiles_as_usual(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(compile_once.FOLDER, str(tmp_path))
    monkeypatch.setattr(Dispatcher, "compile", Dispatcher.compile)  # restored after the test
    compile_once.pytest_configure(None)  # type: ignore[arg-type]
    assert Dispatcher.compile.__name__ == "compile_when_ready"

    @numba.njit
    def twice(x: int) -> int:
        return 2 * x

    thread = _touch_later(tmp_path / compile_once.KERNELS, 0.3)
    start = time.monotonic()
    assert twice(21) == 42
    assert time.monotonic() - start >= 0.25, "the compile did not wait for the background one"
    assert Dispatcher.compile.__name__ == "compile"  # numba's own method again, no more waiting
    thread.join()


def test_the_second_worker_collects_after_the_first_and_the_first_says_when(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(compile_once.FOLDER, str(tmp_path))
    collected = tmp_path / compile_once.COLLECTED
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    thread = _touch_later(collected, 0.3)
    start = time.monotonic()
    compile_once.pytest_sessionstart(None)  # type: ignore[arg-type]
    assert time.monotonic() - start >= 0.25, "the second worker did not wait for the first's collection"
    thread.join()
    collected.unlink()
    compile_once.pytest_collection_finish(None)  # type: ignore[arg-type]
    assert not collected.exists(), "only the first worker says it has collected"
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    start = time.monotonic()
    compile_once.pytest_sessionstart(None)  # type: ignore[arg-type]
    assert time.monotonic() - start < 0.2, "the first worker waits for nobody"
    compile_once.pytest_collection_finish(None)  # type: ignore[arg-type]
    assert collected.exists()


def test_without_the_variable_nothing_is_patched_and_nobody_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(compile_once.FOLDER, raising=False)
    monkeypatch.setattr(Dispatcher, "compile", Dispatcher.compile)
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    own = Dispatcher.compile
    compile_once.pytest_configure(None)  # type: ignore[arg-type]
    assert Dispatcher.compile is own
    start = time.monotonic()
    compile_once.pytest_sessionstart(None)  # type: ignore[arg-type]
    assert time.monotonic() - start < 0.2
