"""``parlor eval --ray``: the deals as Ray tasks on a local instance give the results of one
worker, also when a worker process dies mid-run (its task is retried)."""
from __future__ import annotations

import json
import os
from dataclasses import replace

import pytest

from parlor.cli import main
from parlor.envs.engine.game import ConfigError
from parlor.training.evaluation import ray_runner
from parlor.training.evaluation.runner import EvalConfig, evaluate
from tests.harness import kuhn
from tests.training.evaluation.ray_agents import kill_marker

pytestmark = pytest.mark.xdist_group("ray")  # one xdist worker, one Ray instance for every Ray test

TONK = EvalConfig(env="tonk_v0", agents=("random", "heuristic"), options={"num_players": 3}, games=24, seed=5)


def test_ray_results_equal_one_worker(ray_cluster) -> None:
    one = evaluate(TONK)
    for chunk in (None, 1, 5):  # the default (4 tasks per CPU), a task per job, uneven chunks
        jobs_config = replace(TONK, ray=ray_runner.LOCAL)
        distributed = evaluate(jobs_config) if chunk is None else _evaluate_in_chunks(jobs_config, chunk)
        assert distributed["records"] == one["records"]
        assert distributed["agents"] == one["agents"]


def _evaluate_in_chunks(config: EvalConfig, chunk: int) -> dict:
    original = ray_runner.chunk_size
    ray_runner.chunk_size = lambda num_jobs, cpus: chunk
    try:
        return evaluate(config)
    finally:
        ray_runner.chunk_size = original


def test_a_game_given_by_function_runs_on_ray_too(ray_cluster) -> None:
    config = EvalConfig(env="kuhn_test", agents=("random", "search:8:random"), games=40, seed=3)
    one = evaluate(config, make_game=kuhn.make_game)
    assert evaluate(replace(config, ray="local"), make_game=kuhn.make_game)["records"] == one["records"]


def test_a_killed_worker_is_retried_and_the_results_are_the_same(ray_cluster) -> None:
    config = EvalConfig(env="tonk_v0", agents=("tests.training.evaluation.ray_agents:KillOnce", "random"),
                        options={"num_players": 2}, games=40, seed=1)
    marker = kill_marker()
    if os.path.exists(marker):
        os.remove(marker)
    one = evaluate(config)  # in this process: KillOnce only kills a Ray worker
    try:
        distributed = evaluate(replace(config, ray="local"))
        assert os.path.exists(marker), "no worker was killed: the test did not test a retry"
    finally:
        if os.path.exists(marker):
            os.remove(marker)
    assert distributed["records"] == one["records"]


def test_an_agent_error_in_a_task_fails_the_evaluation_at_once(ray_cluster) -> None:
    config = EvalConfig(env="tonk_v0", agents=("tests.training.evaluation.ray_agents:Faulty", "random"), games=4,
                        seed=0, ray="local")
    with pytest.raises(RuntimeError, match="this error must reach the caller"):
        evaluate(config)


def test_parlor_eval_ray_writes_the_run_folder_of_one_worker(ray_cluster, tmp_path) -> None:
    argv = ["eval", "tonk_v0", "--agents", "random,heuristic", "--games", "6", "--seed", "2", "--quiet", "--no-plot"]
    assert main(argv + ["--out", str(tmp_path / "one")]) == 0
    assert main(argv + ["--ray", "local", "--out", str(tmp_path / "ray")]) == 0
    results = {name: json.loads((tmp_path / name / "results.json").read_text()) for name in ("one", "ray")}
    assert results["ray"]["agents"] == results["one"]["agents"]
    assert "--ray local" in (tmp_path / "ray" / "command.txt").read_text()
    again = tmp_path / "again"  # a rerun of the saved config, on one worker by flag
    assert main(["eval", "--config", str(tmp_path / "ray" / "config.yaml"), "--workers", "1", "--quiet",
                 "--no-plot", "--out", str(again)]) == 0
    assert json.loads((again / "results.json").read_text())["agents"] == results["one"]["agents"]


def test_bare_ray_flag_means_the_address_variable_else_a_local_instance(monkeypatch) -> None:
    from parlor.cli import build_parser
    from parlor.training.cli.eval import config_from_args

    parser = build_parser()
    monkeypatch.delenv(ray_runner.ADDRESS_VARIABLE, raising=False)
    assert config_from_args(parser.parse_args(["eval", "tonk_v0", "--ray"])).ray == "local"
    monkeypatch.setenv(ray_runner.ADDRESS_VARIABLE, "10.0.0.5:6379")
    assert config_from_args(parser.parse_args(["eval", "tonk_v0", "--ray"])).ray == "10.0.0.5:6379"
    assert config_from_args(parser.parse_args(["eval", "tonk_v0", "--ray", "auto"])).ray == "auto"


@pytest.mark.parametrize("argv,words", [
    (["eval", "tonk_v0", "--ray", "auto", "--workers", "2"], "give one of them"),
    (["eval", "tonk_v0", "--ray", "two words"], "is not a Ray address"),
])
def test_ray_flag_errors_name_the_problem(argv, words, capsys, tmp_path) -> None:
    assert main(argv + ["--out", str(tmp_path / "x"), "--quiet"]) == 2
    assert words in capsys.readouterr().err


def test_config_refuses_workers_with_ray() -> None:
    with pytest.raises(ConfigError, match="workers=2 and ray='auto'"):
        replace(TONK, workers=2, ray="auto")


def test_chunks_give_about_four_tasks_per_cpu() -> None:
    assert ray_runner.chunk_size(100, 2) == 13
    assert ray_runner.chunk_size(3, 8) == 1
    assert ray_runner.chunk_size(1000, 0) == 250


def test_a_task_failing_beyond_its_retries_keeps_the_deals_and_resume_finishes(ray_cluster, tmp_path, monkeypatch,
                                                                                 capsys) -> None:
    argv = ["eval", "tonk_v0", "--option", "num_players=2", "--agents",
            "tests.training.evaluation.ray_agents:KillOnce,random", "--games", "40", "--seed", "1", "--quiet",
            "--no-plot"]
    marker = kill_marker()
    if os.path.exists(marker):
        os.remove(marker)
    run = tmp_path / "ray"
    monkeypatch.setattr(ray_runner, "MAX_RETRIES", 0)  # the first death is one too many
    try:
        assert main(argv + ["--ray", "local", "--out", str(run)]) == 1
        assert os.path.exists(marker), "no worker was killed: the test did not test a failure"
    finally:
        monkeypatch.undo()
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "a Ray task failed 1 times" in line and f"parlor eval --resume {run}" in line
    try:
        assert main(["eval", "--resume", str(run), "--quiet", "--no-plot"]) == 0  # on the cluster in config.yaml
    finally:
        os.remove(marker)
    assert main(argv + ["--out", str(tmp_path / "one")]) == 0
    results = {name: json.loads((tmp_path / name / "results.json").read_text()) for name in ("one", "ray")}
    assert results["ray"]["agents"] == results["one"]["agents"]


def test_the_runtime_env_variable_reaches_ray_init_and_bad_json_is_named(monkeypatch) -> None:
    ray = pytest.importorskip("ray", reason="the [scale] extra (ray) is not installed")
    calls = []
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", lambda **kwargs: calls.append(kwargs))
    monkeypatch.setenv(ray_runner.RUNTIME_ENV_VARIABLE, '{"py_modules": ["my_agents"]}')
    assert ray_runner.connect(ray_runner.LOCAL, num_cpus=1)
    assert calls[-1]["runtime_env"] == {"py_modules": ["my_agents"]}
    monkeypatch.setenv(ray_runner.RUNTIME_ENV_VARIABLE, "py_modules: x")
    with pytest.raises(ConfigError, match=r"\$PARLOR_RAY_RUNTIME_ENV is not JSON"):
        ray_runner.connect(ray_runner.LOCAL)
    monkeypatch.delenv(ray_runner.RUNTIME_ENV_VARIABLE)
    assert ray_runner.connect(ray_runner.LOCAL) and calls[-1]["runtime_env"] is None


def test_addresses_split_into_host_and_port() -> None:
    assert ray_runner.host_port("10.0.0.5:6379") == ("10.0.0.5", 6379)
    assert ray_runner.host_port("ray://head.example:10001") == ("head.example", 10001)
    assert ray_runner.host_port("[::1]:6379") == ("::1", 6379)
    assert ray_runner.host_port("auto") is None


def test_a_refused_connection_is_one_sentence_with_the_token_hint_when_it_is_the_token() -> None:
    ray = pytest.importorskip("ray", reason="the [scale] extra (ray) is not installed")
    missing = ray.exceptions.AuthenticationError("Token authentication is enabled but no authentication token was "
                                                 "found. Ensure that the token ... For more information, see: x")
    assert ray_runner.connection_problem(missing) == (
        "Token authentication is enabled but no authentication token was found (a cluster with token "
        "authentication: set RAY_AUTH_MODE=token and give the cluster's token: ~/.ray/auth_token, "
        "$RAY_AUTH_TOKEN_PATH or $RAY_AUTH_TOKEN)")
    refused = ConnectionError("Failed to connect to Ray cluster at 10.0.0.5:6379")
    refused.__cause__ = RuntimeError("... InvalidAuthToken: Authentication token is missing or incorrect ...")
    assert ray_runner.connection_problem(refused).startswith("Failed to connect to Ray cluster at 10.0.0.5:6379 (a "
                                                            "cluster with token authentication")
    assert ray_runner.connection_problem(ConnectionError("no route")) == "no route"
