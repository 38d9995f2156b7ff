"""``parlor demo``: the main job of ``make demo``.

Plays a few random-agent episodes of every registered environment and prints
each seat's mean return, the episode length and the last final position.
"""
from __future__ import annotations

import argparse

import numpy as np

import envs
from training.rollout import play_random_episode


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--episodes", type=int, default=5, help="random episodes per environment")
    parser.add_argument("--seed", type=int, default=0)


def run(args: argparse.Namespace) -> int:
    rng = np.random.default_rng(args.seed)
    for name in envs.ENVS:
        env = envs.make(name, render_mode="ansi")
        totals = np.zeros(len(env.possible_agents))
        steps = 0
        for episode in range(args.episodes):
            returns, n = play_random_episode(env, rng, seed=args.seed + episode)
            totals += [returns[a] for a in env.possible_agents]
            steps += n
        print(f"== {name}: {args.episodes} random episodes, {steps / args.episodes:.0f} steps each")
        print("   mean return per seat: " + ", ".join(f"{a}={t / args.episodes:+.2f}" for a, t in zip(env.possible_agents, totals)))
        print("   final position of the last episode:")
        print("   " + env.unwrapped.render().replace("\n", "\n   "))
    return 0
