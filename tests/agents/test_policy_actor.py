"""A policy file's actor (torch alone, no sb3 network built) computes bit for bit what the sb3
network computes: logits and masked probabilities, on every shipped policy and both activations,
at positions of seeded random play, perturbed observations and arbitrary masks; and so does the
same actor served to another process (an evaluation worker's RemoteActor)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("safetensors")

from parlor import envs
from parlor.agents.policy import PolicyAgent, _build, read_signature
from parlor.agents.policy_actor import FileActor, NetworkActor, PolicyClient, RemoteActor, file_key
from parlor.agents.policy_format import read_policy_file
from tests.agents.policy_files import tiny_policy

ROOT = Path(__file__).resolve().parents[2]
PRETRAINED = ROOT / "agents" / "pretrained"
SHIPPED = sorted(p.name for p in PRETRAINED.glob("*.zip"))


def observations(env_name: str, options: dict, count: int, seed: int = 0):
    """(observation, mask) of ``count`` decisions of seeded random play."""
    env, rng = envs.make(env_name, **options), np.random.default_rng(seed)
    env.reset(seed=seed)
    found = 0
    while found < count:
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            mask = np.asarray(obs["action_mask"], dtype=bool)
            yield np.asarray(obs["observation"]), mask
            found += 1
            if found >= count:
                return
            env.step(int(rng.choice(np.flatnonzero(mask))))
        env.reset(seed=seed + found)


def assert_same_numbers(path: Path, env_name: str, options: dict, count: int, served: bool = False) -> int:
    saved = read_policy_file(path)
    mine, theirs = FileActor(saved.architecture, saved.weights), NetworkActor(_build(path)[1])
    if served:  # the file's actor as a worker plays it: run by a policy server (forked before torch here)
        from parlor.training.evaluation.policy_server import PolicyServer

        server = PolicyServer([str(path)])
        mine = PolicyClient(server.address, server.authkey).actor(*file_key(path))
        assert isinstance(mine, RemoteActor)
    rng, compared = np.random.default_rng(1), 0
    for obs, mask in observations(env_name, options, count):
        noisy = (obs + rng.normal(0, 0.3, obs.shape)).astype(np.float32)  # off the game's lattice of values
        for x in (obs, noisy):
            assert np.array_equal(mine.logits(x).view(np.uint32), theirs.logits(x).view(np.uint32))
            for m in (mask, rng.random(mask.size) < 0.3, np.ones(mask.size, bool)):
                if m.any():
                    p, q = mine.probabilities(x, m), theirs.probabilities(x, m)
                    assert np.array_equal(p.view(np.uint64), q.view(np.uint64)), (path.name, x, m)
                    compared += 1
    if served:
        server.close()
    return compared


@pytest.mark.parametrize("name", SHIPPED)
def test_a_shipped_policy_file_actor_computes_the_networks_very_numbers(name: str) -> None:
    header = read_signature(PRETRAINED / name)
    assert assert_same_numbers(PRETRAINED / name, header["env"], header["options"], 60) >= 60


@pytest.mark.parametrize("name", ["ofc_pineapple.zip", "buki_betting.zip"])
def test_a_served_actor_computes_the_networks_very_numbers(name: str) -> None:
    header = read_signature(PRETRAINED / name)
    assert assert_same_numbers(PRETRAINED / name, header["env"], header["options"], 30, served=True) >= 30


@pytest.mark.parametrize("activation", ["tanh", "relu"])
def test_both_activations_and_deeper_networks_compute_the_same_numbers(tmp_path: Path, activation: str) -> None:
    game = envs.make_game("tonk_v0", num_players=2)
    path = tiny_policy(tmp_path / "p.zip", game, hidden=(64, 32, 16), activation=activation, seed=3)
    assert assert_same_numbers(path, "tonk_v0", {"num_players": 2}, 60) >= 60


def test_an_agent_from_a_file_builds_no_sb3_network_until_asked(tmp_path: Path) -> None:
    game = envs.make_game("tonk_v0", num_players=2)
    path = tiny_policy(tmp_path / "p.zip", game, hidden=(16,))
    child = (f"import sys, numpy as np\nfrom parlor import envs\nfrom parlor.agents.policy import PolicyAgent\n"
             f"game = envs.make_game('tonk_v0', num_players=2)\n"
             f"agent = PolicyAgent.from_file({str(path)!r}, game)\n"
             f"agent.act(np.zeros(game.observation_shape, np.float32), np.ones(game.num_actions, bool))\n"
             f"print(sorted(m for m in ('sb3_contrib', 'stable_baselines3', 'torch._dynamo') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, cwd=ROOT,
                         env=os.environ.copy(), timeout=300, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"
    agent = PolicyAgent.from_file(path, game)
    assert type(agent.policy).__name__ == "MaskableActorCriticPolicy"  # built on first use, the file's weights
    assert agent.policy is agent.policy
    for name, tensor in agent.policy.state_dict().items():
        assert np.array_equal(tensor.numpy(), read_policy_file(path, framework="numpy").weights[name])
