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
the results are the same. Results come back in job order. A cluster that goes away
(its GCS stops answering for ``GCS_GRACE`` seconds, or the local raylet dies) ends the
wait with a :class:`ClusterError` at once, instead of Ray ending the process after
its own 60 s; the caller keeps the deals played and says how to resume.

Policy files travel as bytes (:mod:`.shipped`): a worker never opens a path the user
gave, so the cluster's machines need no shared disk.

Addresses (:func:`connect`): ``local`` starts a new Ray instance on this machine
(shut down at the end), ``auto`` joins the cluster running here (``ray start
--head``), ``HOST:PORT`` a cluster this machine belongs to, ``ray://HOST:10001`` a
remote one through Ray Client. Before Ray is asked, the address must answer on TCP
(``CONNECT_TIMEOUT``): none there is a one-line :class:`ClusterError`, not Ray's
minutes of retries. ``$PARLOR_RAY_RUNTIME_ENV`` (JSON) is the job's Ray
``runtime_env``, e.g. ``{"py_modules": ["my_agents"]}`` for ``package.module:Class``
agents that the cluster's machines do not have. ``ray`` is imported inside functions
only: evaluation runs without it (and never loads torch).
"""
from __future__ import annotations

import contextlib
import math
import os
import socket
import threading
import time
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from typing import Any

LOCAL = "local"          # a new Ray instance on this machine, for this run only
ADDRESS_VARIABLE = "RAY_ADDRESS"
RUNTIME_ENV_VARIABLE = "PARLOR_RAY_RUNTIME_ENV"  # JSON: the Ray runtime_env of parlor's jobs
MAX_RETRIES = 3          # reruns of a task whose worker process died
TASKS_PER_CPU = 4        # enough tasks to balance uneven jobs, few enough to amortise each task's cost
CONNECT_TIMEOUT = 5.0    # seconds for the address to accept a TCP connection before Ray is asked
GCS_GRACE = 10.0         # seconds the cluster's GCS may not answer before the cluster counts as lost
POLL_SECONDS = 1.0       # how often a wait for results checks that the GCS answers


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


def host_port(address: str) -> tuple[str, int] | None:
    """``(host, port)`` of ``HOST:PORT`` or ``ray://HOST:PORT``; None if it is not of that form."""
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    return (host.strip("[]"), int(port)) if sep and host and port.isdigit() else None


def answers(where: tuple[str, int], timeout: float = CONNECT_TIMEOUT) -> bool:
    """Whether something accepts a TCP connection at ``where``."""
    try:
        with socket.create_connection(where, timeout=timeout):
            return True
    except OSError:
        return False


def bootstrap_address(address: str) -> str | None:
    """The HOST:PORT that ``ray.init(address)`` will dial (``auto``: ``$RAY_ADDRESS``, else the
    cluster started on this machine); None for ``local``. :class:`ClusterError` when ``auto``
    finds no cluster here."""
    if address == LOCAL:
        return None
    if address.startswith("ray://"):
        return address
    from ray._private.services import canonicalize_bootstrap_address  # what ray.init itself resolves with

    try:
        found = canonicalize_bootstrap_address(address)
    except (ConnectionError, ValueError) as exc:
        raise ClusterError(f"no Ray cluster at {address!r}: {exc}") from None
    if found is None:
        raise ClusterError(f"no Ray cluster at {address!r}")
    return found


def runtime_env() -> dict[str, Any] | None:
    """The ``runtime_env`` in ``$PARLOR_RAY_RUNTIME_ENV`` (a JSON object), if set."""
    import json

    from parlor.envs.engine.game import ConfigError

    text = os.environ.get(RUNTIME_ENV_VARIABLE, "").strip()
    if not text:
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"${RUNTIME_ENV_VARIABLE} is not JSON ({exc}); give a Ray runtime_env object, e.g. "
                          '{"py_modules": ["my_agents"]}') from None
    if not isinstance(value, dict):
        raise ConfigError(f"${RUNTIME_ENV_VARIABLE} must be a JSON object (a Ray runtime_env), not {value!r}")
    return value


def connect(address: str, num_cpus: int | None = None) -> bool:
    """Connect this process to Ray at ``address`` unless it already is; returns whether this
    call connected (the caller then disconnects, :func:`session`). ``num_cpus`` only applies
    to a ``local`` instance."""
    import ray

    if ray.is_initialized():
        return False
    kwargs: dict[str, Any] = dict(log_to_driver=False, configure_logging=False, runtime_env=runtime_env())
    if address == LOCAL:  # plain ray.init() would join whatever cluster runs here; local means a new one
        kwargs.update(num_cpus=num_cpus, include_dashboard=False)
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # a run's own instance: no usage report unless asked
    dial = bootstrap_address(address)
    where = host_port(dial) if dial is not None else None
    if where is not None and not answers(where):  # Ray would retry for minutes, logging each try
        raise ClusterError(f"no Ray cluster at {address!r}: nothing answers at {where[0]}:{where[1]} (is it "
                           "started, e.g. `ray start --head`, and is the address right?)")
    try:
        ray.init(address=address, **kwargs)
    except (ConnectionError, ray.exceptions.AuthenticationError) as exc:  # one line, not a traceback
        raise ClusterError(f"no Ray cluster at {address!r}: {connection_problem(exc)}") from None
    return True


def connection_problem(exc: BaseException) -> str:
    """What ``ray.init`` said, in one sentence, and what to do when it is the token."""
    said = str(exc).split(". ")[0].strip().rstrip(".")
    if "uthenticat" in str(exc.__cause__ or exc) or "uthenticat" in said:
        said += (" (a cluster with token authentication: set RAY_AUTH_MODE=token and give the cluster's token: "
                 "~/.ray/auth_token, $RAY_AUTH_TOKEN_PATH or $RAY_AUTH_TOKEN)")
    return said


def gcs_of_session(address: str) -> tuple[str, int] | None:
    """Where the cluster's GCS listens; None through Ray Client (``ray://``: the GCS may be out of
    reach from here, and the client reports a lost connection itself)."""
    import ray

    if address.startswith("ray://"):
        return None
    try:
        return host_port(ray.get_runtime_context().gcs_address)
    except Exception:  # Ray Client's context has no GCS address
        return None


class GcsSilence:
    """How long the cluster's GCS (``where``; None: not watched) has not answered: :meth:`lost`
    checks once and says whether it has been silent for ``GCS_GRACE`` seconds."""

    def __init__(self, address: str, where: tuple[str, int] | None):
        self.address, self.where = address, where
        self.since: float | None = None

    def lost(self) -> bool:
        if self.where is None or answers(self.where, timeout=POLL_SECONDS):
            self.since = None
            return False
        if self.since is None:
            self.since = time.monotonic()
        return time.monotonic() - self.since >= GCS_GRACE

    def message(self) -> str:
        where = f"{self.where[0]}:{self.where[1]}" if self.where else "?"
        return f"lost the Ray cluster at {self.address!r}: its GCS ({where}) has not answered for {GCS_GRACE:.0f} s"


def wait_for(ref: Any, silence: GcsSilence) -> None:
    """Return once ``ref`` is ready; :class:`ClusterError` when the cluster's GCS has been silent
    for ``GCS_GRACE`` seconds (Ray itself would end this process after 60 s)."""
    import ray

    while not ray.wait([ref], timeout=POLL_SECONDS)[0]:
        if silence.lost():
            raise ClusterError(silence.message())


@contextlib.contextmanager
def watched(address: str, on_lost: Callable[[str], None]) -> Iterator[None]:
    """While the block runs (e.g. RLlib's training loop, which waits inside Ray), a daemon
    thread checks the cluster's GCS every ``POLL_SECONDS`` and calls ``on_lost(message)`` once
    it has been silent for ``GCS_GRACE`` seconds, well before Ray's own 60 s end."""
    silence, stop = GcsSilence(address, gcs_of_session(address)), threading.Event()

    def watch() -> None:
        while not stop.wait(POLL_SECONDS):
            if silence.lost():
                on_lost(silence.message())
                return

    if silence.where is not None:
        threading.Thread(target=watch, name="parlor-gcs-watch", daemon=True).start()
    try:
        yield
    finally:
        stop.set()


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


def _play_chunk(config: Any, jobs: Sequence[Any], make_game: Callable[..., Any] | None, task: Any,
                factories: dict[str, Any]) -> list[Any]:
    from parlor.training.evaluation.runner import play_jobs

    return play_jobs(config, jobs, make_game, task, factories)


def chunk_size(num_jobs: int, cpus: int) -> int:
    return max(1, math.ceil(num_jobs / (TASKS_PER_CPU * max(1, cpus))))


def run_jobs(config: Any, jobs: Sequence[Any], make_game: Callable[..., Any] | None = None,
             chunk: int | None = None, task: Any = None,
             factories: Mapping[str, Any] | None = None) -> Generator[Any, None, None]:
    """Results of ``jobs`` in order, played as Ray tasks on the cluster at ``config.ray``;
    ``task`` (a :class:`~.runner.Task`; default the evaluation's) says what a worker does;
    ``factories`` (the policies as bytes, :mod:`.shipped`) go through Ray's object store once."""
    import ray

    with session(config.ray):
        if chunk is None:
            chunk = chunk_size(len(jobs), int(ray.cluster_resources().get("CPU", 1)))
        # SPREAD: chunks go round the nodes rather than filling the driver's node first
        play = ray.remote(num_cpus=1, max_retries=MAX_RETRIES, scheduling_strategy="SPREAD")(_play_chunk)
        config_ref, factories_ref = ray.put(config), ray.put(dict(factories or {}))
        chunks = [list(jobs[i:i + chunk]) for i in range(0, len(jobs), chunk)]
        refs = [play.remote(config_ref, c, make_game, task, factories_ref) for c in chunks]
        fetched, lost, silence = 0, False, GcsSilence(config.ray, gcs_of_session(config.ray))
        try:
            for ref in refs:  # in order; the later chunks run meanwhile
                try:
                    wait_for(ref, silence)
                    chunk_results = ray.get(ref)
                except ray.exceptions.RayTaskError as exc:
                    if isinstance(exc.cause, OSError):  # the worker's machine (its disk, a file), not our run folder
                        raise ClusterError(f"a Ray task failed on its machine: {type(exc.cause).__name__}: "
                                           f"{exc.cause}") from exc
                    raise  # the task's own error (e.g. a bad agent): the caller sees it as raised
                except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError,
                        ray.exceptions.ObjectLostError) as exc:  # retried MAX_RETRIES times already
                    raise ClusterError(f"a Ray task failed {MAX_RETRIES + 1} times ({type(exc).__name__})") from exc
                except ClusterError:
                    lost = True
                    raise
                except (ray.exceptions.RayError, ConnectionError) as exc:  # the local raylet died, Ray Client lost...
                    lost = True
                    raise ClusterError(f"lost the Ray cluster at {config.ray!r} ({type(exc).__name__}: "
                                       f"{str(exc).splitlines()[0] if str(exc) else ''})") from exc
                fetched += 1
                yield from chunk_results
        finally:  # an error, or the caller stopped early: stop the chunks still running
            rest = refs[fetched:] if not lost else []  # (a lost cluster takes no more calls)
            if rest:
                _, running = ray.wait(rest, num_returns=len(rest), timeout=0)
                for ref in running:  # (cancelling a finished task upsets Ray's task manager)
                    ray.cancel(ref)
