"""Behaviour-cloning warm start: the policy imitates a teacher agent before PPO.

The teacher (any agent name, e.g. ``heuristic``) plays the learner's seat of
the training env (same opponents, same seat rotation) for ``episodes``
episodes; every decision gives one sample (observation, action mask, the
teacher's action, the return from there to the episode's end, scaled like the
PPO rewards). The policy network is then fitted by minibatch Adam on

    masked cross-entropy of the teacher's action + vf_coef * MSE(value, return)

so that PPO starts from the teacher's play with a critic that already knows
what that play earns, instead of from random placement. PPO then improves on
the teacher against the configured opponents. Imported only by
:mod:`parlor.training.learning.train` (fitting needs torch).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from parlor.agents.episodes import decide
from parlor.training.learning.opponents import make_agent
from parlor.training.learning.wrapper import SingleAgentEnv


@dataclass
class Demonstrations:
    observations: np.ndarray   # float32 [N, obs]
    masks: np.ndarray          # bool [N, actions]
    actions: np.ndarray        # int64 [N]
    returns: np.ndarray        # float32 [N]: scaled return-to-go
    episodes: int
    mean_return: float         # unscaled, per episode


def collect(env: SingleAgentEnv, teacher_name: str, episodes: int, seed: int,
            progress: Callable[[int], None] | None = None) -> Demonstrations:
    """Play ``episodes`` episodes of ``env`` with ``teacher_name`` in the learner's seat."""
    teacher = make_agent(teacher_name, env.game, seed, None)
    obs_rows, mask_rows, actions, returns, totals = [], [], [], [], []
    for episode in range(episodes):
        teacher.reset(int(np.random.SeedSequence([seed, episode]).generate_state(1)[0]))
        obs, _ = env.reset(seed=int(np.random.SeedSequence([seed, episode, 1]).generate_state(1)[0]))
        rewards: list[float] = []
        done = False
        while not done:
            mask = env.action_masks()  # the learner's mask (narrowed by its action guard, if any)
            action = decide(teacher, env.game, env.state, env.learner, mask)
            obs_rows.append(obs)
            mask_rows.append(mask)
            actions.append(action)
            obs, reward, terminated, truncated, info = env.step(action)
            rewards.append(float(reward))
            done = terminated or truncated
        returns.extend(np.cumsum(rewards[::-1])[::-1].tolist())
        totals.append(float(info.get("raw_return", sum(rewards) / env.reward_scale)))
        if progress is not None:
            progress(episode + 1)
    return Demonstrations(
        np.asarray(obs_rows, dtype=np.float32), np.asarray(mask_rows, dtype=bool), np.asarray(actions, dtype=np.int64),
        np.asarray(returns, dtype=np.float32), episodes, float(np.mean(totals)) if totals else float("nan"),
    )


def clone(policy: Any, data: Demonstrations, epochs: int, batch_size: int, learning_rate: float,
          vf_coef: float, seed: int, log: Callable[[str], None] = print) -> dict[str, float]:
    """Fit ``policy`` (an sb3 MaskableActorCriticPolicy) to the demonstrations; returns the
    final epoch's mean cross-entropy, teacher-action accuracy and value loss."""
    import torch

    rng = np.random.default_rng(seed)
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    obs = torch.as_tensor(data.observations)
    masks = data.masks
    actions = torch.as_tensor(data.actions)
    returns = torch.as_tensor(data.returns)
    n = len(actions)
    policy.set_training_mode(True)
    metrics: dict[str, float] = {}
    for epoch in range(epochs):
        order = rng.permutation(n)
        ce_sum = acc_sum = vf_sum = 0.0
        for start in range(0, n, batch_size):
            idx = order[start:start + batch_size]
            values, log_prob, _ = policy.evaluate_actions(obs[idx], actions[idx], action_masks=masks[idx])
            ce = -log_prob.mean()
            known = torch.isfinite(returns[idx])  # NaN: a labelled episode cut short (labelling.decisions)
            vf = (torch.nn.functional.mse_loss(values.flatten()[known], returns[idx][known]) if bool(known.any())
                  else values.sum() * 0.0)
            loss = ce + vf_coef * vf
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            optimizer.step()
            with torch.no_grad():
                dist = policy.get_distribution(obs[idx], action_masks=masks[idx])
                acc = (dist.distribution.probs.argmax(dim=1) == actions[idx]).float().mean()
            ce_sum += float(ce.detach()) * len(idx)
            acc_sum += float(acc) * len(idx)
            vf_sum += float(vf.detach()) * len(idx)
        metrics = {"cross_entropy": ce_sum / n, "accuracy": acc_sum / n, "value_mse": vf_sum / n}
        log(f"pretrain epoch {epoch + 1}/{epochs}: cross-entropy {metrics['cross_entropy']:.4f}, "
            f"teacher-action accuracy {metrics['accuracy']:.3f}, value MSE {metrics['value_mse']:.4f}")
    policy.set_training_mode(False)
    return metrics
