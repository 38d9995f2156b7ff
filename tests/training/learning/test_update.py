"""The lean update (parlor.training.learning.update): the same loss pass, gradients and minibatches as
sb3-contrib's MaskablePPO.train, and training through it bit for bit the stock training."""
from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import gymnasium as gym
import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.vec_env import DummyVecEnv

from parlor.training.learning.configs import PPOConfig, TrainConfig
from parlor.training.learning.opponents import PoolEntry
from parlor.training.learning.rollout import ParlorMaskablePPO, lean_plan
from parlor.training.learning.train import make_model, make_vec_env
from parlor.training.learning.update import applies, lean_evaluate
from tests.training.learning.test_rollout import _policy  # the small policy both passes are checked on


def _grads(policy: MaskableActorCriticPolicy, out: tuple[torch.Tensor, ...]) -> list[torch.Tensor]:
    values, log_prob, entropy = out
    policy.zero_grad()
    (log_prob.exp().mean() * 0.7 - entropy.mean() * 0.01 + values.square().mean()).backward()
    return [p.grad.clone() for p in policy.parameters()]


@pytest.mark.parametrize("activation", [torch.nn.ReLU, torch.nn.Tanh, torch.nn.ELU])
def test_lean_evaluate_gives_the_stock_numbers_and_gradients(activation: type) -> None:
    policy, rng = _policy(activation), np.random.default_rng(3)
    plan = lean_plan(policy)
    assert plan is not None
    obs = torch.as_tensor(rng.uniform(-1, 1, (33, 11)).astype(np.float32))
    for masks in (rng.random((33, 7)) < 0.5, np.ones((33, 7), dtype=bool)):
        masks[:, 2] = True
        actions = torch.as_tensor(np.array([rng.choice(np.flatnonzero(m)) for m in masks]), dtype=torch.float32)
        mask_tensor = torch.as_tensor(masks, dtype=torch.float32)  # as the rollout buffer stores them
        stock = policy.evaluate_actions(obs, actions.long().flatten(), action_masks=mask_tensor)
        stock_grads = _grads(policy, stock)
        lean = lean_evaluate(policy, plan, obs, actions.long().flatten(), mask_tensor)
        assert all(torch.equal(s, x) and s.shape == x.shape for s, x in zip(stock, lean))
        assert all(torch.equal(s, x) for s, x in zip(stock_grads, _grads(policy, lean)))


class _Guess(gym.Env):
    """Random observations and masks from the env's seed; reward: the observation's entry at the
    action; truncated after 7 steps (the value bootstrap of a timeout)."""

    observation_space = spaces.Box(-1.0, 1.0, (6,), np.float32)
    action_space = spaces.Discrete(5)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        self.t = 0
        return self._next(), {}

    def _next(self) -> np.ndarray:
        self.obs = self.np_random.uniform(-1, 1, 6).astype(np.float32)
        self.mask = self.np_random.random(5) < 0.6
        self.mask[self.np_random.integers(5)] = True
        return self.obs

    def action_masks(self) -> np.ndarray:
        return self.mask

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        reward = float(self.obs[int(action)])
        self.t += 1
        return self._next(), reward, False, self.t >= 7, {}


def _state(model: MaskablePPO) -> dict[str, np.ndarray]:
    """The weights, Adam's moments and the update's log records of ``model``."""
    return {**{k: v.detach().numpy().copy() for k, v in model.policy.state_dict().items()},
            **{f"optimizer {i} {k}": s[k].numpy().copy() for i, s in
               enumerate(model.policy.optimizer.state_dict()["state"].values()) for k in ("exp_avg", "exp_avg_sq")},
            **{f"log {k}": np.asarray(v) for k, v in model.logger.name_to_value.items()}}


def _same(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def _guess_trained(stock: bool, activation: type = torch.nn.ReLU, use_masking: bool = True, seed: int = 5,
                   **settings: object) -> dict[str, np.ndarray]:
    model = ParlorMaskablePPO("MlpPolicy", DummyVecEnv([_Guess, _Guess]), n_steps=64, batch_size=48, n_epochs=3,
                              seed=seed, policy_kwargs=dict(net_arch=[16, 16], activation_fn=activation))
    for name, value in settings.items():
        setattr(model, name, value)
    if stock:
        model.train = MaskablePPO.train.__get__(model)
    else:
        assert applies(model, lean_plan(model.policy))
    model.learn(384, use_masking=use_masking)  # 3 updates; 128 steps in minibatches of 48: the last one short
    return _state(model)


@pytest.mark.parametrize("activation", [torch.nn.ReLU, torch.nn.Tanh])
@pytest.mark.parametrize("use_masking", [True, False])
def test_training_through_the_lean_update_is_the_stock_training(activation: type, use_masking: bool) -> None:
    stock = _guess_trained(True, activation, use_masking)
    assert _same(stock, _guess_trained(False, activation, use_masking))
    assert not _same(stock, _guess_trained(True, activation, use_masking, seed=6))  # the check tells runs apart


def test_the_value_clip_and_the_early_stop_are_the_stock_ones() -> None:
    settings = dict(clip_range_vf=lambda _: 0.1, target_kl=1e-6, normalize_advantage=False)  # schedules: callables
    stock = _guess_trained(True, **settings)
    assert _same(stock, _guess_trained(False, **settings))
    assert stock["log train/n_updates"] < 9  # the early stop cut epochs short (3 updates x 3 epochs without it)
    assert "log train/clip_range_vf" in stock


def test_a_tonk_training_through_the_lean_update_is_the_stock_training() -> None:
    # masks that change every decision, episodes that end mid-rollout, parlor's vector env
    config = TrainConfig(env="tonk_v0", opponents=(PoolEntry("heuristic"),), n_envs=2, seed=5, vec_env="dummy",
                         ppo=PPOConfig(n_steps=64, batch_size=48, n_epochs=3, net_arch=(16, 16)))
    states = []
    for stock in (True, False):
        vec = make_vec_env(config)
        try:
            model = make_model(config, vec, Path(tempfile.mkdtemp()))
            if stock:
                model.train = MaskablePPO.train.__get__(model)
            model.learn(384)
            states.append(_state(model))
        finally:
            vec.close()
    assert _same(*states)


def test_a_policy_of_another_shape_learns_through_sb3_contribs_update() -> None:
    states = []
    for stock in (True, False):  # each model built right before it learns: one seeds the generators for both
        model = ParlorMaskablePPO("MlpPolicy", DummyVecEnv([_Guess, _Guess]), n_steps=32, batch_size=16, n_epochs=2,
                                  seed=3, policy_kwargs=dict(net_arch=[8], share_features_extractor=False))
        assert lean_plan(model.policy) is None
        if stock:
            model.train = MaskablePPO.train.__get__(model)
        model.learn(128)
        states.append(_state(model))
    assert _same(*states)
