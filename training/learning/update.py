"""MaskablePPO's update with a lean loss pass: the same gradients, less torch and Python overhead.

sb3-contrib's ``MaskablePPO.train`` spends much of each minibatch around the arithmetic:
the rollout buffer copies seven numpy slices into new tensors, ``evaluate_actions`` calls
every layer through ``nn.Module.__call__`` and builds a ``MaskableCategorical`` (a
``torch.distributions`` object, normalised three times), and the gradient clipping walks
the module tree for the parameters. :func:`lean_train` does the same update: the same
minibatches (one ``np.random.permutation`` per epoch, as the buffer's ``get`` draws),
indexed from tensors that share the buffer's memory, and the same tensor operations in the
same order (so the same autograd graph and the same gradients, summed in the same order),
the same optimizer step, early stop and log records. The weights after training are
bit-identical to sb3-contrib's (``tests/training/learning/test_update.py``). It applies to
the policies whose acting :func:`.rollout.lean_plan` accepts and sb3-contrib's
``MaskableRolloutBuffer``; anything else trains through ``MaskablePPO.train``.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from gymnasium import spaces
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer
from stable_baselines3.common.utils import explained_variance

from parlor.training.learning.categorical import normalised
from parlor.training.learning.rollout import masked_logit, run_layers

BUFFER_FIELDS = ("observations", "actions", "values", "log_probs", "advantages", "returns", "action_masks")


def lean_evaluate(policy: Any, plan: tuple[list[Any], list[Any]], obs: torch.Tensor, actions: torch.Tensor,
                  masks: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``policy.evaluate_actions(obs, actions, action_masks=masks)`` (values, log-probabilities,
    entropies) through the same tensor operations in the same order, for a policy whose
    :func:`.rollout.lean_plan` is ``plan``."""
    features = obs.float().flatten(1)  # preprocess_obs of a Box, then FlattenExtractor
    latent_pi, latent_vf = run_layers(plan[0], features), run_layers(plan[1], features)
    action_net = policy.action_net
    logits = normalised(F.linear(latent_pi, action_net.weight, action_net.bias).view(-1, policy.action_space.n))
    # MaskableCategorical normalises once more on creation (a result the loss never uses), then masks
    keep = torch.as_tensor(masks, dtype=torch.bool, device=logits.device).reshape(logits.shape)
    logits = normalised(torch.where(keep, logits, masked_logit(logits)))
    index, log_pmf = torch.broadcast_tensors(actions.long().unsqueeze(-1), logits)  # Categorical.log_prob
    log_prob = log_pmf.gather(-1, index[..., :1]).squeeze(-1)
    values = F.linear(latent_vf, policy.value_net.weight, policy.value_net.bias)
    p_log_p = logits * F.softmax(logits, dim=-1)  # MaskableCategorical.entropy: masked actions add 0
    p_log_p = torch.where(keep, p_log_p, torch.tensor(0.0, device=logits.device))
    return values, log_prob, -p_log_p.sum(-1)


def applies(model: Any, plan: Any) -> bool:
    """Whether :func:`lean_train` computes what ``MaskablePPO.train`` does for ``model``."""
    return (plan is not None and type(model.rollout_buffer) is MaskableRolloutBuffer
            and isinstance(model.action_space, spaces.Discrete))


def _epoch_batches(buffer: MaskableRolloutBuffer, batch_size: int) -> Any:
    """The buffer's ``get(batch_size)`` minibatches (the same permutation, drawn when the
    first is asked for) as tensors indexed from the flattened buffer's memory."""
    assert buffer.full, ""
    indices = np.random.permutation(buffer.buffer_size * buffer.n_envs)
    if not buffer.generator_ready:
        for name in BUFFER_FIELDS:
            buffer.__dict__[name] = buffer.swap_and_flatten(buffer.__dict__[name])
        buffer.generator_ready = True
    device = buffer.device
    obs, actions, values, log_probs, advantages, returns, masks = (
        torch.as_tensor(getattr(buffer, name), device=device) for name in BUFFER_FIELDS)
    values, log_probs, advantages, returns = (t.flatten() for t in (values, log_probs, advantages, returns))
    masks = masks.reshape(-1, buffer.mask_dims)
    for start in range(0, buffer.buffer_size * buffer.n_envs, batch_size):
        batch = torch.as_tensor(indices[start:start + batch_size], device=device)
        yield (obs[batch], actions[batch], values[batch], log_probs[batch], advantages[batch], returns[batch],
               masks[batch])


def lean_train(model: Any, plan: tuple[list[Any], list[Any]]) -> None:
    """sb3-contrib 2.x's ``MaskablePPO.train`` line for line, with the minibatches of
    :func:`_epoch_batches` and the loss pass of :func:`lean_evaluate` (check :func:`applies`)."""
    policy = model.policy
    policy.set_training_mode(True)
    model._update_learning_rate(policy.optimizer)
    clip_range = model.clip_range(model._current_progress_remaining)
    clip_range_vf = None if model.clip_range_vf is None else model.clip_range_vf(model._current_progress_remaining)
    parameters = list(policy.parameters())  # what clip_grad_norm_ makes of policy.parameters(), once
    entropy_losses: list[float] = []
    pg_losses: list[float] = []
    value_losses: list[float] = []
    clip_fractions: list[float] = []
    continue_training = True
    for epoch in range(model.n_epochs):
        approx_kl_divs = []
        for obs, actions, old_values, old_log_prob, advantages, returns, masks in _epoch_batches(
                model.rollout_buffer, model.batch_size):
            values, log_prob, entropy = lean_evaluate(policy, plan, obs, actions.long().flatten(), masks)
            values = values.flatten()
            if model.normalize_advantage:
                advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
            ratio = torch.exp(log_prob - old_log_prob)
            policy_loss_1 = advantages * ratio
            policy_loss_2 = advantages * torch.clamp(ratio, 1 - clip_range, 1 + clip_range)
            policy_loss = -torch.min(policy_loss_1, policy_loss_2).mean()
            pg_losses.append(policy_loss.item())
            clip_fractions.append(torch.mean((torch.abs(ratio - 1) > clip_range).float()).item())
            if clip_range_vf is None:
                values_pred = values
            else:
                values_pred = old_values + torch.clamp(values - old_values, -clip_range_vf, clip_range_vf)
            value_loss = F.mse_loss(returns, values_pred)
            value_losses.append(value_loss.item())
            entropy_loss = -torch.mean(entropy)
            entropy_losses.append(entropy_loss.item())
            loss = policy_loss + model.ent_coef * entropy_loss + model.vf_coef * value_loss
            with torch.no_grad():
                log_ratio = log_prob - old_log_prob
                approx_kl_div = torch.mean((torch.exp(log_ratio) - 1) - log_ratio).cpu().numpy()
                approx_kl_divs.append(approx_kl_div)
            if model.target_kl is not None and approx_kl_div > 1.5 * model.target_kl:
                continue_training = False
                if model.verbose >= 1:
                    print(f"Early stopping at step {epoch} due to reaching max kl: {approx_kl_div:.2f}")
                break
            policy.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(parameters, model.max_grad_norm)
            policy.optimizer.step()
        model._n_updates += 1
        if not continue_training:
            break
    _log(model, entropy_losses, pg_losses, value_losses, approx_kl_divs, clip_fractions, loss, clip_range,
         clip_range_vf)


def _log(model: Any, entropy_losses: list[float], pg_losses: list[float], value_losses: list[float],
         approx_kl_divs: list[Any], clip_fractions: list[float], loss: torch.Tensor, clip_range: float,
         clip_range_vf: float | None) -> None:
    """The records ``MaskablePPO.train`` makes at the end of an update."""
    buffer = model.rollout_buffer
    record = model.logger.record
    record("train/entropy_loss", np.mean(entropy_losses))
    record("train/policy_gradient_loss", np.mean(pg_losses))
    record("train/value_loss", np.mean(value_losses))
    record("train/approx_kl", np.mean(approx_kl_divs))
    record("train/clip_fraction", np.mean(clip_fractions))
    record("train/loss", loss.item())
    record("train/explained_variance", explained_variance(buffer.values.flatten(), buffer.returns.flatten()))
    record("train/n_updates", model._n_updates, exclude="tensorboard")
    record("train/clip_range", clip_range)
    if clip_range_vf is not None:
        record("train/clip_range_vf", clip_range_vf)
