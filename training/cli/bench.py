"""``parlor bench``: speed measured side by side in one run.

Random-play AEC steps/second of every registered environment next to
PettingZoo's ``texas_holdem_v4`` (the reference), and the hand evaluator
against an independent one; with ``--ofc-advisors``, the OFC feature block,
policies, heuristic and search against a reference checkout of the code
(:mod:`parlor.training.benchmarks.ofc_advisors`). Ratios matter, not absolute
numbers: the machines are shared and noisy.
"""
from __future__ import annotations

import argparse

from parlor import envs
from parlor.training.benchmarks.env_speed import DEFAULT_TARGET, TARGET_RATIO, reference_env, steps_per_second
from parlor.training.benchmarks.ofc_advisors import WORKLOADS as OFC_WORKLOADS
from parlor.training.cli.extras import require


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per measurement")
    parser.add_argument("--envs", default=",".join(envs.ENVS), help="comma-separated env names")
    parser.add_argument("--skip-hands", action="store_true", help="skip the hand-evaluator benchmark")
    parser.add_argument("--ofc-advisors", action="store_true",
                        help="only the OFC advisors' speed (feature block, shipped policies, heuristic, search)")
    parser.add_argument("--reference", metavar="DIR",
                        help="with --ofc-advisors: a checkout of the code to compare with (e.g. main before a change)")
    parser.add_argument("--workloads", default=",".join(OFC_WORKLOADS),
                        help="with --ofc-advisors: comma-separated workloads")
    parser.add_argument("--rounds", type=int, default=2, help="with --ofc-advisors: alternating rounds per workload")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="with --ofc-advisors: episodes/hands per measurement, relative to the defaults")


def run(args: argparse.Namespace) -> int:
    if args.ofc_advisors:
        return run_ofc_advisors(args)
    if args.reference:
        raise SystemExit("--reference compares the OFC advisors: add --ofc-advisors")
    require(["rlcard"], "the reference env texas_holdem_v4 (PettingZoo classic)")
    names = [n for n in args.envs.split(",") if n]
    # the reference is re-measured right before each env: shared machines change speed
    # within a run, and a ratio is only fair between two back-to-back measurements
    print(f"{'environment':24s} {'steps/s':>10s} {'texas_holdem_v4':>16s} {'ratio':>7s} {'target':>7s}")
    for name in names:
        reference = steps_per_second(reference_env, args.seconds)
        rate = steps_per_second(lambda name=name: envs.make(name), args.seconds)
        target = TARGET_RATIO.get(name, DEFAULT_TARGET)
        verdict = "ok" if rate / reference >= target else "SLOW"
        print(f"{name:24s} {rate:10,.0f} {reference:16,.0f} {rate / reference:6.1f}x {target:6.0f}x {verdict}")
    if not args.skip_hands:
        from parlor.training.benchmarks.hands import bench_hands, summary

        rows = bench_hands(args.seconds)
        print(f"\n{'hand evaluator':28s} {'hands/s':>14s}")
        for r in rows:
            print(f"{r['name']:28s} {r['hands_per_s']:14,.0f}")
        print("\n".join(summary(rows)))
    return 0


def run_ofc_advisors(args: argparse.Namespace) -> int:
    import os

    from parlor.training.benchmarks.ofc_advisors import compare, report

    if args.reference and not os.path.isdir(os.path.join(args.reference, "envs")):
        raise SystemExit(f"--reference {args.reference}: not a checkout of parlor (no envs/ folder)")
    workloads = [w for w in args.workloads.split(",") if w]
    if any(w.startswith("ofc_pineapple") for w in workloads):  # each run is a subprocess: check here, in one line
        require(["torch", "sb3_contrib", "safetensors"], "the shipped OFC policies' workloads",
                alternative="or leave them out of --workloads")
    rows = compare(workloads, args.reference, args.rounds, args.scale)
    print("\n".join(report(rows)))
    print("CPU time of each process (torch: 1 thread); best of", args.rounds, "alternating rounds")
    return 0
