"""The lean acting pass (parlor.training.learning.rollout): the same actions, values, log-probabilities
and random draws as sb3-contrib's forward pass, and training through it bit for bit the stock training."""
from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from parlor.training.learning.configs import PPOConfig, TrainConfig
from parlor.training.learning.opponents import PoolEntry
from parlor.training.learning.rollout import ParlorMaskablePPO, lean_act, lean_plan
from parlor.training.learning.train import make_model, make_vec_env


def _policy(activation: type = torch.nn.ReLU, **kwargs) -> MaskableActorCriticPolicy:
    torch.manual_seed(1)
    return MaskableActorCriticPolicy(spaces.Box(-1.0, 1.0, (11,), np.float32), spaces.Discrete(7), lambda _: 3e-4,
                                     net_arch=dict(pi=[16, 8], vf=[12]), activation_fn=activation, **kwargs)


@pytest.mark.parametrize("activation", [torch.nn.ReLU, torch.nn.Tanh, torch.nn.ELU])
def test_lean_act_gives_the_forward_pass_numbers_and_random_draws(activation: type) -> None:
    policy = _policy(activation)
    plan = lean_plan(policy)
    assert plan is not None
    rng = np.random.default_rng(0)
    for n in (1, 2, 5):
        obs = torch.as_tensor(rng.uniform(-1, 1, (n, 11)).astype(np.float32))
        masks = rng.random((n, 7)) < 0.4
        masks[:, 3] = True  # at least one legal action per row
        for mask in (masks, None):
            torch.manual_seed(n)
            with torch.no_grad():
                stock = policy(obs, action_masks=mask)
            stock_rng = torch.get_rng_state()
            torch.manual_seed(n)
            with torch.no_grad():
                lean = lean_act(policy, plan, obs, mask)
            assert all(torch.equal(s, x) and s.dtype == x.dtype and s.shape == x.shape for s, x in zip(stock, lean))
            assert torch.equal(stock_rng, torch.get_rng_state())  # the same draws: later samples stay in step
            if mask is not None:
                assert mask[np.arange(n), lean[0].numpy()].all()


def test_a_policy_of_another_shape_acts_through_the_stock_forward() -> None:
    assert lean_plan(_policy(share_features_extractor=False)) is None


def _trained(model_class: type, config: TrainConfig) -> dict[str, np.ndarray]:
    vec = make_vec_env(config)
    try:
        model = make_model(config, vec, Path(tempfile.mkdtemp()))
        if model_class is MaskablePPO:  # the same model through sb3-contrib's own rollout collection
            model.collect_rollouts = MaskablePPO.collect_rollouts.__get__(model)
        else:
            assert type(model) is ParlorMaskablePPO
        model.learn(512)
        return {k: v.detach().numpy().copy() for k, v in model.policy.state_dict().items()}
    finally:
        vec.close()


def test_training_through_the_lean_pass_is_the_stock_training() -> None:
    # tonk against its heuristic: masks that change every decision, episodes that end mid-rollout
    config = TrainConfig(env="tonk_v0", opponents=(PoolEntry("heuristic"),), n_envs=2, seed=5, vec_env="dummy",
                         ppo=PPOConfig(n_steps=64, batch_size=32, n_epochs=2, net_arch=(16, 16)))
    stock, lean = _trained(MaskablePPO, config), _trained(ParlorMaskablePPO, config)
    assert stock.keys() == lean.keys()
    assert all(np.array_equal(stock[k], lean[k]) for k in stock)
    assert not np.array_equal(stock["action_net.weight"], _trained(ParlorMaskablePPO, replace(config, seed=6))[
        "action_net.weight"])  # the comparison can tell two trainings apart
