"""Table talk of the domino games: tile plays named with the open end they match, moves as a
seat saw them (drawn tiles only by their drawer) and each deal's end explained (who went out
or how the line blocked, the pips counted, the payouts), all read off Views. Each function takes the
game's presenter (``presenter.py``) for the words its game adds (bets, buy-backs, running totals)."""
from __future__ import annotations

from typing import Any

from parlor.envs.dominoes.line import PASS, PLAY_ACTIONS, TILES
from parlor.envs.dominoes.view import DominoView
from parlor.envs.engine.words import count

ENDS = ("left", "right")


def _tiles(tiles: Any) -> str:
    return " ".join(TILES.show(t) for t in tiles)


def third_person(phrase: str) -> str:
    """``"bet later"`` -> ``"bets later"``: the verb an action name starts with, conjugated."""
    verb, _, rest = phrase.partition(" ")
    if verb == "no":
        return f"declines ({phrase})"
    verb += "es" if verb.endswith(("s", "sh", "ch", "x")) else "s"
    return f"{verb} {rest}".rstrip()


def move_name(presenter: Any, view: DominoView, action: int) -> str:
    """A tile play names the tile and the open number it goes on; other actions their name."""
    if not 0 <= action < PLAY_ACTIONS:
        return presenter.action_name(action)
    tile, end = divmod(action, 2)
    if view.ends is None:
        return f"play {TILES.show(tile)} as the first tile"
    return f"play {TILES.show(tile)} on the {ENDS[end]} end (on the open {view.ends[end]})"


def describe_move(presenter: Any, before: DominoView, after: DominoView, actor: int, action: int) -> str:
    """The move as ``before.player`` saw it: plays by tile, draws by tile for the drawer only."""
    if 0 <= action < PLAY_ACTIONS:
        tile, end = divmod(action, 2)
        if before.ends is None:
            return f"leads {TILES.show(tile)}"
        return f"plays {TILES.show(tile)} on the {ENDS[end]} end (on the open {before.ends[end]})"
    if action != PASS:
        return presenter.extra_move(before, actor, action)
    open_ends = "" if before.ends is None else f" (no {' or '.join(map(str, sorted(set(before.ends))))})"
    if after.deal_index != before.deal_index or after.phase == "over":
        return f"passes{open_ends}; the deal is over"
    drawn = after.hand_counts[actor] - before.hand_counts[actor]
    if drawn <= 0:
        return f"passes{open_ends}"
    if actor == before.player:
        new = [t for t in after.hand if t not in before.hand]
        return f"draws {_tiles(new)} from the stock{open_ends}"
    return f"draws {count(drawn, 'tile')} from the stock{open_ends}"


def explain(presenter: Any, view: DominoView) -> str:
    """The latest finished deal: who went out, or that the line blocked and who had the fewest
    pips (a tie draws), the pips counted, and what the settlement paid each seat."""
    r = view.last_deal
    if r is None:
        return ""
    head = f"deal {r.deal_index + 1}/{view.num_deals}: "
    if r.result == "win" and r.winner is not None:
        how = f"P{r.winner} went out (played the last tile)"
    elif r.result == "blocked" and r.winner is not None and r.pips is not None:  # a blocked deal counts pips
        how = f"the line blocked (nobody could play): P{r.winner} has the fewest pips, {r.pips[r.winner]}"
    else:
        how = "the line blocked with the fewest pips tied: a draw"
    lines = [head + how]
    if r.pips is not None:
        lines.append("  pips left: " + ", ".join(f"P{s} {p}" for s, p in enumerate(r.pips)))
    paid = ", ".join(f"P{s} {p:+.3g}" for s, p in enumerate(r.payouts)) if any(r.payouts) else "nothing"
    lines.append(f"  paid: {paid}")
    lines += [f"  {note}" for note in presenter.deal_notes(view)]
    return "\n".join(lines)
