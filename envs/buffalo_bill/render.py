"""Buffalo Bill: ansi text of a View (hands with suit symbols, the score sheets)."""
from __future__ import annotations

from parlor.envs.engine.cards import format_cards


def render_view(view) -> str:
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
            f"seat {seat}{me}: {hand} | chips {view.chips[seat]} | exchanges {view.exchanges[seat]} | total {view.totals[seat]}"
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
