"""Running an evaluation: :class:`EvalConfig` -> :func:`evaluate` -> the summary and records.

``evaluate`` plays the tournament of a config (seat rotation and duplicate deals;
the schedule and the statistics are in :mod:`parlor.training.evaluation.tournament`)
in this process or a pool of worker processes. With ``field`` every listed agent
plays alone, in each of ``seats`` (default: every seat), against the field agent
in all the other seats, on the same duplicate deals, so the agents are compared
with each other on the same cards; the summary then adds paired differences per
deal (as it does for solitaire games). Jobs (one duplicate deal of one matchup
each) are fully seeded by (``seed``, deal, matchup, lineup), so any number of
workers gives the same results; with ``ray`` (an address) the jobs run as Ray
tasks on a cluster instead (:mod:`.ray_runner`), with the same results. Agents may
be named (``me=ppo:x.zip``; :mod:`.labels`).

Durability: with an episode ``log`` (:class:`~.run_folder.EpisodeLog`) every job's
episodes are appended to the run folder as the job finishes, and the jobs the log
already holds are not played again, so an interrupted evaluation resumes to the
same results. With ``record`` each episode carries its game record (``"record"``, a
``parlor-record`` object built from the final state; :mod:`parlor.envs.records`), so the
records are streamed and resumed with the episodes. Every job goes through :func:`run_jobs` (this process or the worker
pool); ``parlor eval`` (:mod:`parlor.training.cli.eval`) is the command line.

    from parlor.training.evaluation import EvalConfig, evaluate
    summary = evaluate(EvalConfig(env="tonk_v0", agents=("heuristic", "random"), games=200))
"""
from __future__ import annotations

import signal
import sys
import time
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from parlor.training.evaluation.labels import agent_labels, split_entry

if TYPE_CHECKING:
    from parlor.training.evaluation.policy_server import PolicyServer
    from parlor.training.evaluation.run_folder import EpisodeLog
    from parlor.training.evaluation.tournament import Job

EVAL_KEYS = ("env", "options", "agents", "games", "seed", "workers", "ray", "field", "seats", "record")
MAX_GAMES = 1_000_000  # episodes per matchup: the schedule is built (and the episodes kept) in memory
MAX_EPISODES = 1_000_000  # episodes of a whole evaluation (games times matchups), for the same reason
MAX_AGENTS = 64


@dataclass(frozen=True)
class EvalConfig:
    """One evaluation; ``config.yaml`` of a run folder holds exactly these fields.
    ``agents`` (and ``field``) are agent specs, each optionally named: ``NAME=SPEC``."""

    env: str
    agents: tuple[str, ...]
    options: dict[str, Any] = field(default_factory=dict)
    games: int = 100
    seed: int = 0
    workers: int = 1
    ray: str | None = None              # a Ray address (local, auto, HOST:PORT): jobs run as Ray tasks
    field: str | None = None            # play every agent alone against this one
    seats: tuple[int, ...] | None = None  # the seats the agents take against the field
    record: bool = False                # keep every episode's game record (records.jsonl)

    def __post_init__(self) -> None:
        from parlor.envs.engine.config import check_bool, check_int, check_seed
        from parlor.envs.engine.game import ConfigError, shown

        if isinstance(self.agents, str) or not isinstance(self.agents, (list, tuple)) or not self.agents:
            raise ConfigError(f"agents={shown(self.agents)}: give a list of at least one agent name, e.g. "
                              "heuristic,search,random")
        if len(self.agents) > MAX_AGENTS or not all(isinstance(a, str) for a in self.agents):
            raise ConfigError(f"agents={shown(self.agents)}: give 1 to {MAX_AGENTS} agent names (strings)")
        object.__setattr__(self, "agents", tuple(self.agents))
        if not isinstance(self.options, dict):
            raise ConfigError(f"options={shown(self.options)} must be a mapping of game option names to values")
        check_int("games", self.games, 1, MAX_GAMES)
        check_seed(self.seed, "seed")
        check_int("workers", self.workers, 1, 64)
        check_bool("record", self.record)
        if self.ray is not None:
            from parlor.training.evaluation.ray_runner import check_address

            check_address("ray", self.ray)
            if self.workers != 1:
                raise ConfigError(f"workers={self.workers} and ray={shown(self.ray)}: give one of them (on Ray the "
                                  "cluster's CPUs are the workers)")
        if self.field is not None and (not isinstance(self.field, str) or not self.field):
            raise ConfigError(f"field={shown(self.field)} must be an agent name, e.g. heuristic")
        if self.seats is not None:
            if self.field is None:
                raise ConfigError("seats only applies with field (the agents' seats against the field)")
            if not isinstance(self.seats, (list, tuple)) or not self.seats:
                raise ConfigError(f"seats={shown(self.seats)} must be a non-empty list of seat numbers")
            for seat in self.seats:
                check_int("seats[]", seat, 0)
            object.__setattr__(self, "seats", tuple(self.seats))
        agent_labels(self.agents, self.field)  # bad or clashing names fail here, naming the entries

    def players(self) -> tuple[str, ...]:
        """The agent specs (names stripped) by index: the evaluated agents, then the field (if any)."""
        return tuple(split_entry(e)[1] for e in self.agents + ((self.field,) if self.field else ()))

    def names(self) -> list[str]:
        """Display names by index (:func:`~.labels.agent_labels`): ``NAME`` of ``NAME=SPEC``, a
        policy's file name, else the spec; a repeated spec gets #2, #3..."""
        return agent_labels(self.agents, self.field)

    def to_yaml_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["agents"] = list(self.agents)
        if self.seats is not None:
            d["seats"] = list(self.seats)
        return {k: v for k, v in d.items() if (v is not None or k not in ("ray", "field", "seats"))
                and (v or k != "record")}


# ---------------------------------------------------------------- workers
_worker: dict[str, Any] = {}


def build_game(config: EvalConfig, make_game: Callable[..., Any] | None = None) -> Any:
    """The game of ``config``; ``make_game`` (a picklable module-level function) replaces the
    registry, e.g. for a test-only game."""
    if make_game is not None:
        return make_game(**config.options)
    from parlor import envs

    return envs.make_game(config.env, **config.options)


def init_worker(config: EvalConfig, make_game: Callable[..., Any] | None = None,
                factories: Mapping[str, Callable[..., Any]] | None = None) -> None:
    """This process plays ``config``'s jobs; ``factories`` (spec -> ``(game, seed=None) -> agent``)
    build those agents instead of the registry (Ray workers: :mod:`.shipped` policies)."""
    _worker.clear()
    _worker.update(config=config, make_game=make_game, game=build_game(config, make_game), agents={},
                   factories=dict(factories or {}))
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


def init_pool_worker(config: Any, make_game: Callable[..., Any] | None = None, task: Task | None = None,
                     factories: Mapping[str, Any] | None = None, server: Mapping[str, Any] | None = None) -> None:
    """A pool process: Ctrl-C reaches the whole process group, but stopping is the parent's
    job (it terminates the pool), so workers ignore it instead of printing tracebacks. With
    ``server`` (:func:`.policy_server.worker_address`) its policy files play from that server."""
    from parlor.agents.policy_actor import serve_from

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if server is not None:
        serve_from(server["address"], server["authkey"])
    _set_up(task or EVALUATION, config, make_game, factories)


def seat_agent(agent_index: int, seat: int) -> Any:
    """One agent instance per (agent, seat) per process, built on first use."""
    from parlor.agents.registry import make_agent

    key = (agent_index, seat)
    cache = _worker["agents"]
    if key not in cache:
        config = _worker["config"]
        spec = config.players()[agent_index]
        factory = _worker["factories"].get(spec)
        cache[key] = (factory(_worker["game"]) if factory is not None
                      else make_agent(spec, _worker["game"]))
        if "torch" in sys.modules:
            sys.modules["torch"].set_num_threads(1)
    return cache[key]


def run_job(job: Any) -> list[dict]:
    from parlor.training.evaluation.tournament import Recording
    from parlor.training.evaluation.tournament import run_job as play

    config = _worker["config"]
    recording = Recording(tuple(config.names())) if config.record else None
    return play(_worker["game"], seat_agent, job, config.seed, recording)


@dataclass(frozen=True)
class Task:
    """What worker processes do with jobs: ``init(config, make_game, factories)`` once per process
    (again when they change), then ``run(job)`` per job. Module-level functions, so that pool
    and Ray workers import them; the evaluation's is :data:`EVALUATION`, training's label
    generation has its own (:mod:`parlor.training.learning.labelling`) on the same workers.
    ``config`` needs ``workers`` and ``ray`` (where the jobs run); ``factories`` are the policies
    the driver read and shipped as bytes (:mod:`.shipped`), empty off Ray."""

    init: Callable[[Any, Callable[..., Any] | None, Mapping[str, Any]], None]
    run: Callable[[Any], Any]


EVALUATION = Task(init_worker, run_job)
_set_for: dict[str, Any] = {}  # what this process was set up for: (task, config, make_game, factories)


def _set_up(task: Task, config: Any, make_game: Callable[..., Any] | None,
            factories: Mapping[str, Any] | None = None) -> None:
    task.init(config, make_game, dict(factories or {}))
    _set_for["key"] = (task, config, make_game, dict(factories or {}))


def play_jobs(config: Any, jobs: Sequence[Any], make_game: Callable[..., Any] | None = None,
              task: Task | None = None, factories: Mapping[str, Any] | None = None) -> list[Any]:
    """Results of ``jobs`` played in this process; the process keeps its game and agents
    while ``task``, ``config``, ``make_game`` and ``factories`` stay the same (a Ray worker
    plays many chunks)."""
    task = task or EVALUATION
    key = _set_for.get("key")
    if (key is None or key[0] != task or key[1] != config or key[2] is not make_game
            or key[3] != dict(factories or {})):
        _set_up(task, config, make_game, factories)
    return [task.run(job) for job in jobs]


def run_jobs(config: Any, jobs: Sequence[Any], make_game: Callable[..., Any] | None = None,
             task: Task | None = None, factories: Mapping[str, Any] | None = None,
             server: PolicyServer | None = None) -> Generator[Any, None, None]:
    """Results of ``jobs`` in order, from this process, a pool of ``config.workers`` or
    Ray tasks (``config.ray``: :mod:`.ray_runner`, where ``factories`` build the policies
    from the bytes the driver read); ``task`` (default: the evaluation's tournament jobs)
    says what a worker does with a job.

    Pool workers play policy files through a :class:`~.policy_server.PolicyServer` (``server``,
    started by :func:`plan`, or one of their own for the pool's life), so they never import torch.
    A pool worker that dies (killed, out of memory) raises ``BrokenProcessPool`` instead
    of waiting forever; when the caller stops early (an error, Ctrl-C) the workers are
    terminated at once rather than finishing the queue."""
    if config.ray is not None:
        from parlor.training.evaluation import ray_runner

        yield from ray_runner.run_jobs(config, jobs, make_game, task=task, factories=factories)
        return
    task = task or EVALUATION
    if config.workers == 1 or len(jobs) == 1:
        _set_up(task, config, make_game, factories)
        for job in jobs:
            yield task.run(job)
        return
    from concurrent.futures import ProcessPoolExecutor

    from parlor.training.evaluation import policy_server
    from parlor.training.evaluation.pool import ctrl_c_ignored, pool_context, terminate_workers

    own = (server is None or server.closed) and policy_server.wanted(config)
    server = policy_server.PolicyServer(policy_server.policy_paths(config)) if own else server
    served = server is not None and not server.closed
    try:
        policy_server.startup_cpu["owner_at_fork"] = policy_server.cpu_seconds()
        pool = ProcessPoolExecutor(config.workers, mp_context=pool_context(served), initializer=init_pool_worker,
                                   initargs=(config, make_game, task, factories,
                                             policy_server.worker_address(server if served else None)))
        with ctrl_c_ignored():  # the workers start ignoring it, even while a spawned one imports
            futures = [pool.submit(task.run, job) for job in jobs]  # (the pool starts its processes here)
        finished = False
        try:
            for future in futures:
                yield future.result()
            finished = True
        finally:
            if not finished:
                # no future is cancelled: the pool's own thread fails every pending one once its
                # workers are gone (cancelling too races with it in Python 3.11: a traceback)
                terminate_workers(pool)
            pool.shutdown(wait=finished)
    finally:
        if own and server is not None:
            server.close()


# ---------------------------------------------------------------- the evaluation
@dataclass(frozen=True)
class Plan:
    """What an evaluation will play: its game and its jobs (the schedule), all checked."""

    game: Any
    jobs: list[Job]
    factories: dict[str, Any] = field(default_factory=dict)  # Ray: the policies, read here (:mod:`.shipped`)
    server: PolicyServer | None = None  # a worker pool's policies: their server, started first (:func:`plan`)


def plan(config: EvalConfig, make_game: Callable[..., Any] | None = None) -> Plan:
    """The game and the schedule of ``config``; every agent is checked first, so a bad
    name, a policy that does not fit or a missing extra fails before any game or file.
    Policies are checked without torch (:func:`~parlor.agents.registry.check_agent`), so
    the worker pool can fork this process instead of spawning workers that import it all again.
    On Ray the policy files are also read here, once, and their bytes are what the workers get
    (:mod:`.shipped`): the cluster's machines need neither the files nor our cwd. A worker pool
    that plays policy files gets their :class:`~.policy_server.PolicyServer`, started before
    anything else, so that it loads torch while this process builds the game (:func:`evaluate`
    closes it; so does dropping the plan)."""
    from parlor.training.evaluation import policy_server

    server = policy_server.PolicyServer(policy_server.policy_paths(config)) if policy_server.wanted(config) else None
    try:
        return _plan(config, make_game, server)
    except BaseException:
        if server is not None:
            server.close()
        raise


def _plan(config: EvalConfig, make_game: Callable[..., Any] | None, server: PolicyServer | None) -> Plan:
    from parlor.agents.registry import check_agent
    from parlor.envs.engine.game import ConfigError
    from parlor.training.evaluation.shipped import policy_factories
    from parlor.training.evaluation.tournament import field_schedule, matchups_for, schedule

    game = build_game(config, make_game)
    groups = len(config.agents) if config.field is not None else len(matchups_for(len(config.agents), game.num_players))
    if config.games * groups > MAX_EPISODES:
        raise ConfigError(f"games={config.games} for each of {groups} matchups is {config.games * groups:,} episodes; "
                          f"at most {MAX_EPISODES:,} in one evaluation")
    factories = policy_factories(config.players()) if config.ray is not None else {}
    for spec in dict.fromkeys(config.players()):  # fail fast, with the registry's message, before any work
        check_agent(spec, game)
    if config.field is not None:
        if game.num_players < 2:
            raise ConfigError(f"field needs a game of 2 or more seats; {config.env} has {game.num_players}")
        seats = config.seats if config.seats is not None else tuple(range(game.num_players))
        bad = [s for s in seats if not 0 <= s < game.num_players]
        if bad:
            raise ConfigError(f"seats {bad} out of range; allowed values: 0..{game.num_players - 1}")
        return Plan(game, field_schedule(len(config.agents), game.num_players, config.games, seats), factories, server)
    return Plan(game, schedule(len(config.agents), game.num_players, config.games), factories, server)


def evaluate(config: EvalConfig, progress: Callable[[int, int], None] | None = None,
             make_game: Callable[..., Any] | None = None, log: EpisodeLog | None = None,
             planned: Plan | None = None) -> dict:
    """Play the tournament of ``config``; returns the summary plus the episode records.

    With ``log`` each finished job's episodes are appended to it, and the jobs it already
    holds (an interrupted run) are taken from it instead of being played again: the
    summary is the same as an uninterrupted run's (only ``timing`` differs).
    ``progress(done, total)`` counts jobs (duplicate deals)."""
    from parlor.training.evaluation.tournament import paired_differences, small_sample_warnings, summarize

    planned = planned or plan(config, make_game)
    game, jobs, names = planned.game, planned.jobs, config.names()
    done = log.resume(jobs, names, config.record, game) if log is not None else {}
    pending = [i for i in range(len(jobs)) if i not in done]
    start = time.perf_counter()
    if progress is not None:
        progress(len(done), len(jobs))
    played = run_jobs(config, [jobs[i] for i in pending], make_game, factories=planned.factories, server=planned.server)
    try:
        for n, (i, batch) in enumerate(zip(pending, played)):
            done[i] = [{"job": i, "matchup": r["matchup"], "deal": r["deal"], "lineup": r["lineup"],
                        "agents": [names[a] for a in r["lineup"]], **r} for r in batch]
            if log is not None:
                log.append(done[i])
            if progress is not None:
                progress(len(jobs) - len(pending) + n + 1, len(jobs))
    finally:
        played.close()  # stops the worker pool at once when the loop ends early
        if planned.server is not None:
            planned.server.close()
    records = [r for i in range(len(jobs)) for r in done[i]]
    summary = summarize(records, names, game.num_players, game.stat_ratios)
    if config.field is not None or game.num_players == 1:  # every agent met the same cards
        summary["paired"] = paired_differences(records, names, range(len(config.agents)))
    summary["agents"] = [{"agent": e["agent"], "spec": spec, **e} for e, spec in zip(summary["agents"], config.players())]
    summary.update(env=config.env, options=dict(config.options), num_players=game.num_players,
                   duplicate_decks=True,  # every Game pre-samples its decks (Game.sample_deck)
                   games=config.games, seed=config.seed, field=config.field,
                   seats=None if config.seats is None else list(config.seats), record=config.record,
                   timing={"seconds": round(time.perf_counter() - start, 2), "workers": config.workers,
                           "deals_played": len(pending), "deals_resumed": len(jobs) - len(pending)},
                   records=records)
    summary["warnings"] = small_sample_warnings(summary)
    return summary
