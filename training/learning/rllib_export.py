"""The learner RLModule's weights <-> SB3's MaskableActorCriticPolicy, parlor's policy network.

A :class:`~.rllib_module.MaskedPPOTorchRLModule` built with
:func:`~.rllib_module.model_config` has exactly the networks of SB3's ``MlpPolicy``
with ``net_arch=dict(pi=net_arch, vf=net_arch)``, so moving weights is a renaming
of tensors, kept in this one table (both sides interleave Linear and activation
modules, so the layer indices match one to one):

| RLModule state                        | MaskableActorCriticPolicy state_dict |
|---------------------------------------|--------------------------------------|
| encoder.actor_encoder.net.mlp.{2i}.*  | mlp_extractor.policy_net.{2i}.*      |
| encoder.critic_encoder.net.mlp.{2i}.* | mlp_extractor.value_net.{2i}.*       |
| pi.net.mlp.0.*                        | action_net.*                         |
| vf.net.mlp.0.*                        | value_net.*                          |
| pi/vf.log_std_clip_param_const        | (a constant of continuous actions: not exported) |

A policy file is written by :mod:`parlor.agents.policy` from the SB3 policy that
holds these weights (:func:`to_sb3` loads them strictly: every tensor must fit).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

RENAMES = (
    ("encoder.actor_encoder.net.mlp.", "mlp_extractor.policy_net."),
    ("encoder.critic_encoder.net.mlp.", "mlp_extractor.value_net."),
    ("pi.net.mlp.0.", "action_net."),
    ("vf.net.mlp.0.", "value_net."),
)
NOT_EXPORTED = ("pi.log_std_clip_param_const", "vf.log_std_clip_param_const")


def sb3_names(module_state: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """The RLModule's tensors under the SB3 policy's names (the mapping lives here only)."""
    out = {}
    for key, value in module_state.items():
        if key in NOT_EXPORTED:
            continue
        for ours, theirs in RENAMES:
            if key.startswith(ours):
                out[theirs + key[len(ours):]] = np.asarray(value)
                break
        else:
            raise ValueError(f"RLModule tensor {key!r} has no place in SB3's MlpPolicy (was the module built with "
                             "rllib_module.model_config: separate actor and critic, no hidden head layers?)")
    return out


def to_sb3(module_state: Mapping[str, Any], policy: Any) -> None:
    """Load the RLModule's weights into ``policy`` (a MaskableActorCriticPolicy of the same net_arch)."""
    import torch

    tensors = {k: torch.as_tensor(v) for k, v in sb3_names(module_state).items()}
    policy.load_state_dict(tensors, strict=True)


def from_sb3(policy: Any, module_state: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """The RLModule state ``module_state`` with the weights of ``policy`` (warm starts: ``init``,
    ``pretrain``); refuses a tensor that does not fit, naming it."""
    ours_of = {theirs + key[len(ours):]: key for key in module_state for ours, theirs in RENAMES if key.startswith(ours)}
    out = {k: np.asarray(v) for k, v in module_state.items()}
    tensors = policy.state_dict()
    for name, tensor in tensors.items():
        key = ours_of.get(name)
        value = tensor.detach().cpu().numpy()
        if key is None or out[key].shape != value.shape:
            raise ValueError(f"policy tensor {name} {tuple(value.shape)} does not fit the RLModule "
                             f"({key}: {None if key is None else out[key].shape})")
        out[key] = value
    missing = sorted(set(ours_of) - set(tensors))
    if missing:
        raise ValueError(f"the policy has no tensors {missing} that the RLModule needs")
    return out
