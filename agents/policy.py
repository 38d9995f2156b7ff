"""Trained policies: the one owner of policy files (save, load, check, convert) and the policy agent.

A policy file records what it was trained on (its *signature*: env, the game's
full options, observation shape and layout version, number of actions), the
network's architecture and weights, and metadata (steps trained, an action guard).
:func:`load_policy` is the one loader: it always checks the signature against the
env the policy is loaded into and refuses a mismatch with a :class:`PolicyMismatchError`
naming every difference, but in the options the game declares portable
(``Game.portable_options``: an OFC policy plays any number of hands); warm starts
(:func:`load_weights_into`) are as portable, checkpoints (:func:`read_checkpoint`, the same
run's) and conversions are not. :class:`PolicyAgent` plays a policy as an
:class:`~parlor.agents.base.Agent` (the agent spec ``ppo:PATH.zip`` of
:mod:`parlor.agents.registry`, self-play snapshots, the learner's evaluation).

Loading a policy runs no code from the file: it is a zip of ``parlor.json`` (JSON)
and ``weights.safetensors`` (tensors), the network is rebuilt from the JSON
architecture (allow-listed class and activation), and nothing is unpickled; any
other content is refused with a :class:`PolicyFileError` (one line: the file and
the problem). The bytes are read and written only by :mod:`parlor.agents.policy_format`
(which documents the format); files of the old format 1 (SB3 zips, which hold
pickles) are refused and :func:`convert_sb3_policy` (``parlor convert``) converts them
without unpickling (:mod:`parlor.agents.policy_legacy`).

Solved decisions: where the env's advisor solves a decision exactly (``solved_action``,
e.g. OFC's Fantasyland hands) the policy agent plays the solution, as the learner's
seat did in training (``training.learning.wrapper``).

Action guard: a policy trained with one (``action_guard``, e.g. ``{"foul": 0.0}``)
was only ever allowed the actions the env's advisor keeps (:mod:`parlor.agents.advisors`),
so it plays with the same narrowed mask wherever it is loaded. A late planner
(``late_planner``, :mod:`parlor.agents.policy_planner`) plays the hand's last turns.

torch, safetensors and sb3 are imported only inside functions.
"""
from __future__ import annotations

import dataclasses
import functools
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from parlor.agents.advisors import advisor_for, check_guard, first_guarded, guarded, solved_action
from parlor.agents.policy_actor import FileActor, NetworkActor, RemoteActor, file_actor, file_key, served
from parlor.agents.policy_format import (
    ACTIVATIONS,
    HEADER,
    POLICY_FORMAT,
    Architecture,
    PolicyFile,
    PolicyFileError,
    activation_class,
    check_tensors,
    fit_weights,
    optimizer_tensors,
    read_policy_file,
    restore_optimizer,
    write_policy_file,
)
from parlor.agents.policy_planner import HEADER_KEY as PLANNER_KEY
from parlor.agents.policy_planner import LatePlanner, check_late_planner, late_planner_of
from parlor.agents.sb3_export import to_sb3 as to_sb3  # SB3 models from policy files (re-export)
from parlor.envs.engine.game import ConfigError, Game

__all__ = ["ACTIVATIONS", "POLICY_FORMAT", "Architecture", "PolicyAgent", "PolicyFile", "PolicyFileError",
           "NetworkMismatchError", "PolicyMismatchError", "action_guard", "activation_class", "architecture_for", "check_policy", "check_signature", "convert_sb3_policy",
           "fit_weights", "layout_version", "load_policy", "load_weights_into", "read_checkpoint", "read_signature", "restore_optimizer",
           "save_policy", "save_policy_weights", "shield_policy", "signature"]

SIGNATURE_KEYS = ("env", "layout_version", "observation_shape", "num_actions", "options")
SHARED_MODELS = 8  # networks kept per process for agents (evaluation workers load each file once)


class PolicyMismatchError(ConfigError):
    """A saved policy was loaded into an env other than the one it was trained on."""


class NetworkMismatchError(PolicyMismatchError):
    """A saved policy's weights were loaded into a network of another architecture."""


# ---------------------------------------------------------------- the signature
def _jsonable(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return [_jsonable(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def layout_version(game: Game) -> str:
    """The observation layout's version: the env id's ``_vN`` (``game.name``) plus the game's own
    ``observation_version`` when it declares one (bumped when encode changes)."""
    own = game.observation_version
    return game.name if own is None else f"{game.name}/{own}"


def signature(game: Game) -> dict[str, Any]:
    """What a policy trained on ``game`` needs to be true of the env it plays in (its env id
    is ``game.name``)."""
    config = game.config
    options = {f.name: getattr(config, f.name) for f in dataclasses.fields(config)} if dataclasses.is_dataclass(config) else {}
    return {
        "env": game.name,
        "layout_version": layout_version(game),
        "observation_shape": [int(n) for n in game.observation_shape],
        "num_actions": int(game.num_actions),
        "options": _jsonable(options),
    }


def check_signature(saved: Mapping[str, Any], expected: Mapping[str, Any], path: str | Path = "policy",
                    portable: Collection[str] = ()) -> None:
    """Raise :class:`PolicyMismatchError` naming each field where ``saved`` and ``expected`` differ;
    the options in ``portable`` (the game's ``portable_options``) may differ."""
    problems = []
    for key in SIGNATURE_KEYS:
        if key == "options":
            continue
        if saved.get(key) != expected.get(key):
            problems.append(f"{key}: trained on {saved.get(key)!r}, loading into {expected.get(key)!r}")
    saved_opts, want_opts = saved.get("options", {}), expected.get("options", {})
    for name in sorted(set(saved_opts) | set(want_opts)):
        if name not in portable and saved_opts.get(name) != want_opts.get(name):
            problems.append(f"option {name}: trained with {saved_opts.get(name)!r}, loading into {want_opts.get(name)!r}")
    if problems:
        raise PolicyMismatchError(f"{path} does not fit this env: " + "; ".join(problems))


# ---------------------------------------------------------------- action guards
def action_guard(saved: Mapping[str, Any]) -> dict[str, float]:
    """The action guard recorded in a policy's signature ({} for none)."""
    return {str(k): float(v) for k, v in (saved.get("action_guard") or {}).items()}


# ---------------------------------------------------------------- saving
def architecture_for(game: Game, net_arch: tuple[int, ...] | Mapping[str, Any], activation: str) -> Architecture:
    """The :class:`Architecture` of a network for ``game``: ``net_arch`` is the hidden layer sizes
    of actor and critic alike, or ``{"pi": [...], "vf": [...]}``; ``activation`` one of ACTIVATIONS."""
    arch = net_arch if isinstance(net_arch, Mapping) else {"pi": net_arch, "vf": net_arch}
    low, high = game.observation_bounds
    return Architecture(pi=tuple(arch["pi"]), vf=tuple(arch["vf"]), activation=activation,
                        observation_shape=tuple(int(n) for n in game.observation_shape), observation_low=float(low),
                        observation_high=float(high), num_actions=int(game.num_actions))


def _header(game: Game, arch: Architecture, num_timesteps: int, guard: Mapping[str, float] | None,
            metadata: Mapping[str, Any] | None) -> dict[str, Any]:
    header = {"format": POLICY_FORMAT, **signature(game), "architecture": arch.to_json(),
              "num_timesteps": int(num_timesteps)}
    if guard:
        header["action_guard"] = {str(k): float(v) for k, v in guard.items()}
    if metadata:
        header["metadata"] = _jsonable(metadata)
    return header


def _zip_path(path: str | Path) -> Path:
    path = Path(path)
    return path if path.suffix == ".zip" else path.with_suffix(".zip")


def save_policy_weights(state_dict: Mapping[str, Any], arch: Architecture, path: str | Path,
                        game: Game, *, num_timesteps: int = 0, action_guard: Mapping[str, float] | None = None,
                        metadata: Mapping[str, Any] | None = None) -> Path:
    """Write a policy file from torch tensors named as in sb3-contrib's MaskableActorCriticPolicy
    (``mlp_extractor.policy_net.0.weight``, ..., ``action_net.bias``, ``value_net.bias``) and their
    :class:`Architecture` (e.g. :func:`architecture_for`); the tensors are checked against it.
    For trainers other than SB3 (RLlib exports through this). Returns the file's path."""
    path = _zip_path(path)
    fit_weights(arch.build(), state_dict, path)  # the file will load: every tensor fits the architecture
    return write_policy_file(path, _header(game, arch, num_timesteps, action_guard, metadata), state_dict)


def save_policy(model: Any, path: str | Path, game: Game, *, checkpoint: bool = False,
                action_guard: Mapping[str, float] | None = None, metadata: Mapping[str, Any] | None = None) -> Path:
    """Save the network of ``model`` (a MaskablePPO, or its policy) with the signature of ``game``.
    ``checkpoint=True`` (a MaskablePPO) adds the optimizer state and update count, so that
    training can continue from the file (``parlor train --resume``)."""
    policy = getattr(model, "policy", model)
    header = _header(game, Architecture.of_policy(policy), getattr(model, "num_timesteps", 0),
                     action_guard, metadata)
    optimizer = None
    if checkpoint:
        header["checkpoint"] = {"n_updates": int(model._n_updates)}
        optimizer = optimizer_tensors(policy.optimizer)
    return write_policy_file(_zip_path(path), header, policy.state_dict(), optimizer)


def shield_policy(source: str | Path, dest: str | Path, guard: Mapping[str, float] | None, game: Game,
                  late_planner: Mapping[str, Any] | None | bool = True) -> Path:
    """Copy the policy file ``source`` to ``dest`` (which may be ``source``) with ``guard`` as
    its action guard, replacing any it had ({} removes it, None keeps it), and ``late_planner``
    (:mod:`.policy_planner`) likewise (True keeps it); the network's bytes are copied unchanged.
    ``game`` is the policy's own game: a guard its env's advisor cannot apply, or a planner it
    has not, raises ConfigError."""
    saved = read_policy_file(source)
    guard = action_guard(saved.header) if guard is None else guard
    planner = late_planner_of(saved.header) if late_planner is True else late_planner or None
    check_guard(advisor_for(game), guard, game.name)
    if planner is not None:
        check_late_planner(planner, game)
    assert saved.weights is not None and saved.weights_bytes is not None  # read with its weights
    fit_weights(saved.architecture.build(), saved.weights, source)  # never pass on a file that does not load
    header = {k: v for k, v in saved.header.items() if k not in ("action_guard", "checkpoint", PLANNER_KEY)}
    if guard:
        header["action_guard"] = {str(k): float(v) for k, v in guard.items()}
    if planner is not None:
        header[PLANNER_KEY] = dict(planner)
    return write_policy_file(dest, header, saved.weights_bytes)


def convert_sb3_policy(source: str | Path, dest: str | Path, game: Game) -> Path:
    """Write the policy of ``source``, a file of format 1 (an SB3 MaskablePPO zip with
    ``parlor.json``), to ``dest`` in the current format: same signature, weights, step count
    and action guard. Nothing in ``source`` is unpickled (see :mod:`parlor.agents.policy_legacy`).
    ``game`` is the policy's own game (its env and options as recorded in the file)."""
    from parlor.agents.policy_legacy import read_sb3_zip

    old, tensors, activation, layers = read_sb3_zip(source)
    check_signature(old, signature(game), source)
    try:
        arch = architecture_for(game, layers, activation)
    except ValueError as exc:
        raise PolicyFileError(source, f"its network cannot be described: {exc}") from None
    check_tensors(arch, tensors, source, "policy.pth")  # before any network is built from them
    guard = old.get("action_guard") or {}
    if not isinstance(guard, Mapping) or not isinstance(old.get("num_timesteps", 0), int):
        raise PolicyFileError(source, f"{HEADER}: action_guard must be an object, num_timesteps an integer")
    return save_policy_weights(tensors, arch, dest, game, num_timesteps=old.get("num_timesteps", 0),
                               action_guard=guard, metadata={"converted_from": "policy format 1 (an SB3 zip)"})


# ---------------------------------------------------------------- loading
def read_signature(path: str | Path) -> dict[str, Any]:
    """The checked header of a policy file: its signature (env, options, layout, shapes) and
    metadata (num_timesteps, action_guard, architecture...); the tensors are not read."""
    return read_policy_file(path, weights=False).header


def check_policy(path: str | Path, game: Game) -> dict[str, Any]:
    """Everything :meth:`PolicyAgent.from_file` checks (the file, its signature against ``game``,
    its tensors against its architecture, its action guard against the env's advisor, the
    libraries that play it installed) without importing torch; returns the header. A process
    that only plans work for others (an evaluation's parent) checks with this, so the worker
    processes it forks do not inherit torch (which does not survive fork) or pay for it twice."""
    import importlib.util

    for module in ("torch", "sb3_contrib"):
        if importlib.util.find_spec(module) is None:  # ModuleNotFoundError names the extra to install
            raise ModuleNotFoundError(f"No module named {module!r}", name=module)
    saved = read_policy_file(path, framework="numpy")  # its tensors checked against its architecture
    check_signature(saved.header, signature(game), path, game.portable_options)
    guard = action_guard(saved.header)
    if guard:
        check_guard(advisor_for(game), guard, game.name)
    setting = late_planner_of(saved.header)
    if setting is not None:
        check_late_planner(setting, game)
    return saved.header


def _build(path: str | Path) -> tuple[dict[str, Any], Any]:
    saved = read_policy_file(path)
    policy = saved.architecture.build()
    assert saved.weights is not None  # read with its weights
    fit_weights(policy, saved.weights, path)
    return saved.header, policy


@functools.lru_cache(maxsize=SHARED_MODELS)
def _shared(path: str, mtime_ns: int, size: int) -> tuple[dict[str, Any], Any]:
    return _build(path)


@functools.lru_cache(maxsize=SHARED_MODELS)
def _shared_actor(path: str, mtime_ns: int, size: int) -> tuple[dict[str, Any], FileActor]:
    return file_actor(path)


def _actor(path: str | Path) -> FileActor | RemoteActor:
    """The actor of a policy file: this process's shared FileActor, or, in a process whose
    policies another serves (an evaluation worker), a RemoteActor (no torch here)."""
    client = served()
    return _shared_actor(*file_key(path))[1] if client is None else client.actor(*file_key(path))


def load_policy(path: str | Path, game: Game, shared: bool = False) -> Any:
    """The network in the policy file ``path`` (an sb3-contrib MaskableActorCriticPolicy in eval
    mode), checked for ``game`` (of env ``game.name``): :class:`PolicyMismatchError` if it was trained
    on another env, other options (but the game's ``portable_options``, e.g. OFC's number of
    hands) or another observation layout; :class:`PolicyFileError` for a
    file that is not a policy of this format. ``shared=True`` returns the process's read-only copy
    (agents: each file is read once); otherwise a fresh copy of its own."""
    check_signature(read_signature(path), signature(game), path, game.portable_options)  # before any tensor is read
    return (_shared(*file_key(path)) if shared else _build(path))[1]


def load_weights_into(policy: Any, path: str | Path, game: Game) -> dict[str, Any]:
    """Copy the weights of the policy file ``path`` (checked for ``game``) into ``policy``, a live
    MaskableActorCriticPolicy (e.g. a fresh MaskablePPO's, for a warm start: across the game's
    ``portable_options`` too, e.g. a single-hand OFC policy for 6-hand matches); a network of
    another architecture is a :class:`NetworkMismatchError`. Returns the file's header."""
    saved = read_policy_file(path)
    check_signature(saved.header, signature(game), path, game.portable_options)
    mine = Architecture.of_policy(policy)
    if mine != saved.architecture:
        raise NetworkMismatchError(f"{path}: its network ({saved.architecture.describe()}) is not this one "
                                  f"({mine.describe()})")
    assert saved.weights is not None  # read with its weights
    fit_weights(policy, saved.weights, path)
    return saved.header


def read_checkpoint(path: str | Path, game: Game) -> PolicyFile:
    """A training checkpoint (weights, optimizer state, counters) checked for ``game`` strictly
    (a resumed run has its own options); :class:`PolicyFileError` if it is torn or not a checkpoint."""
    saved = read_policy_file(path, optimizer=True)
    check_signature(saved.header, signature(game), path)
    return saved


# ---------------------------------------------------------------- the agent
class PolicyAgent:
    """A trained policy as an :class:`~parlor.agents.base.Agent`: masked, from the observation.

    Deterministic play takes the most probable legal action; stochastic play samples
    the masked action distribution with the agent's own seeded generator (never the
    global torch RNG, so it cannot disturb training). ``guard`` narrows the mask
    with the ``guarded_mask`` of the env's advisor (the game is needed then). With the game
    the decisions its advisor solves (``solved_action``) are played as solved.
    """

    def __init__(self, policy: Any, game: Game | None = None, deterministic: bool = True, seed: int | None = None,
                 name: str = "ppo", guard: Mapping[str, float] | None = None,
                 late_planner: Mapping[str, Any] | None = None):
        network = getattr(policy, "policy", policy)  # an sb3 model or its policy, or a file's actor
        self.actor = network if isinstance(network, (FileActor, RemoteActor)) else NetworkActor(network)
        self.game, self.guard = game, dict(guard or {})
        self.advisor = advisor_for(game) if game is not None else None
        if self.guard:
            if game is None:
                raise ValueError("PolicyAgent: an action guard needs the game (its advisor)")
            check_guard(self.advisor, self.guard, game.name)
        self.deterministic = deterministic
        self.name = name
        self.rng = np.random.default_rng(seed)
        # the hand's last turns played by a planner (:mod:`.policy_planner`); it needs the game
        self.late = (LatePlanner(late_planner, game, seed, prior=self.view_logits)
                     if late_planner and game is not None else None)
        if late_planner and game is None:
            raise ValueError("PolicyAgent: a late planner needs the game")

    @classmethod
    def from_file(cls, path: str | Path, game: Game, deterministic: bool = True,
                  seed: int | None = None) -> PolicyAgent:
        """The policy saved at ``path`` (checked by :func:`load_policy`) with the guard it carries."""
        # its actor alone: the same actions without building the sb3 policy (:mod:`.policy_actor`)
        header = read_signature(path)
        check_signature(header, signature(game), path, game.portable_options)
        return cls(_actor(path), game, deterministic=deterministic, seed=seed, name=f"ppo:{path}",
                   guard=action_guard(header), late_planner=late_planner_of(header))

    @property
    def policy(self) -> Any:
        """The network (a MaskableActorCriticPolicy; a file's is built on first use)."""
        return self.actor.network()

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        if self.late is not None:
            self.late.reset(seed)

    def probabilities(self, observation: np.ndarray, action_mask: np.ndarray, view: Any = None) -> np.ndarray:
        """The policy's masked action probabilities (zero on illegal actions); ``view``
        (the seat's) for a guard that judges the board."""
        mask = guarded(self.advisor, observation, np.asarray(action_mask, dtype=bool), self.guard, view)
        return self._masked_probabilities(observation, mask)

    def _logits(self, observation: np.ndarray) -> np.ndarray:
        return self.actor.logits(observation)

    def view_logits(self, views: Sequence[Any]) -> np.ndarray:
        """The network's logits on each view's observation (a shortlist's prior): one forward
        pass each, as play makes them, so the bits match the actor's wherever it runs."""
        assert self.game is not None  # a late planner is built only with the game
        return np.stack([self._logits(self.game.encode(view)) for view in views])

    def _masked_probabilities(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        if not mask.any():
            raise ValueError(f"{self.name}: no legal action in the mask")
        return self.actor.probabilities(observation, mask)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: Any = None, sample_world: Any = None) -> int:
        solved = solved_action(self.advisor, view) if view is not None else None
        if solved is not None:
            return solved
        if self.late is not None and view is not None and self.late.takes(view):
            return self.late.act(observation, action_mask, view)
        if self.deterministic and self.guard:
            # the best action the guard keeps: judge in the policy's order, not the whole mask
            legal = np.asarray(action_mask, dtype=bool)
            if not legal.any():
                raise ValueError(f"{self.name}: no legal action in the mask")
            # softmax keeps the logits' order: the most probable kept action is the first kept in it
            order = [int(a) for a in np.argsort(-self._logits(observation), kind="stable") if legal[a]]
            return first_guarded(self.advisor, observation, legal, self.guard, view, order)
        probs = self.probabilities(observation, action_mask, view)
        if self.deterministic:
            return int(np.argmax(probs))
        return int(self.rng.choice(probs.size, p=probs))
