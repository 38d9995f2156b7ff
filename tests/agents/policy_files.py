"""Policy files for tests: small real ones, damaged copies, and hostile ones whose payload
(a pickle that creates a marker file when unpickled) shows whether anything unpickled them."""
from __future__ import annotations

import base64
import json
import pickle
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from parlor.agents.policy import architecture_for, save_policy_weights, signature
from parlor.envs.engine.game import Game


class Payload:
    """Unpickling this opens ``marker`` for writing, i.e. creates the file: code ran."""

    def __init__(self, marker: str | Path):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def payload(marker: str | Path) -> bytes:
    return pickle.dumps(Payload(marker))


def tiny_policy(path: Path, game: Game, hidden: tuple[int, ...] = (8,), activation: str = "tanh",
                seed: int = 0, **meta: Any) -> Path:
    """A real policy file for ``game`` with random weights."""
    import torch

    arch = architecture_for(game, hidden, activation)
    torch.manual_seed(seed)
    with torch.no_grad():
        weights = {k: torch.randn_like(v) for k, v in arch.build().state_dict().items()}
    return save_policy_weights(weights, arch, path, game, **meta)


def rewrite_zip(source: Path, dest: Path, replace: Mapping[str, bytes | None] | None = None) -> Path:
    """A copy of the zip ``source`` with members replaced (bytes), removed (None) or added."""
    with zipfile.ZipFile(source) as src:
        members = {name: src.read(name) for name in src.namelist()}
    for name, data in (replace or {}).items():
        if data is None:
            members.pop(name, None)
        else:
            members[name] = data
    with zipfile.ZipFile(dest, "w", compression=zipfile.ZIP_DEFLATED) as dst:
        for name, data in members.items():
            dst.writestr(name, data)
    return dest


def header_of(path: Path) -> dict[str, Any]:
    with zipfile.ZipFile(path) as zf:
        return json.loads(zf.read("parlor.json"))


def sb3_zip(path: Path, game: Game, marker: str | Path | None = None) -> Path:
    """A policy file of the old format 1 (``MaskablePPO.save`` plus parlor.json), as parlor
    wrote them before; with ``marker``, its ``data`` also carries a pickled entry that
    creates ``marker`` when ``MaskablePPO.load`` unpickles it (the attack of issue 23)."""
    import gymnasium
    import torch
    from gymnasium import spaces
    from sb3_contrib import MaskablePPO

    obs_shape, n = tuple(game.observation_shape), int(game.num_actions)

    class Dummy(gymnasium.Env):
        observation_space = spaces.Box(*game.observation_bounds, obs_shape, np.float32)
        action_space = spaces.Discrete(n)

        def reset(self, *, seed=None, options=None):
            return np.zeros(obs_shape, np.float32), {}

        def step(self, action):
            return np.zeros(obs_shape, np.float32), 0.0, True, False, {}

        def action_masks(self):
            return np.ones(n, bool)

    model = MaskablePPO("MlpPolicy", Dummy(), n_steps=16, batch_size=16, seed=0, device="cpu",
                        policy_kwargs={"net_arch": {"pi": [8], "vf": [8]}, "activation_fn": torch.nn.ReLU})
    model.save(str(path))
    old = {"format": 1, **signature(game), "num_timesteps": 16, "inference_only": True}
    replace: dict[str, bytes | None] = {"parlor.json": json.dumps(old).encode()}
    if marker is not None:
        with zipfile.ZipFile(path) as zf:
            data = json.loads(zf.read("data"))
        data["extra_entry"] = {":type:": "<class 'object'>", ":serialized:": base64.b64encode(payload(marker)).decode()}
        replace["data"] = json.dumps(data).encode()
    return rewrite_zip(path, path, replace)
