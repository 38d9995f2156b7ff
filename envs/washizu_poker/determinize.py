"""Resampling what one seat cannot see (``State.determinize``).

Seat ``p`` knows: his hand and his discards; every Washizu card in a hand (and
so every Washizu discard); how many cards each seat drew; whether the stock ran
out (a reshuffle is public). Hidden: the other seats' ordinary cards, their
ordinary discards, the stock order.

The hidden cards are pooled in sorted order and permuted with ``rng``, then dealt
greedily into slots whose constraints make the world possible:

* ordinary hand cards and ordinary discards of other seats are never Washizu
  (a Washizu card would have been seen);
* if the stock ran out after ``p`` discarded, ``p``'s discards went into the new
  stock: only seats that drew after the reshuffle can hold them, and no discard
  still in the pile can be one of them (a seat discards only dealt cards);
* the discards of seats that drew before the reshuffle are now in the stock or
  in the hands of later drawers, and include every card ``p`` drew from the new
  stock.

Filling the most constrained slots first always succeeds (the true world shows
that enough cards of each kind exist). The result depends only on what ``p``
saw and on ``rng``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from parlor.envs.engine.trace import Trace
from parlor.envs.washizu_poker.deck import full_deck
from parlor.envs.washizu_poker.state import OVER, sort_hand

if TYPE_CHECKING:
    from parlor.envs.washizu_poker.state import WashizuState


def _take(perm: list[int], count: int, allowed) -> list[int]:
    """Remove and return the first ``count`` cards of ``perm`` satisfying ``allowed``."""
    out, keep = [], []
    for c in perm:
        if len(out) < count and allowed(c):
            out.append(c)
        else:
            keep.append(c)
    if len(out) < count:
        raise AssertionError("determinize: no consistent card left (inconsistent state)")
    perm[:] = keep
    return out


def determinize(state: WashizuState, p: int, rng: np.random.Generator) -> WashizuState:
    new = state.clone()
    new.rng = np.random.default_rng(int(rng.integers(2**63)))
    new.decks = []  # stacked decks (deck order) are unknown to p; later games shuffle from rng
    new.trace = Trace.resampled()
    if state.phase == OVER:
        new._rebuild_obs()
    return new
    is_w = state.is_w
    n = state.game.num_players
    s = state.reshuffle_turn
    p_turn = state.draw_turn[p]
    after_shuffle = [q != p and state.draw_turn[q] >= 0 and 0 <= s <= state.draw_turn[q] for q in range(n)]
    before_shuffle = [q != p and 0 <= state.draw_turn[q] and (s < 0 or state.draw_turn[q] < s) for q in range(n)]
    # p's discards went into the new stock iff p drew before the reshuffle
    lost = set(state.discarded[p]) if 0 <= p_turn and 0 <= s and p_turn < s else set()
    if 0 <= s and p_turn > s:
        from_new_stock = state.drawn_cards[p]
    elif 0 <= s and p_turn == s:
        from_new_stock = state.drawn_cards[p][state.reshuffle_taken:]
    else:
        from_new_stock = []
    pile_owner = [q for q in state.order if state.draw_turn[q] >= 0 and (s < 0 or state.draw_turn[q] >= s)]

    known = set(state.hands[p])
    for q in range(n):
        known.update(c for c in state.hands[q] if is_w[c])
    for q in pile_owner:
        known.update(c for c in state.discarded[q] if q == p or is_w[c])
    pool = sorted(c for c in full_deck(state.game.config) if c not in known)
    perm = [pool[i] for i in rng.permutation(len(pool))]

    ordinary = lambda c: not is_w[c]  # noqa: E731
    not_lost = lambda c: not is_w[c] and c not in lost  # noqa: E731
    # (a) ordinary discards still in the pile (their owners drew after any reshuffle)
    new_disc = {q: list(state.discarded[q]) for q in range(n)}
    for q in pile_owner:
        if q != p:
            slots = [i for i, c in enumerate(new_disc[q]) if not is_w[c]]
            for i, c in zip(slots, _take(perm, len(slots), not_lost)):
                new_disc[q][i] = c
    # (b) hidden hand cards of seats that cannot hold p's reshuffled discards, then (c) the others
    new_hands = [list(h) for h in state.hands]
    for flexible in (False, True):
        for q in range(n):
            if q == p or not state.hands[q] or after_shuffle[q] != flexible:
                continue
            hidden = sum(1 for c in state.hands[q] if not is_w[c])
            fill = _take(perm, hidden, ordinary if flexible else not_lost)
            new_hands[q] = sort_hand([c for c in state.hands[q] if is_w[c]] + fill)
    # (d) the stock: everything left, in random order
    new.stock = perm
    new.pile = [c for q in pile_owner for c in new_disc[q]]
    new.hands = new_hands
    # (e) records of discards that went into the new stock (owners drew before the reshuffle)
    if s >= 0:
        slots = [(q, i) for q in range(n) if before_shuffle[q] for i, c in enumerate(state.discarded[q]) if not is_w[c]]
        must = [c for c in from_new_stock if not is_w[c]]
        in_reach = set(perm) | {c for q in range(n) if after_shuffle[q] for c in new_hands[q]}
        extra = [c for c in sorted(in_reach) if not is_w[c] and c not in lost]
        chosen = must + [extra[i] for i in rng.permutation(len(extra))[: len(slots) - len(must)]]
        for (q, i), j in zip(slots, rng.permutation(len(slots))):
            new_disc[q][i] = chosen[j]
    new.discarded = [new_disc[q] for q in range(n)]
    # drawn-card records of the other seats: known Washizu draws stay, the rest come from the hidden hand
    for q in range(n):
        if q == p or state.draw_turn[q] < 0:
            continue
        old = state.drawn_cards[q]
        candidates = [c for c in new_hands[q] if not is_w[c]]
        picks = [candidates[i] for i in rng.permutation(len(candidates))]
        new.drawn_cards[q] = [c if is_w[c] else picks.pop() for c in old]
    new._rebuild_obs()
    return new
