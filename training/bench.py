"""``parlor bench``: speed measured side by side in one run.

Random-play AEC steps/second of every registered environment next to
PettingZoo's ``texas_holdem_v4`` (the reference), and the hand evaluator
against an independent one. Ratios matter, not absolute numbers: the
machines are shared and noisy.
"""
from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from parlor import envs
from parlor.training.rollout import play_random_episode

TARGET_RATIO = {"ofc_v0": 10.0}
DEFAULT_TARGET = 5.0


def steps_per_second(make_env: Callable[[], object], seconds: float, seed: int = 0) -> float:
    env = make_env()
    rng = np.random.default_rng(seed)
    steps, episode = 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        # seed once: reseeding every episode would time numpy's generator set-up, not the game
        _, n = play_random_episode(env, rng, seed=seed if episode == 0 else None)
        steps += n
        episode += 1
    return steps / (time.perf_counter() - start)


def reference_env() -> object:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pettingzoo.classic import texas_holdem_v4
    return texas_holdem_v4.env()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per measurement")
    parser.add_argument("--envs", default=",".join(envs.ENVS), help="comma-separated env names")
    parser.add_argument("--skip-hands", action="store_true", help="skip the hand-evaluator benchmark")


def run(args: argparse.Namespace) -> int:
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
        from parlor.training.bench_hands import main as bench_hands_main

        print()
        bench_hands_main([str(args.seconds)])
    return 0
