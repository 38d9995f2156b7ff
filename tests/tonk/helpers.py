"""Scripted Tonk hands: stacked decks and turns written in words."""
from __future__ import annotations

import numpy as np

from parlor.envs.engine.cards import parse_card, parse_cards
from parlor.envs.engine.melds import spread_id
from parlor.envs.tonk.encode import (
    DECLARE_49,
    DISCARD_BASE,
    DRAW_STOCK,
    DROP,
    END_LAYING,
    LAY_BASE,
    SIDE_JOIN,
    SIDE_PASS,
    TAKE_DISCARD,
    hit_action,
)
from parlor.envs.tonk.game import make_game


def deck(*hands: str, start: str = "", stock: str = "") -> tuple[int, ...]:
    """A full deck: the hands in dealing order, the start card, the stock top first;
    the remaining cards follow in id order (the bottom of the stock)."""
    cards: list[int] = []
    for text in (*hands, start, stock):
        cards += parse_cards(text)
    used = set(cards)
    assert len(used) == len(cards), "a scripted card appears twice"
    return tuple(cards + [c for c in range(52) if c not in used])


def new(hands, start="", stock="", **options):
    """A state of ``make_game(**options)`` dealt from a scripted deck."""
    game = make_game(**options)
    state = game.new_state(np.random.default_rng(0), [game.parse_deck(deck(*hands, start=start, stock=stock))])
    return game, state


def lay(text: str) -> int:
    sid = spread_id(parse_cards(text))
    assert sid is not None, f"{text} is no spread"
    return LAY_BASE + sid


def hit(card: str, slot: int) -> int:
    return hit_action(parse_card(card), slot)


def discard(card: str) -> int:
    return DISCARD_BASE + parse_card(card)


def turn(state, *, take: bool = False, plays=(), throw: str | None = None) -> None:
    """One ordinary turn: draw (stock, or the pile with ``take``), lay/hit ``plays``,
    then end laying and discard ``throw`` (skipped when the hand ended first)."""
    state.apply(TAKE_DISCARD if take else DRAW_STOCK)
    for a in plays:
        state.apply(a)
    if throw is not None:
        state.apply(END_LAYING)
        state.apply(discard(throw))


def total(state) -> np.ndarray:
    return state.take_rewards()


__all__ = ["DECLARE_49", "DROP", "DRAW_STOCK", "END_LAYING", "SIDE_JOIN", "SIDE_PASS", "TAKE_DISCARD",
           "deck", "new", "lay", "hit", "discard", "turn", "total"]
