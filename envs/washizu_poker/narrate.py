"""Table talk of Washizu poker: discards named by their cards, moves as a seat saw them
(Washizu cards are public, the rest is not) and each game's result explained (the hands
shown, their names, why the winner won), all read off Views."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from parlor.envs.engine.hand_names import describe, why_better
from parlor.envs.engine.words import count
from parlor.envs.washizu_poker.betting import CALL, DROP, RAISE_BASE
from parlor.envs.washizu_poker.draw import DISCARDED, NUM_DISCARDS
from parlor.envs.washizu_poker.render import card_text
from parlor.envs.washizu_poker.view import WashizuView


def _cards(cards: Iterable[int], washizu: set[int] | frozenset[int]) -> str:
    return " ".join(card_text(c, washizu) for c in cards)


def discarded_cards(view: WashizuView, action: int) -> tuple[int, ...]:
    """The cards of ``view.hand`` that discard action ``action`` throws (its bits are positions)."""
    return tuple(view.hand[i] for i in DISCARDED[action] if i < len(view.hand))


def move_name(view: WashizuView, action: int, action_name: Callable[[int], str]) -> str:
    """Discards by their cards on the seat's draw turn (``"discard K♣ [7♦] and draw 2"``)."""
    if 0 < action < NUM_DISCARDS and view.phase == "draw" and len(view.hand) == 5:
        cards = discarded_cards(view, action)
        return f"discard {_cards(cards, set(view.washizu))} and draw {len(cards)}"
    return action_name(action)


def describe_move(before: WashizuView, after: WashizuView, actor: int, action: int) -> str:
    """The move as ``before.player`` saw it: own discards and draws by name, another seat's
    by count, naming the Washizu cards that left or joined his hand (everyone sees those)."""
    w = set(before.washizu)
    if action == DROP:
        return "drops"
    if action == CALL:
        owed = before.level - before.bets[actor]
        return f"calls {owed}" if owed else "checks (calls 0)"
    if action > CALL:
        return f"raises by {action - RAISE_BASE} to level {before.level + action - RAISE_BASE}"
    if action == 0:
        return "stands pat"
    k = len(DISCARDED[action])
    if actor == before.player:
        thrown = discarded_cards(before, action)
        drawn = [c for c in after.hand if c not in before.hand] if after.game_number == before.game_number else []
        got = f": {_cards(drawn, w)}" if len(drawn) == k else ""
        return f"discards {_cards(thrown, w)} and draws {k}{got}"
    gone = [c for c in before.visible[actor] if c not in after.visible[actor]]
    came = [c for c in after.visible[actor] if c not in before.visible[actor]]
    seen = f" (Washizu {_cards(gone, w)} among them)" if gone else ""
    got = f" (Washizu {_cards(came, w)} among them)" if came else ""
    return f"discards {count(k, 'card')}{seen} and draws {k}{got}"


def explain(view: WashizuView, rank5: Callable[[Sequence[int]], int]) -> str:
    """How the latest finished game ended: every hand shown with its name (``rank5``: the
    evaluator the game's showdown uses), who took the pot and why (the winning hand against the
    best beaten one), or that everyone else dropped."""
    r = view.last_result
    if r is None:
        return ""
    w = set(view.washizu)
    winners = " and ".join(f"P{s}" for s in r.winners)
    verb = "split" if len(r.winners) > 1 else "takes"
    removed = f" ({r.removed} chip{'s' if r.removed > 1 else ''} left play: the split was uneven)" if r.removed else ""
    head = f"game {r.game_number + 1}/{view.num_games}:"
    shown = {s: h for s, h in enumerate(r.shown) if h}
    if len(shown) < 2:
        return f"{head} {winners} {verb} the pot of {r.pot}{removed}: everyone else dropped"
    ranks = {s: rank5(h) for s, h in shown.items()}
    lines = [f"{head} showdown"]
    lines += [f"  P{s}{' (you)' if s == view.player else ''}: {_cards(h, w)} ({describe(ranks[s])})"
              for s, h in shown.items()]
    best = ranks[r.winners[0]]
    beaten = [v for s, v in ranks.items() if s not in r.winners]
    why = why_better(best, max(beaten)) if beaten else "equal hands"
    lines.append(f"  {winners} {verb} the pot of {r.pot}{removed}: {why}")
    return "\n".join(lines)
