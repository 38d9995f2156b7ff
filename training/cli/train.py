"""``parlor train CONFIG.yaml [--resume RUN] [--init ZIP] [--out DIR] [--ray ADDRESS] [--workers N]``: PPO from a YAML config.

``backend: sb3`` (the default) trains MaskablePPO on this machine; ``backend: rllib``
trains with RLlib on a Ray cluster: ``--ray ADDRESS`` (``auto``, ``HOST:PORT``,
``local``), else ``$RAY_ADDRESS``, else a new local instance. A config with a ``distill``
section (expert iteration, :mod:`parlor.training.learning.distill`) labels its states on
``--workers N`` processes or as Ray tasks at ``--ray ADDRESS`` (the config's
``distill.workers``/``distill.ray`` otherwise); the labels are the same either way.

Parses the command line, checks the config and env before any folder is made,
makes (or reopens) the run folder and runs :func:`parlor.training.learning.train.train`;
the run folder's contents are described there.
"""
from __future__ import annotations

import argparse
import contextlib
import shlex
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from parlor.cli.extras import RLLIB_MODULES, require
from parlor.cli.options import option_flags
from parlor.training.learning.configs import TrainConfig, load_config
from parlor.training.learning.train import new_run_dir, train, write_run_files

# what a run needs (the train extra), checked before its folder is made: the learner, its
# TensorBoard logs, the learning-curve plot; sb3's progress bar needs tqdm and rich
TRAIN_MODULES = ("torch", "stable_baselines3", "sb3_contrib", "tensorboard", "matplotlib")
PROGRESS_MODULES = ("tqdm", "rich")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", nargs="?", help="training YAML (see configs/); omit with --resume")
    parser.add_argument("--resume", metavar="RUN", help="continue the run folder RUN from its newest intact checkpoint")
    parser.add_argument("--out", default="runs/train", help="parent folder of new run folders (default runs/train)")
    parser.add_argument("--total-steps", type=int, help="override the config's total_steps")
    parser.add_argument("--init", metavar="ZIP", help="start from this saved policy's weights (overrides the config's init)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--ray", metavar="ADDRESS", help="backend rllib: the Ray cluster (auto, HOST:PORT, local; "
                        "default $RAY_ADDRESS, else a new local instance); with a distill section: where the "
                        "teacher's labels are made")
    parser.add_argument("--workers", type=int, metavar="N", help="with a distill section: label in N processes "
                        "(overrides distill.workers; same labels for any N)")


def check_named_agents(config: Any, game: Any) -> None:
    """Build every agent the config names (the opponents, the evaluation's opponents and
    baselines) once, so an unknown name, an unimportable class or a policy that does not fit
    fails before any run folder is made."""
    from parlor.agents.registry import make_agent
    from parlor.training.learning.opponents import SELF

    names = [e.agent for e in config.opponents if e.agent != SELF] + [*config.eval.opponents, *config.eval.baselines]
    for name in dict.fromkeys(names):
        make_agent(name, game)


def run(args: argparse.Namespace) -> int:
    from parlor.agents.policy import PolicyFileError, PolicyMismatchError, load_policy
    from parlor.envs.engine.game import ConfigError
    from parlor.training.evaluation.ray_runner import ClusterError, default_address, session
    from parlor.training.evaluation.shipped import policy_factories

    command = shlex.join(getattr(sys, "orig_argv", sys.argv))  # the whole command line, interpreter included
    try:
        if args.resume:
            run_dir = Path(args.resume)
            if args.config:
                raise ConfigError("give either CONFIG or --resume RUN (a resumed run uses its own config.yaml)")
            if not (run_dir / "config.yaml").is_file():
                raise ConfigError(f"{run_dir} is not a run folder (no config.yaml)")
            config = load_config(str(run_dir / "config.yaml"))
        else:
            if not args.config:
                raise ConfigError("give a training config, e.g. parlor train configs/ofc_pineapple_quick.yaml")
            config = load_config(args.config)
        if args.total_steps is not None:
            if args.total_steps < 1:
                raise ConfigError(f"--total-steps={args.total_steps} must be >= 1")
            config = replace(config, total_steps=args.total_steps)
        if getattr(args, "init", None):
            if args.resume:
                raise ConfigError("--init starts a new run; a resumed run continues from its own checkpoint")
            config = replace(config, init=args.init)
            if not Path(args.init).is_file():
                raise FileNotFoundError(f"--init {args.init}: no such file")
        if args.ray is not None:
            from parlor.training.evaluation.ray_runner import check_address

            check_address("--ray", args.ray)
            if config.backend != "rllib" and config.distill is None:
                raise ConfigError(f"--ray {args.ray}: only applies with backend: rllib or a distill section (the "
                                  f"config has backend: {config.backend} and no distill)")
        config = _label_workers(config, args)
        from parlor.training.learning.wrapper import make_raw_env

        game = make_raw_env(config.env, config.options).game  # the env and its options, checked before any folder is made
        if config.distill is not None:
            from parlor.training.learning.distill import check_agents

            check_agents(config, game)
        require(TRAIN_MODULES, "training")
        if config.backend == "rllib":
            require(RLLIB_MODULES, "backend: rllib", alternative="or train here: backend: sb3")
        if not args.no_progress:
            require(PROGRESS_MODULES, "the progress bar", alternative="or leave it out: --no-progress")
        if config.init is not None:
            load_policy(config.init, game)  # a whole policy file of this env, before any folder is made
        # each ppo: opponent read (from the user's cwd) and checked, before any folder is made
        policy_factories([entry.agent for entry in config.opponents], game)
        check_named_agents(config, game)
    except (ConfigError, PolicyFileError, PolicyMismatchError, OSError) as exc:
        print(f"parlor train: {exc}", file=sys.stderr)
        return 2
    with contextlib.ExitStack() as cluster:
        if config.backend == "rllib":  # connected before the run folder is made: no cluster, no folder
            try:
                cluster.enter_context(session(args.ray or default_address()))
            except (ClusterError, ConfigError) as exc:
                print(f"parlor train: {exc}", file=sys.stderr)
                return 2
        return _train(args, config, command, run_dir if args.resume else None)


def _train(args: argparse.Namespace, config: Any, command: str, run_dir: Path | None) -> int:
    from parlor.agents.policy import PolicyFileError, PolicyMismatchError
    from parlor.envs.engine.game import ConfigError
    from parlor.training.evaluation.ray_runner import ClusterError

    if run_dir is not None:
        with open(run_dir / "command.txt", "a", encoding="utf-8") as fh:
            fh.write(command + "\n")
    else:
        run_dir = new_run_dir(args.out, args.config)
        write_run_files(run_dir, config, Path(args.config).read_text(encoding="utf-8"), command)
    print(f"run folder: {run_dir}")
    try:
        result = train(config, run_dir, resume=bool(args.resume), progress_bar=not args.no_progress,
                       ray_address=args.ray if config.backend == "rllib" else None)
    except (ConfigError, PolicyFileError, PolicyMismatchError, FileNotFoundError, ConnectionError, ClusterError) as exc:
        print(f"parlor train: {exc}", file=sys.stderr)
        return 2
    print(f"learning curve: {run_dir / 'learning_curve.png'}")
    agents = f"ppo:{result.model_path},{','.join(config.eval.baselines) or 'random'}"
    print("evaluate it: " + shlex.join(["parlor", "eval", config.env, *option_flags(config.options), "--agents", agents]))
    return 0


def _label_workers(config: TrainConfig, args: argparse.Namespace) -> TrainConfig:
    """``--workers`` and ``--ray`` placed in the distill section (where the labels are made)."""
    from parlor.envs.engine.game import ConfigError

    workers = getattr(args, "workers", None)
    if workers is None and (args.ray is None or config.distill is None):
        return config
    if config.distill is None:
        raise ConfigError(f"--workers {workers}: only applies to a config with a distill section (its labels)")
    if workers is not None and workers < 1:
        raise ConfigError(f"--workers {workers}: give a number of processes >= 1")
    if workers is not None and args.ray is not None:
        raise ConfigError(f"--workers {workers} and --ray {args.ray}: give one of them (on Ray the cluster's CPUs "
                          "are the workers)")
    if workers is not None:
        return replace(config, distill=replace(config.distill, workers=workers, ray=None))
    return replace(config, distill=replace(config.distill, workers=1, ray=args.ray))
