"""Training configs: strict YAML into frozen dataclasses.

One YAML file describes one experiment::

    env: ofc_v0                      # a registered env (or one added with parlor.training.learning.register_env)
    options: {variant: pineapple}    # the game's options
    learner_seats: null              # seats the learner rotates over (null: all)
    opponents: [{agent: heuristic, weight: 1.0}]   # the pool; agent "self" = snapshots
    self_play: {start: 200000, every: 50000, keep: 5}   # optional: when snapshots join
    reward_scale: 1.0                # rewards are multiplied by this for PPO
    shaping: {foul: -6.0}            # optional: weight x a State.stats() entry added at episode end
    shaping_mode: final              # final | potential (paid as the advisor's estimate of it changes)
    action_guard: {foul: 0.0}        # optional: the learner may only take actions the advisor's guard keeps
    n_envs: 2
    vec_env: subproc                 # subproc (env 0 in the learner's process, the rest in their own) | dummy
    vec_env_wait: auto               # subproc: the processes spin or sleep waiting for each other | auto (spin with a core each)
    total_steps: 1000000
    seed: 0
    checkpoint_every: 100000
    ppo: {learning_rate: 3.0e-4, n_steps: 1024, ..., device: cpu}   # MaskablePPO hyperparameters (device: sb3's)
    eval: {every: 50000, deals: 200, opponents: [heuristic], baselines: [heuristic]}
    pretrain: {teacher: heuristic, episodes: 2000, epochs: 10}   # optional behaviour-cloning warm start
    distill: {teacher: expert, rounds: 4, episodes: 2000}       # optional instead: expert iteration (DAgger) first
    init: runs/train/<run>/model.zip # optional instead of pretrain: start from a saved policy's weights (before distill)
    backend: sb3                     # sb3 (MaskablePPO, this machine) | rllib (RLlib PPO on a Ray cluster)
    rllib: {num_env_runners: 2, num_learners: 0, learner_device: cpu}   # only with backend: rllib (RLlibConfig)

Unknown keys anywhere are errors naming the allowed ones; values are checked
with the engine's ``check_*`` helpers (the error names the field). With
``backend: rllib`` (:mod:`parlor.training.learning.rllib_train`) every key keeps
its meaning except ``vec_env`` (RLlib's env runners replace the vector env: an
error if given); ``opponents: []`` there makes every seat the learner.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from parlor.agents.advisors import check_tolerances
from parlor.agents.policy_format import ACTIVATIONS  # the activations a policy file can describe
from parlor.envs.engine.config import (
    build,
    check_bool,
    check_choice,
    check_int,
    check_number,
    check_seed,
    load_yaml,
)
from parlor.envs.engine.game import ConfigError, shown
from parlor.training.learning.distill import DistillConfig
from parlor.training.learning.opponents import SELF, PoolEntry
from parlor.training.learning.wrapper import SHAPING_MODES

VEC_ENVS = ("dummy", "subproc")
DEVICES = ("cpu", "cuda")
BACKENDS = ("sb3", "rllib")
VEC_ENV_WAITS = ("auto", "spin", "sleep")  # how subproc processes wait (parlor.training.learning.vec_env)
SB3_ONLY = ("vec_env", "vec_env_wait")  # keys RLlib has no use for: given with backend rllib, an error


def _check_names(name: str, values: Any, allow_empty: bool = True) -> tuple[str, ...]:
    if isinstance(values, str) or not isinstance(values, (list, tuple)):
        raise ConfigError(f"{name}={shown(values)} must be a list of agent names")
    if not allow_empty and not values:
        raise ConfigError(f"{name} must name at least one agent")
    for v in values:
        if not isinstance(v, str) or not v:
            raise ConfigError(f"{name}: {shown(v)} is not an agent name")
    return tuple(values)


@dataclass(frozen=True, slots=True, kw_only=True)
class SelfPlayConfig:
    """Frozen snapshots of the learner join the pool entry ``self``."""

    start: int = 0          # first snapshot at this step
    every: int = 50_000     # then one every this many steps
    keep: int = 5           # newest snapshots kept in the pool

    def __post_init__(self) -> None:
        check_int("self_play.start", self.start, 0)
        check_int("self_play.every", self.every, 1)
        check_int("self_play.keep", self.keep, 1, 100)


@dataclass(frozen=True, slots=True, kw_only=True)
class PPOConfig:
    """MaskablePPO hyperparameters (names as in sb3)."""

    learning_rate: float = 3e-4
    n_steps: int = 1024     # per env, per rollout
    batch_size: int = 256
    n_epochs: int = 10
    gamma: float = 1.0      # episodes are short and the score is what counts
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    net_arch: tuple[int, ...] = (128, 128)
    activation: str = "tanh"
    device: str = "cpu"     # where sb3 runs the network (acting and updates): cpu | cuda

    def __post_init__(self) -> None:
        check_choice("ppo.device", self.device, DEVICES)
        check_number("ppo.learning_rate", self.learning_rate, 1e-7, 1.0)
        check_int("ppo.n_steps", self.n_steps, 2)
        check_int("ppo.batch_size", self.batch_size, 2)
        check_int("ppo.n_epochs", self.n_epochs, 1, 100)
        for name in ("gamma", "gae_lambda"):
            check_number(f"ppo.{name}", getattr(self, name), 0.0, 1.0)
        check_number("ppo.clip_range", self.clip_range, 0.0, 1.0)
        for name in ("ent_coef", "vf_coef", "max_grad_norm"):
            check_number(f"ppo.{name}", getattr(self, name), 0.0)
        if isinstance(self.net_arch, list):
            object.__setattr__(self, "net_arch", tuple(self.net_arch))
        if not isinstance(self.net_arch, tuple) or not self.net_arch:
            raise ConfigError(f"ppo.net_arch={shown(self.net_arch)} must be a list of layer sizes, e.g. [128, 128]")
        for width in self.net_arch:
            check_int("ppo.net_arch[]", width, 1, 4096)
        check_choice("ppo.activation", self.activation, ACTIVATIONS)


@dataclass(frozen=True, slots=True, kw_only=True)
class PretrainConfig:
    """Behaviour-cloning warm start (:mod:`parlor.training.learning.warm_start`): imitate ``teacher`` first."""

    teacher: str                # an agent name, e.g. heuristic
    episodes: int = 2000        # teacher episodes in the learner's seat
    epochs: int = 10
    batch_size: int = 512
    learning_rate: float = 1e-3

    def __post_init__(self) -> None:
        _check_names("pretrain.teacher", [self.teacher], allow_empty=False)
        if self.teacher == SELF:
            raise ConfigError("pretrain.teacher: 'self' is a training-pool entry, not a teacher agent")
        check_int("pretrain.episodes", self.episodes, 1)
        check_int("pretrain.epochs", self.epochs, 1, 1000)
        check_int("pretrain.batch_size", self.batch_size, 2)
        check_number("pretrain.learning_rate", self.learning_rate, 1e-7, 1.0)


@dataclass(frozen=True, slots=True, kw_only=True)
class EvalConfig:
    """Periodic masked evaluation with duplicate deals.

    Each evaluation plays ``deals`` pre-sampled deals, every deal once with the
    learner in each of its seats, against each opponent in ``opponents`` (all
    other seats). ``baselines`` are agents played in the learner's place on the
    same deals, once at the start, as the reference lines of the learning curve.
    """

    every: int = 50_000
    deals: int = 100
    opponents: tuple[str, ...] = ("heuristic",)
    baselines: tuple[str, ...] = ("heuristic", "random")
    decks_per_episode: int = 16   # stacked decks given per episode (deals/hands/rounds beyond are shuffled)
    deterministic: bool = True
    seed: int = 12345

    def __post_init__(self) -> None:
        check_int("eval.every", self.every, 1)
        check_int("eval.deals", self.deals, 1)
        object.__setattr__(self, "opponents", _check_names("eval.opponents", self.opponents))
        object.__setattr__(self, "baselines", _check_names("eval.baselines", self.baselines))
        if SELF in self.opponents or SELF in self.baselines:
            raise ConfigError("eval.opponents/baselines: 'self' is a training-pool entry, not an evaluation agent")
        check_int("eval.decks_per_episode", self.decks_per_episode, 0, 1000)
        check_bool("eval.deterministic", self.deterministic)
        check_seed(self.seed, "eval.seed")


@dataclass(frozen=True, slots=True, kw_only=True)
class RLlibConfig:
    """What only ``backend: rllib`` needs; the PPO keys, ``n_envs`` (envs per env runner) and
    the rest of the config mean what they mean for sb3 (mapping in :mod:`.rllib_train`)."""

    num_env_runners: int = 0   # 0: sample in the trainer's process; N: N env-runner processes on the cluster
    num_cpus_per_env_runner: int = 1
    num_learners: int = 0      # 0: the update runs in the trainer's process; N: N learner processes (data-parallel)
    learner_device: str = "cpu"  # cpu | cuda (one GPU per learner; with num_learners 0, the trainer's process's)

    def __post_init__(self) -> None:
        check_int("rllib.num_env_runners", self.num_env_runners, 0, 1024)
        check_int("rllib.num_cpus_per_env_runner", self.num_cpus_per_env_runner, 1, 256)
        check_int("rllib.num_learners", self.num_learners, 0, 256)
        check_choice("rllib.learner_device", self.learner_device, DEVICES)


@dataclass(frozen=True, slots=True, kw_only=True)
class TrainConfig:
    env: str
    options: Mapping[str, Any] = field(default_factory=dict)
    learner_seats: tuple[int, ...] | None = None
    opponents: tuple[PoolEntry, ...] = (PoolEntry("random"),)
    self_play: SelfPlayConfig | None = None
    reward_scale: float = 1.0
    shaping: Mapping[str, float] = field(default_factory=dict)
    shaping_mode: str = "final"
    action_guard: Mapping[str, float] = field(default_factory=dict)
    n_envs: int = 2
    vec_env: str = "dummy"
    vec_env_wait: str = "auto"
    total_steps: int = 100_000
    seed: int = 0
    checkpoint_every: int = 50_000
    ppo: PPOConfig = field(default_factory=PPOConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    pretrain: PretrainConfig | None = None
    distill: DistillConfig | None = None
    init: str | None = None
    backend: str = "sb3"
    rllib: RLlibConfig | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.env, str) or not self.env:
            raise ConfigError(f"env={shown(self.env)} must be an environment name")
        if not isinstance(self.options, Mapping):
            raise ConfigError("options must be a mapping of the game's option names to values")
        if self.learner_seats is not None:
            if isinstance(self.learner_seats, (str, bool)) or not isinstance(self.learner_seats, (list, tuple)) or not self.learner_seats:
                raise ConfigError(f"learner_seats={shown(self.learner_seats)} must be null or a non-empty list of seats")
            for seat in self.learner_seats:
                check_int("learner_seats[]", seat, 0)
            object.__setattr__(self, "learner_seats", tuple(self.learner_seats))
        if SELF in {e.agent for e in self.opponents} and self.self_play is None:
            raise ConfigError("opponents has a 'self' entry but there is no self_play section (start, every, keep)")
        if not isinstance(self.shaping, Mapping):
            raise ConfigError(f"shaping={shown(self.shaping)} must be a mapping of statistic names to weights")
        for name, weight in self.shaping.items():
            check_number(f"shaping.{name}", weight)
        check_choice("shaping_mode", self.shaping_mode, SHAPING_MODES)
        if not isinstance(self.action_guard, Mapping):
            raise ConfigError(f"action_guard={shown(self.action_guard)} must be a mapping of statistic names to tolerances")
        check_tolerances(self.action_guard)  # the names are checked against the env's advisor by the wrapper
        check_number("reward_scale", self.reward_scale, 0.0)
        if self.reward_scale == 0:
            raise ConfigError("reward_scale=0 is not allowed; allowed values: a number > 0")
        check_int("n_envs", self.n_envs, 1, 64)
        check_choice("vec_env", self.vec_env, VEC_ENVS)
        check_choice("vec_env_wait", self.vec_env_wait, VEC_ENV_WAITS)
        check_int("total_steps", self.total_steps, 1)
        check_seed(self.seed, "seed")
        check_int("checkpoint_every", self.checkpoint_every, 1)
        if self.init is not None:
            if not isinstance(self.init, str) or not self.init.endswith(".zip"):
                raise ConfigError(f"init={shown(self.init)} must be null or the path of a policy zip saved by parlor train")
            if self.pretrain is not None:
                raise ConfigError("init and pretrain are two warm starts; give one of them (or neither)")
        if self.distill is not None and self.pretrain is not None:
            raise ConfigError("distill and pretrain are two warm starts; give one of them (init: may start the "
                              "distillation from a saved policy)")
        check_choice("backend", self.backend, BACKENDS)
        if self.distill is not None and self.backend != "sb3":
            raise ConfigError("distill: expert iteration runs with backend: sb3 (then train its result with init:)")
        if self.backend == "rllib":
            if self.vec_env != "dummy":
                raise ConfigError(f"vec_env={shown(self.vec_env)} does not apply with backend: rllib (RLlib's env runners "
                                  "step the envs; set rllib.num_env_runners instead)")
            if self.rllib is None:
                object.__setattr__(self, "rllib", RLlibConfig())
            if self.ppo.device != "cpu":
                raise ConfigError(f"ppo.device={self.ppo.device!r} is sb3's; with backend: rllib set "
                                  "rllib.learner_device instead")
            assert self.rllib is not None  # set just above
            batch, learners = self.update_steps, max(1, self.rllib.num_learners)
            if batch % learners:
                raise ConfigError(f"rllib.num_learners={self.rllib.num_learners} must divide the {batch} env steps "
                                  "of an update (ppo.n_steps x n_envs x num_env_runners) into equal shares")
        elif self.rllib is not None:
            raise ConfigError("rllib: this section only applies with backend: rllib")

    @property
    def update_steps(self) -> int:
        """Env steps per PPO update: ``n_steps`` per env, of every env (and env runner)."""
        runners = self.rllib.num_env_runners if self.rllib is not None else 0
        return self.ppo.n_steps * self.n_envs * max(1, runners)

    def policy_metadata(self) -> dict[str, Any]:
        """What a saved policy carries besides its signature: the action guard it was
        trained with (so that it plays with the same guard wherever it is loaded)."""
        return {"action_guard": dict(self.action_guard)} if self.action_guard else {}

    @property
    def self_play_enabled(self) -> bool:
        return self.self_play is not None and any(e.agent == SELF and e.weight > 0 for e in self.opponents)


def _section(cls: type, data: Any, name: str) -> Any:
    if not isinstance(data, Mapping):
        raise ConfigError(f"{name} must be a mapping; allowed keys: {', '.join(f.name for f in dataclasses.fields(cls))}")
    try:
        return build(cls, data)
    except (TypeError, ConfigError) as exc:  # TypeError: a required field is missing
        message = str(exc)
        raise ConfigError(message if message.startswith(f"{name}.") else f"{name}: {message}") from None


def _opponents(data: Any) -> tuple[PoolEntry, ...]:
    if isinstance(data, (str, Mapping)) or not isinstance(data, (list, tuple)):
        raise ConfigError(f"opponents={shown(data)} must be a list of {{agent: NAME, weight: W}}")
    entries = []
    for item in data:
        if not isinstance(item, Mapping):
            raise ConfigError(f"opponents: {shown(item)} must be a mapping {{agent: NAME, weight: W}}")
        unknown = sorted(set(item) - {"agent", "weight"})
        if unknown or "agent" not in item:
            raise ConfigError(f"opponents: {shown(dict(item))}: allowed keys: agent (required), weight")
        entries.append(PoolEntry(item["agent"], item.get("weight", 1.0)))
    return tuple(entries)


def parse_config(data: Mapping[str, Any], source: str = "config") -> TrainConfig:
    """A :class:`TrainConfig` from a plain mapping (e.g. parsed YAML); strict."""
    if not isinstance(data, Mapping):
        raise ConfigError(f"{source}: top level must be a mapping")
    data = dict(data)
    try:
        if "opponents" in data:
            data["opponents"] = _opponents(data["opponents"])
        if data.get("self_play") is not None:
            data["self_play"] = _section(SelfPlayConfig, data["self_play"], "self_play")
        if "ppo" in data:
            data["ppo"] = _section(PPOConfig, data["ppo"] or {}, "ppo")
        if "eval" in data:
            data["eval"] = _section(EvalConfig, data["eval"] or {}, "eval")
        if data.get("pretrain") is not None:
            data["pretrain"] = _section(PretrainConfig, data["pretrain"], "pretrain")
        if data.get("distill") is not None:
            distill = data["distill"]
            if isinstance(distill, Mapping) and distill.get("opponents") is not None:
                try:
                    distill = {**distill, "opponents": _opponents(distill["opponents"])}
                except ConfigError as exc:
                    raise ConfigError(f"distill.{exc}") from None
            data["distill"] = _section(DistillConfig, distill, "distill")
        if data.get("backend") == "rllib":
            given = sorted(k for k in SB3_ONLY if k in data)
            if given:
                raise ConfigError(f"{', '.join(given)}: only applies with backend: sb3 (RLlib's env runners step the "
                                  "envs; see rllib.num_env_runners)")
        if data.get("rllib") is not None:
            data["rllib"] = _section(RLlibConfig, data["rllib"], "rllib")
        for key in ("shaping", "action_guard"):
            if data.get(key) is not None and isinstance(data[key], Mapping):
                data[key] = dict(data[key])
        if "options" in data:
            data["options"] = dict(data["options"] or {}) if isinstance(data["options"], Mapping) or data["options"] is None else data["options"]
        if "env" not in data:
            raise ConfigError("missing key 'env' (the environment to train on)")
        return build(TrainConfig, data)
    except ConfigError as exc:
        raise ConfigError(f"{source}: {exc}") from None


def load_config(path: str) -> TrainConfig:
    """Read a training YAML strictly (see the module docstring for the keys)."""
    return parse_config(load_yaml(path), source=str(path))


def config_dict(config: Any) -> Any:
    """A plain (YAML/JSON-able) form of a config, defaults filled in."""
    if dataclasses.is_dataclass(config):
        return {f.name: config_dict(getattr(config, f.name)) for f in dataclasses.fields(config)}
    if isinstance(config, (tuple, list)):
        return [config_dict(v) for v in config]
    if isinstance(config, Mapping):
        return {k: config_dict(v) for k, v in config.items()}
    return config
