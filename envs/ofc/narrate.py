"""Table talk of OFC: actions named by their card, moves as a seat saw them, and the showdown
explained (each row's hand, royalties, fouls, the pairwise points), all read off Views."""
from __future__ import annotations

from parlor.envs.engine.cards import format_card, format_cards
from parlor.envs.engine.hand_names import describe, why_better
from parlor.envs.ofc.encode import ACTION_DISCARD, action_name
from parlor.envs.ofc.scoring import ROW_NAMES, ROWS_PLUS_SCOOP, SCOOP_BONUS, BoardResult, evaluate_board, score_hand
from parlor.envs.ofc.view import Board, OFCView

ROW_PLACES = ("on top", "in middle", "on bottom")


def move_name(view: OFCView, action: int) -> str:
    """``"place K♣ in middle"`` / ``"discard K♣"`` on the seat's turn, else the plain name."""
    if not view.pending or not 0 <= action <= ACTION_DISCARD:
        return action_name(action)
    card = format_card(view.pending[0], symbols=True)
    return f"discard {card}" if action == ACTION_DISCARD else f"place {card} {ROW_PLACES[action]}"


def _board_at_move(view: OFCView, seat: int, hand_index: int) -> Board | None:
    """Seat's board in hand ``hand_index`` as ``view`` shows it (the showdown's once the hand is over)."""
    if view.hand_index == hand_index and not view.hidden[seat]:
        return view.rows[seat]
    if view.showdown is not None and view.showdown.hand_index == hand_index:
        return view.showdown.boards[seat]
    return None


def describe_move(before: OFCView, after: OFCView, actor: int, action: int) -> str:
    """The move as ``before.player`` saw it: his own cards by name, others' placements by the card
    that appeared on their board, discards and face-down Fantasyland boards without the card."""
    if actor == before.player and before.pending:
        card = format_card(before.pending[0], symbols=True)
        return f"discards {card} (face down)" if action == ACTION_DISCARD else f"places {card} {ROW_PLACES[action]}"
    if action == ACTION_DISCARD:
        return "discards a card face down"
    if before.hidden[actor]:
        return f"places a card face down {ROW_PLACES[action]} (Fantasyland)"
    board = _board_at_move(after, actor, before.hand_index)
    new = [c for c in board[action] if c not in before.rows[actor][action]] if board is not None else []
    if len(new) != 1:  # cannot happen for a face-up board; say what is known rather than guess
        return f"places a card {ROW_PLACES[action]}"
    return f"places {format_card(new[0], symbols=True)} {ROW_PLACES[action]}"


def _row_text(board: Board, result: BoardResult, r: int) -> str:
    royalty = f", royalty {result.royalties[r]}" if result.royalties[r] else ""
    return f"{ROW_NAMES[r]} {format_cards(board[r], symbols=True)} ({describe(result.ranks[r])}{royalty})"


def _foul_reason(result: BoardResult) -> str:
    t, m, b = result.ranks
    if t > m:
        return f"top ({describe(t)}) beats middle ({describe(m)}): {why_better(t, m)}"
    return f"middle ({describe(m)}) beats bottom ({describe(b)}): {why_better(m, b)}"


def _pair_text(a: int, b: int, ra: BoardResult, rb: BoardResult) -> str:
    """Seat a against seat b: who won which row, the scoop, royalties, or the foul."""
    if ra.fouled and rb.fouled:
        return f"P{a} vs P{b}: both fouled, 0"
    if ra.fouled or rb.fouled:
        loser, winner, res = (a, b, rb) if ra.fouled else (b, a, ra)
        pts = ROWS_PLUS_SCOOP + res.royalty
        return f"P{a} vs P{b}: P{loser} fouled and pays P{winner} {ROWS_PLUS_SCOOP} + royalties {res.royalty} = {pts}"
    rows = []
    for r in range(3):
        x, y = ra.ranks[r], rb.ranks[r]
        rows.append(f"{ROW_NAMES[r]} {'P' + str(a) if x > y else 'P' + str(b) if y > x else 'tied'}")
    won = sum(x > y for x, y in zip(ra.ranks, rb.ranks))
    lost = sum(x < y for x, y in zip(ra.ranks, rb.ranks))
    scoop = f", scoop {SCOOP_BONUS}" if 3 in (won, lost) else ""
    total = won - lost + (SCOOP_BONUS if won == 3 else -SCOOP_BONUS if lost == 3 else 0) + ra.royalty - rb.royalty
    return (f"P{a} vs P{b}: rows {', '.join(rows)} ({won}-{lost}{scoop}), royalties {ra.royalty} - {rb.royalty}: "
            f"P{a} {total:+d}")


def explain(view: OFCView) -> str:
    """The latest showdown: each board's rows with hand names and royalties (or why it fouled),
    every pair's points and each seat's total; '' before the first showdown."""
    shown = view.showdown
    if shown is None:
        return ""
    results = [evaluate_board(*board) for board in shown.boards]
    lines = [f"showdown of hand {shown.hand_index + 1}/{view.num_hands}:"]
    for q, (board, res) in enumerate(zip(shown.boards, results)):
        you = " (you)" if q == view.player else ""
        if res.fouled:
            rows = "; ".join(f"{ROW_NAMES[r]} {format_cards(board[r], symbols=True)}" for r in range(3))
            lines.append(f"  P{q}{you}: FOUL, {_foul_reason(res)}; no royalties ({rows})")
        else:
            rows = "; ".join(_row_text(board, res, r) for r in range(3))
            lines.append(f"  P{q}{you}: {rows}; royalties {res.royalty}")
    n = len(results)
    lines += [f"  {_pair_text(a, b, results[a], results[b])}" for a in range(n) for b in range(a + 1, n)]
    points = score_hand(results)
    lines.append("  points: " + ", ".join(f"P{q} {p:+d}" for q, p in enumerate(points)))
    return "\n".join(lines)
