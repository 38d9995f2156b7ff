"""The actor of a policy network, as :class:`~parlor.agents.policy.PolicyAgent` plays it: logits and
masked action probabilities for one observation.

Two kinds, the same numbers: :class:`NetworkActor` wraps a live sb3-contrib
MaskableActorCriticPolicy (a learner's own network, wherever it lives), and
:class:`FileActor` plays the actor half of a policy file with torch alone. A file's
actor needs neither stable-baselines3 nor a built MaskableActorCriticPolicy, whose
construction makes an Adam optimizer that imports ``torch._dynamo``: together more CPU
than the torch import itself in every evaluation worker. It runs the very torch operations
sb3's ``get_distribution`` runs (``F.linear`` on tensors laid out as ``nn.Linear``'s, the
activation, the two ``Categorical`` normalisations of ``MaskableCategorical``) on the same
float32 inputs, so its logits and probabilities are bit for bit the network's
(``tests/agents/test_policy_actor.py`` compares them on every shipped policy).

torch is imported inside functions only.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from parlor.agents.policy_architecture import Architecture

HUGE_NEG = -1e8  # what MaskableCategorical puts in a masked action's logit


def _masked(logits: Any, mask: np.ndarray) -> np.ndarray:
    """sb3-contrib's masked probabilities of ``logits`` (a (1, n) float32 tensor): ``Categorical``
    normalises them, ``MaskableCategorical`` masks the normalised logits and normalises again;
    then zero on illegal actions, renormalised in float64 (what :class:`PolicyAgent` plays)."""
    import torch
    from torch.distributions import Categorical

    # validate_args only checks (sb3 leaves it on): the values are the same without the checks' cost
    normalised = Categorical(logits=logits, validate_args=False).logits
    # a copy: a caller's mask may be read-only (a guard's), which torch warns about on every first use
    masks = torch.as_tensor(np.array(mask[None, :], dtype=bool)).reshape(normalised.shape)
    masked = torch.where(masks, normalised, torch.tensor(HUGE_NEG, dtype=normalised.dtype))
    probs = Categorical(logits=masked, validate_args=False).probs[0].numpy().astype(np.float64)
    probs[~mask] = 0.0
    return probs / probs.sum()


def _as_torch(value: Any) -> Any:
    import torch

    return torch.from_numpy(value) if isinstance(value, np.ndarray) else value


class FileActor:
    """The actor of a policy file's network with torch alone: ``weights`` are the file's tensors
    (torch or numpy, as checked by :func:`~parlor.agents.policy_format.read_policy_file`)."""

    def __init__(self, arch: Architecture, weights: Mapping[str, Any]):
        import torch

        self.arch = arch
        self.weights = {name: _as_torch(value) for name, value in weights.items()}
        names = [f"mlp_extractor.policy_net.{2 * i}" for i in range(len(arch.pi))] + ["action_net"]
        # copies of torch's own allocation, as the parameters of a loaded nn.Linear
        self.layers = [(self.weights[f"{n}.weight"].detach().clone(), self.weights[f"{n}.bias"].detach().clone())
                       for n in names]
        self.activation = {"relu": torch.relu, "tanh": torch.tanh}[arch.activation]  # nn.ReLU, nn.Tanh

    def _forward(self, obs: Any) -> Any:
        import torch
        import torch.nn.functional as F

        with torch.no_grad():
            x = obs.float().flatten(1)  # sb3's preprocess_obs (Box) and FlattenExtractor
            for i, (weight, bias) in enumerate(self.layers):
                x = F.linear(x, weight, bias)
                if i < len(self.layers) - 1:  # MlpExtractor: an activation after every hidden layer
                    x = self.activation(x)
            return x

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """The action logits (float32), as :meth:`NetworkActor.logits`."""
        import torch

        obs = torch.from_numpy(np.array(observation, dtype=np.float32)).reshape((1, *self.arch.observation_shape))
        return self._forward(obs)[0].numpy()

    def probabilities(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The masked action probabilities, as :meth:`NetworkActor.probabilities`."""
        import torch

        # sb3's obs_to_tensor: a copy of the float32 observation with a batch axis
        obs = torch.as_tensor(np.array(np.asarray(observation, dtype=np.float32)).reshape((-1, *self.arch.observation_shape)))
        return _masked(self._forward(obs), mask)

    def network(self) -> Any:
        """The whole network (a MaskableActorCriticPolicy with these weights), built on first use."""
        from parlor.agents.policy_format import fit_weights

        if not hasattr(self, "_network"):
            policy = self.arch.build()
            fit_weights(policy, self.weights, "policy")
            self._network = policy
        return self._network


class NetworkActor:
    """The actor of a live MaskableActorCriticPolicy (e.g. a learner's, on its own device)."""

    def __init__(self, policy: Any):
        self.policy = policy

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """The network's action logits: the forward pass of ``get_distribution`` without
        building the masked distribution (a third of a guarded decision's network time)."""
        import torch
        from stable_baselines3.common.policies import BasePolicy

        # obs_to_tensor's checks and device lookup cost more than the network's three layers
        obs = torch.from_numpy(np.array(observation, dtype=np.float32)).reshape((1, *self.policy.observation_space.shape))
        with torch.no_grad():  # a learner trained with ppo.device=cuda is evaluated where it lives
            features = BasePolicy.extract_features(self.policy, obs.to(self.policy.device), self.policy.pi_features_extractor)
            return self.policy.action_net(self.policy.mlp_extractor.forward_actor(features))[0].cpu().numpy()

    def probabilities(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The masked action probabilities (zero on illegal actions, summing to 1 in float64)."""
        import torch

        obs, _ = self.policy.obs_to_tensor(np.asarray(observation, dtype=np.float32))
        with torch.no_grad():
            dist = self.policy.get_distribution(obs, action_masks=mask[None, :])
            probs = dist.distribution.probs[0].cpu().numpy().astype(np.float64)
        probs[~mask] = 0.0
        return probs / probs.sum()

    def network(self) -> Any:
        return self.policy
