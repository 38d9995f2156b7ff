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
from ray.rllib.core.rl_module.rl_module import RLModule
from ray.rllib.utils.torch_utils import FLOAT_MIN
from ray.rllib.utils.typing import TensorType
from torch import nn

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


def plain_stacks(module: Any) -> tuple[nn.Module, nn.Module | None, nn.Module] | None:
    """The layer stacks (``nn.Sequential``) of ``module``'s actor encoder, critic encoder (None in an
    inference-only module) and pi head, if they are RLlib's plain MLPs (what :func:`model_config`
    builds): calling them directly computes what RLlib's model wrappers around them compute (the
    same layers in the same order) without their dicts and module calls. None for any other shape."""
    encoder = module.encoder
    actor: Any = getattr(encoder, "actor_encoder", None)
    critic: Any = getattr(encoder, "critic_encoder", None)
    head = module.pi

    def mlp(part: Any) -> bool:
        return type(part) is TorchMLPEncoder and type(part.net) is TorchMLP

    # (a shared encoder has no actor_encoder; a TorchMLPEncoder is stateless)
    if (not mlp(actor) or (critic is not None and not mlp(critic)) or type(head) is not TorchMLPHead
            or head.clip_log_std or type(head.net) is not TorchMLP):
        return None
    return actor.net.mlp, None if critic is None else critic.net.mlp, head.net.mlp


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
        self._stacks = plain_stacks(self)

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

    def forward_train(self, batch: dict, **kwargs: Any) -> dict:
        # RLlib's TorchRLModule switches to train() on every call (a walk over every submodule, on
        # every minibatch); the layers act the same in either mode (as forward_exploration)
        return RLModule.forward_train(self, batch, **kwargs)

    def _forward(self, batch: dict, **kwargs: Any) -> dict:
        mask, inner = self._split(batch)
        # the actor alone: RLlib's pass also runs the critic's encoder wherever the module is not
        # inference-only (the env runner in the learner's process) and drops its output
        if self._stacks is not None:  # through its layer stacks (plain_stacks)
            actor_net, _, pi_net = self._stacks
            out = {Columns.ACTION_DIST_INPUTS: pi_net(actor_net(inner[Columns.OBS]))}
        elif (actor := getattr(self.encoder, "actor_encoder", None)) is not None and not self.is_stateful():
            out = {Columns.ACTION_DIST_INPUTS: self.pi(actor(inner, **kwargs)[ENCODER_OUT])}
        else:  # a shared or recurrent encoder: RLlib's pass
            out = super()._forward(inner, **kwargs)
        out[Columns.ACTION_DIST_INPUTS] = masked_logits(out[Columns.ACTION_DIST_INPUTS], mask)
        return out

    def _forward_train(self, batch: dict, **kwargs: Any) -> dict:
        mask, inner = self._split(batch)
        actor_net, critic_net, pi_net = self._stacks or (None, None, None)
        if actor_net is not None and critic_net is not None and pi_net is not None:
            # RLlib's pass (actor encoder, critic encoder, pi head; the critic's output kept as the
            # embeddings for compute_values) through the layer stacks
            obs = inner[Columns.OBS]
            latent = actor_net(obs)
            out = {Columns.EMBEDDINGS: critic_net(obs), Columns.ACTION_DIST_INPUTS: pi_net(latent)}
        else:
            out = super()._forward_train(inner, **kwargs)
        out[Columns.ACTION_DIST_INPUTS] = masked_logits(out[Columns.ACTION_DIST_INPUTS], mask)
        return out

    def compute_values(self, batch: dict, embeddings: Any = None) -> TensorType:
        if embeddings is None and isinstance(batch[Columns.OBS], dict):
            _, batch = self._split(batch)
        return super().compute_values(batch, embeddings)
