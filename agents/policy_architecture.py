"""The architecture of a policy file's network (for :mod:`parlor.agents.policy_format`): what
rebuilds it, from allow-listed parts only, and the limits a file's header must keep (layers,
widths, observation entries, parameters), checked before any network is built or any
tensor read. torch and sb3 load inside functions.
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from parlor.envs.engine.game import shown

POLICY_CLASSES = ("MaskableActorCriticPolicy",)
ACTIVATIONS = ("tanh", "relu")
MAX_LAYERS, MAX_WIDTH = 16, 4096
MAX_OBSERVATION = 1 << 20            # entries of the observation (the product of its shape)
MAX_PARAMETERS = 1 << 26             # numbers in the network (256 MiB of float32)


@dataclass(frozen=True, slots=True, kw_only=True)
class Architecture:
    """What rebuilds the network: a MaskableActorCriticPolicy with an MLP of ``pi`` (actor)
    and ``vf`` (critic) hidden layers and ``activation``, on a flat Box observation."""

    policy: str = "MaskableActorCriticPolicy"
    pi: tuple[int, ...]
    vf: tuple[int, ...]
    activation: str
    observation_shape: tuple[int, ...]
    observation_low: float
    observation_high: float
    num_actions: int

    def __post_init__(self) -> None:
        if self.policy not in POLICY_CLASSES:
            raise ValueError(f"policy={shown(self.policy)} is not allowed; allowed values: {', '.join(POLICY_CLASSES)}")
        if self.activation not in ACTIVATIONS:
            raise ValueError(f"activation={shown(self.activation)} is not allowed; allowed values: {', '.join(ACTIVATIONS)}")
        for name in ("pi", "vf", "observation_shape"):
            value = getattr(self, name)
            if isinstance(value, list):
                value = tuple(value)
                object.__setattr__(self, name, value)
            limit = MAX_WIDTH if name != "observation_shape" else 1 << 24
            if not isinstance(value, tuple) or not 1 <= len(value) <= MAX_LAYERS or not all(
                    is_int(n) and 1 <= n <= limit for n in value):
                raise ValueError(f"{name}={shown(value)} must be a list of 1 to {MAX_LAYERS} sizes in 1..{limit}")
        if math.prod(self.observation_shape) > MAX_OBSERVATION:
            raise ValueError(f"observation_shape={list(self.observation_shape)} has {math.prod(self.observation_shape):,} "
                             f"entries; at most {MAX_OBSERVATION:,} allowed")
        for name in ("observation_low", "observation_high"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
                raise ValueError(f"{name}={shown(value)} must be a number")
            object.__setattr__(self, name, float(value))
        if not self.observation_low <= self.observation_high:
            raise ValueError(f"observation_low={self.observation_low} is above observation_high={self.observation_high}; "
                             "the low bound must be <= the high bound")
        if not is_int(self.num_actions) or not 1 <= self.num_actions <= 1 << 20:
            raise ValueError(f"num_actions={shown(self.num_actions)} must be an integer in 1..{1 << 20}")
        if self.parameters() > MAX_PARAMETERS:
            raise ValueError(f"the network (pi={shown(list(self.pi))}, vf={shown(list(self.vf))}) has "
                             f"{self.parameters():,} parameters; at most {MAX_PARAMETERS:,} allowed")

    def tensor_shapes(self) -> dict[str, tuple[int, ...]]:
        """The network's tensors by name and shape (what ``build().state_dict()`` holds),
        computed without building it."""
        shapes: dict[str, tuple[int, ...]] = {}
        for net, sizes in (("policy_net", self.pi), ("value_net", self.vf)):
            before = math.prod(self.observation_shape)
            for i, size in enumerate(sizes):  # Linear, activation, Linear, ...: the Linears are 0, 2, 4...
                shapes[f"mlp_extractor.{net}.{2 * i}.weight"] = (size, before)
                shapes[f"mlp_extractor.{net}.{2 * i}.bias"] = (size,)
                before = size
        shapes.update({"action_net.weight": (self.num_actions, self.pi[-1]), "action_net.bias": (self.num_actions,),
                       "value_net.weight": (1, self.vf[-1]), "value_net.bias": (1,)})
        return shapes

    def parameters(self) -> int:
        """How many numbers the network holds."""
        return sum(math.prod(shape) for shape in self.tensor_shapes().values())

    def describe(self) -> str:
        """``pi=[256, 256], vf=[256, 256], relu``: the part a trainer chooses."""
        return f"pi={list(self.pi)}, vf={list(self.vf)}, {self.activation}"

    def to_json(self) -> dict[str, Any]:
        return {f.name: (list(v) if isinstance(v := getattr(self, f.name), tuple) else v)
                for f in dataclasses.fields(self)}

    @classmethod
    def from_json(cls, data: Any) -> Architecture:
        names = [f.name for f in dataclasses.fields(cls)]
        if not isinstance(data, Mapping):
            raise ValueError(f"must be an object with keys {', '.join(names)}")
        unknown, missing = sorted(set(data) - set(names)), sorted(set(names) - set(data))
        if unknown or missing:
            raise ValueError(f"unknown keys {unknown}, missing keys {missing}; allowed keys: {', '.join(names)}")
        return cls(**data)

    @classmethod
    def of_policy(cls, policy: Any) -> Architecture:
        """The architecture of a live sb3-contrib MaskableActorCriticPolicy (what parlor trains)."""
        import numpy as np
        from gymnasium import spaces
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
        from stable_baselines3.common.torch_layers import FlattenExtractor

        if type(policy) is not MaskableActorCriticPolicy:
            raise ValueError(f"a {type(policy).__name__} is not a policy parlor can save; allowed: {', '.join(POLICY_CLASSES)}")
        space, action = policy.observation_space, policy.action_space
        if not isinstance(space, spaces.Box) or not isinstance(action, spaces.Discrete) or not isinstance(
                policy.features_extractor, FlattenExtractor) or not policy.share_features_extractor:
            raise ValueError("only a flat Box observation, a Discrete action and the plain flatten extractor are saved")
        low, high = np.unique(space.low), np.unique(space.high)
        if low.size != 1 or high.size != 1:
            raise ValueError("the observation bounds must be the same for every entry")
        arch = policy.net_arch if isinstance(policy.net_arch, dict) else {"pi": policy.net_arch, "vf": policy.net_arch}
        activation = next((name for name, fn in _activations().items() if fn is policy.activation_fn), None)
        if activation is None:
            raise ValueError(f"activation {policy.activation_fn.__name__} is not allowed; allowed values: {', '.join(ACTIVATIONS)}")
        return cls(pi=tuple(arch["pi"]), vf=tuple(arch["vf"]), activation=activation,
                   observation_shape=tuple(int(n) for n in space.shape), observation_low=float(low[0]),
                   observation_high=float(high[0]), num_actions=int(action.n))

    def build(self) -> Any:
        """A fresh MaskableActorCriticPolicy of this architecture (CPU, eval mode). Its throw-away
        initial weights do not touch the global torch RNG (training runs stay reproducible)."""
        import numpy as np
        import torch
        from gymnasium import spaces
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

        with torch.random.fork_rng(devices=[]):
            policy = MaskableActorCriticPolicy(
                spaces.Box(self.observation_low, self.observation_high, self.observation_shape, np.float32),
                spaces.Discrete(self.num_actions), lambda _: 0.0, net_arch={"pi": list(self.pi), "vf": list(self.vf)},
                activation_fn=_activations()[self.activation], ortho_init=False)
        policy.set_training_mode(False)
        return policy


def _activations() -> dict[str, Any]:
    import torch

    return {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}


def activation_class(name: str) -> Any:
    """The torch module class of an allow-listed activation name (what trainers pass to SB3)."""
    if name not in ACTIVATIONS:
        raise ValueError(f"activation={name!r} is not allowed; allowed values: {', '.join(ACTIVATIONS)}")
    return _activations()[name]


def is_int(value: Any) -> bool:
    """An int that is not a bool (JSON true is no size)."""
    return isinstance(value, int) and not isinstance(value, bool)
