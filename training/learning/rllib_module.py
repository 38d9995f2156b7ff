"""MaskedPPOTorchRLModule: RLlib's default PPO module (new API stack) with action masking.

The env's observation space is ``Dict(observations=Box, action_mask=Box)``
(:class:`~parlor.training.learning.rllib_env.ParlorMultiAgentEnv`); the networks
are built for ``observations`` only, and every forward pass sets the logits of
the actions outside the mask to the most negative float, so the action
distribution gives them probability 0: sampling and argmax never pick one, and
the log-probabilities of the legal actions are those of the renormalised
distribution (as sb3-contrib's MaskablePPO computes them).

Unlike RLlib's example (``ActionMaskingTorchRLModule``) the module never mutates
the batch it is given (the example pops the keys in ``compute_values`` and relies
on that in ``_forward_train``).

:func:`model_config` makes the networks those of SB3's ``MlpPolicy`` with
``net_arch=dict(pi=net_arch, vf=net_arch)``: separate actor and critic MLPs, a
linear logits layer and a linear value layer, so a trained module is exported to
parlor's policy format by renaming tensors (:mod:`.rllib_export`).
"""
from __future__ import annotations

from typing import Any

import gymnasium as gym
import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.core.models.base import ENCODER_OUT
from ray.rllib.core.models.torch.encoder import TorchMLPEncoder
from ray.rllib.core.models.torch.heads import TorchMLPHead
from ray.rllib.core.models.torch.primitives import TorchMLP
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
from ray.rllib.utils.torch_utils import FLOAT_MIN
from ray.rllib.utils.typing import TensorType

from parlor.training.learning.rllib_env import MASK_KEY, OBS_KEY


def model_config(net_arch: tuple[int, ...], activation: str) -> DefaultModelConfig:
    """RLlib's model config for SB3's MlpPolicy networks (``ppo.net_arch``, ``ppo.activation``)."""
    return DefaultModelConfig(
        fcnet_hiddens=list(net_arch),
        fcnet_activation=activation,
        head_fcnet_hiddens=[],      # pi and vf heads: one linear layer each (SB3's action_net, value_net)
        vf_share_layers=False,      # separate actor and critic MLPs (SB3's policy_net, value_net)
    )


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return torch.where(mask > 0.5, logits, torch.full_like(logits, FLOAT_MIN))


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """PPO's actor-critic on ``observations``; logits masked by ``action_mask``."""

    def __init__(self, *, observation_space: gym.Space | None = None, **kwargs: Any):
        if not isinstance(observation_space, gym.spaces.Dict) or set(observation_space.spaces) != {OBS_KEY, MASK_KEY}:
            raise ValueError(f"MaskedPPOTorchRLModule needs a Dict observation space with keys {OBS_KEY!r} and "
                             f"{MASK_KEY!r} (ParlorMultiAgentEnv gives it); got {observation_space}")
        self._masked_space = observation_space
        super().__init__(observation_space=observation_space[OBS_KEY], **kwargs)

    def setup(self) -> None:
        super().setup()  # the networks, built for the inner observation space
        self.observation_space = self._masked_space  # the module's public space is the env's

    @staticmethod
    def _split(batch: dict) -> tuple[torch.Tensor, dict]:
        """(the mask, a shallow copy of ``batch`` whose observations are the inner ones)."""
        obs = batch[Columns.OBS]
        inner = dict(batch)
        inner[Columns.OBS] = obs[OBS_KEY]
        return obs[MASK_KEY], inner

    def forward_exploration(self, batch: dict, **kwargs: Any) -> dict:
        # RLlib's switches the module to eval() and back to train() around every call: two walks
        # over every submodule, about as much CPU as the forward pass itself. These networks are
        # Linear layers and activations only (model_config), which act the same in either mode.
        return self._forward_exploration(batch, **kwargs)

    def forward_inference(self, batch: dict, **kwargs: Any) -> dict:
        return self._forward_inference(batch, **kwargs)  # as forward_exploration

    def _forward(self, batch: dict, **kwargs: Any) -> dict:
        mask, inner = self._split(batch)
        actor = getattr(self.encoder, "actor_encoder", None)
        if actor is None or self.is_stateful():  # a shared or recurrent encoder: RLlib's pass
            out = super()._forward(inner, **kwargs)
        else:
            # the actor alone: RLlib's pass also runs the critic's encoder wherever the module is not
            # inference-only (the env runner in the learner's process) and drops its output
            out = {Columns.ACTION_DIST_INPUTS: self._actor_logits(actor, inner, **kwargs)}
        out[Columns.ACTION_DIST_INPUTS] = masked_logits(out[Columns.ACTION_DIST_INPUTS], mask)
        return out

    def _actor_logits(self, actor: Any, inner: dict, **kwargs: Any) -> torch.Tensor:
        """The actor's encoder then the pi head on ``inner``: for the plain MLPs of
        :func:`model_config`, their layer stacks called directly (the same layers in the same order,
        without RLlib's model wrappers: two dicts and four module calls per pass)."""
        head = self.pi
        if (type(actor) is TorchMLPEncoder and type(actor.net) is TorchMLP and type(head) is TorchMLPHead
                and not head.clip_log_std and type(head.net) is TorchMLP):
            return head.net.mlp(actor.net.mlp(inner[Columns.OBS]))
        return head(actor(inner, **kwargs)[ENCODER_OUT])

    def _forward_train(self, batch: dict, **kwargs: Any) -> dict:
        mask, inner = self._split(batch)
        out = super()._forward_train(inner, **kwargs)
        out[Columns.ACTION_DIST_INPUTS] = masked_logits(out[Columns.ACTION_DIST_INPUTS], mask)
        return out

    def compute_values(self, batch: dict, embeddings: Any = None) -> TensorType:
        if embeddings is None and isinstance(batch[Columns.OBS], dict):
            _, batch = self._split(batch)
        return super().compute_values(batch, embeddings)
