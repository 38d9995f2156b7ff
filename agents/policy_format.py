"""The bytes of a policy file: the one place that reads and writes them (for :mod:`parlor.agents.policy`).

A policy file is a zip (the ``.zip`` name users know) with exactly two members::

    parlor.json           the header (JSON): format, the env signature, the architecture, metadata
    weights.safetensors   the network's tensors, named as in sb3-contrib's MaskableActorCriticPolicy

and a training checkpoint (``checkpoints/*.zip``, ``model.zip``) has a third,
``optimizer.safetensors`` (Adam's moment estimates, for ``--resume``), announced by a
``checkpoint`` entry in the header. The header, format 2::

    {"format": 2, "env": "ofc_v0", "layout_version": "ofc_v0/2", "observation_shape": [584],
     "num_actions": 4, "options": {...the game's full config...},
     "architecture": {"policy": "MaskableActorCriticPolicy", "pi": [256, 256], "vf": [256, 256],
                      "activation": "relu", "observation_shape": [584], "observation_low": 0.0,
                      "observation_high": 1.0, "num_actions": 4},
     "num_timesteps": 1200064,
     "action_guard": {...},            # only if it plays inside a guard
     "metadata": {...},                # free-form JSON (e.g. where a converted file came from)
     "checkpoint": {"n_updates": 40}}  # only in a checkpoint

Nothing here unpickles: the header is JSON, the tensors are safetensors (a JSON table
plus raw numbers), and the network is rebuilt from the architecture, whose class and
activation come from allow-lists, then filled with tensors that must match it name for
name and shape for shape. Anything else (another member, a missing one, bad JSON, an
unknown format, a torn zip) is a :class:`PolicyFileError`: one line naming the file and
what is wrong. Format 1 (an SB3 zip whose ``data`` holds pickled objects) is refused
the same way, with the command that converts it. torch/safetensors/sb3 load inside functions.
"""
from __future__ import annotations

import dataclasses
import io
import json
import zipfile
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parlor.envs.engine.files import atomic_write_bytes

POLICY_FORMAT = 2
HEADER, WEIGHTS, OPTIMIZER = "parlor.json", "weights.safetensors", "optimizer.safetensors"
POLICY_CLASSES = ("MaskableActorCriticPolicy",)
ACTIVATIONS = ("tanh", "relu")
MAX_LAYERS, MAX_WIDTH = 16, 4096
MAX_HEADER_BYTES, MAX_TENSOR_BYTES = 1 << 20, 1 << 30  # refuse zip bombs before inflating them
SIGNATURE_FIELDS = {"env": str, "layout_version": str, "observation_shape": list, "num_actions": int, "options": dict}
OPTIONAL_FIELDS = {"action_guard": dict, "metadata": dict, "checkpoint": dict}
HEADER_FIELDS = ("format", *SIGNATURE_FIELDS, "architecture", "num_timesteps", *OPTIONAL_FIELDS)
ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed member times: the same policy gives the same bytes


class PolicyFileError(ValueError):
    """A file that is not a readable policy of this format (one line: the file and the problem)."""

    def __init__(self, path: str | Path, problem: str):
        super().__init__(f"{path}: {' '.join(str(problem).split())}")


# ---------------------------------------------------------------- the architecture
@dataclass(frozen=True, slots=True, kw_only=True)
class Architecture:
    """What rebuilds the network: a MaskableActorCriticPolicy with an MLP of ``pi`` (actor)
    and ``vf`` (critic) hidden layers and ``activation``, on a flat Box observation."""

    policy: str = "MaskableActorCriticPolicy"
    pi: tuple[int, ...]
    vf: tuple[int, ...]
    activation: str
    observation_shape: tuple[int, ...]
    observation_low: float
    observation_high: float
    num_actions: int

    def __post_init__(self) -> None:
        if self.policy not in POLICY_CLASSES:
            raise ValueError(f"policy={self.policy!r} is not allowed; allowed values: {', '.join(POLICY_CLASSES)}")
        if self.activation not in ACTIVATIONS:
            raise ValueError(f"activation={self.activation!r} is not allowed; allowed values: {', '.join(ACTIVATIONS)}")
        for name in ("pi", "vf", "observation_shape"):
            value = getattr(self, name)
            if isinstance(value, list):
                value = tuple(value)
                object.__setattr__(self, name, value)
            limit = MAX_WIDTH if name != "observation_shape" else 1 << 24
            if not isinstance(value, tuple) or not 1 <= len(value) <= MAX_LAYERS or not all(
                    _is_int(n) and 1 <= n <= limit for n in value):
                raise ValueError(f"{name}={value!r} must be a list of 1 to {MAX_LAYERS} sizes in 1..{limit}")
        for name in ("observation_low", "observation_high"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
                raise ValueError(f"{name}={value!r} must be a number")
            object.__setattr__(self, name, float(value))
        if not _is_int(self.num_actions) or not 1 <= self.num_actions <= 1 << 20:
            raise ValueError(f"num_actions={self.num_actions!r} must be an integer >= 1")

    def describe(self) -> str:
        """``pi=[256, 256], vf=[256, 256], relu``: the part a trainer chooses."""
        return f"pi={list(self.pi)}, vf={list(self.vf)}, {self.activation}"

    def to_json(self) -> dict[str, Any]:
        return {f.name: (list(v) if isinstance(v := getattr(self, f.name), tuple) else v)
                for f in dataclasses.fields(self)}

    @classmethod
    def from_json(cls, data: Any) -> Architecture:
        names = [f.name for f in dataclasses.fields(cls)]
        if not isinstance(data, Mapping):
            raise ValueError(f"must be an object with keys {', '.join(names)}")
        unknown, missing = sorted(set(data) - set(names)), sorted(set(names) - set(data))
        if unknown or missing:
            raise ValueError(f"unknown keys {unknown}, missing keys {missing}; allowed keys: {', '.join(names)}")
        return cls(**data)

    @classmethod
    def of_policy(cls, policy: Any) -> Architecture:
        """The architecture of a live sb3-contrib MaskableActorCriticPolicy (what parlor trains)."""
        import numpy as np
        from gymnasium import spaces
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
        from stable_baselines3.common.torch_layers import FlattenExtractor

        if type(policy) is not MaskableActorCriticPolicy:
            raise ValueError(f"a {type(policy).__name__} is not a policy parlor can save; allowed: {', '.join(POLICY_CLASSES)}")
        space, action = policy.observation_space, policy.action_space
        if not isinstance(space, spaces.Box) or not isinstance(action, spaces.Discrete) or not isinstance(
                policy.features_extractor, FlattenExtractor) or not policy.share_features_extractor:
            raise ValueError("only a flat Box observation, a Discrete action and the plain flatten extractor are saved")
        low, high = np.unique(space.low), np.unique(space.high)
        if low.size != 1 or high.size != 1:
            raise ValueError("the observation bounds must be the same for every entry")
        arch = policy.net_arch if isinstance(policy.net_arch, dict) else {"pi": policy.net_arch, "vf": policy.net_arch}
        activation = next((name for name, fn in _activations().items() if fn is policy.activation_fn), None)
        if activation is None:
            raise ValueError(f"activation {policy.activation_fn.__name__} is not allowed; allowed values: {', '.join(ACTIVATIONS)}")
        return cls(pi=tuple(arch["pi"]), vf=tuple(arch["vf"]), activation=activation,
                   observation_shape=tuple(int(n) for n in space.shape), observation_low=float(low[0]),
                   observation_high=float(high[0]), num_actions=int(action.n))

    def tensor_shapes(self) -> dict[str, tuple[int, ...]]:
        """Name -> shape of every tensor in the state dict of :meth:`build`'s network, without
        torch (the flatten extractor feeds the product of the observation shape to both MLPs)."""
        features = 1
        for n in self.observation_shape:
            features *= n
        shapes: dict[str, tuple[int, ...]] = {}
        for net, sizes in (("policy_net", self.pi), ("value_net", self.vf)):
            width = features
            for layer, size in enumerate(sizes):  # Linear, activation, Linear...: weights at even indices
                shapes[f"mlp_extractor.{net}.{2 * layer}.weight"] = (size, width)
                shapes[f"mlp_extractor.{net}.{2 * layer}.bias"] = (size,)
                width = size
        shapes.update({"action_net.weight": (self.num_actions, self.pi[-1]), "action_net.bias": (self.num_actions,),
                       "value_net.weight": (1, self.vf[-1]), "value_net.bias": (1,)})
        return shapes

    def build(self) -> Any:
        """A fresh MaskableActorCriticPolicy of this architecture (CPU, eval mode). Its throw-away
        initial weights do not touch the global torch RNG (training runs stay reproducible)."""
        import numpy as np
        import torch
        from gymnasium import spaces
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

        with torch.random.fork_rng(devices=[]):
            policy = MaskableActorCriticPolicy(
                spaces.Box(self.observation_low, self.observation_high, self.observation_shape, np.float32),
                spaces.Discrete(self.num_actions), lambda _: 0.0, net_arch={"pi": list(self.pi), "vf": list(self.vf)},
                activation_fn=_activations()[self.activation], ortho_init=False)
        policy.set_training_mode(False)
        return policy


def _activations() -> dict[str, Any]:
    import torch

    return {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}


def activation_class(name: str) -> Any:
    """The torch module class of an allow-listed activation name (what trainers pass to SB3)."""
    if name not in ACTIVATIONS:
        raise ValueError(f"activation={name!r} is not allowed; allowed values: {', '.join(ACTIVATIONS)}")
    return _activations()[name]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# ---------------------------------------------------------------- tensors
def check_tensors(path: str | Path, want: Mapping[str, tuple[int, ...]], tensors: Mapping[str, Any]) -> None:
    """``tensors`` (torch or numpy) are exactly the names of ``want``, each of its shape and
    float32; otherwise a :class:`PolicyFileError` naming the first misfit."""
    missing, extra = sorted(set(want) - set(tensors)), sorted(set(tensors) - set(want))
    if missing or extra:
        raise PolicyFileError(path, f"its weights do not fit the architecture in {HEADER}: "
                              f"missing tensors {missing[:4]}, unexpected tensors {extra[:4]}")
    for name, shape in want.items():
        got = tensors[name]
        if tuple(got.shape) != tuple(shape) or str(got.dtype).removeprefix("torch.") != "float32":
            raise PolicyFileError(path, f"tensor {name} is {got.dtype} {list(got.shape)}; the architecture in "
                                  f"{HEADER} needs float32 {list(shape)}")


def fit_weights(policy: Any, tensors: Mapping[str, Any], path: str | Path) -> None:
    """Load ``tensors`` into ``policy``: every name of its state dict, each with its shape
    and float32, nothing else (:func:`check_tensors`)."""
    check_tensors(path, {name: tuple(t.shape) for name, t in policy.state_dict().items()}, tensors)
    policy.load_state_dict(dict(tensors), strict=True)


def optimizer_tensors(optimizer: Any) -> dict[str, Any]:
    """An optimizer's per-parameter state as flat tensors ``state.<param index>.<name>``."""
    out = {}
    for index, state in optimizer.state_dict()["state"].items():
        for name, value in state.items():
            out[f"state.{index}.{name}"] = value.detach().cpu().contiguous()
    return out


def restore_optimizer(optimizer: Any, tensors: Mapping[str, Any], path: str | Path) -> None:
    """Put the state saved by :func:`optimizer_tensors` back into ``optimizer`` (built from
    the run's config, so its hyperparameters are the config's); shapes must match the parameters."""
    fresh = optimizer.state_dict()
    params = [p for group in optimizer.param_groups for p in group["params"]]
    state: dict[int, dict[str, Any]] = {}
    for key, value in tensors.items():
        parts = key.split(".")
        if len(parts) != 3 or parts[0] != "state" or not parts[1].isdigit() or int(parts[1]) >= len(params):
            raise PolicyFileError(path, f"{OPTIMIZER} has a tensor {key!r} that is no parameter's state")
        index = int(parts[1])
        if parts[2] != "step" and tuple(value.shape) != tuple(params[index].shape):
            raise PolicyFileError(path, f"{OPTIMIZER}: {key} is {list(value.shape)}, its parameter "
                                  f"{list(params[index].shape)}")
        state.setdefault(index, {})[parts[2]] = value
    optimizer.load_state_dict({"state": state, "param_groups": fresh["param_groups"]})


def _safetensors_bytes(tensors: Mapping[str, Any]) -> bytes:
    from safetensors.torch import save

    return save({name: t.detach().cpu().contiguous() for name, t in tensors.items()})


def _load_safetensors(path: str | Path, member: str, data: bytes, framework: str = "torch") -> dict[str, Any]:
    from safetensors import SafetensorError

    if framework == "numpy":  # no torch: what a parent process checks before its workers start
        from safetensors.numpy import load
    else:
        from safetensors.torch import load
    try:
        return load(data)
    except (SafetensorError, ValueError) as exc:
        raise PolicyFileError(path, f"{member} is not a readable safetensors file ({exc})") from None


# ---------------------------------------------------------------- the header
def check_header(header: Any, path: str | Path) -> Architecture:
    """Check every field of a format-2 header; returns its architecture."""
    if not isinstance(header, dict):
        raise PolicyFileError(path, f"{HEADER} must hold a JSON object")
    fmt = header.get("format")
    if fmt == 1:
        raise PolicyFileError(path, f"{HEADER} says format 1 (a Stable-Baselines3 zip) but the zip has no SB3 members")
    if not _is_int(fmt) or fmt != POLICY_FORMAT:
        raise PolicyFileError(path, f"format {fmt!r} is not one this parlor reads (format {POLICY_FORMAT})")
    unknown = sorted(set(header) - set(HEADER_FIELDS))
    if unknown:
        raise PolicyFileError(path, f"{HEADER} has unknown fields {unknown}; allowed: {', '.join(HEADER_FIELDS)}")
    for name, kind in {**SIGNATURE_FIELDS, "num_timesteps": int}.items():
        if name not in header:
            raise PolicyFileError(path, f"{HEADER} has no {name!r}")
        if not isinstance(header[name], kind) or isinstance(header[name], bool):
            raise PolicyFileError(path, f"{HEADER}: {name}={header[name]!r} must be a JSON {kind.__name__}")
    for name, kind in OPTIONAL_FIELDS.items():
        if name in header and not isinstance(header[name], kind):
            raise PolicyFileError(path, f"{HEADER}: {name}={header[name]!r} must be a JSON object")
    for name, value in header.get("action_guard", {}).items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
            raise PolicyFileError(path, f"{HEADER}: action_guard.{name}={value!r} must be a number >= 0")
    n_updates = header.get("checkpoint", {}).get("n_updates", 0)
    if set(header.get("checkpoint", {})) - {"n_updates"} or not _is_int(n_updates) or n_updates < 0:
        raise PolicyFileError(path, f"{HEADER}: checkpoint={header['checkpoint']!r} must be {{\"n_updates\": N >= 0}}")
    if header["num_timesteps"] < 0:
        raise PolicyFileError(path, f"{HEADER}: num_timesteps={header['num_timesteps']} must be >= 0")
    try:
        arch = Architecture.from_json(header.get("architecture"))
    except (TypeError, ValueError) as exc:
        raise PolicyFileError(path, f"{HEADER}: architecture: {exc}") from None
    if list(arch.observation_shape) != header["observation_shape"] or arch.num_actions != header["num_actions"]:
        raise PolicyFileError(path, f"{HEADER}: the architecture's observation_shape/num_actions "
                              f"{list(arch.observation_shape)}/{arch.num_actions} disagree with the signature's "
                              f"{header['observation_shape']}/{header['num_actions']}")
    return arch


# ---------------------------------------------------------------- reading and writing
@dataclass(frozen=True)
class PolicyFile:
    """A checked policy file: its header, architecture and (when asked for) its tensors."""

    path: Path
    header: dict[str, Any]
    architecture: Architecture
    weights: dict[str, Any] | None = None      # name -> torch tensor (or numpy array)
    weights_bytes: bytes | None = None         # the member as stored (shield copies it unchanged)
    optimizer: dict[str, Any] | None = None    # checkpoints: name -> torch tensor


def _members(zf: zipfile.ZipFile, path: Path) -> dict[str, zipfile.ZipInfo]:
    infos = zf.infolist()
    names = [i.filename for i in infos]
    if len(set(names)) != len(names):
        raise PolicyFileError(path, "the zip names a member twice")
    if "data" in names or "policy.pth" in names:
        raise PolicyFileError(path, "a Stable-Baselines3 zip (policy format 1), which holds pickled Python objects "
                              "that could run code when loaded: parlor does not load it; convert it with "
                              f"`parlor convert {path} NEW.zip` (reads only its JSON and tensors)")
    unknown = sorted(set(names) - {HEADER, WEIGHTS, OPTIMIZER})
    missing = sorted({HEADER, WEIGHTS} - set(names))
    if unknown or missing:
        what = "; ".join(filter(None, [unknown and f"unexpected members {unknown}", missing and f"missing {missing}"]))
        raise PolicyFileError(path, f"{what} (a policy file holds exactly {HEADER} and {WEIGHTS}, "
                              f"a checkpoint also {OPTIMIZER})")
    for info in infos:
        limit = MAX_HEADER_BYTES if info.filename == HEADER else MAX_TENSOR_BYTES
        if info.file_size > limit:
            raise PolicyFileError(path, f"member {info.filename} is {info.file_size:,} bytes; at most {limit:,} allowed")
    return {i.filename: i for i in infos}


def read_policy_file(path: str | Path, weights: bool = True, optimizer: bool = False,
                     framework: str = "torch") -> PolicyFile:
    """Open and check the policy file ``path`` (see the module docstring); with ``weights``
    (and ``optimizer``, checkpoints only) its tensors too, as torch tensors or, with
    ``framework="numpy"``, numpy arrays (torch is not imported). FileNotFoundError if it is missing."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no policy file {str(path)!r}")
    try:
        with zipfile.ZipFile(path) as zf:
            members = _members(zf, path)
            try:
                header = json.loads(zf.read(HEADER).decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise PolicyFileError(path, f"{HEADER} is not valid JSON ({exc})") from None
            arch = check_header(header, path)
            if ("checkpoint" in header) != (OPTIMIZER in members):
                raise PolicyFileError(path, f"{OPTIMIZER} and the header's checkpoint entry come together; one is missing")
            if optimizer and OPTIMIZER not in members:
                raise PolicyFileError(path, f"not a training checkpoint (no {OPTIMIZER})")
            raw = zf.read(WEIGHTS) if weights else None
            opt_raw = zf.read(OPTIMIZER) if optimizer else None
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as exc:
        raise PolicyFileError(path, f"not a readable policy zip ({exc or type(exc).__name__})") from None
    return PolicyFile(path, header, arch,
                      weights=_load_safetensors(path, WEIGHTS, raw, framework) if raw is not None else None,
                      weights_bytes=raw,
                      optimizer=_load_safetensors(path, OPTIMIZER, opt_raw, framework) if opt_raw is not None else None)


def write_policy_file(path: str | Path, header: Mapping[str, Any], weights: Mapping[str, Any] | bytes,
                      optimizer: Mapping[str, Any] | None = None) -> Path:
    """Write a policy file atomically (the old file stays whole if anything fails);
    ``weights`` are tensors, or the bytes of a weights member read from another file."""
    path = Path(path)
    check_header(dict(header), path)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        members = [(HEADER, json.dumps(dict(header), indent=1, sort_keys=True, allow_nan=False).encode()),
                   (WEIGHTS, weights if isinstance(weights, bytes) else _safetensors_bytes(weights))]
        if optimizer is not None:
            members.append((OPTIMIZER, _safetensors_bytes(optimizer)))
        for name, data in members:
            info = zipfile.ZipInfo(name, ZIP_TIME)
            info.external_attr = 0o644 << 16  # rw-r--r-- when unzipped
            zf.writestr(info, data, compress_type=zipfile.ZIP_DEFLATED)
    atomic_write_bytes(path, buffer.getvalue())
    return path
