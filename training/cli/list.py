"""``parlor list``: the registered environments, their presets and the agent names."""
from __future__ import annotations

import argparse

from parlor import envs
from parlor.agents.registry import agent_names


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--presets", action="store_true", help="also print each preset's options")


def run(args: argparse.Namespace) -> int:
    for name in envs.ENVS:
        module = envs.load(name)
        summary = (module.__doc__ or "").strip().splitlines()[0] if module.__doc__ else ""
        print(f"{name:24s} {summary}")
        if args.presets:
            for preset, options in module.PRESETS.items():
                print(f"    {preset:20s} {options}")
    print("\nagents:", ", ".join(agent_names()))
    return 0
