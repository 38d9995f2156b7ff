"""Policy files the driver names, shipped to Ray workers as bytes: a cluster needs no shared disk.

A ``ppo:PATH`` agent (an evaluation's ``--agents``, a training config's ``opponents``)
names a policy file on the machine that runs parlor, and a relative PATH means what it
means in the user's shell there. Ray workers run elsewhere: on another machine, in
another working directory. So the driver reads every such file once
(:func:`policy_factories`, before anything is played: a missing or unreadable file fails
first, naming the agent and the path) and the workers get :class:`ShippedPolicy`
factories that hold the bytes. A worker writes them to a file of its own machine named
by their content (:func:`local_copy`: one copy per machine, whatever the number of
workers) and loads that, so it never opens a path the user gave; the other machines need
neither the file nor the driver's working directory. RLlib's self-play snapshots travel
the same way (:mod:`parlor.training.learning.rllib_train`).
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from parlor.training.evaluation.labels import POLICY_PREFIX

LOCAL_FOLDER = "parlor-inputs"  # under the worker machine's temp dir


class InputFileError(OSError):
    """A file the command names cannot be read on the machine that runs parlor."""


def local_copy(data: bytes, name: str, folder: str = LOCAL_FOLDER) -> Path:
    """``data`` as a file of this machine, ``<temp>/<folder>/<sha256 prefix>-<name>``: written once
    (atomically: a concurrent worker sees the whole file or none), then reused."""
    directory = Path(tempfile.gettempdir()) / folder
    directory.mkdir(exist_ok=True)
    path = directory / f"{hashlib.sha256(data).hexdigest()[:16]}-{Path(name).name}"
    if not path.is_file():
        tmp = path.with_name(f"{path.name}.{os.getpid()}.part")
        tmp.write_bytes(data)
        tmp.replace(path)
    return path


def read_input(what: str, path: str) -> bytes:
    """The bytes of the file ``path`` (relative: to this process's working directory, the
    user's shell), or :class:`InputFileError` naming ``what`` needs it and where it looked."""
    resolved = Path(path).expanduser().absolute()
    try:
        return resolved.read_bytes()
    except FileNotFoundError:
        raise InputFileError(f"{what}: no file {path!r} (looked for {resolved})") from None
    except OSError as exc:
        raise InputFileError(f"{what}: cannot read {path!r} ({resolved}): {exc.strerror or exc}") from None


@dataclass(frozen=True)
class ShippedPolicy:
    """An agent factory ``(game, seed=None) -> PolicyAgent`` for the spec ``ppo:PATH`` holding
    the file's bytes (picklable: Ray ships it); built where it runs from a local copy."""

    spec: str
    data: bytes = field(repr=False)

    def __call__(self, game: Any, seed: int | None = None) -> Any:
        from parlor.agents.policy import PolicyAgent

        path = local_copy(self.data, self.spec[len(POLICY_PREFIX):])
        return PolicyAgent.from_file(path, game, seed=seed)


def policy_factories(specs: Iterable[str], game: Any = None) -> dict[str, ShippedPolicy]:
    """Spec -> :class:`ShippedPolicy` for every ``ppo:PATH`` among ``specs``, each file read now;
    with ``game``, each is also checked to fit it, from the user's file (so an error names
    PATH, not a worker's copy)."""
    from parlor.agents.registry import make_agent

    factories = {spec: ShippedPolicy(spec, read_input(f"agent {spec}", spec[len(POLICY_PREFIX):]))
                 for spec in dict.fromkeys(specs) if spec.startswith(POLICY_PREFIX)}
    for spec in factories if game is not None else ():
        make_agent(spec, game)
    return factories
