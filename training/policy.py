"""Trained policies on disk: the signature a saved zip carries, checked loading,
and the ``Agent`` face of a policy (for self-play snapshots and evaluation).

A MaskablePPO zip written by :func:`save_policy` holds one extra member,
``parlor.json``, next to SB3's own files (SB3 ignores it)::

    {"format": 1, "env": "ofc_v0", "options": {...the game's full config...},
     "observation_shape": [..], "num_actions": N, "layout_version": "ofc_v0/1",
     "num_timesteps": ..., "action_guard": {...}}   # the guard only if trained with one

:func:`load_policy` refuses a zip whose signature does not match the env it is
loaded into, with a message naming every difference. torch and sb3 are
imported only inside functions.
"""
from __future__ import annotations

import dataclasses
import json
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from parlor.agents.advisors import advisor_for, check_guard, guarded
from parlor.agents.ppo import META_MEMBER, read_action_guard
from parlor.envs.engine.game import Game

SIGNATURE_MEMBER = META_MEMBER
SIGNATURE_FORMAT = 1
SIGNATURE_KEYS = ("env", "layout_version", "observation_shape", "num_actions", "options")


class PolicyMismatchError(ValueError):
    """A saved policy was loaded into an env other than the one it was trained on."""


def _jsonable(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return [_jsonable(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def layout_version(env_name: str, game: Game) -> str:
    """The observation layout's version: the env's ``_vN`` plus the game's own
    ``observation_version`` when it declares one (bumped when encode changes)."""
    own = game.observation_version
    return env_name if own is None else f"{env_name}/{own}"


def signature(env_name: str, game: Game) -> dict[str, Any]:
    """What a policy trained on ``game`` needs to be true of the env it plays in."""
    config = game.config
    options = {f.name: getattr(config, f.name) for f in dataclasses.fields(config)} if dataclasses.is_dataclass(config) else {}
    return {
        "env": env_name,
        "layout_version": layout_version(env_name, game),
        "observation_shape": [int(n) for n in game.observation_shape],
        "num_actions": int(game.num_actions),
        "options": _jsonable(options),
    }


def write_signature(path: str | Path, sig: Mapping[str, Any], **extra: Any) -> None:
    """Add (or replace) ``parlor.json`` in an SB3 zip."""
    path = Path(path)
    payload = json.dumps({"format": SIGNATURE_FORMAT, **sig, **_jsonable(extra)}, indent=1, sort_keys=True)
    with zipfile.ZipFile(path) as zf:
        members = {n: zf.read(n) for n in zf.namelist() if n != SIGNATURE_MEMBER}
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        zf.writestr(SIGNATURE_MEMBER, payload)


def read_signature(path: str | Path) -> dict[str, Any]:
    """The signature stored in a policy zip; a clear error for a zip without one."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no policy file {str(path)!r}")
    with zipfile.ZipFile(path) as zf:
        if SIGNATURE_MEMBER not in zf.namelist():
            raise PolicyMismatchError(
                f"{path} has no {SIGNATURE_MEMBER}: it was not saved by `parlor train`, so its env and "
                "observation layout are unknown"
            )
        return json.loads(zf.read(SIGNATURE_MEMBER))


def check_signature(saved: Mapping[str, Any], expected: Mapping[str, Any], path: str | Path = "policy") -> None:
    """Raise :class:`PolicyMismatchError` naming each field where ``saved`` and ``expected`` differ."""
    problems = []
    for key in SIGNATURE_KEYS:
        if key == "options":
            continue
        if saved.get(key) != expected.get(key):
            problems.append(f"{key}: trained on {saved.get(key)!r}, loading into {expected.get(key)!r}")
    saved_opts, want_opts = saved.get("options", {}), expected.get("options", {})
    for name in sorted(set(saved_opts) | set(want_opts)):
        if saved_opts.get(name) != want_opts.get(name):
            problems.append(f"option {name}: trained with {saved_opts.get(name)!r}, loading into {want_opts.get(name)!r}")
    if problems:
        raise PolicyMismatchError(f"{path} does not fit this env: " + "; ".join(problems))


def save_policy(model: Any, path: str | Path, env_name: str, game: Game, **extra: Any) -> Path:
    """``model.save`` plus the signature; returns the zip's path."""
    path = Path(path)
    if path.suffix != ".zip":
        path = path.with_suffix(".zip")
    path.parent.mkdir(parents=True, exist_ok=True)
    model.save(str(path))
    write_signature(path, signature(env_name, game), num_timesteps=int(model.num_timesteps), **extra)
    return path


def export_policy(model: Any, path: str | Path, env_name: str, game: Game, **extra: Any) -> Path:
    """A small inference-only zip (for shipping): the network without the optimizer's
    moment estimates (a fresh optimizer state is stored instead, so ``load`` and
    ``parlor eval`` work unchanged; continue training from a checkpoint instead)."""
    policy = model.policy
    saved = policy.optimizer
    policy.optimizer = policy.optimizer_class(policy.parameters(), lr=1e-4, **policy.optimizer_kwargs)
    try:
        return save_policy(model, path, env_name, game, inference_only=True, **extra)
    finally:
        policy.optimizer = saved


def load_policy(path: str | Path, env_name: str, options: Mapping[str, Any] | None = None, game: Game | None = None) -> Any:
    """Load a MaskablePPO zip for ``env_name`` with game ``options`` (or an already built
    ``game``); raises :class:`PolicyMismatchError` if it was trained on another env,
    other options or another observation layout."""
    if game is None:
        from parlor.training.wrapper import make_raw_env  # also knows envs registered for tests

        game = make_raw_env(env_name, options).game
    check_signature(read_signature(path), signature(env_name, game), path)
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(str(path), device="cpu")
    if tuple(model.observation_space.shape) != tuple(game.observation_shape) or model.action_space.n != game.num_actions:
        raise PolicyMismatchError(
            f"{path}: network expects observations {model.observation_space.shape} and {model.action_space.n} "
            f"actions; {env_name} gives {game.observation_shape} and {game.num_actions}"
        )
    return model


class PolicyAgent:
    """A trained policy as an :class:`agents.base.Agent`: masked, from the observation only.

    Stochastic play samples the masked action distribution with the agent's own
    seeded generator (never the global torch RNG, so it cannot disturb training).
    """

    def __init__(self, policy: Any, deterministic: bool = False, seed: int | None = None, name: str = "ppo",
                 game: Game | None = None, guard: Mapping[str, float] | None = None, env_name: str | None = None):
        self.policy = getattr(policy, "policy", policy)  # an sb3 model or its policy
        self.game, self.guard, self.advisor = game, dict(guard or {}), None
        if self.guard:
            if game is None or env_name is None:
                raise ValueError("PolicyAgent: an action guard needs the game and the env name (its advisor)")
            self.advisor = advisor_for(env_name, game)
            check_guard(self.advisor, self.guard, env_name)
        self.deterministic = deterministic
        self.name = name
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def probabilities(self, observation: np.ndarray, action_mask: np.ndarray, view: Any = None) -> np.ndarray:
        """The policy's masked action probabilities (zero on illegal actions); ``view``
        (the seat's) for a guard that judges the board."""
        import torch

        mask = guarded(self.advisor, observation, np.asarray(action_mask, dtype=bool), self.guard, view)
        if not mask.any():
            raise ValueError("PolicyAgent: no legal action in the mask")
        obs, _ = self.policy.obs_to_tensor(np.asarray(observation, dtype=np.float32))
        with torch.no_grad():
            dist = self.policy.get_distribution(obs, action_masks=mask[None, :])
            probs = dist.distribution.probs[0].cpu().numpy().astype(np.float64)
        probs[~mask] = 0.0
        return probs / probs.sum()

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: Any = None, sample_world: Any = None) -> int:
        probs = self.probabilities(observation, action_mask, view)
        if self.deterministic:
            return int(np.argmax(probs))
        return int(self.rng.choice(probs.size, p=probs))


def policy_agent_from_zip(path: str | Path, env_name: str, game: Game, deterministic: bool = False, seed: int | None = None) -> PolicyAgent:
    """A frozen snapshot (or any saved policy) as an opponent for ``game``."""
    model = load_policy(path, env_name, game=game)
    return PolicyAgent(model.policy, deterministic=deterministic, seed=seed, name=f"ppo:{Path(path).name}",
                       game=game, guard=read_action_guard(str(path)), env_name=env_name)
