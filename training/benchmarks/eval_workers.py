"""Evaluation worker start, side by side in one run (``parlor bench --eval-workers 1,2``).

One ``parlor eval`` command (default: 400 single-hand OFC games of the shipped
``ofc_pineapple.zip`` policy against the heuristic) runs in a fresh process with each number
of workers in turn, for ``rounds`` rounds, on this code and, with ``reference``, on another
checkout (e.g. main before a change) in alternation: what a user waits for, start-up
(imports, the game, the workers) included. A row gives the wall seconds of each run, the CPU
seconds of the whole process tree, and the speed-up of N workers over the first count measured
in the same round (a ratio of back-to-back runs: the machines are shared and noisy). The
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
# the entry point moved from parlor.training.cli to parlor.cli; a reference tree may predate the move
CLI = ("import sys\ntry:\n    from parlor.cli import main\nexcept ImportError:\n    from parlor.training.cli import main\n"
       "sys.exit(main(['eval', *sys.argv[1:]]))")


@dataclass(frozen=True)
class Run:
    tree: str        # "this code" or "reference"
    workers: int
    wall: float      # seconds, start-up included
    cpu: float       # CPU seconds of the eval process and its workers
    digest: str      # of episodes.jsonl


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
    return Run(tree, workers, wall, cpu, digest)


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
                              f"{run.cpu:6.1f} CPU-s  episodes {run.digest}", flush=True)
            result.append(runs)
    return result


def report(rounds: list[list[Run]], counts: Sequence[int]) -> list[str]:
    """Per tree and worker count: wall seconds of each round, CPU-s, and the median speed-up
    over ``counts[0]`` workers in the same round; then whether every run played the same games."""
    trees = list(dict.fromkeys(run.tree for run in rounds[0]))
    lines = [f"{'code':10s} {'workers':>7s} {'wall s (each round)':>24s} {'CPU-s':>7s} {'speed-up':>9s}"]
    for tree in trees:
        for n in counts:
            mine = [next(x for x in runs if x.tree == tree and x.workers == n) for runs in rounds]
            base = [next(x for x in runs if x.tree == tree and x.workers == counts[0]) for runs in rounds]
            ratios = [b.wall / m.wall for b, m in zip(base, mine)]
            walls = ", ".join(f"{m.wall:.1f}" for m in mine)
            ups = f"{statistics.median(ratios):.2f}x" + (f" ({min(ratios):.2f}-{max(ratios):.2f})" if len(ratios) > 1 else "")
            lines.append(f"{tree:10s} {n:7d} {walls:>24s} {statistics.median(m.cpu for m in mine):7.1f} {ups:>9s}")
    digests = {run.digest for runs in rounds for run in runs}
    lines.append("same episodes.jsonl in every run: " + ("yes" if len(digests) == 1 else f"NO ({', '.join(sorted(digests))})"))
    lines.append("speed-up: wall of the first worker count / this one, same tree and round (median, range)")
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
