"""Kuhn poker: a tiny test-only Game that exercises the adapter before real games land.

Three cards (J Q K), two players, ante 1, one card each (hidden), actions
0 = pass/fold, 1 = bet/call. It has chance, hidden information, a
determinization and payoffs at the end: everything the harness checks.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from parlor.envs.engine.config import build, check_int
from parlor.envs.engine.game import IllegalActionError
from parlor.envs.engine.presenter import Presenter, register
from parlor.envs.engine.trace import Serializable, Trace

CARD_NAMES = "JQK"


@dataclass(frozen=True, slots=True, kw_only=True)
class KuhnConfig:
    ante: int = 1

    def __post_init__(self) -> None:
        check_int("ante", self.ante, 1, 10)


@dataclass(frozen=True)
class KuhnView:
    player: int
    card: int
    history: tuple[int, ...]
    showdown_cards: tuple[int, int] | None


class KuhnState:
    def __init__(self, game: KuhnGame, cards: list[int], rng: np.random.Generator, trace: Trace):
        self.game = game
        self.cards = cards
        self.rng = rng
        self.trace = trace
        self.history: list[int] = []
        self.current_player: int | None = 0
        self._rewards = np.zeros(2)
        self._done = False

    def legal_mask(self) -> np.ndarray:
        return np.array([not self._done, not self._done])

    def apply(self, action: int) -> None:
        if self._done or action not in (0, 1):
            raise IllegalActionError(action, np.flatnonzero(self.legal_mask()), self.game.action_name)
        self.history.append(action)
        h = tuple(self.history)
        ante = self.game.config.ante
        if h in ((0, 0),):
            self._finish(self._showdown(ante))
        elif h in ((1, 1), (0, 1, 1)):
            self._finish(self._showdown(ante + 1))
        elif h == (1, 0):
            self._finish(np.array([ante, -ante], dtype=float))
        elif h == (0, 1, 0):
            self._finish(np.array([-ante, ante], dtype=float))
        else:
            self.current_player = 1 - self.current_player
        self.trace.actions.append(int(action))

    def _showdown(self, stake: int) -> np.ndarray:
        sign = 1.0 if self.cards[0] > self.cards[1] else -1.0
        return np.array([sign * stake, -sign * stake])

    def _finish(self, payoff: np.ndarray) -> None:
        self._rewards += payoff
        self._done = True
        self.current_player = None

    def is_terminal(self) -> bool:
        return self._done

    def is_truncated(self) -> bool:
        return False

    def take_rewards(self) -> np.ndarray:
        out, self._rewards = self._rewards, np.zeros(2)
        return out

    def view(self, player: int) -> KuhnView:
        shown = (self.cards[0], self.cards[1]) if self._done and self.history[-1] == 1 or self.history == [0, 0] else None
        return KuhnView(player, self.cards[player], tuple(self.history), shown)

    def clone(self) -> KuhnState:
        new = KuhnState(self.game, list(self.cards), copy.deepcopy(self.rng), self.trace.copy())
        new.history = list(self.history)
        new.current_player = self.current_player
        new._rewards = self._rewards.copy()
        new._done = self._done
        return new

    def determinize(self, player: int, rng: np.random.Generator) -> KuhnState:
        new = self.clone()
        if self.view(player).showdown_cards is None:
            unseen = sorted(set(range(3)) - {self.cards[player]})
            new.cards[1 - player] = int(unseen[rng.integers(len(unseen))])
        new.trace = Trace.resampled()
        return new

    def check_invariants(self) -> None:
        assert len(set(self.cards)) == 2 and all(0 <= c < 3 for c in self.cards)

    def stats(self) -> dict[str, list[float]]:
        return {}  # Kuhn poker reports no statistics


class KuhnGame(Serializable):
    name = "kuhn_test"
    num_players = 2
    num_actions = 2
    observation_shape = (3 + 3 + 6,)
    observation_bounds = (0.0, 1.0)
    observation_version = None
    stat_ratios: dict = {}
    portable_options: tuple[str, ...] = ()
    max_deals = 1

    def __init__(self, config: KuhnConfig):
        self.config = config

    def new_state(self, rng: np.random.Generator, decks=None) -> KuhnState:
        trace = Trace.start(rng, decks)
        order = list(decks[0]) if decks else [int(c) for c in rng.permutation(3)]
        trace.dealt.append(tuple(order))
        return KuhnState(self, order[:2], rng, trace)

    def parse_deck(self, deck) -> tuple[int, ...]:
        tokens = deck.split() if isinstance(deck, str) else list(deck)
        for t in tokens:
            if not (t in range(3) if isinstance(t, int) else t in tuple(CARD_NAMES)):
                raise ValueError(f"bad card {t!r}: allowed {', '.join(CARD_NAMES)}")
        cards = tuple(t if isinstance(t, int) else CARD_NAMES.index(t) for t in tokens)
        if sorted(cards) != [0, 1, 2]:
            raise ValueError("stacked deck must hold J, Q and K exactly once")
        return cards

    def sample_deck(self, rng: np.random.Generator) -> tuple[int, ...]:
        return tuple(int(c) for c in rng.permutation(3))

    def encode(self, view: KuhnView) -> np.ndarray:
        obs = np.zeros(self.observation_shape, dtype=np.float32)
        obs[view.card] = 1.0
        if view.showdown_cards is not None:
            obs[3 + view.showdown_cards[1 - view.player]] = 1.0
        for i, a in enumerate(view.history):
            obs[6 + 2 * i + a] = 1.0
        return obs

    def observe(self, state: KuhnState, player: int) -> np.ndarray:
        return self.encode(state.view(player))  # no faster path

    def action_name(self, action: int) -> str:
        return ("pass", "bet")[action]


class KuhnPresenter(Presenter):
    """Text only: Kuhn poker has no picture (``render_svg`` is left to the base)."""

    def render(self, view: KuhnView) -> str:
        moves = " ".join("pass" if a == 0 else "bet" for a in view.history) or "-"
        return f"player {view.player}: card {CARD_NAMES[view.card]}; history: {moves}"

    def move_name(self, view: KuhnView, action: int) -> str:
        return f"{self.action_name(action)} holding {CARD_NAMES[view.card]}"

    def describe_move(self, before: KuhnView, after: KuhnView, actor: int, action: int) -> str:
        return ("passes", "bets")[action]

    def explain(self, view: KuhnView) -> str:
        if view.showdown_cards is None:
            return ""
        cards = " vs ".join(CARD_NAMES[c] for c in view.showdown_cards)
        return f"showdown: {cards}"

    def seat_notes(self, view: KuhnView) -> list[str]:
        return [f"card {CARD_NAMES[view.card]}" if s == view.player else "card hidden" for s in range(2)]


register(KuhnGame, KuhnPresenter)


def make_game(**options) -> KuhnGame:
    return KuhnGame(build(KuhnConfig, options))
