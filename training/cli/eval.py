"""``parlor eval``: tournaments with seat rotation and duplicate deals, CIs, win rates, Elo.

    parlor eval ofc_v0 --agents heuristic,search,random --games 200 --seed 0 --workers 2
    parlor eval --config runs/eval/<run>/config.yaml        # rerun a previous evaluation
    parlor eval buki_v0 --agents ppo:agents/pretrained/buki_betting.zip,always_min \\
        --field heuristic --seats 1,2,3                      # each agent alone against a fixed field

With ``--field AGENT`` every listed agent plays alone, in each of ``--seats``
(default: every seat), against ``AGENT`` in all the other seats, on the same
duplicate deals. This module parses the command line into an
:class:`~parlor.training.evaluation.runner.EvalConfig`, runs it
(:func:`~parlor.training.evaluation.runner.evaluate`) and writes the run folder
(:mod:`parlor.training.evaluation.report`).
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import fields
from typing import Any

from parlor.training.cli.options import add_game_option_arguments, game_options, option_flags
from parlor.training.evaluation.runner import EVAL_KEYS, EvalConfig, evaluate


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", nargs="?", help="environment name (see `parlor list`); optional with --config")
    parser.add_argument("--agents", help="comma-separated agent names, e.g. heuristic,search,random "
                        "(also search:BUDGET[:ROLLOUT[:HORIZON]], ppo:PATH.zip, package.module:Class)")
    parser.add_argument("--games", type=int, help="episodes per matchup (rounded up to whole duplicate deals; default 100)")
    parser.add_argument("--config", help="YAML with keys " + ", ".join(EVAL_KEYS) + " (flags override it)")
    add_game_option_arguments(parser)
    parser.add_argument("--field", help="play each agent alone against this agent in all other seats")
    parser.add_argument("--seats", help="with --field: the seats the agents take, e.g. 1,2,3 (default: all)")
    parser.add_argument("--seed", type=int, help="master seed (default 0)")
    parser.add_argument("--workers", type=int, help="worker processes (default 1); results do not depend on it")
    parser.add_argument("--out", help="run folder (default runs/eval/<time>-<game>)")
    parser.add_argument("--record", action="store_true", default=None,
                        help="save every episode's game record in the run folder (records.jsonl; see `parlor replay`)")
    parser.add_argument("--no-plot", action="store_true", help="skip the PNG chart")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def config_from_args(args: argparse.Namespace) -> EvalConfig:
    from parlor import envs
    from parlor.envs.engine.config import load_yaml
    from parlor.envs.engine.game import ConfigError

    data: dict[str, Any] = {}
    if args.config:
        data = load_yaml(args.config)
        unknown = sorted(set(data) - set(EVAL_KEYS))
        if unknown:
            raise ConfigError(f"{args.config}: unknown key(s) {unknown}; allowed keys: {', '.join(EVAL_KEYS)}")
    if args.game:
        if "env" in data and data["env"] != args.game:
            raise ConfigError(f"GAME {args.game!r} contradicts env {data['env']!r} in {args.config}")
        data["env"] = args.game
    if "env" not in data:
        raise ConfigError(f"name the game (positional GAME or env: in --config); available: {', '.join(envs.ENVS)}")
    if data["env"] not in envs.ENVS:
        raise ConfigError(f"unknown environment {data['env']!r}; available: {', '.join(envs.ENVS)}")
    options = game_options(data["env"], args.preset, args.option, data.get("options") or {})
    data["options"] = options
    if args.agents:
        data["agents"] = args.agents
    agents = data.get("agents") or "heuristic,search,random"
    if isinstance(agents, str):
        agents = [a.strip() for a in agents.split(",") if a.strip()]
    data["agents"] = tuple(agents)
    for key in ("games", "seed", "workers", "field", "record"):
        if getattr(args, key) is not None:
            data[key] = getattr(args, key)
    if args.seats is not None:
        try:
            data["seats"] = [int(s) for s in args.seats.split(",") if s.strip()]
        except ValueError:
            raise ConfigError(f"--seats={args.seats!r} must be comma-separated seat numbers, e.g. 1,2,3") from None
    known = {f.name for f in fields(EvalConfig)}
    config = EvalConfig(**{k: v for k, v in data.items() if k in known})
    envs.make_game(config.env, **config.options)  # validates the options, naming the allowed ones
    return config


def command_line(config: EvalConfig, out: str) -> str:
    """The ``parlor eval`` command that reproduces ``config`` (whatever flags or file made it)."""
    import shlex

    parts = ["parlor", "eval", config.env, "--agents", ",".join(config.agents), "--games", str(config.games),
             "--seed", str(config.seed), "--workers", str(config.workers)]
    if config.field is not None:
        parts += ["--field", config.field]
    if config.seats is not None:
        parts += ["--seats", ",".join(str(s) for s in config.seats)]
    parts += option_flags(config.options)
    if config.record:
        parts.append("--record")
    parts += ["--out", out]
    return " ".join(shlex.quote(p) for p in parts)


def run(args: argparse.Namespace) -> int:
    from parlor.envs.engine.game import ConfigError
    from parlor.training.evaluation import report

    try:
        config = config_from_args(args)
    except (ConfigError, ValueError, OSError) as exc:
        print(f"parlor eval: {exc}", file=sys.stderr)
        return 2
    out = args.out or report.default_run_dir(config.env)
    with report.progress_bar(f"{config.env}: {', '.join(config.names())}", enabled=not args.quiet) as progress:
        try:
            results = evaluate(config, progress)
        except (ConfigError, ValueError, FileNotFoundError) as exc:
            print(f"parlor eval: {exc}", file=sys.stderr)
            return 2
    report.write_run(out, config.to_yaml_dict(), results, command=command_line(config, out), plot=not args.no_plot)
    report.print_tables(results)
    print(f"run folder: {out}")
    if config.record:
        records = f"{out}/{report.RECORDS_FILE}"
        print(f"game records: {records}; the worst game of an agent as a web page: "
              f"parlor replay {records} --worst {config.names()[0]} --html worst.html")
    return 0

