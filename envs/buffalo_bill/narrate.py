"""Table talk of Buffalo Bill: exchanges named by their cards and scoring by its line and
value, moves as a seat saw them (every hand is public) and the final sheet explained."""
from __future__ import annotations

from collections.abc import Sequence

from parlor.envs.buffalo_bill.encode import EXCHANGE_POSITIONS, FIRST_SCORE, NUM_EXCHANGES
from parlor.envs.buffalo_bill.view import BuffaloBillView
from parlor.envs.engine.cards import format_cards

# what each reward option pays, in words (docs/rules.md §2.8)
REWARD_RULES = {
    "score": "each line pays its value as it is written",
    "margin": "own total minus the best other total",
    "win": "+1 the sole best total, 0 a shared best, -1 the others",
}


def _exchanged(view: BuffaloBillView, seat: int, action: int) -> tuple[int, ...]:
    hand = view.hands[seat]
    return tuple(hand[i] for i in EXCHANGE_POSITIONS[action] if i < len(hand))


def move_name(view: BuffaloBillView, action: int, lines: Sequence[str]) -> str:
    """``"exchange K♣ 7♦ (1 chip)"`` / ``"score full house (line 2) for 25"`` on the seat's turn."""
    me = view.player
    if 0 <= action < NUM_EXCHANGES:
        cost = "free" if view.exchange_cost() == 0 else "1 chip"
        return f"exchange {format_cards(_exchanged(view, me, action), symbols=True)} ({cost})"
    line = action - FIRST_SCORE
    value = view.line_values[me][line] if view.hands[me] else 0
    return f"score {lines[line]} (line {line}) for {value}"


def describe_move(before: BuffaloBillView, after: BuffaloBillView, actor: int, action: int,
                  lines: Sequence[str]) -> str:
    """The move with its cards (hands are public): what was thrown and drawn, or what scored."""
    if 0 <= action < NUM_EXCHANGES:
        thrown = _exchanged(before, actor, action)
        drawn = [c for c in after.hands[actor] if c not in before.hands[actor]] if after.round == before.round else []
        cost = "" if before.exchange_cost(actor) == 0 else " (1 chip)"
        got = f" for {format_cards(drawn, symbols=True)}" if len(drawn) == len(thrown) else ""
        return f"exchanges {format_cards(thrown, symbols=True)}{got}{cost}"
    line = action - FIRST_SCORE
    value = before.line_values[actor][line]
    hand = format_cards(before.hands[actor], symbols=True)
    return f"scores {hand} as {lines[line]} (line {line}): {value}" + (" (scratched)" if value == 0 else "")


def explain(view: BuffaloBillView, reward: str) -> str:
    """Once the game is over: every total, the winner and what the reward option pays."""
    if view.current_player is not None:
        return ""
    totals = ", ".join(f"P{s} {t}" for s, t in enumerate(view.totals))
    if view.num_players == 1:
        return f"game over: total {view.totals[0]} ({REWARD_RULES[reward]})"
    best = max(view.totals)
    top = [s for s, t in enumerate(view.totals) if t == best]
    if len(top) == 1:
        second = max(t for s, t in enumerate(view.totals) if s != top[0])
        who = f"P{top[0]} has the best total, {best - second} ahead"
    else:
        who = " and ".join(f"P{s}" for s in top) + f" share the best total, {best}"
    return f"game over: totals {totals}; {who} (reward: {REWARD_RULES[reward]})"
