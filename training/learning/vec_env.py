"""A vector env whose first env steps in the learner's process while the others step in theirs.

SB3's ``SubprocVecEnv`` puts every env in a process of its own, and its learner waits,
idle, while they step: with 2 envs on 2 cores the learner's process and two env
processes take turns on the cores, and every step of every env crosses a pipe
(``parlor bench --train``: 2 subprocess envs made 1.29x the steps/s of 1 env on two
cores, 2 envs in one process 1.60x). :class:`LocalFirstVecEnv` sends the actions to
envs 1..n-1 first, steps env 0 itself while they work, then collects their results:
the learner's process does an env's share instead of waiting, one process and one pipe
fewer. Each env is the same env with the same seed doing the same thing, and the
results are combined in env order, so training is bit-identical to ``SubprocVecEnv``
and ``DummyVecEnv`` (``tests/training/learning/test_vec_env.py``). Env 0's ``info``
dicts are copied as a pickle round trip would copy them (:func:`copied`), as a process's
would be: what the learner keeps never shares an object with the env.

Per step, the actions and the env processes' results go through shared memory, not the
pipes (:mod:`.step_channel`: the same bytes, without the socket calls; other commands still
use the pipes), and the results are stacked once with env 0's instead of stacked, then
copied into a second array.

Waiting (``spin_s``): a process that sleeps until the other side's message comes is woken by
the kernel, which on a VM's idle core costs a wake-up of the core (measured on the 2-core
development VM: 1 here + 1 in a process made 627-1,065 steps/s sleeping, erratic, against
1,168-1,227 busy-waiting; docs/benchmarks.md). With ``spin_s`` > 0 the learner and the env
processes poll for up to ``spin_s`` seconds before they block: what they receive, and so
the training, is the same; only the waiting differs. Spinning takes a core, so it pays only
with a core per process (``wait_seconds`` decides for ``auto``).
"""
from __future__ import annotations

import os
import pickle
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.env_util import is_wrapped
from stable_baselines3.common.vec_env import SubprocVecEnv, VecEnv
from stable_baselines3.common.vec_env.base_vec_env import CloudpickleWrapper
from stable_baselines3.common.vec_env.patch_gym import _patch_env
from stable_baselines3.common.vec_env.subproc_vec_env import _worker

from parlor.training.learning.configs import VEC_ENV_WAITS
from parlor.training.learning.step_channel import ChannelConnection, ChannelRemote, StepChannel

# the longest busy wait before blocking: the learner's acting and bookkeeping between two
# steps take about 1 ms on the development VM (docs/benchmarks.md), its update 100+ ms
SPIN_LIMIT_S = 0.002

_IMMUTABLE = (str, int, float, bool, type(None))  # exact types (a subclass may be mutable)


def copied(value: Any) -> Any:
    """What ``pickle.loads(pickle.dumps(value))`` gives for an env's info: equal, sharing no
    mutable object with ``value``. Plain values (dicts, lists and tuples of numbers, strings
    and numeric arrays, as parlor's infos hold) are copied directly, at a fraction of a pickle
    round trip's CPU; anything else goes through the round trip."""
    kind = type(value)
    if kind in _IMMUTABLE or isinstance(value, (np.integer, np.floating, np.bool_)):  # numpy scalars
        return value  # immutable: a copy would be equal and unshareable alike
    if kind is dict:
        return {key: copied(item) for key, item in value.items()}
    if kind is list:
        return [copied(item) for item in value]
    if kind is tuple:
        return tuple(copied(item) for item in value)
    if kind is np.ndarray and value.dtype.kind in "biuf":
        return value.copy(order="A")  # C order unless Fortran-contiguous, as an array unpickles
    return pickle.loads(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))


def usable_cores() -> int:
    """Cores this process may run on (its affinity where the OS says; else the CPU count)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def wait_seconds(wait: str, processes: int) -> float:
    """How long a process polls for a message before blocking: ``spin`` ``SPIN_LIMIT_S``,
    ``sleep`` 0, ``auto`` spin when the ``processes`` (the learner's included) each have a core."""
    if wait not in VEC_ENV_WAITS:
        raise ValueError(f"wait={wait!r}; allowed values: {', '.join(VEC_ENV_WAITS)}")
    if wait == "auto":
        wait = "spin" if usable_cores() >= processes else "sleep"
    return SPIN_LIMIT_S if wait == "spin" else 0.0


def channel_worker(remote: Any, parent_remote: Any, env_fn_wrapper: CloudpickleWrapper, channel: StepChannel,
                   spin_s: float) -> None:
    """SB3's env-process loop, its steps through ``channel`` (:class:`.step_channel.ChannelConnection`)."""
    _worker(ChannelConnection(remote, channel, spin_s), parent_remote, env_fn_wrapper)  # type: ignore[arg-type]


class EnvProcesses(SubprocVecEnv):
    """SB3's ``SubprocVecEnv`` whose env processes take their steps through a
    :class:`.step_channel.StepChannel` each, waiting for ``spin_s`` seconds before they block.
    Its ``__init__`` is SubprocVecEnv's with :func:`channel_worker` as the processes' target
    (SB3 has no hook for another worker), and ``remotes`` wake the processes after each pipe
    command (:class:`.step_channel.ChannelRemote`); SubprocVecEnv's methods use them unchanged.
    :class:`LocalFirstVecEnv` steps them (``send_steps``, ``receive_steps``)."""

    def __init__(self, env_fns: list[Callable[[], gym.Env]], spin_s: float, start_method: str | None = None):
        import multiprocessing as mp

        self.waiting, self.closed, self.spin_s = False, False, spin_s
        if start_method is None:  # SubprocVecEnv's choice
            start_method = "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"
        ctx = mp.get_context(start_method)
        pipes, work_remotes = zip(*[ctx.Pipe() for _ in env_fns], strict=True)
        self.channels = [StepChannel(ctx) for _ in env_fns]
        self.processes = []
        for work_remote, pipe, channel, env_fn in zip(work_remotes, pipes, self.channels, env_fns, strict=True):
            args = (work_remote, pipe, CloudpickleWrapper(env_fn), channel, spin_s)
            process = ctx.Process(target=channel_worker, args=args, daemon=True)  # type: ignore[attr-defined]
            process.start()
            self.processes.append(process)
            work_remote.close()
        self.remotes = tuple(ChannelRemote(pipe, channel) for pipe, channel in zip(pipes, self.channels, strict=True))
        self.remotes[0].send(("get_spaces", None))
        observation_space, action_space = self.remotes[0].recv()
        VecEnv.__init__(self, len(env_fns), observation_space, action_space)

    def send_steps(self, actions: Any) -> None:
        for remote, channel, action in zip(self.remotes, self.channels, actions, strict=True):
            channel.send_step(remote.conn, action)
        self.waiting = True

    def receive_steps(self) -> list[Any]:
        """Each process's ``(obs, reward, done, info, reset_info)`` for the steps sent last."""
        results = [channel.receive_step(remote.conn, self.spin_s, process)
                   for remote, channel, process in zip(self.remotes, self.channels, self.processes, strict=True)]
        self.waiting = False
        return results

    def close(self) -> None:
        if not self.closed and self.waiting:  # SubprocVecEnv's close reads a pending step's results from the pipe
            self.receive_steps()
        super().close()


class LocalFirstVecEnv(VecEnv):
    """``env_fns[0]`` built and stepped here, the rest in :class:`EnvProcesses` (at least 2 envs;
    Box observations); the SB3 ``VecEnv`` interface, results in env order. ``spin_s``: how
    long this process and the env processes poll for a step's message before they block."""

    def __init__(self, env_fns: Sequence[Callable[[], gym.Env]], start_method: str | None = None,
                 spin_s: float = 0.0):
        if len(env_fns) < 2:
            raise ValueError(f"LocalFirstVecEnv needs at least 2 envs (got {len(env_fns)}); 1 env: DummyVecEnv")
        if not isinstance(spin_s, (int, float)) or isinstance(spin_s, bool) or not 0 <= spin_s <= 1:
            raise ValueError(f"spin_s={spin_s!r}: seconds in 0..1 (0: block at once)")
        self.spin_s = float(spin_s)
        self.remote = EnvProcesses(list(env_fns[1:]), self.spin_s, start_method=start_method)
        try:
            self.env = _patch_env(env_fns[0]())
            if not isinstance(self.env.observation_space, gym.spaces.Box):
                raise ValueError(f"LocalFirstVecEnv stacks Box observations; this env has a "
                                 f"{type(self.env.observation_space).__name__}")
        except BaseException:
            self.remote.close()
            raise
        self.processes = self.remote.processes  # the env processes (for CPU accounting)
        self._action: Any = None
        self._reset_info: dict[str, Any] = {}  # env 0's last reset info (a copy)
        super().__init__(len(env_fns), self.env.observation_space, self.env.action_space)

    # ------------------------------------------------------------ stepping
    def reset(self) -> np.ndarray:
        self.remote._seeds, self.remote._options = self._seeds[1:], self._options[1:]
        rest = self.remote.reset()
        options = {"options": self._options[0]} if self._options[0] else {}
        obs, reset_info = self.env.reset(seed=self._seeds[0], **options)
        self._reset_info = copied(reset_info)
        self.reset_infos = [self._reset_info, *self.remote.reset_infos]
        self._reset_seeds()
        self._reset_options()
        return np.concatenate([np.asarray(obs)[None], rest])

    def step_async(self, actions: np.ndarray) -> None:
        self.remote.send_steps(actions[1:])  # first: the env processes start at once
        self._action = actions[0]

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        obs, reward, terminated, truncated, info = self.env.step(self._action)  # as SubprocVecEnv's worker does
        done = terminated or truncated
        info["TimeLimit.truncated"] = truncated and not terminated
        if done:
            info["terminal_observation"] = obs
            obs, reset_info = self.env.reset()
            self._reset_info = copied(reset_info)  # kept until the next reset, as a process keeps it
        info = copied(info)
        results = self.remote.receive_steps()  # SubprocVecEnv.step_wait's
        rest_obs, rest_rewards, rest_dones, rest_infos, rest_reset_infos = zip(*results)
        self.remote.reset_infos = list(rest_reset_infos)
        self.reset_infos = [self._reset_info, *rest_reset_infos]
        return (np.stack([np.asarray(obs), *rest_obs]), np.concatenate([[reward], np.stack(rest_rewards)]),
                np.concatenate([[done], np.stack(rest_dones)]), [info, *rest_infos])

    def close(self) -> None:
        try:
            self.remote.close()
        finally:
            self.env.close()

    # ------------------------------------------------------------ the envs' attributes and methods
    def _each(self, indices: Any, here: Callable[[], Any], there: Callable[[list[int]], list[Any]]) -> list[Any]:
        """``here()`` for env 0 and ``there(remote indices)`` once for the others, in ``indices`` order."""
        wanted = list(self._get_indices(indices))
        remote = [i - 1 for i in wanted if i != 0]
        answers = iter(there(remote) if remote else [])
        return [here() if i == 0 else next(answers) for i in wanted]

    def has_attr(self, attr_name: str) -> bool:
        """Whether every env has ``attr_name`` (asked in place, as SubprocVecEnv does: a method
        need not pickle)."""
        try:
            self.env.get_wrapper_attr(attr_name)
        except AttributeError:
            return False
        return self.remote.has_attr(attr_name)

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return self._each(indices, lambda: self.env.get_wrapper_attr(attr_name),
                          lambda idx: self.remote.get_attr(attr_name, idx))

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        def remote(idx: list[int]) -> list[None]:
            self.remote.set_attr(attr_name, value, idx)
            return [None] * len(idx)

        self._each(indices, lambda: setattr(self.env, attr_name, value), remote)

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list[Any]:
        return self._each(indices, lambda: self.env.get_wrapper_attr(method_name)(*method_args, **method_kwargs),
                          lambda idx: self.remote.env_method(method_name, *method_args, indices=idx, **method_kwargs))

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return self._each(indices, lambda: is_wrapped(self.env, wrapper_class),
                          lambda idx: self.remote.env_is_wrapped(wrapper_class, idx))

    def get_images(self) -> list[Any]:  # env 0's frame (whatever its render gives), then the processes' frames
        return [self.env.render() if self.render_mode == "rgb_array" else None, *self.remote.get_images()]
