"""``parlor convert OLD.zip NEW.zip``: a policy file of format 1 (the SB3 zips that parlor
wrote before format 2) rewritten in the current format.

Format 1 files hold pickled Python objects, which parlor no longer loads: a copy with
one crafted entry would run code. Converting reads none of them (only JSON and the
tensors, through ``torch.load(weights_only=True)``; see :mod:`parlor.agents.policy_legacy`),
so it is as safe as loading a new file; the new file has the same signature, weights,
step count and action guard, and plays the same moves. Bad input (a file that is not a
format-1 policy, a destination that is a folder or read-only) is a ConfigError: one line.
"""
from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path

from parlor.envs.engine.game import ConfigError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", help="a policy zip of format 1 (an SB3 zip written by parlor train before format 2)")
    parser.add_argument("dest", help="where to write the policy in the current format (may equal source)")


def check_destination(dest: str) -> None:
    """``dest`` can take a new file: not a folder, in a folder that exists and is writable
    (checked before any work; a write that fails later is reported as one line too)."""
    path = Path(dest)
    if path.is_dir():
        raise ConfigError(f"{dest}: is a folder; give the new policy file's name, e.g. {path / 'policy.zip'}")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise ConfigError(f"{dest}: its folder {parent} does not exist")
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise ConfigError(f"{dest}: cannot be written here (no write permission)")


def written(write: Callable[[], Path], dest: str) -> Path:
    """``write()``, with an OSError on ``dest`` (a read-only disk, a full one) as a ConfigError line."""
    try:
        return write()
    except OSError as exc:
        raise ConfigError(f"{dest}: cannot be written ({exc.strerror or exc}); nothing was changed") from None


def run(args: argparse.Namespace) -> int:
    from parlor.agents.policy import convert_sb3_policy
    from parlor.agents.policy_legacy import read_sb3_zip
    from parlor.training.learning.wrapper import make_env_game  # also knows envs registered for tests

    check_destination(args.dest)
    header = read_sb3_zip(args.source)[0]
    game = make_env_game(header["env"], header.get("options") or {})
    path = written(lambda: convert_sb3_policy(args.source, args.dest, game), args.dest)
    print(f"{path}: policy format 2 (parlor.json + weights.safetensors), converted from {args.source}")
    return 0
