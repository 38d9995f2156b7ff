"""Trained policies: the one owner of policy files (save, load, check) and the policy agent.

A policy file records what it was trained on (its *signature*: env, the game's
full options, observation shape and layout version, number of actions) plus
metadata (steps trained, an action guard). :func:`load_policy` is the one
loader: it always checks the signature against the env the policy is loaded
into and refuses a mismatch with a :class:`PolicyMismatchError` naming every
difference (but in the options the game declares portable, ``Game.portable_options``:
an OFC policy plays any number of hands), then checks the network's spaces. :class:`PolicyAgent` plays a
policy as an :class:`~parlor.agents.base.Agent` (the agent spec ``ppo:PATH.zip``
of :mod:`parlor.agents.registry`, self-play snapshots, the learner's evaluation).

Solved decisions: where the env's advisor solves a decision exactly (``solved_action``,
e.g. OFC's Fantasyland hands) the policy agent plays the solution, as the learner's
seat did in training (``training.learning.wrapper``).

Action guard: a policy trained with one (``action_guard``, e.g. ``{"foul": 0.0}``)
was only ever allowed the actions the env's advisor keeps (:mod:`parlor.agents.advisors`),
so it plays with the same narrowed mask wherever it is loaded.

The file format lives in one section below (:func:`save_policy`,
:func:`read_signature`, ...): today an SB3 MaskablePPO zip with one extra member,
``parlor.json``::

    {"format": 1, "env": "ofc_v0", "options": {...the game's full config...},
     "observation_shape": [..], "num_actions": N, "layout_version": "ofc_v0/1",
     "num_timesteps": ..., "action_guard": {...}}   # the guard only if trained with one

torch and sb3 are imported only inside functions.
"""
from __future__ import annotations

import dataclasses
import functools
import json
import os
import shutil
import zipfile
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from parlor.agents.advisors import advisor_for, check_guard, guarded, solved_action
from parlor.envs.engine.game import Game

SIGNATURE_KEYS = ("env", "layout_version", "observation_shape", "num_actions", "options")
SHARED_MODELS = 8  # networks kept per process for agents (evaluation workers load each file once)


class PolicyMismatchError(ValueError):
    """A saved policy was loaded into an env other than the one it was trained on."""


# ---------------------------------------------------------------- the signature
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


def check_signature(saved: Mapping[str, Any], expected: Mapping[str, Any], path: str | Path = "policy",
                    portable: Collection[str] = ()) -> None:
    """Raise :class:`PolicyMismatchError` naming each field where ``saved`` and ``expected`` differ;
    the options in ``portable`` (the game's ``portable_options``) may differ."""
    problems = []
    for key in SIGNATURE_KEYS:
        if key == "options":
            continue
        if saved.get(key) != expected.get(key):
            problems.append(f"{key}: trained on {saved.get(key)!r}, loading into {expected.get(key)!r}")
    saved_opts, want_opts = saved.get("options", {}), expected.get("options", {})
    for name in sorted(set(saved_opts) | set(want_opts)):
        if name not in portable and saved_opts.get(name) != want_opts.get(name):
            problems.append(f"option {name}: trained with {saved_opts.get(name)!r}, loading into {want_opts.get(name)!r}")
    if problems:
        raise PolicyMismatchError(f"{path} does not fit this env: " + "; ".join(problems))


# ---------------------------------------------------------------- action guards
def action_guard(saved: Mapping[str, Any]) -> dict[str, float]:
    """The action guard recorded in a policy's signature ({} for none)."""
    return {str(k): float(v) for k, v in (saved.get("action_guard") or {}).items()}


# ---------------------------------------------------------------- the file format
# Everything that knows how a policy is stored is in this section.
SIGNATURE_MEMBER = "parlor.json"
SIGNATURE_FORMAT = 1


def write_signature(path: str | Path, sig: Mapping[str, Any], **extra: Any) -> None:
    """Add (or replace) the signature and metadata of the policy file ``path``."""
    path = Path(path)
    payload = json.dumps({"format": SIGNATURE_FORMAT, **sig, **_jsonable(extra)}, indent=1, sort_keys=True)
    with zipfile.ZipFile(path) as zf:
        members = {n: zf.read(n) for n in zf.namelist() if n != SIGNATURE_MEMBER}
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        zf.writestr(SIGNATURE_MEMBER, payload)


def read_signature(path: str | Path) -> dict[str, Any]:
    """The signature and metadata stored in a policy file; a clear error for a file without one."""
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


def _read_model(path: str | Path) -> Any:
    from sb3_contrib import MaskablePPO

    return MaskablePPO.load(str(path), device="cpu")


def save_policy(model: Any, path: str | Path, env_name: str, game: Game, **extra: Any) -> Path:
    """Save ``model`` (a MaskablePPO) with the signature of ``game``; returns the file's path."""
    path = Path(path)
    if path.suffix != ".zip":
        path = path.with_suffix(".zip")
    path.parent.mkdir(parents=True, exist_ok=True)
    model.save(str(path))
    write_signature(path, signature(env_name, game), num_timesteps=int(model.num_timesteps), **extra)
    return path


def export_policy(model: Any, path: str | Path, env_name: str, game: Game, **extra: Any) -> Path:
    """A small inference-only file (for shipping): the network without the optimizer's
    moment estimates (a fresh optimizer state is stored instead, so loading works
    unchanged; continue training from a checkpoint instead)."""
    policy = model.policy
    saved = policy.optimizer
    policy.optimizer = policy.optimizer_class(policy.parameters(), lr=1e-4, **policy.optimizer_kwargs)
    try:
        return save_policy(model, path, env_name, game, inference_only=True, **extra)
    finally:
        policy.optimizer = saved


def shield_policy(source: str | Path, dest: str | Path, guard: Mapping[str, float], game: Game) -> Path:
    """Copy the policy file ``source`` to ``dest`` (which may be ``source``) with ``guard`` as
    its action guard, replacing any it had ({} removes it); the network is untouched.
    ``game`` is the policy's own game: a guard its env's advisor cannot apply raises ConfigError."""
    saved = read_signature(source)
    check_guard(advisor_for(saved["env"], game), guard, saved["env"])
    dest = Path(dest)
    if dest.resolve() != Path(source).resolve():
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, dest)
    kept = {k: v for k, v in saved.items() if k not in ("format", "action_guard")}
    write_signature(dest, kept, **({"action_guard": dict(guard)} if guard else {}))
    return dest


# ---------------------------------------------------------------- loading
@functools.lru_cache(maxsize=SHARED_MODELS)
def _shared_model(path: str, mtime_ns: int, size: int) -> Any:
    return _read_model(path)


def load_policy(path: str | Path, env_name: str, game: Game, shared: bool = False) -> Any:
    """The MaskablePPO in ``path``, checked for ``game`` of env ``env_name``: raises
    :class:`PolicyMismatchError` if it was trained on another env, other options (but the
    game's ``portable_options``, e.g. OFC's number of hands) or another observation layout. ``shared=True`` returns the process's read-only copy
    (agents: each file is read once); otherwise a fresh model (to train on)."""
    check_signature(read_signature(path), signature(env_name, game), path, game.portable_options)
    if shared:
        key = os.path.abspath(path)
        stat = os.stat(key)
        model = _shared_model(key, stat.st_mtime_ns, stat.st_size)
    else:
        model = _read_model(path)
    space = model.observation_space
    if tuple(space.shape or ()) != tuple(game.observation_shape) or getattr(model.action_space, "n", None) != game.num_actions:
        raise PolicyMismatchError(
            f"{path}: network expects observations {space.shape} and {getattr(model.action_space, 'n', None)} "
            f"actions; {env_name} gives {tuple(game.observation_shape)} and {game.num_actions}"
        )
    return model


# ---------------------------------------------------------------- the agent
class PolicyAgent:
    """A trained policy as an :class:`~parlor.agents.base.Agent`: masked, from the observation.

    Deterministic play takes the most probable legal action; stochastic play samples
    the masked action distribution with the agent's own seeded generator (never the
    global torch RNG, so it cannot disturb training). ``guard`` narrows the mask
    with the ``guarded_mask`` of the env's advisor (the game and ``env_name`` are needed then).
    With the game and ``env_name`` the decisions the advisor solves (``solved_action``) are
    played as solved.
    """

    def __init__(self, policy: Any, game: Game | None = None, deterministic: bool = True, seed: int | None = None,
                 name: str = "ppo", guard: Mapping[str, float] | None = None, env_name: str | None = None):
        self.policy = getattr(policy, "policy", policy)  # an sb3 model or its policy
        self.game, self.guard = game, dict(guard or {})
        self.advisor = advisor_for(env_name, game) if game is not None and env_name is not None else None
        if self.guard:
            if self.advisor is None and (game is None or env_name is None):
                raise ValueError("PolicyAgent: an action guard needs the game and the env name (its advisor)")
            check_guard(self.advisor, self.guard, env_name)
        self.deterministic = deterministic
        self.name = name
        self.rng = np.random.default_rng(seed)

    @classmethod
    def from_file(cls, path: str | Path, env_name: str, game: Game, deterministic: bool = True,
                  seed: int | None = None) -> PolicyAgent:
        """The policy saved at ``path`` (checked by :func:`load_policy`) with the guard it carries."""
        model = load_policy(path, env_name, game, shared=True)
        return cls(model.policy, game, deterministic=deterministic, seed=seed, name=f"ppo:{path}",
                   guard=action_guard(read_signature(path)), env_name=env_name)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def probabilities(self, observation: np.ndarray, action_mask: np.ndarray, view: Any = None) -> np.ndarray:
        """The policy's masked action probabilities (zero on illegal actions); ``view``
        (the seat's) for a guard that judges the board."""
        import torch

        mask = guarded(self.advisor, observation, np.asarray(action_mask, dtype=bool), self.guard, view)
        if not mask.any():
            raise ValueError(f"{self.name}: no legal action in the mask")
        obs, _ = self.policy.obs_to_tensor(np.asarray(observation, dtype=np.float32))
        with torch.no_grad():
            dist = self.policy.get_distribution(obs, action_masks=mask[None, :])
            probs = dist.distribution.probs[0].cpu().numpy().astype(np.float64)
        probs[~mask] = 0.0
        return probs / probs.sum()

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: Any = None, sample_world: Any = None) -> int:
        solved = solved_action(self.advisor, view) if view is not None else None
        if solved is not None:
            return solved
        probs = self.probabilities(observation, action_mask, view)
        if self.deterministic:
            return int(np.argmax(probs))
        return int(self.rng.choice(probs.size, p=probs))
