"""Training throughput (``parlor bench --train ENV``): SB3 and RLlib side by side, and where a step goes.

Every row trains the same learner (the config of :func:`~.scale.train_config`: the
same net, ``ROLLOUT`` env steps per update whatever the number of envs, minibatch,
epochs, the heuristic as opponent) for the same number of env steps after one
warm-up update, and reports learner env steps per second and CPU seconds per env
step: this process's CPU (all its threads) plus that of the env processes (SB3's
``SubprocVecEnv`` workers, RLlib's env runners), read from ``/proc``. Ray's own
daemons are not counted. Ratios between rows of one run are what to read: the
machines are shared and noisy.

The in-process rows (no env process) also split this process's CPU per env step
into parts, timed by wrapping the methods that do them (the calling thread's CPU):
``env`` (the learner's env: its own move, observation and mask; includes the
``opponents``' moves, also shown alone), ``policy forward`` (acting),
``update`` (PPO's epochs, and for RLlib the learner connector's value pass),
and the rest: the framework around them (rollout buffers and tensors in SB3;
episodes, connectors and metrics in RLlib).

For rows with more env processes than this machine has cores, steps/s says little;
:func:`learner_bound` turns such a row's learner CPU per env step into the steps/s it
allows on a machine with a core per process: the arithmetic for many cores, from a
measurement any machine can repeat.
"""
from __future__ import annotations

import contextlib
import functools
import gc
import os
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

PARTS = ("env", "opponents", "policy forward", "update")


@dataclass(frozen=True)
class Row:
    """One measured trainer: ``steps`` learner env steps in ``seconds`` using ``cpu`` CPU seconds."""

    label: str
    steps: float
    seconds: float
    cpu: float
    parts: dict[str, float] = field(default_factory=dict)  # CPU seconds of this process per part
    own_cpu: float = 0.0  # CPU seconds of this process alone (the learner's), all its threads

    @property
    def rate(self) -> float:
        return self.steps / self.seconds

    @property
    def cpu_per_step(self) -> float:
        return self.cpu / self.steps


# ---------------------------------------------------------------- measuring
def proc_cpu(pids: Sequence[int]) -> float:
    """CPU seconds (user + system) used so far by the processes ``pids`` (Linux ``/proc``; 0 elsewhere)."""
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    total = 0.0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / ticks  # utime, stime (fields 14 and 15 of stat)
    return total


@contextlib.contextmanager
def timed_parts(targets: Sequence[tuple[type, str, str]], into: dict[str, float]) -> Iterator[None]:
    """While open, every call of ``cls.method`` adds the calling thread's CPU seconds to
    ``into[part]``, for each ``(cls, method, part)``; the methods are restored afterwards."""
    saved = []
    for cls, name, part in targets:
        original = getattr(cls, name)  # maybe inherited: then the class gets its own until restored

        def wrapper(*args: Any, _original: Any = original, _part: str = part, **kwargs: Any) -> Any:
            start = time.thread_time()
            try:
                return _original(*args, **kwargs)
            finally:
                into[_part] = into.get(_part, 0.0) + time.thread_time() - start

        saved.append((cls, name, cls.__dict__.get(name)))
        setattr(cls, name, functools.wraps(original)(wrapper))
    try:
        yield
    finally:
        for cls, name, own in reversed(saved):
            if own is None:
                delattr(cls, name)
            else:
                setattr(cls, name, own)


def _env_targets() -> list[tuple[type, str, str]]:
    from parlor.training.learning.wrapper import SingleAgentEnv

    return [(SingleAgentEnv, "step", "env"), (SingleAgentEnv, "reset", "env"),
            (SingleAgentEnv, "action_masks", "env"), (SingleAgentEnv, "_play_opponents", "opponents")]


# ---------------------------------------------------------------- the trainers
def sb3_row(config: Any, steps: int, label: str, split: bool = False, every_env_in_a_process: bool = False,
            stock: bool = False) -> Row:
    """parlor's MaskablePPO on ``config``'s vector env (``every_env_in_a_process``: SB3's
    SubprocVecEnv instead of env 0 here; ``stock``: sb3-contrib's rollout loop, forward pass
    and update instead of the lean ones); ``split``: time the parts (in-process envs only)."""
    import tempfile
    from pathlib import Path

    from sb3_contrib import MaskablePPO

    from parlor.training.benchmarks.scale import ROLLOUT
    from parlor.training.learning import rollout
    from parlor.training.learning.train import make_model, make_vec_env, training_torch

    training_torch()
    vec = make_vec_env(config, every_env_in_a_process=every_env_in_a_process)
    try:
        model = make_model(config, vec, Path(tempfile.mkdtemp()))
        if stock:  # looked up at each call, so that the timed wrappers below see them
            model.collect_rollouts = lambda *args, **kwargs: MaskablePPO.collect_rollouts(model, *args, **kwargs)
            model.train = lambda: MaskablePPO.train(model)
        model.learn(ROLLOUT)  # warm-up: one rollout and one update
        pids = [p.pid for p in getattr(vec.unwrapped, "processes", [])]
        parts: dict[str, float] = {}
        acting = (type(model.policy), "forward") if stock else (rollout, "lean_act")
        update = (MaskablePPO, "train") if stock else (rollout.ParlorMaskablePPO, "train")
        targets = [*_env_targets(), (*acting, "policy forward"), (*update, "update")] if split else []
        cpu0, others0, start = time.process_time(), proc_cpu(pids), time.perf_counter()
        with timed_parts(targets, parts):
            model.learn(steps, reset_num_timesteps=False)
        seconds = time.perf_counter() - start
        own = time.process_time() - cpu0
        return Row(label, float(steps), seconds, own + proc_cpu(pids) - others0, parts, own)
    finally:
        vec.close()


def _pid(_runner: Any) -> int:
    return os.getpid()


def rllib_row(config: Any, steps: int, label: str, split: bool = False, stock_runner: bool = False) -> Row:
    """RLlib PPO on ``config`` (needs a connected Ray); ``split``: time the parts (0 env runners only);
    ``stock_runner``: RLlib's own ``MultiAgentEnvRunner`` instead of parlor's lean one."""
    from ray.rllib.core.learner.learner_group import LearnerGroup
    from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED

    from parlor.training.learning.rllib_module import MaskedPPOTorchRLModule
    from parlor.training.learning.rllib_train import ppo_config

    algo_config = ppo_config(config)
    if stock_runner:
        algo_config = algo_config.env_runners(env_runner_cls=MultiAgentEnvRunner)
    algo = algo_config.build_algo()
    try:
        algo.train()  # warm-up
        # the first RLlib row of a process would otherwise pay, in full collections during its
        # measured updates, for the objects of RLlib's first import and build (not a per-step cost)
        gc.collect()
        pids = [p for p in algo.env_runner_group.foreach_env_runner(_pid, local_env_runner=False)
                if p != os.getpid()] if config.rllib.num_env_runners else []
        parts: dict[str, float] = {}
        targets = [*_env_targets(), (MaskedPPOTorchRLModule, "forward_exploration", "policy forward"),
                   (LearnerGroup, "update", "update")] if split else []
        done, cpu0, others0, start = 0, time.process_time(), proc_cpu(pids), time.perf_counter()
        with timed_parts(targets, parts):
            while done < steps:
                done += int(algo.train()[ENV_RUNNER_RESULTS][NUM_ENV_STEPS_SAMPLED])
        seconds = time.perf_counter() - start
        own = time.process_time() - cpu0
        return Row(label, float(done), seconds, own + proc_cpu(pids) - others0, parts, own)
    finally:
        algo.stop()


def sb3_config(base: Any, n_envs: int, vec_env: str) -> Any:
    """``base`` with ``n_envs`` envs sharing the same ``ROLLOUT`` steps per update."""
    from parlor.training.benchmarks.scale import ROLLOUT

    return replace(base, n_envs=n_envs, vec_env=vec_env, ppo=replace(base.ppo, n_steps=ROLLOUT // n_envs))


# ---------------------------------------------------------------- alternated rounds
def alternated(makers: Sequence[tuple[str, Callable[[], Row]]], rounds: int) -> dict[str, list[Row]]:
    """Each ``(label, make)`` measured once a round, in the given order in even rounds and reversed
    in odd ones (no row always follows another), so that the machine's drift over a run falls
    on every row alike: the rows by label, in round order."""
    rows: dict[str, list[Row]] = {label: [] for label, _ in makers}
    for i in range(rounds):
        for label, make in makers if i % 2 == 0 else makers[::-1]:
            rows[label].append(make())
    return rows


def round_ratios(rows: dict[str, list[Row]], numerator: str, denominator: str, cpu: bool) -> list[float]:
    """Per round, ``numerator``'s CPU per step (``cpu``) or steps/s over ``denominator``'s."""
    return [n.cpu_per_step / d.cpu_per_step if cpu else n.rate / d.rate
            for n, d in zip(rows[numerator], rows[denominator], strict=True)]


def rounds_report(rows: dict[str, list[Row]], comparisons: Sequence[tuple[str, str, bool]]) -> list[str]:
    """One line per ``(numerator, denominator, cpu)``: the ratio in each round and their median."""
    rounds = len(next(iter(rows.values()), []))
    lines = [f"\n{rounds} alternated rounds (each row once a round, the order reversed every other round); "
             "ratios of rows of one round:"]
    for numerator, denominator, cpu in comparisons:
        ratios = round_ratios(rows, numerator, denominator, cpu)
        lines.append(f"  {'CPU per step' if cpu else 'steps/s'}, {numerator} over {denominator}: "
                     + " ".join(f"{r:.2f}x" for r in ratios) + f"; median {statistics.median(ratios):.2f}x")
    return lines


# ---------------------------------------------------------------- the report
def report(rows: Sequence[Row], reference: Row, cpu_reference: Row) -> list[str]:
    """The table: steps/s and its ratio to ``reference``; CPU per step and its ratio to ``cpu_reference``."""
    lines = [f"{'trainer':46s} {'steps/s':>8s} {'x ' + 'ref':>7s} {'CPU ms/step':>12s} {'x ref':>7s}"]
    for r in rows:
        lines.append(f"{r.label:46s} {r.rate:8,.0f} {r.rate / reference.rate:6.2f}x {r.cpu_per_step * 1e3:12.3f} "
                     f"{r.cpu_per_step / cpu_reference.cpu_per_step:6.2f}x")
    lines.append(f"(steps/s against: {reference.label}; CPU against: {cpu_reference.label})")
    return lines


def learner_bound(rows: Sequence[Row], one_env: Row) -> list[str]:
    """For rows whose envs step in processes of their own, more than this machine has cores,
    waiting asleep (their learner's CPU is then its work, not its waiting): the learner's own CPU
    per env step, and the steps/s it allows when every env process has an idle core (the
    learner's work is then the whole step: it acts, steps env 0, reads the results, updates)
    as a ratio to ``one_env``'s CPU per step (what 1 env makes on an idle core). The arithmetic
    for a machine with more cores than this one: an estimate, not a measurement. Sleeping waits
    make the learner pay a wake-up per env process and step that spinning ones on idle cores
    would not (which matters with few envs), 16 processes sharing this machine's cores crowd
    the learner's caches, and an env process that is late still holds the learner up, so the
    many-core figure may fall on either side of it (docs/benchmarks.md, eighth pass)."""
    if not rows:
        return []
    lines = ["\nmore env processes than cores here: the learner's own CPU per env step, and the steps/s it "
             f"allows with a core per process, an estimate (ratio: {one_env.label}'s CPU per step over it):"]
    for r in rows:
        per_step = r.own_cpu / r.steps
        lines.append(f"  {r.label}: {per_step * 1e6:,.0f} us -> about {1 / per_step:,.0f} steps/s, "
                     f"{one_env.cpu_per_step / per_step:.2f}x")
    return lines


def breakdown(rows: Sequence[Row]) -> list[str]:
    """Microseconds of this process's CPU per env step, by part, for the rows that were split."""
    split = [r for r in rows if r.parts]
    if not split:
        return []
    width = max(len(r.label) for r in split)
    lines = ["\nwhere each env step's CPU goes (us per step; env includes opponents):",
             f"{'part':24s} " + " ".join(f"{r.label:>{width}s}" for r in split)]
    for part in (*PARTS, "the rest (framework)", "total"):
        cells = []
        for r in split:
            if part == "total":
                value = r.cpu
            elif part == "the rest (framework)":
                value = r.cpu - sum(r.parts.get(p, 0.0) for p in PARTS if p != "opponents")
            else:
                value = r.parts.get(part, 0.0)
            cells.append(f"{value / r.steps * 1e6:>{width},.0f}")
        lines.append(f"{part:24s} " + " ".join(cells))
    return lines
