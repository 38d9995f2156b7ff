"""Parlor policy files as sb3-contrib models: :func:`to_sb3` (re-exported by :mod:`parlor.agents.policy`).

A parlor policy file is not an SB3 zip: SB3's own format pickles objects, parlor's never
does (:mod:`parlor.agents.policy_format`), so ``MaskablePPO.load`` finds "No data" in it.
:func:`to_sb3` builds a ``MaskablePPO`` the supported way instead: the network from the
file's JSON architecture (allow-listed class and activation), filled with its safetensors
weights that must fit name for name and shape for shape; for a training checkpoint (a run's
``model.zip``, ``checkpoints/*.zip``) also Adam's moment estimates, the update count and the
step count, so that ``learn`` continues where the run stopped. Nothing is unpickled.

The model then predicts what :class:`~parlor.agents.policy.PolicyAgent` plays on the same
observation and mask (deterministic: the most probable legal action). A policy trained inside
an action guard plays with the guard's narrowed mask: its model must be given the masks of
an env with the same ``action_guard`` (``gymnasium.make(..., action_guard=...)``), which is why
a parlor env with another guard is refused. Back to a parlor file: ``save_policy(model, ...)``.

torch and sb3 are imported only inside functions (importing this module costs nothing).
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from parlor.agents.policy_format import (
    Architecture,
    activation_class,
    fit_weights,
    read_policy_file,
    restore_optimizer,
)

RESERVED = ("policy", "env", "policy_kwargs", "_init_setup_model")  # set by to_sb3 itself


def _source(source: Any) -> tuple[str, dict[str, Any] | None, Architecture, Mapping[str, Any], Any]:
    """(name, header or None, architecture, weights, saved file or None) of a policy file path, a
    :class:`PolicyAgent` or a live MaskableActorCriticPolicy."""
    if isinstance(source, (str, Path)):
        header = read_policy_file(source, weights=False).header
        saved = read_policy_file(source, optimizer="checkpoint" in header)
        assert saved.weights is not None  # read with its weights
        return str(source), saved.header, saved.architecture, saved.weights, saved
    policy = getattr(source, "policy", source)  # a PolicyAgent (or an SB3 model) or its network
    try:
        arch = Architecture.of_policy(policy)
    except (ValueError, AttributeError) as exc:
        raise TypeError(f"to_sb3: {type(source).__name__} is not a policy file path, a PolicyAgent or a "
                        f"MaskableActorCriticPolicy ({exc})") from None
    guard = getattr(source, "guard", None)
    guard_header = {"action_guard": dict(guard)} if guard else None
    return type(source).__name__, guard_header, arch, policy.state_dict(), None


def _parlor_env(env: Any) -> tuple[Any, dict[str, float]] | None:
    """(game, action guard) of the (first) SingleAgentEnv inside ``env`` (a Gymnasium
    env or an SB3 VecEnv, whose attributes come through ``get_attr``), or None for another env."""
    names = ("game", "action_guard")
    try:
        if hasattr(env, "get_attr") and hasattr(env, "num_envs"):  # a VecEnv: ask its first env
            values = [env.get_attr(n, indices=[0])[0] for n in names]
        else:
            values = [getattr(env.unwrapped, n) for n in names]
    except AttributeError:
        return None
    game, guard = values
    return game, {str(k): float(v) for k, v in dict(guard or {}).items()}


def _check_env(name: str, header: Mapping[str, Any], env: Any) -> None:
    """A parlor env must be the policy's (env, options, layout) and apply the policy's action guard."""
    from parlor.agents.policy import PolicyMismatchError, action_guard, check_signature, signature

    found = _parlor_env(env)
    if found is None:
        return
    game, got = found
    if "env" in header:
        check_signature(header, signature(game), name, game.portable_options)
    want = action_guard(header)
    if want != got:
        raise PolicyMismatchError(f"{name} plays inside the action guard {want or 'none'}, this env applies "
                                  f"{got or 'none'}: make the env with action_guard={want!r} so that its "
                                  "action_masks() are the ones the policy plays with")


def _model_without_env(arch: Architecture, kwargs: dict[str, Any]) -> Any:
    """A MaskablePPO for one env that has none yet (predict; ``set_env`` before ``learn``),
    built the way SB3's own ``load`` builds one without an env."""
    import numpy as np
    from gymnasium import spaces
    from sb3_contrib import MaskablePPO

    # env=None is how SB3's own load builds a model without an env; its annotation leaves None out
    model = MaskablePPO("MlpPolicy", env=None, _init_setup_model=False, **kwargs)  # type: ignore[arg-type]
    model.observation_space = spaces.Box(arch.observation_low, arch.observation_high, arch.observation_shape,
                                         np.float32)
    model.action_space = spaces.Discrete(arch.num_actions)
    model.n_envs = 1
    model._setup_model()
    return model


def to_sb3(source: Any, env: Any = None, **ppo_kwargs: Any) -> Any:
    """A ``sb3_contrib.MaskablePPO`` holding the network of ``source``: a parlor policy file
    (path), a :class:`~parlor.agents.policy.PolicyAgent` or a MaskableActorCriticPolicy.

    ``env`` (a Gymnasium env or an SB3 VecEnv, e.g. ``make_vec_env("parlor/Buki-v0", ...)``)
    is the one ``learn`` trains on; its spaces must fit the network, and a parlor env must be
    the policy's env and options (:class:`~parlor.agents.policy.PolicyMismatchError` naming each
    difference) with the policy's action guard. Without ``env`` the model predicts, and takes one
    with ``model.set_env(env)`` (a single env) before ``learn``. ``ppo_kwargs`` are MaskablePPO's
    hyperparameters (``learning_rate``, ``n_steps``, ``seed``, ``device`` ("cpu" unless given),
    ...; a file records no hyperparameters, so SB3's defaults apply unless given); the network
    comes from the file. A checkpoint also restores the optimizer's state, ``num_timesteps`` and
    the update count (``learn(..., reset_num_timesteps=False)`` keeps counting from them)."""
    reserved = sorted(set(ppo_kwargs) & set(RESERVED))
    if reserved:
        raise ValueError(f"to_sb3: {', '.join(reserved)} cannot be given: the network comes from the policy "
                         f"file and the env is the argument env; allowed: MaskablePPO's hyperparameters")
    name, header, arch, weights, saved = _source(source)
    if env is not None and header is not None:
        _check_env(name, header, env)
    kwargs = {"device": "cpu", **ppo_kwargs, "policy_kwargs": dict(
        net_arch=dict(pi=list(arch.pi), vf=list(arch.vf)), activation_fn=activation_class(arch.activation))}
    if env is None:
        model = _model_without_env(arch, kwargs)
    else:
        from sb3_contrib import MaskablePPO

        model = MaskablePPO("MlpPolicy", env, **kwargs)
    built = Architecture.of_policy(model.policy)
    if built != arch:
        raise ValueError(f"to_sb3: the env's spaces (observation {list(built.observation_shape)} in "
                         f"[{built.observation_low}, {built.observation_high}], {built.num_actions} actions) do not "
                         f"fit {name} (observation {list(arch.observation_shape)} in [{arch.observation_low}, "
                         f"{arch.observation_high}], {arch.num_actions} actions)")
    fit_weights(model.policy, weights, name)
    if saved is not None:
        model.num_timesteps = int(saved.header["num_timesteps"])
        if saved.optimizer is not None:
            restore_optimizer(model.policy.optimizer, saved.optimizer, saved.path)
            model._n_updates = int(saved.header["checkpoint"]["n_updates"])
    return model
