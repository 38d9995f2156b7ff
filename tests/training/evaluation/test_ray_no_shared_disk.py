"""``parlor eval --ray`` needs no shared disk: the driver reads every policy file (relative
paths from its own working directory) and ships the bytes; a second Ray node started in
another working directory, with another HOME and temp dir, plays the deals with its own
copy, and the records are those of ``--workers 1``."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from parlor.cli import main
from parlor.envs import make_game
from parlor.training.evaluation.runner import EvalConfig, evaluate, plan
from parlor.training.evaluation.shipped import LOCAL_FOLDER
from tests.agents.policy_files import tiny_policy

pytestmark = pytest.mark.xdist_group("ray")  # one xdist worker, one Ray instance for every Ray test

JOIN_SECONDS = 60
FAR = "far_node"  # a custom resource only the second node has: a task that asks for it runs there


@pytest.fixture(scope="module")
def far_node(ray_cluster, tmp_path_factory):
    """A second node of the test session's Ray instance (1 CPU) whose processes run in a
    folder of their own: working directory, HOME and temp dir; yields that folder."""
    ray = ray_cluster
    home = tmp_path_factory.mktemp("far-node")
    token = Path.home() / ".ray" / "auth_token"  # Ray 2.60's token auth: the head's token, handed over
    env = {**os.environ, "HOME": str(home), "TMPDIR": str(home), "RAY_AUTH_TOKEN_PATH": str(token)}
    before = sum(n["Alive"] for n in ray.nodes())
    node = subprocess.Popen([str(Path(sys.executable).with_name("ray")), "start", "--block", "--num-cpus", "1",
                             "--resources", json.dumps({FAR: 1}),
                             "--address", ray.get_runtime_context().gcs_address, "--disable-usage-stats"],
                            cwd=home, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + JOIN_SECONDS
        while sum(n["Alive"] for n in ray.nodes()) <= before:
            assert node.poll() is None and time.monotonic() < deadline, "the second Ray node did not join"
            time.sleep(0.5)
        yield home
    finally:
        node.terminate()  # `ray start --block` stops the node's processes (only those) on SIGTERM
        node.wait(60)


def test_a_node_without_the_file_or_our_cwd_plays_the_shipped_policy(far_node, tmp_path, monkeypatch) -> None:
    work = tmp_path / "work"
    tiny_policy(work / "pol" / "tiny.zip", make_game("tonk_v0", num_players=2))
    monkeypatch.chdir(work)  # a relative path means what it means in the user's shell
    config = EvalConfig(env="tonk_v0", agents=("ppo:pol/tiny.zip", "random"), options={"num_players": 2},
                        games=24, seed=3)
    one = evaluate(config)
    distributed = replace(config, ray="local")
    planned = plan(distributed)  # the driver reads the file here...
    shutil.rmtree(work / "pol")  # ...so no worker can open it, wherever it runs
    result = evaluate(distributed, planned=planned)
    assert result["records"] == one["records"]
    assert result["agents"] == one["agents"]
    copies = list((far_node / LOCAL_FOLDER).glob("*-tiny.zip"))
    assert copies, "the second node played no deal with its own copy of the policy"


def test_parlor_eval_ray_from_another_cwd_writes_the_results_of_one_worker(far_node, tmp_path, monkeypatch) -> None:
    work = tmp_path / "work"
    tiny_policy(work / "pol" / "tiny.zip", make_game("tonk_v0", num_players=2))
    monkeypatch.chdir(work)
    argv = ["eval", "tonk_v0", "--option", "num_players=2", "--agents", "ppo:pol/tiny.zip,heuristic", "--games", "8",
            "--quiet", "--no-plot"]
    assert main(argv + ["--out", "one"]) == 0
    assert main(argv + ["--ray", "local", "--out", "ray"]) == 0
    results = {name: json.loads((work / name / "results.json").read_text()) for name in ("one", "ray")}
    assert results["ray"]["agents"] == results["one"]["agents"]
    assert (work / "ray" / "episodes.jsonl").read_bytes() == (work / "one" / "episodes.jsonl").read_bytes()


def test_a_missing_policy_file_fails_before_any_folder_naming_the_agent(ray_cluster, tmp_path, monkeypatch,
                                                                        capsys) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["eval", "tonk_v0", "--agents", "ppo:pol/gone.zip,random", "--ray", "local", "--quiet", "--no-plot",
                 "--out", "run"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "agent ppo:pol/gone.zip: no file 'pol/gone.zip'" in line and str(tmp_path / "pol" / "gone.zip") in line
    assert "--resume" not in line and "episodes.jsonl" not in line
    assert not (tmp_path / "run").exists()


def test_a_policy_of_another_game_is_named_by_the_users_path(tmp_path, monkeypatch, capsys) -> None:
    tiny_policy(tmp_path / "pol" / "tiny.zip", make_game("tonk_v0", num_players=2))
    monkeypatch.chdir(tmp_path)
    assert main(["eval", "tonk_v0", "--agents", "ppo:pol/tiny.zip,random", "--ray", "local", "--quiet", "--no-plot",
                 "--out", "run"]) == 2  # (tonk of 4 seats, the default: not the policy's 2)
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("parlor eval: pol/tiny.zip") and LOCAL_FOLDER not in line
    assert not (tmp_path / "run").exists()


def test_rllib_env_runners_on_a_node_without_the_file_play_a_policy_opponent(far_node, tmp_path, monkeypatch) -> None:
    pytest.importorskip("ray.rllib", reason="the [scale] extra (ray[rllib]) is not installed")
    from parlor.training import rllib as parlor_rllib

    tiny_policy(tmp_path / "pol" / "rival.zip", make_game("tonk_v0", num_players=2))
    monkeypatch.chdir(tmp_path)
    config = (parlor_rllib.ppo_config("tonk_v0", {"num_players": 2}, ["ppo:pol/rival.zip"], net_arch=(8,))
              .env_runners(num_env_runners=1, custom_resources_per_env_runner={FAR: 1})
              .training(train_batch_size_per_learner=64, minibatch_size=64, num_epochs=1))
    shutil.rmtree(tmp_path / "pol")  # read by ppo_config; the runner (on the far node) gets the bytes
    algo = config.build_algo()
    try:
        result = algo.train()
    finally:
        algo.stop()
    assert result["env_runners"]["num_env_steps_sampled"] >= 64
    assert list((far_node / LOCAL_FOLDER).glob("*-rival.zip")), "the far node's runner made no copy of the opponent"
