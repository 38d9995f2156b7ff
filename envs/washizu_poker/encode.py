"""Observation vector of a Washizu poker View, and action id <-> words.

Layout (``n`` = num_players; seats are relative: index 0 = the observer, k = the
k-th seat clockwise from him). Every entry lies in [0, 1]; chip amounts are
divided by the chips at the start of the match (``n * starting_chips``).

| slice            | size       | meaning                                                        |
|------------------|------------|----------------------------------------------------------------|
| ``hand``         | 5 x 19     | per hand position: rank one-hot (13, 2..A), suit one-hot (4, c d h s), joker, is Washizu |
| ``washizu_set``  | 52         | which cards (standard id rank*4+suit) are Washizu this episode |
| ``visible``      | (n-1) x 52 | Washizu cards seen in each other seat's hand                   |
| ``left_view``    | 52         | Washizu cards discarded this game (left view)                  |
| ``my_discards``  | 53         | own discards this game: count/2 per standard id, jokers count/2 |
| ``seats``        | n x 7      | per seat: in match, in this game, has drawn, cards drawn/5, stack, bet, is dealer |
| ``table``        | 8          | pot, level, level cap, game number/num_games, draw phase, betting phase, to call, my turn |

The incremental cache the state keeps for the fast ``observe`` is in
``observation_cache`` (it builds every part with this module's helpers).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from parlor.envs.engine.cards import BASE, JOKER_BASE, NUM_IDS, RANK, SUIT, format_cards
from parlor.envs.engine.layout import Layout as Pieces
from parlor.envs.washizu_poker.view import WashizuView

SLOT = 19
SEAT = 7
TABLE = 8
ACTION_WORDS_DROP, ACTION_WORDS_CALL = "drop", "call"


def base_card_features() -> np.ndarray:
    """float32[NUM_IDS, 19] per card id, Washizu column left zero (set per episode)."""
    feat = np.zeros((NUM_IDS, SLOT), dtype=np.float32)
    for c in range(NUM_IDS):
        if c >= JOKER_BASE:
            feat[c, 17] = 1.0
        else:
            feat[c, RANK[c]] = 1.0
            feat[c, 13 + SUIT[c]] = 1.0
    return feat


BASE_FEATURES = base_card_features()
BASE_ID = BASE.tolist()  # python ints: faster than numpy scalars in loops


def card_features(washizu_ids: Iterable[int]) -> np.ndarray:
    feat = BASE_FEATURES.copy()
    feat[list(washizu_ids), 18] = 1.0
    return feat


class Layout(Pieces):
    """The observation of ``num_players`` seats as named pieces (the table above)."""

    __slots__ = ("num_players",)

    def __init__(self, num_players: int):
        n = num_players
        super().__init__([("hand", 5 * SLOT), ("washizu_set", 52), ("visible", (n - 1) * 52), ("left_view", 52),
                          ("my_discards", 53), ("seats", n * SEAT), ("table", TABLE)])
        self.num_players = n


def hand_features(feat: np.ndarray, hand: Sequence[int]) -> np.ndarray:
    out = np.zeros(5 * SLOT, dtype=np.float32)
    if len(hand):
        out[: SLOT * len(hand)] = feat[list(hand)].ravel()
    return out


def left_features(left_view: Iterable[int]) -> np.ndarray:
    out = np.zeros(52, dtype=np.float32)
    for c in left_view:
        out[BASE_ID[c]] = 1.0
    return out


def discard_features(discards: Iterable[int]) -> np.ndarray:
    out = np.zeros(53, dtype=np.float32)
    for c in discards:
        out[52 if c >= JOKER_BASE else BASE_ID[c]] += 0.5
    return out


# the entries of ``seat_row`` and ``table_features`` that a rule event changes alone (``observer.py``)
S_IN, S_DREW, S_DRAWN, S_STACK, S_BET = 1, 2, 3, 4, 5
T_POT, T_LEVEL, T_CAP, T_DRAW, T_BET, T_CALL, T_TURN = 0, 1, 2, 4, 5, 6, 7


def seat_row(alive: bool, in_hand: bool, drawn: int, stack: int, bet: int, dealer: bool, total: float) -> tuple[float, ...]:
    return (float(alive), float(in_hand), float(drawn >= 0), max(drawn, 0) / 5.0, stack / total, bet / total,
            float(dealer))


def table_features(pot: int, level: int, cap: int, game_number: int, num_games: int, phase: str,
                   to_call: int, my_turn: bool, total: float) -> list[float]:
    return [pot / total, level / total, cap / total, game_number / num_games, float(phase == "draw"),
            float(phase == "bet"), to_call / total, float(my_turn)]


def assemble(hand: np.ndarray, wset: np.ndarray, vis_rows: np.ndarray, left: np.ndarray, disc: np.ndarray,
             seats: np.ndarray, table: list[float]) -> np.ndarray:
    """The observation from its parts (a row of ``ObsParts.rows`` holds the same layout)."""
    return np.concatenate((hand, wset, vis_rows.ravel(), left, disc, seats.ravel(),
                           np.array(table, dtype=np.float32)))


def encode_view(view: WashizuView) -> np.ndarray:
    n = view.num_players
    p = view.player
    total = float(view.total_chips)
    rel = [(p + k) % n for k in range(n)]
    wset = np.zeros(52, dtype=np.float32)
    wset[[BASE_ID[c] for c in view.washizu]] = 1.0
    vis = np.zeros((n, 52), dtype=np.float32)
    for s in range(n):
        for c in view.visible[s]:
            vis[s, BASE_ID[c]] = 1.0
    seats = np.array([seat_row(view.alive[s], view.in_hand[s], view.drawn[s], view.stacks[s], view.bets[s],
                               s == view.dealer, total) for s in rel], dtype=np.float32)
    table = table_features(view.pot, view.level, view.cap, view.game_number, view.num_games, view.phase,
                           view.to_call, view.current_player == p, total)
    return assemble(hand_features(card_features(view.washizu), view.hand), wset, vis[rel[1:]],
                    left_features(view.left_view), discard_features(view.my_discards), seats, table)


def action_name(action: int, max_raise: int) -> str:
    a = int(action)
    if 0 <= a < 32:
        if a == 0:
            return "stand pat (draw 0)"
        pos = [str(i) for i in range(5) if a >> i & 1]
        return f"discard position{'s' if len(pos) > 1 else ''} {','.join(pos)} and draw {len(pos)}"
    if a == 32:
        return ACTION_WORDS_DROP
    if a == 33:
        return ACTION_WORDS_CALL
    if 33 < a <= 33 + max_raise:
        return f"raise by {a - 33}"
    raise ValueError(f"action {a} out of range 0..{33 + max_raise}")


def discard_action(hand: Sequence[int], cards: Iterable[int]) -> int:
    """The action id that discards ``cards`` (ids) from ``hand`` (canonical order)."""
    want = list(cards)
    a = 0
    for i, c in enumerate(hand):
        if c in want:
            want.remove(c)
            a |= 1 << i
    if want:
        raise ValueError(f"cards {format_cards(want, symbols=True)} are not in the hand {format_cards(hand, symbols=True)}")
    return a
