"""``parlor soak``: long random legal play over every env and preset with the invariants
checked (mask, conservation, zero-sum, clone and determinize); the work is
:mod:`parlor.envs.soak`. Prints one line per preset and the totals; exit status 1 when a
check failed (the first messages are printed)."""
from __future__ import annotations

import argparse
import sys

from parlor import envs
from parlor.envs.soak import CaseReport, soak


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--steps", type=int, default=100_000, help="total steps (decisions), split over the presets")
    parser.add_argument("--seed", type=int, default=0, help="seeds every episode of the run")
    parser.add_argument("--envs", default=",".join(envs.ENVS), help="comma-separated env names")
    parser.add_argument("--check-every", type=int, default=16, metavar="K",
                        help="clone, determinize and observation checks every K steps (conservation, masks and "
                             "zero-sum: every step)")


def run(args: argparse.Namespace) -> int:
    names = [n for n in args.envs.split(",") if n]
    unknown = sorted(set(names) - set(envs.ENVS))
    if unknown or not names or args.steps < 1 or args.check_every < 1:
        problem = (f"unknown env(s) {', '.join(unknown)}; allowed values: {', '.join(envs.ENVS)}" if unknown or not names
                   else f"--steps={args.steps} and --check-every={args.check_every} must be >= 1")
        print(f"parlor soak: {problem}", file=sys.stderr)
        return 2
    print(f"{'env[preset]':46s} {'steps':>9s} {'episodes':>9s} {'violations':>10s}")
    messages: list[str] = []

    def line(case: CaseReport) -> None:
        print(f"{case.id:46s} {case.steps:9,d} {case.episodes:9,d} {case.violations:10,d}", flush=True)
        messages.extend(case.messages)

    report = soak(args.steps, seed=args.seed, env_names=names, check_every=args.check_every, on_case=line)
    print(f"{'total':46s} {report.steps:9,d} {report.episodes:9,d} {report.violations:10,d}")
    print(f"{report.steps:,d} steps, {report.episodes:,d} episodes, {report.violations:,d} violations "
          f"in {report.seconds:,.0f} s (seed {args.seed}, checks every {args.check_every} steps)")
    for message in messages:
        print(f"violation: {message}")
    return 1 if report.violations else 0
