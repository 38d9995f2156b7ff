"""DESIGN.md's one-way dependencies: engine and rules are framework-free, parlor.envs never
imports parlor.agents or parlor.training, parlor.agents never imports parlor.training,
evaluation (parlor.training.evaluation) never imports torch or stable-baselines3 (and Ray
only inside functions, never RLlib), only parlor.training imports Ray, the command line's
entry point (parlor.cli: ``play``, ``replay``, ``soak``) needs only the core install, and every
import of the project's own code goes through the ``parlor`` namespace."""
from __future__ import annotations

import ast
import functools
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FRAMEWORKS = {"gymnasium", "pettingzoo", "stable_baselines3", "sb3_contrib", "torch", "ray"}


PROJECT_ROOTS = {"envs", "agents", "training", "cli"}


@functools.cache
def parsed(path: Path) -> ast.Module:
    """The file's syntax tree, parsed once per process: several checks read each file."""
    return ast.parse(path.read_text(encoding="utf-8"))


@functools.cache
def imported_modules(path: Path) -> frozenset[str]:
    tree = parsed(path)
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules.add(node.module)
            if node.module == "parlor":  # ``from parlor import envs``
                modules.update(f"parlor.{a.name}" for a in node.names)
    return frozenset(modules)


def imported_roots(path: Path) -> set[str]:
    return {name.split(".")[0] for name in imported_modules(path)}


def imported_layers(path: Path) -> set[str]:
    """The parlor sub-packages (``envs``, ``agents``, ``training``) a file imports."""
    return {name.split(".")[1] for name in imported_modules(path) if name.startswith("parlor.")}


def project_files() -> list[Path]:
    return sorted(p for top in (*PROJECT_ROOTS, "tests") for p in (ROOT / top).rglob("*.py"))


def framework_free_files() -> list[Path]:
    """Everything under envs/ except the adapter, the PettingZoo entry modules and the public
    harness (envs/testing/, which drives the PettingZoo API like pettingzoo.test)."""
    files = []
    for path in (ROOT / "envs").rglob("*.py"):
        rel = path.relative_to(ROOT / "envs")
        if rel.name == "aec.py" or (len(rel.parts) == 1 and rel.stem != "__init__") or rel.parts[0] == "testing":
            continue
        files.append(path)
    return files


@pytest.mark.parametrize("path", framework_free_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_engine_and_rules_import_no_rl_framework(path: Path) -> None:
    assert not imported_roots(path) & FRAMEWORKS


@pytest.mark.parametrize("path", sorted((ROOT / "envs").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_envs_never_import_agents_or_training(path: Path) -> None:
    assert not imported_layers(path) & {"agents", "training"}


@pytest.mark.parametrize("path", sorted((ROOT / "agents").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_agents_never_import_training(path: Path) -> None:
    assert "training" not in imported_layers(path)


@pytest.mark.parametrize("path", project_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_project_code_is_imported_through_the_parlor_namespace(path: Path) -> None:
    assert not imported_roots(path) & PROJECT_ROOTS


NO_TORCH = {"torch", "stable_baselines3", "sb3_contrib"}


@pytest.mark.parametrize("path", sorted((ROOT / "training" / "evaluation").rglob("*.py")),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_evaluation_imports_no_torch_or_sb3(path: Path) -> None:
    # the worker pool and the policy server included: torch is loaded by agents/ code in the server only
    assert not imported_roots(path) & NO_TORCH


@pytest.mark.parametrize("path", sorted((ROOT / "training" / "evaluation").rglob("*.py")),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_evaluation_imports_ray_only_inside_functions_and_never_rllib(path: Path) -> None:
    tree = parsed(path)
    top_level = {n for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))
                 for n in ([a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""])}
    assert not {n.split(".")[0] for n in top_level} & {"ray"}
    assert not {n for n in imported_modules(path) if n.startswith("ray.rllib")}


@pytest.mark.parametrize("path", sorted(p for top in ("envs", "agents") for p in (ROOT / top).rglob("*.py")),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_only_training_imports_ray(path: Path) -> None:
    assert "ray" not in imported_roots(path)


def test_an_evaluation_runs_without_loading_torch() -> None:
    # the AST check above sees direct imports; this sees what an evaluation loads transitively
    code = (
        "import sys\n"
        "from parlor.training.evaluation import EvalConfig, evaluate\n"
        "from parlor.training.evaluation import report\n"
        "evaluate(EvalConfig(env='tonk_v0', agents=('heuristic', 'random', 'search:2'), games=2))\n"
        f"loaded = sorted(m for m in sys.modules if m.split('.')[0] in {sorted(NO_TORCH)!r})\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300)


@pytest.mark.parametrize("path", sorted((ROOT / "cli").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_command_line_package_imports_no_training_library(path: Path) -> None:
    # of parlor.training it may use only the torch-free evaluation package; the training
    # commands are imported by name (parlor.cli.SUBCOMMANDS) when one of them runs
    assert not imported_roots(path) & (NO_TORCH | {"ray"})
    training = {m for m in imported_modules(path) if m.startswith("parlor.training")}
    assert all(m.startswith("parlor.training.evaluation") for m in training), training


def test_play_replay_and_soak_run_without_loading_torch_or_ray(tmp_path: Path) -> None:
    # the AST check above sees direct imports; this runs the three commands (play reads an
    # empty stdin, so its human abandons) and sees what they load transitively
    code = (
        "import sys\n"
        "from parlor import envs\n"
        "from parlor.agents.episodes import play_episode\n"
        "from parlor.agents.registry import make_agent\n"
        "from parlor.cli import build_parser, main\n"
        "from parlor.cli.play import save_record\n"
        "build_parser()\n"
        "assert main(['soak', '--steps', '1', '--envs', 'tonk_v0']) == 0\n"
        "assert main(['play', 'tonk_v0', '--seed', '1']) == 1\n"
        "game = envs.make_game('tonk_v0')\n"
        "seats = [make_agent('random', game) for _ in range(game.num_players)]\n"
        "path = save_record(game, 'tonk_v0', play_episode(game, seats, 1).state, 1, ['random'] * len(seats))\n"
        "assert main(['replay', path, '--html', 'game.html']) == 0\n"
        f"loaded = sorted(m for m in sys.modules if m.split('.')[0] in {sorted(NO_TORCH | {'ray'})!r})\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300, cwd=tmp_path, stdin=subprocess.DEVNULL)
    assert (tmp_path / "game.html").is_file()
