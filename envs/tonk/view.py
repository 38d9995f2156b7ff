"""What one Tonk player knows: the View dataclasses, and ``build_view`` that reads them off a State.

The view is the single source of a seat's knowledge (``encode``, ``render``
and the heuristic read it). Hidden information (other hands, the stock order,
future deals) never enters it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from parlor.envs.engine.melds import cards_of

if TYPE_CHECKING:  # state.py imports this module
    from parlor.envs.tonk.state import TonkState

PHASES = ("side_pot", "start", "lay", "discard", "over")
SIDE, START, LAY, DISCARD, OVER = range(5)


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
    ended_by: int | None = None  # the seat whose move ended the hand (the dropper, the one who went out)
    hands: tuple[tuple[int, ...], ...] = ()  # every seat's cards as they were counted (shown to all)


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


def build_view(state: TonkState, player: int) -> TonkView:
    n = state.n
    spreads = tuple(
        TableSpread(slot, state.slot_owner[slot], state.slot_kind[slot], tuple(cards_of(state.slot_mask[slot])))
        for slot in range(len(state.slot_owner)) if state.slot_live[slot]
    )
    return TonkView(
        player=player,
        num_players=n,
        hand_index=state.hand_index,
        num_hands=state.cfg.num_hands,
        dealer=state.dealer,
        current_player=state.current_player,
        phase=PHASES[state.phase],
        hand=tuple(cards_of(state.hands[player])),
        hand_sizes=tuple(h.bit_count() for h in state.hands),
        stock_size=len(state.stock),
        discard_pile=tuple(state.pile),
        discard_history=tuple(state.history),
        taken_from_discard=tuple(tuple(t) for t in state.taken),
        spreads=spreads,
        out_of_play=tuple(cards_of(state.out_of_play)),
        drop_blocked=tuple(state.blocked),
        stakes=tuple(state.stakes),
        turn=state.turn,
        side_pot_joined=tuple(state.joined),
        side_pot_shown=tuple(state.shown),
        last_result=state.last_result,
    )
