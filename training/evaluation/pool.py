"""How an evaluation's worker processes start (:func:`parlor.training.evaluation.runner.run_jobs`'s pool).

Forked workers inherit the parent's built game, its compiled kernels and, where the jobs play a
policy, torch (:func:`preload_torch` imports it once in the parent): starting one costs
milliseconds, not the seconds of CPU that importing torch and stable-baselines3 again took each
worker. Fork is used only where it is safe (no torch thread pool running in the parent,
:func:`pool_context`); otherwise a forkserver that imported torch once.
"""
from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any


def preload_torch(config: Any) -> None:
    """Import torch here, once, before forking workers that play a policy (``ppo:``), so that
    each inherits it instead of importing it for itself (seconds of CPU per worker). Only where
    this process has not imported torch yet: the import starts no thread pool (OpenMP's starts at
    the first parallel operation, and workers run torch on one thread), so forking stays safe;
    :func:`pool_context` checks that no native thread has started since."""
    players = getattr(config, "players", None)
    if "torch" in sys.modules or players is None or not any(p.strip().startswith("ppo:") for p in players()):
        return
    import torch
    import torch.distributions
    import torch.nn.functional  # noqa: F401

    _preloaded["native_threads"] = _native_threads()


_preloaded: dict[str, int | None] = {}


def _native_threads() -> int | None:
    """Threads of this process that Python did not start (BLAS and OpenMP pools); None off Linux."""
    try:
        with open("/proc/self/status") as status:
            count = next(int(line.split()[1]) for line in status if line.startswith("Threads:"))
    except (OSError, StopIteration, ValueError):
        return None
    return count - threading.active_count()


def pool_context() -> Any:
    """How worker processes start. Fork (fast; workers inherit the game's compiled kernels and
    need no ``if __name__ == "__main__"`` guard) unless this process runs torch's thread pools,
    which do not survive fork: torch is either not loaded (:func:`~.runner.plan` checks policies without
    it) or loaded by :func:`preload_torch` with no native thread started since. A caller that
    loaded torch itself (e.g. after training) gets a forkserver instead, which imports torch
    once and forks each worker from there, rather than spawned workers importing it each."""
    import multiprocessing as mp

    methods = mp.get_all_start_methods()
    if "fork" in methods and ("torch" not in sys.modules or _torch_fork_safe()):
        return mp.get_context("fork")
    if "forkserver" not in methods:
        return mp.get_context("spawn")
    ctx = mp.get_context("forkserver")
    # the modules a worker needs, imported once by the server (a server already running keeps its own list)
    ctx.set_forkserver_preload([m for m in ("torch", "sb3_contrib.common.maskable.policies", "parlor.agents.policy",
                                            "parlor.training.evaluation.runner") if m in sys.modules])
    return ctx


def _torch_fork_safe() -> bool:
    """torch was loaded by :func:`preload_torch` and no native thread (an OpenMP pool) started since."""
    before = _preloaded.get("native_threads")
    now = _native_threads()
    return before is not None and now is not None and now <= before


@contextlib.contextmanager
def ctrl_c_ignored() -> Iterator[None]:
    """SIGINT ignored in this process meanwhile (processes started now inherit that)."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread handles signals
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def terminate_workers(pool: Any) -> None:
    stop = getattr(pool, "terminate_workers", None)  # Python 3.14
    if stop is not None:
        stop()
        return
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.terminate()
