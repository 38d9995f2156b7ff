"""Evaluation workers start cheaply and never import torch: the parent checks policies without
torch and forks its workers (which inherit the built game), and a policy server (a process
forked before the game is built, or threads of a parent that has torch already) runs the
networks for them; the records are the same whichever way the workers started."""
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
from parlor.training.evaluation.pool import pool_context
from parlor.training.evaluation.runner import EvalConfig, evaluate, plan
from tests.agents.policy_files import tiny_policy

ENV = "tonk_v0"
ROOT = Path(__file__).resolve().parents[3]

# run in a fresh interpreter, where nothing has imported torch yet; the workers report what they hold
CHILD = """
import json, sys
from parlor.training.evaluation.runner import EvalConfig, Task, evaluate, init_worker, plan, run_job, run_jobs
from parlor.training.evaluation.pool import pool_context

def played_by(job):
    from parlor.agents.policy_actor import served
    return {"torch": "torch" in sys.modules, "served": served() is not None, "episodes": run_job(job)}

config = EvalConfig(env=%r, agents=(%r, "heuristic"), games=%d, seed=5, workers=2)
planned = plan(config)
out = {"torch_after_plan": "torch" in sys.modules, "server_process": not planned.server.in_process,
       "method": pool_context(True).get_start_method()}
reports = list(run_jobs(config, planned.jobs, task=Task(init_worker, played_by), server=planned.server))
planned.server.close()
out.update(workers_torch=[r["torch"] for r in reports], workers_served=[r["served"] for r in reports],
           records=evaluate(config)["records"], torch_in_parent="torch" in sys.modules)
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def policy(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tiny_policy(tmp_path_factory.mktemp("policy") / "tonk.zip", envs.make_game(ENV), hidden=(16,))
    return f"ppo:{path}"


def test_a_fresh_parent_forks_workers_that_play_the_policy_without_torch_and_the_same_records(
        policy: str, tmp_path: Path) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    out = subprocess.run([sys.executable, "-c", CHILD % (ENV, policy, 8)], capture_output=True, text=True,
                         cwd=ROOT, env={**os.environ, "TMPDIR": str(temp)}, timeout=300)
    assert out.returncode == 0, out.stderr
    child = json.loads(out.stdout.splitlines()[-1])
    assert child["torch_after_plan"] is False  # the policy was checked from its JSON and tensor table only
    assert child["server_process"] and child["method"] == "fork"
    assert child["workers_served"] and all(child["workers_served"])
    assert not any(child["workers_torch"])  # every job played the policy in a worker without torch
    assert child["torch_in_parent"] is False  # the server process imported it, not the parent
    one = evaluate(EvalConfig(env=ENV, agents=(policy, "heuristic"), games=8, seed=5))
    assert child["records"] == json.loads(json.dumps(one["records"]))
    assert list(temp.iterdir()) == []  # both servers removed their sockets and folders


def test_a_parent_that_loaded_torch_serves_from_threads_and_forkserver_workers_give_the_same_records(
        policy: str) -> None:
    import torch  # noqa: F401  (this process has it: forking it would be unsafe)

    assert pool_context().get_start_method() == "forkserver"
    config = EvalConfig(env=ENV, agents=(policy, "heuristic"), games=8, seed=5)
    two = EvalConfig(**{**config.__dict__, "workers": 2})
    planned = plan(two)
    assert planned.server is not None and planned.server.in_process
    one, served = evaluate(config), evaluate(two, planned=planned)
    assert planned.server.closed and not os.path.exists(planned.server.folder)
    assert one["records"] == served["records"] and one["agents"] == served["agents"]
