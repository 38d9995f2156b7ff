"""OFC placement features: the optional observation block of ``features=True``.

What a player reads off the boards before placing a card, as numbers in [0, 1]
(computed from the seat's :class:`OFCView` only, so nothing hidden leaks):

- per own row (top, middle, bottom): fill, the made hand so far (category and
  its two leading ranks, complete rows by the real evaluator, partial rows by
  their pairs/trips/quads), whether a flush / straight can still be made, the
  unseen cards that pair a card in the row;
- whether the rows are out of order right now (top over middle, middle over
  bottom: the made hands so far) and whether that is already final (the
  weaker lower row is complete and cannot improve: a foul);
- for the next pending card, per row: room, the made hand after placing it,
  whether it pairs the row, keeps a flush or straight alive, and whether the
  rows would then be out of order;
- the next card's rank and its unseen copies; own free slots;
- per opponent (relative seat): fill and made hand of each row and whether his
  rows are out of order;
- the outlook of each action for the next card (top, middle, bottom, discard):
  the best plan of the whole turn that starts with it, judged over 32 sampled
  completions of the board (:func:`envs.ofc_outlook.outlook.evaluate_turn_plans`, the
  rule-based heuristic's planner; exact on the last turn): whether it is legal,
  its foul rate, royalties / 25, row strength / 27, Fantasyland rate, the
  planner's value ((value + 7) / 40) and a preference ``exp((value - best) / 2)``
  (1.0 for the planner's choice). The samples come from a fixed noise table
  picked by :func:`turn_key`, which stays the same for every card of one turn,
  so the card-by-card choices follow one consistent plan (re-drawing the samples
  for every card mixes plans and costs about 0.2 points per hand). Zero in a
  Fantasyland turn.

Version 2 (``FEATURES_VERSION``): the outlook plans the whole turn and adds the
value and preference (version 1 judged the next card alone, completing the
board from the unseen and the other pending cards alike).

A learner given these does not have to rediscover hand ranking from one-hot
cards; the plain card one-hots stay in the observation in front of the block.
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from parlor.envs.engine.hands import category, rank3, rank5, rank_values
from parlor.envs.ofc.view import OFCView
from parlor.envs.ofc_outlook import outlook as _outlook
from parlor.envs.ofc_outlook.outlook import OUTLOOK, TurnView, outlook_turn

ROW_SIZES = (3, 5, 5)
MAX_CATEGORY = 9.0          # five of a kind cannot occur in OFC; straight flush = 8
OWN_ROW = 8                 # features per own row
ORDER = 4                   # out-of-order flags (now, final) for top/middle and middle/bottom
NEXT_ROW = 7                # features per row for the next card
CARD = 3                    # next card rank, unseen copies, own free slots
OPP_ROW = 3
OPP = 3 * OPP_ROW + 2       # per opponent: rows + out-of-order flags
# the outlook's scales (defined with the outlook, which computes that part of the block)
ROYALTY_SCALE, STRENGTH_SCALE = _outlook.ROYALTY_SCALE, _outlook.STRENGTH_SCALE
VALUE_SCALE, PREF_TEMPERATURE = _outlook.VALUE_SCALE, _outlook.PREF_TEMPERATURE
FREE_SLOTS = 3 * OWN_ROW + ORDER + 3 * NEXT_ROW + 2   # index of own free slots / 13 in the block
FEATURES_VERSION = 2        # bump when the block changes (part of a trained policy's signature)


def size(num_players: int) -> int:
    """Length of the feature block for ``num_players`` seats."""
    return 3 * OWN_ROW + ORDER + 3 * NEXT_ROW + CARD + (num_players - 1) * OPP + 4 * OUTLOOK


def turn_key(view: OFCView | TurnView, seen: tuple[int, ...] | None = None) -> int:
    """Picks the outlook's sampling noise: a function of the cards this seat has seen
    (the same for every card of one turn: placing or discarding a pending card keeps
    it seen) and the hand; hashes of int tuples do not depend on the process.
    ``seen``: the view's seen cards in ascending order, when the caller has them."""
    seen = tuple(sorted(view.seen_cards())) if seen is None else seen
    return hash((view.hand_index, view.player, seen)) & 0x7FFFFFFF


def outlook(view: OFCView, seen: tuple[int, ...] | None = None) -> list[float]:
    """Per action of the next card: [available, foul, royalties, strength, Fantasyland,
    value, preference] of the best turn plan starting with it
    (:func:`envs.ofc_outlook.outlook.evaluate_turn_plans`, read off the turn's completion,
    :meth:`envs.ofc_outlook.outlook.CompletedTurn.outlook`); ``seen`` as for :func:`turn_key`."""
    if not view.pending or view.fantasyland[view.player]:
        return [0.0] * (4 * OUTLOOK)
    seen = tuple(sorted(view.seen_cards())) if seen is None else seen
    turn, taken = outlook_turn(view, turn_key(view, seen), seen)
    return turn.outlook(taken)


def block_of(observation: Sequence[float], num_players: int) -> Sequence[float]:
    """The feature block at the end of a ``features=True`` observation."""
    return observation[len(observation) - size(num_players):]


def made_hand(cards: Sequence[int], row: int) -> tuple[int, int, int]:
    """(category, leading rank, second rank) of a row so far.

    A complete row is ranked by the evaluator (straights and flushes count); a
    partial row only by its groups of equal rank (a pair, two pair, trips, full
    house, quads), ranks 0 = deuce .. 12 = ace; an empty row is (0, -1, -1).
    """
    return _made_hand(tuple(cards), row)


@lru_cache(maxsize=1 << 12)
def _made_hand(cards: tuple[int, ...], row: int) -> tuple[int, int, int]:
    if len(cards) == ROW_SIZES[row]:
        rank = rank3(cards) if row == 0 else rank5(cards)
        values = rank_values(rank)
        return int(category(rank)), values[0], values[1] if len(values) > 1 else -1
    if not cards:
        return 0, -1, -1
    counts: dict[int, int] = {}
    for c in cards:
        counts[c >> 2] = counts.get(c >> 2, 0) + 1
    groups = sorted(((n, r) for r, n in counts.items()), reverse=True)
    top_n = groups[0][0]
    second_n = groups[1][0] if len(groups) > 1 else 0
    if top_n == 4:
        cat = 7
    elif top_n == 3:
        cat = 6 if second_n >= 2 else 3
    elif top_n == 2:
        cat = 2 if second_n == 2 else 1
    else:
        cat = 0
    return cat, groups[0][1], groups[1][1] if len(groups) > 1 else -1


def hand_value(made: tuple[int, int, int]) -> int:
    """A made hand as one comparable number."""
    cat, first, second = made
    return (cat * 14 + first + 1) * 14 + second + 1


def flush_alive(cards: Sequence[int], row: int, suit_left: Sequence[int]) -> bool:
    if row == 0 or not cards:
        return row != 0
    suit = cards[0] & 3
    return all(c & 3 == suit for c in cards) and ROW_SIZES[row] - len(cards) <= suit_left[suit]


def straight_alive(cards: Sequence[int], row: int) -> bool:
    if row == 0:
        return False
    ranks = {c >> 2 for c in cards}
    if len(ranks) < len(cards):
        return False
    if not ranks:
        return True
    if max(ranks) - min(ranks) <= 4:
        return True
    low = {r if r != 12 else -1 for r in ranks}  # the wheel: ace plays low
    return max(low) - min(low) <= 4


class RowSummary(NamedTuple):
    """What the block reads off one row that depends on the row alone (memoised per row)."""

    head: tuple[float, float, float]   # made hand: category / 9, (first rank + 1) / 13, (second + 1) / 13
    fill: float                        # cards / row size
    straight: float                    # a straight can still be made
    full: bool
    value: int                         # hand_value of the made hand
    ranks: tuple[int, ...]             # the distinct ranks in the row
    room: int                          # free slots
    flush_suit: int                    # the suit every card shares: -1 never a flush (top, mixed), 4 empty


@lru_cache(maxsize=1 << 12)   # the rows of the hands in play: a small cache keeps the garbage collector's walks short
def row_summary(cards: tuple[int, ...], row: int) -> RowSummary:
    suits = {c & 3 for c in cards}
    flush_suit = -1 if row == 0 or len(suits) > 1 else (suits.pop() if suits else 4)
    if len(cards) == ROW_SIZES[row]:   # complete: ranked by the evaluator (straights and flushes count)
        return RowSummary(*_rank_facts(cards, row), flush_suit)
    # partial: everything but the flush is a function of the ranks (far fewer than the rows)
    return RowSummary(*_rank_facts(tuple(sorted(c & ~3 for c in cards)), row), flush_suit)


@lru_cache(maxsize=1 << 14)
def _rank_facts(cards: tuple[int, ...], row: int) -> tuple:
    """The fields of :class:`RowSummary` before ``flush_suit``."""
    made = _made_hand(cards, row)
    return ((made[0] / MAX_CATEGORY, (made[1] + 1) / 13, (made[2] + 1) / 13), len(cards) / ROW_SIZES[row],
            float(straight_alive(cards, row)), len(cards) == ROW_SIZES[row], hand_value(made),
            tuple({c >> 2 for c in cards}), ROW_SIZES[row] - len(cards))


def _flush(summary: RowSummary, suit_left: Sequence[int]) -> float:
    """:func:`flush_alive` from the row's summary."""
    suit = summary.flush_suit
    return float(suit == 4 or (suit >= 0 and summary.room <= suit_left[suit]))


def out_of_order(upper: tuple[int, int, int], upper_full: bool, lower: tuple[int, int, int],
                 lower_full: bool) -> tuple[float, float]:
    """(the upper row beats the lower now, and the lower row can no longer catch up)."""
    now = hand_value(upper) > hand_value(lower)
    return float(now), float(now and lower_full)


@lru_cache(maxsize=256)
def cards_left(seen: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Unseen cards per rank and per suit, given the seen cards (ascending)."""
    rank_left, suit_left = [4] * 13, [13] * 4
    for c in seen:
        rank_left[c >> 2] -= 1
        suit_left[c & 3] -= 1
    return tuple(rank_left), tuple(suit_left)


@lru_cache(maxsize=1 << 10)
def opponent_block(board: tuple[tuple[int, ...], ...]) -> tuple[float, ...]:
    """An opponent's part of the block: fill and made hand per row, rows out of order."""
    rows = [row_summary(board[r], r) for r in range(3)]
    out: list[float] = []
    for s in rows:
        out += (s.fill, s.head[0], s.head[1])
    return (*out, float(rows[0].value > rows[1].value), float(rows[1].value > rows[2].value))


def features(view: OFCView) -> np.ndarray:
    """The feature block of ``view`` (float32, every entry in [0, 1]). Row facts come
    from :func:`row_summary` (memoised); the numbers are those of :func:`flush_alive`,
    :func:`straight_alive`, :func:`made_hand` and :func:`out_of_order`."""
    p, n = view.player, view.num_players
    seen = tuple(sorted(view.seen_cards()))
    rank_left, suit_left = cards_left(seen)
    rows = view.rows[p]
    own = [row_summary(rows[r], r) for r in range(3)]
    out: list[float] = []
    for s in own:
        out += (s.fill, *s.head, _flush(s, suit_left), s.straight,
                sum(rank_left[r] for r in s.ranks) / 15,  # at most 5 ranks x 3 unseen copies
                float(s.full))
    for upper, lower in ((own[0], own[1]), (own[1], own[2])):
        now = upper.value > lower.value
        out += (float(now), float(now and lower.full))
    nxt = view.pending[0] if view.pending else None
    for r in range(3):
        if nxt is None or own[r].full:
            out += (0.0,) * NEXT_ROW
            continue
        after = row_summary((*rows[r], nxt), r)
        bad = (r > 0 and own[r - 1].value > after.value) or (r < 2 and after.value > own[r + 1].value)
        out += (1.0, after.head[0], after.head[1], sum(1 for c in rows[r] if c >> 2 == nxt >> 2) / 3,
                _flush(after, suit_left), after.straight, float(bad))
    free = sum(ROW_SIZES) - sum(len(row) for row in rows)
    if nxt is None:
        out += (0.0, 0.0, free / 13)
    else:
        out += (((nxt >> 2) + 1) / 13, rank_left[nxt >> 2] / 3, free / 13)
    for k in range(1, n):
        q = (p + k) % n
        out += opponent_block(view.rows[q] if not view.hidden[q] else ((), (), ()))
    out += outlook(view, seen)
    return np.asarray(out, dtype=np.float32)


def observe(state, player: int, total: int) -> np.ndarray:
    """``OFCGame.observe`` with the block: the seat's observation vector (kept up to date by
    the State) followed by :func:`features` of its view, byte for byte; the board part
    compiled from the vector (:mod:`envs.ofc_outlook.block_kernel`), the outlook read off the
    turn's completion. ``total``: the observation's length."""
    obs = state.obs[player]
    out = np.empty(total, dtype=np.float32)
    size = len(obs)
    out[:size] = obs
    seen = np.empty(52, dtype=np.int64)
    count = kernels()[0].board_block(obs, out, size, state.layout, seen)
    if player == state.current_player and not state.in_fl[player]:
        rows = state.rows[player]
        view = TurnView(player, state.hand_index, state.num_hands, (tuple(rows[0]), tuple(rows[1]), tuple(rows[2])),
                        tuple(state.pending[state.pend_pos:]), state.owed, tuple(state.discards[player]))
        seen_cards = tuple(seen[:count].tolist())
        turn, taken = outlook_turn(view, turn_key(view, seen_cards), seen_cards)
        out[total - 4 * OUTLOOK:] = turn.outlook(taken)
    else:
        out[total - 4 * OUTLOOK:] = 0.0
    return out


def kernels():
    """(:mod:`envs.ofc_outlook.block_kernel`, :mod:`envs.ofc_outlook.turn_kernel`), imported and loaded at the
    first call (numba is imported only where the block is computed)."""
    global _BLOCK_KERNEL
    if _BLOCK_KERNEL is None:
        from parlor.envs.ofc_outlook import block_kernel

        block_kernel.warm_up()
        _BLOCK_KERNEL = block_kernel
    return _BLOCK_KERNEL, _outlook.kernel()


_BLOCK_KERNEL = None
