"""RLlib as a library: parlor's games in a user's own RLlib (new API stack) script.

``parlor train`` with ``backend: rllib`` is one way to train with RLlib; this module is
the other, for a script of one's own. It hands out the pieces ``parlor train`` uses, so
the two cannot drift apart:

- :class:`ParlorMultiAgentEnv` and :func:`env_creator` (for ``tune.register_env``): the
  game as an RLlib ``MultiAgentEnv`` with the observation renamed to RLlib's
  ``observations``, a float32 ``action_mask`` and the opponents inside the env;
  :func:`env_config` makes its config (``ppo:PATH`` opponents are read here and travel as
  bytes, so a cluster needs no shared disk);
- :class:`MaskedPPOTorchRLModule` and :func:`module_spec`: PPO's actor-critic with the
  logits of illegal actions masked out, networks shaped as parlor's policy files;
- :func:`ppo_config`: RLlib's ``PPOConfig`` with all of the above wired in, parlor's lean
  env runner (RLlib's episodes at less CPU; ``parlor.training.learning.rllib_runner``), RLlib's env
  check turned off (it steps random, unmasked actions, which parlor's envs refuse with
  ``IllegalActionError``) and parlor's PPO defaults; refine it with RLlib's own setters
  (``.training(...)``, ``.env_runners(...)``, ``.learners(...)``);
- :func:`export_policy`: the trained module as a parlor policy file, which ``parlor
  eval --agents ppo:FILE.zip`` plays and which loads no code (weights and JSON only).

    from parlor.training import rllib as parlor_rllib

    config = parlor_rllib.ppo_config("tonk_v0", options={"num_players": 2}, opponents=["heuristic"])
    algo = config.training(train_batch_size_per_learner=2048).build_algo()
    for _ in range(10):
        algo.train()
    parlor_rllib.export_policy(algo, "tonk.zip")  # parlor eval tonk_v0 --option num_players=2 --agents ppo:tonk.zip,heuristic

docs/recipes.md has a complete script, and RLlib's own ``PettingZooEnv`` path with its pitfalls.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from parlor.training.learning.configs import PPOConfig, RLlibConfig, TrainConfig
from parlor.training.learning.opponents import PoolEntry
from parlor.training.learning.rllib_env import MASK_KEY, OBS_KEY, ParlorMultiAgentEnv
from parlor.training.learning.rllib_module import MaskedPPOTorchRLModule, model_config
from parlor.training.learning.rllib_train import LEARNER

__all__ = ["LEARNER", "MASK_KEY", "OBS_KEY", "MaskedPPOTorchRLModule", "ParlorMultiAgentEnv", "env_config",
           "env_creator", "export_policy", "module_spec", "ppo_config", "train_config"]

Opponents = Sequence[str | tuple[str, float] | PoolEntry]


def train_config(env: str, options: Mapping[str, Any] | None = None, opponents: Opponents = ("random",), *,
                 net_arch: Sequence[int] = (128, 128), activation: str = "tanh", seed: int = 0,
                 num_env_runners: int = 0, **keys: Any) -> TrainConfig:
    """The ``parlor train`` config (``backend: rllib``) these arguments mean: ``opponents`` are
    agent names (``heuristic``, ``search:16``, ``ppo:PATH.zip``) or (name, weight) pairs;
    ``keys`` are any other key of a training config (``n_envs``, ``reward_scale``,
    ``learner_seats``, ``action_guard``...), checked as ``parlor train`` checks them."""
    if isinstance(opponents, str):
        opponents = [opponents]
    entries = tuple(e if isinstance(e, PoolEntry) else PoolEntry(e) if isinstance(e, str) else PoolEntry(*e)
                    for e in opponents)
    return TrainConfig(env=env, options=dict(options or {}), opponents=entries, seed=seed, backend="rllib",
                       ppo=PPOConfig(net_arch=tuple(net_arch), activation=activation),
                       rllib=RLlibConfig(num_env_runners=num_env_runners), **keys)


def env_config(env: str, options: Mapping[str, Any] | None = None, opponents: Opponents = ("random",), *,
               seed: int = 0, **keys: Any) -> dict[str, Any]:
    """The ``env_config`` of :class:`ParlorMultiAgentEnv` for ``env`` (arguments as in
    :func:`train_config`); the env is built once here, so a bad name, option or opponent
    fails now, not on a remote env runner."""
    return _check(train_config(env, options, opponents, seed=seed, **keys))


def _check(config: TrainConfig) -> dict[str, Any]:
    """The env config of ``config``, its env built once here: a bad name, option or opponent
    fails now (a policy opponent's error names its path), not on a remote env runner."""
    from parlor.training.evaluation.shipped import policy_factories
    from parlor.training.learning.rllib_train import env_config as make
    from parlor.training.learning.wrapper import learner_game

    game, _ = learner_game(config.env, config.options)  # the env and its options
    policy_factories([e.agent for e in config.opponents], game)
    env_config = make(config)
    ParlorMultiAgentEnv(env_config)
    return env_config


def env_creator(config: Mapping[str, Any]) -> ParlorMultiAgentEnv:
    """For ``ray.tune.register_env("parlor", env_creator)``: the env of an :func:`env_config`."""
    return ParlorMultiAgentEnv(config)


def module_spec(net_arch: Sequence[int] = (128, 128), activation: str = "tanh") -> Any:
    """RLlib's ``RLModuleSpec`` of the masked module, networks as parlor's policy files
    (separate actor and critic MLPs of ``net_arch``, linear heads)."""
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    return RLModuleSpec(module_class=MaskedPPOTorchRLModule, model_config=model_config(tuple(net_arch), activation))


def ppo_config(env: str, options: Mapping[str, Any] | None = None, opponents: Opponents = ("random",),
               **keys: Any) -> Any:
    """RLlib's ``PPOConfig`` as ``parlor train`` builds it (arguments as in :func:`train_config`):
    the env, the masked module as the one trained module ``learner`` (every exposed seat maps
    to it), the env check off, parlor's PPO defaults mapped to RLlib's names. The env is
    built once here, so a bad name, option or opponent fails now."""
    from parlor.training.learning.rllib_train import ppo_config as make

    config = train_config(env, options, opponents, **keys)
    _check(config)
    return make(config)


def _module_config(algo: Any, module_id: str) -> tuple[tuple[int, ...], str]:
    spec = algo.config.rl_module_spec
    spec = getattr(spec, "rl_module_specs", {}).get(module_id, spec) if hasattr(spec, "rl_module_specs") else spec
    conf = spec.model_config
    get: Callable[..., Any] = conf.get if isinstance(conf, Mapping) else lambda key, default=None: getattr(conf, key, default)
    if spec.module_class is not MaskedPPOTorchRLModule or get("vf_share_layers", False) or get("head_fcnet_hiddens"):
        raise ValueError(f"module {module_id!r} is not parlor's MaskedPPOTorchRLModule of module_spec(...) "
                         "(separate actor and critic, linear heads): it has no parlor policy format")
    return tuple(get("fcnet_hiddens")), str(get("fcnet_activation"))


def export_policy(algo: Any, path: str | Path, *, module_id: str = LEARNER, num_timesteps: int = 0,
                  metadata: Mapping[str, Any] | None = None) -> Path:
    """Write the module ``module_id`` of the RLlib ``algo`` (built from :func:`ppo_config`, or
    any config with :class:`ParlorMultiAgentEnv` and :func:`module_spec`) as a parlor policy
    file for the env and options it trained on; returns the file's path (``.zip`` added)."""
    import torch

    from parlor.agents.policy import architecture_for, save_policy_weights
    from parlor.training.learning.rllib_export import sb3_names
    from parlor.training.learning.wrapper import make_env_game

    conf = algo.config.env_config
    if "env_name" not in conf:
        raise ValueError("the algorithm's env_config has no env_name: was it made by parlor's env_config(...)?")
    game = make_env_game(conf["env_name"], conf.get("options"))
    net_arch, activation = _module_config(algo, module_id)
    state = algo.learner_group.get_weights([module_id])[module_id]
    tensors = {k: torch.as_tensor(v) for k, v in sb3_names(state).items()}
    return save_policy_weights(tensors, architecture_for(game, net_arch, activation), path, game,
                               num_timesteps=num_timesteps, metadata={"trained_with": "rllib", **(metadata or {})})
