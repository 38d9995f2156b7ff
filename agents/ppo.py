"""Trained MaskablePPO policies (SB3 zips) as agents; torch and sb3 are imported only on load.

Metadata hook: before loading a zip, :class:`PPOAgent` calls the metadata
check installed with ``set_metadata_check(fn)``: ``fn(path, game, env_name)``
raises (e.g. ``ValueError``) when the zip was trained for another env, other
options or another observation layout. The training pipeline owns the zip's
metadata and the check (``training.policy``: ``parlor.json`` inside the zip);
``parlor eval`` and ``parlor play`` install it, and agents never import
training. After loading, the policy's spaces must match the game's
(observation shape, number of actions) whatever check is installed.

Action guard: a policy trained with one (``action_guard`` in the zip's
metadata, e.g. ``{"foul": 0.0}``) was only ever allowed the actions the env's
advisor keeps (``agents.advisors``), so it plays with the same narrowed mask here.
"""
from __future__ import annotations

import json
import os
import zipfile
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from parlor.agents.advisors import advisor_for, check_guard, guarded
from parlor.envs.engine.game import Game

META_MEMBER = "parlor.json"  # the training pipeline's metadata inside a policy zip
MetadataCheck = Callable[[str, Any, str], None]  # (path, game, env_name); raises on a mismatch
_metadata_check: MetadataCheck | None = None
_models: dict[str, Any] = {}


def set_metadata_check(fn: MetadataCheck | None) -> MetadataCheck | None:
    """Install the check run on every policy zip before it is loaded; returns the previous one."""
    global _metadata_check
    previous, _metadata_check = _metadata_check, fn
    return previous


def check_spaces(model: Any, game: Game, path: str) -> None:
    """The policy's observation and action spaces must be the game's."""
    space = model.observation_space
    shape = space["observation"].shape if hasattr(space, "spaces") and "observation" in space.spaces else space.shape
    if tuple(shape) != tuple(game.observation_shape):
        raise ValueError(
            f"policy {path} expects observations of shape {tuple(shape)}, but {game.name} gives "
            f"{tuple(game.observation_shape)}: it was trained for another env or options"
        )
    n = getattr(model.action_space, "n", None)
    if n != game.num_actions:
        raise ValueError(
            f"policy {path} has {n} actions, but {game.name} has {game.num_actions}: "
            "it was trained for another env or options"
        )


def read_action_guard(path: str) -> dict[str, float]:
    """The action guard the policy in ``path`` was trained with ({} for none)."""
    with zipfile.ZipFile(path) as zf:
        if META_MEMBER not in zf.namelist():
            return {}
        return {str(k): float(v) for k, v in (json.loads(zf.read(META_MEMBER)).get("action_guard") or {}).items()}


def load_model(path: str) -> Any:
    """The MaskablePPO model in ``path`` (loaded once per process, then shared)."""
    key = os.path.abspath(path)
    if key not in _models:
        from sb3_contrib import MaskablePPO

        _models[key] = MaskablePPO.load(path, device="cpu")
    return _models[key]


class PPOAgent:
    """Acts with a trained MaskablePPO policy: ``predict(obs, action_masks=mask, deterministic=True)``."""

    def __init__(self, game: Game, path: str, env_name: str | None = None, seed: int | None = None,
                 model: Any = None, guard: Mapping[str, float] | None = None):
        self.game = game
        self.path = path
        if model is None:
            if not os.path.isfile(path):
                raise FileNotFoundError(f"no policy file {path!r} (ppo:<path-to-zip>)")
            if _metadata_check is not None:
                _metadata_check(path, game, env_name or game.name)
            model = load_model(path)
            if guard is None:
                guard = read_action_guard(path)
        self.guard = dict(guard or {})
        self.advisor = advisor_for(env_name or game.name, game)
        check_guard(self.advisor, self.guard, env_name or game.name)
        self.model = model
        check_spaces(model, game, path)
        self._dict_obs = hasattr(self.model.observation_space, "spaces")

    def reset(self, seed: int | None = None) -> None:
        pass  # deterministic policy: nothing to reseed

    def act(self, observation, action_mask, view, sample_world=None) -> int:
        mask = guarded(self.advisor, observation, np.asarray(action_mask, dtype=bool), self.guard, view)
        obs = {"observation": observation, "action_mask": mask.astype(np.int8)} if self._dict_obs else observation
        action, _ = self.model.predict(obs, action_masks=mask, deterministic=True)
        action = int(np.asarray(action).reshape(-1)[0])
        if not mask[action]:
            raise ValueError(f"policy {self.path} chose illegal action {action} ({self.game.action_name(action)})")
        return action
