"""Evaluation workers start cheaply: the parent checks policies without torch, imports torch once
and forks its workers (which inherit the built game and torch), and a parent that runs torch
itself gets workers from a forkserver that imported torch once; the records are the same
whichever way the workers started."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("safetensors")

from parlor import envs
from parlor.training.evaluation import pool
from parlor.training.evaluation.pool import pool_context
from parlor.training.evaluation.runner import EvalConfig, evaluate
from tests.agents.policy_files import tiny_policy

ENV = "tonk_v0"
ROOT = Path(__file__).resolve().parents[3]

# run in a fresh interpreter, where nothing has imported torch yet
CHILD = """
import json, sys
from parlor.training.evaluation.runner import EvalConfig, evaluate, plan
from parlor.training.evaluation.pool import pool_context
config = EvalConfig(env=%r, agents=(%r, "heuristic"), games=%d, seed=5, workers=2)
plan(config)
torch_after_plan = "torch" in sys.modules
method = pool_context().get_start_method()
result = evaluate(config)
from parlor.training.evaluation import pool
after = {"torch": "torch" in sys.modules, "preloaded": bool(pool._preloaded), "method": pool_context().get_start_method()}
import torch
torch.set_num_threads(2)
torch.ones(512, 512).softmax(1)  # a parallel operation: this process now runs OpenMP threads
after["method_after_torch_ran"] = pool_context().get_start_method()
print(json.dumps({"torch_after_plan": torch_after_plan, "method": method, "records": result["records"], **after}))
"""


@pytest.fixture(scope="module")
def policy(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tiny_policy(tmp_path_factory.mktemp("policy") / "tonk.zip", envs.make_game(ENV), hidden=(16,))
    return f"ppo:{path}"


def _fresh_process(policy: str, games: int) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD % (ENV, policy, games)], capture_output=True, text=True,
                         cwd=ROOT, env=os.environ.copy(), timeout=300, check=True)
    return json.loads(out.stdout.splitlines()[-1])


def test_a_fresh_parent_checks_the_policy_without_torch_and_forks_workers_with_the_same_records(policy: str) -> None:
    child = _fresh_process(policy, games=8)
    assert child["torch_after_plan"] is False  # the policy was checked from its JSON and tensor table only
    assert child["method"] == "fork"
    # torch was imported once, by the parent, before it forked: fork stays the way until torch runs here
    assert child["torch"] and child["preloaded"] and child["method"] == "fork"
    assert child["method_after_torch_ran"] == "forkserver"
    one = evaluate(EvalConfig(env=ENV, agents=(policy, "heuristic"), games=8, seed=5))
    assert child["records"] == json.loads(json.dumps(one["records"]))


def test_a_parent_that_loaded_torch_starts_workers_from_a_forkserver_with_the_same_records(
        policy: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import torch  # noqa: F401  (this process has it: forking it would be unsafe)

    monkeypatch.setattr(pool, "_preloaded", {})  # torch is the caller's, not the evaluation's preload

    assert pool_context().get_start_method() == "forkserver"
    config = EvalConfig(env=ENV, agents=(policy, "heuristic"), games=8, seed=5)
    one, two = evaluate(config), evaluate(EvalConfig(**{**config.__dict__, "workers": 2}))
    assert one["records"] == two["records"] and one["agents"] == two["agents"]
