"""Buffalo Bill: ansi text of a View (hands with suit symbols, the score sheets) and its
picture; both print each seat's note as the presenter (``presenter.py``) words it."""
from __future__ import annotations

from collections.abc import Sequence

from parlor.envs.engine import svg
from parlor.envs.engine.cards import format_cards
from parlor.envs.engine.words import count


def render_view(view, notes: Sequence[str]) -> str:
    """The table as text: a header, a line per seat (hand, chips, its note, total) and the
    score sheets, with what the viewing seat's hand would score on each open line."""
    n = view.num_players
    head = (
        f"Buffalo Bill - round {min(view.round + 1, view.num_rounds)}/{view.num_rounds}"
        + (" (game over)" if view.current_player is None else f", seat {view.current_player} to act")
        + f" | dealer {view.dealer} | stock {view.stock_size} | discards {len(view.discards)}"
    )
    out = [head]
    for seat in range(n):
        me = " (you)" if seat == view.player else ""
        if view.scored[seat]:
            hand = "scored this round"
        elif view.hands[seat]:
            hand = format_cards(view.hands[seat], symbols=True)
        else:
            hand = "-"
        out.append(
            f"seat {seat}{me}: {hand} | chips {view.chips[seat]} | {notes[seat]} | total {view.totals[seat]}"
        )
    width = max(len(name) for name in view.lines)
    out.append(" " * (width + 2) + "".join(f"seat {s:<4d}" for s in range(n)) + "  your hand")
    for k, name in enumerate(view.lines):
        cells = []
        for seat in range(n):
            v = view.written[seat][k]
            cells.append(f"{'.' if v is None else v:<9}")
        now = view.line_values[view.player][k] if view.written[view.player][k] is None and view.hands[view.player] else ""
        out.append(f"{name:<{width}}  " + "".join(cells) + f"  {now}")
    return "\n".join(out)


# ---------------------------------------------------------------- picture
WIDTH, PANEL_H, ROW_H = 960, 112, 20
SHEET_X = 445


def picture_size(num_players: int, num_lines: int) -> tuple[int, int]:
    """(width, height) of every picture of a game (fixed for rgb_array)."""
    return WIDTH, 52 + max(num_players * (PANEL_H + 8), 30 + (num_lines + 1) * ROW_H) + 44


def _seat(view, seat: int, y: float, note: str) -> str:
    out = [svg.seat_panel(10, y, SHEET_X - 22, PANEL_H, f"P{seat}", acting=seat == view.current_player,
                          you=seat == view.player, note=note)]
    if view.scored[seat]:
        out.append(svg.text(18, y + 66, "scored this round", size=13, fill="#cfe3d5"))
    else:
        out.append(svg.card_row(18, y + 40, view.hands[seat]))
        for i in range(len(view.hands[seat])):  # the positions the exchange actions name
            out.append(svg.text(18 + i * (svg.CARD_W + 4) + svg.CARD_W / 2, y + 107, str(i), size=10,
                                fill="#cfe3d5", anchor="middle"))
    out.append(svg.chips(SHEET_X - 120, y + PANEL_H - 12, view.chips[seat], "chips", colour="#c2453a"))
    return "".join(out)


def _sheet(view, y: float) -> str:
    """The score sheets: one column per seat; a written 0 is a scratched line (✗); the
    last column is what the viewing seat's hand would score on each open line now."""
    n = view.num_players
    col = min(70, (WIDTH - 10 - SHEET_X - 160) / (n + 1))
    name_w = 160
    rows = len(view.lines)
    out = [svg.box(SHEET_X, y, WIDTH - 10 - SHEET_X, 30 + (rows + 1) * ROW_H, fill=svg.PAPER, radius=4)]
    head_y = y + 17
    for s in range(n):
        out.append(svg.text(SHEET_X + name_w + (s + 0.5) * col, head_y, f"P{s}", size=12, fill=svg.INK,
                            anchor="middle", bold=True))
    out.append(svg.text(SHEET_X + name_w + (n + 0.5) * col, head_y, "now", size=12, fill="#8a5a00",
                        anchor="middle", bold=True))
    can_score = bool(view.hands[view.player])
    for k, name in enumerate(view.lines):
        top = y + 26 + k * ROW_H
        if k % 2 == 0:
            out.append(svg.box(SHEET_X, top, WIDTH - 10 - SHEET_X, ROW_H, fill="#eef0e6", radius=0))
        out.append(svg.text(SHEET_X + 6, top + 14, name, size=12, fill=svg.INK))
        for s in range(n):
            v = view.written[s][k]
            cx = SHEET_X + name_w + (s + 0.5) * col
            if v is None:
                out.append(svg.text(cx, top + 14, "–", size=12, fill="#9a9a9a", anchor="middle"))
            elif v == 0:
                out.append(svg.text(cx, top + 14, "✗ 0", size=12, fill="#b03a2e", anchor="middle", bold=True))
            else:
                out.append(svg.text(cx, top + 14, str(v), size=12, fill=svg.INK, anchor="middle", bold=True))
        if can_score and view.written[view.player][k] is None:
            out.append(svg.text(SHEET_X + name_w + (n + 0.5) * col, top + 14, str(view.line_values[view.player][k]),
                                size=12, fill="#8a5a00", anchor="middle"))
    top = y + 30 + rows * ROW_H
    out.append(f'<line x1="{SHEET_X + 4}" y1="{top}" x2="{WIDTH - 14}" y2="{top}" stroke="{svg.INK}"/>')
    out.append(svg.text(SHEET_X + 6, top + 15, "total", size=12, fill=svg.INK, bold=True))
    for s in range(n):
        out.append(svg.text(SHEET_X + name_w + (s + 0.5) * col, top + 15, str(view.totals[s]), size=12,
                            fill=svg.INK, anchor="middle", bold=True))
    return "".join(out)


def render_svg(view, notes: Sequence[str]) -> str:
    """The table as ``view.player`` sees it (all hands are public in Buffalo Bill): hands
    with exchange positions, chips, the score sheets (✗ = scratched line) and what the
    viewing seat's hand would score now; the seat to act framed in gold."""
    width, height = picture_size(view.num_players, len(view.lines))
    over = view.current_player is None
    turn = "game over" if over else f"to act: P{view.current_player}"
    rnd = f"round {min(view.round + 1, view.num_rounds)}/{view.num_rounds}"
    cost = "" if over else f"; P{view.player}'s next exchange costs {count(view.exchange_cost(), 'chip')}"
    body = [svg.caption(width, f"Buffalo Bill - {rnd}, dealer P{view.dealer}, {turn}",
                        f"view of P{view.player} (all hands are public): stock {count(view.stock_size, 'card')}, "
                        f"discard pile {len(view.discards)}{cost}")]
    for seat in range(view.num_players):
        body.append(_seat(view, seat, 52 + seat * (PANEL_H + 8), notes[seat]))
    body.append(_sheet(view, 52))
    body.append(svg.card_legend(10, height - 34))
    body.append(svg.text(WIDTH - 10, height - 14, "✗ 0 = scratched line, – = open line, now = what your hand scores", size=11, fill="#e4efe7",
                         anchor="end"))
    return svg.document(width, height, body, f"Buffalo Bill, view of P{view.player}")
