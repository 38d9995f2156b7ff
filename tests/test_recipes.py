"""docs/recipes.md stays true: every Python block in it runs as written, in a fresh
interpreter, and prints its result; the table of Gymnasium ids lists exactly the registered ids."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RECIPES = ROOT / "docs" / "recipes.md"
SECTION = re.compile(r"^## (.+?)\n(.*?)(?=^## |\Z)", re.MULTILINE | re.DOTALL)
PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
# what each recipe prints when it worked (a recipe whose script prints nothing proves little)
PRINTS = {
    "make_vec_env": r"DummyVecEnv: 128 steps, frames \[\(\d+, \d+, 3\), \(\d+, \d+, 3\)\]\n"
                    r"SubprocVecEnv: 128 steps, frames \[\(\d+, \d+, 3\), \(\d+, \d+, 3\)\]",
    "to_sb3": r"predict plays the parlor agent's action in 100/100 decisions\ntrained 512 more steps, saved buki_tuned.zip",
    "MaskablePPO": r"points per hand against the heuristic: [+-]\d+\.\d\d \(sd \d+\.\d\d\)",
    "Tianshou": r"player_0's best test return: [+-]\d+\.\d\d",
    "RLlib": r"tonk_rllib against the heuristic: [+-]\d+\.\d\d points per game \(95% CI ± \d+\.\d\d\)",
    "SuperSuit": r"tonk_v0: dtype_v0 refuses the Dict observation \('Dict' object has no attribute 'low'\)\n"
                 r"connect_four_v3: dtype_v0 refuses.*\n"
                 r"observation_lambda_v0 with a space function: \['action_mask', 'observation'\], mask kept: True\n"
                 r"frame_stack_v1 on parlor/Tonk-v0: observation \(\d+,\), [1-9]\d* legal actions",
    "PettingZoo": r"illegal action: \{'player_0': -1\.0.*all terminated: True\n.*returns of a random parallel episode",
}


# the recipes that train (a fresh interpreter importing torch, tianshou or Ray, then
# learning): minutes on a small machine, so make test-all runs them and make test does not
# (make_vec_env's ids and SubprocVecEnv: tests/training/learning/test_registration.py)
TRAINING = ("MaskablePPO", "to_sb3", "Tianshou", "RLlib", "make_vec_env")


def recipes() -> list:
    found = []
    for title, body in SECTION.findall(RECIPES.read_text(encoding="utf-8")):
        for code in PYTHON_BLOCK.findall(body):
            slow = [pytest.mark.slow] if any(key in title for key in TRAINING) else []
            found.append(pytest.param(title, code, id=title.split()[0], marks=slow))
    return found


def test_every_recipe_has_a_check() -> None:
    titles = [p.values[0] for p in recipes()]
    assert len(titles) == len(PRINTS)
    assert all(any(key in title for title in titles) for key in PRINTS)


@pytest.mark.parametrize("title,code", recipes())
def test_recipe_runs_as_written(title: str, code: str, tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"recipe {title!r} failed:\n{done.stderr[-3000:]}"
    expected = next(pattern for key, pattern in PRINTS.items() if key in title)
    assert re.search(expected, done.stdout, re.DOTALL), f"recipe {title!r} printed:\n{done.stdout[-2000:]}"


def test_the_id_table_lists_every_registered_id() -> None:
    from parlor.training.learning import gym_ids

    table = dict(re.findall(r"^\| `(parlor/[\w-]+)` \| `(\w+)` \|$", RECIPES.read_text(encoding="utf-8"), re.MULTILINE))
    assert table == gym_ids()
