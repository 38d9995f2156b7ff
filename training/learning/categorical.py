"""Sampling a categorical distribution as ``torch.distributions.Categorical`` does, without the object.

Both trainers' lean acting passes (:mod:`.rollout` for sb3-contrib's MaskablePPO,
:mod:`.rllib_runner` for RLlib) draw their actions here: the same tensor operations, in the
same order, as ``Categorical(logits=...)`` followed by ``sample()`` and ``log_prob()``, so the
same actions, log-probabilities and state of torch's global generator, at a fraction of the
CPU on a small batch (no distribution object, no argument checks, no broadcasting).
"""
from __future__ import annotations

import torch
import torch.nn.functional as F


def normalised(logits: torch.Tensor) -> torch.Tensor:
    """What ``Categorical(logits=...)`` stores: the logits minus their log-sum-exp."""
    return logits - logits.logsumexp(dim=-1, keepdim=True)


def sample(logits: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(actions, log-probabilities) of one draw per row of the ``normalised`` ``logits``
    (2-D): ``torch.multinomial`` on their softmax, as ``Categorical.sample`` draws."""
    actions = torch.multinomial(F.softmax(logits, dim=-1), 1, True).T.reshape(-1)
    return actions, logits.gather(-1, actions.unsqueeze(-1)).squeeze(-1)
