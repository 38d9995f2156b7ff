"""Tonk action ids <-> words, and the observation vector: View -> float32, and its layout.

Action ids (one flat ``Discrete(NUM_ACTIONS)``):

| ids            | action                                                      |
|----------------|-------------------------------------------------------------|
| 0              | drop (start of turn, before drawing)                        |
| 1              | draw the top card of the stock                              |
| 2              | take the top card of the discard pile                       |
| 3..371         | lay spread ``a - 3`` (``envs.engine.melds.SPREADS``)        |
| 372..1255      | hit: card ``(a - 372) // 17`` on table slot ``(a - 372) % 17`` |
| 1256..1307     | discard card ``a - 1256``                                   |
| 1308           | end laying (go to the discard)                              |
| 1309, 1310     | side pot: join / pass                                       |
| 1311           | declare a natural: forced for a dealt instant win; optional for a dealt 49 at the start of one's first turn (``natural="50_auto_49_turn"``) |

Observation: seats are relative to the observer (block 0 is the observer, then
clockwise). All entries lie in [-1, 1].

| slice (n players)                     | meaning                                           |
|---------------------------------------|---------------------------------------------------|
| ``[0:52]``                            | own hand                                          |
| ``[52:104]``                          | top card of the discard pile                      |
| ``[104:156]``                         | cards in the discard pile                         |
| ``[156:208]``                         | cards out of play (sets hit up to four)           |
| ``[208:1092]``                        | table slot ``k`` (0..16) holds card ``c``: ``208 + 52k + c`` |
| ``[1092:1092+17n]``                   | owner of slot ``k``, relative seat one-hot: ``1092 + nk + r`` |
| then ``n`` blocks of 124, per relative seat | 0:52 cards it discarded; 52:104 cards it took from the pile; 104 hand size / 10; 105 drop-blocked turns / 52; 106 drop blocked now; 107 stakes won / (4 (n-1) num_hands); 108 dealer; 109 to act; 110 joined the side pot; 111:124 rank of the spade shown |
| last 7                                | stock size / 52; turns this hand / max_turns; hand index / num_hands; phase one-hot (side pot, start, lay, discard) |

``observe(state, p)`` (the adapter's fast path) assembles the same vector
from buffers the state keeps up to date; ``encode(view)`` is the reference.
"""
from __future__ import annotations

import numpy as np

from parlor.envs.engine.cards import format_card
from parlor.envs.engine.layout import Layout
from parlor.envs.engine.melds import NUM_SPREADS, SPREADS
from parlor.envs.tonk.view import PHASES, TonkView

DROP, DRAW_STOCK, TAKE_DISCARD = 0, 1, 2
LAY_BASE = 3
MAX_SLOTS = 17  # every spread keeps >= 3 distinct cards for the hand: at most 52 // 3 spreads
HIT_BASE = LAY_BASE + NUM_SPREADS
DISCARD_BASE = HIT_BASE + 52 * MAX_SLOTS
END_LAYING = DISCARD_BASE + 52
SIDE_JOIN = END_LAYING + 1
SIDE_PASS = SIDE_JOIN + 1
DECLARE_49 = SIDE_PASS + 1
NUM_ACTIONS = DECLARE_49 + 1

# the observation's pieces (engine.layout): the shared card block, one block per seat, the tail
CARDS = Layout([("top", 52), ("pile", 52), ("out", 52), ("slots", 52 * MAX_SLOTS)])
SEAT = Layout([("discarded", 52), ("taken", 52), ("hand_size", 1), ("blocked", 1), ("block_flag", 1),
               ("stakes", 1), ("dealer", 1), ("to_act", 1), ("joined", 1), ("spade_rank", 13)])
TAIL = Layout([("stock", 1), ("turn", 1), ("hand", 1), ("phase", 4)])
TOP, PILE, OUT, SLOTS = (CARDS.start(name) for name in CARDS)
S_DISC, S_TAKEN, S_SIZE, S_BLOCKED, S_BLOCK_FLAG, S_STAKES, S_DEALER, S_TO_ACT, S_JOINED, S_SPADE = (
    SEAT.start(name) for name in SEAT)
T_STOCK, T_TURN, T_HAND, T_PHASE = (TAIL.start(name) for name in TAIL)
CARDS_W, SEAT_W, TAIL_W = CARDS.size, SEAT.size, TAIL.size
HAND_SCALE, BLOCK_SCALE, STOCK_SCALE = 10.0, 52.0, 52.0


def hit_action(c: int, slot: int) -> int:
    return HIT_BASE + c * MAX_SLOTS + slot


def action_name(a: int) -> str:
    """Words for an action id; ValueError outside ``0..NUM_ACTIONS-1``."""
    a = int(a)
    if a == DROP:
        return "drop"
    if a == DRAW_STOCK:
        return "draw from stock"
    if a == TAKE_DISCARD:
        return "take the discard"
    if LAY_BASE <= a < HIT_BASE:
        s = SPREADS[a - LAY_BASE]
        return f"lay {s.kind} " + " ".join(format_card(c, symbols=True) for c in s.cards)
    if HIT_BASE <= a < DISCARD_BASE:
        c, slot = divmod(a - HIT_BASE, MAX_SLOTS)
        return f"hit {format_card(c, symbols=True)} on spread {slot}"
    if DISCARD_BASE <= a < END_LAYING:
        return f"discard {format_card(a - DISCARD_BASE, symbols=True)}"
    if a == END_LAYING:
        return "end laying"
    if a == SIDE_JOIN:
        return "join the spades side pot"
    if a == SIDE_PASS:
        return "pass the spades side pot"
    if a == DECLARE_49:
        return "declare a natural"
    raise ValueError(f"action {a} out of range 0..{NUM_ACTIONS - 1}")


def observation_layout(n: int) -> Layout:
    """One seat's observation of ``n`` seats (seats relative to the observer)."""
    return Layout([("hand", 52), ("cards", CARDS_W), ("owners", MAX_SLOTS * n), ("seats", n * SEAT_W),
                   ("tail", TAIL_W)])


def buffer_layout(n: int) -> Layout:
    """The observer's flat buffer (absolute seats): every hand, then the rest as one seat sees it."""
    return Layout([("hands", 52 * n), ("cards", CARDS_W), ("owners", MAX_SLOTS * n), ("seats", n * SEAT_W),
                   ("tail", TAIL_W)])


def observation_size(n: int) -> int:
    return observation_layout(n).size


def stake_scale(n: int, num_hands: int) -> float:
    """Largest stake swing of an episode: a hand moves at most 4 (n-1) stakes per seat."""
    return 4.0 * (n - 1) * num_hands


def relative_orders(n: int) -> list[np.ndarray]:
    """``orders[p][r]`` = the absolute seat ``r`` places clockwise from ``p``."""
    return [(p + np.arange(n)) % n for p in range(n)]


def buffer_parts(n: int) -> tuple[int, int, int, int, int, int]:
    """Offsets of the observer's flat absolute-seat buffer: hands, cards, owners, seats, tail, end."""
    lay = buffer_layout(n)
    return (*(lay.start(name) for name in lay), lay.size)  # type: ignore[return-value]


def gather_indices(n: int) -> list[np.ndarray]:
    """Per observer ``p``: indices into the state's flat buffer that give ``encode``'s vector."""
    hands, cards, owners, seats, tail, end = buffer_parts(n)
    out = []
    for p, order in enumerate(relative_orders(n)):
        idx = [hands + 52 * p + np.arange(52), cards + np.arange(CARDS_W)]
        idx.append((owners + n * np.arange(MAX_SLOTS)[:, None] + order[None, :]).ravel())
        idx.append((seats + SEAT_W * order[:, None] + np.arange(SEAT_W)[None, :]).ravel())
        idx.append(tail + np.arange(TAIL_W))
        out.append(np.concatenate(idx).astype(np.intp))
    return out


def encode(view: TonkView, num_hands: int, max_turns: int) -> np.ndarray:
    n, me = view.num_players, view.player
    obs = np.zeros(observation_size(n), dtype=np.float32)
    obs[list(view.hand)] = 1.0
    cards = obs[52:52 + CARDS_W]
    if view.discard_pile:
        cards[TOP + view.discard_pile[-1]] = 1.0
        cards[PILE + np.array(view.discard_pile)] = 1.0
    cards[OUT + np.array(view.out_of_play, dtype=int)] = 1.0
    owners = obs[52 + CARDS_W:52 + CARDS_W + MAX_SLOTS * n].reshape(MAX_SLOTS, n)
    for sp in view.spreads:
        cards[SLOTS + 52 * sp.slot + np.array(sp.cards)] = 1.0
        owners[sp.slot, (sp.owner - me) % n] = 1.0
    base = 52 + CARDS_W + MAX_SLOTS * n
    seats = obs[base:base + n * SEAT_W].reshape(n, SEAT_W)
    scale = stake_scale(n, num_hands)
    for seat in range(n):
        row = seats[(seat - me) % n]
        row[S_TAKEN + np.array(view.taken_from_discard[seat], dtype=int)] = 1.0
        row[S_SIZE] = view.hand_sizes[seat] / HAND_SCALE
        row[S_BLOCKED] = view.drop_blocked[seat] / BLOCK_SCALE
        row[S_BLOCK_FLAG] = float(view.drop_blocked[seat] > 0)
        row[S_STAKES] = view.stakes[seat] / scale
        row[S_DEALER] = float(seat == view.dealer)
        row[S_TO_ACT] = float(seat == view.current_player)
        row[S_JOINED] = float(view.side_pot_joined[seat] is True)
        if view.side_pot_shown[seat] >= 0:
            row[S_SPADE + view.side_pot_shown[seat] // 4] = 1.0
    for seat, c in view.discard_history:
        if seat >= 0:
            seats[(seat - me) % n, S_DISC + c] = 1.0
    tail = obs[base + n * SEAT_W:]
    tail[T_STOCK] = view.stock_size / STOCK_SCALE
    tail[T_TURN] = view.turn / max_turns
    tail[T_HAND] = view.hand_index / num_hands
    phase = PHASES.index(view.phase)
    if phase < 4:
        tail[T_PHASE + phase] = 1.0
    return obs
