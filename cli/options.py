"""Game options from the command line (``--preset`` and repeatable ``--option KEY=VALUE``),
shared by ``parlor eval`` and ``parlor play``, and from a trained policy's file (:func:`policy_game`)."""
from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import Any


def add_game_option_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--preset", help="use one of the env's PRESETS as the game options")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a game option (YAML value), e.g. --option variant=pineapple; repeatable")


def game_options(env_name: str, preset: str | None, items: Sequence[str],
                 base: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``base`` updated by the preset's options, then by each ``KEY=VALUE`` (values are YAML)."""
    from parlor import envs
    from parlor.envs.engine.config import parse_yaml
    from parlor.envs.engine.game import ConfigError

    options = dict(base or {})
    if preset:
        presets = envs.load(env_name).PRESETS
        if preset not in presets:
            raise ConfigError(f"unknown preset {preset!r} for {env_name}; allowed values: {', '.join(presets)}")
        options.update(presets[preset])
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ConfigError(f"--option {item!r} must look like KEY=VALUE")
        options[key.strip()] = parse_yaml(value, f"--option {key.strip()}")
    return options


def option_flags(options: Mapping[str, Any]) -> list[str]:
    """``--option KEY=VALUE`` arguments (YAML values) that :func:`game_options` reads back."""
    import yaml

    flags: list[str] = []
    for key, value in options.items():
        text = yaml.safe_dump(value, default_flow_style=True).strip().removesuffix("...").strip()
        flags += ["--option", f"{key}={text}"]
    return flags


def policy_game(path: str) -> tuple[str, dict[str, Any]]:
    """(env name, game options) a policy file was trained with, from its signature."""
    from parlor.agents.policy import read_signature

    signature = read_signature(path)
    return signature["env"], dict(signature["options"])


def game_from_policy(path: str, game: str | None, preset: str | None, items: Sequence[str]) -> tuple[str, dict[str, Any]]:
    """``--game-from POLICY.zip``: (env name, game options) of the policy, which sets them all, so
    ``--preset``/``--option`` are refused and a GAME given too must be the policy's."""
    from parlor.envs.engine.game import ConfigError

    env, trained = policy_game(path)
    if preset or items:
        raise ConfigError(f"--game-from {path} sets every game option; leave out --preset and --option")
    if game and game != env:
        raise ConfigError(f"GAME {game!r} contradicts {path}, trained on {env!r}")
    return env, trained
