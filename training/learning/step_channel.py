"""A step's action and result between the learner and one env process, through shared memory.

:class:`.vec_env.LocalFirstVecEnv` sends each step's action to its env processes and reads
their results. Through a pipe that costs the learner, per env process and step, a pickle of
the action, a socket write, two socket reads and the unpickling: about 110 µs of the
learner's ~810 µs per batch of 2 on the 2-core development VM (per-step timestamps on both
sides, docs/benchmarks.md), all of it on the learner's path, the one that bounds the step
rate. A :class:`StepChannel` carries the same bytes through shared memory instead, with a
semaphore each way (``sem_post``/``sem_trywait``: no system call while the other side
spins, and a memory barrier each, so the bytes are seen whole on any CPU):

- the learner writes the pickled action (the same bytes a pipe would carry; an integer
  action's are made once, :meth:`StepChannel.action_bytes`) and posts ``command``;
- the env process, waiting on ``command`` (:func:`wait`: spinning for ``spin_s``, then
  blocking), reads it, steps as SB3's worker does, writes its pickled result and posts
  ``reply``; a result too large for the buffer goes through the pipe, flagged;
- every other command (reset, attributes, methods, close) still goes through the pipe,
  with ``command`` posted first, so the env process has one thing to wait on (and reads
  the pipe once woken: a message larger than the socket's buffer cannot block its sender).

What each side unpickles is what the pipe delivered, so training is unchanged
(``tests/training/learning/test_vec_env.py``). A side that dies is noticed by the other
within :data:`LIVENESS_S`: the learner raises :class:`EOFError` (as a pipe's read would),
and an env process whose learner is gone exits.
"""
from __future__ import annotations

import multiprocessing as mp
import pickle
import time
from collections.abc import Callable
from typing import Any

import numpy as np

STEP, PIPE = 1, 2  # what a posted command is: a step in the action buffer, or a message on the pipe
ACTION_BYTES = 1 << 16  # a pickled action larger than this goes through the pipe
RESULT_BYTES = 1 << 20  # a pickled step result larger than this goes through the pipe (OFC's: 2.6 kB)
OVERFLOW = -1  # a length that says "on the pipe"
LIVENESS_S = 0.5  # how often a blocked wait checks that the other side still runs
_KIND, _ACTION_LEN, _RESULT_LEN = range(3)  # the header's fields


def pickled(obj: Any) -> bytes:
    """``obj`` as the channel and the pipe carry it: a plain pickle (``Connection.send`` would
    build a ``ForkingPickler`` per message, copying the reducer table torch fills)."""
    return pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)


def wait(semaphore: Any, spin_s: float, alive: Callable[[], bool], other: str) -> None:
    """Take ``semaphore``: polling it for up to ``spin_s`` seconds, then blocking; every
    :data:`LIVENESS_S` while blocked, :class:`EOFError` if ``alive()`` says ``other`` has ended."""
    if semaphore.acquire(False):
        return
    if spin_s > 0:
        deadline = time.perf_counter() + spin_s
        while time.perf_counter() < deadline:
            if semaphore.acquire(False):
                return
    while not semaphore.acquire(timeout=LIVENESS_S):
        if not alive():
            raise EOFError(f"{other} has ended")


class StepChannel:
    """Shared memory and two semaphores for one env process; made by the learner and handed
    to the process at its start (``Process`` arguments)."""

    def __init__(self, ctx: Any, action_bytes: int | None = None, result_bytes: int | None = None):
        self.header = ctx.RawArray("q", 3)
        self.action = ctx.RawArray("B", action_bytes or ACTION_BYTES)  # the module's sizes when called
        self.result = ctx.RawArray("B", result_bytes or RESULT_BYTES)
        self.command, self.reply = ctx.Semaphore(0), ctx.Semaphore(0)
        self._memo: dict[tuple[type, int], bytes] = {}
        self._bytes: dict[str, np.ndarray] = {}  # numpy views of the buffers, made in each process

    def __getstate__(self) -> dict[str, Any]:  # the views and the memo stay in their process
        return {key: value for key, value in self.__dict__.items() if key not in ("_memo", "_bytes")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, _memo={}, _bytes={})

    def _view(self, name: str) -> np.ndarray:
        if name not in self._bytes:
            self._bytes[name] = np.frombuffer(getattr(self, name), dtype=np.uint8)
        return self._bytes[name]

    def _write(self, name: str, data: bytes) -> bool:
        view = self._view(name)
        if len(data) > len(view):
            return False
        view[:len(data)] = np.frombuffer(data, dtype=np.uint8)
        return True

    def _read(self, name: str, length: int) -> Any:
        return pickle.loads(self._view(name)[:length].data)

    def action_bytes(self, action: Any) -> bytes:
        """``pickle.dumps(action)``; an integer scalar's bytes made once per type and value
        (the same bytes: a numpy scalar pickles as its type and value)."""
        if isinstance(action, (np.integer, int)) and not isinstance(action, bool):
            key = (type(action), int(action))
            if key not in self._memo:
                self._memo[key] = pickled(action)
            return self._memo[key]
        return pickled(action)

    def _post(self, semaphore: Any, conn: Any, name: str, field: int, data: bytes) -> None:
        """``data`` into buffer ``name`` (its length in header ``field``), or through the pipe
        if it does not fit, flagged; then ``semaphore`` posted. A pipe message is sent after the
        post: the other side reads it only once woken, and a message larger than the socket's
        buffer would block its sender until then."""
        fits = self._write(name, data)
        self.header[field] = len(data) if fits else OVERFLOW
        semaphore.release()
        if not fits:
            conn.send_bytes(data)

    # ------------------------------------------------------------ the learner's side
    def send_step(self, conn: Any, action: Any) -> None:
        """Hand ``action`` to the env process (through the pipe if it is too large)."""
        self.header[_KIND] = STEP
        self._post(self.command, conn, "action", _ACTION_LEN, self.action_bytes(action))

    def receive_step(self, conn: Any, spin_s: float, process: Any) -> Any:
        """The env process's result of the step sent last."""
        try:
            wait(self.reply, spin_s, process.is_alive, "env process")
        except EOFError:  # the process printed its error, if it had one, as it ended
            raise EOFError(f"env process {process.pid} has ended (exit code {process.exitcode}) during a step") from None
        length = self.header[_RESULT_LEN]
        return conn.recv() if length == OVERFLOW else self._read("result", length)

    def send_message(self, conn: Any, message: Any) -> None:
        """A pipe command (reset, attributes, methods, close): the wake-up, then the message."""
        self.header[_KIND] = PIPE
        self.command.release()
        conn.send_bytes(pickled(message))

    # ------------------------------------------------------------ the env process's side
    def next_command(self, conn: Any, spin_s: float, learner_alive: Callable[[], bool]) -> tuple[bool, Any]:
        """(whether it is a step, the message as SB3's worker receives it)."""
        wait(self.command, spin_s, learner_alive, "the learner")
        if self.header[_KIND] != STEP:
            return False, conn.recv()
        length = self.header[_ACTION_LEN]
        action = pickle.loads(conn.recv_bytes()) if length == OVERFLOW else self._read("action", length)
        return True, ("step", action)

    def send_result(self, conn: Any, result: Any) -> None:
        self._post(self.reply, conn, "result", _RESULT_LEN, pickled(result))


class ChannelConnection:
    """The env process's end as SB3's worker loop uses it (``recv``, ``send``, ``close``):
    steps through the channel, everything else through the pipe."""

    def __init__(self, conn: Any, channel: StepChannel, spin_s: float):
        self.conn, self.channel, self.spin_s = conn, channel, spin_s
        self._stepping = False  # whether the message being answered came through the channel
        parent = mp.parent_process()  # the learner (None only outside a multiprocessing child)
        self.learner_alive = parent.is_alive if parent is not None else (lambda: True)

    def recv(self) -> Any:
        self._stepping, message = self.channel.next_command(self.conn, self.spin_s, self.learner_alive)
        return message

    def send(self, obj: Any) -> None:
        if self._stepping:
            self._stepping = False
            self.channel.send_result(self.conn, obj)
        else:  # recv reads a plain pickle as it reads Connection.send's
            self.conn.send_bytes(pickled(obj))

    def __getattr__(self, name: str) -> Any:  # close, poll: the pipe's own
        return getattr(self.conn, name)


class ChannelRemote:
    """The learner's end of one env process, for SubprocVecEnv's methods: ``send`` puts a
    command on the pipe and wakes the process; ``recv`` reads the pipe."""

    def __init__(self, conn: Any, channel: StepChannel):
        self.conn, self.channel = conn, channel

    def send(self, obj: Any) -> None:
        self.channel.send_message(self.conn, obj)

    def __getattr__(self, name: str) -> Any:  # recv, close, poll: the pipe's own
        return getattr(self.conn, name)
