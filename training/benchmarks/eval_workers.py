"""Evaluation worker start, side by side in one run (``parlor bench --eval-workers 1,2``).

One ``parlor eval`` command (default: 400 single-hand OFC games of the shipped
``ofc_pineapple.zip`` policy against the heuristic) runs in a fresh process with each number
of workers in turn, for ``rounds`` rounds, on this code and, with ``reference``, on another
checkout (e.g. main before a change) in alternation: what a user waits for, start-up
(imports, the game, the workers) included. A row gives the wall seconds of each run, the CPU
seconds of the whole process tree and its split (the eval process, which starts, plans and
collects, against its workers), the speed-up of N workers over the first count measured in the
same round (a ratio of back-to-back runs: the machines are shared and noisy), and the speed-up
that split gives for idle cores (what a loaded machine's wall times cannot show:
:meth:`Run.idle_seconds`). The
digest of every run's ``episodes.jsonl`` is compared: the same games must be played whatever
the number of workers and whichever tree played them.
"""
from __future__ import annotations

import hashlib
import os
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

DEFAULT_EVAL = ("--game-from agents/pretrained/ofc_pineapple.zip "
                "--agents ppo:agents/pretrained/ofc_pineapple.zip,heuristic --games 400")
CPU_TAG = "parlor-bench-cpu"
# the entry point moved from parlor.training.cli to parlor.cli; a reference tree may predate the move.
# At exit the eval process prints its own CPU seconds and its children's (the workers and the policy
# server it waited for; they leave through os._exit, so only the eval process prints), then, where
# this tree records them, the start's CPU marks (:data:`parlor.training.evaluation.policy_server.startup_cpu`)
CLI = ("import atexit, os, resource, sys\n"
       "def _cpu(pid=os.getpid()):\n"
       "    if os.getpid() == pid:\n"
       "        me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)\n"
       "        marks = getattr(sys.modules.get('parlor.training.evaluation.policy_server'), 'startup_cpu', {})\n"
       f"        print('{CPU_TAG}', me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime,\n"
       "              *(f'{k}={v:.3f}' for k, v in marks.items()), file=sys.stderr)\n"
       "atexit.register(_cpu)\n"
       "try:\n    from parlor.cli import main\nexcept ImportError:\n    from parlor.training.cli import main\n"
       "sys.argv[1:1] = ['eval']\n"
       "sys.exit(main())")  # as the console script calls it (the command owns the process)


@dataclass(frozen=True)
class Run:
    tree: str        # "this code" or "reference"
    workers: int
    wall: float      # seconds, start-up included
    cpu: float       # CPU seconds of the eval process and its workers
    digest: str      # of episodes.jsonl
    parent_cpu: float   # CPU seconds of the eval process up to its exit hooks (start-up, planning, collecting)
    workers_cpu: float  # of its children: the workers, a policy server (and any other child, e.g. git)
    # the eval process's CPU when it started the policy server ("owner_at_start") and forked the
    # pool ("owner_at_fork"); the server's at its first answer ("ready": torch and the files) and
    # in all ("total"); {} where the run recorded none (one worker, or an older tree)
    marks: Mapping[str, float] = field(default_factory=dict)

    @property
    def exit_cpu(self) -> float:
        """CPU seconds of the eval process after its exit hooks (the interpreter's teardown)."""
        return max(0.0, self.cpu - self.parent_cpu - self.workers_cpu)

    @property
    def server_cpu(self) -> float:
        return self.marks.get("total", 0.0)

    def idle_seconds(self) -> float:
        """Wall seconds this run would take on ``workers`` idle cores, estimated from its CPU (it
        flatters: nothing lost to imbalance or to processes waiting on each other).

        Without marks, the eval process's part (its exit included) is serial and the children's is
        split evenly. With them: the start is the eval process up to the fork, or the policy
        server's start (torch, the files) from when the eval process started it, whichever ends
        later (they run side by side); then everything played after the fork, on the workers, in
        the server's serving and in the eval process's collecting, split evenly; then the exit."""
        marks = self.marks
        if "owner_at_fork" not in marks:
            return self.cpu - self.workers_cpu + self.workers_cpu / self.workers
        ready = marks.get("ready", 0.0)
        start = max(marks["owner_at_fork"], marks.get("owner_at_start", 0.0) + ready)
        after_fork = (self.workers_cpu - ready) + (self.parent_cpu - marks["owner_at_fork"])
        return start + after_fork / self.workers + self.exit_cpu


def split_cpu(stderr: str) -> tuple[float, float, dict[str, float]]:
    """(eval process, children) CPU seconds and the start's marks from the line :data:`CLI` prints at exit."""
    lines = [line.split() for line in stderr.splitlines() if line.startswith(CPU_TAG + " ")]
    if not lines:
        raise SystemExit(f"parlor eval printed no {CPU_TAG} line at exit: {stderr.strip()[-400:]}")
    marks = {key: float(value) for key, value in (mark.split("=") for mark in lines[-1][3:])}
    return float(lines[-1][1]), float(lines[-1][2]), marks


def shim(root: str, folder: str) -> str:
    """A folder that imports ``parlor.envs``, ``parlor.agents`` and ``parlor.training`` from the
    checkout ``root`` when put first on PYTHONPATH (workers a spawn or forkserver starts inherit it)."""
    for name in ("envs", "agents", "training"):
        if not os.path.isfile(os.path.join(root, name, "__init__.py")):
            raise SystemExit(f"--reference {root}: not a checkout of parlor (no {name}/__init__.py)")
    os.makedirs(os.path.join(folder, "parlor"), exist_ok=True)
    # the command line too, where the checkout has it as its own package (older trees kept it in training/)
    for name in ("envs", "agents", "training") + (("cli",) if os.path.isfile(os.path.join(root, "cli", "__init__.py")) else ()):
        os.symlink(os.path.join(os.path.abspath(root), name), os.path.join(folder, "parlor", name))
    return folder


def run_eval(eval_args: Sequence[str], workers: int, tree: str, pythonpath: str | None, out: str) -> Run:
    """One ``parlor eval ... --workers N`` in a fresh process (the run folder ``out``)."""
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = os.pathsep.join([pythonpath, *filter(None, [env.get("PYTHONPATH")])])
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    cmd = [sys.executable, "-c", CLI, *eval_args, "--workers", str(workers), "--quiet", "--no-plot", "--out", out]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"parlor eval failed on {tree} (exit {done.returncode}): {done.stderr.strip()[-400:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the eval process and the workers it waited for
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    with open(os.path.join(out, "episodes.jsonl"), "rb") as episodes:
        digest = hashlib.sha256(episodes.read()).hexdigest()[:12]
    return Run(tree, workers, wall, cpu, digest, *split_cpu(done.stderr))


def measure(eval_args: Sequence[str], counts: Sequence[int], rounds: int, reference: str | None,
            show: bool = True) -> list[list[Run]]:
    """``rounds`` rounds; each runs every tree with every worker count in turn (printed as it goes)."""
    result: list[list[Run]] = []
    with tempfile.TemporaryDirectory(prefix="parlor-bench-") as tmp:
        trees = [("this code", None)] + ([("reference", shim(reference, os.path.join(tmp, "ref")))] if reference else [])
        for r in range(rounds):
            runs = []
            for tree, path in trees:
                for n in counts:
                    run = run_eval(eval_args, n, tree, path, os.path.join(tmp, f"run-{r}-{tree[0]}-{n}"))
                    runs.append(run)
                    if show:
                        server = (f", {run.server_cpu:.1f} policy server ({run.marks.get('ready', 0.0):.1f} its start)"
                                  if run.server_cpu else "")
                        print(f"  round {r + 1}: {tree:9s} --workers {n:<2d} {run.wall:6.1f} s wall "
                              f"{run.cpu:6.1f} CPU-s ({run.parent_cpu:.1f} eval process + {run.exit_cpu:.1f} its exit, "
                              f"{run.workers_cpu - run.server_cpu:.1f} workers{server})  episodes {run.digest}", flush=True)
            result.append(runs)
    return result


def _spread(values: list[float]) -> str:
    """The median of ``values`` as a speed-up, with their range when there are several."""
    return f"{statistics.median(values):.2f}x" + (f" ({min(values):.2f}-{max(values):.2f})" if len(values) > 1 else "")


def report(rounds: list[list[Run]], counts: Sequence[int]) -> list[str]:
    """Per tree and worker count: wall seconds of each round, CPU-s (of the whole tree, then of the
    eval process, its exit included, and of its workers), the median speed-up over ``counts[0]`` workers in the same
    round, and the speed-up the CPU split gives for idle cores (:meth:`Run.idle_seconds`); then
    whether every run played the same games."""
    trees = list(dict.fromkeys(run.tree for run in rounds[0]))
    lines = [f"{'code':10s} {'workers':>7s} {'wall s (each round)':>22s} {'CPU-s':>6s} {'eval+server+workers':>19s} "
             f"{'speed-up':>17s} {'idle estimate':>17s}"]
    for tree in trees:
        for n in counts:
            mine = [next(x for x in runs if x.tree == tree and x.workers == n) for runs in rounds]
            base = [next(x for x in runs if x.tree == tree and x.workers == counts[0]) for runs in rounds]
            walls = ", ".join(f"{m.wall:.1f}" for m in mine)
            split = "+".join(f"{statistics.median(part):.1f}" for part in (
                [m.cpu - m.workers_cpu for m in mine], [m.server_cpu for m in mine],
                [m.workers_cpu - m.server_cpu for m in mine]))
            wall_up = _spread([b.wall / m.wall for b, m in zip(base, mine)])
            idle_up = _spread([b.idle_seconds() / m.idle_seconds() for b, m in zip(base, mine)])
            lines.append(f"{tree:10s} {n:7d} {walls:>22s} {statistics.median(m.cpu for m in mine):6.1f} {split:>19s} "
                         f"{wall_up:>17s} {idle_up:>17s}")
    digests = {run.digest for runs in rounds for run in runs}
    lines.append("same episodes.jsonl in every run: " + ("yes" if len(digests) == 1 else f"NO ({', '.join(sorted(digests))})"))
    lines.append("speed-up: wall of the first worker count / this one, same tree and round (median, range)")
    lines.append("idle estimate: the same ratio for idle cores, one per worker, from the CPU split: the eval "
                 "process's CPU up to the fork (or the policy server's start beside it) serial, everything after "
                 "the fork split evenly (it flatters: no start-up or imbalance lost)")
    return lines


def parse_counts(text: str) -> list[int]:
    """``1,2`` -> [1, 2]: worker counts from 1 to 64, the first the base of the speed-ups."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if len(parts) < 2 or not all(p.isdigit() and 1 <= int(p) <= 64 for p in parts):
        raise SystemExit(f"--eval-workers {text!r}: give two or more comma-separated worker counts in 1..64, e.g. 1,2")
    return [int(p) for p in parts]


def eval_arguments(text: str) -> list[str]:
    """The ``parlor eval`` arguments to time; the bench adds --workers, --quiet, --no-plot and --out."""
    args = shlex.split(text)
    taken = [a for a in args if a.split("=")[0] in ("--workers", "--out", "--resume", "--ray")]
    if taken:
        raise SystemExit(f"--eval {text!r}: leave out {', '.join(taken)} (the bench sets the workers and the folder)")
    return args
