"""The policy server of an evaluation's worker pool (:mod:`parlor.training.evaluation.policy_server`):
its answers are the policy's own, an error in a forward pass stops the run with a clear message,
a worker that dies does not stop it serving the others, and it leaves no process, socket or
folder behind (at the end, after a failed plan, on Ctrl-C, with a worker or the server killed)."""
from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("safetensors")

from parlor import envs
from parlor.agents.policy_actor import (
    LOGITS,
    FileActor,
    PolicyClient,
    PolicyServerError,
    file_actor,
    file_key,
    forward_request,
)
from parlor.envs.engine.game import ConfigError
from parlor.training.evaluation.policy_server import PolicyServer
from parlor.training.evaluation.runner import EvalConfig, evaluate, plan
from tests.agents.policy_files import tiny_policy
from tests.training.cli.paced import DELAY_VARIABLE

ENV = "tonk_v0"
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def policies(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    folder, game = tmp_path_factory.mktemp("policies"), envs.make_game(ENV)
    return [str(tiny_policy(folder / f"p{seed}.zip", game, hidden=(16,), seed=seed)) for seed in (1, 2)]


def test_several_policy_files_in_one_run_give_the_records_of_one_worker(policies: list[str]) -> None:
    config = EvalConfig(env=ENV, agents=tuple(f"ppo:{p}" for p in policies) + ("heuristic",), games=6, seed=2)
    one, two = evaluate(config), evaluate(EvalConfig(**{**config.__dict__, "workers": 2}))
    assert one["records"] == two["records"] and one["agents"] == two["agents"]


def test_an_error_in_a_forward_pass_stops_the_run_naming_the_file(policies: list[str], monkeypatch) -> None:
    def broken(self, observation, mask):
        raise FloatingPointError("a broken forward pass")

    monkeypatch.setattr(FileActor, "probabilities", broken)  # in the serving threads (this process has torch)
    config = EvalConfig(env=ENV, agents=(f"ppo:{policies[0]}", "heuristic"), games=24, seed=2, workers=2)
    planned = plan(config)
    with pytest.raises(PolicyServerError, match=rf"{policies[0]}: probabilities failed in the policy server: "
                                                 "FloatingPointError: a broken forward pass"):
        evaluate(config, planned=planned)
    assert planned.server.closed and not os.path.exists(planned.server.folder)


def test_a_worker_that_dies_does_not_stop_the_server_serving_the_others(policies: list[str]) -> None:
    import torch  # noqa: F401  (served from this process's threads, so the test forks a bare client)

    server = PolicyServer(policies)
    key = file_key(policies[0])
    pid = os.fork()
    if pid == 0:  # a worker that connects, asks, and is killed mid-conversation
        client = PolicyClient(server.address, server.authkey)
        client.actor(*key)
        client._connection.send_bytes(forward_request(LOGITS, 0, np.zeros(1, np.float32)))
        os.kill(os.getpid(), signal.SIGKILL)
    os.waitpid(pid, 0)
    game = envs.make_game(ENV)
    obs, mask = np.linspace(0, 1, int(np.prod(game.observation_shape)), dtype=np.float32), np.ones(game.num_actions, bool)
    actor = PolicyClient(server.address, server.authkey).actor(*key)
    expected = file_actor(policies[0])[1]
    assert np.array_equal(actor.probabilities(obs, mask), expected.probabilities(obs, mask))
    assert np.array_equal(actor.logits(obs), expected.logits(obs))
    with pytest.raises(PolicyServerError, match=r"unknown request b'\\x07'; allowed: logits \(1\), probabilities \(2\)"):
        actor.client.exchange(bytes([7, 0, 0, 0, 0]))
    with pytest.raises(PolicyServerError, match=rf"{policies[0]}: logits failed in the policy server: ValueError: a "
                                                 r"request of 17 bytes; this actor takes \d+ \(observation of \d+ float32\)"):
        actor.client.forward(LOGITS, actor.actor_id, obs[:3])
    server.close()
    assert not os.path.exists(server.folder) and not os.path.exists(server.address)
    with pytest.raises(PolicyServerError, match="the policy server process is gone"):
        actor.logits(obs)


def test_a_failed_plan_and_a_dropped_plan_leave_no_server(policies: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # the servers' folders go to a folder of this test's own (other tests' servers may be live in /tmp)
    import tempfile

    from parlor.training.evaluation import policy_server

    own = tempfile.mkdtemp(prefix="pt-", dir="/tmp")
    monkeypatch.setattr(policy_server, "socket_folder_base", lambda *_: own)
    with pytest.raises(ConfigError):
        plan(EvalConfig(env=ENV, agents=(f"ppo:{policies[0]}", "no_such_agent"), games=4, workers=2))
    planned = plan(EvalConfig(env=ENV, agents=(f"ppo:{policies[0]}", "heuristic"), games=4, workers=2))
    folder = planned.server.folder
    del planned
    gc.collect()
    assert not os.path.exists(folder) and os.path.dirname(folder) == own
    assert os.listdir(own) == []
    os.rmdir(own)


# the command line in a child process of its own group: a paced random agent keeps it running
def _start(out: Path, temp: Path, policy: str) -> subprocess.Popen:
    argv = [sys.executable, "-m", "parlor.training", "eval", ENV, "--agents",
            f"random=tests.training.cli.paced:PacedRandom,ppo:{policy}", "--games", "400", "--seed", "5",
            "--no-plot", "--quiet", "--workers", "2", "--out", str(out)]
    return subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, env={**os.environ, DELAY_VARIABLE: "0.01", "TMPDIR": str(temp)},
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _children(pid: int) -> list[tuple[int, int]]:
    """(pid, threads) of the processes whose parent is ``pid``."""
    out = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
            if int(fields["PPid"]) == pid:
                out.append((int(status.parent.name), int(fields["Threads"])))
        except (OSError, KeyError, ValueError):
            continue
    return out


def _wait_for_episodes(process: subprocess.Popen, out: Path) -> None:
    deadline = time.monotonic() + 120
    while not ((out / "episodes.jsonl").is_file() and (out / "episodes.jsonl").read_bytes().count(b"\n") >= 20):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the evaluation wrote no episodes"
        time.sleep(0.01)


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds the server and workers in /proc")
@pytest.mark.parametrize("stop", ["ctrl-c", "kill a worker", "kill the server"])  # (its child serving a worker)
def test_a_stopped_run_says_so_in_one_line_and_leaves_no_process_or_socket(
        policies: list[str], tmp_path: Path, stop: str) -> None:
    out, temp = tmp_path / "run", tmp_path / "tmp"
    temp.mkdir()
    process = _start(out, temp, policies[0])
    _wait_for_episodes(process, out)
    children = _children(process.pid)  # the server (threads: its own, the owner's watch) and two workers
    servers = [pid for pid, threads in children if threads > 1]
    assert len(children) == 3 and len(servers) == 1, children
    serving = _children(servers[0])  # the server's child for each worker
    assert len(serving) == 2, serving
    if stop == "ctrl-c":
        os.killpg(process.pid, signal.SIGINT)
    else:
        os.kill(serving[0][0] if stop == "kill the server" else next(p for p, _ in children if p != servers[0]),
                signal.SIGKILL)
    _, err = process.communicate(timeout=120)
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert f"parlor eval --resume {out}" in lines[0]
    expected = {"ctrl-c": (130, "interrupted"), "kill a worker": (1, "worker process died"),
                "kill the server": (1, "policy server process is gone")}[stop]
    assert (process.returncode, expected[1] in lines[0]) == (expected[0], True), err
    with pytest.raises(ProcessLookupError):
        os.killpg(process.pid, 0)  # nothing outlived the run
    assert list(temp.iterdir()) == []


def test_a_long_temporary_folder_puts_the_socket_where_its_path_fits(tmp_path) -> None:
    # a unix socket's path holds at most 107 bytes: under a long TMPDIR (a test's own folder
    # under xdist) the server's folder goes to /tmp instead of failing with "AF_UNIX path too long"
    from parlor.training.evaluation.policy_server import socket_folder_base

    assert socket_folder_base("/tmp") is None
    assert socket_folder_base("/tmp/" + "d" * 90) == "/tmp"
