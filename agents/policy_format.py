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
     "late_planner": {"agent": "expert:16", "turns": 3},  # only if a planner plays its last turns
                                       # (and "shortlist": K if it chooses among the network's K
                                       # most probable placements on the other turns)
     "metadata": {...},                # free-form JSON (e.g. where a converted file came from)
     "checkpoint": {"n_updates": 40}}  # only in a checkpoint

Nothing here unpickles: the header is JSON, the tensors are safetensors (a JSON table
plus raw numbers), and the network is rebuilt from the architecture, whose class and
activation come from allow-lists, then filled with tensors that must match it name for
name and shape for shape. Anything else (another member, a missing one, bad JSON, an
unknown format, a torn zip) is a :class:`PolicyFileError`: one line naming the file and
what is wrong. Format 1 (an SB3 zip whose ``data`` holds pickled objects) is refused
the same way, with the command that converts it. torch/safetensors/sb3 load inside functions.

Bounds (a small hostile zip must not cost gigabytes or minutes): before anything is
inflated or allocated, the members' declared sizes are checked against a budget
(:func:`inflate_budget`: ``FREE_BYTES`` plus ``INFLATE_RATIO`` times the file's size, float
weights hardly compress) and against each other (the weights member must be the size of
the architecture's tensors, which are bounded by ``MAX_PARAMETERS``); members are then
inflated in ``CHUNK``-byte reads that stop at the declared size, so a member that lies
about its size is refused after at most one chunk more. The tensors are checked name for
name, shape for shape, float32 and finite, against the architecture before any network
is built from it.
"""
from __future__ import annotations

import io
import json
import math
import zipfile
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parlor.agents.policy_architecture import (  # re-exported: the format's architecture part
    ACTIVATIONS,
    MAX_LAYERS,
    MAX_OBSERVATION,
    MAX_PARAMETERS,
    MAX_WIDTH,
    POLICY_CLASSES,
    Architecture,
    activation_class,
    is_int,
)
from parlor.agents.policy_planner import HEADER_KEY as PLANNER_KEY
from parlor.agents.policy_planner import late_planner_of
from parlor.envs.engine.files import atomic_write_bytes
from parlor.envs.engine.game import ConfigError, MissingFileError, shown

POLICY_FORMAT = 2
HEADER, WEIGHTS, OPTIMIZER = "parlor.json", "weights.safetensors", "optimizer.safetensors"
MAX_HEADER_BYTES = 1 << 20
MAX_TENSOR_BYTES = 4 * MAX_PARAMETERS * 3 + (1 << 20)  # weights + Adam's two moments, never more
FREE_BYTES, INFLATE_RATIO = 16 << 20, 3  # inflate_budget: what a member may inflate to
SAFETENSORS_SLACK = 1 << 16          # a safetensors member's bytes besides the numbers (its JSON table)
CHUNK = 1 << 20                      # bytes inflated per read
SIGNATURE_FIELDS = {"env": str, "layout_version": str, "observation_shape": list, "num_actions": int, "options": dict}
OPTIONAL_FIELDS = {"action_guard": dict, "metadata": dict, "checkpoint": dict, PLANNER_KEY: dict}
HEADER_FIELDS = ("format", *SIGNATURE_FIELDS, "architecture", "num_timesteps", *OPTIONAL_FIELDS)
ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed member times: the same policy gives the same bytes
__all__ = ["ACTIVATIONS", "MAX_LAYERS", "MAX_OBSERVATION", "MAX_PARAMETERS", "MAX_WIDTH", "POLICY_CLASSES",
           "Architecture", "PolicyFile", "PolicyFileError", "activation_class", "check_header", "check_tensors",
           "fit_weights", "inflate_budget", "optimizer_tensors", "parse_json", "read_member", "read_policy_file",
           "restore_optimizer", "write_policy_file"]


class PolicyFileError(ConfigError):
    """A file that is not a readable policy of this format (one line: the file and the problem)."""

    def __init__(self, path: str | Path, problem: str):
        super().__init__(f"{path}: {' '.join(str(problem).split())}")


# ---------------------------------------------------------------- tensors
def check_tensors(arch: Architecture, tensors: Mapping[str, Any], path: str | Path, member: str = WEIGHTS) -> None:
    """``tensors`` (torch or numpy) are exactly the architecture's (:meth:`Architecture.tensor_shapes`),
    float32 and finite (a NaN weight would fail only in the middle of a game); else a PolicyFileError."""
    _check_fit(arch.tensor_shapes(), tensors, path, member, finite=True)


def fit_weights(policy: Any, tensors: Mapping[str, Any], path: str | Path) -> None:
    """Load ``tensors`` into ``policy``: every name of its state dict, each with its shape
    and float32, nothing else; otherwise a :class:`PolicyFileError` naming the first misfit."""
    _check_fit({name: tuple(t.shape) for name, t in policy.state_dict().items()}, tensors, path, WEIGHTS, finite=False)
    policy.load_state_dict(dict(tensors), strict=True)


def _all_finite(tensor: Any) -> bool:
    """Whether a torch tensor or numpy array holds only finite numbers (torch is not imported for numpy)."""
    if type(tensor).__module__.startswith("torch"):
        import torch

        return bool(torch.isfinite(tensor).all())
    import numpy as np

    return bool(np.isfinite(tensor).all())


def _check_fit(want: Mapping[str, tuple[int, ...]], tensors: Mapping[str, Any], path: str | Path, member: str,
               finite: bool) -> None:
    missing, extra = sorted(set(want) - set(tensors)), sorted(set(tensors) - set(want))
    if missing or extra:
        raise PolicyFileError(path, f"its weights do not fit the architecture in {HEADER}: "
                              f"missing tensors {missing[:4]}, unexpected tensors {extra[:4]}")
    for name, shape in want.items():
        got = tensors[name]
        if tuple(got.shape) != tuple(shape) or str(got.dtype).removeprefix("torch.") != "float32":
            raise PolicyFileError(path, f"tensor {name} is {got.dtype} {list(got.shape)}; the architecture in "
                                  f"{HEADER} needs float32 {list(shape)}")
        if finite and not _all_finite(got):
            raise PolicyFileError(path, f"{member}: tensor {name} holds NaN or infinite numbers; every weight "
                                  "must be a finite number")


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
        from safetensors.numpy import load as load_numpy

        load: Callable[[bytes], dict[str, Any]] = load_numpy
    else:
        from safetensors.torch import load as load_torch

        load = load_torch
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
    if not is_int(fmt) or fmt != POLICY_FORMAT:
        raise PolicyFileError(path, f"format {shown(fmt)} is not one this parlor reads (format {POLICY_FORMAT})")
    unknown = sorted(set(header) - set(HEADER_FIELDS))
    if unknown:
        raise PolicyFileError(path, f"{HEADER} has unknown fields {shown(unknown)}; allowed: {', '.join(HEADER_FIELDS)}")
    for name, kind in {**SIGNATURE_FIELDS, "num_timesteps": int}.items():
        if name not in header:
            raise PolicyFileError(path, f"{HEADER} has no {name!r}")
        if not isinstance(header[name], kind) or isinstance(header[name], bool):
            raise PolicyFileError(path, f"{HEADER}: {name}={shown(header[name])} must be a JSON {kind.__name__}")
    for name, kind in OPTIONAL_FIELDS.items():
        if name in header and not isinstance(header[name], kind):
            raise PolicyFileError(path, f"{HEADER}: {name}={shown(header[name])} must be a JSON object")
    for name, value in header.get("action_guard", {}).items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
            raise PolicyFileError(path, f"{HEADER}: action_guard.{shown(name)}={shown(value)} must be a number >= 0")
    try:
        late_planner_of(header)  # its shape; whether the env has that planner is checked on loading
    except ConfigError as exc:
        raise PolicyFileError(path, f"{HEADER}: {exc}") from None
    n_updates = header.get("checkpoint", {}).get("n_updates", 0)
    if set(header.get("checkpoint", {})) - {"n_updates"} or not is_int(n_updates) or n_updates < 0:
        raise PolicyFileError(path, f"{HEADER}: checkpoint={shown(header['checkpoint'])} must be {{\"n_updates\": N >= 0}}")
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
        what = "; ".join(filter(None, [f"unexpected members {unknown}" if unknown else None,
                                       f"missing {missing}" if missing else None]))
        raise PolicyFileError(path, f"{what} (a policy file holds exactly {HEADER} and {WEIGHTS}, "
                              f"a checkpoint also {OPTIMIZER})")
    budget = inflate_budget(path.stat().st_size)
    for info in infos:
        limit = MAX_HEADER_BYTES if info.filename == HEADER else min(MAX_TENSOR_BYTES, budget)
        if info.file_size > limit:
            raise PolicyFileError(path, f"member {info.filename} is {info.file_size:,} bytes; at most {limit:,} allowed "
                                  f"(a file of {path.stat().st_size:,} bytes)")
    if sum(i.file_size for i in infos) > budget:
        raise PolicyFileError(path, f"its members are {sum(i.file_size for i in infos):,} bytes in all; at most "
                              f"{budget:,} allowed for a file of {path.stat().st_size:,} bytes")
    return {i.filename: i for i in infos}


def inflate_budget(file_size: int) -> int:
    """The bytes a zip of ``file_size`` bytes may inflate to: ``FREE_BYTES`` plus ``INFLATE_RATIO``
    times its size (float32 weights deflate by a few percent; a zip bomb by 1,000 times)."""
    return FREE_BYTES + INFLATE_RATIO * file_size


def read_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, path: Path) -> bytes:
    """The member's bytes, inflated ``CHUNK`` bytes at a time: one that holds more than its
    declared size (``zipfile`` would inflate it whole in one read) is refused after one chunk more."""
    parts, size = [], 0
    with zf.open(info) as fh:
        while chunk := fh.read(CHUNK):
            size += len(chunk)
            if size > info.file_size:
                raise PolicyFileError(path, f"member {info.filename} holds more than the {info.file_size:,} bytes "
                                      "its zip entry declares")
            parts.append(chunk)
    if size != info.file_size:
        raise PolicyFileError(path, f"member {info.filename} holds {size:,} bytes; its zip entry declares "
                              f"{info.file_size:,}")
    return b"".join(parts)


def parse_json(data: bytes, path: str | Path, member: str) -> Any:
    """The JSON value of a member's bytes; bad UTF-8 or JSON, an integer of more than 4,300
    digits or nesting deeper than Python's recursion are one PolicyFileError."""
    try:
        return json.loads(data.decode("utf-8"))
    except RecursionError:
        raise PolicyFileError(path, f"{member} is not valid JSON (nested too deeply)") from None
    except ValueError as exc:  # UnicodeDecodeError, JSONDecodeError, a too long integer
        raise PolicyFileError(path, f"{member} is not valid JSON ({str(exc)[:120]})") from None


def _check_sizes(arch: Architecture, members: Mapping[str, zipfile.ZipInfo], path: Path) -> None:
    """The weights member's declared size is that of the architecture's float32 tensors (plus the
    safetensors table), so a header cannot ask for a network the file does not pay for."""
    numbers = 4 * arch.parameters()
    declared = members[WEIGHTS].file_size
    if not numbers <= declared <= numbers + SAFETENSORS_SLACK:
        raise PolicyFileError(path, f"{WEIGHTS} is {declared:,} bytes but the architecture in {HEADER} "
                              f"({arch.describe()}, {arch.parameters():,} parameters) needs {numbers:,} bytes of float32")


def read_policy_file(path: str | Path, weights: bool = True, optimizer: bool = False,
                     framework: str = "torch") -> PolicyFile:
    """Open and check the policy file ``path`` (see the module docstring); with ``weights``
    (and ``optimizer``, checkpoints only) its tensors too, checked against its architecture,
    as torch tensors or, with ``framework="numpy"``, numpy arrays (torch is not imported).
    :class:`~parlor.envs.engine.game.MissingFileError` (a FileNotFoundError) if it is missing."""
    path = Path(path)
    if not path.is_file():
        raise MissingFileError(f"no policy file {str(path)!r}" + (" (it is a folder)" if path.is_dir() else ""))
    try:
        with zipfile.ZipFile(path) as zf:
            members = _members(zf, path)
            header = parse_json(read_member(zf, members[HEADER], path), path, HEADER)
            arch = check_header(header, path)
            if ("checkpoint" in header) != (OPTIMIZER in members):
                raise PolicyFileError(path, f"{OPTIMIZER} and the header's checkpoint entry come together; one is missing")
            if optimizer and OPTIMIZER not in members:
                raise PolicyFileError(path, f"not a training checkpoint (no {OPTIMIZER})")
            _check_sizes(arch, members, path)
            raw = read_member(zf, members[WEIGHTS], path) if weights else None
            opt_raw = read_member(zf, members[OPTIMIZER], path) if optimizer else None
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError, OSError) as exc:
        raise PolicyFileError(path, f"not a readable policy zip ({exc or type(exc).__name__})") from None
    tensors = _load_safetensors(path, WEIGHTS, raw, framework) if raw is not None else None
    if tensors is not None:
        check_tensors(arch, tensors, path)
    return PolicyFile(path, header, arch, weights=tensors, weights_bytes=raw,
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
