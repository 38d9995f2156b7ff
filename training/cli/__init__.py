"""The ``parlor`` command line: one entry point (:func:`main`, the ``parlor`` console
script), one module per subcommand (``list``, ``demo``, ``play``, ``eval``, ``replay``, ``train``,
``shield``, ``convert``, ``bench``, ``soak``; ``options`` reads game options from ``--preset``/``--option``).

Each subcommand module offers ``add_arguments(parser)`` and ``run(args) -> int`` and
only parses and dispatches: the work is done by :mod:`parlor.training.evaluation`,
:mod:`parlor.training.learning`, :mod:`parlor.training.benchmarks` and
:mod:`parlor.agents`. Training libraries are imported only when a subcommand needs them;
a missing optional extra or Ctrl-C ends a command with one line, not a traceback
(``parlor eval`` says how to resume).
"""
from __future__ import annotations

import argparse
import importlib
import sys

SUBCOMMANDS = {
    "list": ("parlor.training.cli.list", "list environments, their presets and agents"),
    "demo": ("parlor.training.cli.demo", "the main job: what `make demo` runs"),
    "play": ("parlor.training.cli.play", "play a game in the terminal against agents"),
    "eval": ("parlor.training.cli.eval", "tournaments with duplicate deals, CIs and Elo"),
    "replay": ("parlor.training.cli.replay", "step through a game record in the terminal or write it as a web page"),
    "train": ("parlor.training.cli.train", "train a MaskablePPO policy from a YAML config"),
    "shield": ("parlor.training.cli.shield", "put a trained policy inside an action guard (a deployment shield)"),
    "convert": ("parlor.training.cli.convert", "rewrite a policy zip of an older parlor (SB3 format) safely"),
    "bench": ("parlor.training.cli.bench", "speed: hand evaluator and random-play steps/s vs texas_holdem_v4"),
    "soak": ("parlor.training.cli.soak", "long random play of every env preset with the invariants checked"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="parlor", description="parlor: multi-agent RL table games")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(_module=module_name)
        importlib.import_module(module_name).add_arguments(p)
    return parser


def main(argv: list[str] | None = None) -> int:
    from parlor.training.cli.extras import missing_extra

    args = build_parser().parse_args(argv)
    try:
        return int(importlib.import_module(args._module).run(args) or 0)
    except ImportError as err:
        message = missing_extra(err)
        if message is None:
            raise
        print(f"parlor {args.command}: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"parlor {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
