"""The ``parlor`` command line: one entry point, one module per subcommand.

Each subcommand module offers ``add_arguments(parser)`` and ``run(args) -> int``;
modules are imported only when their subcommand runs, so ``parlor list`` stays
fast and needs no training dependencies.
"""
from __future__ import annotations

import argparse
import importlib
import sys

SUBCOMMANDS = {
    "list": ("parlor.training.commands", "list environments, their presets and agents"),
    "demo": ("parlor.training.demo", "the main job: what `make demo` runs"),
    "play": ("parlor.training.play", "play a game in the terminal against agents"),
    "eval": ("parlor.training.evaluate", "tournaments with duplicate deals, CIs and Elo"),
    "train": ("parlor.training.learning.train", "train a MaskablePPO policy from a YAML config"),
    "shield": ("parlor.training.shield", "put a trained policy inside an action guard (a deployment shield)"),
    "bench": ("parlor.training.bench", "speed: hand evaluator and random-play steps/s vs texas_holdem_v4"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="parlor", description="parlor: multi-agent RL table games")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(_module=module_name)
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:  # a subcommand whose module has not landed yet
            if not exc.name or not exc.name.startswith(module_name):
                raise
            p.set_defaults(_missing=f"`parlor {name}` is not available in this version")
            continue
        module.add_arguments(p)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "_missing", None):
        print(args._missing, file=sys.stderr)
        return 2
    return int(importlib.import_module(args._module).run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
