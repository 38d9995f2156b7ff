"""MaskablePPO's rollout collection with a lean acting pass: the same numbers, less torch overhead.

While collecting a rollout, sb3-contrib's ``MaskableActorCriticPolicy.forward`` builds
two ``MaskableCategorical`` distributions per call (each a ``torch.distributions``
object with its own normalisation), goes through ``nn.Module.__call__`` for every
layer and reshapes for the general case. On parlor's small MLPs that overhead is most
of the learner's acting CPU, and the learner acts serially with the envs
(``parlor bench --train``). :func:`lean_act` runs the same tensor operations in the
same order on the same weights -- the logits normalised, masked with -1e8 (without
masks, not), normalised again, ``torch.multinomial`` on their softmax (what ``Categorical.sample``
draws from the global generator), and the log-probability gathered from the masked
logits -- so the actions, values and log-probabilities are bit-identical and the random
generator ends in the same state. :class:`ParlorMaskablePPO` is MaskablePPO with its
``collect_rollouts`` acting through it and filling the buffer while the envs step (with
env processes, the learner would otherwise wait idle then), and its ``train`` going through
the lean update of :mod:`.update` (the same tensor operations as sb3-contrib's, so the same
gradients); the buffer and the callbacks are sb3-contrib's. Policies outside the plain shape
(flat Box observation, Discrete action, shared flatten extractor, MLP of Linear and
activation layers) act and learn through the stock passes.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from stable_baselines3.common.preprocessing import is_image_space
from stable_baselines3.common.torch_layers import FlattenExtractor
from stable_baselines3.common.utils import obs_as_tensor
from torch import nn

from parlor.training.learning.categorical import normalised, sample

MASKED_LOGIT = -1e8  # sb3-contrib's MaskableCategorical value for a masked action
_ACTIVATIONS = {nn.ReLU: torch.relu, nn.Tanh: torch.tanh}  # the functions these modules call
_MASKED: dict[tuple[torch.dtype, torch.device], torch.Tensor] = {}  # MASKED_LOGIT as a tensor, made once


def masked_logit(like: torch.Tensor) -> torch.Tensor:
    """``torch.tensor(MASKED_LOGIT)`` of ``like``'s dtype and device (what sb3-contrib makes per call),
    made once: ``torch.where`` reads it, never writes it."""
    key = (like.dtype, like.device)
    if key not in _MASKED:
        _MASKED[key] = torch.tensor(MASKED_LOGIT, dtype=like.dtype, device=like.device)
    return _MASKED[key]


def _layers(net: nn.Module) -> list[Any] | None:
    """``net`` (an ``nn.Sequential`` of Linear and activation modules) as a list of
    ``("linear", module)`` / ``("fn", function)`` steps; None for any other shape."""
    if not isinstance(net, nn.Sequential):
        return None
    steps: list[Any] = []
    for module in net:
        if type(module) is nn.Linear:
            steps.append(("linear", module))
        elif type(module) in _ACTIVATIONS:
            steps.append(("fn", _ACTIVATIONS[type(module)]))
        else:
            steps.append(("module", module))  # e.g. another activation: called as a module (same numbers)
    return steps


def lean_plan(policy: Any) -> tuple[list[Any], list[Any]] | None:
    """The policy and value MLPs of ``policy`` as :func:`_layers` steps if :func:`lean_act`
    computes exactly what its forward pass does, else None."""
    extractor = getattr(policy, "mlp_extractor", None)
    space = policy.observation_space
    plain = (isinstance(space, spaces.Box) and not (policy.normalize_images and is_image_space(space))
             and isinstance(policy.action_space, spaces.Discrete) and policy.share_features_extractor
             and type(policy.features_extractor) is FlattenExtractor
             and type(policy.action_dist) is MaskableCategoricalDistribution
             and type(policy.action_net) is nn.Linear and type(policy.value_net) is nn.Linear and extractor is not None)
    if not plain or extractor is None:
        return None
    pi, vf = _layers(extractor.policy_net), _layers(extractor.value_net)
    return None if pi is None or vf is None else (pi, vf)


def run_layers(steps: list[Any], x: torch.Tensor) -> torch.Tensor:
    """An MLP of :func:`_layers` steps on ``x`` (its Linear layers as ``F.linear``)."""
    for kind, op in steps:
        x = F.linear(x, op.weight, op.bias) if kind == "linear" else op(x)
    return x


def _bool_tensor(masks: np.ndarray, device: torch.device) -> torch.Tensor:
    """``torch.as_tensor(masks, dtype=torch.bool, device=device)``; a boolean array on the CPU is
    shared, not converted (a fifth of the cost; ``torch.where`` only reads it)."""
    if device.type == "cpu" and type(masks) is np.ndarray and masks.dtype == np.bool_ and masks.flags.writeable:
        return torch.from_numpy(masks)
    return torch.as_tensor(masks, dtype=torch.bool, device=device)


def lean_act(policy: Any, plan: tuple[list[Any], list[Any]], obs: torch.Tensor,
             masks: np.ndarray | None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``policy(obs, action_masks=masks)`` (sampled actions, values, log-probabilities) for a
    policy whose :func:`lean_plan` is ``plan``; call under ``torch.no_grad()``."""
    features = obs.float().flatten(1)  # preprocess_obs of a Box, then FlattenExtractor
    latent_pi, latent_vf = run_layers(plan[0], features), run_layers(plan[1], features)
    values = F.linear(latent_vf, policy.value_net.weight, policy.value_net.bias)
    action_net = policy.action_net
    logits = normalised(F.linear(latent_pi, action_net.weight, action_net.bias).view(-1, policy.action_space.n))
    if masks is not None:
        keep = _bool_tensor(masks, logits.device).reshape(logits.shape)
        logits = torch.where(keep, logits, masked_logit(logits))
    actions, log_probs = sample(normalised(logits))  # MaskableCategorical normalises again even without masks
    return actions, values, log_probs


class ParlorMaskablePPO(MaskablePPO):
    """MaskablePPO whose rollouts act through :func:`lean_act` and whose updates go through
    :func:`.update.lean_train` (same results, less CPU)."""

    def train(self) -> None:
        """One PPO update on the collected rollout: :func:`.update.lean_train` where it applies
        (the policy shape of :func:`lean_plan`, sb3-contrib's MaskableRolloutBuffer), else sb3-contrib's."""
        from parlor.training.learning.update import applies, lean_train  # update imports this module

        plan = lean_plan(self.policy)
        if plan is not None and applies(self, plan):
            lean_train(self, plan)
        else:
            super().train()

    def collect_rollouts(self, env: Any, callback: Any, rollout_buffer: Any, n_rollout_steps: int,
                         use_masking: bool = True) -> bool:
        """sb3-contrib 2.x's ``MaskablePPO.collect_rollouts`` line for line, but acting through
        :func:`lean_act` when the policy has the plain shape (:func:`lean_plan`), and writing a
        step into the buffer while the envs step (``step_async``, the buffer's ``add`` with the
        reward left at 0, ``step_wait``, then the reward: the same entries as ``add`` after the step)."""
        assert self._last_obs is not None, "No previous observation was provided"
        self.policy.set_training_mode(False)
        plan = lean_plan(self.policy)
        n_steps = 0
        action_masks = None
        no_rewards = np.zeros(env.num_envs, dtype=np.float32)
        rollout_buffer.reset()
        if use_masking and not is_masking_supported(env):
            raise ValueError("Environment does not support action masking. Consider using ActionMasker wrapper")
        callback.on_rollout_start()
        while n_steps < n_rollout_steps:
            with torch.no_grad():
                obs_tensor = obs_as_tensor(self._last_obs, self.device)
                if use_masking:
                    action_masks = get_action_masks(env)
                if plan is None:
                    actions, values, log_probs = self.policy(obs_tensor, action_masks=action_masks)
                else:
                    assert isinstance(obs_tensor, torch.Tensor)  # a plan exists only for a Box observation
                    actions, values, log_probs = lean_act(self.policy, plan, obs_tensor, action_masks)
            actions = actions.cpu().numpy()
            env.step_async(actions)
            # while the env processes step, the buffer takes this step's observation, action, value,
            # log-probability and mask; its reward is written below, once known
            discrete = isinstance(self.action_space, spaces.Discrete)
            rollout_buffer.add(self._last_obs, actions.reshape(-1, 1) if discrete else actions, no_rewards,
                               self._last_episode_starts, values, log_probs, action_masks=action_masks)
            new_obs, rewards, dones, infos = env.step_wait()
            self.num_timesteps += env.num_envs
            callback.update_locals(locals())  # the callbacks read these names, as in sb3-contrib
            if not callback.on_step():
                return False
            self._update_info_buffer(infos, dones)
            n_steps += 1
            if discrete:
                actions = actions.reshape(-1, 1)
            for idx, done in enumerate(dones):  # a timeout bootstraps with the value function (SB3 #633)
                if done and infos[idx].get("terminal_observation") is not None and infos[idx].get(
                        "TimeLimit.truncated", False):
                    terminal_obs = self.policy.obs_to_tensor(infos[idx]["terminal_observation"])[0]
                    with torch.no_grad():
                        terminal_value = self.policy.predict_values(terminal_obs)[0]
                    rewards[idx] += self.gamma * terminal_value
            rollout_buffer.rewards[rollout_buffer.pos - 1] = np.array(rewards)  # what add() writes there
            self._last_obs = new_obs
            self._last_episode_starts = dones
        with torch.no_grad():
            values = self.policy.predict_values(obs_as_tensor(new_obs, self.device))
        rollout_buffer.compute_returns_and_advantage(last_values=values, dones=dones)
        callback.on_rollout_end()
        return True
