"""``backend: rllib``: multi-agent PPO with RLlib (new API stack) on a Ray cluster, same run folder.

The envs are :class:`~.rllib_env.ParlorMultiAgentEnv` copies on RLlib's env
runners (``rllib.num_env_runners`` processes on the cluster, ``n_envs`` envs each;
0 runners: the envs step in this process; each runner a :class:`~.rllib_runner.LeanEnvRunner`,
RLlib's without the per-step connector pipelines), every exposed seat mapped to one
trained module, ``learner`` (:class:`~.rllib_module.MaskedPPOTorchRLModule`).
The training config means what it means for sb3 (:mod:`.configs`); the PPO keys map so:

| parlor ``ppo.*`` (SB3 names)       | RLlib ``PPOConfig``                                       |
|------------------------------------|-----------------------------------------------------------|
| n_steps x n_envs x max(1, runners) | ``train_batch_size_per_learner`` x max(1, ``num_learners``) |
| batch_size, n_epochs               | ``minibatch_size``, ``num_epochs``                        |
| learning_rate, gamma, gae_lambda   | ``lr``, ``gamma``, ``lambda_``                            |
| clip_range, ent_coef, vf_coef      | ``clip_param``, ``entropy_coeff``, ``vf_loss_coeff``      |
| max_grad_norm                      | ``grad_clip`` (``grad_clip_by="global_norm"``)            |
| (SB3 has neither)                  | ``use_kl_loss=False``, ``vf_clip_param=inf``              |
| net_arch, activation               | the module's ``model_config`` (SB3's MlpPolicy networks)  |

Everything around the learner is parlor's own, so both backends write the same run
folder: a *shadow* MaskablePPO holds a copy of the learner's weights after every
iteration (:mod:`.rllib_export` renames the tensors), and the sb3 backend's
:class:`~.callbacks.ParlorCallback` runs on it: periodic duplicate-deal evaluation
against the baselines, checkpoints, self-play snapshots (a policy file in
``snapshots/`` whose bytes every env runner receives: the cluster's machines need
no shared disk), TensorBoard scalars (``tb/rllib_<n>``), the learning curve, and the
final ``model.zip`` / ``policy.zip`` that ``parlor eval`` plays. The warm starts
(``init``, ``pretrain``) fit the shadow and copy it into the learner. RLlib's own
checkpoint (``checkpoints/rllib/``, with its step count in ``checkpoints/rllib.json``)
is what ``--resume`` restores.
"""
from __future__ import annotations

import json
import math
import os
import time
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnvWrapper

from parlor.training.learning.configs import TrainConfig
from parlor.training.learning.rllib_env import ParlorMultiAgentEnv
from parlor.training.learning.rllib_export import from_sb3, to_sb3
from parlor.training.learning.wrapper import SingleAgentEnv

LEARNER = "learner"
RLLIB_CHECKPOINT, RLLIB_STEPS = "rllib", "rllib.json"
RESTART_WAIT = 2.0  # seconds between iterations while no env runner is up
SNAPSHOT_FOLDER = "parlor-snapshots"  # the runners' copies of the snapshots, under their temp dir


def env_config(config: TrainConfig) -> dict[str, Any]:
    """The env copies' config: :class:`SingleAgentEnv`'s keyword arguments, seeded by ``config.seed``.
    ``ppo:PATH`` opponents are read here and travel as bytes (:mod:`~parlor.training.evaluation.shipped`):
    the runners never open the path, so the cluster's machines need no shared disk."""
    from parlor.training.evaluation.shipped import policy_factories
    from parlor.training.learning.train import env_kwargs

    kwargs = env_kwargs(config, 0)
    del kwargs["seat_offset"]  # each copy's own, from its worker and vector index
    factories = policy_factories([entry.agent for entry in config.opponents])
    return {**kwargs, "seed": config.seed, **({"agent_factories": factories} if factories else {})}


def map_to_learner(agent_id: Any, episode: Any, **kwargs: Any) -> str:
    return LEARNER  # baselines and snapshots play inside the env; every exposed seat is the learner


def ppo_config(config: TrainConfig) -> Any:
    """RLlib's PPOConfig for ``config`` (the mapping in the module docstring)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from parlor.training.learning.rllib_module import MaskedPPOTorchRLModule, model_config
    from parlor.training.learning.rllib_runner import LeanEnvRunner

    p, r = config.ppo, config.rllib
    assert r is not None  # TrainConfig sets it with backend: rllib
    module = RLModuleSpec(module_class=MaskedPPOTorchRLModule, model_config=model_config(p.net_arch, p.activation))
    return (
        PPOConfig()
        # RLlib's env check steps each env with an unmasked sample of the action space, which
        # parlor refuses (IllegalActionError); tests/training/learning/test_rllib_env.py checks the contract
        .environment(ParlorMultiAgentEnv, env_config=env_config(config), disable_env_checking=True)
        .framework("torch")
        # episodes_to_numpy=False: RLlib 2.x converts every finished episode of a sample() call again
        # after each env step (quadratic: a third of the sampling CPU on OFC); the learner
        # connector batches the lists into the same arrays. LeanEnvRunner: RLlib's runner without
        # the per-step connector pipelines and metrics (the same episodes; .rllib_runner)
        .env_runners(num_env_runners=r.num_env_runners, num_envs_per_env_runner=config.n_envs,
                     num_cpus_per_env_runner=r.num_cpus_per_env_runner, rollout_fragment_length="auto",
                     episodes_to_numpy=False, env_runner_cls=LeanEnvRunner)
        .learners(num_learners=r.num_learners, num_gpus_per_learner=1 if r.learner_device == "cuda" else 0)
        .multi_agent(policies={LEARNER}, policy_mapping_fn=map_to_learner, policies_to_train=[LEARNER])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={LEARNER: module}))
        .training(train_batch_size_per_learner=config.update_steps // max(1, r.num_learners),
                  minibatch_size=p.batch_size, num_epochs=p.n_epochs, lr=p.learning_rate, gamma=p.gamma,
                  lambda_=p.gae_lambda, clip_param=p.clip_range, entropy_coeff=p.ent_coef, vf_loss_coeff=p.vf_coef,
                  grad_clip=p.max_grad_norm, grad_clip_by="global_norm", use_kl_loss=False, vf_clip_param=math.inf)
        .fault_tolerance(restart_failed_sub_environments=False)  # an env error (e.g. an illegal action) stops the run
        .debugging(seed=config.seed)
    )


# ------------------------------------------------------------------ the learner's weights
def learner_state(algo: Any) -> dict[str, np.ndarray]:
    """The trained module's state (actor and critic) from the learner."""
    return {k: np.asarray(v) for k, v in algo.learner_group.get_weights([LEARNER])[LEARNER].items()}


def pull(algo: Any, model: Any) -> None:
    """The learner's weights into the shadow model."""
    to_sb3(learner_state(algo), model.policy)


def push(algo: Any, model: Any) -> None:
    """The shadow model's weights into the learner and the env runners (after a warm start)."""
    algo.learner_group.set_weights({LEARNER: from_sb3(model.policy, learner_state(algo))})
    algo.env_runner_group.sync_weights(from_worker_or_learner_group=algo.learner_group, inference_only=True)


# ------------------------------------------------------------------ the env copies on the runners
def envs_of(runner: Any) -> list[ParlorMultiAgentEnv]:
    """The ParlorMultiAgentEnv copies of one env runner (none in a local runner next to remote ones)."""
    vector = getattr(runner, "env", None)
    if vector is None:
        return []
    return [e.unwrapped for e in vector.unwrapped.envs]


def _add_snapshot(runner: Any, name: str, data: bytes) -> int:
    """On an env runner: write the policy file (named by its content: one copy per machine) and
    give it to every env of the runner; returns the number of envs."""
    from parlor.training.evaluation.shipped import local_copy

    path = local_copy(data, name, SNAPSHOT_FOLDER)
    envs = envs_of(runner)
    for env in envs:
        env.add_snapshot(str(path))
    return len(envs)


def _report(runner: Any) -> dict[str, Any]:
    """On an env runner: its index, and per env the infos of the episodes finished since the
    last call, the illegal actions that reached it and its number of snapshots."""
    return {"runner": runner.worker_index,
            "envs": [{"infos": env.take_episode_infos(), "illegal_actions": env.illegal_actions,
                      "snapshots": env.num_snapshots()} for env in envs_of(runner)]}


class RunnerEnvs(VecEnvWrapper):
    """The shadow model's vector env: ``env_method("add_snapshot", path)`` (what the sb3
    callback calls for self-play) reaches every env on RLlib's runners instead."""

    def __init__(self, venv: Any):
        super().__init__(venv)
        self.algo: Any = None
        self.snapshots: list[str] = []  # the paths given so far, for runners restarted without theirs

    def reset(self) -> Any:
        return self.venv.reset()

    def step_wait(self) -> Any:
        return self.venv.step_wait()

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any) -> list[Any]:
        if method_name != "add_snapshot":
            return self.venv.env_method(method_name, *args, indices=indices, **kwargs)
        (path,) = args
        self.snapshots.append(path)
        self.broadcast(path)
        return []

    def broadcast(self, path: str, runner_ids: list[int] | None = None) -> None:
        func = partial(_add_snapshot, name=Path(path).name, data=Path(path).read_bytes())
        self.algo.env_runner_group.foreach_env_runner(func, remote_worker_ids=runner_ids,
                                                      local_env_runner=runner_ids is None)

    def report(self, keep: int) -> dict[str, Any]:
        """Finished-episode infos and illegal actions over every runner; a runner whose envs lost
        their snapshots (restarted after a failure) gets the newest ``keep`` again."""
        reports = self.algo.env_runner_group.foreach_env_runner(_report)
        envs = [env for runner in reports for env in runner["envs"]]
        bare = [r["runner"] for r in reports if r["runner"] > 0 and any(e["snapshots"] == 0 for e in r["envs"])]
        for path in self.snapshots[-keep:] if bare else ():
            self.broadcast(path, bare)
        return {"infos": [info for env in envs for info in env["infos"]],
                "illegal_actions": sum(env["illegal_actions"] for env in envs)}


# ------------------------------------------------------------------ the run
def cluster_lost(run_dir: Path, address: str, message: str) -> None:
    """The cluster is gone (:func:`~parlor.training.evaluation.ray_runner.watched`, from its
    thread): one line with the command that continues from the last checkpoint, then end the
    process now (RLlib's loop would wait inside Ray until Ray ends it after 60 s)."""
    import shlex
    import sys

    again = ["parlor", "train", "--resume", str(run_dir), *(["--ray", address] if address != "local" else [])]
    print(f"\nparlor train: {message}; the checkpoints are kept in {run_dir / 'checkpoints'}; continue with: "
          f"{shlex.join(again)}", file=sys.stderr, flush=True)
    os._exit(1)


def save_checkpoint(algo: Any, run_dir: Path, steps: int) -> None:
    """RLlib's checkpoint (what --resume restores) next to the callback's policy checkpoints."""
    folder = run_dir / "checkpoints"
    algo.save_to_path(str((folder / RLLIB_CHECKPOINT).resolve()))
    (folder / RLLIB_STEPS).write_text(json.dumps({"steps": steps}), encoding="utf-8")


def restore_checkpoint(algo: Any, run_dir: Path) -> int:
    folder = run_dir / "checkpoints"
    if not (folder / RLLIB_STEPS).is_file():
        raise FileNotFoundError(f"{run_dir} has no checkpoints/{RLLIB_CHECKPOINT} to resume from")
    algo.restore_from_path(str((folder / RLLIB_CHECKPOINT).resolve()))
    return int(json.loads((folder / RLLIB_STEPS).read_text(encoding="utf-8"))["steps"])


def log_iteration(logger: Any, result: dict[str, Any], illegal: int) -> None:
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, EPISODE_RETURN_MEAN, LEARNER_RESULTS

    runners = result.get(ENV_RUNNER_RESULTS, {})
    if EPISODE_RETURN_MEAN in runners and not math.isnan(runners[EPISODE_RETURN_MEAN]):
        logger.record("rllib/episode_return_mean", float(runners[EPISODE_RETURN_MEAN]))
    for name, value in result.get(LEARNER_RESULTS, {}).get(LEARNER, {}).items():
        if name in ("policy_loss", "vf_loss", "entropy", "mean_kl_loss", "vf_explained_var"):
            logger.record(f"rllib/{name}", float(value))
    logger.record("rllib/illegal_actions", illegal)


def train(config: TrainConfig, run_dir: Path, resume: bool = False, progress_bar: bool = True,
          log: Any = print, address: str | None = None) -> Any:
    """Train (or continue) the RLlib run in ``run_dir`` on the Ray cluster at ``address``
    (None: ``$RAY_ADDRESS``, else a new local instance); the config files must already be there."""
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED
    from stable_baselines3.common.utils import configure_logger

    from parlor.training.evaluation.ray_runner import default_address, session, watched
    from parlor.training.learning.callbacks import ParlorCallback, step_bar
    from parlor.training.learning.train import (
        TrainResult,
        check_device,
        env_kwargs,
        initialise,
        make_model,
        save_final,
        training_torch,
        warm_start,
    )

    training_torch()
    assert config.rllib is not None  # TrainConfig sets it with backend: rllib
    if config.rllib.num_learners == 0:  # the learner is this process: its GPU must be here
        check_device("rllib.learner_device", config.rllib.learner_device)
    start = time.perf_counter()
    envs = RunnerEnvs(DummyVecEnv([partial(SingleAgentEnv, **env_kwargs(config, 0))]))
    model = make_model(config, envs, run_dir)  # the shadow: parlor's copy of the learner
    model.set_logger(configure_logger(0, str(run_dir / "tb"), "rllib", reset_num_timesteps=not resume))
    address = address or default_address()
    with session(address), watched(address, partial(cluster_lost, run_dir, address)):
        algo = ppo_config(config).build_algo()
        envs.algo = algo
        try:
            steps = 0
            callback = ParlorCallback(config, run_dir, log=log)
            if resume:
                steps = restore_checkpoint(algo, run_dir)
                log(f"resuming {run_dir} at step {steps:,}")
            elif config.pretrain is not None or config.init is not None:
                pull(algo, model)  # the shadow starts from the learner's initial weights
                callback.evaluate_untrained(model.policy)  # the warm start's gain is measured from here
                (warm_start if config.pretrain is not None else initialise)(config, model, run_dir, log)
                push(algo, model)
            pull(algo, model)
            model.num_timesteps = steps
            callback.init_callback(model)  # baselines and the first evaluation; on resume, the snapshots
            keep = config.self_play.keep if config.self_play else 1
            bar = step_bar(config, steps, progress_bar)
            while steps < config.total_steps:
                result = algo.train()
                sampled = float(result.get(ENV_RUNNER_RESULTS, {}).get(NUM_ENV_STEPS_SAMPLED, math.nan))
                if math.isnan(sampled) or sampled == 0:  # every runner down: RLlib restarts them meanwhile
                    log(f"step {steps:>9,}: no env runner sampled this iteration; waiting for RLlib to restart them")
                    time.sleep(RESTART_WAIT)
                    continue
                steps += int(sampled)
                pull(algo, model)
                model.num_timesteps = steps
                report = envs.report(keep)
                checkpointed = callback.next_checkpoint
                callback.update_locals({"infos": report["infos"]})
                callback.on_step()  # evaluations, checkpoints, snapshots on their schedules
                callback.on_rollout_end()
                if callback.next_checkpoint != checkpointed:
                    save_checkpoint(algo, run_dir, steps)
                log_iteration(model.logger, result, report["illegal_actions"])
                model.logger.dump(steps)
                bar.update(min(steps, config.total_steps) - bar.n)
            bar.close()
            callback.finish(model)
            save_checkpoint(algo, run_dir, steps)
            # the shadow's optimizer never stepped (RLlib's state is in checkpoints/rllib): both are inference-only
            final = save_final(model, run_dir, config, callback.game, checkpoint=False)
        finally:
            algo.stop()
    seconds = time.perf_counter() - start
    log(f"saved {final} after {steps:,} steps ({seconds:.0f} s this session)")
    return TrainResult(run_dir, final, steps, seconds)
