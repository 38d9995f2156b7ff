"""Text rendering of a Tonk View (suit symbols ♣♦♥♠)."""
from __future__ import annotations

from parlor.envs.engine.cards import format_card
from parlor.envs.engine.melds import RUN, card_value
from parlor.envs.tonk.view import TonkView


def _cards(cards) -> str:
    return " ".join(format_card(c, symbols=True) for c in cards) or "-"


def _spread_order(kind: str, cards: tuple[int, ...]) -> list[int]:
    """Runs in playing order (an ace sits low below a 2, high above a K)."""
    if kind != RUN:
        return list(cards)
    ranks = {c // 4 for c in cards}
    ace_low = 12 in ranks and 0 in ranks
    return sorted(cards, key=lambda c: -1 if (ace_low and c // 4 == 12) else c // 4)


def render_view(view: TonkView) -> str:
    n = view.num_players
    count = sum(card_value(c) for c in view.hand)
    turn = "-" if view.current_player is None else f"player_{view.current_player}"
    lines = [
        f"Tonk hand {min(view.hand_index + 1, view.num_hands)}/{view.num_hands}  dealer player_{view.dealer}"
        f"  to act: {turn}  phase: {view.phase}  turn {view.turn}",
        f"player_{view.player} hand: {_cards(view.hand)}  (count {count})",
        f"discard pile top: {_cards([view.top_discard] if view.top_discard is not None else [])}"
        f"  ({len(view.discard_pile)} cards)   stock: {view.stock_size}",
    ]
    for seat in range(n):
        parts = [f"  player_{seat}: {view.hand_sizes[seat]} cards, stakes {view.stakes[seat]:+d}"]
        if view.drop_blocked[seat]:
            parts.append(f"no drop for {view.drop_blocked[seat]} turn(s)")
        if view.taken_from_discard[seat]:
            parts.append(f"took {_cards(view.taken_from_discard[seat])}")
        if view.side_pot_joined[seat] is not None:
            shown = _cards([view.side_pot_shown[seat]]) if view.side_pot_shown[seat] >= 0 else "no spade"
            parts.append(f"side pot: {shown}" if view.side_pot_joined[seat] else "side pot: passed")
        lines.append("; ".join(parts))
    if view.spreads:
        lines.append("spreads:")
        for sp in view.spreads:
            lines.append(f"  [{sp.slot}] player_{sp.owner} {sp.kind}: {_cards(_spread_order(sp.kind, sp.cards))}")
    if view.out_of_play:
        lines.append(f"out of play: {_cards(view.out_of_play)}")
    if view.last_result is not None:
        r = view.last_result
        winners = ", ".join(f"player_{w}" for w in r.winners) or "nobody"
        lines.append(f"last hand: {r.reason}, won by {winners}; counts {list(r.counts)}; "
                     f"stakes {list(r.payments)}")
    return "\n".join(lines)
