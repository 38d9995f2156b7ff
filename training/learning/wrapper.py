"""Single-agent Gymnasium view of a parlor game, for MaskablePPO.

The learner holds one seat, rotated per episode over ``learner_seats``; every
other seat is played by an agent drawn from a weighted opponent pool
(:mod:`parlor.training.learning.opponents`: named agents, or for the pool entry ``self``
a frozen snapshot of the learner added with :meth:`SingleAgentEnv.add_snapshot`). ``step`` plays the learner's action
and then the opponents until the learner must decide again (or the episode
ends); the reward is the learner's own reward earned over that stretch, never
another seat's (what it earns before its first decision is paid with its first
step, so the step rewards of an episode sum to its return). ``action_masks()`` gives MaskablePPO the learner's legal
actions, also through ``SubprocVecEnv`` (``env_method``). The game is played on its
``State`` with the shared loop (:mod:`parlor.agents.episodes`): opponents get what the
AEC adapter would give them. The wrapper deals, parses stacked decks and plays the
learner's actions with the adapter's own functions (``parlor.envs.aec``:
``stacked_decks``, ``IllegalActions``), without an adapter. An
illegal learner action raises ``IllegalActionError`` naming the legal ones; with the
adapter's option ``illegal_action="penalty"`` it ends the episode instead
(``terminated=True``, reward ``illegal_reward`` plus what the learner had earned since its
last step, ``info["illegal_action"] = True``; no shaping is paid and ``info`` has no
``stats``: the episode never reached its end). An action that is not an integer raises
``TypeError`` in either mode (``parlor.envs.aec.action_id``).

Decisions of the learner's seat that the env's advisor solves exactly
(``solved_action``, :mod:`parlor.agents.advisors`: OFC's Fantasyland hands, by the
exact solver) are played for it like an opponent's turn: the learner only decides
the rest and learns what the solved decisions are worth through its returns (a policy
agent plays them the same way, so training and play agree).

Optional shaping: ``shaping={"foul": -6.0}`` adds, at the episode's last step,
weight x the learner's value of that ``State.stats()`` entry (e.g. an extra
cost per foul). With ``shaping_mode="potential"`` the same total is paid as it
becomes likely instead of at the end: the potential of a decision point is
weight x the estimate of that statistic by the env's advisor
(``agents.advisors``: ``stat_estimates``, e.g. OFC's foul risk of the hand) and
every step adds the potential's change, so an episode's shaping sums to weight
x the final statistic minus the
potential at the learner's first decision (potential-based shaping, Ng et al.
1999, with gamma = 1: the best policy stays the same, but a risky placement is
charged right away instead of through a rare end-of-hand penalty). Where the
advisor has no estimate (None) the potential keeps its last value. A name
``STAT:ESTIMATOR`` pays ``STAT`` with another of the advisor's estimators
(``estimated_stats``), e.g. OFC Pineapple's ``foul:endgame``. Only the
training signal changes: ``info["raw_return"]`` and every evaluation use the
game's own rewards.

Optional action guard: ``action_guard={"foul": 0.0}`` narrows ``action_masks()``
to the actions the env's advisor's ``guarded_mask`` keeps (OFC: none whose
outlook foul rate exceeds the planner's choice by more than the tolerance; Pineapple's
``endgame_foul``: none whose exact endgame foul probability exceeds the turn's
lowest by more; ``midgame_foul``: a cap on that probability for the first
three-card turn; both judged on the learner's view), a safety shield the learner
is trained inside; a saved policy carries it and plays with it.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np

from parlor import envs
from parlor.agents.advisors import advisor_for, check_guard, guarded, solved_action
from parlor.agents.episodes import play_until, seat_chooser
from parlor.agents.policy import PolicyAgent
from parlor.envs.aec import (
    ADAPTER_OPTIONS,
    IllegalActions,
    TableEnv,
    action_id,
    action_space,
    named_game,
    observation_space,
    split_options,
    stacked_decks,
)
from parlor.envs.engine import svg
from parlor.envs.engine.config import check_choice, check_number
from parlor.envs.engine.game import ConfigError, Game, shown
from parlor.envs.engine.presenter import presenter_for, svg_renderer
from parlor.training.learning.opponents import AgentFactory, OpponentPool, PoolEntry

# the adapter's options the wrapper honours itself; the others (render_mode) are refused
ILLEGAL_ACTION_OPTIONS = ("illegal_action", "illegal_reward")
MAX_EMPTY_EPISODES = 100  # resets in a row allowed to end before the learner decides
SHAPING_MODES = ("final", "potential")

_EXTRA_GAMES: dict[str, Callable[..., Game]] = {}


def register_env(name: str, make_game: Callable[..., Game]) -> None:
    """Make an env that is not in ``envs.ENVS`` (e.g. a test game) trainable by name:
    ``make_game(**options)`` builds its Game, whose ``Game.name`` is ``name``."""
    _EXTRA_GAMES[name] = make_game


def make_env_game(env_name: str, options: Mapping[str, Any] | None = None) -> Game:
    """The Game of ``env_name`` (registered extras first, then ``envs``) with the game options
    of ``options``; its adapter options (``illegal_action``, ...) are left to the caller."""
    if not isinstance(options or {}, Mapping):
        raise ConfigError(f"options={shown(options)} must be a mapping of game option names to values")
    game_options = split_options(dict(options or {}))[1]
    if not isinstance(env_name, str):
        raise ConfigError(f"env={shown(env_name)} must be an environment name, e.g. tonk_v0")
    if env_name in _EXTRA_GAMES:
        return named_game(env_name, _EXTRA_GAMES[env_name](**game_options))
    if env_name not in envs.ENVS:
        known = sorted(set(envs.ENVS) | set(_EXTRA_GAMES))
        raise ConfigError(f"unknown env {env_name!r}; allowed values: {', '.join(known) or 'none'}")
    return envs.make_game(env_name, **game_options)


def make_raw_env(env_name: str, options: Mapping[str, Any] | None = None) -> TableEnv:
    """The unwrapped TableEnv of ``env_name`` (registered extras first, then ``envs``)."""
    game = make_env_game(env_name, options)
    return TableEnv(game, **split_options(dict(options or {}))[0])


def learner_game(env_name: str, options: Mapping[str, Any] | None = None) -> tuple[Game, IllegalActions]:
    """The Game of ``env_name`` and the illegal-action policy of ``options``, as the learner's
    envs (this wrapper and RLlib's ``ParlorMultiAgentEnv``) take them: the game's own options
    and the adapter's ``illegal_action``/``illegal_reward``; the adapter's other options
    (``render_mode``) are refused, since the learner does not play through the adapter."""
    game = make_env_game(env_name, options)  # first: it refuses options that are not a mapping
    adapter_only = sorted(set(options or {}) & set(ADAPTER_OPTIONS) - set(ILLEGAL_ACTION_OPTIONS))
    if adapter_only:
        raise ConfigError(f"options {adapter_only} belong to the AEC adapter, which the learner does not play "
                          f"through; allowed values: the game's own options and {', '.join(ILLEGAL_ACTION_OPTIONS)}")
    return game, IllegalActions.of(options or {})


def stat_of(shaped: str) -> str:
    """The ``State.stats()`` entry a shaping name pays: ``"foul:endgame"`` -> ``"foul"``
    (the part after the colon picks the advisor's estimator for potential shaping)."""
    return shaped.partition(":")[0]


class SingleAgentEnv(gymnasium.Env):
    """The learner's seat of a multi-player game as a Gymnasium env with action masks."""

    # rgb_array: what SB3's make_vec_env asks for by default (and its video recorder draws)
    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        env_name: str,
        options: Mapping[str, Any] | None = None,
        opponents: Sequence[PoolEntry | tuple[str, float]] = (PoolEntry("random"),),
        learner_seats: Sequence[int] | None = None,
        reward_scale: float = 1.0,
        agent_factories: Mapping[str, AgentFactory] | None = None,
        snapshot_keep: int = 5,
        seat_offset: int = 0,
        seed: int | None = None,
        shaping: Mapping[str, float] | None = None,
        shaping_mode: str = "final",
        action_guard: Mapping[str, float] | None = None,
        render_mode: str | None = None,
    ):
        super().__init__()
        if render_mode is not None:
            check_choice("render_mode", render_mode, self.metadata["render_modes"])
        self.render_mode = render_mode
        self.env_name = env_name
        self.options = dict(options or {})
        # the illegal-action policy is the adapter's, played as the adapter plays it
        self.game, self.illegal = learner_game(env_name, self.options)
        # the AEC adapter's picture of a view; the pictures extra is first needed by render()
        self._picture = svg_renderer(self.game) if render_mode == "rgb_array" else None
        self._state: Any = None  # the game's State of the current episode; None until the first reset
        n = self.game.num_players
        seats = tuple(range(n)) if learner_seats is None else tuple(learner_seats)
        if not seats or any(isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < n for s in seats):
            raise ConfigError(f"learner_seats={list(seats)!r}: allowed values are seats 0..{n - 1}")
        check_number("reward_scale", reward_scale, 0.0)
        if reward_scale == 0:
            raise ConfigError("reward_scale=0 is not allowed; allowed values: a number > 0")
        self.learner_seats = seats
        self.reward_scale = float(reward_scale)
        self.shaping = dict(shaping or {})
        self.advisor = advisor_for(self.game)  # guards and estimators (agents.advisors)
        if self.shaping:
            fresh = self.game.new_state(np.random.default_rng(0))
            known = sorted(fresh.stats())
            for name, weight in self.shaping.items():
                if stat_of(name) not in known:
                    raise ConfigError(f"shaping: {name!r} is not a statistic of {env_name}; allowed values: "
                                      f"{', '.join(known) or 'none (the game reports no statistics)'}")
                check_number(f"shaping.{name}", weight)
        check_choice("shaping_mode", shaping_mode, SHAPING_MODES)
        if shaping_mode == "potential":
            estimable = self.advisor.estimated_stats if self.advisor is not None else ()
            for name in self.shaping:
                if name not in estimable:
                    raise ConfigError(f"shaping_mode='potential': {env_name} does not estimate {name!r} during an "
                                      f"episode; allowed values: {', '.join(estimable) or 'none (use shaping_mode: final)'}")
        self.shaping_mode = shaping_mode
        self.action_guard = dict(action_guard or {})
        check_guard(self.advisor, self.action_guard, env_name)
        self._last_obs: np.ndarray | None = None
        self._potentials: dict[str, float] = {}
        entries = [e if isinstance(e, PoolEntry) else PoolEntry(*e) for e in opponents]
        self.pool = OpponentPool(entries if n > 1 else [], self.game, agent_factories, snapshot_keep)
        self.observation_space = observation_space(self.game)["observation"]
        self.action_space = action_space(self.game)
        self._opponent_choice = seat_chooser(self.game, lambda seat: self._seats_agents[seat][1])
        self._seat_offset = self._episode = seat_offset
        self._rng = np.random.default_rng(seed)
        self._seats_agents: dict[int, tuple[str, Any]] = {}
        self.learner = seats[0]
        self._raw_return = self._pending = 0.0
        self._done = True

    # ------------------------------------------------------------ self-play
    def add_snapshot(self, path: str) -> None:
        """Add the policy saved at ``path`` (a file from ``save_policy``) to the ``self`` entry;
        it samples its actions (stochastic play) with its own seeded generator."""
        import torch

        torch.set_num_threads(1)  # opponents' forward passes: one thread per env process
        self.pool.add_snapshot(PolicyAgent.from_file(path, self.game, deterministic=False,
                                                     seed=int(self._rng.integers(2**31))))

    def num_snapshots(self) -> int:
        return len(self.pool.snapshots)

    # ------------------------------------------------------------ episode
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """``options`` may hold ``learner_seat`` (else rotation), ``opponents``
        (seat -> agent name, to pin them, e.g. for evaluation) and the adapter's
        ``deck``/``decks`` (stacked decks for duplicate deals)."""
        super().reset(seed=seed)
        if seed is not None:  # a seed fixes everything, the seat rotation included
            self._rng = np.random.default_rng(seed)
            self._episode = self._seat_offset
        options = dict(options or {})
        self.learner = options.pop("learner_seat", None)
        if self.learner is None:
            self.learner = self.learner_seats[self._episode % len(self.learner_seats)]
        elif self.learner not in range(self.game.num_players):
            raise ValueError(f"learner_seat={self.learner!r}; allowed values: 0..{self.game.num_players - 1}")
        self._episode += 1
        pinned = options.pop("opponents", None) or {}
        for _ in range(MAX_EMPTY_EPISODES):
            self._start_episode(pinned, options)
            # earned before the learner's first decision: paid with its first step's reward
            self._pending = self._collect(float(self.state.take_rewards()[self.learner]))
            self._pending += self._play_opponents()
            if not self._over():
                self._done = False
                obs = self._observe()
                if self.shaping_mode == "potential":
                    self._potentials = dict.fromkeys(self.shaping, 0.0)
                    self._shaping_step()  # the first potential (its change is not paid)
                return obs, self._info(0.0)
        raise RuntimeError(f"{MAX_EMPTY_EPISODES} episodes in a row ended before seat {self.learner} had a decision")

    def _start_episode(self, pinned: Mapping[int, str], options: dict[str, Any]) -> None:
        self._seats_agents = {}
        for seat in range(self.game.num_players):
            if seat == self.learner:
                continue
            if seat in pinned:
                name = pinned[seat]
                self._seats_agents[seat] = (name, self.pool.agent(name, seat))
            else:
                self._seats_agents[seat] = self.pool.draw(seat, self._rng)
            self._seats_agents[seat][1].reset(int(self._rng.integers(2**31)))
        seed = int(self._rng.integers(2**63))
        # dealt as the AEC adapter deals: the episode's own generator, the stacked decks parsed alike
        self._state = self.game.new_state(np.random.default_rng(seed), stacked_decks(self.game, options or None))
        self._raw_return = 0.0

    def step(self, action: int):
        if self._done:
            raise RuntimeError("step() called on a finished episode; call reset()")
        state = self.state
        if not self.illegal.play(self.game, state, action_id(action)):  # action_id: TypeError unless an integer
            return self._end_with_penalty()
        reward = self._pending + self._collect(float(state.take_rewards()[self.learner]))
        self._pending = 0.0
        reward += self._play_opponents()
        terminated = state.is_terminal()
        truncated = state.is_truncated() and not terminated
        self._done = terminated or truncated
        info = self._info(reward)
        obs = self._observe()
        if self._done:
            info.update(self._final_info())
        if self.shaping_mode == "potential":
            reward += self._shaping_step(info.get("stats"))
        elif self._done and self.shaping:
            reward += sum(w * info["stats"][stat_of(name)] for name, w in self.shaping.items())
        return obs, reward * self.reward_scale, terminated, truncated, info

    def _end_with_penalty(self) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """``illegal_action="penalty"``: the episode ends here, as the AEC adapter ends it."""
        reward = self._pending + self._collect(self.illegal.reward)
        self._pending = 0.0
        self._done = True
        info = self._info(reward)
        info.update(self._final_info(with_stats=False), illegal_action=True)
        assert self._last_obs is not None  # every reset observes; step refuses to run before one
        return self._last_obs, reward * self.reward_scale, True, False, info

    def _shaping_step(self, final_stats: Mapping[str, float] | None = None) -> float:
        """Moves each shaped statistic's potential to its value now (the final statistic
        once the episode is over) and returns the potentials' total change."""
        if final_stats is not None:
            now: Mapping[str, float | None] = {name: final_stats[stat_of(name)] for name in self.shaping}
        else:
            assert self.advisor is not None  # potential shaping is refused without an advisor's estimates
            now = self.advisor.stat_estimates(self.state, self.learner, tuple(self.shaping))
        change = 0.0
        for name, weight in self.shaping.items():
            value = now.get(name)
            if value is not None:
                change += weight * value - self._potentials[name]
                self._potentials[name] = weight * value
        return change

    def _play_opponents(self) -> float:
        """Opponents act until the learner must decide or the episode ends;
        returns the learner's reward earned meanwhile."""
        earned = 0.0
        solved: int | None = None

        def collect(_state: Any, _seat: int, _action: int, rewards: np.ndarray) -> None:
            nonlocal earned
            earned += self._collect(float(rewards[self.learner]))

        def learner_decides(state: Any) -> bool:
            nonlocal solved
            if state.current_player != self.learner:
                return False
            solved = solved_action(self.advisor, state.view(self.learner))
            return solved is None

        def choose(state: Any, seat: int) -> int:
            if seat != self.learner:
                return self._opponent_choice(state, seat)
            assert solved is not None  # play_until stops at every decision of the learner's own
            return solved

        play_until(self.state, choose, stop=learner_decides, on_step=collect)
        return earned

    def _collect(self, reward: float) -> float:
        self._raw_return += reward
        return float(reward)

    def _over(self) -> bool:
        state = self.state
        return state.is_terminal() or state.is_truncated()

    def _observe(self) -> np.ndarray:
        self._last_obs = self.game.observe(self.state, self.learner)
        return self._last_obs

    def _info(self, reward: float) -> dict[str, Any]:
        return {"learner_seat": self.learner, "raw_reward": reward}

    def _final_info(self, with_stats: bool = True) -> dict[str, Any]:
        info: dict[str, Any] = {
            "raw_return": self._raw_return,
            "opponents": {seat: name for seat, (name, _) in sorted(self._seats_agents.items())},
        }
        if with_stats:
            info["stats"] = {k: float(v[self.learner]) for k, v in self.state.stats().items()}
        return info

    def action_masks(self) -> np.ndarray:
        """bool[num_actions]: the learner's legal actions, narrowed by the action guard (all
        True once the episode is over, so a masked distribution is never empty)."""
        if self._done or self._over():
            return np.ones(self.game.num_actions, dtype=bool)
        legal = self.state.legal_mask().astype(bool)
        if not self.action_guard:
            return legal
        assert self._last_obs is not None  # observed at the reset that started this episode
        return guarded(self.advisor, self._last_obs, legal, self.action_guard, self.state.view(self.learner))

    # gymnasium types render() with a free TypeVar (RenderFrame), which no concrete return type matches
    def render(self) -> str | np.ndarray:  # type: ignore[override]
        """The learner's view: text (``render_mode="ansi"``, also without a render mode) or, for
        ``rgb_array``, ``uint8[H, W, 3]`` pixels of the AEC adapter's picture of that view
        (the ``pictures`` extra; without it, an ImportError naming it)."""
        view = self.state.view(self.learner)
        if self._picture is not None:
            return svg.rasterize(self._picture(view))
        return presenter_for(self.game).render(view)

    @property
    def state(self) -> Any:
        """The game's State of the current episode."""
        return self._state
