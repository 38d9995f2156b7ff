"""Golden digests of seeded play: any change of behaviour shows up here.

Per env and preset, a digest of three seeded random-play episodes through the AEC
API (observations, masks, rewards, terminations); per env, a digest of heuristic
play (rewards, statistics, steps); for the shipped policies, a digest of their play.
A refactoring or speed-up must leave every digest as it is. When a change of
behaviour is intended (a rule fix, a new observation version), regenerate with
``python -m tests.harness.test_digests`` and say why in the commit.

Observations are hashed as float32 bytes, except those that carry a compiled kernel's
floats (OFC's ``features=True`` block), hashed rounded (``tests/harness/rounding.py``).
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from parlor import envs
from parlor.agents.episodes import play_episode
from parlor.agents.registry import make_agent
from tests.harness.cases import CASES, EnvCase
from tests.harness.rounding import has_kernel_floats, observation_bytes

GOLDEN = Path(__file__).with_name("digests.json")
ROOT = Path(__file__).resolve().parents[2]
FEATURES = {"ofc_v0": {"variant": "pineapple", "features": True}, "buffalo_bill_v0": {"features": True},
            "buki_v0": {"features": True}}
POLICIES = {  # shipped policy -> (env, options)
    "ofc_pineapple": ("ofc_v0", {"variant": "pineapple", "features": True}),
    "ofc_pineapple_safe": ("ofc_v0", {"variant": "pineapple", "features": True}),
    "buffalo_bill_solitaire": ("buffalo_bill_v0", {"num_players": 1, "reward": "score", "features": True}),
    "buki_betting": ("buki_v0", {"features": True}),
}


def random_play_digest(case: EnvCase, seeds=(0, 1, 2)) -> str:
    h = hashlib.sha256()
    kernel_floats = has_kernel_floats(case.env_name, case.options)
    for seed in seeds:
        env = case.make()
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            h.update(agent.encode())
            h.update(observation_bytes(obs["observation"], kernel_floats))
            h.update(np.asarray(obs["action_mask"], np.int8).tobytes())
            h.update(repr((float(reward), term, trunc)).encode())
            action = None
            if not (term or trunc):
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(legal.size)])
            env.step(action)
    return h.hexdigest()[:16]


def agent_play_digest(env_name: str, options: dict, agent: str, seeds=(0, 1)) -> str:
    h = hashlib.sha256()
    game = envs.make_game(env_name, **options)
    for seed in seeds:
        agent_seeds = [seed * 10 + p for p in range(game.num_players)]
        agents = [make_agent(agent, game, seed=s) for s in agent_seeds]
        result = play_episode(game, agents, seed=seed, agent_seeds=agent_seeds)
        h.update(repr((result.rewards, sorted(result.stats.items()), result.steps)).encode())
    return h.hexdigest()[:16]


def policy_spec(name: str) -> str:
    return f"ppo:{ROOT / 'agents' / 'pretrained' / f'{name}.zip'}"


def all_digests() -> dict[str, str]:
    out = {f"random {c.id}": random_play_digest(c) for c in CASES}
    for name in envs.ENVS:
        out[f"heuristic {name}"] = agent_play_digest(name, {}, "heuristic")
    for name, options in FEATURES.items():
        out[f"heuristic {name}[features]"] = agent_play_digest(name, options, "heuristic")
    for policy, (name, options) in POLICIES.items():
        out[f"policy {policy}"] = agent_play_digest(name, options, policy_spec(policy), seeds=(0,))
    return out


def golden() -> dict[str, str]:
    return json.loads(GOLDEN.read_text())


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_random_play_is_unchanged(case: EnvCase) -> None:
    assert random_play_digest(case) == golden()[f"random {case.id}"]


@pytest.mark.parametrize("name", envs.ENVS)
def test_heuristic_play_is_unchanged(name: str) -> None:
    assert agent_play_digest(name, {}, "heuristic") == golden()[f"heuristic {name}"]
    if name in FEATURES:
        assert agent_play_digest(name, FEATURES[name], "heuristic") == golden()[f"heuristic {name}[features]"]


@pytest.mark.parametrize("policy", sorted(POLICIES))
def test_shipped_policy_play_is_unchanged(policy: str) -> None:
    pytest.importorskip("torch")
    name, options = POLICIES[policy]
    assert agent_play_digest(name, options, policy_spec(policy), seeds=(0,)) == golden()[f"policy {policy}"]


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps(all_digests(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}", file=sys.stderr)
