"""A MaskablePPO training run from a config, in its run folder (``parlor train`` is its command line);
``backend: rllib`` hands the run to :mod:`parlor.training.learning.rllib_train` (same run folder).

A run folder ``<out>/<config-stem>-<time>/`` holds ``config.yaml`` (the file as
given), ``config.resolved.yaml`` (defaults filled in), ``command.txt``,
``git.txt`` (revision and dirty files), ``versions.json``, TensorBoard logs in
``tb/``, ``checkpoints/`` (``step_<N>.zip`` and ``latest.zip``),
``snapshots/`` (self-play), ``eval.csv`` + ``baselines.csv`` (periodic
evaluation), ``learning_curve.png``, the final ``model.zip`` (a checkpoint: the
network and the optimizer state) and ``policy.zip`` (the network only: small, for
shipping). Every zip is a policy file of :mod:`parlor.agents.policy` (JSON +
safetensors, nothing pickled) carrying the env's signature, so ``parlor eval ENV
--agents ppo:<run>/model.zip`` refuses a different env. ``--resume RUN`` rebuilds
the model from the run's own config and continues from the newest intact checkpoint
(:mod:`parlor.training.learning.checkpoints`), keeping the step count; the learning
curve drops rows of steps past it (a part of the run that was lost). ``init: PATH``
in the config (or ``--init PATH``) starts a new run from the weights of a saved
policy of the same env, options and network (a fine-tune with other hyperparameters
or shaping; ``init.json`` records the source and its sha256). A ``distill`` section runs
expert iteration first (from ``init``'s weights when both are given;
:mod:`parlor.training.learning.distill`: ``distill/`` in the run
folder; a run stopped before PPO's first checkpoint resumes it); ``times.json`` holds the
seconds per stage. torch/sb3/matplotlib load inside functions.
"""
from __future__ import annotations

import json
import platform
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parlor.agents.policy import NetworkMismatchError, activation_class, load_weights_into, save_policy
from parlor.envs.engine.files import atomic_write_text
from parlor.training.learning.configs import TrainConfig, config_dict

SNAPSHOTS = "snapshots"
LIBRARIES = ("numpy", "gymnasium", "pettingzoo", "torch", "stable_baselines3", "sb3_contrib", "yaml", "ray")


@dataclass
class TrainResult:
    run_dir: Path
    model_path: Path
    num_timesteps: int
    seconds: float


# ------------------------------------------------------------------ run folder
def new_run_dir(out: str | Path, config_path: str | Path) -> Path:
    stem = Path(config_path).stem
    base = Path(out) / f"{stem}-{time.strftime('%Y%m%d-%H%M%S')}"
    run_dir, k = base, 1
    while run_dir.exists():
        k += 1
        run_dir = base.with_name(f"{base.name}-{k}")
    run_dir.mkdir(parents=True)
    return run_dir


def git_description() -> str:
    root = Path(__file__).resolve().parents[2]
    try:
        rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return "unknown (git not available)\n"
    return f"{rev or 'unknown'}\n" + (f"uncommitted changes:\n{dirty}" if dirty.strip() else "clean\n")


def library_versions() -> dict[str, str]:
    import importlib.metadata as md

    out = {"python": platform.python_version(), "platform": platform.platform()}
    dists = {"yaml": "pyyaml", "stable_baselines3": "stable-baselines3", "sb3_contrib": "sb3-contrib"}
    for lib in LIBRARIES + ("parlor",):
        try:
            out[lib] = md.version(dists.get(lib, lib))
        except md.PackageNotFoundError:
            out[lib] = "not installed"
    return out


def write_run_files(run_dir: Path, config: TrainConfig, config_text: str, command: str) -> None:
    import yaml

    (run_dir / "config.yaml").write_text(config_text, encoding="utf-8")
    (run_dir / "config.resolved.yaml").write_text(yaml.safe_dump(config_dict(config), sort_keys=False), encoding="utf-8")
    with open(run_dir / "command.txt", "a", encoding="utf-8") as fh:
        fh.write(command + "\n")
    (run_dir / "git.txt").write_text(git_description(), encoding="utf-8")
    (run_dir / "versions.json").write_text(json.dumps(library_versions(), indent=1), encoding="utf-8")


# ------------------------------------------------------------------ environments
def env_kwargs(config: TrainConfig, rank: int) -> dict[str, Any]:
    return dict(
        env_name=config.env,
        options=dict(config.options),
        opponents=config.opponents,
        learner_seats=config.learner_seats,
        reward_scale=config.reward_scale,
        shaping=dict(config.shaping),
        shaping_mode=config.shaping_mode,
        action_guard=dict(config.action_guard),
        snapshot_keep=config.self_play.keep if config.self_play else 5,
        seat_offset=rank,
        seed=config.seed * 1000 + rank,
    )


def make_vec_env(config: TrainConfig, every_env_in_a_process: bool = False):
    """``n_envs`` learner envs under one VecMonitor (so the workers never import sb3 or torch):
    ``vec_env: dummy`` all in this process (DummyVecEnv), ``subproc`` env 0 in this process
    and the others in processes of their own (:class:`.vec_env.LocalFirstVecEnv`, waiting for
    each other as ``vec_env_wait`` says; with ``every_env_in_a_process``, SB3's SubprocVecEnv,
    for comparison: the same results).
    ``action_masks`` reaches MaskablePPO with each step's results (:mod:`.vec_masks`: no
    second round trip to the env processes)."""
    from functools import partial

    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    from parlor.training.learning.vec_env import LocalFirstVecEnv, wait_seconds
    from parlor.training.learning.vec_masks import CachedMasks, masked_env
    from parlor.training.learning.wrapper import SingleAgentEnv

    fns: list[Callable[[], Any]] = [partial(masked_env, partial(SingleAgentEnv, **env_kwargs(config, rank))) for rank in range(config.n_envs)]
    if config.vec_env == "subproc" and config.n_envs > 1:
        if every_env_in_a_process:
            return VecMonitor(CachedMasks(SubprocVecEnv(fns)))
        spin_s = wait_seconds(config.vec_env_wait, config.n_envs)  # n_envs processes: env 0 is here
        return VecMonitor(CachedMasks(LocalFirstVecEnv(fns, spin_s=spin_s)))
    return VecMonitor(CachedMasks(DummyVecEnv(fns)))


def check_device(field: str, device: str) -> None:
    """A ConfigError naming ``field`` if ``device`` is cuda and torch sees no CUDA device."""
    import torch

    if device == "cuda" and not torch.cuda.is_available():
        from parlor.envs.engine.game import ConfigError

        raise ConfigError(f"{field}=cuda but torch sees no CUDA device (torch {torch.__version__}); allowed values "
                          "here: cpu")


def make_model(config: TrainConfig, vec_env: Any, run_dir: Path):
    """The run's MaskablePPO (:class:`.rollout.ParlorMaskablePPO`: sb3-contrib's, acting through
    a leaner forward pass with the same results)."""
    from parlor.training.learning.rollout import ParlorMaskablePPO

    p = config.ppo
    check_device("ppo.device", p.device)
    activation = activation_class(p.activation)
    return ParlorMaskablePPO(
        "MlpPolicy", vec_env, learning_rate=p.learning_rate, n_steps=p.n_steps, batch_size=p.batch_size,
        n_epochs=p.n_epochs, gamma=p.gamma, gae_lambda=p.gae_lambda, clip_range=p.clip_range, ent_coef=p.ent_coef,
        vf_coef=p.vf_coef, max_grad_norm=p.max_grad_norm, seed=config.seed, device=p.device, verbose=0,
        tensorboard_log=str(run_dir / "tb"),
        policy_kwargs=dict(net_arch=dict(pi=list(p.net_arch), vf=list(p.net_arch)), activation_fn=activation),
    )


def policy_game(config: TrainConfig) -> Any:
    """The game a policy of this run is checked against."""
    from parlor.training.learning.wrapper import make_env_game  # also knows envs registered for tests

    return make_env_game(config.env, config.options)


def save_final(model: Any, run_dir: Path, config: TrainConfig, game: Any, checkpoint: bool = True) -> Path:
    """The run's ``model.zip`` (with the optimizer's state, to continue from, unless
    ``checkpoint`` is False) and ``policy.zip`` (the network only); returns model.zip's path."""
    final = save_policy(model, run_dir / "model.zip", game, checkpoint=checkpoint,
                        **config.policy_metadata())
    save_policy(model, run_dir / "policy.zip", game, **config.policy_metadata())
    return final


# ------------------------------------------------------------------ training
def training_torch() -> None:
    """Torch as a training process uses it: one thread (the other cores step envs; the nets
    are small), and no argument checks in torch.distributions, which sb3-contrib's masked
    categorical runs on every forward pass (three normalisations and a simplex check per
    decision, about a third of the learner's acting CPU in ``parlor bench --train``). The
    checks only raise; the numbers are the same (and NaN logits still fail, in sampling)."""
    import torch

    torch.set_num_threads(1)
    torch.distributions.Distribution.set_default_validate_args(False)


def warm_start(config: TrainConfig, model: Any, run_dir: Path, log: Any = print) -> dict[str, Any]:
    """Behaviour cloning of ``config.pretrain.teacher`` (see parlor.training.learning.warm_start); writes pretrain.json."""
    from parlor.training.learning.warm_start import clone, collect
    from parlor.training.learning.wrapper import SingleAgentEnv

    p = config.pretrain
    assert p is not None  # called for a config with a pretrain section
    start = time.perf_counter()
    env = SingleAgentEnv(**{**env_kwargs(config, 0), "seed": config.seed * 1000 + 999})
    step = max(1, p.episodes // 10)

    def progress(k: int) -> None:
        if k % step == 0:
            log(f"pretrain: {k}/{p.episodes} {p.teacher} episodes")

    data = collect(env, p.teacher, p.episodes, config.seed, progress=progress)
    log(f"pretrain: {len(data.actions):,} decisions from {p.episodes} {p.teacher} episodes "
        f"(mean return {data.mean_return:+.3f}) in {time.perf_counter() - start:.0f} s")
    metrics = clone(model.policy, data, p.epochs, p.batch_size, p.learning_rate, config.ppo.vf_coef, config.seed, log)
    summary = {"teacher": p.teacher, "episodes": p.episodes, "decisions": int(len(data.actions)),
               "teacher_mean_return": data.mean_return, **metrics, "seconds": round(time.perf_counter() - start, 1)}
    (run_dir / "pretrain.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    return summary


def initialise(config: TrainConfig, model: Any, run_dir: Path, log: Any = print) -> dict[str, Any]:
    """Copy the network of ``config.init`` (a policy file of this env and options) into
    ``model``; the architectures must match. Writes init.json."""
    import hashlib

    from parlor.envs.engine.game import ConfigError

    assert config.init is not None  # called for a config with an init
    try:
        header = load_weights_into(model.policy, config.init, policy_game(config))
    except NetworkMismatchError as exc:
        raise ConfigError(f"init={config.init}: the run's ppo.net_arch={list(config.ppo.net_arch)}, "
                          f"ppo.activation={config.ppo.activation} does not fit it ({exc})") from None
    summary = {"init": config.init, "sha256": hashlib.sha256(Path(config.init).read_bytes()).hexdigest(),
               "source_num_timesteps": int(header["num_timesteps"])}
    atomic_write_text(run_dir / "init.json", json.dumps(summary, indent=1))
    log(f"init: weights of {config.init} ({header['num_timesteps']:,} steps)")
    return summary


def _newest_checkpoint(config: TrainConfig, run_dir: Path, log: Any) -> Any:
    """The checkpoint to resume from; with ``distill`` a run stopped before PPO's first
    checkpoint has none, and resumes its distillation from the run folder instead."""
    from parlor.training.learning.checkpoints import newest_intact

    try:
        return newest_intact(run_dir, policy_game(config), log)
    except FileNotFoundError:
        if config.distill is None:
            raise
        log(f"resume: no PPO checkpoint in {run_dir} yet; the distillation stage continues from its files")
        return None


def train(config: TrainConfig, run_dir: Path, resume: bool = False, progress_bar: bool = True,
          log: Any = print, ray_address: str | None = None) -> TrainResult:
    """Train (or continue) the run in ``run_dir``; the config files must already be there.
    ``backend: rllib`` runs :func:`parlor.training.learning.rllib_train.train` on the Ray
    cluster at ``ray_address`` (None: ``$RAY_ADDRESS``, else a new local instance)."""
    if config.backend == "rllib":
        from parlor.training.learning import rllib_train

        return rllib_train.train(config, run_dir, resume, progress_bar, log, address=ray_address)
    if ray_address is not None:
        from parlor.envs.engine.game import ConfigError

        raise ConfigError(f"a Ray address ({ray_address}) only applies with backend: rllib (expert iteration's "
                          "labels: distill.ray)")
    from parlor.training.learning.callbacks import ParlorCallback
    from parlor.training.learning.checkpoints import restore
    from parlor.training.learning.distill import record_time

    training_torch()
    start = time.perf_counter()
    saved = _newest_checkpoint(config, run_dir, log) if resume else None  # before any env starts
    vec_env = make_vec_env(config)
    try:
        model = make_model(config, vec_env, run_dir)
        callback = ParlorCallback(config, run_dir, log=log, progress_bar=progress_bar)
        if saved is not None:
            restore(model, saved)
            log(f"resuming {run_dir} at step {model.num_timesteps:,} from {saved.path.name}")
        else:
            if config.pretrain is not None or config.distill is not None or config.init is not None:
                callback.evaluate_untrained(model.policy)  # the warm start's gain is measured from here
            if config.pretrain is not None:
                warm_start(config, model, run_dir, log)
            if config.init is not None:  # before distill: its rounds then fit the init's network
                initialise(config, model, run_dir, log)
            if config.distill is not None:
                from parlor.training.learning.distill import expert_iteration

                expert_iteration(config, model, run_dir, log)
        remaining = config.total_steps - model.num_timesteps
        if remaining > 0:
            ppo_start = time.perf_counter()
            model.learn(remaining, callback=callback, reset_num_timesteps=not resume, tb_log_name="ppo")
            callback.finish(model)
            record_time(run_dir, "ppo", time.perf_counter() - ppo_start)
        else:
            log(f"{run_dir} already has {model.num_timesteps:,} >= total_steps={config.total_steps:,} steps")
        final = save_final(model, run_dir, config, callback.game)
    finally:
        vec_env.close()
    seconds = time.perf_counter() - start
    log(f"saved {final} after {model.num_timesteps:,} steps ({seconds:.0f} s this session)")
    return TrainResult(run_dir, final, int(model.num_timesteps), seconds)
