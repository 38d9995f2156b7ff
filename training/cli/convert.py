"""``parlor convert OLD.zip NEW.zip``: a policy file of format 1 (the SB3 zips that parlor
wrote before format 2) rewritten in the current format.

Format 1 files hold pickled Python objects, which parlor no longer loads: a copy with
one crafted entry would run code. Converting reads none of them (only JSON and the
tensors, through ``torch.load(weights_only=True)``; see :mod:`parlor.agents.policy_legacy`),
so it is as safe as loading a new file; the new file has the same signature, weights,
step count and action guard, and plays the same moves.
"""
from __future__ import annotations

import argparse
import sys

from parlor.envs.engine.game import ConfigError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", help="a policy zip of format 1 (an SB3 zip written by parlor train before format 2)")
    parser.add_argument("dest", help="where to write the policy in the current format (may equal source)")


def run(args: argparse.Namespace) -> int:
    from parlor.agents.policy import PolicyFileError, PolicyMismatchError, convert_sb3_policy
    from parlor.agents.policy_legacy import read_sb3_zip
    from parlor.training.learning.wrapper import make_raw_env  # also knows envs registered for tests

    try:
        header = read_sb3_zip(args.source)[0]
        game = make_raw_env(str(header.get("env")), header.get("options") or {}).game
        path = convert_sb3_policy(args.source, args.dest, game)
    except (ConfigError, PolicyFileError, PolicyMismatchError, FileNotFoundError) as exc:
        print(f"parlor convert: {exc}", file=sys.stderr)
        return 2
    print(f"{path}: policy format 2 (parlor.json + weights.safetensors), converted from {args.source}")
    return 0
