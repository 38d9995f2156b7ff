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

The server process, once torch and the files are loaded, forks a child per connection (one per
worker), so the forward passes run in parallel as the workers' play does (in threads of one
process they would queue for its interpreter lock: the network is about half of a decision's
CPU); a parent serving from its threads gives each connection a thread. A worker that dies (EOF)
ends only its own server child or thread; an error in a forward pass goes back to the worker as a
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
    return (getattr(config, "ray", None) is None and getattr(config, "workers", 1) > 1
            and hasattr(socket, "AF_UNIX") and bool(policy_paths(config)))


# a unix socket's path has room for 107 bytes on Linux (sun_path)
SOCKET_PATH_ROOM = 107


def socket_folder_base(temp: str | None = None) -> str | None:
    """Where the server's private folder goes: the temporary folder (``TMPDIR``), unless a
    socket in it would not fit a unix socket's path (a long ``TMPDIR``, e.g. a test's own
    folder), then ``/tmp``."""
    temp = temp or tempfile.gettempdir()
    longest = os.path.join(temp, "parlor-policies-" + "x" * 8, "socket")  # mkdtemp adds 8 characters
    if len(os.fsencode(longest)) <= SOCKET_PATH_ROOM or not os.path.isdir("/tmp"):
        return None
    return "/tmp"


def cpu_seconds(with_children: bool = False) -> float:
    """CPU seconds this process has used so far (and its waited-for children, ``with_children``)."""
    usages = [resource.getrusage(resource.RUSAGE_SELF)]
    if with_children:
        usages.append(resource.getrusage(resource.RUSAGE_CHILDREN))
    return sum(u.ru_utime + u.ru_stime for u in usages)


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
            opening = request[:1] == bytes([OPEN])
            where = "opening a policy" if opening else self.paths.get(actor_id, "policy") if actor_id is not None else "policy"
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
    # until the stop's own connection (always made: a stop set before this thread ran still wakes it)
    while True:
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


def _serve_process(listener: Any, paths: Sequence[str], parent: int, cpu: Any) -> None:
    """The server process: loads torch and the files, then forks a child to serve each worker's
    connection (forward passes in parallel, as the workers' play; the children inherit torch,
    which has started no thread pool at one intra-op thread). Serves until its owner stops it
    (SIGTERM: the children are stopped and waited for) or is gone. ``cpu`` gets its CPU seconds
    when loaded and, at the end, with its children's."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the owner's to handle; it stops this process
    actors = _Actors()
    actors.load(paths)
    cpu[0] = cpu_seconds()
    threading.Thread(target=_watch_owner, args=(parent, listener.address), daemon=True).start()
    signal.signal(signal.SIGTERM, _exit_on_signal)
    children: set[int] = set()
    try:
        while True:
            _reap(children, block=False)
            try:
                connection = listener.accept()
            except Exception:  # a worker killed mid-handshake
                continue
            pid = os.fork()
            if pid == 0:
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                _serve_connection(connection, actors)
                os._exit(0)
            children.add(pid)
            connection.close()
    finally:
        for pid in children:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGTERM)
        _reap(children, block=True)
        cpu[1] = cpu_seconds(with_children=True)
        os._exit(0)


def _exit_on_signal(signum: int, frame: Any) -> None:
    raise SystemExit(0)


def _reap(children: set[int], block: bool) -> None:
    """Wait for the serving children that ended (all of them if ``block``)."""
    for pid in list(children):
        try:
            done, _ = os.waitpid(pid, 0 if block else os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            children.discard(pid)


def _watch_owner(parent: int, address: str) -> None:
    """End the server when its owner is gone without closing it (killed)."""
    while os.getppid() == parent:
        time.sleep(0.5)
    shutil.rmtree(os.path.dirname(address), ignore_errors=True)
    os._exit(0)


class PolicyServer:
    """Serves the forward passes of the policy files in ``paths`` (and any other file a worker
    names) on a unix socket in a private temporary folder, with a random authentication key.
    Workers connect with :func:`~parlor.agents.policy_actor.serve_from` (``address``, ``authkey``)."""

    def __init__(self, paths: Sequence[str]):
        import multiprocessing as mp
        from multiprocessing.connection import Listener

        self.folder = tempfile.mkdtemp(prefix="parlor-policies-", dir=socket_folder_base())
        self.address, self.authkey = os.path.join(self.folder, "socket"), os.urandom(32)
        listener = Listener(self.address, family="AF_UNIX", backlog=64, authkey=self.authkey)
        stop = threading.Event()
        process, actors, cpu = None, _Actors(), None
        startup_cpu.clear()
        startup_cpu["owner_at_start"] = cpu_seconds()
        if "torch" not in sys.modules and "fork" in mp.get_all_start_methods():
            ctx = mp.get_context("fork")
            cpu = ctx.Array("d", 2, lock=False)
            process = ctx.Process(target=_serve_process, args=(listener, list(paths), os.getpid(), cpu),
                                  daemon=True, name="parlor-policy-server")
            process.start()
        else:  # torch is here already: threads of this process serve, with nothing to import
            threading.Thread(target=_serve, args=(listener, list(paths), stop, actors), daemon=True).start()
        self.in_process = process is None
        self._close = weakref.finalize(self, _shutdown, process, cpu, listener, stop, actors.connections,
                                       self.address, self.authkey, self.folder)

    @property
    def closed(self) -> bool:
        return not self._close.alive

    def close(self) -> None:
        """Stop serving; the socket and its folder are removed. Idempotent."""
        self._close()


def _shutdown(process: Any, cpu: Any, listener: Any, stop: threading.Event, connections: set[Any], address: str,
              authkey: bytes, folder: str) -> None:
    from multiprocessing.connection import Client

    stop.set()
    if process is not None:
        process.terminate()
        process.join(10)
        startup_cpu.update(ready=cpu[0], total=cpu[1])
    else:  # this process's accept thread waits in accept(): a connection wakes it (it is alive as we are)
        with contextlib.suppress(OSError, EOFError, ValueError), Client(address, family="AF_UNIX", authkey=authkey):
            pass
        _hang_up(connections)
    listener.close()  # removes the socket file
    shutil.rmtree(folder, ignore_errors=True)


def worker_address(server: PolicyServer | None) -> Mapping[str, Any] | None:
    """What a pool worker needs to reach ``server`` (:func:`~parlor.agents.policy_actor.serve_from`)."""
    return None if server is None else {"address": server.address, "authkey": server.authkey}
