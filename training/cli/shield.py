"""``parlor shield``: put a trained policy inside an action guard after training.

A shield at deployment: ``parlor shield SOURCE.zip DEST.zip --guard foul_cap=0.25``
writes a copy of the policy whose header carries the guard (replacing any it
had; the copy is written atomically, so DEST may be SOURCE), so :class:`parlor.agents.policy.PolicyAgent` plays it with the ``guarded_mask``
of the env's advisor (:mod:`parlor.agents.advisors`) wherever it is loaded (``parlor
eval``, ``parlor play``, self-play snapshots). The network is untouched; the guard is
checked against the game the policy was trained on (the names its advisor's
``guarded_mask`` reads, tolerances >= 0).
``--guard NAME=TOLERANCE`` (repeatable) sets the guard, e.g. ``--guard
endgame_foul=0 --guard midgame_foul=0.02`` for OFC Pineapple's exact endgame guard
and its cap on the first three-card turn; ``--clear`` removes it.

``--late-planner SPEC --late-turns N`` has a planner of the env play the hand's last N
regular turns (:mod:`parlor.agents.policy_planner`), e.g. ``--late-planner expert:16
--late-turns 3`` for OFC, and with ``--shortlist K`` the best of the network's K most probable
placements on the earlier turns, and with ``--late-samples 16,16,8,1`` the planner's budget
on each late turn, first to last (the spec's own on the earlier turns);
``--clear-late-planner`` removes it. What is not named is kept.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from parlor.agents.policy import action_guard, read_signature, shield_policy
from parlor.agents.policy_planner import checked_setting, late_planner_of
from parlor.envs.engine.config import check_number
from parlor.envs.engine.game import ConfigError


def parse_guard(items: list[str]) -> dict[str, float]:
    """``["foul=0.1", "foul_cap=0.3"]`` -> ``{"foul": 0.1, "foul_cap": 0.3}``."""
    guard: dict[str, float] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise ConfigError(f"--guard {item!r}: expected NAME=TOLERANCE, e.g. foul_cap=0.25")
        try:
            guard[name] = float(value)
        except ValueError:
            raise ConfigError(f"--guard {item!r}: tolerance {value!r} is not a number") from None
        check_number(f"--guard {name}", guard[name], 0.0)
    return guard


def shield(source: str | Path, dest: str | Path, guard: dict[str, float] | None,
           late_planner: dict[str, Any] | None | bool = True) -> Path:
    """Copy the policy ``source`` to ``dest`` with ``guard`` ({} removes it, None keeps it) and
    ``late_planner`` (None removes it, True keeps it), checked against the policy's own game."""
    from parlor.training.learning.wrapper import make_env_game  # also knows envs registered for tests

    saved = read_signature(source)
    game = make_env_game(saved["env"], saved.get("options", {}))
    return shield_policy(source, dest, guard, game, late_planner)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", help="a policy zip saved by parlor train")
    parser.add_argument("dest", help="where to write the shielded copy (may equal source)")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--guard", action="append", metavar="NAME=TOLERANCE",
                       help="a tolerance the env's action guard reads (repeatable), e.g. foul_cap=0.25")
    group.add_argument("--clear", action="store_true", help="remove the policy's guard")
    planner = parser.add_mutually_exclusive_group()
    planner.add_argument("--late-planner", metavar="SPEC",
                         help="a planner of the env that plays the hand's last turns, e.g. expert:16 (OFC)")
    planner.add_argument("--clear-late-planner", action="store_true", help="remove the policy's late planner")
    parser.add_argument("--late-turns", type=int, metavar="N",
                        help="how many of the hand's last regular turns the late planner plays (with --late-planner)")
    parser.add_argument("--shortlist", type=int, metavar="K",
                        help="on the earlier turns the late planner plays the best of the network's K most "
                             "probable placements (with --late-planner; OFC's expert)")
    parser.add_argument("--late-samples", metavar="S1,S2,...",
                        help="the late planner's samples on each of its late turns, first to last, one per "
                             "turn (with --late-planner); the spec's own budget plays the earlier turns")


def parse_samples(text: str) -> list[int]:
    """``"16,16,8,1"`` -> ``[16, 16, 8, 1]`` (the counts' ranges are checked with the setting)."""
    try:
        return [int(part) for part in text.split(",")]
    except ValueError:
        raise ConfigError(f"--late-samples {text!r}: expected integers separated by commas, e.g. 16,16,8,1") from None


def run(args: argparse.Namespace) -> int:
    from parlor.training.cli.convert import check_destination, written

    if not (args.guard or args.clear or args.late_planner or args.clear_late_planner
            or args.shortlist is not None or args.late_samples is not None):
        raise ConfigError("parlor shield: nothing to change; give --guard, --clear, --late-planner "
                          "or --clear-late-planner")
    if (args.late_planner is None) != (args.late_turns is None):
        raise ConfigError("parlor shield: --late-planner SPEC and --late-turns N go together")
    for flag, value in (("--shortlist K", args.shortlist), ("--late-samples S1,S2,...", args.late_samples)):
        if value is not None and args.late_planner is None:
            raise ConfigError(f"parlor shield: {flag} needs --late-planner SPEC --late-turns N")
    guard = {} if args.clear else parse_guard(args.guard) if args.guard else None
    planner: dict[str, Any] | None | bool = True  # kept
    if args.late_planner is not None:
        samples = None if args.late_samples is None else parse_samples(args.late_samples)
        planner = checked_setting(args.late_planner, args.late_turns, args.shortlist, samples)
    elif args.clear_late_planner:
        planner = None
    check_destination(args.dest)
    path = written(lambda: shield(args.source, args.dest, guard, planner), args.dest)
    saved = read_signature(path)
    print(f"{path}: action guard {action_guard(saved) or 'none'}, late planner {late_planner_of(saved) or 'none'}")
    return 0
