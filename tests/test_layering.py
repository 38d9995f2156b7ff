"""DESIGN.md's one-way dependencies: engine and rules are framework-free, envs never
imports agents or training, agents never import training."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FRAMEWORKS = {"gymnasium", "pettingzoo", "stable_baselines3", "sb3_contrib", "torch"}


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def framework_free_files() -> list[Path]:
    """Everything under envs/ except the adapter and the PettingZoo entry modules."""
    files = []
    for path in (ROOT / "envs").rglob("*.py"):
        rel = path.relative_to(ROOT / "envs")
        if rel.name == "aec.py" or (len(rel.parts) == 1 and rel.stem != "__init__"):
            continue
        files.append(path)
    return files


@pytest.mark.parametrize("path", framework_free_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_engine_and_rules_import_no_rl_framework(path: Path) -> None:
    assert not imported_roots(path) & FRAMEWORKS


@pytest.mark.parametrize("path", sorted((ROOT / "envs").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_envs_never_import_agents_or_training(path: Path) -> None:
    assert not imported_roots(path) & {"agents", "training"}


@pytest.mark.parametrize("path", sorted((ROOT / "agents").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_agents_never_import_training(path: Path) -> None:
    assert "training" not in imported_roots(path)
