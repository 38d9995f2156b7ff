"""What one Tonk player knows: the View dataclasses and the action id table.

The view is the single source of a seat's knowledge (``encode``, ``render``
and the heuristic read it). Hidden information (other hands, the stock order,
future deals) never enters it.

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
"""
from __future__ import annotations

from dataclasses import dataclass

from parlor.envs.engine.cards import format_card
from parlor.envs.engine.melds import NUM_SPREADS, SPREADS

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

PHASES = ("side_pot", "start", "lay", "discard", "over")
SIDE, START, LAY, DISCARD, OVER = range(5)


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
        return f"lay {s.kind} " + " ".join(format_card(c) for c in s.cards)
    if HIT_BASE <= a < DISCARD_BASE:
        c, slot = divmod(a - HIT_BASE, MAX_SLOTS)
        return f"hit {format_card(c)} on spread {slot}"
    if DISCARD_BASE <= a < END_LAYING:
        return f"discard {format_card(a - DISCARD_BASE)}"
    if a == END_LAYING:
        return "end laying"
    if a == SIDE_JOIN:
        return "join the spades side pot"
    if a == SIDE_PASS:
        return "pass the spades side pot"
    if a == DECLARE_49:
        return "declare a natural"
    raise ValueError(f"action {a} out of range 0..{NUM_ACTIONS - 1}")


@dataclass(frozen=True, slots=True)
class TableSpread:
    """A spread on the table: its slot (the order it was laid in this hand) and owner."""

    slot: int
    owner: int
    kind: str
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a finished hand ended, shown to everyone (hands are shown at the end)."""

    hand_index: int
    reason: str  # tonk, out, drop_won, drop_caught, drop_tie, stock_out, natural, draw_*, truncated
    winners: tuple[int, ...]
    counts: tuple[int, ...]
    payments: tuple[int, ...]  # stakes won (+) / paid (-) per seat this hand, side pot included


@dataclass(frozen=True, slots=True)
class TonkView:
    player: int
    num_players: int
    hand_index: int
    num_hands: int
    dealer: int
    current_player: int | None
    phase: str
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    stock_size: int
    discard_pile: tuple[int, ...]  # bottom .. top
    discard_history: tuple[tuple[int, int], ...]  # (seat, card) in order; seat -1 = the turned start card
    taken_from_discard: tuple[tuple[int, ...], ...]  # per seat, cards taken from the pile this hand
    spreads: tuple[TableSpread, ...]  # live spreads, by slot
    out_of_play: tuple[int, ...]  # sets hit up to four cards that left the table
    drop_blocked: tuple[int, ...]  # turns each seat may not drop (hit_blocks_drop)
    stakes: tuple[int, ...]  # stakes won so far this episode (units of the stake)
    turn: int  # turns started in this hand
    side_pot_joined: tuple[bool | None, ...]  # None: not asked (yet) or no side pot
    side_pot_shown: tuple[int, ...]  # the spade each joiner showed; -1 none / not joined
    last_result: HandResult | None

    @property
    def top_discard(self) -> int | None:
        return self.discard_pile[-1] if self.discard_pile else None
