"""Scripted OFC hands: stacked decks built from the boards each seat should make.

A seat's *sequence* is the list of (card, destination) it receives in order;
``hand_script`` deals the sequences the way issue 3 fixes it (Fantasyland seats
first, then rounds of 5 and 1 / 3 cards from the start player) and returns the
deck and the actions in acting order. It is written independently of the
State so that the tests check the State's dealing order.
"""
from __future__ import annotations

import numpy as np

from parlor.envs.engine.cards import parse_cards
from parlor.envs.ofc.game import make_game
from parlor.envs.ofc.view import OFCView

DEST = {"t": 0, "m": 1, "b": 2, "x": 3}


def seq(top: str, mid: str, bot: str, discards: str = "") -> list[tuple[int, int]]:
    """A seat's cards in receiving order: top, middle, bottom cards; with
    ``discards`` (Pineapple), one discard after every 2 cards beyond the first 5."""
    board = [(c, 0) for c in parse_cards(top)] + [(c, 1) for c in parse_cards(mid)] + [(c, 2) for c in parse_cards(bot)]
    assert len(board) == 13
    out = board[:5]
    extra = [(c, 3) for c in parse_cards(discards)]
    rest = board[5:]
    if extra:
        assert len(extra) == 4
        for i in range(4):
            out += rest[2 * i:2 * i + 2] + [extra[i]]
    else:
        out += rest
    return out


def fl_seq(top: str, mid: str, bot: str, discards: str = "") -> list[tuple[int, int]]:
    """A Fantasyland seat's cards: the board then the discards (all dealt at once)."""
    return seq(top, mid, bot) + [(c, 3) for c in parse_cards(discards)]


def hand_script(seqs: dict[int, list[tuple[int, int]]], n: int, start: int = 0, variant: str = "original",
                fl: tuple[int, ...] = ()) -> tuple[tuple[int, ...], list[tuple[int, int]]]:
    """(full deck, [(seat, action), ...]) for one hand."""
    order = [(start + i) % n for i in range(n)]
    deck: list[int] = []
    actions: list[tuple[int, int]] = []
    for s in order:
        if s in fl:
            deck += [c for c, _ in seqs[s]]
            actions += [(s, d) for _, d in seqs[s]]
    turns = [5] + ([3] * 4 if variant == "pineapple" else [1] * 8)
    pos = dict.fromkeys(order, 0)
    for k in turns:
        for s in order:
            if s in fl:
                continue
            chunk = seqs[s][pos[s]:pos[s] + k]
            assert len(chunk) == k, f"seat {s} has too few scripted cards"
            pos[s] += k
            deck += [c for c, _ in chunk]
            actions += [(s, d) for _, d in chunk]
    assert len(set(deck)) == len(deck), "a scripted card appears twice"
    return tuple(deck + [c for c in range(52) if c not in deck]), actions


def run(state, actions: list[tuple[int, int]]) -> np.ndarray:
    """Apply scripted actions, checking whose turn it is; returns the rewards earned."""
    total = np.zeros(len(state.rows))
    for seat, action in actions:
        assert state.current_player == seat, f"expected seat {seat} to act, got {state.current_player}"
        state.apply(action)
        total += state.take_rewards()
        state.check_invariants()
    return total


def new_state(decks, **options):
    game = make_game(**options)
    return game, game.new_state(np.random.default_rng(0), [game.parse_deck(d) for d in decks])


# ---------------------------------------------------------------- boards used across the tests
# seat boards of one 2-4 player hand (all 52 cards distinct across the four)
WINNER = seq("Qs Qh 2c", "9c 9d 9h 4s 5s", "Ac Kc 8c 6c 3c")   # QQ top 7 + trips 2 + flush 4
LOSER = seq("2d 3d 4h", "Jc Jd 7h 8h Th", "Ts Js Qd Kd As")    # straight bottom 2
FOULER = seq("5d 6d 7c", "Kh Ks 8d 8s 3h", "Ah Ad 4c 6h 7s")   # two pair middle over a pair: fouled
OTHER_FOULER = seq("Tc Td 2h", "Qc Jh 9s 7d 5c", "2s 3s 4d 5h 6s")  # TT top over Q-high: fouled
# a plain board (no Fantasyland) for a later hand
PLAIN_B = seq("2d 3h 6c", "7c 7d 9c Tc Qd", "8s 8d 8c 4s 4d")   # full house bottom 6


def turn_view(own: tuple[str, str, str], opp: tuple[str, str, str], pending: str, discards: str = "") -> OFCView:
    """Seat 0's view of a Pineapple hand: its rows, the opponent's, the pending cards (one discard owed)."""
    rows = (tuple(tuple(parse_cards(r)) for r in own), tuple(tuple(parse_cards(r)) for r in opp))
    return OFCView(
        player=0, num_players=2, variant="pineapple", hand_index=0, num_hands=1, start_player=0,
        current_player=0, rows=rows, hidden=(False, False), pending=parse_cards(pending), discards_owed=1,
        discards=parse_cards(discards), fantasyland=(False, False), fl_dealt=(0, 0), scores=(0, 0),
        last_points=(0, 0), terminal=False,
    )
