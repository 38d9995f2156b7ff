"""Text and picture of a Washizu poker View (suit symbols; Washizu cards in brackets; a
legend). Both print each seat's note as the presenter (``presenter.py``) words it
(``seat_note``)."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from parlor.envs.engine import svg
from parlor.envs.engine.cards import format_card
from parlor.envs.engine.words import noun
from parlor.envs.washizu_poker.deck import HAND_SIZE
from parlor.envs.washizu_poker.view import WashizuView


def card_text(c: int, washizu: frozenset[int] | set[int]) -> str:
    text = format_card(c, symbols=True)
    return f"[{text}]" if c in washizu else text


def legend(jokers: bool, copies: bool) -> str:
    """The one line that explains the marks on the cards of this game."""
    parts = ["[K♣] = a Washizu card (transparent: every seat sees it)"]
    if jokers:
        parts.append("Xx, Xy = jokers (wild)")
    if copies:
        parts.append("A♥* = the extra deck's copy")
    return "legend: " + "; ".join(parts)


def render(view: WashizuView, notes: Sequence[str], action_name: Callable[[int], str], jokers: bool) -> str:
    """The table as ``view.player`` sees it, a line per seat: chips, the seat's note
    (``notes``: the presenter's seat notes, printed as they are) and the cards, in columns."""
    w = set(view.washizu)
    lines = [
        f"Washizu draw poker - game {view.game_number + 1}/{view.num_games}, {view.phase} phase, "
        f"dealer seat {view.dealer}",
        legend(jokers, any(c >= 52 for c in view.washizu)),
        f"pot {view.pot}  level {view.level}"
        + (f"  cap {view.cap}  to call {view.to_call}" if view.phase == "bet" else ""),
    ]
    labels = [f"seat {s}{' (you)' if s == view.player else ''}:" for s in range(view.num_players)]
    label_w, note_w = max(map(len, labels)), max(map(len, notes))
    for s in range(view.num_players):
        if s == view.player:
            cards = " ".join(card_text(c, w) for c in view.hand)
        else:
            seen = [card_text(c, w) for c in view.visible[s]]
            hidden = (HAND_SIZE - len(seen)) if view.alive[s] and view.phase != "over" else 0
            cards = " ".join(seen + ["??"] * hidden)
        turn = " <- to act" if s == view.current_player else ""
        lines.append(f"{labels[s]:{label_w}s} chips {view.stacks[s]:3d}  {notes[s]:{note_w}s}  {cards}{turn}".rstrip())
    if view.left_view:
        lines.append("Washizu cards discarded: " + " ".join(card_text(c, w) for c in view.left_view))
    if view.my_discards:
        lines.append("your discards: " + " ".join(card_text(c, w) for c in view.my_discards))
    r = view.last_result
    if r is not None:
        shown = ", ".join(f"seat {s}: {' '.join(card_text(c, w) for c in h)}" for s, h in enumerate(r.shown) if h)
        lines.append(f"game {r.game_number + 1}: {noun(len(r.winners), 'seat')} {', '.join(map(str, r.winners))} took the pot of {r.pot}"
                     + (f" ({r.removed} removed)" if r.removed else "") + (f"; shown {shown}" if shown else ""))
    if view.current_player == view.player:
        if view.phase == "draw":
            lines.append("your move: name the cards to discard (e.g. 'discard K♣ 7♦'), or 'stand pat'")
        elif view.phase == "bet":
            k = max(0, min(view.max_raise, view.cap - view.level))
            lines.append("your move: " + ", ".join(f"{a} {action_name(a)}" for a in [32, 33] + list(range(34, 34 + k))))
    return "\n".join(lines)


# ---------------------------------------------------------------- picture
WIDTH, PANEL_H, SMALL = 960, 118, 0.55


def picture_size(num_players: int) -> tuple[int, int]:
    """(width, height) of every picture of a ``num_players`` match (fixed for rgb_array)."""
    rows = -(-num_players // 3)
    return WIDTH, 52 + rows * (PANEL_H + 8) + 156 + 34


def seat_note(view: WashizuView, s: int) -> str:
    """``"in, bet 4, drew 2"``: in the match or out, in the game or dropped, the bet, the draw."""
    status = "out of the match" if not view.alive[s] else ("in" if view.in_hand[s] else "dropped")
    drew = "" if view.drawn[s] < 0 else f", drew {view.drawn[s]}"
    return f"{status}, bet {view.bets[s]}{drew}"


def _seat(view: WashizuView, s: int, x: float, y: float, w: float, note: str) -> str:
    w_ids = set(view.washizu)
    out = [svg.seat_panel(x, y, w, PANEL_H, f"P{s}", acting=s == view.current_player, you=s == view.player,
                          note=note, faded=not view.alive[s])]
    cards_y = y + 44
    if s == view.player:
        out.append(svg.card_row(x + 8, cards_y, view.hand, washizu=w_ids))
        for i in range(len(view.hand)):  # the positions the discard actions name
            out.append(svg.text(x + 8 + i * (svg.CARD_W + 4) + svg.CARD_W / 2, cards_y + svg.CARD_H + 12, str(i),
                                size=10, fill="#cfe3d5", anchor="middle"))
    else:
        shown = view.visible[s]
        hidden = (HAND_SIZE - len(shown)) if view.alive[s] and view.phase != "over" else 0
        out.append(svg.card_row(x + 8, cards_y, shown, washizu=w_ids))
        out.append(svg.backs_row(x + 8 + len(shown) * (svg.CARD_W + 4), cards_y, hidden))
    out.append(svg.chips(x + w - 76, y + PANEL_H - 12, view.stacks[s], colour="#3c6fd2"))
    return "".join(out)


def _small_cards(x: float, y: float, label: str, cards: Sequence[int], washizu: Iterable[int]) -> tuple[str, float]:
    """A labelled row of small cards; returns it and the x after it."""
    out = svg.text(x, y + 12, label, size=12) + svg.card_row(x, y + 18, cards, washizu=washizu, scale=SMALL, gap=2)
    return out, x + max(len(label) * 7.0, svg.row_width(len(cards), scale=SMALL, gap=2)) + 24


def render_svg(view: WashizuView, notes: Sequence[str]) -> str:
    """The table as ``view.player`` sees it: own hand face up (with discard positions),
    the Washizu cards every seat sees, the rest face down, stacks, bets, the pot and the
    last game's showdown; the seat to act framed in gold."""
    n = view.num_players
    width, height = picture_size(n)
    w_ids = set(view.washizu)
    turn = f"to act: P{view.current_player}" if view.current_player is not None else (
        "this game is over" if view.phase == "game over" else "match over")  # game over: WashizuState.ended_view
    body = [svg.caption(width, f"Washizu draw poker - game {view.game_number + 1}/{view.num_games}, "
                               f"{view.phase} phase, dealer P{view.dealer}, {turn}",
                        f"view of P{view.player}: Washizu (transparent) cards are seen by every seat")]
    cols = min(n, 3)
    panel_w = (width - 10 * (cols + 1)) / cols
    for s in range(n):
        row, col = divmod(s, cols)
        body.append(_seat(view, s, 10 + col * (panel_w + 10), 52 + row * (PANEL_H + 8), panel_w, notes[s]))
    y = 52 + -(-n // 3) * (PANEL_H + 8)
    body.append(svg.chips(14, y + 44, view.pot, "pot", colour="#d9a520"))
    bet = f"level {view.level}, cap {view.cap}, P{view.player} to call {view.to_call}" if view.phase == "bet" \
        else f"level {view.level}"
    body.append(svg.text(14, y + 64, bet, size=12, fill="#e4efe7"))
    x: float = 300
    if view.left_view:
        part, x = _small_cards(x, y, "Washizu discards", view.left_view, w_ids)
        body.append(part)
    if view.my_discards:
        part, x = _small_cards(x, y, f"P{view.player} discards", view.my_discards, w_ids)
        body.append(part)
    r = view.last_result
    if r is not None:
        winners = ", ".join(f"P{s}" for s in r.winners)
        removed = f" ({r.removed} removed)" if r.removed else ""
        body.append(svg.text(14, y + 92, f"game {r.game_number + 1}: {winners} took the pot of {r.pot}{removed}",
                             size=12, bold=True))
        x = 14
        for s, hand in enumerate(r.shown):
            if hand:
                part, x = _small_cards(x, y + 96, f"P{s} showed", hand, w_ids)
                body.append(part)
    copies = any(c >= 52 for c in view.washizu)
    body.append(svg.card_legend(10, height - 32, washizu=bool(view.washizu), jokers=True, copies=copies))
    return svg.document(width, height, body, f"Washizu poker, view of P{view.player}")
