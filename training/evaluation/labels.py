"""Agent labels of an evaluation: ``NAME=SPEC`` entries and the default names.

An entry of ``--agents`` (or of ``agents:`` in a config) is an agent spec of
:func:`parlor.agents.registry.make_agent`, optionally named: ``me=ppo:runs/x/model.zip``.
Without a name a trained policy is called after its file (``ppo:runs/x/model.zip`` ->
``model``), never after its path, and any other agent after its spec. The same spec
listed twice unnamed (an agent against a copy of itself) gets ``#2``, ``#3``...; any
other two agents with one name are refused, naming both.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePath

from parlor.envs.engine.game import ConfigError, shown

LABEL = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+#-]*")
LABEL_CHARS = "letters, digits and _ . + # - (not starting with . + # -)"
POLICY_PREFIX = "ppo:"


def split_entry(entry: str) -> tuple[str | None, str]:
    """``"NAME=SPEC"`` -> (NAME, SPEC); a bare spec -> (None, SPEC)."""
    if not isinstance(entry, str) or not entry.strip():
        raise ConfigError(f"agents: {shown(entry)} is not an agent; give a name such as heuristic or NAME=ppo:PATH.zip")
    entry = entry.strip()
    name, sep, spec = entry.partition("=")
    # an `=` after the first `:` belongs to the spec (a path may contain one); before it, it names the agent
    if not sep or ":" in name:
        return None, entry
    name, spec = name.strip(), spec.strip()
    if not LABEL.fullmatch(name):
        raise ConfigError(f"agents: the name {shown(name)} in {shown(entry)} may only hold {LABEL_CHARS}")
    if not spec:
        raise ConfigError(f"agents: {shown(entry)} names no agent after '='; e.g. {name}=heuristic")
    return name, spec


def default_label(spec: str) -> str:
    """A policy is called after its file name (without .zip); every other agent after its spec."""
    if spec.startswith(POLICY_PREFIX):
        return PurePath(spec[len(POLICY_PREFIX):]).stem or spec
    return spec


def agent_labels(entries: Sequence[str], field: str | None = None) -> list[str]:
    """The display name of every entry, then of the field (``field:<name>`` unless named);
    raises ConfigError when two different agents would share a name."""
    labels: list[str] = []
    owner: dict[str, str] = {}  # label -> the entry that took it
    copies: dict[str, int] = {}
    all_entries = [*entries, *([field] if field is not None else [])]
    for i, entry in enumerate(all_entries):
        name, spec = split_entry(entry)
        is_field = field is not None and i == len(all_entries) - 1
        label = name or (f"field:{default_label(spec)}" if is_field else default_label(spec))
        if label in owner:
            if name is None and split_entry(owner[label]) == (None, spec):
                copies[label] = copies.get(label, 1) + 1  # the same agent again: self-play against a copy
                label = f"{label}#{copies[label]}"
            else:
                raise ConfigError(f"agents {shown(owner[label])} and {shown(entry)} would both be called {shown(label)}; "
                                  f"name them, e.g. a={spec},b=...")
        owner[label] = entry
        labels.append(label)
    return labels
