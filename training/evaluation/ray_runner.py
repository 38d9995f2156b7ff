"""Tournament jobs as Ray tasks (``parlor eval ... --ray [ADDRESS]``), and the one Ray connection.

Every job (one duplicate deal of one matchup, :class:`~.tournament.Job`) is fully
seeded by (seed, deal, matchup, lineup), so where it runs does not matter: the
results equal ``--workers 1``. Jobs go out in chunks (about ``TASKS_PER_CPU``
tasks per CPU of the cluster) because one job of a fast game takes far less
than Ray's cost per task. A Ray worker process keeps the game and the agents of
the evaluation between chunks (:func:`~.runner.play_jobs`), as a pool worker does.

A task whose process dies (killed, out of memory, node lost) is run again by Ray
(``MAX_RETRIES``; system failures only: an exception in the task, e.g. a bad
agent, fails the evaluation at once); its jobs are replayed from their seeds, so
the results are the same. Results come back in job order.

Addresses (:func:`connect`): ``local`` starts a new Ray instance on this machine
(shut down at the end), ``auto`` joins the cluster running here (``ray start
--head``), ``HOST:PORT`` or ``ray://HOST:PORT`` a remote one. ``ray`` is
imported inside functions only: evaluation runs without it (and never loads torch).
"""
from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any

LOCAL = "local"          # a new Ray instance on this machine, for this run only
ADDRESS_VARIABLE = "RAY_ADDRESS"
MAX_RETRIES = 3          # reruns of a task whose worker process died
TASKS_PER_CPU = 4        # enough tasks to balance uneven jobs, few enough to amortise each task's cost


class ClusterError(RuntimeError):
    """The Ray cluster cannot play the jobs: none at the address, or a task's process died
    more often than it is retried (the jobs finished so far are kept by the caller)."""


def default_address() -> str:
    """What a bare ``--ray`` means: ``$RAY_ADDRESS`` if set, else a new local instance."""
    return os.environ.get(ADDRESS_VARIABLE) or LOCAL


def check_address(field: str, address: Any) -> None:
    """An address is ``local``, ``auto``, ``HOST:PORT`` or ``ray://HOST:PORT``."""
    from parlor.envs.engine.game import ConfigError

    if not isinstance(address, str) or not address or any(c.isspace() for c in address):
        raise ConfigError(f"{field}={address!r} is not a Ray address; allowed values: local, auto, HOST:PORT, "
                          "ray://HOST:PORT")


def connect(address: str, num_cpus: int | None = None) -> bool:
    """Connect this process to Ray at ``address`` unless it already is; returns whether this
    call connected (the caller then disconnects, :func:`session`). ``num_cpus`` only applies
    to a ``local`` instance."""
    import ray

    if ray.is_initialized():
        return False
    kwargs: dict[str, Any] = dict(log_to_driver=False, configure_logging=False)
    if address == LOCAL:  # plain ray.init() would join whatever cluster runs here; local means a new one
        kwargs.update(num_cpus=num_cpus, include_dashboard=False)
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # a run's own instance: no usage report unless asked
    try:
        ray.init(address=address, **kwargs)
    except ConnectionError as exc:  # no cluster there (or the token is missing): one line, not a traceback
        raise ClusterError(f"no Ray cluster at {address!r}: {exc}") from None
    return True


@contextlib.contextmanager
def session(address: str, num_cpus: int | None = None) -> Iterator[None]:
    """Ray connected at ``address`` for the block; disconnected after it if this block connected."""
    import ray

    started = connect(address, num_cpus)
    try:
        yield
    finally:
        if started:
            ray.shutdown()


def _play_chunk(config: Any, jobs: Sequence[Any], make_game: Callable[..., Any] | None, task: Any = None) -> list[Any]:
    from parlor.training.evaluation.runner import play_jobs

    return play_jobs(config, jobs, make_game, task)


def chunk_size(num_jobs: int, cpus: int) -> int:
    return max(1, math.ceil(num_jobs / (TASKS_PER_CPU * max(1, cpus))))


def run_jobs(config: Any, jobs: Sequence[Any], make_game: Callable[..., Any] | None = None,
             chunk: int | None = None, task: Any = None) -> Iterator[Any]:
    """Results of ``jobs`` in order, played as Ray tasks on the cluster at ``config.ray``;
    ``task`` (a :class:`~.runner.Task`; default the evaluation's) says what a worker does."""
    import ray

    with session(config.ray):
        if chunk is None:
            chunk = chunk_size(len(jobs), int(ray.cluster_resources().get("CPU", 1)))
        play = ray.remote(num_cpus=1, max_retries=MAX_RETRIES)(_play_chunk)
        config_ref = ray.put(config)
        chunks = [list(jobs[i:i + chunk]) for i in range(0, len(jobs), chunk)]
        refs = [play.remote(config_ref, c, make_game, task) for c in chunks]
        fetched = 0
        try:
            for ref in refs:  # in order; the later chunks run meanwhile
                try:
                    chunk_results = ray.get(ref)
                except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError,
                        ray.exceptions.ObjectLostError) as exc:  # retried MAX_RETRIES times already
                    raise ClusterError(f"a Ray task failed {MAX_RETRIES + 1} times ({type(exc).__name__})") from exc
                fetched += 1
                yield from chunk_results
        finally:  # an error, or the caller stopped early: stop the chunks still running
            rest = refs[fetched:]
            if rest:
                _, running = ray.wait(rest, num_returns=len(rest), timeout=0)
                for ref in running:  # (cancelling a finished task upsets Ray's task manager)
                    ray.cancel(ref)
