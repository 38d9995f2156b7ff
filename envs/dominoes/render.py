"""ANSI text of a domino View: tiles as ``3-5`` (as the deck parser reads them), the line with its open ends,
every seat's tile count, passes (voids) and the game's own lines (bets, totals)."""
from __future__ import annotations

from typing import Any

from parlor.envs.dominoes.line import TILES
from parlor.envs.engine import svg
from parlor.envs.engine.words import count


def _nobody(view: Any) -> str:
    """Who acts when nobody does: the episode is over, or (a replay's picture of a finished
    deal, ``DominoState.ended_view``) this deal is."""
    return "nobody (this deal is over)" if view.phase == "deal over" else "nobody (episode over)"


def render(game: Any, view: Any) -> str:
    n = view.num_players
    who = f"P{view.current_player}" if view.current_player is not None else _nobody(view)
    lines = [f"{game.title()}  deal {view.deal_index + 1}/{view.num_deals}  "
             f"you: P{view.player}  to act: {who}  ({view.phase})"]
    if view.line:
        row = " ".join(f"{a}-{b}" for a, b in view.line)
        lines.append(f"line: {row}   open ends: {view.ends[0]} ... {view.ends[1]}")
    else:
        lines.append(f"line: (empty; P{view.leader} leads)")
    hand = " ".join(TILES.show(t) for t in view.hand) or "-"
    lines.append(f"your tiles: {hand}   ({count(TILES.pips(view.hand), 'pip')})")
    extra = game.seat_notes(view)
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
    lines.extend(game.footer(view))
    return "\n".join(lines)


# ---------------------------------------------------------------- picture
WIDTH, PANEL_H, LINE_TILE, HAND_TILE = 960, 96, 24, 28
PER_ROW = (WIDTH - 20) // (2 * LINE_TILE + 4)
LINE_ROWS = -(-TILES.size // PER_ROW)
HEIGHT = 52 + PANEL_H + 8 + 24 + LINE_ROWS * (LINE_TILE + 10) + 8 + 2 * HAND_TILE + 30 + 64


def picture_size(num_players: int) -> tuple[int, int]:
    """(width, height) of every domino picture (fixed for rgb_array)."""
    return WIDTH, HEIGHT


def _amount(x: Any) -> str:
    return f"{float(x):g}"


def _buki(view: Any) -> tuple[list[str], list[str]]:
    # the episode's end: the last deal's bets are settled (paid out), so none is still to come
    unbet = "no bet yet" if view.current_player is not None or view.phase == "deal over" else "bets settled"
    notes = [("banker" if s == view.banker else
              f"bet {view.bets[s]}{' (carried over)' if view.carried[s] else ''}" if view.bets[s] else unbet) for s in range(view.num_players)]
    footer = [f"bets {view.min_bet}..{view.max_bet}"]
    if view.phase == "bet":
        footer.append(f"P{view.current_player}: bet due now" if view.bet_due else
                      f"P{view.current_player} may bet now or later")
    if view.phase == "accept":
        footer.append(f"P{view.raiser} asks to raise to {view.pending_raise}: the banker accepts or refuses")
    return notes, footer


def _pulle(view: Any) -> tuple[list[str], list[str]]:
    notes = [f"total {view.totals[s]}" + (" (out)" if view.out[s] else "") for s in range(view.num_players)]
    footer = [f"pool {_amount(view.pool)}; a total of 101 or more sits out"]
    if view.phase == "buy_back":
        footer.append(f"P{view.current_player} may buy back: pay {view.stake / 2:g} to set the total to "
                      f"{view.buy_back_value}")
    return notes, footer


def _austrian(view: Any) -> tuple[list[str], list[str]]:
    notes = [f"deals won {view.deals_won[s]}" for s in range(view.num_players)]
    footer = [f"{view.mode} game" + (f", at most {view.max_draws} draws a turn" if view.max_draws else "")]
    if view.draws_this_turn:
        footer.append(f"drawn this turn: {view.draws_this_turn}")
    return notes, footer


_VARIANTS = {"buki_v0": ("Buki", _buki), "pulle_v0": ("Pulle", _pulle),
             "austrian_dominoes_v0": ("Austrian dominoes", _austrian)}


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


def render_svg(view: Any) -> str:
    """The table as ``view.player`` sees it: the line of play with its open ends (gold
    frames), own tiles face up written as the deck parser reads them (``3-5``), every
    other hand as a count of backs with the numbers it passed on, and the game's money:
    Buki bets and banker, Pulle totals and pool, Austrian deals won."""
    title, variant = _VARIANTS[view.game]
    notes, footer = variant(view)
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
