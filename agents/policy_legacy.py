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
import json
import re
import zipfile
import zlib
from pathlib import Path
from typing import Any

from parlor.agents.policy_format import ACTIVATIONS, HEADER, MAX_TENSOR_BYTES, PolicyFileError

SB3_ACTIVATIONS = {"Tanh": "tanh", "ReLU": "relu"}  # torch.nn class name -> parlor's name
SB3_DEFAULT_ACTIVATION = "tanh"                     # MlpPolicy's default when policy_kwargs name none
KNOWN_POLICY_KWARGS = {":type:", ":serialized:", "net_arch", "activation_fn"}
MEMBERS = {"data", "policy.pth", HEADER}            # needed; the others (optimizer, versions) are ignored


def _layers(tensors: dict[str, Any], prefix: str) -> tuple[int, ...]:
    """Hidden sizes of ``mlp_extractor.<prefix>``: the out-size of each Linear, in order."""
    found = {}
    for name, tensor in tensors.items():
        match = re.fullmatch(rf"mlp_extractor\.{prefix}\.(\d+)\.weight", name)
        if match:
            found[int(match.group(1))] = int(tensor.shape[0])
    return tuple(found[i] for i in sorted(found))


def read_sb3_zip(path: str | Path) -> tuple[dict[str, Any], dict[str, Any], str, dict[str, Any]]:
    """``(parlor.json header, state dict, activation, {"pi": ..., "vf": ...})`` of a format-1 file."""
    import torch

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no policy file {str(path)!r}")
    try:
        with zipfile.ZipFile(path) as zf:
            missing = sorted(MEMBERS - set(zf.namelist()))
            if missing:
                raise PolicyFileError(path, f"not a format-1 policy (an SB3 zip with {HEADER}): missing {missing}")
            for info in zf.infolist():
                if info.filename in MEMBERS and info.file_size > MAX_TENSOR_BYTES:
                    raise PolicyFileError(path, f"member {info.filename} is {info.file_size:,} bytes; at most "
                                          f"{MAX_TENSOR_BYTES:,} allowed")
            header = json.loads(zf.read(HEADER).decode("utf-8"))
            data = json.loads(zf.read("data").decode("utf-8"))
            weights = zf.read("policy.pth")
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as exc:
        raise PolicyFileError(path, f"not a readable zip ({exc})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PolicyFileError(path, f"{HEADER} or data is not valid JSON ({exc})") from None
    if not isinstance(header, dict) or header.get("format") != 1 or not isinstance(data, dict):
        raise PolicyFileError(path, f"not a format-1 policy ({HEADER} must say format 1)")
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
