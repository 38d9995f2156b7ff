"""The ``parlor`` command line: one entry point (:func:`main`, the ``parlor`` console
script), one module per subcommand (``list``, ``demo``, ``play``, ``eval``, ``replay``, ``train``,
``shield``, ``convert``, ``bench``, ``soak``; ``options`` reads game options from ``--preset``/``--option``).

This package needs only the core install: it holds the entry point and the commands that
play, replay and soak the games (``play``, ``replay``, ``soak``), with the helpers they share
(``options``, ``extras``). The commands that evaluate, train and measure live in
:mod:`parlor.training.cli` and are imported only when one of them is run.

Each subcommand module offers ``add_arguments(parser)`` and ``run(args) -> int`` and
only parses and dispatches: the work is done by :mod:`parlor.training.evaluation`,
:mod:`parlor.training.learning`, :mod:`parlor.training.benchmarks` and
:mod:`parlor.agents`. Training libraries are imported only when a subcommand needs them;
a missing optional extra or Ctrl-C ends a command with one line, not a traceback
(``parlor eval`` says how to resume). So does bad user input: every subcommand checks
what it is given before it makes or changes any folder, and a
:class:`~parlor.envs.engine.game.ConfigError` (the one user-input error type) is printed
as ``parlor COMMAND: <message>`` with exit status 2; any other exception is a parlor
bug and keeps its traceback. Run as the console script, a finished ``eval`` ends its process
without the interpreter's teardown (:func:`end_process`).
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import re
import sys
import threading
from typing import NoReturn

SUBCOMMANDS = {
    "list": ("parlor.training.cli.list", "list environments, their presets and agents"),
    "demo": ("parlor.training.cli.demo", "the main job: what `make demo` runs"),
    "play": ("parlor.cli.play", "play a game in the terminal against agents"),
    "eval": ("parlor.training.cli.eval", "tournaments with duplicate deals, CIs and Elo"),
    "replay": ("parlor.cli.replay", "step through a game record in the terminal or write it as a web page"),
    "train": ("parlor.training.cli.train", "train a PPO policy from a YAML config (MaskablePPO, or RLlib on a Ray cluster)"),
    "shield": ("parlor.training.cli.shield", "put a trained policy inside an action guard (a deployment shield)"),
    "convert": ("parlor.training.cli.convert", "rewrite a policy zip of an older parlor (SB3 format) safely"),
    "bench": ("parlor.training.cli.bench", "speed: hand evaluator and random-play steps/s vs texas_holdem_v4"),
    "soak": ("parlor.cli.soak", "long random play of every env preset with the invariants checked"),
}


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The whole command line; given ``argv``, only the subcommand it names gets its arguments
    (its module imported): ``parlor eval`` does not import the training stack that ``train``
    imports at module level, 0.33 CPU-s before any game (serial, ahead of ``eval --workers``).
    Parsing ``argv`` with it gives the same result."""
    parser = argparse.ArgumentParser(prog="parlor", description="parlor: multi-agent RL table games")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    wanted = _named_command(argv) if argv is not None else None
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(_module=module_name)
        if wanted is None or name == wanted:
            importlib.import_module(module_name).add_arguments(p)
    return parser


def _named_command(argv: list[str]) -> str | None:
    """The subcommand ``argv`` runs: its first word that is not an option (the top-level parser
    has none that take a value), when that is a subcommand; else None (every subcommand)."""
    first = next((word for word in argv if not word.startswith("-")), None)
    return first if first in SUBCOMMANDS else None


def one_line(message: str, limit: int = 2000) -> str:
    """``message`` on one line with control characters escaped (it may quote a file), cut to ``limit``."""
    text = " ".join(str(message).split())
    text = re.sub(r"[\x00-\x1f\x7f-\x9f]", lambda m: f"\\x{ord(m.group()):02x}", text)
    return text if len(text) <= limit else text[:limit] + "..."


def main(argv: list[str] | None = None) -> int:
    """Run the command ``argv`` (default: this process's arguments) and return its exit status.
    Without ``argv`` (the ``parlor`` console script, ``python -m parlor.cli``) the process is the
    command's: a finished ``eval`` ends it at once (:func:`end_process`)."""
    from parlor.cli.extras import missing_extra
    from parlor.envs.engine.game import ConfigError

    whole_process = argv is None
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(argv).parse_args(argv)
    try:
        status = int(importlib.import_module(args._module).run(args) or 0)
    except ConfigError as err:
        print(f"parlor {args.command}: {one_line(str(err))}", file=sys.stderr)
        return 2
    except ImportError as err:
        message = missing_extra(err)
        if message is None:
            raise
        print(f"parlor {args.command}: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"parlor {args.command}: interrupted", file=sys.stderr)
        return 130
    if whole_process and status == 0 and args.command in ENDS_PROCESS and threading.active_count() == 1:
        end_process(status)
    return status


# commands that, once finished, hold nothing that needs the interpreter's teardown: every file
# written and closed, worker pools and Ray sessions shut down
ENDS_PROCESS = frozenset({"eval"})


def end_process(status: int) -> NoReturn:
    """End this process with ``status`` as a normal exit would (the output flushed, the exit
    hooks run), but without the interpreter's teardown, which frees every module's objects one
    by one: about a CPU-second after an evaluation (torch 0.6, the OFC game's kernels and tables
    0.3, numba 0.1), serial, after the results are already out. Only when no other thread
    runs (a normal exit would wait for it)."""
    import atexit
    import os

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a closed pipe: nothing more can reach the reader
            stream.flush()
    atexit._run_exitfuncs()  # what a normal exit runs before its teardown (multiprocessing's, the caller's)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(status)


if __name__ == "__main__":
    sys.exit(main())
