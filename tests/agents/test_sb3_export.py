"""``to_sb3``: a parlor policy file as a working MaskablePPO, built from its JSON and safetensors
with nothing unpickled; it predicts the parlor agent's actions (guarded ones too), refuses an
env the policy does not fit, and trains on from a checkpoint with its optimizer state."""
from __future__ import annotations

import pickle
from pathlib import Path

import gymnasium
import numpy as np
import pytest

from parlor import envs
from parlor.agents.policy import (
    PolicyAgent,
    PolicyFileError,
    PolicyMismatchError,
    read_signature,
    save_policy,
    to_sb3,
)
from parlor.training.learning import gym_id  # also registers the parlor/... ids
from tests.agents.policy_files import sb3_zip, tiny_policy

PRETRAINED = Path(__file__).resolve().parents[2] / "agents" / "pretrained"


def positions(env: gymnasium.Env, count: int, seed: int):
    """``count`` decisions of the learner (observation, env mask, legal mask, view), played by
    the first legal action of the env's mask so that play goes on where the policy differs."""
    inner = env.unwrapped
    obs, _ = env.reset(seed=seed)
    for _ in range(count):
        mask = inner.action_masks()
        yield obs, mask, inner.state.legal_mask().astype(bool), inner.state.view(inner.learner)
        obs, _, terminated, truncated, _ = env.step(int(np.flatnonzero(mask)[-1]))
        if terminated or truncated:
            obs, _ = env.reset()


@pytest.mark.parametrize("name,count", [("buki_betting.zip", 300), ("ofc_pineapple_safe.zip", 40)])
def test_predict_plays_the_parlor_agents_actions(name: str, count: int) -> None:
    path = PRETRAINED / name
    header = read_signature(path)
    env = gymnasium.make(gym_id(header["env"]), options=header["options"],
                         action_guard=header.get("action_guard"), seed=0)
    game = env.unwrapped.game
    model = to_sb3(path)
    agent = PolicyAgent.from_file(path, game)
    narrowed = 0
    for obs, mask, legal, view in positions(env, count, seed=3):
        action, _ = model.predict(obs, action_masks=mask, deterministic=True)
        # the agent narrows the legal mask with its own guard; the env's mask is already guarded
        assert int(action) == agent.act(obs, legal, view)
        narrowed += int(mask.sum() < legal.sum())
    if header.get("action_guard"):
        assert narrowed > 0, "no position where the guard mattered: the test would not see an ignored guard"


def test_nothing_is_unpickled(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import torch

    def refuse(*_args, **_kwargs):
        raise AssertionError("to_sb3 unpickled something")

    for module, name in [(pickle, "load"), (pickle, "loads"), (pickle, "Unpickler"), (torch, "load")]:
        monkeypatch.setattr(module, name, refuse)
    model = to_sb3(PRETRAINED / "buki_betting.zip")
    assert type(model).__name__ == "MaskablePPO" and model.num_timesteps == read_signature(
        PRETRAINED / "buki_betting.zip")["num_timesteps"]
    # a file of the old format (an SB3 zip whose data carries a pickle) is refused unopened
    game = envs.make_game("tonk_v0", num_players=2)
    marker = tmp_path / "ran"
    old = sb3_zip(tmp_path / "old.zip", game, marker=marker)
    monkeypatch.undo()
    with pytest.raises(PolicyFileError, match="parlor convert"):
        to_sb3(old)
    assert not marker.exists()


def test_a_policy_agent_or_its_network_converts_too(tmp_path: Path) -> None:
    game = envs.make_game("tonk_v0", num_players=2)
    path = tiny_policy(tmp_path / "tiny.zip", game)
    agent = PolicyAgent.from_file(path, game)
    env = gymnasium.make("parlor/Tonk-v0", num_players=2, seed=0)
    for source in (agent, agent.policy):
        model = to_sb3(source, env)
        for obs, mask, legal, view in positions(env, 20, seed=1):
            assert int(model.predict(obs, action_masks=mask, deterministic=True)[0]) == agent.act(obs, legal, view)
    with pytest.raises(TypeError, match="not a policy file path, a PolicyAgent or a MaskableActorCriticPolicy"):
        to_sb3(42)


def test_an_env_the_policy_does_not_fit_is_refused_naming_the_difference(tmp_path: Path) -> None:
    buki = PRETRAINED / "buki_betting.zip"
    with pytest.raises(PolicyMismatchError, match="option features: trained with True, loading into False"):
        to_sb3(buki, gymnasium.make("parlor/Buki-v0", features=False))
    safe = PRETRAINED / "ofc_pineapple_safe.zip"
    options = read_signature(safe)["options"]
    with pytest.raises(PolicyMismatchError, match="action guard .*endgame_foul.*this env applies none.*action_guard="):
        to_sb3(safe, gymnasium.make("parlor/OFC-v0", options=options))
    with pytest.raises(ValueError, match="policy_kwargs cannot be given"):
        to_sb3(buki, policy_kwargs={"net_arch": [8]})
    # an env that is not parlor's is checked by its spaces
    other = gymnasium.make("CartPole-v1")
    with pytest.raises(ValueError, match="do not fit"):
        to_sb3(tiny_policy(tmp_path / "t.zip", envs.make_game("tonk_v0", num_players=2)),
               _Boxed(other, (4,)))


class _Boxed(gymnasium.Wrapper):
    """CartPole with a Discrete(2) action and a float Box observation: spaces of another size."""

    def __init__(self, env: gymnasium.Env, shape: tuple[int, ...]):
        super().__init__(env)
        self.observation_space = gymnasium.spaces.Box(0.0, 1.0, shape, np.float32)

    def action_masks(self) -> np.ndarray:
        return np.ones(2, bool)


def test_a_checkpoint_trains_on_with_its_optimizer_state_and_counts(tmp_path: Path) -> None:
    import torch
    from sb3_contrib import MaskablePPO

    env = gymnasium.make("parlor/Tonk-v0", num_players=2, seed=0)
    game = env.unwrapped.game
    kwargs = dict(n_steps=32, batch_size=32, n_epochs=2, seed=0, device="cpu", policy_kwargs={"net_arch": [16]})
    trained = MaskablePPO("MlpPolicy", env, **kwargs)
    trained.learn(64)
    path = save_policy(trained, tmp_path / "model.zip", game, checkpoint=True)

    model = to_sb3(path, env, **{k: v for k, v in kwargs.items() if k != "policy_kwargs"})
    assert model.num_timesteps == 64 and model._n_updates == trained._n_updates
    for name, tensor in trained.policy.state_dict().items():
        assert torch.equal(model.policy.state_dict()[name], tensor), name
    theirs, mine = trained.policy.optimizer.state_dict()["state"], model.policy.optimizer.state_dict()["state"]
    assert theirs.keys() == mine.keys() and all(
        torch.equal(theirs[i][k], mine[i][k]) for i in theirs for k in theirs[i])
    before = {k: v.clone() for k, v in model.policy.state_dict().items()}
    model.learn(32, reset_num_timesteps=False)
    assert model.num_timesteps == 96 and model._n_updates > trained._n_updates
    assert any(not torch.equal(before[k], v) for k, v in model.policy.state_dict().items()), "learn changed nothing"


def test_a_model_without_env_predicts_and_learns_once_given_one() -> None:
    path = PRETRAINED / "buki_betting.zip"
    model = to_sb3(path, n_steps=32, batch_size=32, n_epochs=1, seed=0)
    assert model.get_env() is None
    env = gymnasium.make("parlor/Buki-v0", features=True, seed=0)
    obs, _ = env.reset(seed=0)
    mask = env.unwrapped.action_masks()
    assert mask[int(model.predict(obs, action_masks=mask, deterministic=True)[0])]
    model.set_env(env)
    model.learn(32)
    assert model.num_timesteps == 32
