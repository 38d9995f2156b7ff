"""TableEnv: the one PettingZoo AEC adapter that serves every ``Game``.

It owns everything PettingZoo-specific: agent names, spaces, the reward /
termination bookkeeping of the AEC API, stacked-deck options, the illegal
action policy and rendering (the game's presenter, ``engine/presenter.py``: its text,
and for ``rgb_array`` its ``render_svg(view)`` picture, rasterized). Games (``envs/<game>/``) never import
this module.

At the end of an episode every agent's ``infos[agent]`` carries the game's final
statistics for its seat (``"stats"``: ``State.stats()``, e.g. OFC's foul rate) and its
``"episode_reward"`` (the sum of its rewards); ``record()`` returns the episode so far
as a game record (:mod:`parlor.envs.records`).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded
from pettingzoo import AECEnv

from parlor.envs.engine import svg
from parlor.envs.engine.config import check_choice, check_number, check_seed
from parlor.envs.engine.game import ConfigError, Game, IllegalActionError, State, shown
from parlor.envs.engine.presenter import presenter_for, svg_renderer
from parlor.envs.order_enforcing import OrderEnforcing

ILLEGAL_ACTION_MODES = ("raise", "penalty")
RENDER_MODES = ("ansi", "human", "rgb_array")
ADAPTER_OPTIONS = ("render_mode", "illegal_action", "illegal_reward")
RESET_OPTIONS = ("deck", "decks")
# pettingzoo.test.api_test checks that reset takes options by passing {"options": 1}; that one
# key is accepted and ignored, every other unknown reset option is an error
API_TEST_RESET_PROBE = "options"


@dataclass(frozen=True)
class IllegalActions:
    """What an illegal action (or None where an action is due) does: ``"raise"`` an
    ``IllegalActionError`` naming the legal ones, or ``"penalty"``: the episode ends and the
    offender is paid ``reward``. The adapter and the training wrapper
    (``parlor.training.learning.wrapper``) both play actions through :meth:`play`."""

    mode: str = "raise"
    reward: float = -1.0

    def __post_init__(self) -> None:
        check_choice("illegal_action", self.mode, ILLEGAL_ACTION_MODES)
        check_number("illegal_reward", self.reward)
        object.__setattr__(self, "reward", float(self.reward))

    @classmethod
    def of(cls, options: Mapping[str, Any]) -> IllegalActions:
        """The policy that the adapter options ``illegal_action`` / ``illegal_reward`` in
        ``options`` set (the defaults where absent)."""
        return cls(options.get("illegal_action", cls.mode), options.get("illegal_reward", cls.reward))

    def play(self, game: Game, state: Any, action: int | None) -> bool:
        """Apply ``action`` to ``state``: True when it was legal; False when it was illegal under
        ``"penalty"`` (the caller then ends the episode with the penalty)."""
        try:
            if action is None:  # a live seat must act: no action is an illegal one
                raise IllegalActionError(None, np.flatnonzero(state.legal_mask()), game.action_name)
            state.apply(action)
        except IllegalActionError:
            if self.mode == "raise":
                raise
            return False
        return True


class TableEnv(AECEnv):
    """PettingZoo ``AECEnv`` around a :class:`envs.engine.game.Game`.

    Observations are ``{"observation": float32[...], "action_mask": int8[num_actions]}``;
    the mask is all zeros for every agent but the one to act.
    """

    metadata = {"render_modes": list(RENDER_MODES), "name": "table_env", "is_parallelizable": False,
                "render_fps": 2}

    def __init__(
        self,
        game: Game,
        render_mode: str | None = None,
        illegal_action: str = IllegalActions.mode,
        illegal_reward: float = IllegalActions.reward,
    ):
        super().__init__()
        if render_mode is not None:
            check_choice("render_mode", render_mode, RENDER_MODES)
        self.illegal = IllegalActions(illegal_action, illegal_reward)
        self._draw: Callable[[Any], str] | None = None
        if render_mode == "rgb_array":
            self._draw = svg_renderer(game)
            svg.check_pictures_extra()
        self.game = game
        self.metadata = dict(self.metadata, name=game.name)  # the env id (Game.name)
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(game.num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        space = observation_space(game)
        self._observation_spaces = {a: space for a in self.possible_agents}
        self._action_spaces = {a: action_space(game) for a in self.possible_agents}
        self._zero_mask = np.zeros(game.num_actions, dtype=np.int8)
        self._rng: np.random.Generator | None = None
        self.state: State | None = None  # the game's State; None until the first reset
        self._obs_cache: dict[int, np.ndarray] = {}
        self._mask_cache: np.ndarray | None = None
        self._acting: int | None = None  # the seat to act; None once the episode is over
        self._last_actor = 0
        self._seed: int | None = None  # the seed of this episode's generator (None: unknown)
        self._returns: list[float] = []  # per seat, the rewards of this episode so far

    @property
    def illegal_action(self) -> str:
        """``"raise"`` or ``"penalty"`` (:class:`IllegalActions`)."""
        return self.illegal.mode

    @property
    def illegal_reward(self) -> float:
        return self.illegal.reward

    # ------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_spaces[agent]

    # ------------------------------------------------------------ episode
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        decks = stacked_decks(self.game, options)  # checked first: a bad option leaves the generator as it was
        seed = check_seed(seed, none=True)
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(seed)
        self._seed = seed
        state = self.state = self.game.new_state(self._rng, decks)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self._obs_cache = {}
        self._mask_cache = None
        self._rewards_pending = True
        self._returns = [0.0] * len(self.possible_agents)
        self._collect_rewards(state)
        self._after_transition(state)

    def step(self, action: int | None) -> None:
        player = self._acting
        if player is None:  # the episode is over: every agent takes its dead step
            self._started("step")  # ResetNeeded before the first reset
            self._was_dead_step(action)
            return
        state = self.state
        assert state is not None  # a seat is to act: reset() made the episode
        agent = self.agent_selection
        if type(action) is not int:
            action = action_id(action)  # TypeError unless an integer; None stays None
        self._cumulative_rewards[agent] = 0.0
        self._last_actor = player
        if not self.illegal.play(self.game, state, action):
            self._end_with_penalty(state, agent)
            return
        self._obs_cache.clear()
        self._mask_cache = None
        paid = self._collect_rewards(state)
        self._after_transition(state)
        if paid:
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _collect_rewards(self, state: State) -> bool:
        """Copy the rewards earned by the last transition; False when all are zero
        (most steps), so that the bookkeeping below can be skipped."""
        earned = state.take_rewards().tolist()  # a list: ndarray.any() costs microseconds
        if not any(earned):
            if self._rewards_pending:
                for a in self.possible_agents:
                    self.rewards[a] = 0.0
                self._rewards_pending = False
            return False
        returns = self._returns
        for i, a in enumerate(self.possible_agents):
            self.rewards[a] = float(earned[i])
            returns[i] += earned[i]
        self._rewards_pending = True
        return True

    def _after_transition(self, state: State) -> None:
        if state.is_terminal() or state.is_truncated():
            flags = self.truncations if (state.is_truncated() and not state.is_terminal()) else self.terminations
            for a in self.agents:
                flags[a] = True
            self._acting = None
            self.agent_selection = self.possible_agents[self._last_actor]
            self._final_infos(state)
        else:
            self._acting = player = state.current_player
            assert player is not None  # a live state has a seat to act (State.current_player)
            self.agent_selection = self.possible_agents[player]

    def _end_with_penalty(self, state: State, offender: str) -> None:
        for a in self.agents:
            self.rewards[a] = 0.0
            self.terminations[a] = True
        self._acting = None
        self.rewards[offender] = self.illegal.reward
        self._returns[self.agent_name_mapping[offender]] += self.illegal.reward
        self._final_infos(state)
        self.infos[offender]["illegal_action"] = True
        self._accumulate_rewards()

    def _final_infos(self, state: State) -> None:
        """Every agent's info at the end: its seat's final statistics and episode reward."""
        stats = state.stats()
        for p, a in enumerate(self.possible_agents):
            self.infos[a] = {"stats": {k: float(v[p]) for k, v in stats.items()},
                             "episode_reward": float(self._returns[p])}

    def record(self, agents: Sequence[str] | None = None, tags: dict[str, Any] | None = None) -> Any:
        """The current episode so far as a game record (``parlor.envs.records.Record``):
        ``record().to_json()`` is one line of a records file. ``agents``: a label per seat.
        An episode ended by an illegal-action penalty records the game up to that action
        (the penalty is the adapter's, not a rule: the record is unfinished)."""
        from parlor.envs.records import record_episode

        if self.state is None:
            raise RuntimeError("record() needs a reset() first: there is no episode yet")
        return record_episode(self.game, self.state, seed=self._seed, agents=agents, tags=tags)

    # ------------------------------------------------------------ observing
    def last(self, observe: bool = True):
        agent = self.agent_selection
        observation = self.observe(agent) if observe else None
        return observation, self._cumulative_rewards[agent], self.terminations[agent], self.truncations[agent], self.infos[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        player = self.agent_name_mapping[agent]
        obs = self._obs_cache.get(player)
        if obs is None:
            obs = self._obs_cache[player] = self.game.observe(self._started("observe"), player)
        return {"observation": obs, "action_mask": self._mask(player)}

    def _mask(self, player: int) -> np.ndarray:
        if player != self._acting:
            return self._zero_mask
        mask = self._mask_cache
        if mask is None:
            assert self.state is not None  # a seat is to act: reset() made the episode
            mask = self._mask_cache = self.state.legal_mask().astype(np.int8)
        return mask

    def action_mask(self, agent: str) -> np.ndarray:
        """int8[num_actions]: the legal actions of ``agent`` (all zero when not its turn)."""
        return self._mask(self.agent_name_mapping[agent])

    def view(self, agent: str) -> Any:
        """The game's View of ``agent``: readable form of its observation."""
        return self._started("view").view(self.agent_name_mapping[agent])

    def _started(self, method: str) -> State:
        """The episode's State; ``ResetNeeded`` naming ``method`` before the first reset."""
        if self.state is None:
            raise ResetNeeded(f"{self.metadata['name']}: {method}() before reset(); call reset() first")
        return self.state

    # ------------------------------------------------------------ rendering
    def render(self) -> str | np.ndarray | None:
        """The view of the seat to act (the last actor's once the episode is over): text for
        ``ansi``, printed for ``human``, ``uint8[H, W, 3]`` pixels of the picture for
        ``rgb_array`` (one fixed shape per game configuration)."""
        if self.render_mode is None:
            gymnasium.logger.warn(f"render() called without render_mode; use one of {', '.join(RENDER_MODES)}")
            return None
        state = self._started("render")
        player = state.current_player
        if player is None:
            player = self._last_actor
        if self._draw is not None:
            return svg.rasterize(self._draw(state.view(player)))
        text = presenter_for(self.game).render(state.view(player))
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def observation_space(game: Game) -> spaces.Dict:
    """A seat's observation space: the game's observation vector and the action mask."""
    low, high = game.observation_bounds
    obs_box = spaces.Box(low=low, high=high, shape=game.observation_shape, dtype=np.float32)
    mask_box = spaces.Box(low=0, high=1, shape=(game.num_actions,), dtype=np.int8)
    return spaces.Dict({"observation": obs_box, "action_mask": mask_box})


def action_space(game: Game) -> spaces.Discrete:
    return spaces.Discrete(game.num_actions)


def stacked_decks(game: Game, options: Mapping[str, Any] | None) -> list[tuple[int, ...]] | None:
    """The stacked decks of ``reset(options=...)`` (docs/rules.md §0.3), parsed for ``game``; a
    ``ConfigError`` names the bad option. The adapter and the training wrapper deal with these."""
    if options is None:
        return None
    if not isinstance(options, Mapping):
        raise ConfigError(f"reset options={shown(options)} must be a dict; allowed keys: {', '.join(RESET_OPTIONS)}")
    unknown = sorted(map(repr, set(options) - {*RESET_OPTIONS, API_TEST_RESET_PROBE}))
    if unknown:
        raise ConfigError(f"unknown reset option(s) {', '.join(unknown)}; allowed keys: {', '.join(RESET_OPTIONS)}")
    if "deck" in options and "decks" in options:
        raise ConfigError("give either options['deck'] or options['decks'], not both")
    if "deck" in options:
        return [_parse_deck(game, "options['deck']", options["deck"])]
    if "decks" not in options:
        return None
    decks = options["decks"]
    if not isinstance(decks, (list, tuple)):
        raise ConfigError(f"options['decks']={shown(decks)} must be a list of decks, one per deal")
    return [_parse_deck(game, f"options['decks'][{i}]", d) for i, d in enumerate(decks)]


def _parse_deck(game: Game, where: str, deck: Any) -> tuple[int, ...]:
    if isinstance(deck, np.ndarray) and deck.ndim == 1:
        deck = list(deck)  # its ids, as the deck parsers read a 1-D array
    if not isinstance(deck, (str, list, tuple)):
        raise ConfigError(f"{where}={shown(deck)} must be a deck: text such as 'As Kd ...' or a list of "
                          f"cards (tiles) or ids")
    try:
        return game.parse_deck(deck)
    except ValueError as err:  # ConfigError included: say which option held the deck
        raise ConfigError(f"{where}: {err}") from None


def action_id(action: Any) -> int | None:
    """The integer id of an action given to ``step``: a Python or numpy integer, or a 0-d
    integer array (what SB3's ``predict`` returns for one observation); None stays None.
    Anything else raises ``TypeError`` naming its type: a float (NaN too), a string, a
    bool or a longer array is never cast."""
    if isinstance(action, (int, np.integer)) and not isinstance(action, bool):
        return int(action)
    if action is None:
        return None
    if isinstance(action, np.ndarray) and action.ndim == 0 and action.dtype.kind in "iu":
        return int(action)
    shape = f", shape {action.shape}" if isinstance(action, np.ndarray) else ""
    raise TypeError(f"action {action!r} (type {type(action).__name__}{shape}) is not an integer; "
                    "give an action id (int) from the action mask")


def split_options(options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Separate the adapter's options from the game's options."""
    adapter = {k: v for k, v in options.items() if k in ADAPTER_OPTIONS}
    game = {k: v for k, v in options.items() if k not in ADAPTER_OPTIONS}
    return adapter, game


def entry_points(name: str, make_game: Callable[..., Game]) -> tuple[Callable[..., AECEnv], Callable[..., TableEnv]]:
    """PettingZoo-style ``env(**options)`` and ``raw_env(**options)`` for a game whose
    ``Game.name`` is the env id ``name``."""

    def raw_env(**options: Any) -> TableEnv:
        adapter, game_options = split_options(options)
        return TableEnv(named_game(name, make_game(**game_options)), **adapter)

    def env(**options: Any) -> AECEnv:
        return OrderEnforcing(raw_env(**options))

    raw_env.__doc__ = f"The unwrapped {name} TableEnv; options are the game's config fields plus {ADAPTER_OPTIONS}."
    env.__doc__ = f"The {name} environment (order-enforcing wrapper around raw_env)."
    return env, raw_env


def named_game(name: str, game: Game) -> Game:
    """``game``, checked to carry the env id ``name`` as its ``Game.name``: the one name that
    agents, advisors, records, policy files and the registry know it by."""
    if getattr(game, "name", None) != name:
        raise ConfigError(f"the game of env {name!r} is named {shown(getattr(game, 'name', None))}: Game.name must "
                          f"be the env id, {name!r}")
    return game
