"""parlor environments: the registry of every PettingZoo environment.

Entry modules ``envs/<name>_v<N>.py`` are discovered automatically; each
offers ``env(**options)``, ``raw_env(**options)``, ``make_game(**options)`` (the Game
alone, whose ``Game.name`` is the env id) and ``PRESETS``. A game of another
package joins the registry through the ``parlor.envs`` entry-point group of its
distribution (``<name>_v<N> = "package.module"``, docs/adding_a_game.md) or, in one
process, through :func:`register`.

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

ENTRY_POINT_GROUP = "parlor.envs"

# the games of this package, found by their entry modules' names
BUILTIN: tuple[str, ...] = tuple(sorted(m.name for m in pkgutil.iter_modules(__path__) if _ENTRY.fullmatch(m.name)))
# (every env name, sorted; env name -> entry module of each game from another package), built
# on first use: reading the installed distributions' entry points costs tens of milliseconds
_REGISTRY: tuple[list[str], dict[str, str]] | None = None


def _registry() -> tuple[list[str], dict[str, str]]:
    global _REGISTRY
    if _REGISTRY is None:
        import importlib.metadata

        _REGISTRY = (list(BUILTIN), {})
        for point in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
            register(point.name, point.value)
    return _REGISTRY


def __getattr__(name: str) -> Any:
    """``ENVS`` (every env name, sorted) and ``EXTERNAL`` (env name -> entry module of each game
    registered from another package), read from the registry when first asked for."""
    if name == "ENVS":
        return _registry()[0]
    if name == "EXTERNAL":
        return _registry()[1]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def register(name: str, module: str) -> None:
    """Add the env ``name`` (``<game>_v<N>``) whose entry module (``env``, ``raw_env``,
    ``make_game``, ``PRESETS``) is importable as ``module``; registering the same pair again is a no-op."""
    from parlor.envs.engine.game import ConfigError, shown

    if not isinstance(name, str) or not _ENTRY.fullmatch(name):
        raise ConfigError(f"env name {shown(name)} must look like <game>_v<N> (lowercase letters and _, then _v and a number)")
    if not isinstance(module, str) or not module or ":" in module:
        raise ConfigError(f"entry module {shown(module)} of {shown(name)} must be an import path such as 'my_game.kuhn_v0'")
    names, external = _registry()
    if external.get(name, module) != module or (name in names and name not in external):
        where = external.get(name, f"parlor.envs.{name}")
        raise ConfigError(f"env {name!r} is already registered (entry module {where}); choose another name")
    if name not in external:
        external[name] = module
        names.append(name)
        names.sort()


def load(name: str) -> ModuleType:
    """The entry module of environment ``name``."""
    if isinstance(name, str) and name in BUILTIN:  # no need to read the installed entry points
        return importlib.import_module(f"parlor.envs.{name}")
    names, external = _registry()
    if not isinstance(name, str) or name not in names:
        from parlor.envs.engine.game import ConfigError, shown

        raise ConfigError(f"unknown environment {shown(name)}; available: {', '.join(names) or 'none'}")
    return importlib.import_module(external[name])


def make(name: str, **options: Any):
    """``envs.make("ofc_v0", variant="pineapple")``: the wrapped AEC environment."""
    return load(name).env(**options)


def make_raw(name: str, **options: Any):
    return load(name).raw_env(**options)


def make_game(name: str, **options: Any) -> Game:
    """The framework-free Game object of env ``name`` from its entry module's
    ``make_game(**options)``, built without the AEC adapter (no adapter options allowed);
    its ``Game.name`` is ``name``."""
    from parlor.envs.aec import named_game
    from parlor.envs.engine.game import ConfigError

    module = load(name)
    factory = getattr(module, "make_game", None)
    if not callable(factory):
        raise ConfigError(f"entry module {module.__name__} of env {name!r} has no make_game(**options) building "
                          f"its Game (docs/adding_a_game.md)")
    return named_game(name, factory(**options))


def load_env_config(path: str) -> tuple[str, dict[str, Any]]:
    """Read a YAML env config ``{env: NAME, options: {...}}`` strictly and validate it."""
    from parlor.envs.engine.config import load_yaml
    from parlor.envs.engine.game import ConfigError

    data = load_yaml(path)
    unknown = sorted(set(data) - {"env", "options"})
    if unknown:
        raise ConfigError(f"{path}: unknown key(s) {unknown}; allowed keys: env, options")
    if "env" not in data:
        raise ConfigError(f"{path}: missing key 'env'; allowed values: {', '.join(_registry()[0])}")
    name, options = data["env"], data.get("options") or {}
    if not isinstance(options, dict):
        raise ConfigError(f"{path}: 'options' must be a mapping of option names to values")
    make_raw(name, **options)  # validates every option against the game's config dataclass
    return name, options
