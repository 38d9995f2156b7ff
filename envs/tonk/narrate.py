"""Table talk of Tonk: hits named with the spread they join, moves as a seat saw them (a card
drawn from the stock only by its drawer) and each hand's end explained (how play stopped,
every count, the stakes paid), all read off Views."""
from __future__ import annotations

from parlor.envs.engine.cards import format_card, format_cards
from parlor.envs.engine.melds import SPREADS
from parlor.envs.tonk import encode as enc
from parlor.envs.tonk.view import TonkView


def _card(c: int) -> str:
    return format_card(c, symbols=True)


def _spread(view: TonkView, slot: int) -> str:
    """``"P1's run Q♥ K♥ A♥"`` for a live spread of ``view`` (its slot number otherwise)."""
    for sp in view.spreads:
        if sp.slot == slot:
            return f"P{sp.owner}'s {sp.kind} {format_cards(sp.cards, symbols=True)}"
    return f"spread {slot}"


def move_name(view: TonkView, action: int) -> str:
    """The action's name; a hit also names the spread it joins."""
    name = enc.action_name(action)
    if enc.HIT_BASE <= action < enc.DISCARD_BASE:
        _, slot = divmod(action - enc.HIT_BASE, enc.MAX_SLOTS)
        return f"{name} ({_spread(view, slot)})"
    return name


def describe_move(before: TonkView, after: TonkView, actor: int, action: int) -> str:
    """The move as ``before.player`` saw it; everything but a stock draw is public."""
    if action == enc.DRAW_STOCK:
        if actor == before.player and after.hand_index == before.hand_index:
            drawn = [c for c in after.hand if c not in before.hand]
            if len(drawn) == 1:
                return f"draws {_card(drawn[0])} from the stock"
        return "draws from the stock"
    if action == enc.TAKE_DISCARD:
        return f"takes the discard {_card(before.top_discard)}" if before.top_discard is not None else "takes the discard"
    if action == enc.DROP:
        return "drops (all hands are counted)"
    if enc.LAY_BASE <= action < enc.HIT_BASE:
        s = SPREADS[action - enc.LAY_BASE]
        return f"lays the {s.kind} {format_cards(s.cards, symbols=True)}"
    if enc.HIT_BASE <= action < enc.DISCARD_BASE:
        c, slot = divmod(action - enc.HIT_BASE, enc.MAX_SLOTS)
        return f"hits {_card(c)} on {_spread(before, slot)}"
    if enc.DISCARD_BASE <= action < enc.END_LAYING:
        return f"discards {_card(action - enc.DISCARD_BASE)}"
    if action == enc.SIDE_JOIN:
        shown = after.side_pot_shown[actor] if after.hand_index == before.hand_index else -1
        return "joins the spades side pot" + (f" showing {_card(shown)}" if shown >= 0 else "")
    return {enc.END_LAYING: "ends laying", enc.SIDE_PASS: "passes the spades side pot",
            enc.DECLARE_49: "declares a natural"}[action]


def _how(reason: str, who: int | None, winners: tuple[int, ...], counts: tuple[int, ...]) -> str:
    """How play stopped and who was paid for it (docs/rules.md §5.7-§5.8)."""
    w = " and ".join(f"P{s}" for s in winners)
    if reason == "tonk":
        return f"P{who} tonked out (emptied the hand before discarding): {w} is paid 2 by each"
    if reason == "out":
        return f"P{who} went out (discarded the last card): paid 1 by each"
    if reason in ("drop_won", "drop_caught", "drop_tie"):
        if who is None:
            raise ValueError(f"a {reason!r} end names the seat that dropped; got who=None")
        dropped = counts[who]
        if reason == "drop_won":
            return f"P{who} dropped with the lowest count, {dropped}: paid 1 by each"
        if reason == "drop_caught":
            return (f"P{who} dropped with {dropped} and was caught: {w} has the lowest count, "
                    f"{min(counts)}; the dropper pays each lower count, the others pay {w}")
        return f"P{who} dropped with {dropped} and tied {w}: the dropper pays {w} 2, the others pay 1"
    if reason == "stock_out":
        return f"the stock ran out: {w} has the lowest count, {min(counts)}, and is paid 1 by each"
    if reason == "draw_stock_out":
        return "the stock ran out with the lowest count tied: a draw"
    if reason == "natural":
        return f"{w} was dealt a natural (count {counts[winners[0]]} at the deal): paid by each"
    if reason == "draw_naturals":
        return "two naturals were dealt: a draw"
    if reason == "truncated":
        return "the hand reached the turn cap (max_turns): a draw"
    return reason


def explain(view: TonkView) -> str:
    """The latest finished hand: how play stopped, every count and the stakes won or paid."""
    r = view.last_result
    if r is None:
        return ""
    counts = ", ".join(f"P{s} {c}" for s, c in enumerate(r.counts))
    paid = ", ".join(f"P{s} {p:+d}" for s, p in enumerate(r.payments))
    return (f"hand {r.hand_index + 1}/{view.num_hands}: {_how(r.reason, r.ended_by, r.winners, r.counts)}\n"
            f"  counts: {counts}\n  stakes (side pot included): {paid}")
