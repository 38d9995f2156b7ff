"""ANSI text and picture of a domino View: tiles as ``3-5`` (as the deck parser reads them), the line
with its open ends, every seat's tile count, passes (voids) and chips, and the game's own words: its
title, a note per seat (bets, totals, deals won) and footer lines, which the game's presenter
(``presenter.py``) writes once for both."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from parlor.envs.dominoes.line import TILES
from parlor.envs.engine import svg
from parlor.envs.engine.words import count


def _nobody(view: Any) -> str:
    """Who acts when nobody does: the episode is over, or (a replay's picture of a finished
    deal, ``DominoState.ended_view``) this deal is."""
    return "nobody (this deal is over)" if view.phase == "deal over" else "nobody (episode over)"


def _with_chips(view: Any, notes: Sequence[str]) -> list[str]:
    """The seat notes followed by each seat's chips, for a game played for chips (Buki, Pulle)."""
    chips = getattr(view, "chips", None)
    return list(notes) if chips is None else [f"{note}  chips {svg.num(c)}" for note, c in zip(notes, chips)]


def render(view: Any, title: str, notes: Sequence[str], footer: Sequence[str]) -> str:
    n = view.num_players
    who = f"P{view.current_player}" if view.current_player is not None else _nobody(view)
    lines = [f"{title}  deal {view.deal_index + 1}/{view.num_deals}  "
             f"you: P{view.player}  to act: {who}  ({view.phase})"]
    if view.line:
        row = " ".join(f"{a}-{b}" for a, b in view.line)
        lines.append(f"line: {row}   open ends: {view.ends[0]} ... {view.ends[1]}")
    else:
        lines.append(f"line: (empty; P{view.leader} leads)")
    hand = " ".join(TILES.show(t) for t in view.hand) or "-"
    lines.append(f"your tiles: {hand}   ({count(TILES.pips(view.hand), 'pip')})")
    extra = _with_chips(view, notes)
    for s in range(n):
        if not view.active[s]:
            lines.append(f"  P{s}: sits out  {extra[s]}".rstrip())
            continue
        voids = ",".join(map(str, view.void[s]))
        played = " ".join(TILES.show(t) for t in view.played[s])
        lines.append(f"  P{s}: {count(view.hand_counts[s], 'tile')}{'  passed on ' + voids if voids else ''}"
                     f"  {extra[s]}  played {played or '-'}".rstrip())
    if view.stock_count:
        lines.append(f"stock: {count(view.stock_count, 'tile')}")
    lines.extend(footer)
    return "\n".join(lines)


# ---------------------------------------------------------------- picture
WIDTH, PANEL_H, LINE_TILE, HAND_TILE = 960, 96, 24, 28
PER_ROW = (WIDTH - 20) // (2 * LINE_TILE + 4)
LINE_ROWS = -(-TILES.size // PER_ROW)
HEIGHT = 52 + PANEL_H + 8 + 24 + LINE_ROWS * (LINE_TILE + 10) + 8 + 2 * HAND_TILE + 30 + 64


def picture_size(num_players: int) -> tuple[int, int]:
    """(width, height) of every domino picture (fixed for rgb_array)."""
    return WIDTH, HEIGHT


def _seat(view: Any, s: int, x: float, y: float, w: float, note: str) -> str:
    out = [svg.seat_panel(x, y, w, PANEL_H, f"P{s}", acting=s == view.current_player, you=s == view.player,
                          note=note, faded=not view.active[s])]
    if not view.active[s]:
        # bottom left, where a playing seat's tile count goes: clear of the chips on the right
        out.append(svg.text(x + 8, y + 88, "sits out", size=11, fill="#dddddd"))
    else:
        count = view.hand_counts[s]
        if s != view.player:  # others' tiles stand on edge: their backs (own tiles are drawn below)
            step = min(16, (w - 130) / max(count, 1))
            for i in range(count):
                out.append(svg.tile_back(x + 8 + i * step, y + 40, size=13))
        passed = f", passed on {', '.join(map(str, view.void[s]))}" if view.void[s] else ""
        out.append(svg.text(x + 8, y + 88, f"{count} tile{'s' if count != 1 else ''}{passed}", size=11,
                            fill="#e4efe7"))
    if hasattr(view, "chips"):
        out.append(svg.chips(x + w - 122, y + 74, view.chips[s], "chips", colour="#3c6fd2"))
    return "".join(out)


def _line(view: Any, y: float) -> str:
    """The line of play left to right in rows of PER_ROW tiles, its two open ends marked."""
    if not view.line:
        return svg.text(10, y + 16, f"line of play: empty, P{view.leader} leads", size=13, bold=True)
    left, right = view.ends
    out = [svg.text(10, y + 16, f"line of play: open ends {left} (left) and {right} (right)", size=13, bold=True)]
    last = len(view.line) - 1
    for i, (a, b) in enumerate(view.line):
        row, col = divmod(i, PER_ROW)
        out.append(svg.tile(10 + col * (2 * LINE_TILE + 4), y + 24 + row * (LINE_TILE + 10), a, b, size=LINE_TILE,
                            highlight=i in (0, last)))
    return "".join(out)


def render_svg(view: Any, title: str, notes: Sequence[str], footer: Sequence[str]) -> str:
    """The table as ``view.player`` sees it: the line of play with its open ends (gold
    frames), own tiles face up written as the deck parser reads them (``3-5``), every
    other hand as a count of backs with the numbers it passed on, each seat's chips and
    the game's notes and footer: Buki bets and banker, Pulle totals and pool, Austrian
    deals won."""
    footer = list(footer)
    n = view.num_players
    turn = f"to act: P{view.current_player} ({view.phase})" if view.current_player is not None else (
        "this deal is over" if view.phase == "deal over" else "episode over")
    body = [svg.caption(WIDTH, f"{title} - deal {view.deal_index + 1}/{view.num_deals}, {turn}",
                        f"view of P{view.player}: other hands are hidden (counts only)")]
    panel_w = (WIDTH - 10 * (n + 1)) / n
    for s in range(n):
        body.append(_seat(view, s, 10 + s * (panel_w + 10), 52, panel_w, notes[s]))
    y = 52 + PANEL_H + 8
    body.append(_line(view, y))
    y += 24 + LINE_ROWS * (LINE_TILE + 10) + 8
    body.append(svg.text(10, y + 12, f"P{view.player}'s tiles ({count(TILES.pips(view.hand), 'pip')})", size=13, bold=True))
    for i, t in enumerate(view.hand):
        a, b = TILES.tiles[t]
        x = 10 + i * (2 * HAND_TILE + 10)
        body.append(svg.tile(x, y + 20, a, b, size=HAND_TILE))
        body.append(svg.text(x + HAND_TILE, y + 20 + HAND_TILE + 14, TILES.format_tile(t),
                             size=11, fill="#e4efe7", anchor="middle"))
    y += 2 * HAND_TILE + 30
    if view.stock_count:
        footer.insert(0, f"stock {count(view.stock_count, 'tile')}")
    body.append(svg.text(10, y + 16, "; ".join(footer), size=12, fill="#e4efe7"))
    body.append(svg.text(10, y + 36, "tiles are written low-high as the deck parser reads them (3-5); "
                         "gold frames = the two open ends", size=11, fill="#cfe3d5"))
    return svg.document(WIDTH, HEIGHT, body, f"{title}, view of P{view.player}")
