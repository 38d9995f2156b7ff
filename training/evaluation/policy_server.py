"""The process that runs an evaluation's policy networks for its worker processes, which never
import torch (:class:`PolicyServer`).

A pool worker that plays a policy file (``ppo:PATH``) gets a
:class:`~parlor.agents.policy_actor.RemoteActor`: each decision sends the float32 observation
(and the mask) over a unix socket to the server, which runs the file's
:class:`~parlor.agents.policy_actor.FileActor` on them and sends the numpy result back: the same
torch operations on the same bits, so the same actions whatever the number of workers. A worker's
start is then the command line and the game only (forked: milliseconds), and torch (2 CPU-s)
is imported once, by the server.

Where the server runs: where this process has not imported torch and can fork, in a process of
its own forked before the game is built (:func:`~.runner.plan` starts it first), so that
torch loads on one core while the parent builds the game on another (both hold their
interpreter's lock nearly all the time: in threads of one process they could not overlap). A
process that has torch already (e.g. after training) serves from threads of its own.

Each connection (one per worker) has its own thread, so a worker that dies (EOF) ends only its
thread; an error in a forward pass goes back to the worker as a
:class:`~parlor.agents.policy_actor.PolicyServerError` naming the file, and the run stops with it.
:meth:`PolicyServer.close` stops the server and removes its socket and folder; a finalizer does
the same if the owner forgets, and a server process also ends when its parent is gone.
"""
from __future__ import annotations

import contextlib
import json
import os
import resource
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

from parlor.agents.policy_actor import (
    ERROR,
    LOGITS,
    OK,
    OPEN,
    PROBABILITIES,
    FileActor,
    answer,
    file_actor,
    file_key,
    load_torch,
)

# CPU seconds of the last server's start and of its owner, for ``parlor bench --eval-workers``
# (:mod:`parlor.training.benchmarks.eval_workers`): "owner_at_start" (the owner when it forked the
# server), "ready" (the server's own start: torch and the files), "total" (the server's CPU at its close)
startup_cpu: dict[str, float] = {}


def policy_paths(config: Any) -> list[str]:
    """The policy files (``ppo:PATH``) ``config``'s agents play, each once."""
    players = getattr(config, "players", None)
    specs = [p.strip() for p in players()] if players is not None else []
    return list(dict.fromkeys(s[len("ppo:"):] for s in specs if s.startswith("ppo:")))


def wanted(config: Any) -> bool:
    """Whether ``config``'s jobs will run in a pool of local workers that play policy files, on a
    platform with unix sockets (elsewhere each worker loads the files itself)."""
    from multiprocessing.connection import families

    return (getattr(config, "ray", None) is None and getattr(config, "workers", 1) > 1 and "AF_UNIX" in families
            and bool(policy_paths(config)))


def cpu_seconds() -> float:
    """CPU seconds this process has used so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class _Actors:
    """The served actors by id, each file read once; ``error`` if torch or a file failed to load."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.ids: dict[tuple[str, int, int], int] = {}
        self.actors: dict[int, FileActor] = {}
        self.paths: dict[int, str] = {}
        self.ready = threading.Event()
        self.connections: set[Any] = set()  # open ones, shut down when the server stops (threads)
        self.error: str | None = None
        self.ready_cpu: Any = None  # a shared double: the server's CPU seconds when it could answer

    def open(self, path: str, mtime_ns: int, size: int) -> int:
        with self.lock:
            key = (path, mtime_ns, size)
            if key not in self.ids:
                actor_id = len(self.actors)
                self.actors[actor_id] = file_actor(path)[1]
                self.paths[actor_id], self.ids[key] = path, actor_id
            return self.ids[key]

    def load(self, paths: Sequence[str]) -> None:
        """torch and ``paths``' actors, before any request is answered (failures answer every request)."""
        try:
            load_torch()
            for path in paths:
                self.open(*file_key(path))
        except Exception as exc:  # every worker's first request gets it
            self.error = f"the policy server could not load torch or a policy file: {type(exc).__name__}: {exc}"
        finally:
            if self.ready_cpu is not None:
                self.ready_cpu.value = cpu_seconds()
            self.ready.set()

    def reply(self, request: bytes) -> bytes:
        """The reply to one request (:mod:`parlor.agents.policy_actor`'s wire format); an error's
        names the file."""
        self.ready.wait()
        if self.error is not None:
            return ERROR + self.error.encode()
        actor_id = int.from_bytes(request[1:5], "little") if len(request) >= 5 else None
        try:
            if request[:1] == bytes([OPEN]):
                return OK + json.dumps(self.open(*json.loads(request[1:]))).encode()
            return answer(self.actors, request)
        except Exception as exc:
            where = self.paths.get(actor_id, "policy") if request[:1] != bytes([OPEN]) else "opening a policy"
            operation = {LOGITS: "logits", PROBABILITIES: "probabilities"}.get(request[0] if request else -1, "a request")
            return ERROR + f"{where}: {operation} failed in the policy server: {type(exc).__name__}: {exc}".encode()


def _serve_connection(connection: Any, actors: _Actors) -> None:
    """Answer one worker until it closes its end or dies (which ends only this thread)."""
    actors.connections.add(connection)
    with connection:
        while True:
            try:
                request = connection.recv_bytes()
            except (EOFError, OSError):
                return
            try:
                connection.send_bytes(actors.reply(request))
            except OSError:
                return
    actors.connections.discard(connection)


def _hang_up(connections: set[Any]) -> None:
    """End every connection: the worker's next request and this side's waiting read see EOF."""
    for connection in list(connections):
        with contextlib.suppress(OSError), socket.socket(fileno=os.dup(connection.fileno())) as end:
            end.shutdown(socket.SHUT_RDWR)


def _accept(listener: Any, actors: _Actors, stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            connection = listener.accept()
        except Exception:  # a worker killed mid-handshake, or the listener closed at stop
            time.sleep(0.01)
            continue
        if stop.is_set():
            connection.close()
            return
        threading.Thread(target=_serve_connection, args=(connection, actors), daemon=True,
                         name="parlor-policy-connection").start()


def _serve(listener: Any, paths: Sequence[str], stop: threading.Event, actors: _Actors) -> None:
    """Accept connections in a thread and load ``paths`` here (the requests wait for it)."""
    threading.Thread(target=_accept, args=(listener, actors, stop), daemon=True, name="parlor-policy-server").start()
    actors.load(paths)


def _serve_process(listener: Any, paths: Sequence[str], parent: int, ready_cpu: Any) -> None:
    """The server process: serves until its owner stops it (SIGTERM) or is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the owner's to handle; it stops this process
    actors = _Actors()
    actors.ready_cpu = ready_cpu
    _serve(listener, paths, threading.Event(), actors)
    while os.getppid() == parent:
        time.sleep(0.5)
    shutil.rmtree(os.path.dirname(listener.address), ignore_errors=True)  # the owner died without closing
    os._exit(0)


class PolicyServer:
    """Serves the forward passes of the policy files in ``paths`` (and any other file a worker
    names) on a unix socket in a private temporary folder, with a random authentication key.
    Workers connect with :func:`~parlor.agents.policy_actor.serve_from` (``address``, ``authkey``)."""

    def __init__(self, paths: Sequence[str]):
        import multiprocessing as mp
        from multiprocessing.connection import Listener

        self.folder = tempfile.mkdtemp(prefix="parlor-policies-")
        self.address, self.authkey = os.path.join(self.folder, "socket"), os.urandom(32)
        listener = Listener(self.address, family="AF_UNIX", backlog=64, authkey=self.authkey)
        stop = threading.Event()
        process, actors, ready_cpu = None, _Actors(), None
        startup_cpu.clear()
        startup_cpu["owner_at_start"] = cpu_seconds()
        if "torch" not in sys.modules and "fork" in mp.get_all_start_methods():
            ctx = mp.get_context("fork")
            ready_cpu = ctx.Value("d", 0.0, lock=False)
            process = ctx.Process(target=_serve_process, args=(listener, list(paths), os.getpid(), ready_cpu),
                                  daemon=True, name="parlor-policy-server")
            process.start()
        else:  # torch is here already: threads of this process serve, with nothing to import
            threading.Thread(target=_serve, args=(listener, list(paths), stop, actors), daemon=True).start()
        self.in_process = process is None
        self._close = weakref.finalize(self, _shutdown, process, ready_cpu, listener, stop, actors.connections,
                                       self.address, self.authkey, self.folder)

    @property
    def closed(self) -> bool:
        return not self._close.alive

    def close(self) -> None:
        """Stop serving; the socket and its folder are removed. Idempotent."""
        self._close()


def _shutdown(process: Any, ready_cpu: Any, listener: Any, stop: threading.Event, connections: set[Any], address: str,
              authkey: bytes, folder: str) -> None:
    from multiprocessing.connection import Client

    stop.set()
    if process is not None:
        startup_cpu.update(ready=ready_cpu.value, **_process_cpu(process.pid))
        process.terminate()
        process.join(10)
    else:  # this process's accept thread waits in accept(): a connection wakes it (it is alive as we are)
        with contextlib.suppress(OSError, EOFError, ValueError), Client(address, family="AF_UNIX", authkey=authkey):
            pass
        _hang_up(connections)
    listener.close()  # removes the socket file
    shutil.rmtree(folder, ignore_errors=True)


def _process_cpu(pid: int | None) -> dict[str, float]:
    """{"total": CPU seconds} of the process ``pid`` so far, from /proc ({} elsewhere)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return {"total": (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")}  # utime, stime
    except (OSError, ValueError, IndexError):
        return {}


def worker_address(server: PolicyServer | None) -> Mapping[str, Any] | None:
    """What a pool worker needs to reach ``server`` (:func:`~parlor.agents.policy_actor.serve_from`)."""
    return None if server is None else {"address": server.address, "authkey": server.authkey}
