"""``parlor eval``: tournaments with seat rotation and duplicate deals, CIs, win rates, Elo.

    parlor eval ofc_v0 --agents heuristic,search,random --games 200 --seed 0 --workers 2
    parlor eval --config runs/eval/<run>/config.yaml        # rerun a previous evaluation
    parlor eval buki_v0 --agents ppo:agents/pretrained/buki_betting.zip,always_min \
        --field heuristic --seats 1,2,3                      # each agent alone against a fixed field

With ``--field AGENT`` every listed agent plays alone, in each of ``--seats``
(default: every seat), against ``AGENT`` in all the other seats, on the same
duplicate deals, so the agents are compared with each other on the same cards;
the table then adds paired differences per deal (as it does for solitaire games).

The schedule and the statistics are in :mod:`training.tournament`; this module
owns the command line, the worker processes and the run folder
(:mod:`training.report`). Jobs (one duplicate deal of one matchup each) are
fully seeded by (``--seed``, deal, matchup, lineup), so any ``--workers`` gives
the same results.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from parlor.training.game_options import add_game_option_arguments, game_options, option_flags

EVAL_KEYS = ("env", "options", "agents", "games", "seed", "workers", "field", "seats")


@dataclass(frozen=True)
class EvalConfig:
    """One evaluation; ``config.yaml`` of a run folder holds exactly these fields."""

    env: str
    agents: tuple[str, ...]
    options: dict[str, Any] = field(default_factory=dict)
    games: int = 100
    seed: int = 0
    workers: int = 1
    field: str | None = None            # play every agent alone against this one
    seats: tuple[int, ...] | None = None  # the seats the agents take against the field

    def __post_init__(self) -> None:
        from parlor.envs.engine.config import check_int
        from parlor.envs.engine.game import ConfigError

        if not self.agents:
            raise ConfigError("agents: give at least one agent name, e.g. heuristic,search,random")
        check_int("games", self.games, 1)
        check_int("seed", self.seed, 0)
        check_int("workers", self.workers, 1, 64)
        if self.field is not None and (not isinstance(self.field, str) or not self.field):
            raise ConfigError(f"field={self.field!r} must be an agent name, e.g. heuristic")
        if self.seats is not None:
            if self.field is None:
                raise ConfigError("seats only applies with field (the agents' seats against the field)")
            if isinstance(self.seats, (str, int)) or not self.seats:
                raise ConfigError(f"seats={self.seats!r} must be a non-empty list of seat numbers")
            for seat in self.seats:
                check_int("seats[]", seat, 0)
            object.__setattr__(self, "seats", tuple(self.seats))

    def players(self) -> tuple[str, ...]:
        """The agent specs by index: the evaluated agents, then the field (if any)."""
        return self.agents + ((self.field,) if self.field else ())

    def names(self) -> list[str]:
        """Display names; a repeated spec gets #2, #3..."""
        seen: dict[str, int] = {}
        out = []
        for spec in self.agents:
            seen[spec] = seen.get(spec, 0) + 1
            out.append(spec if seen[spec] == 1 else f"{spec}#{seen[spec]}")
        return out + ([f"field:{self.field}"] if self.field else [])

    def to_yaml_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["agents"] = list(self.agents)
        if self.seats is not None:
            d["seats"] = list(self.seats)
        return {k: v for k, v in d.items() if v is not None or k not in ("field", "seats")}


# ---------------------------------------------------------------- workers
_worker: dict[str, Any] = {}


def install_policy_check() -> None:
    """``ppo:<zip>`` agents: refuse zips trained for another env (training.policy's signature)."""
    from parlor.agents.ppo import set_metadata_check
    from parlor.training.policy import check_signature, read_signature, signature

    set_metadata_check(lambda path, game, env_name: check_signature(read_signature(path), signature(env_name, game), path))


def build_game(config: EvalConfig, make_game: Callable[..., Any] | None = None) -> Any:
    """The game of ``config``; ``make_game`` (a picklable module-level function) replaces the
    registry, e.g. for a test-only game."""
    if make_game is not None:
        return make_game(**config.options)
    from parlor import envs

    return envs.make_game(config.env, **config.options)


def init_worker(config: EvalConfig, make_game: Callable[..., Any] | None = None) -> None:
    install_policy_check()
    _worker.clear()
    _worker.update(config=config, game=build_game(config, make_game), agents={})
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


def seat_agent(agent_index: int, seat: int) -> Any:
    """One agent instance per (agent, seat) per process, built on first use."""
    from parlor.agents.registry import make_agent

    key = (agent_index, seat)
    cache = _worker["agents"]
    if key not in cache:
        config = _worker["config"]
        cache[key] = make_agent(config.players()[agent_index], _worker["game"], env_name=config.env)
        if "torch" in sys.modules:
            sys.modules["torch"].set_num_threads(1)
    return cache[key]


def run_job(job: Any) -> list[dict]:
    from parlor.training.tournament import run_job as play

    return play(_worker["game"], seat_agent, job, _worker["config"].seed)


def run_jobs(config: EvalConfig, jobs: Sequence[Any], make_game: Callable[..., Any] | None = None) -> Iterator[list[dict]]:
    """Results of ``jobs`` in order, from this process or a pool of ``config.workers``."""
    if config.workers == 1 or len(jobs) == 1:
        init_worker(config, make_game)
        for job in jobs:
            yield run_job(job)
        return
    import multiprocessing as mp

    # fork is fast and needs no `if __name__ == "__main__"` guard; never fork a process that
    # loaded torch (its thread pools do not survive fork): spawn workers rebuild everything
    fork_ok = "fork" in mp.get_all_start_methods() and "torch" not in sys.modules
    ctx = mp.get_context("fork" if fork_ok else "spawn")
    with ctx.Pool(config.workers, initializer=init_worker, initargs=(config, make_game)) as pool:
        yield from pool.imap(run_job, jobs, chunksize=1)


def evaluate(config: EvalConfig, progress: Callable[[int, int], None] | None = None,
             make_game: Callable[..., Any] | None = None) -> dict:
    """Play the tournament of ``config``; returns the summary plus the episode records."""
    from parlor.agents.registry import make_agent
    from parlor.envs.engine.game import ConfigError
    from parlor.training.tournament import field_schedule, paired_differences, schedule, summarize

    game = build_game(config, make_game)
    install_policy_check()
    for spec in dict.fromkeys(config.players()):  # fail fast, with the registry's message, before any work
        make_agent(spec, game, env_name=config.env)
    if config.field is not None:
        if game.num_players < 2:
            raise ConfigError(f"field needs a game of 2 or more seats; {config.env} has {game.num_players}")
        seats = config.seats if config.seats is not None else tuple(range(game.num_players))
        bad = [s for s in seats if not 0 <= s < game.num_players]
        if bad:
            raise ConfigError(f"seats {bad} out of range; allowed values: 0..{game.num_players - 1}")
        jobs = field_schedule(len(config.agents), game.num_players, config.games, seats)
    else:
        jobs = schedule(len(config.agents), game.num_players, config.games)
    records: list[dict] = []
    start = time.perf_counter()
    for i, batch in enumerate(run_jobs(config, jobs, make_game)):
        records.extend(batch)
        if progress is not None:
            progress(i + 1, len(jobs))
    summary = summarize(records, config.names(), game.num_players)
    if config.field is not None or game.num_players == 1:  # every agent met the same cards
        summary["paired"] = paired_differences(records, config.names(), range(len(config.agents)))
    summary.update(env=config.env, options=dict(config.options), num_players=game.num_players,
                   duplicate_decks=True,  # every Game pre-samples its decks (Game.sample_deck)
                   seconds=round(time.perf_counter() - start, 2), records=records)
    return summary


# ---------------------------------------------------------------- command line
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
    for key in ("games", "seed", "workers", "field"):
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
    parts += ["--out", out]
    return " ".join(shlex.quote(p) for p in parts)


def default_run_dir(config: EvalConfig) -> str:
    return os.path.join("runs", "eval", f"{time.strftime('%Y%m%d-%H%M%S')}-{config.env}")


def run(args: argparse.Namespace) -> int:
    from parlor.envs.engine.game import ConfigError
    from parlor.training import report

    try:
        config = config_from_args(args)
    except (ConfigError, ValueError, OSError) as exc:
        print(f"parlor eval: {exc}", file=sys.stderr)
        return 2
    out = args.out or default_run_dir(config)
    with report.progress_bar(f"{config.env}: {', '.join(config.names())}", enabled=not args.quiet) as progress:
        try:
            results = evaluate(config, progress)
        except (ConfigError, ValueError, FileNotFoundError) as exc:
            print(f"parlor eval: {exc}", file=sys.stderr)
            return 2
    report.write_run(out, config.to_yaml_dict(), results, command=command_line(config, out), plot=not args.no_plot)
    report.print_tables(results)
    print(f"run folder: {out}")
    return 0

