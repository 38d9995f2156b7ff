"""Resampling what one seat cannot see (``State.determinize``).

Seat ``p`` knows: his hand and his discards; every Washizu card in a hand (and
so every Washizu discard, and which Washizu cards a seat drew); how many cards
each seat drew; whether and when the stock ran out (a reshuffle is public).
Hidden: the other seats' ordinary cards, their ordinary discards, the stock order.

How the cards moved, and so what a consistent world must keep: the deal hands
out cards and leaves the old stock. Seats drawing before a reshuffle discard
dealt cards and draw from the old stock, which the reshuffle finds empty: the
new stock is exactly their discards (the reshuffling seat's own discards join
the pile after his draw, docs/rules.md §3.5), so now every card of the stock,
and every card a seat drew from the new stock, is one of them. Seats drawing
after the reshuffle discard dealt cards into the pile.

The hidden cards are pooled in sorted order and permuted with ``rng``, then dealt
greedily into slots whose constraints make the world possible:

* ordinary hand cards and ordinary discards of other seats are never Washizu
  (a Washizu card would have been seen);
* if ``p`` drew before a reshuffle, his discards went into the new stock: they
  are in the stock or among the cards later seats drew from it, never in the
  pile and never among dealt or old-stock cards of a hand;
* the ordinary discards of the seats that drew before the reshuffle are the
  ordinary cards of the new stock: the stock now plus everything drawn from it
  (including every card ``p`` drew from it), less ``p``'s own discards.

Slots that must not hold ``p``'s reshuffled discards are filled first; the true
world shows that enough cards of each kind exist, so the greedy fill always
succeeds. The result depends only on what ``p`` saw and on ``rng``. Once the
match is over nothing is resampled: no move is left to choose, and the hands of
its last showdown are public (``last_result``).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from parlor.envs.washizu_poker.deck import full_deck
from parlor.envs.washizu_poker.match import OVER
from parlor.envs.washizu_poker.state import sort_hand

if TYPE_CHECKING:
    from parlor.envs.washizu_poker.state import WashizuState


def _take(perm: list[int], count: int, allowed: Callable[[int], bool]) -> list[int]:
    """Remove and return the first ``count`` cards of ``perm`` satisfying ``allowed``."""
    out: list[int] = []
    keep: list[int] = []
    for c in perm:
        if len(out) < count and allowed(c):
            out.append(c)
        else:
            keep.append(c)
    if len(out) < count:
        raise AssertionError("determinize: no consistent card left (inconsistent state)")
    perm[:] = keep
    return out


def old_stock_draws(state: WashizuState, q: int) -> int:
    """How many of seat ``q``'s drawn cards (``drawn_cards[q]``, in drawing order) came
    from the stock before a reshuffle; the rest came from the new stock."""
    s, turn = state.reshuffle_turn, state.draw_turn[q]
    if s < 0 or turn < s:
        return len(state.drawn_cards[q])
    return state.reshuffle_taken if turn == s else 0


def determinize(state: WashizuState, p: int, rng: np.random.Generator) -> WashizuState:
    new = state.clone()
    new._resample_bookkeeping(rng)  # stacked decks (deck order) are unknown to p; later games shuffle from rng
    new.ended_game = None  # the previous game's unshown hands are the real ones: a sample keeps none
    if state.phase == OVER:
        return new
    is_w = state.is_w
    n = state.game.num_players
    s = state.reshuffle_turn
    others = [q for q in range(n) if q != p]
    drew = [state.draw_turn[q] >= 0 for q in range(n)]
    # seats whose discards are in the pile (all that drew, or those from the reshuffle on)
    pile_owner = [q for q in state.order if drew[q] and (s < 0 or state.draw_turn[q] >= s)]
    # p's discards went into the new stock iff p drew before the reshuffle
    lost = set(state.discarded[p]) if drew[p] and 0 <= s and state.draw_turn[p] < s else set()
    split = [old_stock_draws(state, q) for q in range(n)]
    # ordinary cards each other seat drew from the new stock (which of its hidden cards: hidden)
    new_draws = [sum(1 for c in state.drawn_cards[q][split[q]:] if not is_w[c]) for q in range(n)]

    known = set(state.hands[p])
    for q in range(n):
        known.update(c for c in state.hands[q] if is_w[c])
    for q in pile_owner:
        known.update(c for c in state.discarded[q] if q == p or is_w[c])
    pool = sorted(c for c in full_deck(state.game.config) if c not in known)
    perm = [pool[i] for i in rng.permutation(len(pool))]

    ordinary = lambda c: not is_w[c]  # noqa: E731
    not_lost = lambda c: not is_w[c] and c not in lost  # noqa: E731
    # (a) slots that cannot hold p's reshuffled discards: ordinary discards in the pile, and
    # the dealt or old-stock ordinary cards of every hidden hand
    new_disc = {q: list(state.discarded[q]) for q in range(n)}
    for q in pile_owner:
        if q != p:
            slots = [i for i, c in enumerate(new_disc[q]) if not is_w[c]]
            for i, c in zip(slots, _take(perm, len(slots), not_lost)):
                new_disc[q][i] = c
    hidden = [sum(1 for c in state.hands[q] if not is_w[c]) for q in range(n)]
    old_part = {q: _take(perm, hidden[q] - new_draws[q], not_lost) for q in others}
    # (b) the ordinary cards drawn from the new stock, then (c) the stock: everything left
    new_part = {q: _take(perm, new_draws[q], ordinary) for q in others}
    new.stock = perm
    new.pile = [c for q in pile_owner for c in new_disc[q]]
    new.hands = [list(h) if q == p else sort_hand([c for c in h if is_w[c]] + old_part[q] + new_part[q])
                 for q, h in enumerate(state.hands)]
    # (d) the ordinary discards of the seats that drew before the reshuffle: the new stock's
    # ordinary cards (the stock now and every card drawn from it), less p's own discards
    if s >= 0:
        places = [(q, i) for q in others if drew[q] and state.draw_turn[q] < s
                  for i, c in enumerate(state.discarded[q]) if not is_w[c]]
        came_back = [c for q in others for c in new_part[q]] + state.drawn_cards[p][split[p]:]
        refill = sorted(c for c in perm + came_back if not is_w[c] and c not in lost)
        if len(refill) != len(places):
            raise AssertionError("determinize: the new stock does not match the discards before the reshuffle")
        for (q, i), j in zip(places, rng.permutation(len(places))):
            new_disc[q][i] = refill[j]
    new.discarded = [new_disc[q] for q in range(n)]
    # (e) drawn-card records of the other seats: known Washizu draws stay; ordinary draws from
    # the old stock come from the hand's old part, those from the new stock from its new part
    for q in others:
        if drew[q]:
            old = [old_part[q][i] for i in rng.permutation(len(old_part[q]))]
            fresh = [new_part[q][i] for i in rng.permutation(len(new_part[q]))]
            new.drawn_cards[q] = [c if is_w[c] else (old if k < split[q] else fresh).pop()
                                  for k, c in enumerate(state.drawn_cards[q])]
    new.observer.rebuild(new)
    return new
