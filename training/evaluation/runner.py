"""Running an evaluation: :class:`EvalConfig` -> :func:`evaluate` -> the summary and records.

``evaluate`` plays the tournament of a config (seat rotation and duplicate deals;
the schedule and the statistics are in :mod:`parlor.training.evaluation.tournament`)
in this process or a pool of worker processes. With ``field`` every listed agent
plays alone, in each of ``seats`` (default: every seat), against the field agent
in all the other seats, on the same duplicate deals, so the agents are compared
with each other on the same cards; the summary then adds paired differences per
deal (as it does for solitaire games). Jobs (one duplicate deal of one matchup
each) are fully seeded by (``seed``, deal, matchup, lineup), so any number of
workers gives the same results. ``parlor eval`` (:mod:`parlor.training.cli.eval`)
is its command line and writes the run folder (:mod:`.report`).

    from parlor.training.evaluation import EvalConfig, evaluate
    summary = evaluate(EvalConfig(env="tonk_v0", agents=("heuristic", "random"), games=200))
"""
from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

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


def build_game(config: EvalConfig, make_game: Callable[..., Any] | None = None) -> Any:
    """The game of ``config``; ``make_game`` (a picklable module-level function) replaces the
    registry, e.g. for a test-only game."""
    if make_game is not None:
        return make_game(**config.options)
    from parlor import envs

    return envs.make_game(config.env, **config.options)


def init_worker(config: EvalConfig, make_game: Callable[..., Any] | None = None) -> None:
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
    from parlor.training.evaluation.tournament import run_job as play

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
    from parlor.training.evaluation.tournament import field_schedule, paired_differences, schedule, summarize

    game = build_game(config, make_game)
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
    summary = summarize(records, config.names(), game.num_players, game.stat_ratios)
    if config.field is not None or game.num_players == 1:  # every agent met the same cards
        summary["paired"] = paired_differences(records, config.names(), range(len(config.agents)))
    summary.update(env=config.env, options=dict(config.options), num_players=game.num_players,
                   duplicate_decks=True,  # every Game pre-samples its decks (Game.sample_deck)
                   seconds=round(time.perf_counter() - start, 2), records=records)
    return summary
