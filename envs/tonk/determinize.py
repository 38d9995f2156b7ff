"""Determinizing a Tonk state for one seat (``State.determinize``): hidden cards resampled.

What a seat knows of another hand: its size, the cards that seat took from the
discard pile and still holds, and the spade it showed for the side pot while it
still holds it. Everything else in the other hands and the stock is unknown.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from parlor.envs.engine.melds import cards_of, mask_count
from parlor.envs.tonk.view import LAY

if TYPE_CHECKING:  # state.py imports this module
    from parlor.envs.tonk.state import TonkState


def known_cards(state: TonkState, seat: int) -> int:
    """Cards of ``seat``'s hand that every other seat can name (public history)."""
    pinned = 0
    for c in state.taken[seat]:
        pinned |= 1 << c
    if state.shown[seat] >= 0:
        pinned |= 1 << state.shown[seat]
    return pinned & state.hands[seat]


def determinize_state(state: TonkState, player: int, rng: np.random.Generator) -> TonkState:
    """A copy in which the other hands' unknown cards and the stock are redealt at random.

    The unknown cards are pooled in sorted order and shuffled with ``rng``, so the
    result depends only on what ``player`` saw. Future hands are reshuffled from a
    generator seeded by ``rng`` (stacked future decks are not known to a player).
    Decision: the side pot's negative information (a joiner held no higher spade
    when dealt) is not enforced on the redeal.
    """
    new = state.clone()
    new.ended_hand = None  # the finished hand's stock order stayed hidden: a sample keeps none of it
    others = [q for q in range(state.n) if q != player]
    pinned = {q: known_cards(state, q) for q in others}
    pool = 0
    for q in others:
        pool |= state.hands[q] & ~pinned[q]
    for c in state.stock:
        pool |= 1 << c
    cards = cards_of(pool)
    order = rng.permutation(len(cards))
    cards = [cards[i] for i in order]
    at = 0
    for q in others:
        need = state.hands[q].bit_count() - pinned[q].bit_count()
        hand = pinned[q]
        for c in cards[at:at + need]:
            hand |= 1 << c
        at += need
        new.hands[q] = hand
        new.observer.hand(q, cards_of(hand))
        if not state.first_turn_done[q]:
            new.dealt_counts[q] = mask_count(hand)  # nobody can touch a hand before its first turn
    new.stock = cards[at:]
    new._resample_bookkeeping(rng)
    if state.phase == LAY and state.current_player != player:
        new._refresh_lay(state.current_player)
    return new
