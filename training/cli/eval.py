"""``parlor eval``: tournaments with seat rotation and duplicate deals, CIs, win rates, Elo.

    parlor eval ofc_v0 --agents heuristic,search,random --games 200 --seed 0 --workers 2
    parlor eval --game-from agents/pretrained/ofc_pineapple.zip --agents me=ppo:agents/pretrained/ofc_pineapple.zip,heuristic
    parlor eval --resume runs/eval/<run>                     # finish an interrupted evaluation
    parlor eval ofc_v0 --agents heuristic,random --record   # also every game's record (see `parlor replay`)
    parlor eval --config runs/eval/<run>/config.yaml        # rerun a previous evaluation
    parlor eval tonk_v0 --agents heuristic,search --ray auto # the deals as tasks on a running Ray cluster
    parlor eval buki_v0 --agents ppo:agents/pretrained/buki_betting.zip,always_min \\
        --field heuristic --seats 1,2,3                      # each agent alone against a fixed field

With ``--field AGENT`` every listed agent plays alone, in each of ``--seats``
(default: every seat), against ``AGENT`` in all the other seats, on the same
duplicate deals. ``--game-from POLICY.zip`` plays the game with the options the
policy was trained with. This module parses the command line into an
:class:`~parlor.training.evaluation.runner.EvalConfig`, checks it (agents built,
policies loaded, extras present), claims the run folder
(:mod:`~parlor.training.evaluation.run_folder`), plays (episodes stream into the
folder) and writes the results (:mod:`~parlor.training.evaluation.report`).
Ctrl-C, a full disk or a dead worker keep what was played: ``--resume RUN`` plays
the rest, to the results an uninterrupted run gives (with ``--record``, the same
``records.jsonl`` too: each game's record is streamed inside its episode line).
``--ray [ADDRESS]`` plays the deals as Ray tasks
(:mod:`~parlor.training.evaluation.ray_runner`): ``auto`` (the cluster running here),
``HOST:PORT``, ``ray://HEAD:10001`` (Ray Client), ``local`` (a new instance on this
machine) or, bare, ``$RAY_ADDRESS`` else ``local``; it connects before the run folder is
made, and policy files are read here and shipped (:mod:`~parlor.training.evaluation.shipped`).
"""
from __future__ import annotations

import argparse
import contextlib
import shlex
import sys
from concurrent.futures.process import BrokenProcessPool
from dataclasses import fields
from pathlib import Path
from typing import Any

from parlor.cli.options import add_game_option_arguments, game_from_policy, game_options, option_flags
from parlor.envs.engine.words import count
from parlor.training.evaluation.runner import EVAL_KEYS, EvalConfig

RESUME_COMPANIONS = ("resume", "quiet", "no_plot")  # the only flags --resume takes

BARE_RAY = ""  # `--ray` without an address (resolved when the config is made)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", nargs="?", help="environment name (see `parlor list`); optional with --config, "
                        "--game-from or --resume")
    parser.add_argument("--agents", help="comma-separated agents, each optionally named NAME=AGENT, e.g. "
                        "me=ppo:PATH.zip,heuristic,search,random (also search:BUDGET[:ROLLOUT[:HORIZON]], "
                        "package.module:Class); unnamed, a policy is called after its file name")
    parser.add_argument("--games", type=int, help="episodes per matchup (rounded up to whole duplicate deals; default 100)")
    parser.add_argument("--config", help="YAML with keys " + ", ".join(EVAL_KEYS) + " (flags override it)")
    add_game_option_arguments(parser)
    parser.add_argument("--game-from", metavar="POLICY.zip", help="play the game with the options POLICY.zip was "
                        "trained with (read from the file) instead of GAME, --preset and --option")
    parser.add_argument("--field", help="play each agent alone against this agent in all other seats")
    parser.add_argument("--seats", help="with --field: the seats the agents take, e.g. 1,2,3 (default: all)")
    parser.add_argument("--seed", type=int, help="master seed (default 0)")
    parser.add_argument("--workers", type=int, help="worker processes (default 1); results do not depend on it")
    parser.add_argument("--ray", nargs="?", const=BARE_RAY, metavar="ADDRESS",
                        help="play the deals as Ray tasks: auto (the cluster this machine belongs to), HOST:PORT, "
                        "ray://HEAD:10001 (Ray Client, from outside the cluster), local (a new instance here); bare: "
                        "$RAY_ADDRESS, else local. Policy files are read here and shipped: the cluster needs no shared "
                        "disk. Results do not depend on it")
    parser.add_argument("--record", action="store_true", default=None,
                        help="save every episode's game record in the run folder (records.jsonl; see `parlor replay`)")
    parser.add_argument("--out", help="run folder, new or empty (default: a new runs/eval/<time>-<game>-<random>)")
    parser.add_argument("--force", action="store_true", help="replace the evaluation in a non-empty --out")
    parser.add_argument("--resume", metavar="RUN", help="play the rest of the interrupted evaluation in run folder "
                        "RUN with its own config (takes no other options but --quiet and --no-plot)")
    parser.add_argument("--no-plot", action="store_true", help="skip the PNG chart")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def config_from_args(args: argparse.Namespace) -> EvalConfig:
    from parlor import envs
    from parlor.envs.engine.config import load_yaml
    from parlor.envs.engine.game import ConfigError, shown

    data: dict[str, Any] = {}
    if args.config:
        data = load_yaml(args.config)
        unknown = sorted(set(data) - set(EVAL_KEYS))
        if unknown:
            raise ConfigError(f"{args.config}: unknown key(s) {shown(unknown)}; allowed keys: {', '.join(EVAL_KEYS)}")
        for key, kinds, what in (("env", (str,), "an environment name"), ("options", (dict,), "a mapping"),
                                 ("agents", (str, list), "a list of agent names")):
            if data.get(key) is not None and not isinstance(data[key], kinds):
                raise ConfigError(f"{args.config}: {key}={shown(data[key])} must be {what}")
    if args.game_from:
        env, trained = game_from_policy(args.game_from, args.game, args.preset, args.option)
        if data.get("options") and data["options"] != trained:
            raise ConfigError(f"--game-from {args.game_from} sets the game options; {args.config} has others")
        if data.get("env", env) != env:
            raise ConfigError(f"--game-from {args.game_from} (trained on {env!r}) contradicts env {data['env']!r} "
                              f"in {args.config}")
        data.update(env=env, options=trained)
    if args.game:
        if "env" in data and data["env"] != args.game:
            raise ConfigError(f"GAME {args.game!r} contradicts env {data['env']!r} in {args.config}")
        data["env"] = args.game
    if "env" not in data:
        raise ConfigError(f"name the game (positional GAME, --game-from POLICY.zip or env: in --config); "
                          f"available: {', '.join(envs.ENVS)}")
    if data["env"] not in envs.ENVS:
        raise ConfigError(f"unknown environment {data['env']!r}; available: {', '.join(envs.ENVS)}")
    data["options"] = game_options(data["env"], args.preset, args.option, data.get("options") or {})
    if args.agents:
        data["agents"] = args.agents
    agents = data.get("agents") or "heuristic,search,random"
    if isinstance(agents, str):
        agents = [a.strip() for a in agents.split(",") if a.strip()]
    data["agents"] = tuple(agents)
    for key in ("games", "seed", "workers", "field", "record"):
        if getattr(args, key) is not None:
            data[key] = getattr(args, key)
    if args.ray is not None:
        from parlor.training.evaluation.ray_runner import default_address

        if args.workers is not None:
            raise ConfigError("--workers and --ray: give one of them (on Ray the cluster's CPUs are the workers)")
        data["ray"] = args.ray if args.ray != BARE_RAY else default_address()
        data.pop("workers", None)  # the flag overrides a saved config's pool
    elif args.workers is not None:
        data.pop("ray", None)  # the flag overrides a saved config's cluster
    if args.seats is not None:
        try:
            data["seats"] = [int(s) for s in args.seats.split(",") if s.strip()]
        except ValueError:
            raise ConfigError(f"--seats={args.seats!r} must be comma-separated seat numbers, e.g. 1,2,3") from None
    known = {f.name for f in fields(EvalConfig)}
    # the options are checked (naming the allowed ones) where the game is built, by runner.plan: built
    # here too, it would load the game's kernels before plan() starts the policy server beside them
    return EvalConfig(**{k: v for k, v in data.items() if k in known})


def command_line(config: EvalConfig, *extra: str) -> str:
    """The ``parlor eval`` command that reproduces the results of ``config`` (whatever flags
    or file made it), then ``extra`` arguments (e.g. --workers, --out: they change no result)."""
    parts = ["parlor", "eval", config.env, "--agents", ",".join(config.agents), "--games", str(config.games),
             "--seed", str(config.seed)]
    if config.field is not None:
        parts += ["--field", config.field]
    if config.seats is not None:
        parts += ["--seats", ",".join(str(s) for s in config.seats)]
    parts += option_flags(config.options)
    if config.record:
        parts.append("--record")
    return shlex.join([*parts, *extra])


def resume_config(args: argparse.Namespace) -> EvalConfig:
    """The config of the run folder ``args.resume``; any other option is refused."""
    from parlor.envs.engine.game import ConfigError

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    defaults = vars(parser.parse_args([]))
    given = [k for k, v in vars(args).items() if k in defaults and k not in RESUME_COMPANIONS and v != defaults[k]]
    if given:
        flags = ", ".join("GAME" if k == "game" else "--" + k.replace("_", "-") for k in given)
        raise ConfigError(f"--resume {args.resume} plays the rest with the run's own config.yaml; leave out {flags} "
                          "(only --quiet and --no-plot go with --resume)")
    return config_from_args(argparse.Namespace(**{**defaults, "config": str(Path(args.resume) / "config.yaml")}))


def run(args: argparse.Namespace) -> int:
    with contextlib.ExitStack() as cluster:  # with --ray: connected before any folder is made, until the end
        return _run(args, cluster)


def _run(args: argparse.Namespace, cluster: contextlib.ExitStack) -> int:
    from parlor.cli.extras import RAY_MODULES, missing_extra, require
    from parlor.envs.engine.game import ConfigError
    from parlor.training.evaluation import report, runner
    from parlor.training.evaluation.ray_runner import ClusterError
    from parlor.training.evaluation.run_folder import RunFolder

    try:
        if args.resume:
            folder = RunFolder.reopen(args.resume)
            config = resume_config(args)
            if folder.is_complete():
                print(f"parlor eval: nothing to resume: {folder.path} is complete (it has results.json)")
                return 0
        else:
            config = config_from_args(args)
        if config.ray is not None:
            require(RAY_MODULES, "parlor eval --ray", alternative="or play here: --workers N")
        planned = runner.plan(config)  # agents built and policies loaded before any folder is made
        if not args.no_plot:
            require(["matplotlib"], "the results plot", alternative="or skip it: --no-plot")
        if config.ray is not None:
            from parlor.training.evaluation.ray_runner import session

            cluster.enter_context(session(config.ray))
        if args.resume:  # the kept episodes, checked before the folder is touched
            folder.log.check(planned.jobs, config.names(), config.record, planned.game)
        else:
            folder = RunFolder.create(args.out, config.env, force=args.force)
    except (ConfigError, OSError, ClusterError) as exc:  # a parlor bug (any other error) keeps its traceback
        print(f"parlor eval: {exc}", file=sys.stderr)
        return 2
    except ImportError as exc:
        if missing_extra(exc) is not None:
            raise  # the command line names the extra to install
        print(f"parlor eval: {exc} (an agent package.module:Class must be importable)", file=sys.stderr)
        return 2
    revision = report.git_revision()
    try:
        if args.resume:
            folder.add_command(shlex.join(["parlor", "eval", "--resume", str(folder.path)]))
        else:
            where = ("--ray", config.ray) if config.ray is not None else ("--workers", str(config.workers))
            folder.start(config.to_yaml_dict(), command_line(config, *where, "--out", str(folder.path)), revision)
    except OSError as exc:
        folder.discard()
        print(f"parlor eval: cannot write the run folder {folder.path}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        if not args.resume:
            folder.discard()  # no game played yet: leave no folder behind
        raise
    if args.resume and folder.revision() != revision:
        print(f"parlor eval: warning: {folder.path} was started at git {folder.revision()}; the rest is played at "
              f"{revision}", file=sys.stderr)
    return play(config, planned, folder, args, revision)


def play(config: EvalConfig, planned: Any, folder: Any, args: argparse.Namespace, revision: str) -> int:
    """Play (or finish) the evaluation into ``folder``, then write and print the results."""
    from parlor.agents.policy_actor import PolicyServerError
    from parlor.envs.engine.game import ConfigError
    from parlor.envs.records import parlor_version
    from parlor.training.evaluation import report, runner
    from parlor.training.evaluation.ray_runner import ClusterError
    from parlor.training.evaluation.run_folder import RECORDS

    resume = f"continue with: parlor eval --resume {shlex.quote(str(folder.path))}"
    kept = f"{folder.path / 'episodes.jsonl'}"
    try:
        with report.progress_bar(f"{config.env}: {', '.join(config.names())}", enabled=not args.quiet) as progress:
            results = runner.evaluate(config, progress, log=folder.log, planned=planned)
        folder.log.close()  # the last sync: a failure here is a write failure like any other
    except KeyboardInterrupt:
        print(f"\nparlor eval: interrupted; {folder.log.jobs} of {count(len(planned.jobs), 'deal')} are kept in {kept}; {resume}",
              file=sys.stderr)
        return 130
    except BrokenProcessPool:
        print(f"parlor eval: a worker process died (killed, or out of memory?); {folder.log.jobs} of "
              f"{count(len(planned.jobs), 'deal')} are kept in {kept}; {resume}", file=sys.stderr)
        return 1
    except (ClusterError, PolicyServerError) as exc:  # a lost cluster, a lost or failing policy server
        print(f"parlor eval: {exc}; {folder.log.jobs} of {count(len(planned.jobs), 'deal')} are kept in {kept}; {resume}",
              file=sys.stderr)
        return 1
    except ConfigError as exc:  # episodes.jsonl does not fit the config
        print(f"parlor eval: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a full disk, a folder gone read-only
        print(f"parlor eval: {exc.filename or kept}: {exc.strerror or exc}; the {count(folder.log.jobs, 'deal')} written "
              f"before are kept in {kept}; make room, then {resume}", file=sys.stderr)
        return 1
    finally:
        with contextlib.suppress(OSError):  # already reported; closing must not hide it
            folder.log.close()
    if folder.log.rebuilt:
        print(f"parlor eval: warning: {folder.log.rebuilt} episode line(s) of {kept} disagree with their game record "
              "(changed by hand?); their results were rebuilt from the records", file=sys.stderr)
    results.update(command=command_line(config), version=parlor_version(), git_revision=folder.revision())
    if revision != results["git_revision"]:
        results["git_revision_resumed"] = revision
    try:
        report.write_outputs(folder.path, results, plot=not args.no_plot)
    except KeyboardInterrupt:
        print(f"\nparlor eval: interrupted while writing the results; every deal is kept in {kept}; {resume}",
              file=sys.stderr)
        return 130
    except OSError as exc:
        print(f"parlor eval: cannot write the results into {folder.path}: {exc}; every deal is kept in {kept}; "
              f"make room, then {resume}", file=sys.stderr)
        return 1
    report.print_tables(results)
    print(f"run folder: {folder.path}")
    if config.record:
        from parlor.training.evaluation.terminal import safe_text

        records = shlex.quote(str(folder.path / RECORDS))
        print(f"game records: {records}; the worst game of an agent as a web page: "
              f"parlor replay {records} --worst {safe_text(shlex.quote(config.names()[0]))} --html worst.html")
    return 0
