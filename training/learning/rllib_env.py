"""ParlorMultiAgentEnv: any parlor env as an RLlib (new API stack) ``MultiAgentEnv`` with action masks.

Agents are the seats, ``player_0`` .. ``player_{n-1}`` (the AEC adapter's names).
The env is turn-based: ``step`` takes the one action of the seat to act and
returns the observation of the next RLlib agent to act (at the end, final
observations of every agent that acted).

Observations are ``{"observations": float32[...], "action_mask": float32[A]}``:
RLlib's masking convention (the key ``observations``) lives here only; parlor's
envs keep PettingZoo's ``observation``. Each is a fresh dict of fresh arrays, never
changed afterwards (:class:`~.rllib_runner.LeanEnvRunner` relies on it). The mask is float32 because the masked
module (:mod:`.rllib_module`) reads it as a tensor. An action outside the mask
raises :class:`~parlor.envs.engine.game.IllegalActionError` naming the legal ones
(and counts in ``illegal_actions``): with the masked module none ever arrives.

Two ways to seat the learner, chosen by the training config's ``opponents``:

- a pool of opponents (the SB3 trainer's meaning; one-seat games too): the env is
  parlor's :class:`~parlor.training.learning.wrapper.SingleAgentEnv`, so the
  learner's seat rotation, the opponent pool (baselines by name, ``self`` =
  frozen snapshots added with :meth:`ParlorMultiAgentEnv.add_snapshot`),
  ``reward_scale``, shaping and the action guard mean exactly what they mean
  there. One RLlib agent per episode: the learner's seat; the others play
  inside the env.
- ``opponents: []`` in a game of 2+ seats: every seat is an RLlib agent (all mapped
  to the one learner module: shared-parameter self-play). Each agent's reward is
  its own, delivered at its next decision (or the end); what a seat earns before
  its first decision is paid with its first step (no transition could carry it
  earlier). Shaping and action guards need the single-seat view and are refused.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.utils.typing import MultiAgentDict

from parlor.envs.aec import observation_space, stacked_decks
from parlor.envs.engine.game import ConfigError, IllegalActionError
from parlor.training.learning.opponents import PoolEntry
from parlor.training.learning.wrapper import SingleAgentEnv, learner_game

OBS_KEY, MASK_KEY = "observations", "action_mask"


def masked_space(observation_space: gym.Space, num_actions: int) -> gym.spaces.Dict:
    """The observation space the masked module expects."""
    return gym.spaces.Dict({OBS_KEY: observation_space,
                            MASK_KEY: gym.spaces.Box(0.0, 1.0, (num_actions,), np.float32)})


def every_seat_learns(num_players: int, opponents: Any) -> bool:
    """``opponents: []`` in a game of 2+ seats: every seat is an RLlib agent."""
    return num_players > 1 and not opponents


class ParlorMultiAgentEnv(MultiAgentEnv):
    """``config``: the keyword arguments of :class:`SingleAgentEnv` (``env_name``, ``options``,
    ``opponents``, ...; its ``seed`` seeds every copy's own stream with the copy's
    ``worker_index`` and ``vector_index``, which RLlib adds to the config)."""

    def __init__(self, config: Mapping[str, Any] | None = None):
        super().__init__()
        kwargs = dict(config or {})
        worker, vector = getattr(config, "worker_index", 0), getattr(config, "vector_index", 0)
        streams = np.random.SeedSequence([kwargs.pop("seed", None) or 0, worker, vector])
        # the game as the learner's envs take it (its options checked, the adapter's render_mode refused);
        # illegal actions never reach it: step refuses every action outside the mask
        self.game, _ = learner_game(kwargs["env_name"], kwargs.get("options"))
        self.seat_names = [f"player_{seat}" for seat in range(self.game.num_players)]  # the adapter's names
        self.possible_agents = list(self.seat_names)
        opponents = [e if isinstance(e, PoolEntry) else PoolEntry(*e) for e in kwargs.get("opponents", ())]
        self.every_seat = every_seat_learns(self.game.num_players, opponents)
        self._state: Any = None  # the game's State of the current episode (every-seat mode)
        if self.every_seat:
            refused = sorted(k for k in ("shaping", "action_guard") if kwargs.get(k))
            if refused:
                raise ConfigError(f"{', '.join(refused)}: need the learner in one seat against opponents; with "
                                  "opponents: [] every seat is the learner (give opponents, or drop these keys)")
            self.reward_scale = float(kwargs.get("reward_scale", 1.0))
            self._rng = np.random.default_rng(streams)
            self.inner = None
        else:
            kwargs["seed"] = int(streams.generate_state(1)[0])
            kwargs["seat_offset"] = worker * 1000 + vector  # copies start their seat rotation apart
            self.inner = SingleAgentEnv(**{**kwargs, "opponents": opponents})
        space = masked_space(observation_space(self.game)["observation"], self.game.num_actions)
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces: dict[Any, gym.spaces.Space[Any]] = {
            a: gym.spaces.Discrete(self.game.num_actions) for a in self.possible_agents}
        self.agents = list(self.possible_agents)
        self.illegal_actions = 0  # actions outside the mask that reached step (each also raised)
        self._to_act: str | None = None
        self._episode_infos: list[dict[str, Any]] = []

    # ------------------------------------------------------------ self-play
    def add_snapshot(self, path: str) -> None:
        """A frozen copy of the learner (a policy file) joins the pool entry ``self``."""
        if self.inner is None:
            raise ConfigError("self-play snapshots need opponents with a 'self' entry; with opponents: [] "
                              "every seat is the learner already")
        self.inner.add_snapshot(path)

    def num_snapshots(self) -> int:
        return 0 if self.inner is None else self.inner.num_snapshots()

    def take_episode_infos(self) -> list[dict[str, Any]]:
        """The learner's final infos (``raw_return``: the game's own reward, ``stats``, the
        ``opponents`` by seat) of the episodes finished since the last call (the learner-seat
        mode; none with every seat)."""
        infos, self._episode_infos = self._episode_infos, []
        return infos

    # ------------------------------------------------------------ episode
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if self.inner is not None:
            obs, _ = self.inner.reset(seed=seed, options=options)
            self._to_act = self.seat_names[self.inner.learner]
            self.agents = [self._to_act]
            return {self._to_act: self._masked(obs, self.inner.action_masks())}, {}
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        deal = int(self._rng.integers(2**63))
        # dealt as the AEC adapter deals: the episode's own generator, the stacked decks parsed alike
        self._state = self.game.new_state(np.random.default_rng(deal), stacked_decks(self.game, options))
        self.agents = list(self.possible_agents)
        self._acted: set[str] = set()
        self._owed = dict(zip(self.seat_names, map(float, self._state.take_rewards())))
        if self._over():
            return self.reset(options=options)  # a deal that ended before any decision: deal again
        return self._observe_next(), {}

    def step(self, action_dict: MultiAgentDict):
        agent = self._to_act
        if agent is None or set(action_dict) != {agent}:
            raise ValueError(f"step: expected one action, for {agent!r} (the agent to act), got {sorted(map(str, action_dict))}")
        action = int(action_dict[agent])
        mask = self.inner.action_masks() if self.inner is not None else self.state.legal_mask()
        if not 0 <= action < mask.size or not mask[action]:
            self.illegal_actions += 1
            raise IllegalActionError(action, np.flatnonzero(mask), self.game.action_name)
        if self.inner is not None:
            return self._step_learner(self.inner, agent, action)
        return self._step_seat(agent, action)

    def _step_learner(self, inner: SingleAgentEnv, agent: str, action: int):
        obs, reward, terminated, truncated, info = inner.step(action)
        done = terminated or truncated
        self._to_act = None if done else agent
        if done:
            kept = {k: info[k] for k in ("raw_return", "stats") if k in info}
            kept["opponents"] = {f"seat_{seat}": name for seat, name in info.get("opponents", {}).items()}
            self._episode_infos.append(kept)
        return ({agent: self._masked(obs, inner.action_masks())}, {agent: reward},
                {"__all__": terminated}, {"__all__": truncated}, {})

    def _step_seat(self, agent: str, action: int):
        state = self.state
        self._acted.add(agent)
        state.apply(action)
        for seat, earned in enumerate(state.take_rewards()):
            self._owed[self.seat_names[seat]] += float(earned)
        over = self._over()
        obs = {a: self._observe_seat(a) for a in self._acted} if over else self._observe_next()
        rewards = {a: self._owed[a] * self.reward_scale for a in self._acted}
        for a in self._acted:
            self._owed[a] = 0.0
        if over:
            self._to_act = None
        terminated = over and state.is_terminal()
        return obs, rewards, {"__all__": terminated}, {"__all__": over and not terminated}, {}

    # ------------------------------------------------------------ helpers
    @property
    def state(self) -> Any:
        """The game's State of the current episode (every-seat mode)."""
        return self._state

    @staticmethod
    def _masked(obs: np.ndarray, mask: np.ndarray) -> dict[str, np.ndarray]:
        # fresh arrays in a fresh dict on every call (a game may hand out a view of its buffers):
        # nothing returned is ever changed afterwards, so RLlib's runners need not deep-copy it
        return {OBS_KEY: obs.copy(), MASK_KEY: mask.astype(np.float32)}

    def _observe_next(self) -> dict[str, dict[str, np.ndarray]]:
        """The seat to act becomes the agent to act; its observation."""
        self._to_act = agent = self.seat_names[self.state.current_player]
        return {agent: self._observe_seat(agent)}

    def _observe_seat(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.seat_names.index(agent)
        mask = self.state.legal_mask() if seat == self.state.current_player else np.zeros(self.game.num_actions)
        return self._masked(self.game.observe(self.state, seat), mask)

    def _over(self) -> bool:
        return self.state.is_terminal() or self.state.is_truncated()
