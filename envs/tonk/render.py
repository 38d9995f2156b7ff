"""Text and picture of a Tonk View (suit symbols ♣♦♥♠); each seat's note comes from the
presenter (``presenter.py``), so both say it in the same words."""
from __future__ import annotations

from collections.abc import Sequence

from parlor.envs.engine import svg
from parlor.envs.engine.cards import format_card
from parlor.envs.engine.melds import RUN, card_value
from parlor.envs.engine.words import count as counted  # `count` is a hand's point count here
from parlor.envs.tonk.view import TableSpread, TonkView


def _cards(cards) -> str:
    return " ".join(format_card(c, symbols=True) for c in cards) or "-"


def _spread_order(kind: str, cards: tuple[int, ...]) -> list[int]:
    """Runs in playing order (an ace sits low below a 2, high above a K)."""
    if kind != RUN:
        return list(cards)
    ranks = {c // 4 for c in cards}
    ace_low = 12 in ranks and 0 in ranks
    return sorted(cards, key=lambda c: -1 if (ace_low and c // 4 == 12) else c // 4)


def shown_hands(view: TonkView) -> tuple[tuple[int, ...], ...] | None:
    """Every seat's cards once the episode is over: the last hand counted them face up
    (``HandResult.hands``); None while they are hidden."""
    r = view.last_result
    return r.hands if view.phase == "over" and r is not None and r.hands else None


def drop_note(view: TonkView, seat: int) -> list[str]:
    """``["no drop for 2 turns"]`` while the rules block ``seat``'s drop, else ``[]``."""
    blocked = view.drop_blocked[seat]
    return [f"no drop for {counted(blocked, 'turn')}"] if blocked else []


def render_view(view: TonkView, notes: Sequence[str]) -> str:
    n = view.num_players
    count = sum(card_value(c) for c in view.hand)
    turn = f"player_{view.current_player}" if view.current_player is not None else (
        "- (hand over)" if view.hand_index + 1 < view.num_hands else "-")
    lines = [
        f"Tonk hand {min(view.hand_index + 1, view.num_hands)}/{view.num_hands}  dealer player_{view.dealer}"
        f"  to act: {turn}  phase: {view.phase}  turn {view.turn}",
        f"player_{view.player} hand: {_cards(view.hand)}  (count {count})",
        f"discard pile top: {_cards([view.top_discard] if view.top_discard is not None else [])}"
        f"  ({counted(len(view.discard_pile), 'card')})   stock: {view.stock_size}",
    ]
    shown = shown_hands(view)
    for seat in range(n):
        parts = [f"  player_{seat}: {counted(view.hand_sizes[seat], 'card')}, {notes[seat]}"]
        if shown is not None and seat != view.player:
            parts.append(f"shown {_cards(shown[seat])} (count {sum(card_value(c) for c in shown[seat])})")
        if view.taken_from_discard[seat]:
            parts.append(f"took {_cards(view.taken_from_discard[seat])}")
        if view.side_pot_joined[seat] is not None:
            spade = _cards([view.side_pot_shown[seat]]) if view.side_pot_shown[seat] >= 0 else "no spade"
            parts.append(f"side pot: {spade}" if view.side_pot_joined[seat] else "side pot: passed")
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


# ---------------------------------------------------------------- picture
WIDTH, PANEL_H, TABLE_H, SPREAD_X = 960, 104, 236, 210
SMALL = 0.6


def picture_size(num_players: int) -> tuple[int, int]:
    """(width, height) of every Tonk picture (fixed for rgb_array)."""
    return WIDTH, 52 + PANEL_H + 8 + TABLE_H + 96 + 58


def _seat(view: TonkView, s: int, x: float, y: float, w: float, note: str) -> str:
    out = [svg.seat_panel(x, y, w, PANEL_H, f"P{s}", acting=s == view.current_player, you=s == view.player,
                          note=note)]
    count = view.hand_sizes[s]
    shown = shown_hands(view)
    if s != view.player:
        step = min(svg.CARD_W * 0.5 + 3, (w - 16 - svg.CARD_W * 0.5) / max(count - 1, 1))
        if shown is not None:
            step = min(svg.CARD_W * 0.5 + 3, (w - 16 - svg.CARD_W * 0.5) / max(len(shown[s]) - 1, 1))
        for i, card in enumerate(shown[s] if shown is not None else [None] * count):
            out.append(svg.card_back(x + 8 + i * step, y + 40, scale=0.5) if card is None
                       else svg.card(x + 8 + i * step, y + 40, card, scale=0.5))
    total = f", count {sum(card_value(c) for c in shown[s])}" if shown is not None else ""
    out.append(svg.text(x + 8, y + 84, counted(count, 'card') + total, size=11, fill="#e4efe7"))
    extra = []
    if view.taken_from_discard[s]:
        extra.append("took " + _cards(view.taken_from_discard[s]))
    if view.side_pot_joined[s] is not None:
        spade = view.side_pot_shown[s]
        extra.append(("side pot: " + (format_card(spade, symbols=True) if spade >= 0 else "no spade"))
                     if view.side_pot_joined[s] else "side pot: passed")
    if extra:
        words, room = "; ".join(extra), int((w - 16) / 7.2)  # keep the latest news inside the panel
        out.append(svg.text(x + 8, y + 98, words if len(words) <= room else "…" + words[1 - room:], size=11,
                            fill="#e4efe7"))
    return "".join(out)


def _spread_layout(view: TonkView, scale: float) -> list[tuple[float, float, TableSpread]] | None:
    """(x, y) of each spread flowed in rows over the table, or None when they do not fit."""
    step = svg.CARD_W * scale + 2
    x: float = SPREAD_X  # moves by fractional card widths
    y, row_h = 0.0, svg.CARD_H * scale + 20
    places: list[tuple[float, float, TableSpread]] = []
    for sp in view.spreads:
        w = max(len(sp.cards) * step, 70)
        if x + w > WIDTH - 10:
            x, y = SPREAD_X, y + row_h
        places.append((x, y, sp))
        x += w + 12
    return places if y + row_h <= TABLE_H - 40 else None


def _table(view: TonkView, y: float) -> str:
    out = [svg.box(10, y, WIDTH - 20, TABLE_H, fill=svg.FELT_DARK, radius=8)]
    out.append(svg.text(24, y + 22, f"stock {view.stock_size}", size=12, bold=True))
    out.append(svg.card_back(24, y + 30) if view.stock_size else svg.empty_slot(24, y + 30))
    top = view.top_discard
    out.append(svg.text(100, y + 22, f"discards {len(view.discard_pile)}", size=12, bold=True))
    out.append(svg.card(100, y + 30, top) if top is not None else svg.empty_slot(100, y + 30))
    scale = SMALL
    places = _spread_layout(view, scale)
    while places is None:  # many spreads: smaller cards rather than running off the table
        scale *= 0.8
        places = _spread_layout(view, scale)
    if not places:
        out.append(svg.text(SPREAD_X, y + 22, "no spreads on the table", size=12, fill="#cfe3d5"))
    for x, dy, sp in places:
        out.append(svg.text(x, y + 18 + dy, f"P{sp.owner} {sp.kind} [{sp.slot}]", size=11, fill="#e4efe7"))
        out.append(svg.card_row(x, y + 24 + dy, _spread_order(sp.kind, sp.cards), scale=scale, gap=2))
    if view.out_of_play:
        out.append(svg.text(24, y + TABLE_H - 48, "out of play", size=11, fill="#e4efe7"))
        out.append(svg.card_row(24, y + TABLE_H - 42, view.out_of_play, scale=0.5, gap=2, dim=True))
    return "".join(out)


def render_svg(view: TonkView, notes: Sequence[str]) -> str:
    """The table as ``view.player`` sees it: own hand face up with its count, other hands
    as backs, the stock and the discard pile's top card, the spreads (slot in brackets,
    the number a hit names), stakes; the seat to act framed in gold."""
    n = view.num_players
    width, height = picture_size(n)
    turn = f"to act: P{view.current_player} ({view.phase})" if view.current_player is not None else (
        "hand over" if view.hand_index + 1 < view.num_hands else "episode over")  # hand over: TonkState.ended_view
    body = [svg.caption(width, f"Tonk - hand {min(view.hand_index + 1, view.num_hands)}/{view.num_hands}, "
                               f"dealer P{view.dealer}, turn {view.turn}, {turn}",
                        f"view of P{view.player}: " + ("every hand is shown, as the rules count them at the end"
                                                       if shown_hands(view) is not None
                                                       else "other hands are hidden (counts only)"))]
    panel_w = (width - 10 * (n + 1)) / n
    for s in range(n):
        body.append(_seat(view, s, 10 + s * (panel_w + 10), 52, panel_w, notes[s]))
    y = 52 + PANEL_H + 8
    body.append(_table(view, y))
    y += TABLE_H + 8
    count = sum(card_value(c) for c in view.hand)
    body.append(svg.text(10, y + 14, f"P{view.player}'s hand (count {count})", size=13, bold=True))
    body.append(svg.card_row(10, y + 22, view.hand))
    r = view.last_result
    if r is not None:
        winners = ", ".join(f"P{w}" for w in r.winners) or "nobody"
        body.append(svg.text(width - 10, y + 14, f"hand {r.hand_index + 1}: {r.reason}, won by {winners}; "
                             f"stakes {', '.join(f'{p:+d}' for p in r.payments)}", size=12, anchor="end", bold=True))
    body.append(svg.card_legend(10, height - 34))
    return svg.document(width, height, body, f"Tonk, view of P{view.player}")
