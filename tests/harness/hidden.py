"""What a seat cannot see, per game: the one place the harness's no-leak test learns where
each game keeps its hidden cards (from the Information sections of docs/rules.md, not from
the games' own determinize code).

``hidden(env_name, state, p)`` says how many cards (tiles) each other seat holds that ``p``
cannot name (in hand, or among its discards) and the undealt cards in dealing order. The
test reads the other seats' views (what they hold) and ``undealt`` (what comes next) off
determinized worlds: where something is hidden, different generators must give different
worlds, so a ``determinize`` that hands back the true state fails.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from parlor.envs.testing import Hidden


def _other_seats(state: Any, p: int) -> list[int]:
    return [q for q in range(state.game.num_players) if q != p]


def _ofc(state: Any, p: int) -> Hidden:
    # §1.11: an opponent's pending cards and discards, FL boards of others before the showdown
    counts = []
    for q in _other_seats(state, p):
        k = len(state.discards[q])
        if q == state.current_player:
            k += len(state.pending) - state.pend_pos
        if state.in_fl[q] and not state.terminal:
            k += sum(len(row) for row in state.rows[q])
        counts.append(k)
    return Hidden(tuple(counts), tuple(state.stock[state.stock_pos:]))


def _buffalo_bill(state: Any, p: int) -> Hidden:
    # §2.9: everything is public except the order of the stock
    return Hidden((0,) * (state.game.num_players - 1), tuple(state.stock))


def _washizu(state: Any, p: int) -> Hidden:
    # §3.9: an opponent's ordinary (non-Washizu) cards, anyone's discards but one's own
    is_w = state.is_w
    counts = tuple(sum(1 for c in state.hands[q] + state.discarded[q] if not is_w[c])
                   for q in _other_seats(state, p))
    return Hidden(counts, tuple(state.stock))


def _dominoes(state: Any, p: int) -> Hidden:
    # §4.5: the other hands and the undealt tiles
    deal = state.deal
    return Hidden(tuple(deal.counts[q] if deal.active[q] else 0 for q in _other_seats(state, p)),
                  tuple(deal.stock))


def _tonk(state: Any, p: int) -> Hidden:
    # §5.12: the other hands but the cards taken from the pile and a shown spade, the stock
    view = state.view(p)
    counts = []
    for q in _other_seats(state, p):
        named = set(view.taken_from_discard[q]) | {view.side_pot_shown[q]}
        held = [c for c in range(52) if state.hands[q] >> c & 1]
        counts.append(sum(1 for c in held if c not in named))
    return Hidden(tuple(counts), tuple(state.stock))


def _kuhn(state: Any, p: int) -> Hidden:
    # the other card is hidden until a showdown; the third card is never dealt (nor stored)
    shown = state.view(p).showdown_cards is not None
    return Hidden((0 if shown else 1,), (), 0 if shown else 1)


HIDDEN: dict[str, Callable[[Any, int], Hidden]] = {
    "kuhn_test": _kuhn,
    "ofc_v0": _ofc,
    "buffalo_bill_v0": _buffalo_bill,
    "washizu_poker_v0": _washizu,
    "buki_v0": _dominoes,
    "pulle_v0": _dominoes,
    "austrian_dominoes_v0": _dominoes,
    "tonk_v0": _tonk,
}


def hidden(env_name: str, state: Any, p: int) -> Hidden:
    try:
        return HIDDEN[env_name](state, p)
    except KeyError:
        raise KeyError(f"tests/harness/hidden.py does not say where {env_name} hides its cards: add it to HIDDEN") \
            from None
