"""Reading policy format 1 (an SB3 MaskablePPO zip plus ``parlor.json``) without unpickling it,
for :func:`parlor.agents.policy.convert_sb3_policy` (``parlor convert``) only.

Format 1 was what ``MaskablePPO.save`` writes: a zip whose ``data`` member is JSON in which
every Python object is also stored pickled (``:serialized:``), plus ``policy.pth`` (the
network's state dict, a torch file). ``MaskablePPO.load`` unpickles every ``:serialized:``
entry, so a copy with one crafted entry runs code. This reader never does: it takes the
activation from the *text* that SB3 writes next to each pickle (``"activation_fn":
"<class 'torch.nn.modules.activation.ReLU'>"``), the layer sizes from the tensors' shapes,
and the tensors through ``torch.load(weights_only=True)``, torch's restricted loader that
accepts tensors and plain containers and refuses any other object.
"""
from __future__ import annotations

import io
import re
import zipfile
import zlib
from pathlib import Path
from typing import Any

from parlor.agents.policy_format import (
    ACTIVATIONS,
    HEADER,
    MAX_TENSOR_BYTES,
    PolicyFileError,
    inflate_budget,
    parse_json,
    read_member,
)
from parlor.envs.engine.game import MissingFileError

SB3_ACTIVATIONS = {"Tanh": "tanh", "ReLU": "relu"}  # torch.nn class name -> parlor's name
SB3_DEFAULT_ACTIVATION = "tanh"                     # MlpPolicy's default when policy_kwargs name none
KNOWN_POLICY_KWARGS = {":type:", ":serialized:", "net_arch", "activation_fn"}
MEMBERS = {"data", "policy.pth", HEADER}            # needed; the others (optimizer, versions) are ignored


def _layers(tensors: dict[str, Any], prefix: str) -> tuple[int, ...]:
    """Hidden sizes of ``mlp_extractor.<prefix>``: the out-size of each Linear, in order."""
    found = {}
    for name, tensor in tensors.items():
        match = re.fullmatch(rf"mlp_extractor\.{prefix}\.(\d+)\.weight", name)
        if match and tensor.dim() >= 1:
            found[int(match.group(1))] = int(tensor.shape[0])
    return tuple(found[i] for i in sorted(found))


def read_sb3_zip(path: str | Path) -> tuple[dict[str, Any], dict[str, Any], str, dict[str, Any]]:
    """``(parlor.json header, state dict, activation, {"pi": ..., "vf": ...})`` of a format-1 file."""
    import torch

    path = Path(path)
    if not path.is_file():
        raise MissingFileError(f"no policy file {str(path)!r}" + (" (it is a folder)" if path.is_dir() else ""))
    budget = min(MAX_TENSOR_BYTES, inflate_budget(path.stat().st_size))  # the same bounds as format 2
    try:
        with zipfile.ZipFile(path) as zf:
            infos = {info.filename: info for info in zf.infolist()}
            missing = sorted(MEMBERS - set(infos))
            if missing:
                raise PolicyFileError(path, f"not a format-1 policy (an SB3 zip with {HEADER}): missing {missing}")
            declared = sum(infos[name].file_size for name in MEMBERS)
            if declared > budget:
                raise PolicyFileError(path, f"its members {sorted(MEMBERS)} are {declared:,} bytes; at most {budget:,} "
                                      f"allowed for a file of {path.stat().st_size:,} bytes")
            header = parse_json(read_member(zf, infos[HEADER], path), path, HEADER)
            data = parse_json(read_member(zf, infos["data"], path), path, "data")
            weights = read_member(zf, infos["policy.pth"], path)
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError, OSError) as exc:
        raise PolicyFileError(path, f"not a readable zip ({exc})") from None
    if not isinstance(header, dict) or header.get("format") != 1 or not isinstance(data, dict):
        raise PolicyFileError(path, f"not a format-1 policy ({HEADER} must say format 1)")
    for name, kind in (("env", str), ("options", dict), ("action_guard", dict), ("num_timesteps", int)):
        if name in header and (not isinstance(header[name], kind) or isinstance(header[name], bool)):
            raise PolicyFileError(path, f"{HEADER}: {name} must be a JSON {'object' if kind is dict else kind.__name__}"
                                  f", not {type(header[name]).__name__}")
    if not isinstance(header.get("env"), str):
        raise PolicyFileError(path, f"{HEADER} has no env (the environment's name)")
    kwargs = data.get("policy_kwargs") or {}
    if not isinstance(kwargs, dict) or set(kwargs) - KNOWN_POLICY_KWARGS:
        raise PolicyFileError(path, f"its policy_kwargs {sorted(set(kwargs) - KNOWN_POLICY_KWARGS)} are more than "
                              "net_arch and activation_fn, which parlor's format describes")
    text = kwargs.get("activation_fn")
    match = re.fullmatch(r"<class 'torch\.nn\.modules\.activation\.(\w+)'>", text) if isinstance(text, str) else None
    activation = SB3_ACTIVATIONS.get(match.group(1)) if match else (SB3_DEFAULT_ACTIVATION if text is None else None)
    if activation not in ACTIVATIONS:
        raise PolicyFileError(path, f"activation {text!r} is not allowed; allowed values: {', '.join(SB3_ACTIVATIONS)}")
    try:
        tensors = torch.load(io.BytesIO(weights), map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises UnpicklingError, RuntimeError, ... for a bad or hostile file
        raise PolicyFileError(path, f"policy.pth is not a plain tensor file ({type(exc).__name__}: "
                              f"{str(exc).splitlines()[0] if str(exc) else ''})") from None
    if not isinstance(tensors, dict) or not all(isinstance(t, torch.Tensor) for t in tensors.values()):
        raise PolicyFileError(path, "policy.pth does not hold a state dict of tensors")
    return header, dict(tensors), activation, {"pi": _layers(tensors, "policy_net"), "vf": _layers(tensors, "value_net")}
