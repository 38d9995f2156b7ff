"""Scale-out speed (``parlor bench --scale ENV``): training and evaluation throughput, side by side.

Training: learner env steps per second of SB3's MaskablePPO (parlor's sb3 backend,
envs in this process) and of RLlib's PPO (the rllib backend on a local Ray
instance, with 0, 1 and 2 env-runner processes), on the same env, opponent,
network and batch (``ROLLOUT`` env steps per update, minibatch and epochs as
below), after one warm-up update each. In the one-runner run, one runner's sampling and
the learner's side (the PPO update and the weights sent back) are also timed on their own:
the per-step costs (:func:`step_costs`) that :func:`cluster_estimate` turns into the
throughput of a cluster (the arithmetic is in its docstring).

Evaluation: episodes per second of ``parlor eval`` with ``--workers 1``, ``--workers
2`` and ``--ray`` on a local instance of this machine's CPUs (its start-up reported
apart; a second ``--ray`` run shows warm worker processes), each run checked to give
the records of ``--workers 1``.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import partial
from typing import Any

ROLLOUT, MINIBATCH, EPOCHS, NET, N_ENVS = 1024, 256, 5, (64, 64), 2


def train_config(env: str, options: Mapping[str, Any], backend: str, runners: int = 0) -> Any:
    """The benchmark's config: ``ROLLOUT`` env steps per update whatever the number of runners."""
    from parlor.training.learning.configs import PPOConfig, RLlibConfig, TrainConfig
    from parlor.training.learning.opponents import PoolEntry

    per_env = ROLLOUT // (N_ENVS * max(1, runners))
    ppo = PPOConfig(n_steps=per_env, batch_size=MINIBATCH, n_epochs=EPOCHS, net_arch=NET, activation="relu")
    return TrainConfig(env=env, options=dict(options), opponents=(PoolEntry("heuristic"),), n_envs=N_ENVS, ppo=ppo,
                       backend=backend, rllib=RLlibConfig(num_env_runners=runners) if backend == "rllib" else None)


def sb3_speed(config: Any, steps: int) -> dict[str, float]:
    import tempfile
    from pathlib import Path

    from parlor.training.learning.train import make_model, make_vec_env, training_torch

    training_torch()
    vec = make_vec_env(config)
    try:
        model = make_model(config, vec, Path(tempfile.mkdtemp()))
        model.learn(ROLLOUT)  # warm-up: one rollout and one update
        start = time.perf_counter()
        model.learn(steps, reset_num_timesteps=False)
        return {"steps": float(steps), "seconds": time.perf_counter() - start}
    finally:
        vec.close()


def _sample_seconds(runner: Any, steps: int) -> float:
    start = time.perf_counter()
    runner.sample(num_timesteps=steps)
    return time.perf_counter() - start


def _sample(runner: Any, steps: int) -> Any:
    return runner.sample(num_timesteps=steps)


def _learner_seconds(algo: Any) -> float:
    """Seconds of the learner's side of one iteration, on a batch of ``ROLLOUT`` steps sampled
    beforehand: the PPO update (as PPO's training step calls it) and the weights sent back."""
    from ray.rllib.utils.metrics import NUM_ENV_STEPS_SAMPLED_LIFETIME

    (episodes,) = algo.env_runner_group.foreach_env_runner(partial(_sample, steps=ROLLOUT), local_env_runner=False)
    c = algo.config
    start = time.perf_counter()
    algo.learner_group.update(episodes=episodes, timesteps={NUM_ENV_STEPS_SAMPLED_LIFETIME: 0},
                              num_epochs=c.num_epochs, minibatch_size=c.minibatch_size,
                              shuffle_batch_per_epoch=c.shuffle_batch_per_epoch)
    algo.env_runner_group.sync_weights(from_worker_or_learner_group=algo.learner_group, inference_only=True)
    return time.perf_counter() - start


def rllib_speed(config: Any, steps: int) -> dict[str, float]:
    """Needs a connected Ray. With one env runner, its two parts are also timed on their own
    after the run (the best of three each): ``sample_s``, the seconds the runner takes to
    sample ``ROLLOUT`` steps, and ``learner_s``, the learner's side on such a batch."""
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED

    from parlor.training.learning.rllib_train import ppo_config

    algo = ppo_config(config).build_algo()
    try:
        algo.train()  # warm-up
        done, start = 0, time.perf_counter()
        while done < steps:
            done += int(algo.train()[ENV_RUNNER_RESULTS][NUM_ENV_STEPS_SAMPLED])
        out = {"steps": float(done), "seconds": time.perf_counter() - start}
        if config.rllib.num_env_runners == 1:
            sample = partial(_sample_seconds, steps=ROLLOUT)
            out["sample_s"] = min(algo.env_runner_group.foreach_env_runner(sample, local_env_runner=False)[0]
                                  for _ in range(3))
            out["learner_s"] = min(_learner_seconds(algo) for _ in range(3))
        return out
    finally:
        algo.stop()


def step_costs(one_runner: dict[str, float]) -> tuple[float, float]:
    """(s, l) of :func:`cluster_estimate`'s model, per env step, each timed on its own in the
    one-runner run (:func:`rllib_speed`): s = one runner's sampling, l = the learner's side.
    (Not l = 1 / throughput - s: on a busy machine that difference of two noisy figures means
    nothing.) ``1 / (s + l)`` is the model's one-runner throughput, to set beside the measured one."""
    return one_runner["sample_s"] / ROLLOUT, one_runner["learner_s"] / ROLLOUT


def cluster_estimate(sample_s_per_step: float, serial_s_per_step: float, cores: int) -> float:
    """Learner env steps/s of RLlib PPO on ``cores`` CPUs: one runs the learner, the others
    sample. With R = cores - 1 runners sampling a batch of B steps together, an iteration
    takes B x s / R (sampling; s = one core's sampling seconds per step) + B x l (the
    update and the rest of the iteration; l per step, which does not shrink: one learner),
    so the throughput is 1 / (s / R + l), bounded by 1 / l however many machines join (Amdahl)."""
    runners = max(1, cores - 1)
    return 1.0 / (sample_s_per_step / runners + serial_s_per_step)


def eval_speed(config: Any, log: Callable[[str], None]) -> list[tuple[str, float, bool]]:
    """(label, episodes/s, same records as --workers 1) for --workers 1, --workers 2, --ray twice."""
    import os

    from parlor.training.evaluation import ray_runner
    from parlor.training.evaluation.runner import evaluate

    rows, reference = [], None
    for label, cfg in (("--workers 1", config), ("--workers 2", replace(config, workers=2))):
        start = time.perf_counter()
        result = evaluate(cfg)
        reference = reference or result["records"]
        rows.append((label, result["episodes"] / (time.perf_counter() - start), result["records"] == reference))
    start = time.perf_counter()
    with ray_runner.session(ray_runner.LOCAL, num_cpus=os.cpu_count()):
        log(f"ray.init (local, {os.cpu_count()} CPUs): {time.perf_counter() - start:.1f} s, not counted below")
        for label in ("--ray (local, cold workers)", "--ray (local, warm workers)"):
            start = time.perf_counter()
            result = evaluate(replace(config, ray=ray_runner.LOCAL))
            rows.append((label, result["episodes"] / (time.perf_counter() - start), result["records"] == reference))
    return rows
