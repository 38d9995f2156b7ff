"""The step channel (parlor.training.learning.step_channel): what LocalFirstVecEnv's env processes
receive and send through shared memory, the pipe for what does not fit, and the ends of either side."""
from __future__ import annotations

import multiprocessing as mp
import os
import pickle
import subprocess
import sys
import textwrap
import time
from functools import partial

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from stable_baselines3.common.vec_env import DummyVecEnv

from parlor.training.learning import step_channel
from parlor.training.learning.step_channel import StepChannel, wait
from parlor.training.learning.vec_env import LocalFirstVecEnv


class _Semaphore:
    """A semaphore that is free after ``late`` polls (``None``: never)."""

    def __init__(self, late: int | None):
        self.late, self.polls, self.blocked = late, 0, 0

    def acquire(self, block: bool = True, timeout: float | None = None) -> bool:
        if not block:
            self.polls += 1
            return self.late is not None and self.polls > self.late
        self.blocked += 1
        time.sleep(min(timeout or 0, 0.001))
        return self.late is not None


def test_wait_polls_until_the_semaphore_is_free_then_stops() -> None:
    semaphore = _Semaphore(late=50)
    wait(semaphore, 10.0, lambda: True, "the other side")
    assert semaphore.polls == 51 and semaphore.blocked == 0  # no poll after it was free, no block


def test_wait_blocks_after_its_spin_and_at_once_without_one() -> None:
    semaphore, start = _Semaphore(late=10**9), time.perf_counter()
    wait(semaphore, 0.01, lambda: True, "the other side")  # blocks (and is granted) after the deadline
    assert 0.01 <= time.perf_counter() - start < 5 and semaphore.polls > 1 and semaphore.blocked == 1
    semaphore = _Semaphore(late=10**9)
    wait(semaphore, 0.0, lambda: True, "the other side")
    assert semaphore.polls == 1 and semaphore.blocked == 1


def test_a_blocked_wait_ends_with_eof_when_the_other_side_has_ended(monkeypatch) -> None:
    monkeypatch.setattr(step_channel, "LIVENESS_S", 0.001)
    checks = iter([True, True, False])
    with pytest.raises(EOFError, match="env process 7 has ended"):
        wait(_Semaphore(late=None), 0.0, lambda: next(checks), "env process 7")


def test_actions_and_results_cross_as_their_pickles_and_are_copies() -> None:
    channel = StepChannel(mp.get_context("spawn"), action_bytes=512, result_bytes=4096)
    for action in (np.int64(3), np.int32(3), 3, np.array([0.5, -1.0], dtype=np.float32)):
        data = channel.action_bytes(action)
        assert data == pickle.dumps(action, protocol=pickle.HIGHEST_PROTOCOL)
        assert channel._write("action", data)
        back = channel._read("action", len(data))
        assert type(back) is type(action) and np.array_equal(back, action)
    assert channel.action_bytes(np.int64(3)) is channel.action_bytes(np.int64(3))  # made once
    result = (np.arange(6, dtype=np.float32), 1.5, False, {"mask": np.array([True, False])}, {})
    data = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
    assert channel._write("result", data)
    obs, reward, done, info, reset_info = channel._read("result", len(data))
    channel._view("result")[:] = 0  # the next result overwrites the buffer: what was read must not change
    assert np.array_equal(obs, np.arange(6)) and obs.dtype == np.float32 and obs.flags.writeable
    assert (reward, done, reset_info) == (1.5, False, {}) and info["mask"].tolist() == [True, False]
    assert not channel._write("result", bytes(4097))  # too large: the caller uses the pipe


class _Echo(gym.Env):
    """Observation: the last action; a step's info carries ``payload`` bytes (a large result);
    action ``raise_on`` raises in the env's step."""

    observation_space = gym.spaces.Box(-1e9, 1e9, shape=(2,), dtype=np.float64)
    action_space = gym.spaces.Discrete(5)

    def __init__(self, payload: int = 0, raise_on: int | None = None):
        self.payload, self.raise_on, self.t = payload, raise_on, 0

    def reset(self, *, seed=None, options=None):
        self.t = 0
        return np.zeros(2), {}

    def step(self, action):
        if action == self.raise_on:
            raise RuntimeError("the env failed")
        self.t += 1
        return np.array([float(action), self.t]), 1.0, self.t % 4 == 0, False, {"blob": b"x" * self.payload}

    def size(self, blob: bytes) -> int:
        return len(blob)


def test_steps_too_large_for_the_buffers_go_through_the_pipe(monkeypatch) -> None:
    monkeypatch.setattr(step_channel, "RESULT_BYTES", 64)  # the learner makes the buffers
    monkeypatch.setattr(step_channel, "ACTION_BYTES", 16)  # every action through the pipe
    fns = [partial(_Echo, payload=100 * i) for i in range(3)]  # env 1: 100 bytes, env 2: 200
    local, dummy = LocalFirstVecEnv(fns, spin_s=0.002), DummyVecEnv(fns)
    try:
        assert [(len(ch.action), len(ch.result)) for ch in local.remote.channels] == [(16, 64), (16, 64)]
        assert np.array_equal(local.reset(), dummy.reset())
        for step in range(9):
            actions = np.array([step % 5, (step + 1) % 5, (step + 2) % 5])
            local.step_async(actions), dummy.step_async(actions)
            (obs, rewards, dones, infos), expected = local.step_wait(), dummy.step_wait()
            assert np.array_equal(obs, expected[0]) and np.array_equal(rewards, expected[1])
            assert np.array_equal(dones, expected[2])
            assert [info["blob"] for info in infos] == [info["blob"] for info in expected[3]]
        assert local.env_method("step", 2, indices=[2])[0][0].tolist() == [2.0, 2.0]  # a pipe command after
    finally:
        local.close(), dummy.close()


def test_pipe_messages_larger_than_a_socket_buffer_reach_the_env_process() -> None:
    # the env process reads a pipe message once woken: the wake-up goes first, or a sender
    # blocked on a full socket buffer would wait for it forever
    import threading

    local, sizes = LocalFirstVecEnv([_Echo, _Echo], spin_s=0.002), []
    blob = b"y" * (8 << 20)
    caller = threading.Thread(target=lambda: sizes.extend(local.env_method("size", blob, indices=[1])), daemon=True)
    caller.start()
    caller.join(timeout=60)
    assert sizes == [len(blob)], "the 8 MB message did not get through"
    local.close()


def test_an_env_process_that_fails_ends_the_step_with_eof(monkeypatch) -> None:
    monkeypatch.setattr(step_channel, "LIVENESS_S", 0.05)
    local = LocalFirstVecEnv([_Echo, partial(_Echo, raise_on=4)], spin_s=0.0)
    try:
        local.reset()
        local.step_async(np.array([1, 4]))
        with pytest.raises(EOFError, match=r"env process \d+ has ended \(exit code 1\) during a step"):
            local.step_wait()
    finally:
        local.env.close()


def test_close_collects_a_pending_step_first() -> None:
    local = LocalFirstVecEnv([_Echo, _Echo], spin_s=0.002)
    local.reset()
    local.remote.send_steps([np.int64(1)])
    local.close()  # SubprocVecEnv's close would wait on the pipe for this step's result
    assert local.remote.closed and not any(process.is_alive() for process in local.remote.processes)


def test_an_env_process_ends_when_its_learner_is_killed(tmp_path) -> None:
    script = textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {os.path.dirname(__file__)!r})
        from test_step_channel import _Echo
        from parlor.training.learning.vec_env import LocalFirstVecEnv
        if __name__ == "__main__":
            vec = LocalFirstVecEnv([_Echo, _Echo], spin_s=0.0)
            vec.reset()
            print(vec.remote.processes[0].pid, flush=True)
            os._exit(0)  # no cleanup: the env process is left waiting for a command
    """)
    (tmp_path / "learner.py").write_text(script)
    out = subprocess.run([sys.executable, str(tmp_path / "learner.py")], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)
    pid = int(out.stdout.split()[0])
    deadline = time.time() + 30
    while time.time() < deadline and _running(pid):
        time.sleep(0.05)
    assert not _running(pid)


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ")[1][0] not in "ZX"  # a zombie has ended
    except FileNotFoundError:
        return False
