"""Gymnasium ids for the single-agent tasks: ``gymnasium.make("parlor/OFC-v0")``.

One id per environment, ``parlor/<Name>-v<N>`` after its entry module ``<name>_v<N>``
(:func:`gym_id`: ``ofc_v0`` -> ``parlor/OFC-v0``, ``buffalo_bill_v0`` ->
``parlor/BuffaloBill-v0``). Behind each id is :class:`SingleAgentEnv`: the learner
in one seat (rotated over every seat, episode by episode), every other seat played
by the game's rule-based ``heuristic`` agent, ``action_masks()`` for MaskablePPO.

Gymnasium 1.x has no plugin discovery (no entry-point group), so the ids exist once
this module is imported; importing :mod:`parlor.training.learning` does it, and
gymnasium's own ``"module:id"`` form imports it for you::

    import gymnasium
    import parlor.training.learning  # registers the parlor/... ids
    env = gymnasium.make("parlor/OFC-v0", variant="pineapple")
    env = gymnasium.make("parlor.training.learning:parlor/Tonk-v0")  # the same, without the import

Keywords of ``gymnasium.make``: the game's options (``variant="pineapple"``, or as a dict
``options={...}`` like :class:`SingleAgentEnv` takes them), ``preset`` (one of the env's
``PRESETS``; ``options`` and keywords override it), the adapter's
``illegal_action``/``illegal_reward`` and :class:`SingleAgentEnv`'s own arguments
(``opponents``, ``learner_seats``, ``seed``, ``reward_scale``, ``shaping``, ...).
Registering imports neither torch nor the games (the entry point is a string).
"""
from __future__ import annotations

import inspect
import re
from collections.abc import Mapping
from typing import Any

import gymnasium

from parlor import envs

NAMESPACE = "parlor"
ENTRY_POINT = "parlor.training.learning.registration:make_single_agent_env"
DEFAULT_OPPONENTS = (("heuristic", 1.0),)
_ACRONYMS = {"ofc": "OFC"}  # name parts written as acronyms, not capitalized words
_ENTRY_NAME = re.compile(r"([a-z][a-z_]*)_v(\d+)")


def gym_id(env_name: str) -> str:
    """``"ofc_v0"`` -> ``"parlor/OFC-v0"``: the Gymnasium id of a parlor env."""
    m = _ENTRY_NAME.fullmatch(env_name)
    if m is None:
        raise ValueError(f"{env_name!r} is not an env entry name like 'ofc_v0'")
    words = "".join(_ACRONYMS.get(w, w.capitalize()) for w in m[1].split("_"))
    return f"{NAMESPACE}/{words}-v{m[2]}"


def gym_ids() -> dict[str, str]:
    """Gymnasium id -> parlor env name, for every registered environment."""
    return {gym_id(name): name for name in envs.ENVS}


def register_gym_ids() -> None:
    """Put every ``parlor/...`` id in gymnasium's registry (again only if missing)."""
    for env_id, name in gym_ids().items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=ENTRY_POINT, kwargs={"env_name": name})


def _wrapper_arguments() -> tuple[str, ...]:
    from parlor.training.learning.wrapper import SingleAgentEnv

    params = inspect.signature(SingleAgentEnv.__init__).parameters
    return tuple(p for p in params if p not in ("self", "env_name", "options"))


def make_single_agent_env(env_name: str, preset: str | None = None, options: Mapping[str, Any] | None = None,
                          **kwargs: Any) -> Any:
    """The env behind ``parlor/<Name>-vN``: a :class:`SingleAgentEnv` against the heuristic
    table unless ``opponents`` says otherwise. Keywords that are not the wrapper's own
    arguments are game (or adapter) options; the game's config refuses unknown ones."""
    from parlor.envs.engine.game import ConfigError
    from parlor.training.learning.wrapper import SingleAgentEnv

    wrapper_args = _wrapper_arguments()
    wrapper = {k: kwargs.pop(k) for k in list(kwargs) if k in wrapper_args}
    wrapper.setdefault("opponents", DEFAULT_OPPONENTS)
    game_options: dict[str, Any] = {}
    if preset is not None:
        presets: Mapping[str, Mapping[str, Any]] = envs.load(env_name).PRESETS
        if preset not in presets:
            raise ConfigError(f"{gym_id(env_name)}: unknown preset {preset!r}; allowed values: {', '.join(presets)}")
        game_options.update(presets[preset])
    game_options.update(options or {})
    twice = sorted(set(options or {}) & set(kwargs))
    if twice:
        raise ConfigError(f"{gym_id(env_name)}: option(s) {twice} given both in options= and as keywords; give each once")
    game_options.update(kwargs)
    try:
        return SingleAgentEnv(env_name, game_options, **wrapper)
    except ConfigError as exc:
        raise ConfigError(f"{gym_id(env_name)}: {exc} (keywords of SingleAgentEnv: {', '.join(wrapper_args)}; "
                          "preset: one of the env's PRESETS)") from exc


register_gym_ids()
