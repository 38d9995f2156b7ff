"""The distribution: one ``parlor`` namespace mapped from the repository's top-level folders.

A user's own project may have ``envs/``, ``agents/`` or ``training/`` packages; installing
parlor must neither shadow them nor be broken by them.
"""
from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[1]
MAPPED = {"envs": "parlor.envs", "agents": "parlor.agents", "training": "parlor.training", "cli": "parlor.cli"}


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_every_package_folder_is_listed_in_the_build_configuration() -> None:
    found = {
        f"{MAPPED[top]}{'.'.join(('',) + init.parent.relative_to(ROOT / top).parts)}"
        for top in MAPPED
        for init in (ROOT / top).rglob("__init__.py")
    }
    setuptools = pyproject()["tool"]["setuptools"]
    assert sorted(setuptools["packages"]) == sorted(found)
    assert setuptools["package-dir"] == {v: k for k, v in MAPPED.items()}


def test_the_type_checker_sees_every_package_under_its_installed_name() -> None:
    # mypy cannot follow the editable install's import hook: .typecheck/parlor/NAME links to each folder
    links = {p.name: p for p in (ROOT / ".typecheck" / "parlor").iterdir()}
    assert {f"parlor.{name}": path.resolve() for name, path in links.items()} == {
        package: (ROOT / folder).resolve() for package, folder in pyproject()["tool"]["setuptools"]["package-dir"].items()}
    assert sorted(pyproject()["tool"]["mypy"]["packages"]) == sorted(MAPPED.values())


def test_make_installs_the_scale_extra_with_ray_pinned() -> None:
    # the Ray tests need it: CI (make test) must install what they use
    project = pyproject()["project"]
    (ray,) = [r for r in project["optional-dependencies"]["scale"] if r.startswith("ray")]
    assert ray.startswith("ray[rllib]==2.60.")
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert '".[train,dev,pictures,scale]"' in makefile and "--dist loadgroup" in makefile
    assert "gymnasium>=1.0" in project["dependencies"]  # ray[rllib] 2.60 pins gymnasium 1.2.2


def test_console_script_points_into_the_namespace() -> None:
    assert pyproject()["project"]["scripts"]["parlor"] == "parlor.cli:main"


def _user_project(folder: Path) -> None:
    """A user's project with packages named like parlor's source folders."""
    for name in MAPPED:
        (folder / name).mkdir()
        (folder / name / "__init__.py").write_text(f"OWNER = 'user {name}'\n")
    (folder / "agents" / "base.py").write_text("OWNER = 'user agents.base'\n")


@pytest.mark.slow
def test_wheel_installs_into_a_fresh_venv_next_to_a_users_own_envs_agents_training(tmp_path: Path) -> None:
    # A non-editable install: build the wheel, install it into a new venv, use it from a
    # folder holding the user's own envs/, agents/ and training/ packages.
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(dist), str(ROOT)], check=True, capture_output=True)
    (wheel,) = dist.glob("parlor-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"parlor"}, f"the wheel installs top-level {sorted(tops)}"
    for data in ("parlor/envs/py.typed", "parlor/agents/py.typed", "parlor/training/py.typed", "parlor/cli/py.typed",
                 "parlor/agents/pretrained/ofc_pineapple.zip"):
        assert data in names

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q",
                    str(wheel)], check=True, capture_output=True)
    # the dependencies (numpy, pettingzoo, ...) come from the test environment's site-packages;
    # a plain path line does not run that folder's .pth files, so its editable parlor stays out
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    Path(purelib, "test-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    project = tmp_path / "user_project"
    project.mkdir()
    _user_project(project)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"PYTHONPATH": str(project)}
    script = (
        "import agents, envs, training, agents.base\n"
        "assert agents.OWNER == 'user agents' and agents.base.OWNER == 'user agents.base'\n"
        "assert envs.OWNER == 'user envs' and training.OWNER == 'user training'\n"
        "import parlor.envs, parlor.cli, parlor.training.cli\n"
        f"assert parlor.envs.__file__.startswith({purelib!r}), parlor.envs.__file__\n"
        "env = parlor.envs.make('ofc_v0', variant='pineapple'); env.reset(seed=0)\n"
        "print(len(parlor.envs.ENVS))\n"
    )
    out = subprocess.run([str(python), "-c", script], cwd=project, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) == 7

    run = subprocess.run([str(venv / "bin" / "parlor"), "eval", "tonk_v0", "--agents", "random,heuristic",
                          "--games", "4", "--seed", "0", "--workers", "1", "--out", str(tmp_path / "eval")],
                         cwd=project, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "eval" / "results.json").is_file()
