"""How an evaluation's worker processes start (:func:`parlor.training.evaluation.runner.run_jobs`'s pool).

Forked workers inherit the parent's built game and its compiled kernels: starting one costs
milliseconds. Workers that play policy files never import torch: a
:class:`~parlor.training.evaluation.policy_server.PolicyServer` runs the networks for them.
Fork is used only where it is safe (torch not loaded in the parent: its thread pools do not
survive fork, :func:`pool_context`); otherwise a forkserver.
"""
from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any


def pool_context(served: bool = False) -> Any:
    """How worker processes start. Fork (fast; workers inherit the game's compiled kernels and
    need no ``if __name__ == "__main__"`` guard) unless this process has loaded torch, whose
    thread pools do not survive fork (:func:`~.runner.plan` checks policies without it, and a
    policy server loads it in a process of its own). A caller that loaded torch itself (e.g. after
    training) gets a forkserver instead; it imports torch once for its workers unless the
    policies are ``served`` (:mod:`.policy_server`), when the workers need no torch at all."""
    import multiprocessing as mp

    methods = mp.get_all_start_methods()
    if "fork" in methods and "torch" not in sys.modules:
        return mp.get_context("fork")
    if "forkserver" not in methods:
        return mp.get_context("spawn")
    ctx = mp.get_context("forkserver")
    # the modules a worker needs, imported once by the server (a server already running keeps its own list)
    wanted = ("parlor.training.evaluation.runner",) if served else (
        "torch", "sb3_contrib.common.maskable.policies", "parlor.agents.policy", "parlor.training.evaluation.runner")
    ctx.set_forkserver_preload([m for m in wanted if m in sys.modules])
    return ctx


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
