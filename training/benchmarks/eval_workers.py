"""Evaluation worker start, side by side in one run (``parlor bench --eval-workers 1,2``).

One ``parlor eval`` command (default: 400 single-hand OFC games of the shipped
``ofc_pineapple.zip`` policy against the heuristic) runs in a fresh process with each number
of workers in turn, for ``rounds`` rounds, on this code and, with ``reference``, on another
checkout (e.g. main before a change) in alternation: what a user waits for, start-up
(imports, the game, the workers) included. A row gives the wall seconds of each run, the CPU
seconds of the whole process tree and its split (the eval process, which starts, plans and
collects, against its workers), the speed-up of N workers over the first count measured in the
same round (a ratio of back-to-back runs: the machines are shared and noisy), and the speed-up
that split gives for idle cores (what a loaded machine's wall times cannot show). The
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
from collections.abc import Sequence
from dataclasses import dataclass

DEFAULT_EVAL = ("--game-from agents/pretrained/ofc_pineapple.zip "
                "--agents ppo:agents/pretrained/ofc_pineapple.zip,heuristic --games 400")
CPU_TAG = "parlor-bench-cpu"
# the entry point moved from parlor.training.cli to parlor.cli; a reference tree may predate the move.
# At exit the eval process prints its own CPU seconds and its workers' (the children it waited for;
# pool workers leave through os._exit, so only the eval process prints)
CLI = ("import atexit, os, resource, sys\n"
       "def _cpu(pid=os.getpid()):\n"
       "    if os.getpid() == pid:\n"
       "        me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)\n"
       f"        print('{CPU_TAG}', me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime, file=sys.stderr)\n"
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
    workers_cpu: float  # of the worker processes (and any other child of it, e.g. git)

    @property
    def exit_cpu(self) -> float:
        """CPU seconds of the eval process after its exit hooks (the interpreter's teardown)."""
        return max(0.0, self.cpu - self.parent_cpu - self.workers_cpu)

    def idle_seconds(self) -> float:
        """Wall seconds this run would take on ``workers`` idle cores, estimated from its CPU: the
        eval process's part (its exit included) serial, the workers' part split evenly among them."""
        return self.cpu - self.workers_cpu + self.workers_cpu / self.workers


def split_cpu(stderr: str) -> tuple[float, float]:
    """(eval process, workers) CPU seconds from the line :data:`CLI` prints at exit."""
    lines = [line.split() for line in stderr.splitlines() if line.startswith(CPU_TAG + " ")]
    if not lines:
        raise SystemExit(f"parlor eval printed no {CPU_TAG} line at exit: {stderr.strip()[-400:]}")
    return float(lines[-1][1]), float(lines[-1][2])


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
                        print(f"  round {r + 1}: {tree:9s} --workers {n:<2d} {run.wall:6.1f} s wall "
                              f"{run.cpu:6.1f} CPU-s ({run.parent_cpu:.1f} eval process + {run.exit_cpu:.1f} its exit, "
                              f"{run.workers_cpu:.1f} workers)  episodes {run.digest}", flush=True)
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
    lines = [f"{'code':10s} {'workers':>7s} {'wall s (each round)':>22s} {'CPU-s':>6s} {'eval+workers':>12s} "
             f"{'speed-up':>17s} {'idle estimate':>17s}"]
    for tree in trees:
        for n in counts:
            mine = [next(x for x in runs if x.tree == tree and x.workers == n) for runs in rounds]
            base = [next(x for x in runs if x.tree == tree and x.workers == counts[0]) for runs in rounds]
            walls = ", ".join(f"{m.wall:.1f}" for m in mine)
            split = (f"{statistics.median(m.cpu - m.workers_cpu for m in mine):.1f}+"
                     f"{statistics.median(m.workers_cpu for m in mine):.1f}")
            wall_up = _spread([b.wall / m.wall for b, m in zip(base, mine)])
            idle_up = _spread([b.idle_seconds() / m.idle_seconds() for b, m in zip(base, mine)])
            lines.append(f"{tree:10s} {n:7d} {walls:>22s} {statistics.median(m.cpu for m in mine):6.1f} {split:>12s} "
                         f"{wall_up:>17s} {idle_up:>17s}")
    digests = {run.digest for runs in rounds for run in runs}
    lines.append("same episodes.jsonl in every run: " + ("yes" if len(digests) == 1 else f"NO ({', '.join(sorted(digests))})"))
    lines.append("speed-up: wall of the first worker count / this one, same tree and round (median, range)")
    lines.append("idle estimate: the same ratio for idle cores, one per worker, from the CPU split: the eval "
                 "process's CPU serial, the workers' split evenly (it flatters: no start-up or imbalance lost)")
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
