"""docs/adding_a_game.md stays true: a game built from the guide alone is a registered parlor env.

The guide's ``file=...`` blocks are written into a fresh folder and installed there with pip
(``--target``, no dependencies: parlor comes from this interpreter), exactly the package
the guide describes. Then, in fresh interpreters that see that folder: the guide's ``python
run`` blocks pass (``parlor.envs.testing.check_env`` on every preset; an episode of the
Gymnasium id), and its shell commands list the env, evaluate it with the heuristic, search
and random agents, write game records and replay them as text and as a page of pictures.
"""
from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[1]
# one xdist worker for the module: its module fixture (the guide's package, installed) is built once, not once per worker
pytestmark = pytest.mark.xdist_group("test_adding_a_game")
GUIDE = ROOT / "docs" / "adding_a_game.md"
FILE_BLOCK = re.compile(r"^```(\w+) file=(\S+)\n(.*?)^```", re.MULTILINE | re.DOTALL)
RUN_BLOCK = re.compile(r"^```python run\n(.*?)^```", re.MULTILINE | re.DOTALL)
SHELL_BLOCK = re.compile(r"^```bash\n(.*?)^```", re.MULTILINE | re.DOTALL)
CLI = "import sys; from parlor.cli import main; sys.exit(main(sys.argv[1:]))"


def guide() -> str:
    return GUIDE.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """The guide's package, installed into its own folder; the environment that sees it."""
    root = tmp_path_factory.mktemp("my_kuhn_project")
    for _, path, body in FILE_BLOCK.findall(guide()):
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(body, encoding="utf-8")
    site = root / "site"
    if can_build():
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                        "--target", str(site), str(root)], check=True, capture_output=True, timeout=300)
    else:
        install_by_hand(root, site)
    return root, environment(site)


def can_build() -> bool:
    """This interpreter has the build backend the guide's pyproject.toml asks for (a venv of
    Python 3.12 or later comes without setuptools; pip then needs the network to get it)."""
    try:
        return int(importlib.metadata.version("setuptools").split(".")[0]) >= 77
    except importlib.metadata.PackageNotFoundError:
        return False


def install_by_hand(root: Path, site: Path) -> None:
    """What ``pip install --target site root`` leaves there: the packages the pyproject.toml
    names and a dist-info holding its entry points (what ``importlib.metadata`` reads)."""
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    for package in project["tool"]["setuptools"]["packages"]:
        shutil.copytree(root / package.replace(".", "/"), site / package.replace(".", "/"))
    meta = project["project"]
    info = site / f"{meta['name'].replace('-', '_')}-{meta['version']}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {meta['name']}\nVersion: {meta['version']}\n",
                                   encoding="utf-8")
    (info / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{name} = {target}\n" for name, target in points.items())
        for group, points in meta["entry-points"].items()), encoding="utf-8")


def environment(site: Path) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")])))


def run_python(code: str, cwd: Path, env: dict[str, str], *args: str) -> str:
    done = subprocess.run([sys.executable, "-W", "ignore", "-c", code, *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{code[:200]!r} {args} failed:\n{done.stderr[-3000:]}"
    return done.stdout


def run_commands(block: str, cwd: Path, env: dict[str, str]) -> list[str]:
    """Each ``parlor ...`` line of a shell block, run with this interpreter; what each printed."""
    outputs = []
    for line in block.strip().splitlines():
        argv = shlex.split(line)
        assert argv[0] == "parlor", line
        outputs.append(run_python(CLI, cwd, env, *argv[1:]))
    return outputs


def test_the_guide_shows_every_file_of_the_package_and_its_checks() -> None:
    files = [path for _, path, _ in FILE_BLOCK.findall(guide())]
    assert files == ["my_kuhn/game.py", "my_kuhn/presenter.py", "my_kuhn/agents.py", "my_kuhn/kuhn_v0.py",
                     "my_kuhn/__init__.py", "pyproject.toml", "kuhn_train.yaml"]
    assert len(RUN_BLOCK.findall(guide())) == 2 and len(SHELL_BLOCK.findall(guide())) == 2


def test_the_guides_game_passes_every_check_of_the_harness(project) -> None:
    root, env = project
    code, _ = RUN_BLOCK.findall(guide())
    out = run_python(code, root, env)
    assert re.search(r"^default: every check passed; not applicable: none$", out, re.MULTILINE), out
    assert re.search(r"^ante_2: every check passed; not applicable: none$", out, re.MULTILINE), out


def test_the_guides_commands_list_evaluate_record_and_replay_the_game(project) -> None:
    root, env = project
    block, _ = SHELL_BLOCK.findall(guide())
    listed, _, episodes, _ = run_commands(block, root, env)
    assert re.search(r"^kuhn_v0 +Kuhn poker \(J Q K", listed, re.MULTILINE), listed
    run = root / "runs" / "kuhn"
    results = json.loads((run / "results.json").read_text(encoding="utf-8"))
    assert {"heuristic", "search", "random"} <= set(json.dumps(results).split('"'))
    records = (run / "records.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(records) == 36  # 12 games for each of the 3 matchups
    assert json.loads(records[0])["env"] == "kuhn_v0"
    assert len(episodes.splitlines()) == len(records)
    page = (run / "episode0.html").read_text(encoding="utf-8")
    steps = len(json.loads(records[0])["steps"])
    assert page.count("<svg xmlns") == steps + 1 and "Kuhn poker" in page


def test_the_guides_gymnasium_id_plays_an_episode(project) -> None:
    root, env = project
    _, code = RUN_BLOCK.findall(guide())
    out = run_python(code, root, env)
    assert re.fullmatch(r"parlor/Kuhn-v0: observation \(12,\), return [+-][12] against the heuristic\n", out), out


def test_the_guides_game_gets_its_agents_and_gymnasium_id_from_the_registry(project) -> None:
    root, env = project
    code = (
        "from parlor import envs\n"
        "from parlor.agents.registry import agent_names, make_agent, search_defaults\n"
        "from parlor.training.learning import gym_ids\n"
        "game = envs.make_game('kuhn_v0')\n"
        "print(type(make_agent('heuristic', game)).__name__, agent_names('kuhn_v0'),\n"
        "      search_defaults('kuhn_v0'), gym_ids()['parlor/Kuhn-v0'], envs.EXTERNAL)\n"
    )
    out = run_python(code, root, env)
    assert out.split()[0] == "KuhnHeuristic"
    assert "['random', 'heuristic', 'search', 'ppo:<zip>']" in out
    assert ("SearchDefaults(budget=32, rollout='heuristic', horizon='episode', max_candidates=None) kuhn_v0 "
            "{'kuhn_v0': 'my_kuhn.kuhn_v0'}") in out


@pytest.mark.slow  # a PPO run; make test trains on Kuhn poker in tests/training/cli/test_train.py
def test_the_guides_training_config_trains_a_policy(project) -> None:
    pytest.importorskip("sb3_contrib")  # the train extra
    root, env = project
    _, block = SHELL_BLOCK.findall(guide())
    (out,) = run_commands(block, root, env)
    (model,) = (root / "runs" / "train").glob("*/model.zip")
    assert f"saved {model.relative_to(root)} after 256 steps" in out, out


def test_installing_by_hand_registers_the_guides_game_as_pip_does(project, tmp_path: Path) -> None:
    root, _ = project
    install_by_hand(root, tmp_path / "site")
    code = "from parlor import envs; print(envs.EXTERNAL, envs.make_game('kuhn_v0').name)"
    assert run_python(code, tmp_path, environment(tmp_path / "site")) == "{'kuhn_v0': 'my_kuhn.kuhn_v0'} kuhn_v0\n"
