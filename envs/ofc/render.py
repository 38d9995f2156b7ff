"""Text rendering of an OFC view (suit symbols ♠♥♦♣)."""
from __future__ import annotations

from parlor.envs.engine.cards import format_card
from parlor.envs.ofc.scoring import ROW_NAMES, ROW_SIZES
from parlor.envs.ofc.view import OFCView


def _row_text(row: tuple[int, ...], size: int) -> str:
    cards = [format_card(c, symbols=True) for c in row]
    return " ".join(cards + ["__"] * (size - len(row)))


def render(view: OFCView) -> str:
    n = view.num_players
    head = f"OFC {view.variant} - hand {view.hand_index + 1}/{view.num_hands}, start player {view.start_player}"
    lines = [head + (" - final" if view.terminal else f", to act: player {view.current_player}")]
    for q in range(n):
        tags = []
        if q == view.player:
            tags.append("you")
        if view.fantasyland[q]:
            tags.append(f"Fantasyland {view.fl_dealt[q]} cards")
        tag = f" ({', '.join(tags)})" if tags else ""
        lines.append(f"player {q}{tag}: score {view.scores[q]:+d}, last hand {view.last_points[q]:+d}")
        if view.hidden[q]:
            lines.append("  board face down until the showdown")
            continue
        for name, row, size in zip(ROW_NAMES, view.rows[q], ROW_SIZES):
            lines.append(f"  {name:<6} {_row_text(row, size)}")
    if view.pending:
        cards = " ".join(format_card(c, symbols=True) for c in view.pending)
        lines.append(f"to place (next first): {cards}; discards owed: {view.discards_owed}")
    if view.discards:
        lines.append("your discards: " + " ".join(format_card(c, symbols=True) for c in view.discards))
    return "\n".join(lines)
