"""LeanEnvRunner: RLlib's ``MultiAgentEnvRunner`` for parlor's turn-based envs, without the per-step connectors.

RLlib 2.60's runner spends most of its sampling CPU outside the env and the network: every
env step runs the env-to-module connector pipeline (observations gathered from the
episodes, mapped to modules, batched, made tensors, each connector timed by the metrics
logger) and the module-to-env pipeline (actions sampled, made numpy, unbatched, mapped back
to agents, listified per env), and logs six metrics per agent step (docs/benchmarks.md,
"Training throughput"). Neither pipeline has a switch in the config.

For :class:`~parlor.training.learning.rllib_env.ParlorMultiAgentEnv` under RLlib's default
pipelines, what they compute is short: each live episode has exactly one agent to act (the
env is turn-based), so the module's batch is that agent's observation from every env, in env
order; the actions are sampled from the module's exploration distribution and stored with
their logits and log-probabilities. This runner computes exactly that directly, with the
same torch operations in the same order (so the same random numbers are drawn), and builds
the same ``MultiAgentEpisode`` objects through RLlib's own episode API; the vector env,
episode bookkeeping, callbacks, episode cutting and episode metrics are RLlib's. The
sampled-step counters are logged once per ``sample()`` call with their totals instead of
once per step (sum reductions: the same values).

Three more of RLlib's per-step costs go, with the same episodes: the vector env's deep copy of
every observation (``ParlorMultiAgentEnv`` hands out fresh arrays, never changed afterwards), the
``validate()`` that ends every ``add_env_step`` (each episode is validated when it is done or
cut instead: :func:`add_env_step_unvalidated`), and the per-step ``on_episode_step`` call while
no callback defines one (RLlib's own is empty); a finished episode's metrics are logged value by
value, without ``log_dict``'s walks over their dicts.

Anything else (inference sampling, random actions, custom connectors, more than one module)
goes through RLlib's own loop. ``tests/training/learning/test_rllib_runner.py`` holds the two
runners to the same episodes, field by field.
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator, Mapping
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.columns import Columns
from ray.rllib.core.distribution.torch.torch_distribution import TorchCategorical
from ray.rllib.env.env_runner import ENV_STEP_FAILURE
from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner
from ray.rllib.env.multi_agent_episode import MultiAgentEpisode
from ray.rllib.utils.metrics import (
    EPISODE_AGENT_RETURN_MEAN,
    EPISODE_AGENT_STEPS,
    EPISODE_DURATION_SEC_MEAN,
    EPISODE_LEN_MAX,
    EPISODE_LEN_MEAN,
    EPISODE_LEN_MIN,
    EPISODE_MODULE_RETURN_MEAN,
    EPISODE_RETURN_MAX,
    EPISODE_RETURN_MEAN,
    EPISODE_RETURN_MIN,
    WEIGHTS_SEQ_NO,
)

from parlor.training.learning import categorical
from parlor.training.learning.rllib_env import MASK_KEY, OBS_KEY, ParlorMultiAgentEnv

# one row of the module's batch: (env index, agent id, that agent's observation)
Row = tuple[int, Any, dict[str, np.ndarray]]


def to_numpy(tensor: torch.Tensor) -> np.ndarray:
    """RLlib's ``convert_to_numpy`` (its TensorToNumpy connector) for one tensor of 1+ dimensions,
    without its walk over a nested structure: floats become float32 and integers int32."""
    array = tensor.detach().cpu().numpy()
    # copy=False: an array already of the type is kept (the tensor is this call's, never written again)
    if np.issubdtype(array.dtype, np.floating):
        return array.astype(np.float32, copy=False)
    if np.issubdtype(array.dtype, int):
        return array.astype(np.int32, copy=False)
    return array


def leaves(values: Mapping[Any, Any], path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    """(key path, value) of every leaf of a dict of values and dicts, in dm-tree's order (sorted
    keys): the keys and order in which ``MetricsLogger.log_dict`` logs them."""
    for key in sorted(values):
        value = values[key]
        if isinstance(value, Mapping):
            yield from leaves(value, (*path, key))
        else:
            yield (*path, key), value


class _UnvalidatedStep(MultiAgentEpisode):
    """A ``MultiAgentEpisode`` whose ``validate`` does nothing: what an episode is while
    :func:`add_env_step_unvalidated` adds a step to it (same slots: the class can be swapped)."""

    __slots__ = ()

    def validate(self) -> None:
        pass


def add_env_step_unvalidated(episode: MultiAgentEpisode, **step: Any) -> None:
    """RLlib's ``episode.add_env_step(**step)`` without the ``validate()`` it ends with (a walk over
    every agent's buffers, on every step). The runner validates each episode once instead, when it is
    done or cut, before it leaves the runner: the same data is checked, once."""
    if type(episode) is not MultiAgentEpisode:  # a subclass may validate more: leave it to RLlib's
        episode.add_env_step(**step)
        return
    episode.__class__ = _UnvalidatedStep
    try:
        episode.add_env_step(**step)
    finally:
        episode.__class__ = MultiAgentEpisode


class LeanEnvRunner(MultiAgentEnvRunner):
    """``config.env_runners(env_runner_cls=LeanEnvRunner)``: the same episodes as RLlib's runner
    for :class:`ParlorMultiAgentEnv` under the default connector pipelines, at less CPU."""

    _rows: list[Row] | None = None  # the next step's batch rows (None: RLlib's cached batch is current)
    # MultiAgentEnvRunner's own state, which this loop reads and sets (mypy reads Ray as untyped)
    _needs_initial_reset: bool
    _ongoing_episodes: list[Any]

    def _lean(self, explore: bool, random_actions: bool) -> bool:
        """Whether this sample call can skip the connector pipelines (see the module docstring)."""
        config = self.config
        if not explore or random_actions or self.module is None or len(self.module) != 1:
            return False
        module: Any = self.module[next(iter(self.module.keys()))]
        space = getattr(module, "observation_space", None)
        return (isinstance(space, gym.spaces.Dict) and set(space.spaces) == {OBS_KEY, MASK_KEY}  # the masked dict
                and module.get_exploration_action_dist_cls() is TorchCategorical  # what categorical.sample draws
                and config._env_to_module_connector is None and config._module_to_env_connector is None
                and config.add_default_connectors_to_env_to_module_pipeline
                and config.add_default_connectors_to_module_to_env_pipeline)

    def make_env(self) -> None:
        super().make_env()
        vector = self.env.unwrapped if self.env is not None else None
        if vector is not None and all(isinstance(e.unwrapped, ParlorMultiAgentEnv) for e in vector.envs):
            vector.copy = False  # its observations are fresh and never changed (ParlorMultiAgentEnv._masked)

    def _reset_envs(self, episodes: list[Any], shared_data: dict, explore: bool) -> None:
        super()._reset_envs(episodes, shared_data, explore)
        self._rows = None  # RLlib's connectors have just batched the reset observations

    def _sample(self, *, num_timesteps: int | None = None, num_episodes: int | None = None, explore: bool,
                random_actions: bool = False, force_reset: bool = False) -> list[MultiAgentEpisode]:
        if not self._lean(explore, random_actions):
            if self._rows is not None:  # RLlib's loop needs its own cached batch: start from a reset
                force_reset = True
            return super()._sample(num_timesteps=num_timesteps, num_episodes=num_episodes, explore=explore,
                                   random_actions=random_actions, force_reset=force_reset)
        if force_reset or num_episodes is not None or self._needs_initial_reset:
            self._reset_envs_and_episodes(explore)
        if num_episodes is not None:
            self._needs_initial_reset = True
        if self._rows is None:
            self._rows = self._rows_of_episodes()
        self._cached_to_module = None  # this loop keeps its batch in self._rows
        multi: Any = self.module  # one module (_lean)
        (module_id,) = multi.keys()
        module = multi[module_id]
        done_episodes: list[MultiAgentEpisode] = []
        step_callbacks = self._has_step_callbacks()
        env_ts = eps = 0
        agent_steps: Counter[Any] = Counter()
        while (eps < (num_episodes or 0)) if num_timesteps is None else (env_ts < num_timesteps):
            actions, outputs = self._act(module, self._rows or [])
            shared: Any = self._shared_data  # a dict since the first reset
            shared["vector_env_episodes_map"] = {}
            results = self._try_env_step(actions)
            if results == ENV_STEP_FAILURE:
                env_ts = eps = 0
                agent_steps.clear()
                self._reset_envs_and_episodes(explore)
                self._rows = self._rows_of_episodes()
                continue
            observations, rewards, terminateds, truncateds, infos = results
            started = set()
            episodes: list[Any] = self._ongoing_episodes  # all set since the reset
            for i, episode in enumerate(episodes):
                if not episode.is_reset:
                    episode.add_env_reset(observations=observations[i], infos=infos[i])
                    started.add(i)
                else:
                    add_env_step_unvalidated(episode, observations=observations[i], actions=actions[i],
                                             rewards=rewards[i], infos=infos[i], terminateds=terminateds[i],
                                             truncateds=truncateds[i], extra_model_outputs=outputs[i])
                    env_ts += 1
                    agent_steps.update(list(observations[i]))  # a list: counts the agents, not their values
            next_rows: list[Row] = []
            for i in range(self.num_envs):
                episode = episodes[i]
                if i in started or step_callbacks:
                    self._make_on_episode_callback("on_episode_start" if i in started else "on_episode_step", i, episodes)
                if episode.is_done:
                    episode.validate()  # here once (RLlib's add_env_step: every step); cut ones in _finish
                    eps += 1
                    self._make_on_episode_callback("on_episode_end", i, episodes)
                    self._prune_zero_len_sa_episodes(episode)
                    done_episodes.append(episode)
                    self._new_episode(i, episodes)
                    shared["vector_env_episodes_map"][episode.id_] = episodes[i].id_
                    if num_episodes is not None and eps >= num_episodes:
                        break
                else:
                    next_rows += [(i, agent, obs) for agent, obs in observations[i].items()]
            self._rows = next_rows
        self._log_sampled(env_ts, agent_steps, done_episodes, module_id)
        return self._finish(done_episodes, num_timesteps)

    def _log_episode_metrics(self, length: Any, ret: Any, sec: Any, agents: Any = None, modules: Any = None,
                             agent_steps: Any = None) -> None:
        """RLlib's: the same values under the same keys, reductions and window, each logged with
        ``log_value`` as RLlib's three ``log_dict`` calls log them leaf by leaf (without their dm-tree
        walks, most of the cost of a finished episode's metrics)."""
        config = self.config
        window = max(1, math.ceil(config.metrics_num_episodes_for_smoothing / (config.num_env_runners or 1)))
        means = {EPISODE_LEN_MEAN: length, EPISODE_RETURN_MEAN: ret, EPISODE_DURATION_SEC_MEAN: sec}
        if agents is not None:
            means |= {EPISODE_AGENT_RETURN_MEAN: agents, EPISODE_AGENT_STEPS: agent_steps,
                      EPISODE_MODULE_RETURN_MEAN: modules}
        log = self.metrics.log_value
        for reduce, values in (("mean", means), ("min", {EPISODE_LEN_MIN: length, EPISODE_RETURN_MIN: ret}),
                               ("max", {EPISODE_LEN_MAX: length, EPISODE_RETURN_MAX: ret})):
            for key, value in leaves(values):
                log(key, value, reduce=reduce, window=window)

    def _has_step_callbacks(self) -> bool:
        """Whether an ``on_episode_step`` callback does anything: RLlib's own (the default) is empty,
        so with only that and no callback functions the per-step call can be left out."""
        own = RLlibCallback.on_episode_step
        return bool(self.config.callbacks_on_episode_step) or any(
            getattr(type(c), "on_episode_step", own) is not own for c in self._callbacks)

    # ------------------------------------------------------------ acting
    def _rows_of_episodes(self) -> list[Row]:
        """The batch rows of the ongoing episodes' agents to act (after a reset)."""
        rows: list[Row] = []
        episodes: list[Any] = self._ongoing_episodes
        for i, episode in enumerate(episodes):
            if episode.is_reset and not episode.is_done:
                rows += [(i, agent, obs) for agent, obs in episode.get_observations(-1).items()]
        return rows

    def _act(self, module: Any, rows: list[Row]) -> tuple[list[dict], list[dict]]:
        """Per env: the actions of its agent to act (``{}`` for an env being reset) and their
        extra model outputs, as RLlib's connectors and ``GetActions`` produce them."""
        actions: list[dict] = [{} for _ in range(self.num_envs)]
        outputs: list[dict] = [{} for _ in range(self.num_envs)]
        if not rows:
            return actions, outputs
        batch = {Columns.OBS: {key: torch.from_numpy(np.stack([obs[key] for _, _, obs in rows]))
                               for key in (OBS_KEY, MASK_KEY)}}
        with torch.no_grad():
            logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
            sampled, logp = categorical.sample(categorical.normalised(logits))  # what TorchCategorical draws
        sampled_np, logits_np, logp_np = map(to_numpy, (sampled, logits, logp))
        for k, (i, agent, _) in enumerate(rows):
            actions[i][agent] = sampled_np[k]
            outputs[i][agent] = {Columns.ACTION_DIST_INPUTS: logits_np[k], Columns.ACTION_LOGP: logp_np[k],
                                 WEIGHTS_SEQ_NO: self._weights_seq_no}
        return actions, outputs

    # ------------------------------------------------------------ bookkeeping
    def _log_sampled(self, env_ts: int, agent_steps: Counter[Any], done: list[MultiAgentEpisode],
                     module_id: Any) -> None:
        """The counters RLlib's loop logs per step, logged once with their totals."""
        from ray.rllib.utils.metrics import (
            NUM_AGENT_STEPS_SAMPLED,
            NUM_AGENT_STEPS_SAMPLED_LIFETIME,
            NUM_ENV_STEPS_SAMPLED,
            NUM_ENV_STEPS_SAMPLED_LIFETIME,
            NUM_EPISODES,
            NUM_EPISODES_LIFETIME,
            NUM_MODULE_STEPS_SAMPLED,
            NUM_MODULE_STEPS_SAMPLED_LIFETIME,
        )

        if env_ts:
            self._log_env_steps(metric=self._metrics_num_env_steps_sampled, num_steps=env_ts)
        log = self.metrics.log_value
        log(NUM_ENV_STEPS_SAMPLED, env_ts, reduce="sum")
        log(NUM_ENV_STEPS_SAMPLED_LIFETIME, env_ts, reduce="lifetime_sum", with_throughput=True)
        if done:
            log(NUM_EPISODES, len(done), reduce="sum")
            log(NUM_EPISODES_LIFETIME, len(done), reduce="lifetime_sum")
        for agent, n in agent_steps.items():
            log((NUM_AGENT_STEPS_SAMPLED, str(agent)), n, reduce="sum")
            log((NUM_AGENT_STEPS_SAMPLED_LIFETIME, str(agent)), n, reduce="lifetime_sum")
        if agent_steps:  # every agent maps to the one module
            log((NUM_MODULE_STEPS_SAMPLED, module_id), agent_steps.total(), reduce="sum")
            log((NUM_MODULE_STEPS_SAMPLED_LIFETIME, module_id), agent_steps.total(), reduce="lifetime_sum")

    def _finish(self, done: list[MultiAgentEpisode], num_timesteps: int | None) -> list[MultiAgentEpisode]:
        """RLlib's end of ``_sample``: the done episodes and the cut chunks of the ongoing ones."""
        if self.episodes_to_numpy:
            for episode in done:
                episode.to_numpy()
        self._done_episodes_for_metrics.extend(done)
        ongoing: list[MultiAgentEpisode] = []
        if num_timesteps is not None:
            episodes: list[Any] = self._ongoing_episodes
            continuations = [e.cut(len_lookback_buffer=self.config.episode_lookback_horizon) for e in episodes]
            for episode in episodes:
                if episode.env_t == 0:
                    continue
                episode.validate()
                self._ongoing_episodes_for_metrics[episode.id_].append(episode)
                self._prune_zero_len_sa_episodes(episode)
                ongoing.append(episode.to_numpy() if self.episodes_to_numpy else episode)
            self._ongoing_episodes = continuations
        return done + ongoing
