"""Text rendering of a Washizu poker View (suit symbols; Washizu cards in brackets)."""
from __future__ import annotations

from collections.abc import Callable

from parlor.envs.engine.cards import format_card


def card_text(c: int, washizu: frozenset[int] | set[int]) -> str:
    text = format_card(c, symbols=True)
    return f"[{text}]" if c in washizu else text


def render(view, action_name: Callable[[int], str]) -> str:
    w = set(view.washizu)
    lines = [
        f"Washizu draw poker - game {view.game_number + 1}/{view.num_games}, {view.phase} phase, "
        f"dealer seat {view.dealer}; [card] = Washizu (seen by all)",
        f"pot {view.pot}  level {view.level}"
        + (f"  cap {view.cap}  to call {view.to_call}" if view.phase == "bet" else ""),
    ]
    for s in range(view.num_players):
        status = "out" if not view.alive[s] else ("in" if view.in_hand[s] else "dropped")
        drew = "-" if view.drawn[s] < 0 else str(view.drawn[s])
        if s == view.player:
            cards = " ".join(f"{i}:{card_text(c, w)}" for i, c in enumerate(view.hand))
        else:
            shown = [card_text(c, w) for c in view.visible[s]]
            hidden = (5 - len(shown)) if view.alive[s] and view.phase != "over" else 0
            cards = " ".join(shown + ["??"] * hidden)
        who = " (you)" if s == view.player else ""
        turn = " <- to act" if s == view.current_player else ""
        lines.append(f"seat {s}{who}: {status:7s} chips {view.stacks[s]:3d} bet {view.bets[s]:2d} "
                     f"drew {drew}  {cards}{turn}")
    if view.left_view:
        lines.append("Washizu cards discarded: " + " ".join(card_text(c, w) for c in view.left_view))
    if view.my_discards:
        lines.append("your discards: " + " ".join(card_text(c, w) for c in view.my_discards))
    r = view.last_result
    if r is not None:
        shown = ", ".join(f"seat {s}: {' '.join(card_text(c, w) for c in h)}" for s, h in enumerate(r.shown) if h)
        lines.append(f"game {r.game_number + 1}: seat(s) {', '.join(map(str, r.winners))} took the pot of {r.pot}"
                     + (f" ({r.removed} removed)" if r.removed else "") + (f"; shown {shown}" if shown else ""))
    if view.current_player == view.player:
        if view.phase == "draw":
            lines.append("your move: action 0..31 = discard the positions of its bits (0 = stand pat)")
        elif view.phase == "bet":
            k = max(0, min(view.max_raise, view.cap - view.level))
            lines.append("your move: " + ", ".join(f"{a} {action_name(a)}" for a in [32, 33] + list(range(34, 34 + k))))
    return "\n".join(lines)
