"""Test-only games for the training pipeline (registered with ``parlor.training.learning.wrapper.register_env``).

``ledger_test``: two players alternate for ``rounds`` turns each; action ``a``
(0..3) pays the mover ``+a`` and the other seat ``-10 * a`` at once, so the two
seats' rewards always differ and arrive between decisions. Only even actions
are legal on a mover's even turns and only odd ones on odd turns, so masks matter.
Kuhn poker (``kuhn_test``) comes from the harness.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from parlor.envs.aec import entry_points
from parlor.envs.engine.config import build, check_int
from parlor.envs.engine.game import IllegalActionError
from parlor.envs.engine.presenter import Presenter
from parlor.envs.engine.presenter import register as register_presenter
from parlor.training.learning.wrapper import register_env
from tests.harness import kuhn


@dataclass(frozen=True, slots=True, kw_only=True)
class LedgerConfig:
    rounds: int = 3

    def __post_init__(self) -> None:
        check_int("rounds", self.rounds, 1, 10)


@dataclass(frozen=True)
class LedgerView:
    player: int
    turn: int
    history: tuple[int, ...]


class LedgerState:
    def __init__(self, game: LedgerGame):
        self.game = game
        self.history: list[int] = []
        self.current_player: int | None = 0
        self._rewards = np.zeros(2)

    def legal_mask(self) -> np.ndarray:
        mask = np.zeros(4, dtype=bool)
        if self.current_player is not None:
            mask[len(self.history) // 2 % 2::2] = True
        return mask

    def apply(self, action: int) -> None:
        if not 0 <= action < 4 or not self.legal_mask()[action]:
            raise IllegalActionError(action, np.flatnonzero(self.legal_mask()), self.game.action_name)
        mover = self.current_player
        self._rewards[mover] += action
        self._rewards[1 - mover] -= 10 * action
        self.history.append(action)
        self.current_player = None if len(self.history) == 2 * self.game.config.rounds else 1 - mover

    def is_terminal(self) -> bool:
        return self.current_player is None

    def is_truncated(self) -> bool:
        return False

    def take_rewards(self) -> np.ndarray:
        out, self._rewards = self._rewards, np.zeros(2)
        return out

    def view(self, player: int) -> LedgerView:
        return LedgerView(player, len(self.history), tuple(self.history))

    def clone(self) -> LedgerState:
        new = LedgerState(self.game)
        new.history, new.current_player, new._rewards = list(self.history), self.current_player, self._rewards.copy()
        return new

    def determinize(self, player: int, rng: np.random.Generator) -> LedgerState:
        return self.clone()

    def check_invariants(self) -> None:
        assert len(self.history) <= 2 * self.game.config.rounds

    def stats(self) -> dict[str, list[float]]:
        return {"moves": [float(len(self.history[p::2])) for p in range(2)]}


class LedgerGame:
    name = "ledger_test"
    num_players = 2
    num_actions = 4
    observation_bounds = (0.0, 1.0)
    observation_version = None
    stat_ratios: dict = {}
    portable_options: tuple[str, ...] = ()
    max_deals = None  # no deck: nothing to stack

    def __init__(self, config: LedgerConfig):
        self.config = config
        self.observation_shape = (2 + 4 * 2 * config.rounds,)

    def new_state(self, rng: np.random.Generator, decks=None) -> LedgerState:
        return LedgerState(self)

    def parse_deck(self, deck) -> tuple[int, ...]:
        raise ValueError("ledger_test has no deck")

    def sample_deck(self, rng: np.random.Generator) -> tuple[int, ...]:
        return ()

    def encode(self, view: LedgerView) -> np.ndarray:
        obs = np.zeros(self.observation_shape, dtype=np.float32)
        obs[view.player] = 1.0
        for i, a in enumerate(view.history):
            obs[2 + 4 * i + a] = 1.0
        return obs

    def observe(self, state: LedgerState, player: int) -> np.ndarray:
        return self.encode(state.view(player))

    def action_name(self, action: int) -> str:
        return f"take {action}"


class LedgerPresenter(Presenter):
    def render(self, view: LedgerView) -> str:
        return f"player {view.player}: {view.history}"

    def move_name(self, view: LedgerView, action: int) -> str:
        return self.action_name(action)

    def describe_move(self, before: LedgerView, after: LedgerView, actor: int, action: int) -> str:
        return f"takes {action}"

    def explain(self, view: LedgerView) -> str:
        return ""

    def seat_notes(self, view: LedgerView) -> list[str]:
        return [f"{len(view.history)} taken" if s == view.player else "" for s in range(self.game.num_players)]


register_presenter(LedgerGame, LedgerPresenter)


def make_ledger(**options) -> LedgerGame:
    return LedgerGame(build(LedgerConfig, options))


LEDGER_ENV, LEDGER_RAW_ENV = entry_points("ledger_test", make_ledger)
KUHN_ENV, KUHN_RAW_ENV = entry_points("kuhn_test", kuhn.make_game)


def register() -> None:
    register_env("ledger_test", make_ledger)
    register_env("kuhn_test", kuhn.make_game)


# a small training config on the Kuhn test game: self-play, checkpoints and evaluation within seconds
KUHN = """\
env: kuhn_test
opponents: [{agent: random, weight: 1.0}, {agent: self, weight: 1.0}]
self_play: {start: 128, every: 128, keep: 2}
n_envs: 2
total_steps: 256
checkpoint_every: 128
ppo: {n_steps: 64, batch_size: 64, n_epochs: 1, net_arch: [16]}
eval: {every: 128, deals: 4, opponents: [random], baselines: [random]}
"""


class FixedAgent:
    """Plays the largest legal action (or the smallest with ``lowest=True``)."""

    def __init__(self, game=None, seed=None, lowest: bool = False):
        self.lowest = lowest

    def reset(self, seed=None) -> None:
        pass

    def act(self, observation, action_mask, view, sample_world=None) -> int:
        legal = np.flatnonzero(action_mask)
        return int(legal[0] if self.lowest else legal[-1])
