"""ANSI text of a domino View: tiles as ``[3|5]``, the line with its open ends,
every seat's tile count, passes (voids) and the game's own lines (bets, totals)."""
from __future__ import annotations

from typing import Any

from parlor.envs.dominoes.line import TILES


def render(game: Any, view: Any) -> str:
    n = view.num_players
    who = "nobody (episode over)" if view.current_player is None else f"P{view.current_player}"
    lines = [f"{game.title()}  deal {view.deal_index + 1}/{view.num_deals}  "
             f"you: P{view.player}  to act: {who}  ({view.phase})"]
    if view.line:
        row = "".join(f"[{a}|{b}]" for a, b in view.line)
        lines.append(f"line: {row}   open ends: {view.ends[0]} ... {view.ends[1]}")
    else:
        lines.append(f"line: (empty; P{view.leader} leads)")
    hand = " ".join(TILES.show(t) for t in view.hand) or "-"
    lines.append(f"your tiles: {hand}   ({TILES.pips(view.hand)} pips)")
    extra = game.seat_notes(view)
    for s in range(n):
        if not view.active[s]:
            lines.append(f"  P{s}: sits out  {extra[s]}".rstrip())
            continue
        voids = ",".join(map(str, view.void[s]))
        played = " ".join(TILES.show(t) for t in view.played[s])
        lines.append(f"  P{s}: {view.hand_counts[s]} tiles{'  passed on ' + voids if voids else ''}"
                     f"  {extra[s]}  played {played or '-'}".rstrip())
    if view.stock_count:
        lines.append(f"stock: {view.stock_count} tiles")
    lines.extend(game.footer(view))
    return "\n".join(lines)
