"""parlor environments: the registry of every PettingZoo environment.

Entry modules ``envs/<name>_v<N>.py`` are discovered automatically; each
offers ``env(**options)``, ``raw_env(**options)`` and ``PRESETS``.

>>> from parlor import envs
>>> envs.ENVS            # doctest: +SKIP
['austrian_dominoes_v0', 'buffalo_bill_v0', ...]
>>> env = envs.make("ofc_v0", variant="pineapple")   # doctest: +SKIP
"""
from __future__ import annotations

import importlib
import pkgutil
import re
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from parlor.envs.engine.game import Game

_ENTRY = re.compile(r"[a-z][a-z_]*_v\d+")

ENVS: list[str] = sorted(m.name for m in pkgutil.iter_modules(__path__) if _ENTRY.fullmatch(m.name))


def load(name: str) -> ModuleType:
    """The entry module of environment ``name``."""
    if not isinstance(name, str) or name not in ENVS:
        from parlor.envs.engine.game import ConfigError, shown

        raise ConfigError(f"unknown environment {shown(name)}; available: {', '.join(ENVS) or 'none'}")
    return importlib.import_module(f"parlor.envs.{name}")


def make(name: str, **options: Any):
    """``envs.make("ofc_v0", variant="pineapple")``: the wrapped AEC environment."""
    return load(name).env(**options)


def make_raw(name: str, **options: Any):
    return load(name).raw_env(**options)


def make_game(name: str, **options: Any) -> Game:
    """The framework-free Game object (no adapter options allowed)."""
    module = load(name)
    return module.raw_env(**options).game


def load_env_config(path: str) -> tuple[str, dict[str, Any]]:
    """Read a YAML env config ``{env: NAME, options: {...}}`` strictly and validate it."""
    from parlor.envs.engine.config import load_yaml
    from parlor.envs.engine.game import ConfigError

    data = load_yaml(path)
    unknown = sorted(set(data) - {"env", "options"})
    if unknown:
        raise ConfigError(f"{path}: unknown key(s) {unknown}; allowed keys: env, options")
    if "env" not in data:
        raise ConfigError(f"{path}: missing key 'env'; allowed values: {', '.join(ENVS)}")
    name, options = data["env"], data.get("options") or {}
    if not isinstance(options, dict):
        raise ConfigError(f"{path}: 'options' must be a mapping of option names to values")
    make_raw(name, **options)  # validates every option against the game's config dataclass
    return name, options
