"""Text and picture of an OFC view (suit symbols ♠♥♦♣); each seat's note comes from the
presenter (``presenter.py``), so both say it in the same words."""
from __future__ import annotations

from collections.abc import Sequence

from parlor.envs.engine import svg
from parlor.envs.engine.cards import format_card
from parlor.envs.ofc.scoring import ROW_NAMES, ROW_SIZES
from parlor.envs.ofc.view import OFCView


def _row_text(row: tuple[int, ...], size: int) -> str:
    cards = [format_card(c, symbols=True) for c in row]
    return " ".join(cards + ["__"] * (size - len(row)))


def render(view: OFCView, notes: Sequence[str]) -> str:
    n = view.num_players
    head = f"OFC {view.variant} - hand {view.hand_index + 1}/{view.num_hands}, start player {view.start_player}"
    lines = [head + (" - final" if view.terminal else " - hand over (its showdown)" if view.current_player is None
                     else f", to act: player {view.current_player}")]
    for q in range(n):
        tags = []
        if q == view.player:
            tags.append("you")
        if view.fantasyland[q]:
            tags.append(f"Fantasyland {view.fl_dealt[q]} cards")
        tag = f" ({', '.join(tags)})" if tags else ""
        lines.append(f"player {q}{tag}: {notes[q]}")
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


# ---------------------------------------------------------------- picture
WIDTH, PANEL_H = 960, 236


def picture_size(num_players: int) -> tuple[int, int]:
    """(width, height) of every OFC picture of a game (fixed: rgb_array frames share it)."""
    return WIDTH, 44 + PANEL_H + 128


def _board(x: float, y: float, w: float, board, hidden: bool) -> str:
    """Three rows centred in the panel, free places dashed; a face-down board says so."""
    gap = 4 if w > 230 else 3
    out = []
    for r, (row, size) in enumerate(zip(board, ROW_SIZES)):
        left = x + (w - svg.row_width(size, gap=gap)) / 2
        top = y + r * (svg.CARD_H + 6)
        for i in range(size):
            at = left + i * (svg.CARD_W + gap)
            if hidden:
                out.append(svg.card_back(at, top))
            elif i < len(row):
                out.append(svg.card(at, top, row[i]))
            else:
                out.append(svg.empty_slot(at, top))
    if hidden:
        out.append(svg.box(x + 6, y + 70, w - 12, 40, fill="#000000", opacity=0.6)
                   + svg.text(x + w / 2, y + 87, "Fantasyland: face down", size=12, anchor="middle", bold=True)
                   + svg.text(x + w / 2, y + 103, "until the showdown", size=12, anchor="middle"))
    return "".join(out)


def render_svg(view: OFCView, notes: Sequence[str]) -> str:
    """The table as ``view.player`` sees it: every board (Fantasyland boards of others face
    down), the cards still to place, own discards, scores; the seat to act framed in gold."""
    n = view.num_players
    width, height = picture_size(n)
    # no one to act before the end: a replay's picture of a hand that has ended (OFCState.ended_view)
    turn = "final" if view.terminal else "hand over (its showdown)" if view.current_player is None else \
        f"to act: P{view.current_player}"
    body = [svg.caption(width, f"OFC {view.variant} - hand {view.hand_index + 1}/{view.num_hands}, "
                               f"start P{view.start_player}, {turn}",
                        f"view of P{view.player}: dashed places are free; discards stay face down to others")]
    panel_w = (width - 10 * (n + 1)) / n
    for q in range(n):
        x, y = 10 + q * (panel_w + 10), 52
        note = notes[q]
        if view.fantasyland[q]:
            note += f", FL {view.fl_dealt[q]} cards"
        body.append(svg.seat_panel(x, y, panel_w, PANEL_H - 8, f"P{q}", acting=q == view.current_player,
                                   you=q == view.player, note=note))
        body.append(_board(x, y + 44, panel_w, view.rows[q], view.hidden[q]))
    y = 52 + PANEL_H + 4
    if view.pending:
        owed = f"; discard {view.discards_owed} of them" if view.discards_owed else ""
        body.append(svg.text(10, y + 12, f"P{view.player} to place, next first{owed}:", size=13, bold=True))
        body.append(svg.card(10, y + 20, view.pending[0], highlight=True))
        body.append(svg.card_row(10 + svg.CARD_W + 8, y + 20, view.pending[1:]))
    elif not view.terminal:
        body.append(svg.text(10, y + 12, "nothing to place now", size=13, fill="#d8e8dc"))
    if view.discards:
        x = width - 10 - svg.row_width(len(view.discards), scale=0.75)
        body.append(svg.text(width - 10, y + 12, f"P{view.player}'s discards (face down to others)", size=13, anchor="end"))
        body.append(svg.card_row(x, y + 20, view.discards, scale=0.75, dim=True))
    body.append(svg.card_legend(10, height - 32))
    return svg.document(width, height, body, f"OFC, view of P{view.player}")
