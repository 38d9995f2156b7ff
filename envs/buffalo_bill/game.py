"""Buffalo Bill (docs/rules.md §2): the config, the Game object and ``make_game``.

The other modules of the package are listed in its docstring (``envs/buffalo_bill/__init__.py``).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from parlor.envs.buffalo_bill.categories import CATEGORIES, SHEETS, LineEvaluator, canonical_name
from parlor.envs.buffalo_bill.encode import NUM_EXCHANGES, ObservationLayout, action_name, encode_view
from parlor.envs.buffalo_bill.features import FEATURES_VERSION, FeatureBlock
from parlor.envs.buffalo_bill.presenter import BuffaloBillPresenter
from parlor.envs.buffalo_bill.state import BuffaloBillState
from parlor.envs.buffalo_bill.view import BuffaloBillView
from parlor.envs.engine.cards import card_name, make_deck, parse_stacked_deck
from parlor.envs.engine.config import build, check_bool, check_choice, check_int
from parlor.envs.engine.decks import check_decks
from parlor.envs.engine.game import ConfigError, shown
from parlor.envs.engine.presenter import register
from parlor.envs.engine.trace import Serializable

# a game has a round per sheet line, and the observation a block per line: a custom sheet is
# bounded (the longest built-in sheet has 18 lines)
MAX_SHEET_LINES = 100

DECKS = ("standard52", "short32")
REWARDS = ("score", "margin", "win")


@dataclass(frozen=True, slots=True, kw_only=True)
class BuffaloBillConfig:
    """Options (docs/rules.md §2.10). ``sheet``: a built-in sheet name or a list of category
    names (one line each, in order); ``reward``: None picks ``score`` for one
    player and ``margin`` for 2+; ``features`` appends the feature block
    (``features.py``) to the observation."""

    num_players: int = 2
    deck: str = "standard52"
    chips: int = 12
    sheet: str | tuple[str, ...] = "standard"
    reward: str | None = None
    features: bool = False

    def __post_init__(self) -> None:
        check_bool("features", self.features)
        check_int("num_players", self.num_players, 1, 4)
        check_choice("deck", self.deck, DECKS)
        check_int("chips", self.chips, 0, 1000)
        object.__setattr__(self, "sheet", _check_sheet(self.sheet))
        if self.reward is not None:
            check_choice("reward", self.reward, REWARDS)
            if self.reward != "score" and self.num_players == 1:
                raise ConfigError(f"reward={self.reward!r} compares players; with num_players=1 use 'score'")


def _check_sheet(sheet: Any) -> str | tuple[str, ...]:
    if isinstance(sheet, str):
        check_choice("sheet", sheet, tuple(SHEETS))
        return sheet
    if not isinstance(sheet, (list, tuple)) or not 1 <= len(sheet) <= MAX_SHEET_LINES:
        raise ConfigError(
            f"sheet={shown(sheet)} must be one of {', '.join(map(repr, SHEETS))} or a list of 1..{MAX_SHEET_LINES} "
            f"category names"
        )
    names = []
    for name in sheet:
        canon = canonical_name(name) if isinstance(name, str) else None
        if canon is None:
            raise ConfigError(f"sheet: unknown category {shown(name)}; allowed categories: {', '.join(CATEGORIES)}")
        names.append(canon)
    return tuple(names)


def sheet_lines(sheet: str | tuple[str, ...]) -> tuple[str, ...]:
    return SHEETS[sheet] if isinstance(sheet, str) else tuple(sheet)


class BuffaloBillGame(Serializable):
    """Buffalo Bill with fixed options; builds states and encodes views (``BuffaloBillPresenter`` shows them)."""

    name = "buffalo_bill_v0"
    observation_bounds = (0.0, 1.0)
    stat_ratios: Mapping[str, tuple[str, str]] = {}  # no rates of State.stats() entries
    portable_options: tuple[str, ...] = ()  # a policy fits only the options it was trained with

    def __init__(self, config: BuffaloBillConfig):
        self.config = config
        self.num_players = config.num_players
        self.lines = sheet_lines(config.sheet)
        self.num_rounds = self.max_deals = len(self.lines)  # one deck per round
        self.num_actions = NUM_EXCHANGES + self.num_rounds
        self.deck = make_deck(config.deck)
        self.reward = config.reward or ("score" if config.num_players == 1 else "margin")
        self.evaluator = LineEvaluator(self.lines)
        self.layout = ObservationLayout(self.num_players, self.num_rounds, len(self.deck), config.chips)
        self.features = FeatureBlock(self) if config.features else None
        self.observation_version = FEATURES_VERSION if config.features else None  # in a trained policy's signature
        self.feature_offset = self.layout.size  # the feature block starts here (features=True)
        self.observation_shape = (self.layout.size + (self.features.layout.size if self.features else 0),)
        self.deck_array = np.array(self.deck, dtype=np.int64)  # shuffled per deal

    def new_state(self, rng: np.random.Generator, decks: Sequence[Sequence[int]] | None = None) -> BuffaloBillState:
        """A new game; ``decks[r]`` (full deck order) is dealt in round ``r``, later rounds are shuffled."""
        return BuffaloBillState(self, rng, check_decks(decks, self.deck, name=card_name))

    def parse_deck(self, deck: str | Sequence[Any]) -> tuple[int, ...]:
        return parse_stacked_deck(deck, self.deck)

    def sample_deck(self, rng: np.random.Generator) -> tuple[int, ...]:
        """A random full deck in dealing order (one round's deal for ``decks``)."""
        return tuple(int(c) for c in rng.permutation(np.array(self.deck)))

    def final_rewards(self, totals: Sequence[int]) -> np.ndarray:
        """End-of-game rewards (``score`` mode pays each line as it is written instead)."""
        n = self.num_players
        out = np.zeros(n)
        if self.reward == "margin":
            for p in range(n):
                out[p] = totals[p] - max(totals[q] for q in range(n) if q != p)
        elif self.reward == "win":
            best = max(totals)
            winners = [p for p in range(n) if totals[p] == best]
            for p in range(n):
                out[p] = -1.0 if totals[p] != best else (1.0 if len(winners) == 1 else 0.0)
        return out

    def encode(self, view: BuffaloBillView) -> np.ndarray:
        obs = encode_view(self.layout, view)
        if self.features is not None:
            return np.concatenate((obs, self.features.from_view(view)))
        return obs

    def observe(self, state: BuffaloBillState, player: int) -> np.ndarray:
        """Fast path equal to ``encode(state.view(player))``."""
        obs = state.observer.buffer.take(self.layout.obs_index[player])
        if self.features is not None:
            return np.concatenate((obs, self.features.from_state(state, player)))
        return obs

    def action_name(self, action: int) -> str:
        return action_name(action, self.lines)


register(BuffaloBillGame, BuffaloBillPresenter)  # words and pictures of its views (presenter.py)


def make_game(**options: Any) -> BuffaloBillGame:
    return BuffaloBillGame(build(BuffaloBillConfig, options))
