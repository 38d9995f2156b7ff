"""Options of Washizu draw poker (docs/rules.md §3.10), validated on construction."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from parlor.envs.engine.cards import NUM_SUITS, SUIT_CHARS, format_cards, parse_cards, suit_of
from parlor.envs.engine.config import check_choice, check_int
from parlor.envs.engine.game import ConfigError

WASHIZU_MODES = ("none", "suit", "random13", "extra_deck")


@dataclass(frozen=True, slots=True, kw_only=True)
class WashizuConfig:
    """``num_players`` 2..6; ``jokers`` 0..2 wild cards; ``starting_chips`` per player;
    ``washizu``: which cards are transparent; ``washizu_cards`` fixes the 13 Washizu
    cards for ``suit``/``random13`` (text like ``"2s 3s ..."``, a list of cards, or a
    suit letter ``"s"`` for ``suit``); ``num_games`` deals per match; ``max_raise``
    the largest raise step."""

    num_players: int = 4
    jokers: int = 1
    starting_chips: int = 15
    washizu: str = "suit"
    washizu_cards: Any = None
    num_games: int = 5
    max_raise: int = 3

    def __post_init__(self) -> None:
        check_int("num_players", self.num_players, 2, 6)
        check_int("jokers", self.jokers, 0, 2)
        check_int("starting_chips", self.starting_chips, 1, 10_000)
        check_choice("washizu", self.washizu, WASHIZU_MODES)
        check_int("num_games", self.num_games, 1, 1_000)
        check_int("max_raise", self.max_raise, 1, 100)
        object.__setattr__(self, "washizu_cards", _normalize_washizu_cards(self.washizu, self.washizu_cards))


def _normalize_washizu_cards(mode: str, value: Any) -> tuple[int, ...] | None:
    """The fixed Washizu set as sorted standard ids, or None (drawn per episode)."""
    if value is None:
        return None
    if mode not in ("suit", "random13"):
        raise ConfigError(f"washizu_cards={value!r} is only allowed with washizu='suit' or 'random13', not {mode!r}")
    if mode == "suit" and isinstance(value, str) and value.strip() in SUIT_CHARS and len(value.strip()) == 1:
        suit = SUIT_CHARS.index(value.strip())
        return tuple(r * NUM_SUITS + suit for r in range(13))
    try:
        cards = parse_cards(value)
    except ValueError as err:
        raise ConfigError(f"washizu_cards: {err}") from None
    if len(cards) != 13 or len(set(cards)) != 13 or any(c >= 52 for c in cards):
        raise ConfigError(
            f"washizu_cards={value!r} must be 13 distinct standard cards (2c..As, no '*' copies, no jokers)"
        )
    if mode == "suit" and len({suit_of(c) for c in cards}) != 1:
        raise ConfigError(
            f"washizu_cards={format_cards(sorted(cards))!r} must be the 13 cards of one suit for washizu='suit' "
            f"(or a suit letter: {', '.join(SUIT_CHARS)})"
        )
    return tuple(sorted(cards))
